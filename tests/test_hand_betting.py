"""Betting: bring-in, first to act, bet sizes, the open pair, the cap, all-ins, folds."""

import pytest
from engine_driver import Driver, street, third_street

from controller.rules import Illegal
from controller.rules.pots import build_pots
from controller.rules.state import Player

DEEP = 1000


def dealt(hands: dict[int, str], stacks: dict[int, int] | None = None, **rules) -> Driver:
    table = Driver(stacks or dict.fromkeys(hands, DEEP), **rules)
    return table.deal(*third_street(hands))


def to_fourth(hands3, up4, stacks=None, **rules) -> Driver:
    """Third street dealt, the bring-in posted and called round, fourth street dealt."""
    table = dealt(hands3, stacks, **rules)
    table.act(table.to_act, "bring_in")
    while table.hand.street == 3:
        table.act(table.to_act, "call")
    return table.deal(*street(up4, burn="2c" if table.hand.rules.burn else None))


def check_round(table: Driver) -> None:
    street_now = table.hand.street
    while table.hand.street == street_now and table.waiting["kind"] == "action":
        table.act(table.to_act, "check")


# Bring-in ------------------------------------------------------------------------------


def test_bring_in_is_the_lowest_up_card_by_rank():
    table = dealt({1: "Kd 7c As", 4: "Qh 8d 9s", 6: "2s 3c 5d"})
    assert table.to_act == 6
    assert "seat 6 has the low card and brings in" in table.messages()


def test_bring_in_ties_broken_by_suit_clubs_lowest():
    table = dealt({1: "Kd 7c 5h", 2: "Qh 8d 5c", 3: "2s 3c 9d"})
    assert table.to_act == 2


@pytest.mark.parametrize(
    ("rules", "seat"),
    [
        ({}, 2),  # wild_bring_in=ace: the 4h counts as the ace of hearts, above Ad
        ({"wild_bring_in": "ace"}, 2),
        ({"wild_bring_in": "natural"}, 1),
        ({"variant": "seven-card-stud"}, 1),
    ],
)
def test_a_wild_up_card_counts_as_an_ace_for_the_bring_in(rules, seat):
    table = dealt({1: "Kd 7c 4h", 2: "Qh 8d Ad"}, **rules)
    assert table.to_act == seat


def test_bring_in_player_posts_or_completes_and_cannot_fold_or_check():
    table = dealt({1: "Kd 7c As", 4: "Qh 8d 9s", 6: "2s 3c 5d"})
    assert table.legal == [("bring_in", 2), ("complete", 5)]
    assert table.refused_act(6, "fold") is Illegal.BRING_IN_DUE
    assert table.refused_act(6, "check") is Illegal.BRING_IN_DUE
    table.act(6, "bring_in")
    assert "seat 6 brings in for 2" in table.messages()
    assert table.to_act == 1
    assert table.legal == [("call", 2), ("complete", 5), ("fold", None)]


def test_bring_in_player_may_complete():
    table = dealt({1: "Kd 7c As", 4: "Qh 8d 9s", 6: "2s 3c 5d"})
    table.act(6, "complete")
    assert table.legal == [("call", 5), ("raise", 10), ("fold", None)]


def test_when_all_call_the_bring_in_the_round_ends_without_an_option():
    table = dealt({1: "Kd 7c As", 4: "Qh 8d 9s", 6: "2s 3c 5d"})
    table.acts((6, "bring_in"), (1, "call"), (4, "call"))
    assert table.hand.street == 4
    assert table.waiting["destination"] == "burn"
    assert table.hand.pot == 9


@pytest.mark.parametrize(("low", "passes_to"), [(1, 4), (6, 1)])
def test_bring_in_passes_left_when_the_low_card_is_all_in_for_the_ante(low, passes_to):
    ups = {1: "As", 4: "9s", 6: "Kd"}
    ups[low] = "2d"
    hands = {
        seat: f"{down} {ups[seat]}" for seat, down in ((1, "Qd 7c"), (4, "Qh 8d"), (6, "3s 3c"))
    }
    stacks = {1: DEEP, 4: DEEP, 6: DEEP}
    stacks[low] = 1
    table = dealt(hands, stacks)
    assert table.to_act == passes_to
    assert f"seat {low} is all-in: the bring-in passes to seat {passes_to}" in table.messages()


