"""Exact counts of hand categories, enumerated from the definitions (not the evaluator).

Pure (no I/O). A hand's category is the better of two things: what its rank counts make
(five of a kind down to high card, straights included, the wild cards standing for any
rank) and what each suit's natural cards make with the wild cards (a flush or a straight
flush). :func:`category_of` says it for one hand; :func:`natural_counts` counts every
hand of ``naturals`` natural cards (of ``ranks`` ranks, four suits each) with ``wilds``
wild cards by category, without listing the hands:

* the suits that reach a flush (``5 - wilds`` natural cards or more) are listed exactly,
  rank by rank (``j`` of them: at most ``naturals // (5 - wilds)``);
* the other cards only count as ranks: for each rank-count vector of them, the number of
  ways to spread it over the other suits with none of them reaching a flush
  (:func:`_spreads`) is all that matters, since those suits make no flush.

So the 133,784,560 seven-card hands take a few hundred thousand steps. :func:`tables`
combines these into the par sheet's tables (:data:`TABLES`): seven cards of 52 (either
game), and in Luck of the Irish a player's whole hand: seven of the 51 cards other than
the four of clubs; the four of clubs with six of them (dealt face down, or on seventh
street); the four of clubs with seven of them (face up: the bonus card came).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from controller.rules.evaluator import Category

_CATEGORIES = tuple(Category)
HIGH_CARD, PAIR, TWO_PAIR, THREE, STRAIGHT, FLUSH, FULL_HOUSE, FOUR, STRAIGHT_FLUSH, FIVE = range(
    10
)
RANKS = 13
WILD_RANK = 2  # rank index of the fours (ranks 2..A are indexes 0..12)
#: The ten windows of five ranks a straight fills, by rank index: the wheel's ace low.
WINDOWS = (*(tuple(range(low, low + 5)) for low in range(9)), (12, 0, 1, 2, 3))


def count_category(counts: tuple[int, ...], wilds: int) -> int:
    """The best category, flushes aside, of natural rank ``counts`` (by rank index) and
    ``wilds`` wild cards (each standing for a card of any rank)."""
    ordered = sorted(counts, reverse=True)
    first, second = ordered[0], ordered[1]
    if first + wilds >= 5:
        return FIVE
    if first + wilds >= 4:
        return FOUR
    if max(0, 3 - first) + max(0, 2 - second) <= wilds:
        return FULL_HOUSE
    held = {index for index, count in enumerate(counts) if count}
    if any(sum(index not in held for index in window) <= wilds for window in WINDOWS):
        return STRAIGHT
    if first + wilds >= 3:
        return THREE
    if max(0, 2 - first) + max(0, 2 - second) <= wilds:
        return TWO_PAIR
    if first + wilds >= 2:
        return PAIR
    return HIGH_CARD


def suit_category(lane: int, wilds: int) -> int:
    """What one suit's natural cards (``lane``: bit r for rank index r) make with the wild
    cards: STRAIGHT_FLUSH, FLUSH, or HIGH_CARD when they make no five."""
    if lane.bit_count() + wilds < 5:
        return HIGH_CARD
    missing = (sum(not lane >> index & 1 for index in window) for window in WINDOWS)
    return STRAIGHT_FLUSH if min(missing) <= wilds else FLUSH


def category_of(cards: tuple[int, ...], wild: bool) -> Category:
    """The category of the hand of card codes ``cards`` (5 or more), fours wild or not."""
    counts = [0] * RANKS
    lanes = [0] * 4
    wilds = 0
    for card in cards:
        rank, suit = divmod(card, 4)
        if wild and rank == WILD_RANK:
            wilds += 1
            continue
        counts[rank] += 1
        lanes[suit] |= 1 << rank
    best = max(count_category(tuple(counts), wilds), *(suit_category(x, wilds) for x in lanes))
    return _CATEGORIES[best]


def _vectors(total: int, ranks: tuple[int, ...], most: int) -> Iterator[tuple[int, ...]]:
    """Every rank-count vector (13 long, zero off ``ranks``) of ``total`` cards, at most
    ``most`` of a rank."""
    if not ranks:
        if total == 0:
            yield (0,) * RANKS
        return
    first, rest = ranks[0], ranks[1:]
    for count in range(min(most, total) + 1):
        for tail in _vectors(total - count, rest, most):
            yield (*tail[:first], count, *tail[first + 1 :]) if count else tail


@cache
def _spreads(counts: tuple[int, ...], suits: int, cap: int) -> int:
    """The ways to deal ``counts`` (the nonzero rank counts, in any order) over ``suits``
    suits, each rank's cards in distinct suits, no suit holding more than ``cap``."""
    return _spread(tuple(sorted(counts)), (0,) * suits, cap)


