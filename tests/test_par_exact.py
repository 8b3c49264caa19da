"""The exact category tables: the published counts, the totals, the evaluator over every
hand of a slice, and the counting rule against the evaluator hand by hand."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from controller.odds.exact_counts import (
    BONUS,
    FOUR_DOWN,
    NO_FOUR,
    SEVEN,
    WILD_RANK,
    category_of,
    natural_counts,
    tables,
)
from controller.rules import Category, Rules, Variant
from controller.rules.evaluator import evaluate_many
from controller.rules.hand_tables import CATEGORY_SHIFT

CATEGORIES = tuple(Category)
#: Seven-card stud's published counts (a straight flush includes the royal flush).
STUD_SEVEN = {
    Category.STRAIGHT_FLUSH: 41_584,
    Category.FOUR_OF_A_KIND: 224_848,
    Category.FULL_HOUSE: 3_473_184,
    Category.FLUSH: 4_047_644,
    Category.STRAIGHT: 6_180_020,
    Category.THREE_OF_A_KIND: 6_461_620,
    Category.TWO_PAIR: 31_433_400,
    Category.PAIR: 58_627_800,
    Category.HIGH_CARD: 23_294_460,
    Category.FIVE_OF_A_KIND: 0,
}
#: Five-card poker's published counts: a check of the counting on five natural cards.
FIVE_CARDS = (1_302_540, 1_098_240, 123_552, 54_912, 10_200, 5_108, 3_744, 624, 40, 0)


def test_seven_card_stud_matches_the_published_counts():
    seven = tables(wild=False)[SEVEN]
    assert seven.total == math.comb(52, 7)
    assert {category: seven.counts[i] for i, category in enumerate(CATEGORIES)} == STUD_SEVEN


def test_five_natural_cards_match_five_card_poker():
    assert natural_counts(5, 0, wild=False) == FIVE_CARDS


def test_luck_of_the_irish_tables_add_up_and_give_the_known_five_of_a_kind():
    exact = tables(wild=True)
    assert exact[SEVEN].total == math.comb(52, 7)
    assert exact[SEVEN].counts[CATEGORIES.index(Category.FIVE_OF_A_KIND)] == 609_760
    assert exact[NO_FOUR].total == math.comb(51, 7)
    assert exact[FOUR_DOWN].total == math.comb(51, 6)
    assert exact[BONUS].total == math.comb(51, 7)
    # the four of clubs or not: seven cards of 52 are the two kinds of seven together
    assert [
        a + b for a, b in zip(exact[NO_FOUR].counts, exact[FOUR_DOWN].counts, strict=True)
    ] == list(exact[SEVEN].counts)
    # a wild card makes at least a pair, and trips rather than two pair
    for name in (FOUR_DOWN, BONUS):
        assert exact[name].counts[CATEGORIES.index(Category.HIGH_CARD)] == 0
        assert exact[name].counts[CATEGORIES.index(Category.TWO_PAIR)] == 0


@pytest.mark.slow
@pytest.mark.parametrize(("naturals", "wilds"), [(5, 2), (4, 3), (3, 4)])
def test_the_count_matches_the_evaluator_over_every_hand_of_a_slice(naturals, wilds):
    """Every hand of ``naturals`` of the 48 natural cards with ``wilds`` given fours, through
    the evaluator, against the enumeration by rank counts and suits."""
    cards = [code for code in range(52) if code // 4 != WILD_RANK]
    fours = [WILD_RANK * 4 + suit for suit in range(wilds)]
    hands = np.array(list(itertools.combinations(cards, naturals)), np.int64)
    hands = np.hstack([hands, np.broadcast_to(np.array(fours, np.int64), (len(hands), wilds))])
    keys = evaluate_many(hands, Rules())
    counted = np.bincount(keys >> CATEGORY_SHIFT, minlength=len(CATEGORIES))
    assert tuple(int(v) for v in counted) == natural_counts(naturals, wilds, wild=True)


@pytest.mark.parametrize("variant", list(Variant))
@pytest.mark.parametrize("size", [7, 8])
def test_category_of_agrees_with_the_evaluator_hand_by_hand(variant, size):
    rng = np.random.default_rng(size)
    hands = np.argsort(rng.random((20_000, 52)), axis=1)[:, :size]
    rules = Rules(variant=variant)
    keys = evaluate_many(hands, rules)
    wild = variant is Variant.LUCK_OF_THE_IRISH
    for row, key in zip(hands, keys, strict=True):
        assert category_of(tuple(int(c) for c in row), wild) is CATEGORIES[key >> CATEGORY_SHIFT]
