"""Rules audit: floor rulings the engine must make, each outcome worked out by hand.

Where the documents and the brief are silent, Robert's Rules of Poker is the floor's
reference (for the cap: it applies "for a pot involving three or more players who are
not all-in").
"""

import io
import json
import random
import sys

import pytest
from engine_driver import Driver, street, third_street
from test_hand_properties import next_card, random_rules

from controller.cli import main
from controller.rules import Illegal
from controller.rules.betting import showing_key
from controller.rules.cards import DECK, Card, parse_card, parse_cards
from controller.rules.hand import Hand, start_hand
from controller.rules.inputs import Action, Deal, Do

DEEP = 1000
# Seat 2 has the low card (2s) and brings in; seat 3 then seat 1 act after it.
THREE = {1: "Kd 7c 9s", 2: "Qh 8d 2s", 3: "Jh Jd Ts"}


def dealt(hands: dict[int, str], stacks: dict[int, int] | None = None, **rules) -> Driver:
    table = Driver(stacks or dict.fromkeys(hands, DEEP), **rules)
    return table.deal(*third_street(hands))


# The cap heads-up ----------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["any_time", "round_start", "never"])
def test_a_cap_reached_three_handed_stays_capped_after_a_fold(mode):
    table = dealt(THREE, heads_up_uncapped=mode)
    # bring-in 2, completion to 5, raises to 10, 15, 20: capped with three players in
    table.acts((2, "bring_in"), (3, "complete"), (1, "raise"), (2, "raise"), (3, "raise"))
    assert table.legal == [("call", 20), ("fold", None)]
    table.act(1, "fold")
    # Robert's Rules: "once the raising is capped on a betting round, it cannot be
    # uncapped by a subsequent fold"
    assert table.to_act == 2
    assert table.legal == [("call", 20), ("fold", None)]
    assert table.refused_act(2, "raise") is Illegal.RAISE_CLOSED


@pytest.mark.parametrize("mode", ["any_time", "round_start", "never"])
def test_a_cap_reached_three_handed_stays_capped_after_an_all_in_call(mode):
    # the floor audit's hand: raises to 20 three-handed, seat 2 calls 20 all-in, leaving
    # two players with chips; seat 3 is not offered a raise to 25
    table = dealt(THREE, {1: DEEP, 2: 21, 3: DEEP}, heads_up_uncapped=mode)
    table.acts((2, "bring_in"), (3, "complete"), (1, "raise"), (2, "raise"), (3, "call"))
    table.act(1, "raise")  # to 20: the fourth full wager, three players with chips
    table.act(2, "call")  # 20, all-in
    assert table.player(2).stack == 0
    assert table.to_act == 3
    assert table.legal == [("call", 20), ("fold", None)]


def fourth_street_with_seat_3_all_in(**rules) -> Driver:
    """Seat 3 calls the bring-in all-in on third street; seats 1 and 2 play on."""
    table = dealt(THREE, {1: DEEP, 2: DEEP, 3: 3}, **rules)
    table.acts((2, "bring_in"), (3, "call"), (1, "call"))
    assert table.player(3).stack == 0
    # up cards: seat 1 9s 3d, seat 2 2s 5h, seat 3 Ts 6c: seat 3 is high but all-in
    table.deal(*street({1: "3d", 2: "5h", 3: "6c"}, burn="2c"))
    assert table.to_act == 1
    # bet 5 and three raises: 10, 15, 20
    table.acts((1, "bet"), (2, "raise"), (1, "raise"), (2, "raise"))
    assert table.hand.wagers == 4
    return table


@pytest.mark.parametrize(
    ("mode", "capped"), [("any_time", False), ("round_start", False), ("never", True)]
)
def test_an_all_in_player_does_not_count_against_heads_up(mode, capped):
    # Two players who are not all-in are heads-up: the third, all-in, cannot be squeezed.
    table = fourth_street_with_seat_3_all_in(heads_up_uncapped=mode)
    assert table.to_act == 1
    expected = [("call", 20), ("fold", None)]
    if not capped:
        expected.insert(1, ("raise", 25))
    assert table.legal == expected