def test_a_short_bring_in_still_makes_the_others_call_the_full_bring_in():
    table = dealt({1: "Kd 7c 2s", 2: "Qh 8d 9s", 3: "Jh Jd Ts"}, {1: 2, 2: DEEP, 3: DEEP})
    assert table.legal == [("bring_in", 1)]
    table.act(1, "bring_in")
    assert "seat 1 brings in for 1 (all-in)" in table.messages()
    assert table.legal == [("call", 2), ("complete", 5), ("fold", None)]


# First to act --------------------------------------------------------------------------


THREE3 = {1: "Kd 7c 9s", 4: "Qh 8d Ts", 6: "2s 3c 5d"}


@pytest.mark.parametrize(
    ("up4", "first"),
    [
        ({1: "Ah", 4: "Jd", 6: "6h"}, 1),  # ace high
        ({1: "Ah", 4: "Tc", 6: "6h"}, 4),  # pair of tens beats ace high
        ({1: "4h", 4: "Tc", 6: "6h"}, 4),  # 9s + wild: nines; Ts Tc: tens, higher
        ({1: "4h", 4: "Jc", 6: "6h"}, 1),  # 9s + wild: pair of nines beats jack high
    ],
)
def test_fourth_street_first_to_act_is_the_highest_hand_showing(up4, first):
    table = to_fourth(THREE3, up4)
    assert table.to_act == first


def test_wild_up_card_plays_as_the_best_showing():
    table = to_fourth(THREE3, {1: "4h", 4: "Jc", 6: "6h"})
    assert table.to_act == 1
    assert "fourth street: seat 1 (pair of nines showing) is high" in table.messages()


def test_ties_showing_go_to_the_seat_closest_to_the_dealers_left():
    table = to_fourth({1: "Kd 7c 9s", 4: "Qh 8d 9h", 6: "2s 3c 5d"}, {1: "Jd", 4: "Jh", 6: "6h"})
    assert table.to_act == 1


def test_an_all_in_high_hand_is_skipped_for_the_next_player_on_its_left():
    hands = {1: "Kd 7c 9s", 4: "Qh 8d Ts", 6: "2s 3c 5d"}
    table = to_fourth(hands, {1: "Ah", 4: "Jd", 6: "6h"}, {1: 3, 4: DEEP, 6: DEEP})
    assert table.player(1).stack == 0
    assert table.to_act == 4


def play_to_sixth(hands, up4, up5, up6, **rules):
    table = to_fourth(hands, up4, **rules)
    check_round(table)
    table.deal(*street(up5, burn="2d"))
    check_round(table)
    return table.deal(*street(up6, burn="2h"))


def test_straights_and_flushes_showing_do_not_count_and_seventh_acts_as_sixth():
    table = play_to_sixth(
        {1: "Kd 7c 9s", 4: "Qh 8d Ts", 6: "Ad 3c 5d"},
        {1: "Jd", 4: "6h", 6: "6c"},
        {1: "Th", 4: "7h", 6: "Kh"},
        {1: "8s", 4: "9h", 6: "Js"},
    )
    # seat 4 shows Ts 6h 7h 9h (a straight-flush draw): ten high; seat 6: A-K high
    assert table.to_act == 6
    check_round(table)
    table.deal("3h", "Ac", "Qc", "Qs")
    assert table.hand.street == 7
    assert table.to_act == 6


# Bet sizes and the open pair -----------------------------------------------------------


def test_small_bet_on_third_and_fourth_big_bet_from_fifth():
    table = to_fourth(THREE3, {1: "Ah", 4: "Jd", 6: "6h"})
    assert table.legal == [("check", None), ("bet", 5), ("fold", None)]
    check_round(table)
    table.deal("2d", "Jh", "Qd", "6d")
    assert table.legal == [("check", None), ("bet", 10), ("fold", None)]


def test_custom_amounts():
    table = dealt(THREE3, ante=3, bring_in=4, small_bet=8, big_bet=16)
    assert table.hand.pot == 9
    assert table.legal == [("bring_in", 4), ("complete", 8)]
    table.act(6, "complete")
    assert table.legal == [("call", 8), ("raise", 16), ("fold", None)]


@pytest.mark.parametrize("up", ["Tc", "4h"])
def test_open_pair_lets_a_player_bet_either_size_and_raises_follow(up):
    table = to_fourth(THREE3, {1: "Ah", 4: up, 6: "6h"})
    assert any("open pair" in m for m in table.messages())
    seat = table.to_act
    assert table.legal == [("check", None), ("bet", 5), ("bet", 10), ("fold", None)]
    assert table.refused_act(seat, "bet") is Illegal.AMOUNT_NEEDED
    assert table.refused_act(seat, "bet", 15) is Illegal.WRONG_AMOUNT
    table.act(seat, "bet", 10)
    assert table.legal == [("call", 10), ("raise", 20), ("fold", None)]


