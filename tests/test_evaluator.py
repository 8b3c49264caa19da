"""The evaluator on the rules documents' own examples, descriptions and bad input."""

from decimal import Decimal
from fractions import Fraction
from itertools import pairwise

import numpy as np
import pytest
from reference_eval import CATEGORIES

from controller.rules import (
    Card,
    CardError,
    Category,
    HandValue,
    Rules,
    Variant,
    evaluate,
    evaluate_many,
    evaluator,
    parse_cards,
)
from controller.rules.hand_tables import count_key, hand_tables

LUCK = Rules()
STUD = Rules(variant=Variant.SEVEN_CARD_STUD)
DOUBLE_ACE = Rules(double_ace_flush=True)


def played(hand: HandValue) -> list[tuple[str, str]]:
    return [(str(card.card), str(card.as_)) for card in hand.played]


# --- Seed 000, Article 4: the worked example --------------------------------------------


def test_article_4_the_extra_card_makes_a_king_high_straight_flush():
    # Hole 4d Ks; up 4c 9h 9s Kh; bonus card Js (the 4c came face up); seventh street 2c.
    hand = evaluate("4d Ks 4c 9h 9s Kh Js 2c", LUCK)
    assert hand.category is Category.STRAIGHT_FLUSH
    assert hand.ranks == (13,)
    assert hand.description == "King-high straight flush"
    # K-Q-J-10-9 of spades, the two wild cards played as the queen and ten of spades.
    assert sorted(as_ for _, as_ in played(hand)) == sorted(["Ks", "Qs", "Js", "Ts", "9s"])
    wild_plays = {card: as_ for card, as_ in played(hand) if card != as_}
    assert set(wild_plays) == {"4d", "4c"}
    assert set(wild_plays.values()) == {"Qs", "Ts"}


def test_article_4_it_beats_the_obvious_four_kings():
    without_bonus = evaluate("4d Ks 4c 9h 9s Kh 2c", LUCK)
    assert without_bonus.category is Category.FOUR_OF_A_KIND
    assert without_bonus.ranks == (13, 9)
    four_kings = evaluate("Ks Kh 4d 4c 9s", LUCK)
    assert four_kings.description == "Four kings, nine kicker"
    hand = evaluate("4d Ks 4c 9h 9s Kh Js 2c", LUCK)
    assert hand > four_kings
    assert hand > without_bonus
    assert max(four_kings, hand, without_bonus) is hand


# --- Seed 000: fours wild, five of a kind, hand rankings --------------------------------


def test_every_four_is_wild_and_five_of_a_kind_tops_a_royal_flush():
    five_queens = evaluate("Qs Qh Qd 4c 4s", LUCK)
    assert five_queens.category is Category.FIVE_OF_A_KIND
    assert five_queens.ranks == (12,)
    assert five_queens.description == "Five queens"
    royal = evaluate("As Ks Qs Js Ts", LUCK)
    assert royal.description == "Royal flush"
    assert five_queens > royal


def test_four_wild_cards_and_any_card_make_five_of_that_rank():
    hand = evaluate("4c 4d 4h 4s 2c 7d 9h", LUCK)
    assert (hand.category, hand.ranks) == (Category.FIVE_OF_A_KIND, (9,))


def test_hand_rankings_high_to_low():
    # Royal flush, straight flush, four of a kind, full house, flush, straight, three of a
    # kind, two pair, one pair, high card (seed 000), five of a kind above all (1.3).
    ladder = [
        ("Qs Qh Qd Qc 4c", Category.FIVE_OF_A_KIND),
        ("As Ks Qs Js Ts", Category.STRAIGHT_FLUSH),
        ("Ks Qs Js Ts 9s", Category.STRAIGHT_FLUSH),
        ("9c 9s 9d 9h Jh", Category.FOUR_OF_A_KIND),
        ("3c 3s 3d 6c 6h", Category.FULL_HOUSE),
        ("Ah Jh 9h 6h 2h", Category.FLUSH),
        ("9d 8c 7s 6h 5h", Category.STRAIGHT),
        ("Jc Js Jd 9h 2c", Category.THREE_OF_A_KIND),
        ("Jc Js 6d 6h 9c", Category.TWO_PAIR),
        ("Ac As 9d 7h 3c", Category.PAIR),
        ("Ac Kd 9s 7h 3c", Category.HIGH_CARD),
    ]
    values = [evaluate(cards, LUCK) for cards, _ in ladder]
    assert [value.category for value in values] == [category for _, category in ladder]
    assert all(higher > lower for higher, lower in pairwise(values))


