"""Complete random hands per second: the hand engine against pokerkit, in one run.

Each hand: 2 to 6 players (the same sequence for every contender; pokerkit has no
short-deck procedure, and seven or eight players can run its deck out), stacks 20 to 300, a
shuffled deck fed card by card as the engine asks (burns included), random legal
decisions (fold, check/call, bet/raise with fixed weights; no fold with nothing to call,
which pokerkit refuses), to the pot award (showdown
included). The engine plays Luck of the Irish with the default house rules, and plain
seven-card stud with pokerkit's conventions; pokerkit plays fixed-limit seven-card stud,
dealt and decided the same way. Prints hands/s for each and the ratio to pokerkit, and
the engine's rate on 2 to 8 players (short deck included) for reference. Times are CPU
time of this process (best of the repeats), so other work on a shared machine moves them
less than wall-clock time would.

    .venv/bin/python bench/engine.py [--hands N] [--repeat R] [--json FILE]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pokerkit
from figures_kit import Report, add_json_option

from controller.rules import DECK, Action, Card, Choice, Deal, Do, Rules, start_hand

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from pokerkit_table import POKERKIT_RULES, pokerkit_state

LUCK = Rules()
GOAL = 5  # the engine at least 5x pokerkit's pace (docs/performance.md)
WAGERS = (Do.COMPLETE, Do.BET, Do.RAISE)
CHECK = Choice(Do.CHECK)
PK_CARDS = {card: next(iter(pokerkit.Card.parse(str(card)))) for card in DECK}

#: A hand to play: the stacks, a shuffled deck and a seed for the decisions.
Dealt = tuple[list[int], list[Card], int]
#: A contender playing one hand.
Play = Callable[[list[int], list[Card], int], None]


def deals(hands: int, seed: int, most: int) -> list[Dealt]:
    """Per hand: stacks, a shuffled deck and a seed for the decisions."""
    rng = random.Random(seed)
    out = []
    for _ in range(hands):
        count = rng.randint(2, most)
        stacks = [rng.randint(20, 300) for _ in range(count)]
        deck = list(DECK)
        rng.shuffle(deck)
        out.append((stacks, deck, rng.randrange(1 << 30)))
    return out


def weight(kind: str) -> int:
    return {"fold": 2, "wager": 3}.get(kind, 8)


def engine_hand(rules: Rules, stacks: list[int], deck: list[Card], seed: int) -> None:
    rng = random.Random(seed)
    hand = start_hand(rules, dict(enumerate(stacks, start=1))).hand
    cards = iter(deck)
    while (waiting := hand.waiting_for) is not None:
        if waiting.kind == "card":
            # a stub scrambled with the burns (short deck) deals a burn card again
            card = next(cards, None)
            if card is None:
                card = next(burn for burn in hand.scrambled_burns if not hand.is_out(burn))
            hand = hand.apply(Deal(card)).hand
        elif waiting.kind == "bonus":
            hand = hand.apply(Action(Do.BONUS, waiting.seat, accept=True)).hand
        else:
            legal = waiting.legal
            if CHECK in legal:  # no fold with nothing to call: pokerkit has none
                legal = tuple(choice for choice in legal if choice.do is not Do.FOLD)
            weights = [
                weight("fold" if c.do is Do.FOLD else "wager" if c.do in WAGERS else "call")
                for c in legal
            ]
            choice = rng.choices(legal, weights)[0]
            hand = hand.apply(Action(choice.do, waiting.seat, choice.to)).hand


def stud_hand(stacks: list[int], deck: list[Card], seed: int) -> None:
    engine_hand(POKERKIT_RULES, stacks, deck, seed)


def luck_hand(stacks: list[int], deck: list[Card], seed: int) -> None:
    engine_hand(LUCK, stacks, deck, seed)


def pokerkit_hand(stacks: list[int], deck: list[Card], seed: int) -> None:
    rng = random.Random(seed)
    state = pokerkit_state(stacks)
    cards = iter(deck)
    while state.status:
        if state.can_burn_card():
            state.burn_card(PK_CARDS[next(cards)])
        elif state.can_deal_hole():
            state.deal_hole(PK_CARDS[next(cards)])
        else:
            # each: its kind (for the weights), the act and its arguments
            options: list[tuple[str, Callable[..., object], tuple[int | None, ...]]] = []
            if state.can_post_bring_in():
                options.append(("call", state.post_bring_in, ()))
            if state.can_check_or_call():
                options.append(("call", state.check_or_call, ()))
            if state.can_complete_bet_or_raise_to():
                amount = state.min_completion_betting_or_raising_to_amount
                options.append(("wager", state.complete_bet_or_raise_to, (amount,)))
            if state.can_fold():
                options.append(("fold", state.fold, ()))
            _, act, args = rng.choices(options, [weight(kind) for kind, _, _ in options])[0]
            act(*args)


def rate(play: Play, hands: list[Dealt], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for stacks, deck, seed in hands:
            play(stacks, deck, seed)
        best = min(best, time.process_time() - start)
    return len(hands) / best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    add_json_option(parser)
    args = parser.parse_args()
    report = Report.start(__file__, args)
    hands = deals(args.hands, seed=20261130, most=6)
    sample = hands[: max(args.hands // 4, 1)]
    pk = rate(pokerkit_hand, sample, args.repeat)
    rows = [
        ("pokerkit, fixed-limit seven-card stud", pk),
        ("engine, seven-card stud (pokerkit conventions)", rate(stud_hand, hands, args.repeat)),
        ("engine, Luck of the Irish (default house rules)", rate(luck_hand, hands, args.repeat)),
    ]
    print(f"complete random hands per second of CPU time, best of {args.repeat}, showdown included")
    print(f"2-6 players, {len(hands):,} hands (pokerkit: the first {len(sample):,}):")
    for name, value in rows:
        print(f"  {name:48} {value:10,.0f} hands/s  {value / pk:6.2f}x pokerkit")
    eight = deals(args.hands, seed=20261130, most=8)
    luck8 = rate(luck_hand, eight, args.repeat)
    print(f"2-8 players, {len(eight):,} hands (engine only: pokerkit's deck can run out):")
    print(f"  {'engine, Luck of the Irish (default house rules)':48} {luck8:10,.0f} hands/s")
    for name, value in rows[1:]:
        report.row(name, value / pk, "x pokerkit", f">= {GOAL}x", value / pk >= GOAL)
    report.row("engine, Luck of the Irish, 2-8 players", luck8, "hands/s")
    report.figures = {
        "hands": len(hands),
        "pokerkit_hands": len(sample),
        "repeat": args.repeat,
        "hands_per_second": {name: round(value, 1) for name, value in rows},
        "luck_of_the_irish_2_to_8_players": round(luck8, 1),
    }
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
