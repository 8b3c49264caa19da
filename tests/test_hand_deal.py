"""The deal: streets, burns, the bonus card, the short deck, cards already in play."""

import json

import pytest
from engine_driver import Driver, street, third_street

from controller.rules import DECK, Illegal, parse_card
from controller.rules.hand import Hand
from controller.rules.inputs import Action, Deal, Do

THREE = {1: 100, 4: 100, 6: 100}
THIRD = third_street({1: "Kd 7c As", 4: "Qh 8d 9s", 6: "2s 3c 5d"})


def test_third_street_is_two_down_one_up_in_rounds_from_the_lowest_seat():
    table = Driver(THREE)
    seen = []
    for card in THIRD:
        waiting = table.waiting
        seen.append((waiting["seat"], waiting["face"]))
        table.deal(card)
    assert seen == [
        (1, "down"),
        (4, "down"),
        (6, "down"),
        (1, "down"),
        (4, "down"),
        (6, "down"),
        (1, "up"),
        (4, "up"),
        (6, "up"),
    ]
    assert [d.up for d in table.player(1).cards] == [False, False, True]
    assert table.waiting["kind"] == "action"


def test_antes_are_posted_and_a_short_stack_antes_all_in():
    table = Driver({1: 1, 2: 50}, ante=2, bring_in=2)
    assert table.stacks() == {1: 0, 2: 48}
    assert table.hand.pot == 3
    assert "seat 1 antes 1 (all-in)" in table.messages("ante")


@pytest.mark.parametrize("burn", [True, False])
def test_burn_before_fourth_to_seventh_street_or_none(burn):
    table = Driver({1: 100, 2: 100}, burn=burn)
    table.deal(*third_street({1: "Kd 7c As", 2: "Qh 8d 9s"}))
    table.act(2, "bring_in").act(1, "call")
    for cards in (("Jd", "Jh"), ("Td", "Th"), ("6d", "6h"), ("5c", "5s")):
        first = table.waiting
        if burn:
            assert first["destination"] == "burn"
            table.deal({"Jd": "2c", "Td": "2d", "6d": "2h", "5c": "3h"}[cards[0]])
        assert table.waiting["destination"] == "seat"
        table.deal(*cards)
        if table.hand.street < 7:
            table.act(table.to_act, "check").act(table.to_act, "check")
    assert len(table.hand.burns) == (4 if burn else 0)
    assert table.hand.stub == 52 - 14 - (4 if burn else 0)


def test_a_card_already_in_play_is_refused_and_nothing_changes():
    table = Driver(THREE).deal("Kd", "7c")
    assert table.refused(Deal(parse_card("kd"))) is Illegal.CARD_IN_PLAY
    table.deal("As")
    assert table.hand.out.bit_count() == 3


def test_a_card_when_a_decision_is_due_is_refused():
    table = Driver(THREE).deal(*THIRD)
    assert table.refused(Deal(parse_card("Ac"))) is Illegal.CARD_NOT_DUE


def test_seventh_street_card_is_face_down():
    table = Driver({1: 100, 2: 100})
    table.deal(*third_street({1: "Kd 7c As", 2: "Qh 8d 9s"}))
    table.act(2, "bring_in").act(1, "call")
    for burn, a, b in (("2c", "Jd", "Jh"), ("2d", "Td", "Th"), ("2h", "6d", "6h")):
        table.deal(burn, a, b).act(table.to_act, "check").act(table.to_act, "check")
    table.deal("3c")
    assert table.waiting == {
        "kind": "card",
        "destination": "seat",
        "seat": 1,
        "face": "down",
        "street": 7,
    }


# The bonus card ------------------------------------------------------------------------


def bonus_table(**rules):
    return Driver({1: 100, 2: 100, 3: 100}, **rules)


def test_immediate_bonus_card_is_the_very_next_card_face_down():
    table = bonus_table()
    table.deal("Kd", "Qd", "Jd", "7c", "8c", "9c", "4c")
    assert "bonus card due: one card face down to seat 1" in table.messages()
    assert table.waiting == {
        "kind": "card",
        "destination": "bonus",
        "seat": 1,
        "face": "down",
        "street": 3,
    }
    table.deal("2h")
    last = table.player(1).cards[-1]
    assert (str(last.card), last.up, last.bonus, last.street) == ("2h", False, True, 3)
    assert table.waiting["seat"] == 2 and table.waiting["face"] == "up"


def test_end_of_street_bonus_card_comes_after_the_street_before_its_betting():
    table = bonus_table(bonus_timing="end_of_street")
    table.deal("Kd", "Qd", "Jd", "7c", "8c", "9c", "4c")
    assert table.waiting["destination"] == "seat" and table.waiting["seat"] == 2
    table.deal("Ts", "Js")
    assert table.waiting["destination"] == "bonus" and table.waiting["seat"] == 1
    table.deal("2h")
    assert table.waiting["kind"] == "action"
    assert table.player(1).cards[-1].bonus


@pytest.mark.parametrize("accept", [True, False])
def test_priced_bonus_card_is_offered_first_and_the_deal_waits(accept):
    table = bonus_table(bonus_price=5)
    table.deal("Kd", "Qd", "Jd", "7c", "8c", "9c", "4c")
    assert table.waiting == {
        "kind": "bonus",
        "seat": 1,
        "price": 5,
        "legal": [{"do": "bonus", "accept": True}, {"do": "bonus", "accept": False}],
    }
    assert table.refused(Deal(parse_card("2h"))) is Illegal.CARD_NOT_DUE
    table.bonus(1, accept)
    if accept:
        assert table.stacks()[1] == 94
        assert table.player(1).total == 6
        assert table.hand.pot == 8
        assert table.waiting["destination"] == "bonus"
        table.deal("2h")
        assert len(table.player(1).cards) == 4
    else:
        assert table.stacks()[1] == 99
        assert "seat 1 declines the bonus card and stays in" in table.messages()
        assert table.waiting["seat"] == 2 and table.waiting["destination"] == "seat"
        assert not table.player(1).folded


