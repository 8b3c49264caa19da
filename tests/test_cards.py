import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.rules import DECK, Card, CardError, Suit, parse_card, parse_cards
from controller.rules.cards import _read_card, shorten, shown


@pytest.mark.parametrize(
    ("token", "text", "code"),
    [
        ("2c", "2c", 0),
        ("2d", "2d", 1),
        ("As", "As", 51),
        ("ks", "Ks", 47),
        ("KS", "Ks", 47),
        ("Td", "Td", 33),
        ("10d", "Td", 33),
        ("tD", "Td", 33),
        ("Q♠", "Qs", 43),
        ("4♣", "4c", 8),
        ("9♦", "9d", 29),
        ("J♥", "Jh", 38),
        (" 7h ", "7h", 22),
    ],
)
def test_parse_card_notation_and_code(token, text, code):
    card = parse_card(token)
    assert str(card) == text
    assert card == code
    assert card.code == code


def test_code_is_rank_minus_two_times_four_plus_suit():
    for rank in range(2, 15):
        for suit in Suit:
            card = Card.of(rank, suit)
            assert card == (rank - 2) * 4 + suit
            assert card.rank == rank
            assert card.suit is suit


@pytest.mark.parametrize("token", ["", "X", "1c", "11c", "Kx", "KK", "4", "c4", "Ace", "10", "0s"])
def test_unknown_cards_name_the_token(token):
    with pytest.raises(CardError) as info:
        parse_card(token)
    assert info.value.token == token
    assert repr(token) in str(info.value)


def test_parse_cards_accepts_strings_runs_lists_and_codes():
    expected = tuple(parse_card(t) for t in ["4d", "Ks", "4c", "Th"])
    assert parse_cards("4d Ks 4c Th") == expected
    assert parse_cards("4d,Ks, 4c 10h") == expected
    assert parse_cards("4dKs4c10h") == expected
    assert parse_cards(["4d", "Ks", "4c", "Th"]) == expected
    assert parse_cards([9, 47, 8, 34]) == expected


def test_parse_cards_refuses_a_duplicate_naming_it():
    with pytest.raises(CardError) as info:
        parse_cards("Ks 9h ks")
    assert info.value.token == "ks"
    assert "duplicate" in str(info.value)


def test_parse_cards_names_the_bad_token_in_a_run():
    with pytest.raises(CardError) as info:
        parse_cards("AsXsKd")
    assert info.value.token in {"Xs", "AsXsKd"}


@pytest.mark.parametrize("code", [-1, 52, 100])
def test_card_codes_out_of_range(code):
    with pytest.raises(CardError):
        Card(code)
    with pytest.raises(CardError):
        parse_cards([code])


def test_deck_is_52_distinct_cards_round_tripping_through_text():
    assert len(set(DECK)) == 52
    assert all(parse_card(str(card)) == card for card in DECK)
    assert all(repr(card) == f"Card('{card}')" for card in DECK)


@given(st.permutations(list(range(52))))
def test_parse_cards_round_trip(codes):
    cards = parse_cards(codes[:8])
    assert parse_cards(" ".join(map(str, cards))) == cards


@pytest.mark.parametrize("code", [True, False, 1.0, 2.5, None, "5"])
def test_a_card_code_is_a_whole_number_not_a_bool_or_a_float(code):
    with pytest.raises(CardError) as info:
        Card(code)
    assert info.value.token is code


def test_a_card_code_may_be_any_integer_type():
    assert Card(np.int64(51)) == Card(np.uint8(51)) == Card(51)
    assert type(Card(np.int16(3))) is Card
    assert parse_cards([np.int8(9), np.uint64(47)]) == parse_cards("4d Ks")


def test_parse_cards_refuses_what_is_not_a_sequence():
    with pytest.raises(CardError, match="not NoneType"):
        parse_cards(None)


def test_messages_cut_a_long_token_and_say_how_much():
    token = "x" * 10_000
    with pytest.raises(CardError) as info:
        parse_card(token)
    assert info.value.token == token
    assert "9,942 characters cut" in str(info.value)
    assert shorten("short") == "short"
    assert shown(10**400) == "<a whole number of 1,329 bits>"


def test_every_plain_spelling_reads_as_the_careful_reading_does():
    ranks = [*"23456789TJQKA", *"tjqka", "10"]
    suits = [*"cdhsCDHS", *"♣♦♥♠"]
    for rank in ranks:
        for suit in suits:
            spelled = rank + suit
            assert parse_card(spelled) == _read_card(spelled)
            assert parse_card(f" {spelled} ") == parse_card(spelled)
