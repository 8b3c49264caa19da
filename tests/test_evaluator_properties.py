"""Property tests: the evaluator against the brute-force reference, on thousands of hands.

Hands hold 5 to 8 cards with 0 to 4 fours, drawn from decks biased so that
flushes, straight flushes, full houses, quads and five of a kind come up often.
Each hand is checked under seven-card stud, Luck of the Irish and Luck of the
Irish with the double-ace flush rule.
"""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference_eval import CATEGORIES, classify, reference_value

from controller.rules import Card, HandValue, Rules, Variant, evaluate, evaluate_many
from tests.hypothesis_profiles import examples

RULE_SETS = [
    (Rules(variant=Variant.SEVEN_CARD_STUD), False, False),
    (Rules(), True, False),
    (Rules(double_ace_flush=True), True, True),
]
FOURS = [8, 9, 10, 11]
OTHERS = [code for code in range(52) if code >> 2 != 2]
OTHER_RANKS = [2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]


@st.composite
def decks(draw: st.DrawFn) -> list[int]:
    """The non-four cards a hand is drawn from: the whole deck or a biased part of it."""
    bias = draw(st.sampled_from(["whole", "suits", "ranks", "run"]))
    if bias == "suits":  # flushes and straight flushes
        suits = draw(st.sets(st.integers(0, 3), min_size=1, max_size=2))
        return [code for code in OTHERS if code & 3 in suits]
    if bias == "ranks":  # full houses, quads, five of a kind
        ranks = draw(st.sets(st.sampled_from(OTHER_RANKS), min_size=2, max_size=3))
        return [code for code in OTHERS if Card(code).rank in ranks]
    if bias == "run":  # straights and straight flushes, the wheel included
        low = draw(st.integers(1, 9))  # 1: the ace playing low
        ranks = {14 if rank == 1 else rank for rank in range(low, low + 7)}
        suits = draw(st.sets(st.integers(0, 3), min_size=2, max_size=2))
        return [code for code in OTHERS if Card(code).rank in ranks and code & 3 in suits]
    return OTHERS


@st.composite
def hands(draw: st.DrawFn) -> list[int]:
    size = draw(st.sampled_from([5, 6, 7, 8]))
    wilds = draw(st.sampled_from([0, 1, 2, 3, 4]))
    deck = draw(decks())
    if len(deck) < size - wilds:
        deck = OTHERS
    fours = draw(st.permutations(FOURS))[:wilds]
    others = draw(st.permutations(deck))[: size - wilds]
    return draw(st.permutations(fours + others))


def value_of(hand: HandValue) -> tuple[int, tuple[int, ...]]:
    return CATEGORIES.index(hand.category.value), hand.ranks


def check_played(hand: HandValue, codes: list[int], wild: bool, double_ace: bool) -> None:
    """The five played cards are the player's own, and form exactly the hand the key says."""
    played = hand.played
    holders = [card.card for card in played]
    assert len(played) == 5
    assert len(set(holders)) == 5
    assert set(holders) <= set(codes)
    naturals = [card for card in played if not (wild and card.card.rank == 4)]
    assert all(card.as_ == card.card for card in naturals)
    wild_ranks = tuple(card.as_.rank for card in played if card not in naturals)
    suited = len({card.as_.suit for card in played}) == 1
    natural_ranks = tuple(card.card.rank for card in naturals)
    assert classify(natural_ranks, wild_ranks, suited, double_ace) == value_of(hand)
    assert isinstance(hand.description, str)


@settings(max_examples=examples(2500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands())
def test_evaluate_agrees_with_the_brute_force_reference(codes):
    for rules, wild, double_ace in RULE_SETS:
        hand = evaluate(codes, rules)
        assert value_of(hand) == reference_value(codes, wild, double_ace)
        check_played(hand, codes, wild, double_ace)


@settings(max_examples=examples(500), deadline=None)
@given(hands(), hands(), st.sampled_from(RULE_SETS))
def test_keys_order_and_tie_exactly_as_the_reference(first, second, rule_set):
    rules, wild, double_ace = rule_set
    ours = evaluate(first, rules), evaluate(second, rules)
    theirs = reference_value(first, wild, double_ace), reference_value(second, wild, double_ace)
    assert (ours[0] < ours[1]) == (theirs[0] < theirs[1])
    assert (ours[0] == ours[1]) == (theirs[0] == theirs[1])
    assert (ours[0].key > ours[1].key) == (theirs[0] > theirs[1])


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(hands(), min_size=1, max_size=40),
    st.integers(8, 10),
    st.sampled_from([np.int8, np.int16, np.int32, np.int64]),
    st.sampled_from(RULE_SETS),
    st.randoms(use_true_random=False),
)
def test_evaluate_many_orders_and_ties_exactly_as_evaluate(batch, width, dtype, rule_set, rng):
    rules = rule_set[0]
    rows = np.full((len(batch), width), -1, dtype=dtype)
    for row, codes in enumerate(batch):
        places = sorted(rng.sample(range(width), len(codes)))
        rows[row, places] = codes
    expected = [evaluate(codes, rules).key for codes in batch]
    assert evaluate_many(rows, rules).tolist() == expected
    assert evaluate_many(rows, rules, chunk=7).tolist() == expected