# --- Seed 002: wild cards in flushes ---------------------------------------------------
# The seed's examples are written for a generic wild card "(Wild)" and natural fours.
# In Luck of the Irish the wild cards ARE the fours, so each "(Wild)" becomes a four,
# and a natural four in the example (4h below) becomes another low card of the same
# suit (3h) so that it stays natural. Examples with natural fours and no wild card are
# tested as written under seven-card-stud, where fours are natural.


def test_wild_in_a_flush_plays_as_the_highest_rank_not_present():
    # Seed: "(Wild) 10h 8h 5h 4h: the wild card plays as the Ah".
    hand = evaluate("4c Th 8h 5h 3h", LUCK)
    assert (hand.category, hand.ranks) == (Category.FLUSH, (14, 10, 8, 5, 3))
    assert ("4c", "Ah") in played(hand)
    assert hand.description == "Ace-high flush"


def test_wild_in_a_flush_holding_ace_king_plays_as_the_queen():
    # Seed: "Ac Kc (Wild) 9c 6c: it plays as the Qc".
    hand = evaluate("Ac Kc 4d 9c 6c", LUCK)
    assert (hand.category, hand.ranks) == (Category.FLUSH, (14, 13, 12, 9, 6))
    assert ("4d", "Qc") in played(hand)


def test_double_ace_flush_rule():
    # Seed: "As (Wild) 9s 5s 2s would defeat Ad Kd Qd 10d 8d (the wild card playing as an
    # imaginary second As), whereas by the standard rules it would lose (because even with
    # the wild card playing as a Ks, the latter hand's Qd outranks the former's 9s)."
    wild_flush, king_flush = "As 4h 9s 5s 2s", "Ad Kd Qd Td 8d"
    double = evaluate(wild_flush, DOUBLE_ACE)
    assert (double.category, double.ranks) == (Category.FLUSH, (14, 14, 9, 5, 2))
    assert ("4h", "As") in played(double)
    assert double > evaluate(king_flush, DOUBLE_ACE)
    standard = evaluate(wild_flush, LUCK)
    assert standard.ranks == (14, 13, 9, 5, 2)
    assert ("4h", "Ks") in played(standard)
    assert standard < evaluate(king_flush, LUCK)


def test_double_ace_rule_leaves_straight_flushes_alone():
    hand = evaluate("9s 8s 7s 6s 4h", DOUBLE_ACE)
    assert (hand.category, hand.ranks) == (Category.STRAIGHT_FLUSH, (10,))


# --- Seed 002: full houses, four of a kind, straight flushes (natural fours: stud) ------


@pytest.mark.parametrize(
    ("higher", "lower", "higher_says", "lower_says"),
    [
        ("Ts Th Td 4s 4d", "9h 9c 9s Ah Ac", "Tens full of fours", "Nines full of aces"),
        ("Ks Kc Kh 3d 3s", "Ts Th Td 4s 4d", "Kings full of threes", "Tens full of fours"),
        ("Qh Qd Qc 8h 8c", "Qh Qd Qc 5s 5h", "Queens full of eights", "Queens full of fives"),
        ("Tc Td Th Ts 5d", "6d 6h 6s 6c Ks", "Four tens, five kicker", "Four sixes, king kicker"),
        ("Tc Td Th Ts Qc", "Tc Td Th Ts 5d", "Four tens, queen kicker", "Four tens, five kicker"),
        (
            "7h 6h 5h 4h 3h",
            "5s 4s 3s 2s As",
            "Seven-high straight flush",
            "Five-high straight flush",
        ),
    ],
)
def test_seed_002_comparisons(higher, lower, higher_says, lower_says):
    high, low = evaluate(higher, STUD), evaluate(lower, STUD)
    assert high > low
    assert (high.description, low.description) == (higher_says, lower_says)