@cache
def _spread(counts: tuple[int, ...], held: tuple[int, ...], cap: int) -> int:
    if not counts:
        return 1
    ways = 0
    for chosen in itertools.combinations(range(len(held)), counts[0]):
        after = list(held)
        for suit in chosen:
            after[suit] += 1
        if max(after, default=0) <= cap:
            ways += _spread(counts[1:], tuple(sorted(after)), cap)
    return ways


@cache
def natural_counts(naturals: int, wilds: int, wild: bool) -> tuple[int, ...]:
    """How many hands of ``naturals`` natural cards (any of the natural ranks: all 13, or
    12 with the fours wild; four suits) with ``wilds`` wild cards make each category (by
    category code)."""
    ranks = tuple(r for r in range(RANKS) if not (wild and r == WILD_RANK))
    reach = 5 - wilds  # natural cards of one suit that make a flush
    totals = [0] * len(_CATEGORIES)
    lanes_by_size = {
        size: [
            sum(1 << ranks[i] for i in chosen)
            for chosen in itertools.combinations(range(len(ranks)), size)
        ]
        for size in range(reach, naturals + 1)
    }
    for flushes in range(min(4, naturals // reach) + 1):
        others = 4 - flushes
        ways_of_suits = math.comb(4, flushes)
        rests: dict[int, list[tuple[tuple[int, ...], int]]] = {}
        for sizes in itertools.product(range(reach, naturals + 1), repeat=flushes):
            left = naturals - sum(sizes)
            if left < 0:
                continue
            if left not in rests:
                rests[left] = [
                    (vector, ways)
                    for vector in _vectors(left, ranks, others)
                    if (ways := _spreads(tuple(c for c in vector if c), others, reach - 1))
                ]
            for lanes in itertools.product(*(lanes_by_size[size] for size in sizes)):
                made = max((suit_category(lane, wilds) for lane in lanes), default=HIGH_CARD)
                base = [0] * RANKS
                for lane in lanes:
                    for rank in ranks:
                        base[rank] += lane >> rank & 1
                for vector, ways in rests[left]:
                    counts = tuple(a + b for a, b in zip(base, vector, strict=True))
                    best = max(made, _count_category(counts, wilds))
                    totals[best] += ways_of_suits * ways
    return tuple(totals)


_count_category = cache(count_category)


@dataclass(frozen=True, slots=True)
class ExactTable:
    """Hands of one kind by category: ``counts`` by category code, of ``total``."""

    name: str
    counts: tuple[int, ...]

    @property
    def total(self) -> int:
        return sum(self.counts)

    def share(self, category: Category) -> float:
        return self.counts[_CATEGORIES.index(category)] / self.total


def _table(name: str, parts: list[tuple[int, int, int]], wild: bool) -> ExactTable:
    """``parts``: (hands of the wild cards, natural cards, wild cards) to add up."""
    totals = [0] * len(_CATEGORIES)
    for ways, naturals, wilds in parts:
        for code, count in enumerate(natural_counts(naturals, wilds, wild)):
            totals[code] += ways * count
    return ExactTable(name, tuple(totals))


SEVEN = "seven"  # seven cards of 52
NO_FOUR = "no_four_of_clubs"  # a whole hand without the four of clubs: 7 of the other 51
FOUR_DOWN = "four_of_clubs_and_six"  # the four of clubs and 6 of the other 51
BONUS = "four_of_clubs_and_seven"  # the four of clubs and 7 of the other 51 (the bonus card)


@cache
def tables(wild: bool) -> dict[str, ExactTable]:
    """The exact tables: seven cards of 52; with the fours wild also a player's whole hand
    of each kind (:data:`NO_FOUR`, :data:`FOUR_DOWN`, :data:`BONUS`)."""
    if not wild:
        return {SEVEN: _table(SEVEN, [(1, 7, 0)], wild)}
    return {
        SEVEN: _table(SEVEN, [(math.comb(4, w), 7 - w, w) for w in range(5)], wild),
        NO_FOUR: _table(NO_FOUR, [(math.comb(3, w), 7 - w, w) for w in range(4)], wild),
        FOUR_DOWN: _table(FOUR_DOWN, [(math.comb(3, w), 6 - w, 1 + w) for w in range(4)], wild),
        BONUS: _table(BONUS, [(math.comb(3, w), 7 - w, 1 + w) for w in range(4)], wild),
    }
