"""``luck-table par --players 2..8 --hands N --seed S [--rules JSON] [--journal FILE]
[--rake-hands N] [--output FILE]``: the par sheet (docs/par-sheet.md).

First the exact category tables (``controller.odds.exact_counts``). Then, for each number
of players, whole hands played to the showdown: how often a bonus card is dealt, how often
each hand category wins and occurs, five of a kind, at 7 and 8 players how seventh street
was dealt on the short deck, each seat's share of the pots, each with a 95% interval; the
cross-checks of the simulation against the exact tables, under a family-wise rule; the
house's take (the rake and the jackpot drop per hand and per hour) measured from a
table's journal (``--journal``) and, when the rules set a rake or a drop, from the
simulated table (``luck-table sim``'s table core, ``--rake-hands`` hands per number of
players); what a game-approval submission asks for (``controller.odds.par``). Exit
status 1 when a cross-check fails (the sheet is written all the same, saying so), 2 for a
command line it cannot accept or a journal it cannot read.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shlex
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from controller.cli.common import fail
from controller.cli.odds_command import whole_number
from controller.cli.sim_command import PREPARED_FROM
from controller.history.hands import recorded_hands
from controller.history.index import readable_from
from controller.journal import Journal, JournalError
from controller.odds.par import HouseTake, checks, play, render, verdict
from controller.rules import Effect
from controller.rules.evaluator import prepare
from controller.rules.settings import Rules, RulesError
from controller.sim.dealer import Dealer, DealerError, Pace, Tally
from controller.sim.floor import CoreFloor
from controller.table import Protection, Table, TableSettings
from controller.table.effects import HandOver

COMMAND = "par"
DEFAULT_OUTPUT = "docs/par-sheet.md"


def handler(args: argparse.Namespace) -> int:
    try:
        overrides = json.loads(args.rules)
        if not isinstance(overrides, dict):
            return fail(COMMAND, "--rules: a JSON object of rules settings")
        rules = Rules.from_mapping(overrides)
    except (json.JSONDecodeError, RulesError, TypeError) as error:
        return fail(COMMAND, f"--rules: {error}")
    house = []
    if args.journal is not None:
        try:
            house.append(journal_take(args.journal))
        except (JournalError, ValueError) as error:
            return fail(COMMAND, str(error))
    rng = np.random.default_rng(args.seed)
    counts = []
    for players in args.players:
        counts.append(play(players, args.hands, rules, rng))
        print(f"{players} players: {args.hands:,} hands", file=sys.stderr)
    if rules.house_takes:
        for players in args.players:
            try:
                house.append(simulated_take(rules, players, args.rake_hands, args.seed))
            except DealerError as error:
                return fail(COMMAND, f"the simulated table: {error}", status=1)
            print(f"{players} players: {args.rake_hands:,} hands raked", file=sys.stderr)
    words = [
        "luck-table",
        COMMAND,
        "--players",
        _players_text(args.players),
        "--hands",
        str(args.hands),
        "--seed",
        str(args.seed),
    ]
    if overrides:
        words += ["--rules", json.dumps(overrides, separators=(",", ":"))]
    if rules.house_takes:
        words += ["--rake-hands", str(args.rake_hands)]
    if args.journal is not None:
        words += ["--journal", str(args.journal)]
    version = metadata.version("luck-table")
    text = render(counts, rules, args.seed, shlex.join(words), version, house=house)
    failed = verdict(checks(counts, rules))[2]
    if failed:
        print(f"{len(failed)} cross-checks fail: see the par sheet", file=sys.stderr)
    if args.output == "-":
        sys.stdout.write(text)
        return 1 if failed else 0
    try:
        Path(args.output).write_text(text, encoding="utf-8")
    except OSError as error:
        return fail(COMMAND, f"cannot write {args.output}: {error.strerror}")
    print(f"par sheet written to {args.output}", file=sys.stderr)
    return 1 if failed else 0


def journal_take(path: Path) -> HouseTake:
    """The rake and jackpot drop of every finished hand a table's journal holds (those
    still on this machine: pruned ones are on the floor). ValueError when it holds none."""
    with Journal.open_read_only(path) as journal:
        start, _ = readable_from(journal)
        hands = [
            hand
            for hand in recorded_hands(journal, start.position, start.table)
            if hand.ended is not None
        ]
    if not hands:
        raise ValueError(f"--journal {path}: the journal holds no finished hands")
    ended = hands[-1].ended
    assert ended is not None  # finished hands only
    return HouseTake(
        f"journal {path.name}, hands {hands[0].number} to {hands[-1].number}",
        tuple(hand.hand.rake for hand in hands),
        tuple(hand.hand.jackpot_drop for hand in hands),
        (ended - hands[0].started) / 3_600_000,
    )


#: The pace a live dealer deals at (``luck-table sim``'s, at speed 1): the simulated
#: table's hours.
LIVE_PACE = Pace.real(1)


def simulated_take(rules: Rules, players: int, hands: int, seed: int) -> HouseTake:
    """``hands`` hands of ``luck-table sim --core-only`` at ``players`` seats under
    ``rules``: each hand's rake and drop, over the hours a live dealer would take."""
    settings = TableSettings(
        rules=rules, protection=Protection(tag_checks=True, shuffle_check=True)
    )
    tally = Tally()
    rakes: list[int] = []
    drops: list[int] = []

    def observe(table: Table, effects: Sequence[Effect]) -> None:
        tally.observe(table, effects)
        if table.hand is not None and any(isinstance(effect, HandOver) for effect in effects):
            rakes.append(table.hand.rake)
            drops.append(table.hand.jackpot_drop)

    if hands >= PREPARED_FROM:
        prepare(rules)
    floor = CoreFloor(settings, observe)
    asyncio.run(Dealer(floor, tally, seats=players, hands=hands, seed=seed).run())
    seconds = (
        LIVE_PACE.card * tally.cards
        + LIVE_PACE.decision * tally.decisions
        + LIVE_PACE.hand * tally.hands
    )
    return HouseTake(f"simulated, {players} players", tuple(rakes), tuple(drops), seconds / 3600)


