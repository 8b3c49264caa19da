"""``luck-table sim``: the simulated table, dealt by an automatic dealer, in the terminal.

Ctrl-C (SIGINT), SIGTERM and SIGHUP stop it alike: the simulators and the service are
stopped, and the summary printed (from the table's own state: the simulators run in process
groups of their own, out of a terminal's Ctrl-C, and are stopped by this process).
Exit status: 0 when the hands were dealt (or it was stopped), every
chip is accounted for and every cheat injected was caught; 1 when the simulation went wrong
(the table refused the dealer, chips not conserved, a device failed, a cheat missed or a
genuine card taken for one); 2 for a bad option.

``--json FILE`` writes the summary as data too (``controller.sim.summary``), from which the
words printed are made; ``--progress`` gives stdout to a program: JSON lines as the run goes
(``controller.sim.view.Progress``), no words.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from controller.cli.common import fail
from controller.config import Config, FloorSettings, parse_config
from controller.config_file import ID_PATTERN, ConfigError, check_dsn, read_toml
from controller.journal.rotation import Rotation
from controller.rules import Effect, Rules, RulesError, Variant
from controller.rules.evaluator import prepare
from controller.sim.core_journal import CoreJournal
from controller.sim.dealer import Dealer, FaultRates, Pace, Tally
from controller.sim.floor import CoreFloor, Floor, Observer
from controller.sim.human import HumanDealer
from controller.sim.service_floor import ServiceFloor, SignIns, service_floor
from controller.sim.summary import Stopped, summarize
from controller.sim.view import ConsoleServed, Event, Progress, View, stopped, summary
from controller.table import Protection, Serials, Table, TableSettings
from luck_errors import LuckTableError

DEFAULT_JOURNAL = Path("data/table.sqlite3")
HIDE_CURSOR, SHOW_CURSOR = "\x1b[?25l", "\x1b[?25h"
VARIANT_NAMES = {
    Variant.LUCK_OF_THE_IRISH: "Luck of the Irish",
    Variant.SEVEN_CARD_STUD: "Seven-card stud",
}


def add_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], summary: str
) -> None:
    parser = subparsers.add_parser(
        "sim",
        help=summary,
        description=(
            "Deal hand after hand at a simulated table: an automatic dealer loads shuffled "
            "decks, draws each card and places it at its seat, seeded players decide, and a "
            "supervisor resolves every alert. A live view in the terminal, a summary at the "
            "end. The same seed and options deal the same hands."
        ),
    )
    parser.add_argument("--seats", type=int, default=6, help="players, 2..8 (default 6)")
    parser.add_argument(
        "--hands", type=int, default=10, help="hands to deal; 0: until Ctrl-C (default 10)"
    )
    parser.add_argument("--seed", type=int, default=1, help="every random choice (default 1)")
    parser.add_argument(
        "--variant",
        choices=[variant.value for variant in Variant],
        help=f"the game (default {Variant.LUCK_OF_THE_IRISH.value})",
    )
    parser.add_argument("--bonus-price", type=int, help="the bonus card's price (default 0: free)")
    parser.add_argument(
        "--rules",
        metavar="JSON",
        help="the table's rules as a JSON object of settings, as a hand script's 'rules' "
        '(docs/rules.md), such as \'{"rake_percent": 5, "rake_cap": 3}\'',
    )
    parser.add_argument(
        "--speed",
        default="1",
        help="'max' (as fast as possible) or how many times a live dealer's pace (default 1)",
    )
    for name, what in (
        ("unreadable", "cards the shoe cannot read (dealt unread), per card"),
        ("misplaced", "cards landing at a neighbouring seat, per card"),
        ("line-faults", "corrupted or dropped frames on the device lines, per frame"),
        ("unplugs", "a device's cable pulled for a moment, per card"),
        (
            "cheats",
            "cheats, per deck loaded: a foreign, re-tagged or cloned card dealt, a card "
            "missing or extra in the deck, a card switched at a seat; each must be caught "
            "(the run fails otherwise)",
        ),
    ):
        parser.add_argument(f"--{name}", type=float, default=0.0, metavar="RATE", help=what)
    parser.add_argument(
        "--dealer",
        choices=("auto", "human"),
        default="auto",
        help="auto: each act waited for until the table has it (default); human: cards "
        "pitched at a person's pace, dealing on through cable pulls and restarts",
    )
    parser.add_argument(
        "--dealer-push",
        type=int,
        default=20,
        metavar="N",
        help="the table's two simulated dealers push each other every N hands, each hand's "
        "dealer named in the journal (default 20; 0: no dealer named)",
    )
    parser.add_argument(
        "--mistakes",
        type=float,
        default=0.0,
        metavar="RATE",
        help="with --dealer human: the dealer's mistakes, per card (a card to the wrong seat, "
        "a card with the wrong face, a wrong correction) and per betting decision (a card "
        "drawn before it)",
    )
    parser.add_argument(
        "--journal",
        type=Path,
        help=f"a new journal for the run (default {DEFAULT_JOURNAL}, replaced at each run)",
    )
    parser.add_argument(
        "--console",
        metavar="HOST:PORT",
        help="serve the dealer console there too (port 0: any free port)",
    )
    parser.add_argument(
        "--floor",
        metavar="DSN",
        help="ship the table's journal to the casino floor store at this PostgreSQL "
        "connection string (docs/floor.md)",
    )
    parser.add_argument(
        "--table-id",
        default="SIM",
        help="the table's id (on the floor; default SIM): one per simulated table",
    )
    parser.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="a whole table configuration (as `luck-table serve` reads, docs/operations.md): "
        "its rules, stakes, time charge, protection, console, studio and floor, dealt on the "
        "simulators with the run's own journal and sign-ins",
    )
    parser.add_argument(
        "--hardware",
        choices=("sim", "pcsc"),
        default="sim",
        help="the devices: simulator processes on the wire protocol (sim, the default), or "
        "PC/SC card readers: a private pcscd with virtual readers and tags (pcsc; needs root, "
        "pcscd, vsmartcard-vpcd and pyscard: docs/hardware.md)",
    )
    parser.add_argument(
        "--json",
        type=Path,
        metavar="FILE",
        help="write the summary there too, as one JSON object, at the end (docs/sim.md)",
    )
    parser.add_argument(
        "--progress",
        action="store_true",
        help="for a program: stdout carries one JSON object a line (the console once "
        "served, each hand as it ends) and no words; the summary with --json",
    )
    parser.add_argument(
        "--core-only",
        action="store_true",
        help="the table core in this process: no simulator processes or service, and no "
        "journal unless --journal names one (written as the service writes its own)",
    )
    parser.set_defaults(handler=run)


@dataclass(frozen=True)
class Options:
    seats: int
    hands: int
    seed: int
    settings: TableSettings
    faults: FaultRates
    pace: Pace
    journal: Path
    core_only: bool
    console: tuple[str, int] | None
    table_id: str = "SIM"
    floor: FloorSettings | None = None
    human: bool = False
    mistakes: float = 0.0
    core_journal: Path | None = None  # --core-only --journal FILE
    dealer_push: int = 20  # the simulated dealers push each other every N hands (0: never)
    config: Config | None = None  # --config FILE: the table's configuration, as read
    pcsc: bool = False  # --hardware pcsc
    summary_json: Path | None = None  # --json FILE
    progress: bool = False  # --progress: JSON lines on stdout, no words


def options(args: argparse.Namespace) -> Options:
    """The options checked; ValueError says which one is wrong and why."""
    if not 2 <= args.seats <= 8:
        raise ValueError(f"--seats {args.seats}: a table seats 2..8 players")
    if args.hands < 0:
        raise ValueError(f"--hands {args.hands}: a number of hands, or 0 for no end")
    if args.speed == "max":
        pace = Pace()
    else:
        try:
            speed = float(args.speed)
        except ValueError:
            speed = 0.0
        if not speed > 0:
            raise ValueError(f"--speed {args.speed}: 'max' or a number above 0, such as 1 or 4")
        pace = Pace.real(speed)
    faults = FaultRates(
        args.unreadable, args.misplaced, args.line_faults, args.unplugs, args.cheats
    )
    config = _config(args)
    rules = _rules(args) if config is None else config.settings.rules
    journal = DEFAULT_JOURNAL if args.journal is None else args.journal
    if args.journal is not None and journal.exists():
        raise ValueError(
            f"--journal {journal}: the file exists; the simulation starts a journal of its "
            "own: remove it or name another file"
        )
    if args.core_only and faults.line:
        raise ValueError("--line-faults: there are no lines with --core-only")
    console = None if args.console is None else _address(args.console)
    if args.core_only and console:
        raise ValueError("--console: there is no table service with --core-only")
    floor = None if config is None else config.floor
    if args.floor is not None:
        if args.core_only:
            raise ValueError("--floor: there is no journal to ship with --core-only")
        try:
            floor = FloorSettings(check_dsn(args.floor, "--floor"))
        except ConfigError as error:
            raise ValueError(str(error)) from None
    if not 0.0 <= args.mistakes <= 1.0:
        raise ValueError(f"--mistakes {args.mistakes}: a share of the cards, 0..1")
    if args.mistakes and args.dealer != "human":
        raise ValueError("--mistakes: only a human dealer makes mistakes (--dealer human)")
    if faults.cheats and args.dealer == "human":
        raise ValueError("--cheats: the automatic dealer's tables only (--dealer auto)")
    if faults.cheats and faults.unreadable:
        raise ValueError(
            "--cheats with --unreadable: a card that leaves the shoe unread shows no tag, so a "
            "cheat on it could not be told from a miss; soak them apart"
        )
    pcsc = args.hardware == "pcsc"
    if pcsc:
        for given, name in (
            (args.core_only, "--core-only"),
            (faults.line, "--line-faults"),
            (faults.cheats, "--cheats"),
            (faults.unreadable, "--unreadable"),
            (args.floor, "--floor"),
            (args.dealer == "human", "--dealer human"),
            (args.config, "--config"),
        ):
            if given:
                raise ValueError(f"{name}: not with --hardware pcsc (readers of tags only)")
    if args.dealer_push < 0:
        raise ValueError(f"--dealer-push {args.dealer_push}: a number of hands, or 0 for none")
    if args.json is not None and not args.json.parent.is_dir():
        raise ValueError(f"--json {args.json}: no folder {args.json.parent} to write it in")
    if not ID_PATTERN.fullmatch(args.table_id):
        raise ValueError(f"--table-id {args.table_id!r}: letters, digits, '_.-' (64 at most)")
    # the simulated shoe registers every deck and the devices read every tag: checked; the
    # simulated dealer shuffles every deck: its order checked against the last decks'
    protection = Protection(tag_checks=True, shuffle_check=True)
    settings = TableSettings(rules=rules, protection=protection)
    if config is not None:  # the configuration's, but any device's serial (the simulators')
        settings = replace(config.settings, serials=Serials())
    return Options(
        args.seats,
        args.hands,
        args.seed,
        settings,
        faults,
        pace,
        journal,
        args.core_only,
        console,
        args.table_id,
        floor,
        args.dealer == "human",
        args.mistakes,
        args.journal if args.core_only else None,
        args.dealer_push,
        config,
        pcsc,
        args.json,
        args.progress,
    )


def _config(args: argparse.Namespace) -> Config | None:
    """The table configuration of ``--config``, checked as ``serve`` checks it; ValueError
    names the file and the setting, or the option that the configuration sets instead."""
    if args.config is None:
        return None
    for option, value in (
        ("--rules", args.rules),
        ("--variant", args.variant),
        ("--bonus-price", args.bonus_price),
    ):
        if value is not None:
            raise ValueError(f"{option} with --config: the configuration's [game] sets the rules")
    if args.table_id != "SIM":
        raise ValueError("--table-id with --config: the configuration's [table] id names it")
    try:  # its sign-ins are not used (the simulated dealer and supervisor have their own):
        # the example's published PINs are no risk here
        return parse_config(read_toml(args.config), args.config.parent)
    except ConfigError as error:
        raise ValueError(f"--config {args.config}: {error}") from None


def _rules(args: argparse.Namespace) -> Rules:
    """The rules of ``--rules``, with ``--variant`` and ``--bonus-price``; ValueError names
    the option and the setting that is wrong."""
    overrides: dict[str, Any] = {}
    if args.rules is not None:
        try:
            given = json.loads(args.rules)
        except json.JSONDecodeError as error:
            raise ValueError(f"--rules: not valid JSON: {error}") from None
        if not isinstance(given, dict):
            raise ValueError("--rules: a JSON object of settings, such as '{\"ante\": 2}'")
        overrides = given
    options = {}
    for name in ("variant", "bonus_price"):
        value = getattr(args, name)
        if value is None:
            continue
        options[name] = f"--{name.replace('_', '-')}"
        if name in overrides:
            raise ValueError(f"{options[name]} and --rules both set {name}")
        overrides[name] = value
    try:
        return Rules.from_mapping(overrides)
    except RulesError as error:
        option = options.get(error.field or "", "--rules")
        raise ValueError(f"{option}: {error}") from None


def _address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` checked; ValueError says what is wrong."""
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"--console {text}: give HOST:PORT, such as 127.0.0.1:8080")
    return host, int(port)


