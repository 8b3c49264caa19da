"""``luck-table hil SCENARIO... [--shoe PORT --seats PORT | --attach URL ...]``: run
hardware-in-the-loop scenarios (docs/scenarios.md) against a ``luck-table serve`` process
on the simulators, or on real devices with each physical step printed as an instruction
for the engineer (a service started for the run, or one already running: ``--attach``).

Exit status: 0 when every step of every scenario passed; 1 when an expectation failed;
2 for a scenario file that cannot be run (the file, the step and what is wrong).
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import logging
import os
import sys
from pathlib import Path
from typing import Any

from controller.cli.common import fail
from controller.hil import ScenarioError, load_scenario, run_scenario
from controller.hil.runner import DEVICE_WAIT
from controller.hil.scenario import SERVICE
from controller.hil.service import Credentials, ServiceError
from controller.rules.cards import counted


def say(line: str) -> None:
    """Print a line at once: an engineer (or a program) acts on the instructions."""
    print(line, flush=True)


def pin(variable: str, whose: str) -> str:
    """A PIN from the environment, else asked for (not echoed)."""
    return os.environ.get(variable) or getpass.getpass(f"PIN of the {whose}: ")


def handler(args: argparse.Namespace) -> int:
    logging.basicConfig(
        level=getattr(logging, args.log_level.upper()),
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    if args.seats is not None and args.shoe is None:
        return fail("hil", "--seats needs --shoe (real devices)")
    if args.attach is not None and (args.shoe is not None or args.journal is not None):
        return fail("hil", "--attach: the service has its own devices and journal")
    signers = (args.dealer, args.supervisor)
    if (None in signers) if args.attach is not None else signers != (None, None):
        return fail("hil", "--attach URL goes with --dealer ID and --supervisor ID")
    if args.journal is not None and (args.journal.exists() or len(args.scenario) > 1):
        why = "already exists" if args.journal.exists() else "is for one scenario only"
        return fail(
            "hil", f"--journal {args.journal} {why}: a scenario starts from an empty journal"
        )
    try:
        scenarios = [load_scenario(path) for path in args.scenario]
    except ScenarioError as error:
        return fail("hil", str(error))
    if args.shoe is not None and args.seats is None:
        needs = [str(scenario.path) for scenario in scenarios if scenario.seat_board]
        if needs:
            return fail("hil", f"{needs[0]}: the table has a seat board: give --seats PORT")
    attach = None
    if args.attach is not None:
        powered = [s for s in scenarios if any(step.action in SERVICE for step in s.steps)]
        if powered:
            return fail(
                "hil",
                f"{powered[0].path}: stops and starts the service: not with --attach "
                "(the service is not hil's to stop)",
            )
        credentials = Credentials(
            (args.dealer, pin("LUCK_TABLE_DEALER_PIN", f"dealer {args.dealer}")),
            (args.supervisor, pin("LUCK_TABLE_SUPERVISOR_PIN", f"supervisor {args.supervisor}")),
        )
        attach = (args.attach, credentials)
    failed = 0
    for scenario in scenarios:
        print(f"scenario {scenario.path}: {scenario.title}")
        try:
            result = asyncio.run(
                run_scenario(
                    scenario,
                    say,
                    shoe=args.shoe,
                    seats=args.seats,
                    journal=args.journal,
                    wait=args.wait,
                    attach=attach,
                )
            )
        except (ScenarioError, ServiceError) as error:
            return fail("hil", str(error))
        verdict = "PASSED" if result.ok else f"FAILED at step {result.failed}"
        steps = counted(len(scenario.steps), "step")
        print(f"{verdict}: {scenario.path} ({result.passed} of {steps})")
        failed += not result.ok
    if len(scenarios) > 1:
        print(f"{len(scenarios) - failed} of {len(scenarios)} scenarios passed")
    return 1 if failed else 0


def add_parser(subparsers: Any, summary: str) -> None:
    parser = subparsers.add_parser(
        "hil",
        help=summary,
        description="Run scenario files (docs/scenarios.md) against a luck-table serve "
        "process started for each: on the simulators, or on real devices with --shoe and "
        "--seats; or against a service already running, with --attach.",
    )
    parser.add_argument("scenario", nargs="+", type=Path, help="a scenario file (TOML)")
    parser.add_argument("--shoe", metavar="PORT", help="the real shoe's serial port")
    parser.add_argument("--seats", metavar="PORT", help="the real seat board's serial port")
    parser.add_argument(
        "--attach",
        metavar="URL",
        help="run against this running service's console (luck-table serve on real devices) "
        "instead of starting one",
    )
    parser.add_argument("--dealer", metavar="ID", help="with --attach: the dealer who signs in")
    parser.add_argument(
        "--supervisor", metavar="ID", help="with --attach: the supervisor who signs in"
    )
    parser.add_argument(
        "--journal",
        type=Path,
        metavar="FILE",
        help="keep the run's journal here (default: a temporary file)",
    )
    parser.add_argument(
        "--wait",
        type=float,
        default=DEVICE_WAIT,
        metavar="SECONDS",
        help="with real devices: how long to wait for each event",
    )
    parser.add_argument(
        "--log-level", default="error", choices=("debug", "info", "warning", "error")
    )
    parser.set_defaults(handler=handler)