@pytest.mark.parametrize(
    ("cards", "category", "ranks"),
    [
        ("2c 2d 2h Qs Qd", Category.FULL_HOUSE, (2, 12)),
        ("3c 3s 3d 6c 6h", Category.FULL_HOUSE, (3, 6)),
        ("Jc Jd Jh Js 6d", Category.FOUR_OF_A_KIND, (11, 6)),
        ("9c 9s 9d 9h Jh", Category.FOUR_OF_A_KIND, (9, 11)),
        ("Qs Js Ts 9s 8s", Category.STRAIGHT_FLUSH, (12,)),
        ("5d 4d 3d 2d Ad", Category.STRAIGHT_FLUSH, (5,)),
        ("Ac Kc Qc Jc Tc", Category.STRAIGHT_FLUSH, (14,)),
    ],
)
def test_seed_002_hands(cards, category, ranks):
    hand = evaluate(cards, STUD)
    assert (hand.category, hand.ranks) == (category, ranks)


def test_a_wheel_straight_flush_with_a_wild_four_is_five_high_too():
    hand = evaluate("5d 4d 3d 2d Ad", LUCK)
    assert (hand.category, hand.ranks) == (Category.STRAIGHT_FLUSH, (5,))
    assert played(hand)[1] == ("4d", "4d")  # the wild four plays as itself


def test_suits_never_break_ties():
    clubs, diamonds = evaluate("Jc Tc 9c 8c 7c", STUD), evaluate("Jd Td 9d 8d 7d", STUD)
    assert clubs == diamonds
    assert clubs.key == diamonds.key
    assert not clubs < diamonds
    assert not diamonds < clubs
    assert hash(clubs) == hash(diamonds)


def test_a_wheel_is_five_high():
    wheel = evaluate("5c 4d 3h 2s Ac", STUD)
    assert (wheel.category, wheel.ranks) == (Category.STRAIGHT, (5,))
    assert wheel.description == "Five-high straight"
    assert wheel < evaluate("6c 5d 4h 3s 2c", STUD)


# --- Descriptions, played cards, JSON ---------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "rules", "says"),
    [
        ("4d Ks 4c 9h 9s Kh Js 2c", LUCK, "King-high straight flush"),
        ("As Ks Qs Js Ts 2c", STUD, "Royal flush"),
        ("Qs Qh 4d 4c Qc 2d", LUCK, "Five queens"),
        ("Tc Td Th Ts Qc 5d", STUD, "Four tens, queen kicker"),
        ("Qh Qd Qc 8h 8c 2s", STUD, "Queens full of eights"),
        ("Ah Jh 9h 6h 2h Kc", STUD, "Ace-high flush"),
        ("Jc Js 6d 6h 9c 2d 3h", STUD, "Two pair, jacks and sixes, nine kicker"),
        ("9d 8c 7s 6h 5h", STUD, "Nine-high straight"),
        ("Jc Js Jd Ah 9c", STUD, "Three jacks, ace and nine kickers"),
        ("Ac As 9d 7h Kc", STUD, "Pair of aces, king, nine and seven kickers"),
        ("Ac Kd 9s 7h 3c", STUD, "Ace high, king, nine, seven and three"),
        ("6c 6d 6h 4s 4c", STUD, "Sixes full of fours"),
    ],
)
def test_descriptions(cards, rules, says):
    assert evaluate(cards, rules).description == says


def test_to_json_is_the_cli_contract():
    hand = evaluate("4d Ks 4c 9h 9s Kh Js 2c", LUCK)
    document = hand.to_json()
    assert document["category"] == "straight_flush"
    assert document["ranks"] == [13]
    assert document["description"] == "King-high straight flush"
    assert {"card": "4d", "as": "Qs"} in document["played"]
    assert {"card": "Ks", "as": "Ks"} in document["played"]
    assert len(document["played"]) == 5


def test_played_shows_what_each_wild_stands_for_without_repeating_cards():
    hand = evaluate("4h 4s Kc Kd 7s 2c", LUCK)
    assert (hand.category, hand.ranks) == (Category.FOUR_OF_A_KIND, (13, 7))
    as_cards = [as_ for _, as_ in played(hand)]
    assert sorted(as_cards[:4]) == ["Kc", "Kd", "Kh", "Ks"]
    assert as_cards[4] == "7s"


