"""Brute-force reference evaluator, for the tests and the benchmark: slow and plainly right.

It tries every five-card subset of the hand and, in it, every rank for every wild
card (wilds are interchangeable, so every multiset of ranks). Suits only matter
for flushes: when the subset's natural cards share a suit, the wilds either take
that suit (the five may be a flush) or not; otherwise no flush is possible. Each
resulting five is classified by the plain rules of seed 002:

* a straight flush is five suited cards in sequence (a wild plays any rank);
* a flush of suited cards that are not a straight flush is allowed only if every
  wild in it plays as the highest rank not already present (standard rule), or as
  an ace (double-ace flush rule);
* otherwise ranks alone decide (five of a kind down to high card).

The best-with-wilds search is memoised on (natural ranks, wild count, suited,
rule): a pure function, so the cache changes nothing but the time.

A value is ``(category strength, ranks)``, compared as a tuple.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import cache
from itertools import combinations, combinations_with_replacement

from controller.rules import Card, parse_cards

CATEGORIES = (
    "high_card",
    "pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "five_of_a_kind",
)
STRENGTH = {name: strength for strength, name in enumerate(CATEGORIES)}
RANKS = tuple(range(2, 15))

Value = tuple[int, tuple[int, ...]]


def reference_value(cards: Iterable[Card | int | str], wild: bool, double_ace: bool) -> Value:
    """The best value of 5 to 8 cards; fours are wild if ``wild``."""
    best: Value = (-1, ())
    for five in combinations(parse_cards(cards), 5):
        naturals = [card for card in five if not (wild and card.rank == 4)]
        natural_ranks = tuple(sorted(card.rank for card in naturals))
        can_be_suited = len({card.suit for card in naturals}) <= 1
        for suited in (False, True) if can_be_suited else (False,):
            value = best_with_wilds(natural_ranks, 5 - len(naturals), suited, double_ace)
            best = max(best, value)
    return best


@cache
def best_with_wilds(
    natural_ranks: tuple[int, ...], wilds: int, suited: bool, double_ace: bool
) -> Value:
    return max(
        classify(natural_ranks, wild_ranks, suited, double_ace)
        for wild_ranks in combinations_with_replacement(RANKS, wilds)
    )


def classify(
    natural_ranks: tuple[int, ...],
    wild_ranks: tuple[int, ...],
    suited: bool,
    double_ace: bool,
) -> Value:
    """The value of five cards: natural ranks, the ranks wilds play as, one suit or not."""
    ranks = sorted(natural_ranks + wild_ranks, reverse=True)
    value = by_ranks(ranks)
    if suited:
        high = straight_high(ranks)
        if high:
            value = max(value, (STRENGTH["straight_flush"], (high,)))
        elif flush_allowed(natural_ranks, wild_ranks, double_ace):
            value = max(value, (STRENGTH["flush"], tuple(ranks)))
    return value


def flush_allowed(
    natural_ranks: tuple[int, ...], wild_ranks: tuple[int, ...], double_ace: bool
) -> bool:
    if double_ace:
        forced = [14] * len(wild_ranks)
    else:
        missing = [rank for rank in reversed(RANKS) if rank not in natural_ranks]
        forced = missing[: len(wild_ranks)]
    return sorted(wild_ranks) == sorted(forced)


def straight_high(ranks: list[int]) -> int:
    """The high card of five ranks in sequence (a wheel is five-high), or 0."""
    distinct = set(ranks)
    if len(distinct) != 5:
        return 0
    if max(distinct) - min(distinct) == 4:
        return max(distinct)
    return 5 if distinct == {14, 2, 3, 4, 5} else 0


def by_ranks(ranks: list[int]) -> Value:
    groups = sorted(Counter(ranks).items(), key=lambda item: (item[1], item[0]), reverse=True)
    shape = [count for _, count in groups]
    order = tuple(rank for rank, _ in groups)
    if shape == [5]:
        return STRENGTH["five_of_a_kind"], order
    if shape == [4, 1]:
        return STRENGTH["four_of_a_kind"], order
    if shape == [3, 2]:
        return STRENGTH["full_house"], order
    high = straight_high(ranks)
    if high:
        return STRENGTH["straight"], (high,)
    if shape == [3, 1, 1]:
        return STRENGTH["three_of_a_kind"], order
    if shape == [2, 2, 1]:
        return STRENGTH["two_pair"], order
    if shape == [2, 1, 1, 1]:
        return STRENGTH["pair"], order
    return STRENGTH["high_card"], order
