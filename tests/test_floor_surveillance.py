"""The statistics for surveillance (controller.floor.surveillance), as a pure function over
simulated hands (tests/surveillance_kit.py): no honest chart flagged over 10,000 hands, a
dealer feeding the 4c to one seat at three times its rate flagged within 1,000 hands, and
the false-alarm bound the docs state (each chart's increment has a mean likelihood ratio of
at most 1 under honest play)."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import pytest

from controller.floor.surveillance import (
    CARD,
    FALSE_ALARM_PER_HAND,
    RATIO,
    THRESHOLD,
    WILDS,
    Grouping,
    HandRef,
    Measure,
    SeatHand,
    charts,
    step,
)
from tests.surveillance_kit import Feeder, hands

#: The most hands a feeding dealer deals before the seat is flagged (docs/game-protection.md).
FLAGGED_WITHIN = 1_000
FEEDER = Feeder("dealer-x", "t1", 3, 0.09)  # about three times the 4c's rate at seat 3


@pytest.mark.slow
def test_honest_hands_flag_nothing_over_10000_hands() -> None:
    dealt = list(hands(seed=7, count=10_000))
    found = charts(dealt)
    assert not [chart for chart in found if chart.flagged]
    assert max(chart.peak for chart in found) < THRESHOLD
    seat_fours = [c for c in found if c.grouping is Grouping.SEAT and c.measure is Measure.FOUR_UP]
    assert len(seat_fours) == 8
    for chart in seat_fours:  # each seat's 4c face up near its expectation
        assert chart.hands == 10_000
        assert 0.85 < chart.observed / chart.expected < 1.15, chart
    groupings = {chart.grouping for chart in found}
    assert groupings == set(Grouping)  # seats, players, dealers, dealers at seats


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_a_dealer_feeding_the_4c_to_a_seat_is_flagged(seed: int) -> None:
    dealt = list(hands(seed=seed, count=FLAGGED_WITHIN, feeder=FEEDER))
    seat = [hand for hand in dealt if hand.seat == FEEDER.seat]
    rate = sum(hand.fours_up for hand in seat) / (sum(hand.up_cards for hand in seat) * CARD)
    assert 2.3 < rate < 3.7  # the planted rate: about three times the 4c's
    flagged = {(c.grouping, c.unit, c.measure): c for c in charts(dealt) if c.flagged}
    for key in (
        (Grouping.SEAT, "t1:3", Measure.FOUR_UP),
        (Grouping.SEAT, "t1:3", Measure.BONUS),
        (Grouping.DEALER_SEAT, "dealer-x@t1:3", Measure.FOUR_UP),
    ):
        assert key in flagged, sorted(flagged)
        at = flagged[key].flagged_at
        assert at is not None and at.table_id == "t1" and at.hand <= FLAGGED_WITHIN
    assert not [key for key in flagged if key[0] is Grouping.SEAT and key[1] != "t1:3"]


def test_the_feeder_at_one_table_leaves_the_other_unflagged() -> None:
    dealt = list(hands(seed=11, count=FLAGGED_WITHIN, tables=("t1", "t2"), feeder=FEEDER))
    flagged = {(c.grouping, c.unit) for c in charts(dealt) if c.flagged}
    assert (Grouping.SEAT, "t1:3") in flagged
    assert not [unit for grouping, unit in flagged if unit.startswith("t2:")]


def _seat_hand(number: int, seat: int, **changes: object) -> SeatHand:
    quiet = SeatHand("t1", number, seat, f"p{seat}", "d1", 4, True, 5, 3, 0, 0, 0, 0.25)
    return dataclasses.replace(quiet, **changes)  # type: ignore[arg-type]


def test_unverified_reads_at_one_seat_against_the_floors_rate() -> None:
    dealt = [
        _seat_hand(number, seat, unverified_reads=int(seat == 2 and number % 5 == 0))
        for number in range(1, 401)
        for seat in range(1, 5)
    ] + [_seat_hand(401, 1, unverified_reads=1)]
    found = {(c.grouping, c.unit, c.measure): c for c in charts(dealt)}
    reads = found[Grouping.SEAT, "t1:2", Measure.UNVERIFIED_READS]
    assert reads.flagged and reads.observed == 80
    assert reads.expected == pytest.approx(400 * 81 / 1601)  # the floor's rate a seat-hand
    assert not found[Grouping.SEAT, "t1:1", Measure.UNVERIFIED_READS].flagged
    assert found[Grouping.PLAYER, "p2", Measure.UNVERIFIED_READS].flagged
    dealer = found[Grouping.DEALER, "d1", Measure.UNVERIFIED_READS]
    assert dealer.hands == 401 and dealer.observed == 81  # the dealer's hands: every seat's
    assert (Grouping.DEALER, "d1", Measure.WINS) not in found  # every hand is won by someone


def test_hands_without_a_dealer_or_player_chart_their_seat_only() -> None:
    found = charts([_seat_hand(1, 1, dealer=None, player=None)])
    assert {chart.grouping for chart in found} == {Grouping.SEAT}


def test_plain_stud_has_no_bonus_or_wild_chart() -> None:
    found = charts([_seat_hand(1, 1, wild=False, wilds=1)])
    assert {chart.measure for chart in found} == set(Measure) - {Measure.BONUS, Measure.WILDS}


def test_the_cusum_step() -> None:
    assert step(0.0, 0, 0.5) == 0.0  # never below 0
    assert step(1.0, 1, 0.25) == pytest.approx(1.0 + math.log(RATIO) - (RATIO - 1) * 0.25)
    assert math.exp(-20) == pytest.approx(FALSE_ALARM_PER_HAND)
    flagged = charts([_seat_hand(n, 1, fours_up=1, up_cards=1) for n in range(1, 40)])
    four = next(c for c in flagged if c.grouping is Grouping.SEAT and c.measure is Measure.FOUR_UP)
    # each hand adds ln 3 - 2/52: the first hand at or over 20
    first = math.ceil(THRESHOLD / (math.log(RATIO) - (RATIO - 1) * CARD))
    assert four.flagged_at == HandRef("t1", first)


def _likelihood_ratio(counts: dict[int, Fraction], expected: Fraction) -> float:
    """The mean of exp(increment) under ``counts`` (count: its probability)."""
    return sum(float(p) * RATIO**x * math.exp(-(RATIO - 1) * expected) for x, p in counts.items())


@pytest.mark.parametrize("cards", [*range(1, 8), 20, 32])
def test_the_false_alarm_bound_holds_for_the_deals_of_a_deck(cards: int) -> None:
    """Ville's inequality needs each increment's exp to have a mean of at most 1 under
    honest play: for the 4c face up among ``cards`` up cards (at most one; a seat's 1 to
    7, a dealer's hand up to 32), the fours among ``cards`` cards (hypergeometric) and a
    win among ``cards`` + 1 players."""
    four = {1: Fraction(cards, 52), 0: 1 - Fraction(cards, 52)}
    assert _likelihood_ratio(four, Fraction(cards, 52)) <= 1.0
    fours = {
        x: Fraction(math.comb(WILDS, x) * math.comb(52 - WILDS, cards - x), math.comb(52, cards))
        for x in range(min(WILDS, cards) + 1)
    }
    assert sum(fours.values()) == 1
    assert _likelihood_ratio(fours, Fraction(cards * WILDS, 52)) <= 1.0
    players = cards + 1
    win = {1: Fraction(1, players), 0: 1 - Fraction(1, players)}
    assert _likelihood_ratio(win, Fraction(1, players)) <= 1.0