def test_played_five_of_a_kind_repeats_a_card_only_when_it_must():
    hand = evaluate("Qc Qd Qh Qs 4c", LUCK)
    as_cards = [as_ for _, as_ in played(hand)]
    assert set(as_cards) == {"Qc", "Qd", "Qh", "Qs"}
    assert len(as_cards) == 5


def test_category_is_a_str_enum_with_the_contract_values():
    # The reference spells out the contract's categories, weakest first.
    assert [category.value for category in Category] == list(CATEGORIES)
    assert Category.FLUSH == "flush"


def test_cards_in_every_form_give_the_same_value():
    text = "4d Ks 4c 9h 9s Kh Js 2c"
    cards = parse_cards(text)
    forms = [
        text,
        text.split(),
        cards,
        list(cards),
        [int(card) for card in cards],
        iter(cards),
        "4♦ K♠ 4♣ 9♥ 9♠ K♥ J♠ 2♣",
        ["4D", "ks", " 4c", "9h", "9s", "Kh", "Js", "2c"],
    ]
    assert {evaluate(form, LUCK).key for form in forms} == {evaluate(cards, LUCK).key}
    assert evaluate(text, LUCK).cards == cards


def test_default_rules_are_luck_of_the_irish():
    assert evaluate("4c 4d As Kd 9h").category is Category.THREE_OF_A_KIND


def test_the_variant_decides_whether_fours_are_wild():
    assert evaluate("4c 4d 4h 9s 9c", STUD).category is Category.FULL_HOUSE
    assert evaluate("4c 4d 4h 9s 9c", LUCK).category is Category.FIVE_OF_A_KIND


def test_comparing_with_something_else_is_refused():
    hand = evaluate("As Ks Qs Js Ts", LUCK)
    assert hand != hand.key
    with pytest.raises(TypeError):
        assert hand < 5


# --- Bad input -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "token", "fragment"),
    [
        ("As Ks Qs Js Xs", "Xs", "unknown card"),
        ("As Ks Qs Js as", "as", "duplicate"),
        (["As", "Ks", "Qs", "Js", "Ts", "Ks"], "Ks", "duplicate"),
        ([51, 47, 43, 39, 35, 52], 52, "0..51"),
        ([51, 47, 43, 39, 35, -1], -1, "0..51"),
        ([51, 47, 43, 39, 35, "Zz"], "Zz", "unknown card"),
        ([51, 47, 43, 39, 35, 1.5], 1.5, "rank and suit"),
        ("As Ks Qs Js", "As Ks Qs Js", "4 cards"),
        ("As", "As", "'As': 1 card: a hand has 5 to 8 cards"),
        ("", None, "no cards"),
        ("As Ks Qs Js Ts 9s 8s 7s 6s", "6s", "9th card"),
    ],
)
def test_bad_hands_are_refused_naming_the_token(cards, token, fragment):
    with pytest.raises(CardError) as info:
        evaluate(cards, LUCK)
    assert info.value.token == token
    assert fragment in str(info.value)


@pytest.mark.parametrize(
    ("row", "fragment"),
    [
        ([51, 47, 43, 39, 51, -1], "duplicate"),
        ([51, 47, 43, 39, -1, -1], "4 cards"),
        ([51, 47, 43, 39, 35, 60], "0..51"),
        ([51, 47, 43, 39, 35, -2], "0..51"),
    ],
)
def test_evaluate_many_refuses_a_bad_row_by_number(row, fragment):
    good = [51, 47, 43, 39, 35, -1]
    with pytest.raises(CardError) as info:
        evaluate_many(np.array([good, good, row, good]), LUCK)
    assert "hand 2" in str(info.value)
    assert fragment in str(info.value)


def test_evaluate_many_refuses_what_is_not_a_matrix_of_codes():
    with pytest.raises(CardError):
        evaluate_many(np.array([51, 47, 43, 39, 35]), LUCK)
    with pytest.raises(CardError):
        evaluate_many(np.array([[0.5] * 5]), LUCK)
    with pytest.raises(CardError):
        evaluate_many(np.zeros((3, 0), int), LUCK)