def test_heads_up_once_a_third_player_is_all_in_before_the_cap():
    table = dealt(THREE, {1: DEEP, 2: DEEP, 3: 13})  # seat 3: 12 behind after the ante
    table.acts((2, "bring_in"), (3, "complete"), (1, "raise"), (2, "raise"))
    table.act(3, "call")  # all-in for 12, short of 15
    assert table.player(3).stack == 0
    table.act(1, "raise")  # to 20: the fourth full wager, made heads-up
    assert table.hand.wagers == 4
    assert table.to_act == 2
    assert table.legal == [("call", 20), ("raise", 25), ("fold", None)]


# The open-pair option ------------------------------------------------------------------


def test_an_all_in_bet_below_half_a_bet_leaves_the_open_pair_choice_open():
    # Seat 3 brings in with 2 left; on fourth street seat 2 shows a pair of nines.
    table = dealt({1: "Kd 7c As", 2: "Qh 8d 9s", 3: "2s 3c 5d"}, {1: DEEP, 2: DEEP, 3: 5})
    table.acts((3, "bring_in"), (1, "call"), (2, "call"))
    table.deal(*street({1: "Jd", 2: "9h", 3: "Kc"}, burn="2c"))
    assert table.to_act == 2
    table.act(2, "check")
    table.act(3, "bet")  # all-in for 2: not a bet of either size, nothing is chosen
    # seat 1 has not acted: call, or make it a full bet of either size
    assert table.legal == [("call", 2), ("raise", 5), ("raise", 10), ("fold", None)]
    table.act(1, "raise", 10)
    # the big bet was chosen: raises follow it
    assert table.legal == [("call", 10), ("raise", 20), ("fold", None)]


# The replay contract -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ('{"seats": {"1": 100, "1": 50, "2": 100}}', "duplicate key '1'"),
        ('{"seats": {"1": 100, "2": 100}, "rules": {"ante": 1, "ante": 2}}', "duplicate key"),
        ('{"seats": {"1": 100, "2": 100}, "seats": {"3": 100, "4": 100}}', "duplicate key"),
        ('{"seats": {"1": 100, "01": 50, "2": 100}}', "'01' is not a seat"),
        ('{"seats": {"1": 100, "+2": 50}}', "'+2' is not a seat"),
        (
            '{"seats": {"1": 100, "2": 100}, "actions": [{"seat": 9, "do": "bring_in"}]}',
            "actions[0]: seat 9 is not a seat (seats are 1 to 8)",
        ),
        (
            '{"seats": {"1": 100, "2": 100}, "actions": [{"seat": 0, "do": "fold"}]}',
            "actions[0]: seat 0 is not a seat",
        ),
    ],
)
def test_a_script_that_is_not_valid_is_refused_with_exit_status_2(capsys, script, message):
    sys_stdin = sys.stdin
    sys.stdin = io.StringIO(script)
    try:
        status = main(["replay", "-", "--json"])
    finally:
        sys.stdin = sys_stdin
    result = json.loads(capsys.readouterr().out)
    assert status == 2
    assert result["status"] == "error"
    assert message in result["error"]["message"]


# Refusals ------------------------------------------------------------------------------


def test_an_exposure_without_its_card_is_refused_by_name():
    table = Driver({1: 100, 2: 100})
    table.deal("Kd", "Qd")
    assert table.refused(Action(Do.EXPOSE, 1)) is Illegal.MALFORMED


def test_a_bonus_decision_without_accept_or_decline_is_refused_not_taken_as_a_decline():
    table = Driver({1: 100, 2: 100}, bonus_price=5)
    table.deal(*third_street({1: "Kd 7c 4c", 2: "Qd 8d 9s"})[:5])
    assert table.waiting["kind"] == "bonus"
    assert table.refused(Action(Do.BONUS, 1)) is Illegal.MALFORMED