#: Hands from which a ``--core-only`` run builds the evaluator's whole tables before its first
#: hand (0.5 s): a run that long meets about as many hands' rank counts one at a time, each
#: computed alone, as the whole build costs.
PREPARED_FROM = 300


def run(args: argparse.Namespace) -> int:
    try:
        chosen = options(args)
    except ValueError as error:
        return fail("sim", str(error))
    log = None if chosen.core_only else chosen.journal.with_suffix(".log")
    if log is not None:
        try:
            _log_to(log)
        except OSError as error:
            return fail("sim", f"--journal {chosen.journal}: {error}")
    tally = Tally()
    live = sys.stdout.isatty() and not chosen.progress
    variant = VARIANT_NAMES[chosen.settings.rules.variant]
    title = f"Simulated table: {variant}, {chosen.seats} seats, seed {chosen.seed}"
    view = View(sys.stdout, live=live, title=title, hands=chosen.hands)
    view.tally = tally
    progress = Progress(sys.stdout) if chosen.progress else None
    started = time.monotonic()
    final: list[Table] = []

    def observe(table: Table, effects: Sequence[Effect]) -> None:
        tally.observe(table, effects)
        if progress is None:
            view.observe(table, effects)
        else:
            progress.observe(table, effects)
        final[:] = [table]

    status = 0
    stopped_by: list[signal.Signals] = []  # what stopped the run before its hands were dealt
    if live:
        sys.stdout.write(HIDE_CURSOR)
    try:
        asyncio.run(_deal(chosen, tally, observe, view, stopped_by, progress=progress))
    except KeyboardInterrupt:  # Ctrl-C before the run's own handler (_deal) was in place
        stopped_by.append(signal.SIGINT)
    except asyncio.CancelledError:  # by a signal (_deal)
        pass
    except (LuckTableError, OSError, RuntimeError) as error:
        if not stopped_by:  # the simulators, the service, the readers' rig
            status = fail("sim", str(error), status=1)
        else:  # something stopping as asked: the summary is of the table as it is
            logging.getLogger(__name__).warning("while stopping: %s", error)
    finally:
        if live:
            if final:
                view.draw(final[0])
            sys.stdout.write(SHOW_CURSOR)
    if not final:
        return status or 1
    table = final[0]
    journal = chosen.core_journal if chosen.core_only else chosen.journal
    made = summarize(
        tally,
        table,
        time.monotonic() - started,
        stopped=None if not stopped_by else _stopped(table, stopped_by[0]),
        journal=None if journal is None else str(journal),
        log=None if log is None else str(log),
    )
    if chosen.summary_json is not None:
        try:
            chosen.summary_json.write_text(json.dumps(made, indent=2) + "\n", encoding="utf-8")
        except OSError as error:
            status = fail("sim", f"--json {chosen.summary_json}: {error}", status=1)
    if progress is None:
        print()
        if stopped_by:  # after the live view's last drawing, which would cover it
            print(stopped(table, stopped_by[0]))
        print("\n".join(summary(made)))
    caught = not tally.missed and not tally.mistaken
    return status if tally.conserved(table) and caught else 1