# Values that equal a card code (True == 1, 1.0 == 1) or index like one (-1) are not cards.
NOT_CARDS = [
    (True, "true or false"),
    (False, "true or false"),
    (1.0, "not float"),
    (np.float64(1.0), "not float64"),
    (Fraction(1), "not Fraction"),
    (Decimal(1), "not Decimal"),
    (complex(1), "not complex"),
    (np.True_, "not bool"),
    (None, "not NoneType"),
    (-1, "0..51"),
    (-52, "0..51"),
    (-53, "0..51"),
    (-104, "0..51"),
    (52, "0..51"),
    (255, "0..51"),
    (256, "0..51"),
    (np.int64(-1), "0..51"),
]


@pytest.mark.parametrize(("token", "fragment"), NOT_CARDS)
@pytest.mark.parametrize("where", [0, 1, 4, 6])
def test_what_is_not_a_card_is_refused_wherever_it_stands(token, fragment, where):
    # Codes 0 and 1 (2c, 2d) are in the hand, so True and False do not collide with them
    # only when they replace them: both cases are covered by the positions.
    cards: list[object] = [0, 1, 2, 3, 5, 9, 13]
    cards[where] = token
    for given in (cards, tuple(cards), iter(cards)):
        with pytest.raises(CardError) as info:
            evaluate(given, LUCK)
        assert info.value.token is token
        assert fragment in str(info.value)


def test_true_is_not_the_two_of_diamonds():
    with pytest.raises(CardError, match="true or false"):
        evaluate([0, True, 2, 3, 5], LUCK)
    with pytest.raises(CardError, match="true or false"):
        evaluate([9, 13, 2, 3, False], LUCK)
    assert evaluate([0, 1, 2, 3, 8], LUCK).description == "Five twos"


@pytest.mark.parametrize("hand", [None, 5, 2.5, object()])
def test_what_is_not_a_hand_is_refused(hand):
    with pytest.raises(CardError, match="a sequence of cards"):
        evaluate(hand, LUCK)


@pytest.mark.parametrize("rules", [None, "luck-of-the-irish", Variant.SEVEN_CARD_STUD])
def test_rules_that_are_not_rules_are_refused(rules):
    with pytest.raises(CardError, match="rules must be a Rules"):
        evaluate("As Ks Qs Js Ts", rules)
    with pytest.raises(CardError, match="rules must be a Rules"):
        evaluate_many(np.array([[51, 47, 43, 39, 35]]), rules)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64])
def test_numpy_integer_rows_are_hands_and_their_cards_are_cards(dtype):
    row = np.array([51, 47, 43, 39, 35, 0], dtype=dtype)
    hand = evaluate(row, STUD)
    assert hand.key == evaluate([51, 47, 43, 39, 35, 0], STUD).key
    assert hand.cards == parse_cards("As Ks Qs Js Ts 2c")
    assert all(type(card) is Card for card in hand.cards)


def test_the_cards_of_any_accepted_hand_are_the_cards_given_in_order():
    given = ["Ks", 46, np.int16(8), Card(0), "10h"]
    assert evaluate(given, LUCK).cards == parse_cards("Ks Kh 4c 2c Th")
    assert evaluate(iter(given), LUCK).cards == evaluate(given, LUCK).cards
    five = parse_cards("2c 2d 9h Js Ac")
    assert evaluate(frozenset(five), LUCK).key == evaluate(five, LUCK).key


def test_a_hostile_token_is_cut_in_the_message_but_kept_whole_on_the_error():
    token = "K" * 1_000_000
    with pytest.raises(CardError) as info:
        evaluate(f"As Ks Qs Js {token}", LUCK)
    assert info.value.token == token
    assert len(str(info.value)) < 300
    assert "characters cut" in str(info.value)
    with pytest.raises(CardError) as info:
        evaluate([51, 47, 43, 39, 10**5000], LUCK)
    assert "bits" in str(info.value)
    assert len(str(info.value)) < 300


@pytest.mark.parametrize("chunk", [-1, 0, 1.5, True, None])
def test_evaluate_many_refuses_a_chunk_that_is_not_a_positive_whole_number(chunk):
    with pytest.raises(ValueError, match="chunk"):
        evaluate_many(np.array([[51, 47, 43, 39, 35]]), LUCK, chunk=chunk)


def test_evaluate_many_gives_the_same_keys_for_any_chunk():
    rows = np.array([[51, 47, 43, 39, 35], [0, 1, 2, 3, 5], [9, 13, 17, 21, 25]])
    expected = evaluate_many(rows, LUCK).tolist()
    for chunk in (1, 2, 3, 4):
        assert evaluate_many(rows, LUCK, chunk=chunk).tolist() == expected