def test_open_pair_after_a_small_bet_a_raise_may_be_either_size_until_a_big_one():
    # Robert's Rules: "if the lower amount is bet, any player may raise by the lower or
    # the higher amount; once the higher amount is bet or raised, all later bets and
    # raises are at the higher amount"
    table = to_fourth(THREE3, {1: "Ah", 4: "Tc", 6: "6h"})
    table.act(4, "bet", 5)
    assert table.legal == [("call", 5), ("raise", 10), ("raise", 15), ("fold", None)]
    assert table.refused_act(6, "raise") is Illegal.AMOUNT_NEEDED
    table.act(6, "raise", 10)  # by the small bet: both sizes stay open
    assert table.legal == [("call", 10), ("raise", 15), ("raise", 20), ("fold", None)]
    table.act(1, "raise", 20)  # by the big bet: every later wager is big
    assert table.hand.size == 10
    assert table.legal == [("call", 20), ("raise", 30), ("fold", None)]


def test_open_pair_option_off():
    table = to_fourth(THREE3, {1: "Ah", 4: "Tc", 6: "6h"}, open_pair_big_bet=False)
    assert table.legal == [("check", None), ("bet", 5), ("fold", None)]
    assert not any("open pair" in m for m in table.messages())


# The cap -------------------------------------------------------------------------------

FOUR3 = {1: "Kd 7c 9s", 2: "Qh 8d Ts", 3: "2s 3c 5d", 5: "Ah Ad Jc"}


def test_a_completion_and_three_raises_then_betting_is_capped():
    table = dealt(FOUR3)
    table.acts((3, "bring_in"), (5, "complete"), (1, "raise"), (2, "raise"), (3, "raise"))
    assert table.legal == [("call", 20), ("fold", None)]
    assert table.refused_act(5, "raise") is Illegal.RAISE_CLOSED


def test_max_raises_setting():
    table = dealt(FOUR3, max_raises=1)
    table.acts((3, "bring_in"), (5, "complete"), (1, "raise"))
    assert table.legal == [("call", 10), ("fold", None)]


def heads_up_capped(**rules):
    table = dealt({1: "Kd 7c 9s", 2: "Qh 8d 2s"}, **rules)
    table.acts((2, "bring_in"), (1, "complete"), (2, "raise"), (1, "raise"), (2, "raise"))
    return table


@pytest.mark.parametrize(
    ("mode", "capped"), [("any_time", False), ("round_start", False), ("never", True)]
)
def test_heads_up_from_the_start(mode, capped):
    table = heads_up_capped(heads_up_uncapped=mode)
    expected = (
        [("call", 20), ("fold", None)] if capped else [("call", 20), ("raise", 25), ("fold", None)]
    )
    assert table.legal == expected


@pytest.mark.parametrize(("mode", "capped"), [("any_time", False), ("round_start", True)])
def test_heads_up_after_a_fold_in_the_round(mode, capped):
    table = dealt({1: "Kd 7c 9s", 2: "Qh 8d 2s", 3: "Jh Jd Ts"}, heads_up_uncapped=mode)
    table.acts((2, "bring_in"), (3, "complete"), (1, "raise"), (2, "raise"), (3, "fold"))
    table.act(1, "raise")
    assert table.hand.wagers == 4
    has_raise = ("raise", 25) in table.legal
    assert has_raise is not capped


# All-ins -------------------------------------------------------------------------------


def fifth_street_with(stack2):
    """Three players reach fifth street with seat 2 holding ``stack2`` chips behind."""
    hands = {1: "Kd 7c 9s", 2: "Qh 8d Ts", 3: "Ad 3c 5d"}
    table = to_fourth(hands, {1: "Jd", 2: "6h", 3: "6c"}, {1: DEEP, 2: stack2 + 3, 3: DEEP})
    check_round(table)
    table.deal(*street({1: "Jh", 2: "Qd", 3: "7d"}, burn="2d"))
    assert table.player(2).stack == stack2
    return table


def test_an_all_in_raise_of_less_than_half_a_bet_does_not_reopen_the_betting():
    table = fifth_street_with(14)
    assert table.to_act == 1  # pair of jacks showing
    table.act(1, "bet")
    assert table.legal == [("call", 10), ("raise", 14), ("fold", None)]
    table.act(2, "raise", 14)
    assert "seat 2 raises to 14 (all-in)" in table.messages()
    # seat 3 has not acted: may call 14 or raise to the full level plus a bet
    assert table.legal == [("call", 14), ("raise", 20), ("fold", None)]
    table.act(3, "call")
    # seat 1 already acted: only call or fold
    assert table.legal == [("call", 14), ("fold", None)]
    assert table.refused_act(1, "raise") is Illegal.RAISE_CLOSED
    assert table.hand.wagers == 1


