"""Showdown, the pot award, the odd chip, and the corrections (exposed card, void)."""

import pytest
from engine_driver import Driver, street, third_street

from controller.rules import Illegal, parse_card
from controller.rules.effects import Void
from controller.rules.inputs import (
    Action,
    Deal,
    Do,
    IllegalInput,
    action_from_json,
    input_from_json,
)

DEEP = 1000


def checked_down(hands3, ups, sevenths, stacks=None, **rules):
    """Deal a hand where the bring-in is called round and every later street is checked."""
    seats = sorted(hands3)
    table = Driver(stacks or dict.fromkeys(seats, DEEP), **rules)
    table.deal(*third_street(hands3))
    table.act(table.to_act, "bring_in")
    while table.hand.street == 3:
        table.act(table.to_act, "call")
    burns = iter(["3c", "3d", "3h", "3s"])
    for cards in (*ups, sevenths):
        table.deal(*street(dict(zip(seats, cards.split(), strict=True)), burn=next(burns)))
        while table.waiting_for_action:
            table.act(table.to_act, "check")
    return table


# Two nine-high straights in different suits, and a loser with ace high.
TIE3 = {1: "5c 6d 7h", 2: "5d 6h 7s", 3: "Qc Jh 2d"}
TIE_UPS = ("8s 8c Ts", "9c 9d Ah", "Kd Ks 8d")
TIE_7TH = "2h 2c 6s"


@pytest.mark.parametrize(("odd_chip", "odd_to"), [("seat_order", 1), ("high_card_suit", 2)])
def test_split_pot_with_an_odd_chip(odd_chip, odd_to):
    table = checked_down(TIE3, TIE_UPS, TIE_7TH, odd_chip=odd_chip)
    assert table.hand.over
    (pot,) = table.hand.pots
    assert pot.amount == 9 and pot.winners == (1, 2)
    shares = dict(pot.shares)
    assert shares[odd_to] == 5 and sum(shares.values()) == 9
    assert table.stacks()[odd_to] == DEEP - 3 + 5
    assert any(m.startswith("pot of 9 split: seat") for m in table.messages())


def test_auto_showdown_tables_every_hand():
    table = checked_down(TIE3, TIE_UPS, TIE_7TH)
    shows = table.messages("show")
    assert len(shows) == 3
    assert shows[0].startswith("seat 1 shows 5c 6d 7h 8s 9c Kd 2h: ")


@pytest.mark.parametrize(("double_ace", "winner"), [(False, 2), (True, 1)])
def test_double_ace_flush_setting_reaches_the_evaluator(double_ace, winner):
    # seat 1: As 4h(wild) 9s 5s 2s: a flush with the wild as K (or A under the rule)
    # seat 2: Ad Kd Qd Td 8d
    table = checked_down(
        {1: "As 4h 9s", 2: "Ad Kd Qd"},
        ("5s Td", "2s 8d", "7c 6d"),
        "8h 6c",
        double_ace_flush=double_ace,
    )
    assert table.hand.pots[0].winners == (winner,)


def manual_to_seventh(seventh_actions):
    table = Driver(dict.fromkeys((1, 2, 3), DEEP), showdown="manual")
    table.deal(*third_street(TIE3))
    table.acts((3, "bring_in"), (1, "call"), (2, "call"))
    burns = iter(["3c", "3d", "3h", "3s"])
    for cards in (*TIE_UPS, TIE_7TH):
        table.deal(*street(dict(zip((1, 2, 3), cards.split(), strict=True)), next(burns)))
        if table.hand.street < 7:
            while table.waiting_for_action:
                table.act(table.to_act, "check")
    table.acts(*seventh_actions)
    return table


def test_manual_showdown_starts_with_the_last_aggressor_and_goes_clockwise():
    # seventh street: seat 3 is high (A-K showing) and acts first
    table = manual_to_seventh([(3, "bet"), (1, "raise"), (2, "call"), (3, "call")])
    assert table.waiting == {
        "kind": "show",
        "seat": 1,
        "legal": [{"do": "show"}, {"do": "muck"}],
    }
    assert table.refused_act(2, "show") is Illegal.OUT_OF_TURN
    table.act(1, "show")
    assert table.to_act == 2
    table.act(2, "muck")
    assert "seat 2 mucks" in table.messages()
    assert table.to_act == 3
    table.act(3, "muck")
    assert table.hand.over
    assert table.hand.pots[0].winners == (1,)


def test_manual_showdown_without_a_bet_starts_with_the_first_to_act():
    table = manual_to_seventh([(3, "check"), (1, "check"), (2, "check")])
    assert table.to_act == 3


def test_the_last_contender_is_not_asked_and_wins():
    table = manual_to_seventh([(3, "check"), (1, "check"), (2, "check")])
    table.acts((3, "muck"), (1, "muck"))
    assert table.hand.over
    assert "(last contender: the hand is tabled)" in table.messages("show")[-1]
    assert table.hand.pots[0].winners == (2,)


