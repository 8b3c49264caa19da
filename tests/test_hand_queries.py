"""The engine's query API: which seat holds a card, how it lies, the cards out of the shoe,
the stacks, the bonus lamps' seats, the reload the short deck asks for, the pots as they
stand, and a hand made again from its starting stacks and its inputs. (Properties over
random hands: ``test_hand_properties.py``.)"""

from __future__ import annotations

import pytest

from controller.rules import (
    Action,
    Deal,
    Do,
    Illegal,
    IllegalInput,
    Rules,
    parse_card,
    parse_cards,
    replay,
)
from controller.rules.state import Dealt
from tests.engine_driver import Driver, street, third_street
from tests.test_hand_corrections import fourth_street
from tests.test_hand_deal import eight_to_seventh


def test_a_card_is_held_by_the_seat_it_was_dealt_to_and_lies_as_dealt():
    table = fourth_street()
    table.deal(*street({1: "Jc", 2: "5h"}, burn="3d"))
    hand = table.hand
    assert hand.holder(parse_card("Kd")) == 1 and hand.holder(parse_card("5h")) == 2
    assert hand.dealt(parse_card("Kd")) == Dealt(parse_card("Kd"), False, 3)
    assert hand.dealt(parse_card("5h")) == Dealt(parse_card("5h"), True, 4)
    for card in parse_cards("3d Ah"):  # a burn card, a card still in the shoe
        assert hand.holder(card) is None and hand.dealt(card) is None


def test_a_folded_player_still_holds_their_cards():
    table = fourth_street()
    table.deal(*street({1: "Jc", 2: "5h"}, burn="3d"))
    table.act(table.to_act, "bet").act(table.to_act, "fold")
    assert table.hand.over
    assert {table.hand.holder(card) for card in parse_cards("Kd 7c 2s Jc")} == {1}
    assert {table.hand.holder(card) for card in parse_cards("Qh 8d 9s 5h")} == {2}


def test_the_cards_out_are_every_card_dealt_burn_included_and_follow_a_correction():
    table = fourth_street()
    table.deal(*street({1: "Jc", 2: "5h"}, burn="3d"))
    dealt = set(parse_cards("Kd 7c 2s Qh 8d 9s 3d Jc 5h"))
    assert table.hand.cards_out() == dealt
    assert all(table.hand.is_out(card) for card in dealt)
    assert not table.hand.is_out(parse_card("3h"))
    table.feed(Action(Do.CORRECT, card=parse_card("3h"), was=parse_card("3d")))
    assert table.hand.cards_out() == dealt - {parse_card("3d")} | {parse_card("3h")}
    table.feed(Action(Do.CORRECT, card=parse_card("Kh"), was=parse_card("Kd")))
    assert table.hand.holder(parse_card("Kh")) == 1 and table.hand.holder(parse_card("Kd")) is None
    assert table.hand.stub == 52 - len(table.hand.cards_out())


def test_stacks_now_and_at_the_start():
    table = Driver({1: 100, 4: 30}, ante=1, bring_in=2)
    assert table.hand.seats == (1, 4)
    assert table.hand.starting_stacks() == {1: 100, 4: 30}
    assert table.hand.stacks() == {1: 99, 4: 29}
    table.deal(*third_street({1: "Kd 7c 2s", 4: "Qh 8d 9s"}))
    table.act(1, "bring_in").act(4, "fold")
    assert table.hand.stacks() == {1: 101, 4: 29}  # both antes back, and the bring-in
    assert table.hand.starting_stacks() == {1: 100, 4: 30}