def test_an_all_in_raise_of_half_a_bet_or_more_reopens_the_betting():
    table = fifth_street_with(15)
    table.acts((1, "bet"), (2, "raise", 15), (3, "call"))
    assert table.legal == [("call", 15), ("raise", 25), ("fold", None)]
    assert table.hand.wagers == 2


def test_a_player_who_cannot_cover_the_call_may_only_call_all_in_or_fold():
    table = fifth_street_with(7)
    table.act(1, "bet")
    assert table.legal == [("call", 7), ("fold", None)]


def test_no_raise_when_no_opponent_has_chips_left():
    table = fifth_street_with(14)
    table.acts((1, "bet"), (2, "raise", 14), (3, "fold"))
    assert table.legal == [("call", 14), ("fold", None)]


def test_everyone_folds_to_one_player_and_the_hand_ends_at_once():
    table = dealt({1: "Kd 7c As", 4: "Qh 8d 9s", 6: "2s 3c 5d"})
    table.acts((6, "bring_in"), (1, "complete"), (4, "fold"), (6, "fold"))
    assert table.hand.over and table.hand.waiting_for is None
    assert table.stacks() == {1: DEEP + 4, 4: DEEP - 1, 6: DEEP - 3}
    assert "pot of 10 to seat 1: all others folded" in table.messages()
    assert table.refused_act(1, "check") is Illegal.HAND_OVER


def test_streets_are_dealt_without_betting_when_at_most_one_player_can_bet():
    table = dealt({1: "Kd 7c 2s", 2: "Qh 8d 9s"}, {1: 4, 2: DEEP})
    table.acts((1, "complete"), (2, "call"))
    assert table.player(1).stack == 0
    table.deal("2c", "Ah", "Ac")
    assert "no betting on fourth street: at most one player can bet" in table.messages()
    assert table.waiting["destination"] == "burn"
    table.deal("2d", "Kh", "Kc", "2h", "Jh", "Jc", "3c", "5s", "6s")
    assert table.hand.over
    assert sum(table.stacks().values()) == DEEP + 4


# Binding folds -------------------------------------------------------------------------


def test_a_fold_in_turn_with_nothing_to_call_is_legal_and_binding():
    table = to_fourth(THREE3, {1: "Ah", 4: "Jd", 6: "6h"})
    seat = table.to_act
    assert ("fold", None) in table.legal
    table.act(seat, "fold")
    assert table.player(seat).folded
    assert f"seat {seat} folds" in table.messages("decision")


def test_a_fold_out_of_turn_stands_and_the_action_does_not_move():
    table = dealt({1: "Kd 7c As", 4: "Qh 8d 9s", 6: "2s 3c 5d"})
    table.act(6, "bring_in")
    assert table.to_act == 1
    legal = table.legal
    table.act(4, "fold")  # seat 4 throws its cards in before seat 1 acts
    assert table.player(4).folded
    assert table.to_act == 1 and table.legal == legal
    folds = [e for e in table.effects if e.kind == "decision" and e.data.get("out_of_turn")]
    assert [e.message for e in folds] == ["seat 4 folds out of turn"]
    assert folds[0].data == {"seat": 4, "do": "fold", "pot": 5, "out_of_turn": True}
    table.act(1, "call")  # seat 4's turn is skipped: the round is over
    assert table.hand.street == 4
    assert table.waiting["destination"] == "burn"


def test_a_fold_out_of_turn_that_leaves_one_player_ends_the_hand():
    table = dealt({1: "Kd 7c As", 4: "Qh 8d 9s"})
    table.act(4, "bring_in")
    table.act(4, "fold")  # out of turn: seat 1 is to act
    assert table.hand.over
    assert "pot of 4 to seat 1: all others folded" in table.messages()


def test_only_a_fold_is_taken_out_of_turn_and_only_in_a_betting_round():
    table = dealt({1: "Kd 7c As", 4: "Qh 8d 9s", 6: "2s 3c 5d"})
    table.act(6, "bring_in")
    refusal = table.refusal_act(4, "call")
    assert refusal.code is Illegal.OUT_OF_TURN  # and the words say it for people:
    assert str(refusal) == "seat 4 cannot call: out of turn (seat 1 to act)"
    assert table.refused_act(4, "raise") is Illegal.OUT_OF_TURN
    table.act(4, "fold")
    assert table.refused_act(4, "fold") is Illegal.FOLDED
    table.acts((1, "call"))
    assert table.waiting["kind"] == "card"  # dealing fourth street: no fold now
    assert table.refused_act(1, "fold") is Illegal.NOT_BETTING


