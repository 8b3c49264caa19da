"""``luck-table par --players 2..8 --hands N --seed S [--rules JSON] [--output FILE]``:
play whole hands to the showdown and write the par sheet (docs/par-sheet.md).

For each number of players: how often a bonus card is dealt, how often each hand
category wins and occurs, five of a kind, at 7 and 8 players how seventh street was dealt
on the short deck, each seat's share of the pots, each with a 95% interval; then the
cross-checks against exact figures and what a game-approval submission asks for
(``controller.odds.par``). Exit status 2 for a command line it cannot accept.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from controller.cli.common import fail
from controller.cli.odds_command import whole_number
from controller.odds.par import play, render
from controller.rules.settings import Rules, RulesError

COMMAND = "par"
DEFAULT_OUTPUT = "docs/par-sheet.md"


def handler(args: argparse.Namespace) -> int:
    try:
        overrides = json.loads(args.rules)
        if not isinstance(overrides, dict):
            raise RulesError("--rules: a JSON object of rules settings")
        rules = Rules.from_mapping(overrides)
    except (json.JSONDecodeError, RulesError, TypeError) as error:
        return fail(COMMAND, f"--rules: {error}")
    rng = np.random.default_rng(args.seed)
    counts = []
    for players in args.players:
        counts.append(play(players, args.hands, rules, rng))
        print(f"{players} players: {args.hands:,} hands", file=sys.stderr)
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
    text = render(counts, rules, args.seed, shlex.join(words), metadata.version("luck-table"))
    if args.output == "-":
        sys.stdout.write(text)
        return 0
    try:
        Path(args.output).write_text(text, encoding="utf-8")
    except OSError as error:
        return fail(COMMAND, f"cannot write {args.output}: {error.strerror}")
    print(f"par sheet written to {args.output}", file=sys.stderr)
    return 0


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
        description="Deal whole hands (nobody folds) for each number of players and write "
        "the par sheet as Markdown: bonus cards, hand categories (wins and occurrences), "
        "five of a kind, the short deck at 7 and 8 players, each seat's share, with 95% "
        "intervals; cross-checks against exact counts; the figures for a game approval.",
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
        "--output",
        default=DEFAULT_OUTPUT,
        metavar="FILE",
        help=f"where to write the par sheet (default {DEFAULT_OUTPUT}; - for standard output)",
    )
    parser.set_defaults(handler=handler)
