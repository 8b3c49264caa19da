"""The odds of a hand in progress: CPU time against the goals, beside a straightforward baseline.

One command: ``.venv/bin/python bench/odds.py`` (``--help`` for sizes; ``--json FILE``). The
process is pinned to one core and every time is CPU time (``time.process_time``), warm (the
evaluator's tables built once before timing). Hands are dealt from shuffled decks through
the engine, every player checking or calling (as the odds model takes it):

* **Monte Carlo, 8 players on third street** (goal: a standard error of 0.25 percentage
  points or less in 150 ms): ``odds(hand)`` on ``--states`` hands, each just before the
  first fourth-street card. The deal plans (read off the engine) are included.
* **Exact, from sixth street on** (goal: 50 ms for any number of players): ``odds(hand,
  Method.EXACT)`` for 2 to 8 players at four points: sixth street dealt (seventh
  street's cards to come); the four of clubs as sixth street's last up card, its bonus
  card to come (``bonus_timing`` immediate, then at the end of the street); and (beyond
  the goal) sixth street's last up card to come with the four of clubs unseen. Where the
  work is larger than ``AUTO_EXACT_WORK``, the row shows what ``odds`` does instead
  (Monte Carlo).

The baseline is the same computation written straightforwardly: the same deal plans,
then one deal at a time in a Python loop (``random`` for Monte Carlo, ``itertools
.permutations`` for exact), every hand valued with ``evaluate``. It gives the same
exact fractions (checked where it runs to the end); where it would take too long it is
timed on its first ``--baseline-deals`` deals and its time scaled to all of them
(marked ``scaled``).
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import math
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import TypeVar

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from figures_kit import Report, add_json_option
from odds_kit import FOUR, at_cards, last_up, play_to

from controller.odds import AUTO_EXACT_WORK, Method, deal_model, odds
from controller.odds.compute import TIE_UNIT, exact_deals, exact_work
from controller.odds.plan import DealModel, Plan
from controller.rules import BonusTiming, Card, Deal, Rules, evaluate
from controller.rules.hand import Hand
from controller.rules.state import FOUR_OF_CLUBS

T = TypeVar("T")


def cpu(run: Callable[[], T]) -> tuple[float, T]:
    start = time.process_time()
    result = run()
    return time.process_time() - start, result


# The baseline: one deal at a time ------------------------------------------------------


def baseline_value(model: DealModel, plan: Plan, draws: tuple[Card, ...]) -> list[int]:
    slots = (*plan.before, *plan.after)
    rules = model.hand.rules
    values = []
    for seat, held in zip(model.seats, model.held, strict=True):
        cards = list(held)
        if model.community is not None:
            cards.append(model.community)
        cards += [
            card for card, slot in zip(draws, slots, strict=True) if slot.seat in (seat, None)
        ]
        values.append(evaluate(cards, rules).key)
    return values


def tally(values: list[int], totals: list[list[int]], weight: int) -> None:
    best = max(values)
    top = [index for index, value in enumerate(values) if value == best]
    for index in top:
        totals[0 if len(top) == 1 else 1][index] += weight
        totals[2][index] += weight * TIE_UNIT // len(top)


def baseline_exact(model: DealModel, limit: int) -> tuple[int, list[Fraction] | None]:
    """Deals enumerated (at most ``limit``) and the exact equities if it got through."""
    # (every plan but the first has a four_at)
    forks = {plan.four_at for plan in model.plans[1:] if plan.four_at is not None}
    equity = [Fraction(0)] * len(model.seats)
    done = 0
    for plan in model.plans:
        totals = [[0] * len(model.seats) for _ in range(3)]
        pool_size = len(model.stub) - len(plan.before) + len(model.burns)
        for before in itertools.permutations(model.stub, len(plan.before)):
            if plan.four_at is None and any(before[i] == FOUR_OF_CLUBS for i in forks):
                continue
            if plan.four_at is not None and before[plan.four_at] != FOUR_OF_CLUBS:
                continue
            pool = [card for card in model.stub if card not in before] + list(model.burns)
            for after in itertools.permutations(pool, len(plan.after)):
                tally(baseline_value(model, plan, before + after), totals, 1)
                done += 1
                if done >= limit:
                    return done, None
        weight = Fraction(1, math.perm(len(model.stub), len(plan.before)))
        weight /= math.perm(pool_size, len(plan.after))
        for index in range(len(model.seats)):
            equity[index] += weight * Fraction(totals[2][index], TIE_UNIT)
    return done, equity


def baseline_monte_carlo(model: DealModel, deals: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    by_position = model.plan_by_position()
    totals = [[0] * len(model.seats) for _ in range(3)]
    for _ in range(deals):
        order = list(model.stub)
        rng.shuffle(order)
        plan = model.plans[by_position[order.index(FOUR)] if FOUR in order else 0]
        draws = order[: len(plan.before)]
        if plan.after:
            pool = order[len(plan.before) :] + list(model.burns)
            draws += rng.sample(pool, len(plan.after))
        tally(baseline_value(model, plan, tuple(draws)), totals, 1)
    return [value / TIE_UNIT / deals for value in totals[2]]


# The runs ------------------------------------------------------------------------------


def third_street(states: int, baseline_states: int, report: Report) -> None:
    print("Monte Carlo, 8 players on third street (goal: standard error <= 0.25 pp in 150 ms)")
    header = (
        f"{'hand':>5}{'deals':>9}{'error pp':>10}{'plans ms':>10}{'odds ms':>9}"
        f"{'baseline ms':>13}{'x':>7}"
    )
    print(header)
    print("-" * len(header))
    times = []
    errors = []
    for seed in range(states):
        hand = play_to(8, at_cards(24), seed=seed)
        plans_time, _ = cpu(partial(deal_model, hand))
        odds_time, result = cpu(partial(odds, hand))
        assert result.standard_error is not None  # Monte Carlo's, as on third street
        times.append(odds_time)
        errors.append(100 * result.standard_error)
        line = (
            f"{seed:>5}{result.deals:>9,}{100 * result.standard_error:>10.3f}"
            f"{1000 * plans_time:>10.1f}{1000 * odds_time:>9.1f}"
        )
        if seed < baseline_states:
            model = deal_model(hand)
            base_time, _ = cpu(partial(baseline_monte_carlo, model, result.deals, seed))
            line += f"{1000 * base_time:>13,.0f}{base_time / odds_time:>6.0f}x"
        print(line)
    print(
        f"odds ms: median {1000 * statistics.median(times):.1f}, "
        f"max {1000 * max(times):.1f} (goal 150)"
    )
    report.row(
        "Monte Carlo, 8 players on third street, median", 1000 * statistics.median(times), "ms CPU"
    )
    report.row(
        "Monte Carlo, 8 players on third street, max",
        1000 * max(times),
        "ms CPU",
        "<= 150 ms",
        max(times) <= 0.150,
    )
    report.row("its standard error, max", max(errors), "pp", "<= 0.25 pp", max(errors) <= 0.25)
    report.figures["third_street"] = {
        "states": states,
        "cpu_ms": [round(1000 * spent, 2) for spent in times],
        "standard_error_pp": [round(error, 4) for error in errors],
    }


def seventh(hand: Hand, _dealt: int) -> bool:
    return hand.street == 7


def sixth_street(repeats: int, baseline_deals: int, report: Report) -> None:
    print()
    print("Exact from sixth street on (goal: 50 ms for any number of players)")
    header = (
        f"{'players':>8}  {'point':<22}{'plans':>6}{'deals':>12}{'exact ms':>10}"
        f"{'baseline ms':>14}{'x':>7}  same"
    )
    print(header)
    print("-" * len(header))
    worst = 0.0
    rows: list[dict[str, object]] = []
    for players in range(2, 9):
        before_last = play_to(players, last_up, seed=players, last=(FOUR,))
        at_end = Rules(bonus_timing=BonusTiming.END_OF_STREET)
        end_of_street = play_to(players, last_up, seed=players, last=(FOUR,), rules=at_end)
        points = {
            "sixth street dealt": play_to(players, seventh, seed=players),
            "bonus card to come": before_last.apply(Deal(FOUR)).hand,
            "  at end of street": end_of_street.apply(Deal(FOUR)).hand,
            "last up card to come": before_last,
        }
        for name, hand in points.items():
            if exact_work(deal_model(hand)) > AUTO_EXACT_WORK:
                spent, result = cpu(partial(odds, hand))
                print(
                    f"{players:>8}  {name:<22}{'':>6}{exact_deals(deal_model(hand)):>12,}"
                    f"{'':>10}  too many: Monte Carlo, {result.deals:,} deals in "
                    f"{1000 * spent:.0f} ms"
                )
                continue
            best = math.inf
            for _ in range(repeats):
                spent, result = cpu(partial(odds, hand, Method.EXACT))
                best = min(best, spent)
            worst = max(worst, best)
            model = deal_model(hand)
            base_time, (done, equity) = cpu(partial(baseline_exact, model, baseline_deals))
            scaled = equity is None
            if scaled:
                base_time *= result.deals / done
            assert result.fractions is not None  # exact's
            same = "scaled" if scaled else str(equity == list(result.fractions.equity))
            if not scaled:
                report.check("exact odds equal the baseline's fractions", same == "True")
            point = {"players": players, "point": name.strip(), "deals": result.deals}
            rows.append(point | {"exact_ms": round(1000 * best, 2), "same_as_baseline": same})
            print(
                f"{players:>8}  {name:<22}{len(model.plans):>6}{result.deals:>12,}"
                f"{1000 * best:>10.1f}{1000 * base_time:>14,.0f}{base_time / best:>6.0f}x  {same}"
            )
    print(f"exact ms: max {1000 * worst:.1f} (goal 50)")
    report.row(
        "exact from sixth street on, 2-8 players, max",
        1000 * worst,
        "ms CPU",
        "<= 50 ms",
        worst <= 0.050,
    )
    report.figures["sixth_street"] = rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=10, help="third-street hands timed")
    parser.add_argument(
        "--baseline-states", type=int, default=3, help="of which the baseline also runs"
    )
    parser.add_argument("--repeats", type=int, default=3, help="exact runs per hand, best kept")
    parser.add_argument(
        "--baseline-deals", type=int, default=20_000, help="exact baseline: deals before scaling"
    )
    add_json_option(parser)
    args = parser.parse_args()
    report = Report.start(__file__, args)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    print(f"date {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC")
    print(f"machine {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs")
    print(f"python {platform.python_version()}, numpy {np.__version__}; pinned to one core")
    print()
    odds(play_to(2, at_cards(12), rules=Rules()))  # build the evaluator's tables
    third_street(args.states, args.baseline_states, report)
    sixth_street(args.repeats, args.baseline_deals, report)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