# Refusals ------------------------------------------------------------------------------


def test_out_of_turn_unknown_seat_and_folded_seat_are_refused_naming_the_reason():
    table = dealt({1: "Kd 7c As", 4: "Qh 8d 9s", 6: "2s 3c 5d"})
    assert table.refused_act(1, "call") is Illegal.OUT_OF_TURN
    assert table.refused_act(9, "call") is Illegal.UNKNOWN_SEAT
    table.acts((6, "bring_in"), (1, "fold"))
    assert table.refused_act(1, "call") is Illegal.FOLDED
    assert table.refused_act(4, "check") is Illegal.FACING_BET


def test_over_the_limit_is_refused():
    table = dealt({1: "Kd 7c As", 4: "Qh 8d 9s", 6: "2s 3c 5d"})
    table.act(6, "bring_in")
    assert table.refused_act(1, "complete", 10) is Illegal.WRONG_AMOUNT
    assert table.refused_act(1, "complete", 4) is Illegal.WRONG_AMOUNT


# Side pots -----------------------------------------------------------------------------


def test_side_pots_layer_at_each_all_in_total():
    players = [
        Player(1, 10, 0, total=10),
        Player(2, 20, 0, total=20),
        Player(3, 30, 0, total=30),
        Player(4, 100, 60, total=40),
        Player(5, 100, 95, folded=True, total=5),
    ]
    pots = build_pots(players)
    assert [(p.amount, p.eligible) for p in pots] == [
        (45, (1, 2, 3, 4)),
        (30, (2, 3, 4)),
        (20, (3, 4)),
        (10, (4,)),
    ]


def test_a_bought_bonus_card_is_dead_money_in_the_main_pot():
    players = [
        Player(1, 20, 0, total=20, bonus_paid=5),  # all-in: 15 in antes and bets, 5 the price
        Player(2, 100, 85, total=15),
        Player(3, 100, 85, total=15),
    ]
    pots = build_pots(players)
    assert [(p.amount, p.eligible) for p in pots] == [(50, (1, 2, 3))]


def test_the_bonus_price_is_never_a_layer_only_the_buyer_can_win():
    players = [
        Player(1, 11, 0, total=11),  # all-in
        Player(2, 100, 84, total=16, bonus_paid=5),
    ]
    assert [(p.amount, p.eligible) for p in build_pots(players)] == [(27, (1, 2))]


def test_a_folded_buyers_price_stays_in_the_main_pot():
    players = [
        Player(1, 11, 0, total=11),  # all-in
        Player(2, 100, 79, total=21, bonus_paid=5),
        Player(3, 100, 84, total=16, folded=True),
    ]
    # stakes 11, 16, 16 (folded): main pot 33 plus the dead 5; 5 + 5 above seat 1's total
    assert [(p.amount, p.eligible) for p in build_pots(players)] == [(38, (1, 2)), (10, (2,))]


def test_the_floor_audits_bonus_price_hand_pays_one_pot_to_the_all_in_winner():
    table = dealt({1: "Kd Ks Kh", 2: "2c 3d 7c"}, {1: 11, 2: 100}, bonus_price=5)
    table.acts((2, "bring_in"), (1, "complete"), (2, "raise"), (1, "call"))
    table.deal("5h Kc 4c").bonus(2, True).deal("9h", "5d Tc Jd", "5c 8d Qs", "6h 9c 2s")
    assert table.hand.player(2).bonus_paid == 5
    assert [(p.amount, p.eligible, p.winners) for p in table.hand.pots] == [(27, (1, 2), (1,))]
    assert table.stacks() == {1: 27, 2: 84}
    assert "pot of 27 to seat 1: Four kings, ten kicker" in table.messages("award")


def test_the_high_hand_all_in_is_named_and_the_next_player_acts_first():
    hands = {1: "Kd 7c 9s", 4: "Qh 8d Ts", 6: "2s 3c 5d"}
    table = to_fourth(hands, {1: "Ah", 4: "Jd", 6: "6h"}, {1: 3, 4: DEEP, 6: DEEP})
    assert "fourth street: seat 1 (ace high showing) is high; seat 4 acts first" in table.messages()