# Short deck at seventh street ----------------------------------------------------------


def play_to_the_end(table: Driver, order: list[Card]) -> list[str]:
    """Deal the first card of ``order`` not yet out whenever a card is due, check or call
    (bringing in on third street); returns the seventh street's card destinations."""
    seventh = []
    while (waiting := table.hand.waiting_for) is not None:
        if waiting.kind == "card":
            card = next(card for card in order if not table.hand.out >> card & 1)
            if table.hand.street == 7:
                seventh.append(waiting.destination.value)
            table.feed(Deal(card))
        else:
            legal = [do for do, _ in table.legal]
            table.act(table.to_act, next(do for do in ("check", "bring_in", "call") if do in legal))
    return seventh


@pytest.mark.parametrize(
    ("players", "burn", "bonus", "out_before_seventh", "seventh", "scrambled"),
    [
        # 7 players: 21 on third street, 3 x (burn + 7) = 45; a burn and 7 cards need 8
        # of the 7 left: no burn, a card to each
        (7, True, False, 45, ["seat"] * 7, False),
        # with the bonus card 6 are left: the 3 burns are scrambled back, 9 for 7 players
        (7, True, True, 46, ["seat"] * 7, True),
        # without burns: 21 + 21 = 42, 10 left for 7 players
        (7, False, False, 42, ["seat"] * 7, False),
        (7, False, True, 43, ["seat"] * 7, False),
        # 8 players: 24 + 3 x 9 = 51, one card left, 4 with the burns: the community card
        # from the scrambled burns
        (8, True, False, 51, ["community"], True),
        (8, True, True, 52, ["community"], True),
        # without burns: 24 + 24 = 48, 4 left for 8 players: the community card, no burn
        (8, False, False, 48, ["community"], False),
        (8, False, True, 49, ["community"], False),
    ],
)
def test_the_52_cards_at_seventh_street(
    players, burn, bonus, out_before_seventh, seventh, scrambled
):
    four_of_clubs = parse_card("4c")
    order = [card for card in DECK if card != four_of_clubs]
    first_up_on_fourth = 3 * players + (1 if burn else 0)
    # with a bonus: the four of clubs is seat 1's fourth-street card; otherwise last
    order.insert(first_up_on_fourth if bonus else len(order), four_of_clubs)
    table = Driver(dict.fromkeys(range(1, players + 1), 100), burn=burn)
    got = play_to_the_end(table, order)
    assert got == seventh
    bonus_cards = [d for p in table.hand.players for d in p.cards if d.bonus]
    assert len(bonus_cards) == (1 if bonus else 0)
    held = sum(len(p.cards) for p in table.hand.players)
    burns = len(table.hand.burns)
    community = table.hand.community is not None
    assert held + burns + community == out_before_seventh + len(seventh)
    assert table.hand.scrambled is scrambled
    assert table.hand.phase.value == "complete"


@pytest.mark.parametrize(("folds", "seventh"), [(1, ["seat"] * 7), (2, ["burn"] + ["seat"] * 6)])
def test_eight_players_with_folds_use_the_burns_before_a_community_card(folds, seventh):
    # one fold on third street: 24 + 3 x (burn + 7) = 48, 4 left and 3 burns for 7 players:
    # scrambled, every player gets a card; two folds: 24 + 3 x 7 = 45, a burn and 6 fit
    order = [card for card in DECK if card != parse_card("4c")] + [parse_card("4c")]  # down
    table = Driver(dict.fromkeys(range(1, 9), 100))
    table.deal(*(str(card) for card in order[:24]))
    table.act(table.to_act, "bring_in")
    for _ in range(folds):
        table.act(table.to_act, "fold")
    assert play_to_the_end(table, order) == seventh
    assert table.hand.community is None
    assert table.hand.scrambled is (folds == 1)
    assert sum(m.startswith("short deck on seventh street") for m in table.messages()) == (
        folds == 1
    )


