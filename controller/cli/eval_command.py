"""``luck-table eval``: evaluate hands from the command line.

Single mode prints the hand (or its JSON with ``--json``); exit status 2 on bad
input. Batch mode (``--batch FILE``, ``-`` for stdin) prints one JSON object per
input line, in order; a bad line (not a hand, or not UTF-8 text) prints
``{"line": N, "error": "..."}`` in its place, and the exit status is then 1; a file
that cannot be read is exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from typing import Any, TypedDict

from controller.cli.common import InputError, decode, fail, read_lines
from controller.rules import CardError, HandValue, Rules, Variant, evaluate
from controller.rules.evaluator import HandValueJson

COMMAND = "eval"


def add_parser(subparsers: Any, summary: str) -> None:
    parser = subparsers.add_parser(
        COMMAND,
        help=summary,
        description="Evaluate the best five-card hand of 5 to 8 cards (fours wild by default).",
    )
    parser.add_argument(
        "--variant",
        choices=[variant.value for variant in Variant],
        default=Variant.LUCK_OF_THE_IRISH.value,
        help="luck-of-the-irish (fours wild, the default) or seven-card-stud (no wild cards)",
    )
    parser.add_argument(
        "--double-ace-flush",
        action="store_true",
        help="every wild card in a flush plays as an ace",
    )
    parser.add_argument("--json", action="store_true", help="print the hand as JSON")
    parser.add_argument(
        "--batch",
        metavar="FILE",
        help="evaluate one hand per line of FILE ('-' for stdin), printing JSON lines",
    )
    parser.add_argument("cards", nargs="*", metavar="CARD", help="cards such as Ks 4d 10h")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    rules = Rules(variant=Variant(args.variant), double_ace_flush=args.double_ace_flush)
    if args.batch is not None:
        if args.cards:
            return fail(COMMAND, "give cards or --batch FILE, not both")
        try:
            return _run_batch(read_lines(args.batch), rules)
        except InputError as error:
            return fail(COMMAND, str(error))
    if not args.cards:
        return fail(COMMAND, "no cards given")
    try:
        hand = evaluate(" ".join(args.cards), rules)
    except CardError as error:
        return fail(COMMAND, str(error))
    print(json.dumps(hand.to_json()) if args.json else _spoken(hand))
    return 0


class LineRefused(TypedDict):
    """A line of a batch that is no hand: its number and why."""

    line: int
    error: str


def _run_batch(lines: Iterable[bytes], rules: Rules) -> int:
    status = 0
    for number, line in enumerate(lines, start=1):
        try:
            result: HandValueJson | LineRefused = evaluate(decode(line), rules).to_json()
        except (CardError, InputError) as error:
            result = {"line": number, "error": str(error)}
            status = 1
        print(json.dumps(result), flush=False)
    sys.stdout.flush()
    return status


def _spoken(hand: HandValue) -> str:
    played = ", ".join(
        str(card.card) if card.card == card.as_ else f"{card.card} as {card.as_}"
        for card in hand.played
    )
    return f"{hand.description}: {played}"
