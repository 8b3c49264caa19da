"""Hand evaluator throughput: evaluate, evaluate_many, the brute-force reference, eval7.

One command: ``.venv/bin/python bench/evaluator.py`` (``--help`` for sizes). On the
same random hands (7 and 8 cards; fours at their natural frequency, and a wild-heavy
mix with 0 to 4 fours per hand, evenly) it times, under Luck of the Irish rules:

* ``evaluate`` called in a Python loop (cards as ``Card`` tuples, as the engine does);
* ``evaluate_many`` on the hands as one NumPy array;
* the brute-force reference of the tests (every five of the hand, every rank for every
  wild) on a sample, which also checks ``evaluate`` on that sample (disagreements must be 0);
* eval7 (compiled C, no wild cards) called in a Python loop on the plain 7-card hands:
  the per-call speed reference. Ratios are to eval7's rate measured in this run.

It also checks that ``evaluate_many`` gives every hand the key ``evaluate`` gave it, and
that under seven-card-stud rules our keys order and tie the plain 7-card hands exactly
as eval7 does.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import random
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from importlib import metadata
from pathlib import Path

import eval7
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from figures_kit import Report, add_json_option
from reference_eval import CATEGORIES, reference_value

from controller.rules import DECK, Card, Rules, Variant, evaluate, evaluate_many

FOURS = [card for card in DECK if card.rank == 4]
OTHERS = [card for card in DECK if card.rank != 4]


GOAL_ONE = 0.15  # evaluate's rate at least this share of eval7's
GOAL_MANY = 2.0  # evaluate_many's at least this multiple


def natural_hands(rng: random.Random, count: int, size: int) -> list[tuple[Card, ...]]:
    return [tuple(rng.sample(DECK, size)) for _ in range(count)]


def wild_heavy_hands(rng: random.Random, count: int, size: int) -> list[tuple[Card, ...]]:
    hands = []
    for _ in range(count):
        wilds = rng.randint(0, 4)
        hand = rng.sample(FOURS, wilds) + rng.sample(OTHERS, size - wilds)
        rng.shuffle(hand)
        hands.append(tuple(hand))
    return hands


def evaluate_all(hands: Sequence[tuple[Card, ...]], rules: Rules) -> None:
    for hand in hands:
        evaluate(hand, rules)


def eval7_all(hands: list[list[eval7.Card]]) -> None:
    evaluate_plain = eval7.evaluate
    for hand in hands:
        evaluate_plain(hand)


def best_rate(count: int, run: Callable[[], object], repeats: int) -> float:
    """Hands per second of the fastest of ``repeats`` runs."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return count / best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200_000, help="hands per set")
    parser.add_argument("--sample", type=int, default=3_000, help="hands per set checked")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs, best kept")
    parser.add_argument("--seed", type=int, default=2026)
    add_json_option(parser)
    args = parser.parse_args()
    report = Report.start(__file__, args)
    rng = random.Random(args.seed)
    rules = Rules()
    stud = Rules(variant=Variant.SEVEN_CARD_STUD)

    print(f"date {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC")
    print(f"machine {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs")
    versions = f"numpy {np.__version__}, eval7 {metadata.version('eval7')}"
    print(f"python {platform.python_version()}, {versions}")
    print(f"{args.hands:,} hands per set, best of {args.repeats} runs; rules: luck-of-the-irish")
    print()

    sets = {
        "7 cards, natural wilds": natural_hands(rng, args.hands, 7),
        "8 cards, natural wilds": natural_hands(rng, args.hands, 8),
        "7 cards, wild-heavy": wild_heavy_hands(rng, args.hands, 7),
        "8 cards, wild-heavy": wild_heavy_hands(rng, args.hands, 8),
    }
    for hands in sets.values():  # build the tables before timing
        evaluate(hands[0], rules)
        evaluate(hands[0], stud)

    plain = sets["7 cards, natural wilds"]
    eval7_hands = [[eval7.Card(str(card)) for card in hand] for hand in plain]
    eval7_rate = best_rate(len(plain), lambda: eval7_all(eval7_hands), args.repeats)
    print(f"eval7 (plain 7-card hands, no wilds): {eval7_rate:>12,.0f} hands/s  = 1.00x")
    print()

    header = (
        f"{'hand set':<24}{'evaluate/s':>12}{'x eval7':>9}{'evaluate_many/s':>17}"
        f"{'x eval7':>9}{'reference/s':>13}{'disagree':>10}{'wild %':>8}"
    )
    print(header)
    print("-" * len(header))
    failures = 0
    rates: dict[str, dict[str, float]] = {}
    for name, hands in sets.items():
        codes = np.array(hands, dtype=np.int8)
        loop_rate = best_rate(len(hands), partial(evaluate_all, hands, rules), args.repeats)
        many_rate = best_rate(len(hands), partial(evaluate_many, codes, rules), 3)
        keys = [evaluate(hand, rules).key for hand in hands]
        mismatched = int((evaluate_many(codes, rules) != np.array(keys)).sum())

        sample = hands[: args.sample]
        start = time.perf_counter()
        reference = [reference_value(hand, True, False) for hand in sample]
        reference_rate = len(sample) / (time.perf_counter() - start)
        disagreements = mismatched + sum(
            (CATEGORIES.index(value.category), value.ranks) != expected
            for value, expected in zip(
                (evaluate(hand, rules) for hand in sample), reference, strict=True
            )
        )
        failures += disagreements
        wild_share = 100 * float((codes >> 2 == 2).sum()) / codes.size
        print(
            f"{name:<24}{loop_rate:>12,.0f}{loop_rate / eval7_rate:>8.2f}x"
            f"{many_rate:>17,.0f}{many_rate / eval7_rate:>8.2f}x{reference_rate:>13,.0f}"
            f"{disagreements:>10}{wild_share:>7.1f}%"
        )
        rates[name] = {
            "evaluate": round(loop_rate),
            "evaluate_many": round(many_rate),
            "reference": round(reference_rate),
            "disagreements": disagreements,
            "wild_percent": round(wild_share, 1),
        }
    print()
    print(
        f"disagreements: evaluate vs reference on {args.sample:,} hands per set, and "
        f"evaluate_many vs evaluate on every hand: {failures}"
    )

    stud_keys = evaluate_many(np.array(plain, dtype=np.int8), stud)
    eval7_values = np.array([eval7.evaluate(hand) for hand in eval7_hands])
    order = np.argsort(stud_keys, kind="stable")
    ours, theirs = stud_keys[order], eval7_values[order]
    same_order = bool(
        np.all(np.diff(theirs) >= 0) and np.array_equal(np.diff(ours) == 0, np.diff(theirs) == 0)
    )
    print(f"seven-card-stud keys order and tie the plain hands exactly as eval7: {same_order}")
    slowest = min(rate["evaluate"] for rate in rates.values()) / eval7_rate
    slowest_many = min(rate["evaluate_many"] for rate in rates.values()) / eval7_rate
    report.row("evaluate, slowest set", slowest, "x eval7", ">= 0.15x", slowest >= GOAL_ONE)
    report.row(
        "evaluate_many, slowest set", slowest_many, "x eval7", ">= 2x", slowest_many >= GOAL_MANY
    )
    report.row("disagreements with the reference", failures, "", "0", failures == 0)
    report.check("no disagreement", failures == 0)
    report.check("stud keys order and tie as eval7's", same_order)
    report.figures = {
        "hands_per_set": args.hands,
        "sample": args.sample,
        "repeats": args.repeats,
        "eval7": round(eval7_rate),
        "sets": rates,
    }
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