def test_seven_players_one_folded_on_third_street_all_get_a_seventh_street_card():
    # 21 on third street, 3 x (burn + 6) = 42: a burn and 6 cards fit in the 10 left
    order = list(DECK)
    order.remove(parse_card("4c"))
    table = Driver(dict.fromkeys(range(1, 8), 100))
    table.deal(*(str(card) for card in order[:21]))
    table.act(table.to_act, "bring_in")
    table.act(table.to_act, "fold")
    assert play_to_the_end(table, order) == ["burn"] + ["seat"] * 6


# The bonus card and the void -----------------------------------------------------------


@pytest.mark.parametrize("timing", ["immediate", "end_of_street"])
def test_no_one_can_fold_while_a_bonus_card_is_due(timing):
    # The bonus card is dealt before the street's betting in both timings: a fold (or any
    # betting decision) before it is refused, and the bonus player gets the card.
    table = Driver({1: 100, 2: 100, 3: 100}, bonus_timing=timing)
    table.deal("Kd", "Qd", "Jd", "7c", "8c", "9c", "Ah", "4c")  # seat 2's up card
    waiting = "bonus" if timing == "immediate" else "seat"
    assert table.waiting["destination"] == waiting
    for seat in (1, 2, 3):
        assert table.refused_act(seat, "fold") is Illegal.NOT_BETTING
    table.deal("Ts")  # immediate: the bonus card; end of street: seat 3's up card
    assert table.waiting["destination"] == ("seat" if timing == "immediate" else "bonus")
    assert table.refused_act(2, "fold") is Illegal.NOT_BETTING
    table.deal("Js")
    assert table.player(2).cards[-1].bonus
    assert table.waiting["kind"] == "action"


def test_void_returns_a_bought_bonus_card_and_every_bet():
    table = Driver({1: 60, 2: 40, 3: 7}, bonus_price=5)
    # seat 1: 4c up, buys the bonus card (the Js); seat 3 (2s) brings in
    table.deal("Kd", "Qh", "3s", "7c", "8d", "3c", "4c")
    table.bonus(1, True)
    table.deal("Js", "9s", "2s")
    table.acts((3, "bring_in"), (1, "complete"), (2, "call"), (3, "call"))
    assert table.stacks() == {1: 49, 2: 34, 3: 1}
    assert table.player(1).bonus_paid == 5
    table.feed(Action(Do.VOID))
    assert table.stacks() == {1: 60, 2: 40, 3: 7}
    assert table.hand.pot == 0
    assert table.player(1).bonus_paid == 0  # the price went back with every other chip
    assert "every chip goes back" in table.messages("void")[0]


def test_void_during_a_manual_showdown_returns_every_chip():
    table = Driver({1: 50, 2: 50}, showdown="manual", burn=False)
    table.deal(*third_street({1: "Kd 7c As", 2: "Qh 8d 9s"}))
    table.acts((2, "bring_in"), (1, "call"))
    for cards in ("Ah 9h", "Kh Th", "Qs 3d", "2c 2d"):
        table.deal(*cards.split())
        table.acts((1, "check"), (2, "check"))
    assert table.waiting["kind"] == "show"
    table.feed(Action(Do.VOID))
    assert table.stacks() == {1: 50, 2: 50}


# Short all-ins -------------------------------------------------------------------------


def fifth_street_four_handed() -> Driver:
    """Seat 1 (ace-king-queen showing) acts first on fifth street; seat 2 has 13 chips
    behind, seat 4 has 17, seats 1 and 3 are deep."""
    hands = {1: "Kd 7c As", 2: "Qh 8d 9s", 3: "Jh 3c 2d", 4: "Th 6d Ts"}
    table = dealt(hands, {1: DEEP, 2: 16, 3: DEEP, 4: 20})
    table.acts((3, "bring_in"), (4, "call"), (1, "call"), (2, "call"))
    table.deal(*street({1: "Kc", 2: "5h", 3: "3d", 4: "6c"}, burn="2c"))
    table.acts((1, "check"), (2, "check"), (3, "check"), (4, "check"))
    table.deal(*street({1: "Qc", 2: "7h", 3: "5c", 4: "8c"}, burn="2h"))
    assert table.to_act == 1
    return table