def test_the_bonus_seats_are_those_whose_bonus_card_is_due_or_on_offer():
    table = Driver({1: 100, 2: 100, 3: 100}, bonus_price=5, bonus_timing="end_of_street")
    table.deal("Kd", "Qd", "Jd", "7c", "8c", "9c")
    assert table.hand.bonus_seats() == ()
    table.deal("4c")  # seat 1's four of clubs face up: the offer waits for the street's end
    assert table.hand.bonus_seats() == (1,)
    table.deal("Ah", "As")
    assert table.waiting["kind"] == "bonus" and table.hand.bonus_seats() == (1,)
    table.bonus(1, True)
    assert table.waiting["destination"] == "bonus" and table.hand.bonus_seats() == (1,)
    table.deal("2d")
    assert table.hand.bonus_seats() == ()
    assert table.hand.dealt(parse_card("2d")) == Dealt(parse_card("2d"), False, 3, bonus=True)


def test_a_declined_or_unearned_bonus_card_lights_no_seat_and_a_dead_card_has_no_holder():
    declined = Driver({1: 100, 2: 100}, bonus_price=5)
    declined.deal("Kd", "Qd", "7c", "8c", "4c")
    assert declined.hand.bonus_seats() == (1,)
    declined.bonus(1, False)
    assert declined.hand.bonus_seats() == ()
    dead = Driver({1: 100, 2: 100})
    dead.deal("Kd", "Qd", "7c", "8c", "4c", "2d")  # the bonus card, dealt at once
    dead.feed(Action(Do.CORRECT, card=parse_card("4h"), was=parse_card("4c")))
    assert "dead card" in dead.messages("dead_card")[0]
    assert dead.hand.holder(parse_card("2d")) is None and dead.hand.is_out(parse_card("2d"))


def test_the_reload_expected_is_the_stub_and_the_scrambled_burns():
    table, _ = eight_to_seventh()
    hand = table.hand
    assert len(hand.scrambled_burns) == 3 and set(hand.scrambled_burns) == set(hand.burns)
    assert hand.expects_reload(hand.stub) and hand.stub == 4
    assert not hand.expects_reload(hand.stub - 1) and not hand.expects_reload(52)
    plain = fourth_street()
    plain.deal(*street({1: "Jc", 2: "5h"}, burn="3d"))
    assert plain.hand.scrambled_burns == ()
    assert not plain.hand.expects_reload(plain.hand.stub)


def test_the_pots_stand_before_the_award_and_are_the_award_after():
    table = Driver({1: 100, 2: 40, 3: 100})
    table.deal(*third_street({1: "Kd 7c 2s", 2: "Qh 8d 9s", 3: "Jh 8s Ts"}))
    table.act(1, "bring_in").act(2, "complete").act(3, "call").act(1, "call")
    standing = table.hand.current_pots()
    assert sum(pot.amount for pot in standing) == table.hand.pot
    assert all(pot.winners == () for pot in standing)
    void = table.feed(Action(Do.VOID)).hand
    assert void.current_pots() == ()


def test_replay_makes_the_hand_again_from_its_starting_stacks_and_inputs():
    table = fourth_street()
    table.deal(*street({1: "Jc", 2: "5h"}, burn="3d"))
    table.feed(Action(Do.CORRECT, card=parse_card("Kh"), was=parse_card("Kd")))
    table.act(table.to_act, "bet").act(table.to_act, "raise")
    log = [
        *(Deal(card) for card in parse_cards("Kd Qh 7c 8d 2s 9s")),
        Action(Do.BRING_IN, 1),
        Action(Do.CALL, 2),
        *(Deal(card) for card in parse_cards("3d Jc 5h")),
        Action(Do.CORRECT, card=parse_card("Kh"), was=parse_card("Kd")),
        Action(Do.BET, 1),
        Action(Do.RAISE, 2),
    ]
    again = replay(table.hand.rules, table.hand.starting_stacks(), log)
    assert again.hand == table.hand
    assert [e.to_json() for e in again.effects] == [e.to_json() for e in table.effects]


def test_replay_names_the_input_it_refuses():
    log = [Deal(parse_card("Kd")), Deal(parse_card("Kd"))]
    with pytest.raises(IllegalInput, match=r"^input 1 \(") as caught:
        replay(Rules(), {1: 100, 2: 100}, log)
    assert caught.value.code is Illegal.CARD_IN_PLAY
