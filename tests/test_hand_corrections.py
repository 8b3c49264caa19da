"""The engine's corrections that leave every card where it lies: ``correct`` (a misread),
``dealt_down`` (an up card dealt face down), and how they read from JSON."""

from __future__ import annotations

import pytest

from controller.rules import Illegal, parse_card
from controller.rules.inputs import Action, Do, IllegalInput, action_from_json, input_from_json
from tests.engine_driver import Driver, street, third_street


def correct(was: str, card: str) -> Action:
    return Action(Do.CORRECT, card=parse_card(card), was=parse_card(was))


def fourth_street() -> Driver:
    table = Driver({1: 100, 2: 100})
    table.deal(*third_street({1: "Kd 7c 2s", 2: "Qh 8d 9s"}))
    table.act(1, "bring_in").act(2, "call")
    return table


def test_a_burn_card_and_a_down_card_are_corrected_in_place():
    table = fourth_street()
    table.deal(*street({1: "Jc", 2: "5h"}, burn="3d"))
    table.feed(correct("3d", "3h"))
    assert table.hand.burns == (parse_card("3h"),)
    assert "the burn card read as 3d is 3h" in table.messages("correct")[0]
    assert not table.hand.out >> parse_card("3d") & 1  # the card read is still in the shoe
    table.feed(correct("Kd", "Kh"))  # seat 1's hole card: nothing else changes
    assert table.player(1).cards[0].card == parse_card("Kh") and table.to_act == 1
    assert table.refused(correct("Kh", "3h")) is Illegal.CARD_IN_PLAY
    assert table.refused(correct("Ac", "Ah")) is Illegal.NOT_DEALT
    assert table.refused(correct("Kd", "Kd")) is Illegal.SAME_CARD


def test_an_up_card_is_not_corrected_once_its_street_s_betting_began():
    table = Driver({1: 100, 2: 100})
    table.deal(*third_street({1: "Kd 7c 2s", 2: "Qh 8d 9s"}))
    table.feed(correct("2s", "Ts"))  # before the bring-in: seat 2 (9s) brings in now
    assert table.to_act == 2
    table.act(2, "bring_in")
    assert table.refused(correct("9s", "9c")) is Illegal.BETTING_BEGUN


def test_a_late_bonus_card_after_the_street_is_dealt_comes_before_its_betting():
    table = Driver({1: 100, 2: 100}, bonus_price=5)
    table.deal(*third_street({1: "Kd 7c 4d", 2: "Qh 8d 9s"}))
    table.feed(correct("4d", "4c"))
    assert table.waiting == {
        "kind": "bonus",
        "seat": 1,
        "price": 5,
        "legal": [{"do": "bonus", "accept": True}, {"do": "bonus", "accept": False}],
    }
    table.bonus(1, True).deal("Jh")
    assert table.player(1).cards[-1].bonus and table.to_act == 2


def test_dealt_down_names_an_up_card():
    table = fourth_street()
    assert table.refused(Action(Do.DEALT_DOWN, 1, card=parse_card("Kd"))) is Illegal.NOT_UP_CARD
    table.feed(Action(Do.DEALT_DOWN, 1, card=parse_card("2s")))
    assert "turn it face up" in table.messages("dealt_down")[0]


@pytest.mark.parametrize(
    "data",
    [
        {"do": "correct", "card": "4c", "was": "4d", "dealt": 6},
        {"do": "correct", "card": "4c", "was": "4d"},
        {"seat": 1, "do": "dealt_down", "card": "4c", "dealt": 5},
        {"seat": 1, "do": "expose", "card": "Kd", "dealt": 1},
        {"do": "dead", "dealt": 7},
        {"do": "dead"},
    ],
)
def test_corrections_round_trip_through_json(data):
    assert input_from_json(data).to_json() == data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"do": "correct", "card": "4c"}, "'correct' needs 'was'"),
        ({"seat": 1, "do": "correct", "card": "4c", "was": "4d"}, "'correct' takes no seat"),
        ({"seat": 1, "do": "expose", "card": "4c", "was": "4d"}, "'was' goes with 'correct'"),
        ({"seat": 1, "do": "dealt_down"}, "'dealt_down' needs the 'card'"),
        ({"seat": 1, "do": "call", "dealt": 3}, "'dealt' is a count"),
        ({"do": "correct", "card": "4c", "was": "4d", "dealt": -1}, "'dealt' is a count"),
        ({"do": "correct", "card": "4c", "was": "Zz"}, "'was'"),
        ({"seat": 2, "do": "dead"}, "'dead' takes no seat"),
        ({"do": "dead", "card": "4c"}, "'card' goes with"),
    ],
)
def test_bad_corrections_are_refused_with_the_reason(data, message):
    with pytest.raises(IllegalInput) as caught:
        action_from_json(data)
    assert caught.value.code is Illegal.MALFORMED
    assert message in str(caught.value)  # the words name the field, for the script's author


def test_a_card_taken_out_of_play_undealt_leaves_the_stub_one_card_short():
    """``dead``: a card came out of the shoe and was taken away, not dealt: the hand counts
    the shoe one card fewer (a short deck is decided on the real stub)."""
    table = fourth_street()
    hand = table.hand
    table.feed(Action(Do.DEAD))
    assert table.hand.stub == hand.stub - 1 and table.hand.gone == 1
    assert table.hand.waiting_for == hand.waiting_for  # nothing else changes
    assert type(table.hand).from_json(table.hand.to_json()) == table.hand