def test_short_all_ins_reopen_the_betting_only_for_whom_they_add_half_a_bet():
    # Robert's Rules: multiple short all-ins act as a raise "if the resulting wager size to
    # a player qualifies as a raise": judged for each player from what they have matched.
    table = fifth_street_four_handed()
    table.act(1, "bet")  # 10
    table.act(2, "raise", 13)  # all-in, 3 more: less than half a bet
    table.act(3, "call")  # 13
    table.act(4, "raise", 17)  # all-in, 7 over the bet of 10: half a bet or more
    # seat 1 bet 10 and faces 7 more: reopened, a full raise goes to 17 + 10
    assert table.to_act == 1
    assert table.legal == [("call", 17), ("raise", 27), ("fold", None)]
    table.act(1, "call")
    # seat 3 called 13 and faces only 4 more: not reopened for seat 3
    assert table.to_act == 3
    assert table.legal == [("call", 17), ("fold", None)]
    assert table.refused_act(3, "raise") is Illegal.RAISE_CLOSED


# Bring-in ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hands", "seat"), [({1: "Kd 7c As", 2: "Qh 8d 4s"}, 1), ({1: "Kd 7c 4s", 2: "Qh 8d As"}, 1)]
)
def test_a_wild_four_counted_as_the_ace_of_its_suit_ties_that_ace_to_the_dealers_left(hands, seat):
    # 4s as the ace of spades and the As: the same card for the bring-in; suits cannot
    # break the tie, so the seat closest to the dealer's left brings in.
    table = dealt(hands)
    assert table.to_act == seat


def test_the_bring_in_passes_to_the_left_past_every_player_all_in_for_the_ante():
    # seat 2 (2c) is low and seat 3 next to it are both all-in from the ante: seat 4 brings in
    table = dealt(
        {1: "Kd 7c As", 2: "Qh 8d 2c", 3: "Jh 9d 3c", 4: "Th 6d Ks"},
        {1: DEEP, 2: 1, 3: 1, 4: DEEP},
    )
    assert table.to_act == 4
    assert table.legal == [("bring_in", 2), ("complete", 5)]
    assert "seat 2 is all-in: the bring-in passes to seat 4" in table.messages()


# First to act: the hand showing --------------------------------------------------------


@pytest.mark.parametrize(
    ("up", "key"),
    [
        ("4h Kd", (1, 13)),  # a wild and a king: a pair of kings
        ("4h 4d 9c", (3, 9)),  # two wilds and a nine: three nines
        ("4h Ad Kc", (1, 14, 13)),  # the wild pairs the higher card
        ("4h 9d 9c Kc", (3, 9, 13)),  # trips beat two pair (kings and nines)
        ("4h 4s Kd 9c", (3, 13, 9)),  # three kings, not two pair
        ("4h 9d 9c Kc Ks", (4, 13, 9)),  # five up (an exposed hole card): a full house
        ("4c 4d", (1, 14)),  # all wild: aces
        ("9d Td Jd Qd", (0, 12, 11, 10, 9)),  # a straight flush showing is queen high
    ],
)
def test_wild_up_cards_show_as_the_best_pair_trips_or_quads(up, key):
    assert showing_key(parse_cards(up), wild=True) == key


def test_seven_card_stud_fours_show_as_fours():
    assert showing_key(parse_cards("4h Kd"), wild=False) == (0, 13, 4)