def test_bonus_offer_refuses_another_seat_and_betting_decisions():
    table = bonus_table(bonus_price=5)
    table.deal("Kd", "Qd", "Jd", "7c", "8c", "9c", "4c")
    assert table.refused(Action(Do.BONUS, 2, accept=True)) is Illegal.OUT_OF_TURN
    assert table.refused_act(1, "call") is Illegal.NOT_BETTING


def test_a_player_who_cannot_pay_the_full_price_is_not_offered_the_bonus_card():
    table = Driver({1: 5, 2: 100}, bonus_price=5)
    table.deal("Kd", "Qd", "7c", "8c", "4c")
    assert "seat 1 cannot pay the bonus card price of 5 (has 4): no bonus card" in table.messages()
    assert table.waiting["seat"] == 2 and table.waiting["destination"] == "seat"


def test_paying_the_full_price_with_the_last_chips_is_allowed():
    table = Driver({1: 6, 2: 100}, bonus_price=5)
    table.deal("Kd", "Qd", "7c", "8c", "4c").bonus(1, True)
    assert table.stacks()[1] == 0


def test_four_of_clubs_face_down_earns_nothing():
    table = bonus_table()
    table.deal("4c", "Qd", "Jd", "7c", "8c", "9c", "Kd")
    assert not any("bonus" in m for m in table.messages())
    assert table.waiting["destination"] == "seat"


def test_seven_card_stud_has_no_bonus_card():
    table = bonus_table(variant="seven-card-stud")
    table.deal("Kd", "Qd", "Jd", "7c", "8c", "9c", "4c")
    assert not any("bonus" in m for m in table.messages())
    assert table.waiting["seat"] == 2


# The short deck ------------------------------------------------------------------------


def eight_to_seventh(burn=True):
    """Eight players check every street to seventh street; returns the table before 7th."""
    seats = {seat: 100 for seat in range(1, 9)}
    table = Driver(seats, burn=burn)
    deck = [str(card) for card in sorted(DECK, reverse=True)]
    deck.remove("4c")
    deck.append("4c")  # keep the four of clubs for last: no bonus card in this deal
    table.deal(*deck[:24])
    table.act(table.to_act, "bring_in")
    while table.hand.street == 3:
        table.act(table.to_act, "call")
    position = 24
    for _ in range(3):
        count = 9 if burn else 8
        table.deal(*deck[position : position + count])
        position += count
        while table.waiting["kind"] == "action":
            table.act(table.to_act, "check")
    return table, deck[position:]


def test_eight_players_at_seventh_street_get_a_community_card_from_the_scrambled_burns():
    table, rest = eight_to_seventh()
    assert len(rest) == 1  # 51 cards out: the stub is one card, too few even for a burn
    assert table.hand.scrambled and table.hand.stub == 4  # three burns scrambled back in
    messages = table.messages()
    assert any(m.startswith("not enough cards: community card on seventh street") for m in messages)
    assert any("scramble the 3 burn cards" in m for m in messages)
    assert table.waiting == {
        "kind": "card",
        "destination": "community",
        "face": "up",
        "street": 7,
    }
    burned = str(table.hand.burns[0])
    table.deal(burned)
    assert str(table.hand.community) == burned
    assert table.waiting["kind"] == "action"


def test_without_burns_the_community_card_comes_from_the_stub():
    table, rest = eight_to_seventh(burn=False)
    assert table.hand.stub == 4
    assert table.waiting["destination"] == "community"
    table.deal(rest[0])
    assert str(table.hand.community) == rest[0]


def test_json_round_trip_of_a_state_mid_hand():
    table = bonus_table(bonus_price=5)
    table.deal("Kd", "Qd", "Jd", "7c", "8c", "9c", "4c")
    data = json.loads(json.dumps(table.hand.to_json()))
    assert Hand.from_json(data) == table.hand
    bought = table.bonus(1, True).hand  # the price paid round-trips too
    assert Hand.from_json(json.loads(json.dumps(bought.to_json()))) == bought
    assert bought.player(1).bonus_paid == 5


def test_street_helper_orders_by_seat():
    assert street({6: "Ah", 1: "Kd"}, burn="2c") == ["2c", "Kd", "Ah"]


def test_a_bonus_card_due_when_the_stub_is_empty_comes_from_the_scrambled_burns():
    table = Driver({1: 100, 2: 100})
    table.deal(*third_street({1: "Kd 7c 9s", 2: "Qh 8d Ts"}))
    table.act(1, "bring_in").act(2, "call")
    table.deal("2c")  # the burn before fourth street
    # every other card has left the shoe: only the four of clubs is left
    everything_but_4c = (1 << 52) - 1 - (1 << parse_card("4c"))
    table.hand = table.hand._replace(out=everything_but_4c)
    table.deal("4c")
    assert any("scramble the 1 burn card with" in m for m in table.messages("scramble"))
    assert table.waiting["destination"] == "bonus"
    assert table.hand.stub == 1
    assert table.refused(Deal(parse_card("As"))) is Illegal.CARD_IN_PLAY
    table.deal("2c")
    assert table.player(1).cards[-1].bonus