def test_evaluate_many_refuses_a_masked_card_by_row_and_takes_an_unmasked_array():
    rows = np.array([[51, 47, 43, 39, 35, 7], [0, 1, 2, 3, 5, 7]])
    masked = np.ma.array(rows, mask=[[0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1]])
    with pytest.raises(CardError, match="hand 1: a masked card"):
        evaluate_many(masked, LUCK)
    assert evaluate_many(np.ma.array(rows), LUCK).tolist() == evaluate_many(rows, LUCK).tolist()
    with pytest.raises(CardError):
        evaluate(masked[1], LUCK)


def test_evaluate_many_matches_evaluate_on_the_examples_with_pads_anywhere():
    hands = ["4d Ks 4c 9h 9s Kh Js 2c", "Qs Qh 4d 4c Qc", "As 4h 9s 5s 2s", "5c 4d 3h 2s Ac"]
    rows = np.full((len(hands), 9), -1)
    for row, hand in enumerate(hands):
        codes = [int(card) for card in parse_cards(hand)]
        rows[row, row : row + len(codes)] = codes
    for rules in (LUCK, STUD, DOUBLE_ACE):
        expected = [evaluate(hand, rules).key for hand in hands]
        assert evaluate_many(rows, rules).tolist() == expected
        assert evaluate_many(rows.astype(np.int8), rules).tolist() == expected
    assert evaluate_many(np.zeros((0, 7), int), LUCK).shape == (0,)


def test_hand_value_cards_are_cards():
    hand = evaluate([51, 47, 43, 39, 35], STUD)
    assert all(isinstance(card, Card) for card in hand.cards)
    assert repr(hand) == f"HandValue('Royal flush', key={hand.key:#x})"


@pytest.mark.parametrize("rules", [LUCK, STUD, DOUBLE_ACE], ids=["luck", "stud", "double-ace"])
def test_keys_computed_one_at_a_time_are_the_whole_tables(rules, monkeypatch):
    """evaluate computes the keys of the first rank-count vectors it meets one at a time,
    then builds the whole table: both give every hand the same key, the key evaluate_many
    gives it from the whole tables."""
    wild = rules.variant is Variant.LUCK_OF_THE_IRISH
    whole = hand_tables(wild, rules.double_ace_flush and wild).count_keys
    for counts in list(whole)[::397]:
        assert count_key(counts, wild) == whole[counts]

    monkeypatch.setattr(evaluator, "_FAST_TABLES", {})
    monkeypatch.setattr(evaluator, "COUNT_KEYS_ALONE", 50)
    rng = np.random.default_rng(7)
    hands = [rng.choice(52, size=int(rng.integers(5, 9)), replace=False) for _ in range(400)]
    keys = [evaluate([int(code) for code in hand], rules).key for hand in hands]
    assert type(evaluator._FAST_TABLES[rules.variant, rules.double_ace_flush][1]) is dict
    padded = np.array([[*hand, *[-1] * (8 - len(hand))] for hand in hands])
    assert keys == evaluate_many(padded, rules).tolist()


def test_prepare_builds_the_whole_tables_before_any_hand(monkeypatch):
    """prepare (a long run's start) puts the whole count table in place at once: no hand
    is then computed alone, and every hand gets the key the whole tables give it."""
    monkeypatch.setattr(evaluator, "_FAST_TABLES", {})
    alone: list[int] = []
    monkeypatch.setattr(evaluator, "count_key", lambda counts, wild: alone.append(counts))
    evaluator.prepare(LUCK)
    assert type(evaluator._FAST_TABLES[LUCK.variant, LUCK.double_ace_flush][1]) is dict
    rng = np.random.default_rng(11)
    hands = [rng.choice(52, size=7, replace=False) for _ in range(200)]
    keys = [evaluate([int(code) for code in hand], LUCK).key for hand in hands]
    assert alone == []
    assert keys == evaluate_many(np.array(hands), LUCK).tolist()
    with pytest.raises(CardError, match="rules must be a Rules"):
        evaluator.prepare("luck")  # type: ignore[arg-type]