def test_a_wild_pair_and_a_natural_pair_of_the_same_rank_tie_to_the_dealers_left():
    table = Driver({1: DEEP, 2: DEEP, 3: DEEP})
    table.deal(*third_street({1: "Qd 7c 9s", 2: "Qh 8d Kh", 3: "2s 3c Kc"}))
    table.acts((1, "bring_in"), (2, "call"), (3, "call"))  # 9s is low
    # seat 2: Kh and a wild, seat 3: Kc Ks: both a pair of kings; seat 2 is closer
    table.deal(*street({1: "Jd", 2: "4h", 3: "Ks"}, burn="2c"))
    assert table.to_act == 2
    assert any("seat 2 (pair of kings showing) is high" in m for m in table.messages())


@pytest.mark.parametrize(
    ("bring_in", "stack1", "after", "bring_in_player"),
    [
        # bring-in 2: seat 1 all-in to 3 (half the small bet or more) is treated as the
        # completion: seat 2 may raise to 8, and so may the bring-in (a forced bet, not a
        # wager: the completion is the first bet it faces)
        (
            2,
            4,
            [("call", 3), ("raise", 8), ("fold", None)],
            [("call", 3), ("raise", 8), ("fold", None)],
        ),
        # bring-in 1: seat 1 all-in to 2 is not; seat 2 may still complete to 5, the
        # bring-in player (who has acted) may only call or fold
        (1, 3, [("call", 2), ("complete", 5), ("fold", None)], [("call", 2), ("fold", None)]),
    ],
)
def test_an_all_in_completion_short_of_the_small_bet(bring_in, stack1, after, bring_in_player):
    table = dealt(
        {1: "Kd 7c As", 2: "Qh 8d 9s", 3: "2s 3c 5d"},
        {1: stack1, 2: DEEP, 3: DEEP},
        bring_in=bring_in,
    )
    table.act(3, "bring_in")
    table.act(1, "complete")  # all-in
    assert table.player(1).stack == 0
    assert table.to_act == 2
    assert table.legal == after
    table.act(2, "call")
    assert table.to_act == 3
    assert table.legal == bring_in_player


def test_a_bring_in_of_the_whole_small_bet_is_the_bet():
    # bring_in = small_bet: no completion exists; the next wager is a raise, and the
    # bring-in counts as the bet for the cap (a bet and three raises: 5, 10, 15, 20)
    table = dealt({1: "Kd 7c As", 2: "Qh 8d 9s", 3: "2s 3c 5d"}, bring_in=5)
    assert table.legal == [("bring_in", 5)]
    table.act(3, "bring_in")
    assert table.legal == [("call", 5), ("raise", 10), ("fold", None)]
    table.acts((1, "raise"), (2, "raise"), (3, "raise"))
    assert table.legal == [("call", 20), ("fold", None)]
    assert table.refused_act(1, "raise") is Illegal.RAISE_CLOSED


@pytest.mark.parametrize("timing", ["immediate", "end_of_street"])
def test_the_four_of_clubs_as_the_last_card_before_seventh_street(timing):
    # 8 players, burns: seat 8's sixth-street card is the 51st card out: the four of
    # clubs. Its bonus card is the 52nd and last card of the stub; seventh street then
    # finds the stub empty: the three burns are scrambled and the community card is one
    # of them.
    four_of_clubs = parse_card("4c")
    order = [card for card in DECK if card != four_of_clubs]
    order.insert(50, four_of_clubs)
    table = Driver(dict.fromkeys(range(1, 9), 100), bonus_timing=timing)
    assert play_to_the_end(table, order) == ["community"]
    seat8 = table.player(8).cards
    assert [(str(d.card), d.up, d.bonus, d.street) for d in seat8[-2:]] == [
        ("4c", True, False, 6),
        (str(order[51]), False, True, 6),
    ]
    assert table.hand.scrambled
    assert table.hand.community in table.hand.burns[:3]
    assert sum(len(p.cards) for p in table.hand.players) == 52 - 3


# Showdown ------------------------------------------------------------------------------


