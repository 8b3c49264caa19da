"""The ``luck-table`` command line.

Each subcommand lives in its own module with ``add_parser(subparsers)``, which
registers the subcommand and sets its ``handler``; ``main`` dispatches to it. Errors are
reported with ``controller.cli.common.fail`` (one format for every subcommand).

Exit status: 0 done; 1 the input was refused by the rules (see each subcommand); 2 the
command line or the input is not acceptable (``luck-table`` alone prints the help and
exits 2 too); 130 interrupted (Ctrl-C); 141 the reader of the output went away (``| head``),
as for any Unix tool stopped by SIGPIPE.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence
from types import ModuleType

from controller.cli import (
    backup_command,
    deploy_files_command,
    eval_command,
    floor_bind_command,
    floor_command,
    hash_pin_command,
    hil_command,
    history_command,
    monitor_command,
    odds_command,
    par_command,
    relay_command,
    replay_command,
    serve_command,
    sim_command,
)
from controller.cli.common import PROG, USAGE_ERROR
from controller.version import version

SUBCOMMANDS: tuple[ModuleType, ...] = (
    eval_command,
    replay_command,
    odds_command,
    par_command,
    sim_command,
    serve_command,
    history_command,
    backup_command,
    deploy_files_command,
    monitor_command,
    hil_command,
    floor_command,
    floor_bind_command,
    relay_command,
    hash_pin_command,
)
INTERRUPTED = 128 + signal.SIGINT
OUTPUT_CLOSED = 128 + signal.SIGPIPE


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Luck of the Irish table controller.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in SUBCOMMANDS:
        module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return USAGE_ERROR
    try:
        status: int = args.handler(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`luck-table replay ... | head -2`): stop quietly, as Unix
        # tools do; standard output goes to /dev/null so that the exit flush cannot fail.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return OUTPUT_CLOSED
    except KeyboardInterrupt:
        return INTERRUPTED
    return status


if __name__ == "__main__":
    sys.exit(main())