def test_void_returns_every_chip_and_ends_the_hand():
    table = Driver({1: 100, 2: 50})
    table.deal(*third_street({1: "Kd 7c As", 2: "Qh 8d 9s"}))
    table.acts((2, "complete"), (1, "raise"))
    table.feed(Action(Do.VOID))
    assert table.stacks() == {1: 100, 2: 50}
    assert table.hand.pot == 0
    assert table.hand.over and table.hand.waiting_for is None
    assert table.refused(Deal(parse_card("2c"))) is Illegal.HAND_OVER


def test_an_exposed_hole_card_makes_the_next_card_for_that_player_go_down():
    table = Driver({1: 100, 2: 100})
    table.deal("Kd", "Qh")
    table.feed(action_from_json({"seat": 1, "do": "expose", "card": "Kd"}))
    assert "the next card to seat 1 is dealt down instead" in table.messages()[-1]
    table.deal("7c", "8d")
    assert table.waiting["seat"] == 1 and table.waiting["face"] == "down"
    table.deal("2s", "9s")
    faces = [(str(d.card), d.up) for d in table.player(1).cards]
    assert faces == [("Kd", True), ("7c", False), ("2s", False)]
    # the exposed king is seat 1's up card for the bring-in: seat 2 (9s) brings in
    assert table.to_act == 2


def test_exposure_before_the_bring_in_recomputes_the_bring_in():
    table = Driver({1: 100, 2: 100})
    table.deal(*third_street({1: "Kd 7c 2s", 2: "Qh 8d 9s"}))
    assert table.to_act == 1
    table.feed(action_from_json({"seat": 1, "do": "expose", "card": "Kd"}))
    # seat 1 now shows Kd and 2s: its highest up card is the king, so seat 2 brings in
    assert table.to_act == 2


def test_all_three_exposed_is_a_misdeal():
    table = Driver({1: 100, 2: 100})
    table.deal("Kd", "Qh", "7c", "8d")
    table.feed(action_from_json({"seat": 1, "do": "expose", "card": "Kd"}))
    table.feed(action_from_json({"seat": 1, "do": "expose", "card": "7c"}))
    table.deal("2s", "9s")
    table.feed(action_from_json({"seat": 1, "do": "expose", "card": "2s"}))
    assert table.hand.phase == "void"
    assert Void(exposed=1) in table.effects  # all three of seat 1's third-street cards
    assert table.stacks() == {1: 100, 2: 100}


def test_exposure_after_the_bring_in_leaves_a_hole_card_face_up_and_refuses_up_cards():
    table = Driver({1: 100, 2: 100})
    table.deal(*third_street({1: "Kd 7c 2s", 2: "Qh 8d 9s"}))
    assert table.refused(Action(Do.EXPOSE, 1, card=parse_card("2s"))) is Illegal.NOT_HOLE_CARD
    table.act(1, "bring_in")
    table.feed(Action(Do.EXPOSE, 1, card=parse_card("Kd")))
    assert "plays as a hole card" in table.messages("expose")[0]
    kd = table.player(1).cards[0]
    assert (kd.up, kd.exposed) == (False, True)  # seen by all, a hole card in the rules
    assert table.to_act == 2  # the action is where it was
    assert table.refused(Action(Do.EXPOSE, 1, card=parse_card("Kd"))) is Illegal.NOT_HOLE_CARD


@pytest.mark.parametrize(
    "data",
    [
        {"seat": 4, "do": "raise", "to": 20},
        {"seat": 1, "do": "bonus", "accept": False},
        {"seat": 1, "do": "expose", "card": "Kd"},
        {"do": "void"},
        {"deal": "4c"},
    ],
)
def test_inputs_round_trip_through_json(data):
    assert input_from_json(data).to_json() == data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"seat": 4, "do": "dance"}, "'do': 'dance' is not one of"),
        ({"seat": 4, "do": "call", "extra": 1}, "unknown field 'extra'"),
        ({"do": "call"}, "'call' needs a seat"),
        ({"seat": 1, "do": "void"}, "'void' takes no seat"),
        ({"seat": 1, "do": "bonus"}, "'bonus' needs 'accept'"),
        ({"seat": 1, "do": "expose"}, "'expose' needs the exposed 'card'"),
        ({"seat": 1, "do": "fold", "to": 5}, "'to' goes with"),
        ({"seat": "1", "do": "fold"}, "'seat': '1' is not a whole number"),
        ({"deal": "Xx"}, "'deal'"),
    ],
)
def test_bad_inputs_are_named(data, message):
    with pytest.raises(IllegalInput) as info:
        input_from_json(data)
    assert info.value.code is Illegal.MALFORMED
    assert message in str(info.value)  # the words name the field, for the script's author


def test_an_exposed_bonus_card_turns_up_without_a_misdeal():
    table = Driver({1: 100, 2: 100})
    table.deal("Kd", "Qh", "7c", "8d", "4c", "2h")  # 4c up to seat 1: bonus card 2h
    table.feed(Action(Do.EXPOSE, 1, card=parse_card("2h")))
    assert table.hand.phase == "deal"
    bonus = table.player(1).cards[-1]
    assert bonus.bonus and bonus.up and bonus.exposed