def test_no_bet_on_seventh_with_the_high_hand_all_in_the_first_to_act_shows_first():
    table = dealt(
        {1: "Kd 7c As", 2: "Qh 8d 9s", 3: "2s 3c 5d"}, {1: 3, 2: DEEP, 3: DEEP}, showdown="manual"
    )
    table.acts((3, "bring_in"), (1, "call"), (2, "call"))  # seat 1 all-in
    for burn, cards in (
        ("2c", "Ah Jd 6c"),
        ("2d", "Kh Td 7d"),
        ("2h", "Qc 9h 8h"),
        ("3h", "Jc 3d Ts"),
    ):
        table.deal(burn, *cards.split())
        # seat 1 (aces showing) is high but all-in: seat 2 on its left acts first
        assert table.to_act == 2
        table.acts((2, "check"), (3, "check"))
    assert table.waiting == {"kind": "show", "seat": 2, "legal": [{"do": "show"}, {"do": "muck"}]}
    table.feed(Action(Do.SHOW, 2))
    assert table.waiting["seat"] == 3


def test_a_completion_reopens_the_betting_for_the_bring_in_and_its_callers():
    # bring-in 4, small bet 5: the completion is only 1 more, but it is the first full bet
    # of the round, not a short raise: everyone who acted may raise again
    table = dealt({1: "Kd 7c As", 2: "Qh 8d 9s", 3: "2s 3c 5d"}, bring_in=4)
    table.acts((3, "bring_in"), (1, "call"), (2, "complete"))
    assert table.to_act == 3
    assert table.legal == [("call", 5), ("raise", 10), ("fold", None)]
    table.act(3, "call")
    assert table.legal == [("call", 5), ("raise", 10), ("fold", None)]


# Fixed-limit amounts and the cap in random hands --------------------------------------


def test_random_hands_offer_only_fixed_limit_amounts_and_respect_the_cap():
    """At every betting decision of random hands under random house rules: a call is the
    level or all-in; a bet, completion or raise goes above the level, to the last full
    wager level plus a bet size (either size while the open-pair choice is open) or
    all-in for less; past the cap a raise is offered only heads-up (two players or fewer
    who are not all-in) and never with ``heads_up_uncapped = never``."""
    for seed in range(200):
        rng = random.Random(seed)
        rules = random_rules(rng)
        seats = rng.sample(range(1, 9), rng.randint(2, 8))
        stacks = {s: rng.choice([1, 2, 3, rng.randint(4, 60), rng.randint(61, 400)]) for s in seats}
        hand = start_hand(rules, stacks).hand
        deck = list(DECK)
        rng.shuffle(deck)
        while (waiting := hand.waiting_for) is not None:
            if waiting.kind == "card":
                hand = hand.apply(Deal(next_card(rng, hand, deck))).hand
                continue
            if waiting.kind == "bonus":
                hand = hand.apply(Action(Do.BONUS, waiting.seat, accept=rng.random() < 0.5)).hand
                continue
            if waiting.kind == "action":
                check_amounts(hand, waiting)
            choice = rng.choice(waiting.legal)
            hand = hand.apply(Action(choice.do, waiting.seat, choice.to)).hand


def check_amounts(hand: Hand, waiting) -> None:
    rules = hand.rules
    player = hand.player(waiting.seat)
    assert not player.folded and player.stack > 0
    reach = player.stack + player.bet
    sizes = (rules.small_bet, rules.big_bet) if hand.size == 0 else (hand.size,)
    for choice in waiting.legal:
        if choice.do is Do.CALL:
            assert choice.to == min(hand.level, reach)
        if choice.do in (Do.BET, Do.RAISE, Do.COMPLETE):
            assert hand.level < choice.to <= reach
            assert choice.to == reach or choice.to - hand.full_level in sizes
            if hand.wagers >= 1 + rules.max_raises:
                assert rules.heads_up_uncapped.value != "never"
                assert sum(not p.folded and p.stack > 0 for p in hand.players) <= 2
