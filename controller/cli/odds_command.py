"""``luck-table odds FILE|- [--json] [--exact | --samples N] [--seed S]``: the odds of a
hand in progress.

FILE is a hand script (docs/replay.md; it may stop mid-hand) or one hand of ``luck-table
history --hand N --json``. The script is played through the engine as ``replay`` plays it;
then, for every seat still in, the probability to win, to tie, and the equity, with how
they were computed (docs/odds.md).

Exit status: 0 the odds are printed; 1 the script does not replay (the engine refused an
action); 2 the input or the command line is not acceptable (not a hand script, a card
refused, a void hand, an exact enumeration too large).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from controller.cli.common import InputError, fail
from controller.cli.replay_command import add_hand_file, read_hand
from controller.history.script import ScriptError, play
from controller.odds import Method, Odds, OddsError, odds
from controller.rules.hand import Hand
from controller.rules.state import STREET_NAMES, Phase

COMMAND = "odds"


def handler(args: argparse.Namespace) -> int:
    try:
        script, _ = read_hand(args.file)
    except (InputError, ScriptError) as error:
        return fail(COMMAND, str(error))
    replay = play(script)
    if replay.refusal is not None:
        where, index, why = replay.refusal
        message = f"the script does not replay: {where} {index}: {why}"
        return fail(COMMAND, message, 2 if where == "card" else 1)
    method = Method.EXACT if args.exact else Method.AUTO
    try:
        result = odds(replay.hand, method, samples=args.samples, seed=args.seed)
    except OddsError as error:
        return fail(COMMAND, str(error))
    if args.json:
        out = {"point": point(replay.hand), **result.to_json()}
        print(json.dumps(out, indent=2))
    else:
        print(table(replay.hand, result))
    return 0


def point(hand: Hand) -> str:
    """Where the hand stands, in words: ``sixth street, betting``, ``the hand is over``."""
    if hand.over:
        return "the hand is over"
    if hand.phase is Phase.SHOWDOWN:
        return "the showdown"
    doing = "dealing" if hand.phase is Phase.DEAL else "betting"
    return f"{STREET_NAMES[hand.street]} street, {doing}"


def table(hand: Hand, result: Odds) -> str:
    """The odds as a broadcast director reads them."""
    if result.method is Method.EXACT:
        how = f"exact: every deal to come ({result.deals:,})"
    else:
        assert result.standard_error is not None
        how = (
            f"monte-carlo: {result.deals:,} deals (seed {result.seed}), standard error "
            f"{100 * result.standard_error:.2f} percentage points at most"
        )
    lines = [f"{point(hand)}; {how}", ""]
    width = max(len(_cards(seat.cards, seat.up)) for seat in result.seats)
    lines.append(f"seat  {'cards':<{width}}  {'win':>7}  {'tie':>7}  {'equity':>7}")
    for seat in result.seats:
        error = "" if seat.equity_error is None else f"  ± {100 * seat.equity_error:.2f}"
        lines.append(
            f"{seat.seat:>4}  {_cards(seat.cards, seat.up):<{width}}  {_percent(seat.win)}  "
            f"{_percent(seat.tie)}  {_percent(seat.equity)}{error}"
        )
    lines.append("")
    lines += [f"model: {note}" for note in result.notes]
    return "\n".join(lines)


def _cards(cards: tuple[Any, ...], up: tuple[bool, ...]) -> str:
    """Down cards in brackets, up cards bare, in the order dealt: ``[Kd 7c] 2s 9h``."""
    words = [str(card) if face else f"[{card}]" for card, face in zip(cards, up, strict=True)]
    return " ".join(words).replace("] [", " ")


def _percent(value: float) -> str:
    return f"{100 * value:6.2f}%"


def whole_number(minimum: int, what: str) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``minimum`` (``what`` it counts)."""

    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value}: {what} must be {minimum} or more")
        return value

    return read


def add_parser(subparsers: Any, summary: str) -> None:
    parser = subparsers.add_parser(
        COMMAND,
        help=summary,
        description="Play a hand script (or one hand of 'luck-table history --hand N "
        "--json') through the engine and print, for every seat still in, the probability "
        "to win, to tie, and the equity (wins plus shares of ties). Every card out of the "
        "shoe is out of the deck; the cards to come are uniformly random; nobody folds. "
        "Exact when the deals to come are few enough, else Monte Carlo until every "
        "equity's standard error is at most 0.25 percentage points.",
    )
    add_hand_file(parser)
    parser.add_argument("--json", action="store_true", help="print the odds as JSON")
    how = parser.add_mutually_exclusive_group()
    how.add_argument(
        "--exact",
        action="store_true",
        help="enumerate every deal to come (refused when there are too many)",
    )
    how.add_argument(
        "--samples",
        type=whole_number(2, "the deals"),
        metavar="N",
        help="Monte Carlo with exactly N random deals",
    )
    parser.add_argument(
        "--seed",
        type=whole_number(0, "a seed"),
        default=0,
        metavar="S",
        help="the Monte Carlo random seed (default 0: the same odds every time)",
    )
    parser.set_defaults(handler=handler)