def _players(text: str) -> list[int]:
    """``5``, ``2..8`` or ``2,4,8``: numbers of players, each 2 to 8."""
    try:
        if ".." in text:
            low, high = (int(part) for part in text.split("..", 1))
            numbers = list(range(low, high + 1))
        else:
            numbers = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: a number of players (5), a range (2..8) or a list (2,4,8)"
        ) from None
    if not numbers or any(not 2 <= number <= 8 for number in numbers):
        raise argparse.ArgumentTypeError(f"{text!r}: players are 2 to 8")
    return sorted(set(numbers))


def _players_text(numbers: list[int]) -> str:
    if numbers == list(range(numbers[0], numbers[-1] + 1)) and len(numbers) > 1:
        return f"{numbers[0]}..{numbers[-1]}"
    return ",".join(str(number) for number in numbers)


def add_parser(subparsers: Any, summary: str) -> None:
    parser = subparsers.add_parser(
        COMMAND,
        help=summary,
        description="Write the par sheet as Markdown: the exact hand-category tables; "
        "whole hands dealt (nobody folds) for each number of players: bonus cards, hand "
        "categories (wins and occurrences), five of a kind, the short deck at 7 and 8 "
        "players, each seat's share, with 95% intervals; every category cross-checked "
        "against the exact tables (Šidák's family-wise rule at 0.001: exit status 1 when "
        "one fails); the house's take from a journal and from the simulated table; the "
        "figures for a game approval.",
    )
    parser.add_argument(
        "--players",
        type=_players,
        default=list(range(2, 9)),
        metavar="P",
        help="numbers of players: 5, 2..8 (the default) or 2,4,8",
    )
    parser.add_argument(
        "--hands",
        type=whole_number(1, "hands"),
        default=200_000,
        metavar="N",
        help="hands per number",
    )
    parser.add_argument(
        "--seed", type=whole_number(0, "a seed"), default=0, metavar="S", help="random seed"
    )
    parser.add_argument(
        "--rules",
        default="{}",
        metavar="JSON",
        help="rules settings as in a hand script, e.g. '{\"burn\": false}' (default: the "
        "table's defaults)",
    )
    parser.add_argument(
        "--journal",
        type=Path,
        metavar="FILE",
        help="a table's journal: the house's take (rake and jackpot drop) of its finished "
        "hands, per hand and per hour",
    )
    parser.add_argument(
        "--rake-hands",
        type=whole_number(1, "hands"),
        default=300,
        metavar="N",
        help="with a rake or a jackpot drop in --rules: hands of the simulated table "
        "(luck-table sim's table core) per number of players (default 300)",
    )
    parser.add_argument(
        "--output",
        default=DEFAULT_OUTPUT,
        metavar="FILE",
        help=f"where to write the par sheet (default {DEFAULT_OUTPUT}; - for standard output)",
    )
    parser.set_defaults(handler=handler)