def _stopped(table: Table, by: signal.Signals) -> Stopped:
    """What stopped the run, and the hand then in progress (None: between hands)."""
    return Stopped(by=by.name, hand=table.hand_number if table.in_hand else None)


def _log_to(path: Path) -> None:
    """The service's log goes to ``path`` (not over the live view)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(
        filename=path,
        filemode="w",
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


async def _deal(
    chosen: Options,
    tally: Tally,
    observe: Observer,
    view: View,
    stopped_by: list[signal.Signals],
    *,
    progress: Progress | None,
) -> None:
    dealing = asyncio.current_task()
    assert dealing is not None

    def stop(by: signal.Signals) -> None:
        stopped_by.append(by)
        dealing.cancel()

    # Ctrl-C, SIGTERM (kill, systemd) and SIGHUP (the terminal closed) stop the run alike:
    # the simulators and the service are stopped on the way out, not left running without
    # their parent, and the summary is printed from the table's own state
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        asyncio.get_running_loop().add_signal_handler(signum, stop, signum)
    if chosen.core_only:
        view.subtitle = "the table core in this process (--core-only)"
        if not chosen.hands or chosen.hands >= PREPARED_FROM:
            prepare(chosen.settings.rules)
        journal = None  # rotating as the service's does by default, as its journal would
        if chosen.core_journal is not None:
            journal = CoreJournal(chosen.core_journal, Rotation())
        floor = CoreFloor(chosen.settings, observe, start=int(time.time() * 1000), journal=journal)
        try:
            await _dealer(chosen, tally, floor).run()
        finally:
            if journal is not None:
                journal.close()
        return
    floor_on: Callable[..., contextlib.AbstractAsyncContextManager[ServiceFloor]]
    if chosen.pcsc:  # no --floor, --config, --line-faults (refused with --hardware pcsc)
        from controller.sim.pcsc_floor import pcsc_floor  # noqa: PLC0415 (with --hardware pcsc)

        floor_on = pcsc_floor
    else:
        floor_on = partial(service_floor, floor=chosen.floor, base=chosen.config)
    async with floor_on(
        chosen.settings,
        chosen.journal,
        observe,
        seed=chosen.seed,
        console=chosen.console,
        table_id=chosen.table_id,
    ) as devices:
        view.subtitle = devices.describe()
        if progress is not None:
            if devices.console_url is not None and devices.sign_ins is not None:
                progress.tell(_served(devices.console_url, devices.sign_ins))
        elif not view.live:  # the live view shows it at the top
            print(view.subtitle, flush=True)
        if chosen.faults.line:
            await devices.set_line_faults(chosen.faults.line)
            tally.line_faults = chosen.faults.line
        await _dealer(chosen, tally, devices).run()


def _served(url: str, sign_ins: SignIns) -> ConsoleServed:
    return ConsoleServed(
        event=Event.CONSOLE,
        url=url,
        dealer=sign_ins.dealer,
        dealer_pin=sign_ins.dealer_pin,
        supervisor=sign_ins.supervisor,
        supervisor_pin=sign_ins.supervisor_pin,
    )


def _dealer(chosen: Options, tally: Tally, floor: Floor) -> Dealer:
    dealer: Callable[..., Dealer] = Dealer
    if chosen.human:
        dealer = partial(HumanDealer, mistakes=chosen.mistakes)
    return dealer(
        floor,
        tally,
        seats=chosen.seats,
        hands=chosen.hands,
        seed=chosen.seed,
        faults=chosen.faults,
        pace=chosen.pace,
        dealer_push=chosen.dealer_push,
    )
