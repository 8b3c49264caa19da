"""The table core, input by input: seats, hands, decisions, device events, every alert
with its remedy, the supervisor's actions, lamps and display, JSON and replay."""

from __future__ import annotations

import json
from typing import get_args

import pytest

from controller.rules import Dest, Do, Illegal, Phase, Rules, parse_card
from controller.rules.effects import Void
from controller.table import (
    INPUT_TYPES,
    AcknowledgeAlert,
    AlertKind,
    By,
    ChangeSeat,
    ClockStepped,
    Configure,
    CorrectCard,
    CorrectStack,
    DealerIn,
    Decide,
    DeviceRestarted,
    EnterCard,
    FromDevice,
    Leave,
    LinkDown,
    LinkUp,
    Mode,
    NewHand,
    Rebuy,
    Remedy,
    ResolveAlert,
    Serials,
    SignInAttack,
    SignInLocked,
    SitDown,
    SitIn,
    SitOut,
    Step,
    Table,
    TableInputError,
    TableSettings,
    Tick,
    UndoDecision,
    VoidHand,
    WrongFace,
    alerts,
    apply,
    input_from_json,
    paused_refusal,
)
from controller.table.effects import HandStarted, HeldSetAside, Refuse, SomeoneSat
from drivers import events as ev
from drivers.protocol import DeviceKind, Disposition, FaultCode
from tests.device_inputs import (
    card_at_seat,
    card_read,
    card_unreadable,
    deck_card,
    deck_loaded,
    device_fault,
    device_fault_cleared,
    seat_occupied,
    seat_vacated,
)
from tests.table_driver import TableDriver, code

# Third street for seats 2 and 5: seat 2 gets As Ad down and 2c up (it brings in),
# seat 5 gets Ks Kd down and 9h up.
THIRD = "As Ks Ad Kd 2c 9h"
SUPERVISOR = {"who": "S100", "why": "checked at the table"}


def two_seats(**rules) -> TableDriver:
    return TableDriver.make(**rules).start({2: 200, 5: 200})


def betting(**rules) -> TableDriver:
    """Third street dealt and confirmed: seat 2 to bring in."""
    driver = two_seats(**rules)
    driver.read(THIRD, confirm=True)
    assert driver.table.signals.display == "BETTING: seat 2 to act"
    return driver


def fourth(**rules) -> TableDriver:
    """Third street bet (bring-in, call): the burn before fourth street is due."""
    driver = betting(**rules)
    driver.act(2, "bring_in")
    driver.act(5, "call")
    assert driver.table.signals.display == "BURN"
    return driver


def hand_chips(table: Table) -> int:
    assert table.hand is not None
    return sum(p.stack + p.total for p in table.hand.players)


# Seats ---------------------------------------------------------------------------------


def test_sit_down_within_the_buy_in_limits():
    driver = TableDriver.make()
    driver.ok(SitDown, seat=3, player="Ann", buy_in=100)
    assert driver.refused(SitDown, seat=4, player="Bob", buy_in=99) is Refuse.BUY_IN_LIMIT
    assert driver.refused(SitDown, seat=4, player="Bob", buy_in=1001) is Refuse.BUY_IN_LIMIT
    assert driver.refused(SitDown, seat=3, player="Bob", buy_in=200) is Refuse.SEAT_TAKEN
    assert driver.refused(SitDown, seat=9, player="Bob", buy_in=200) is Refuse.UNKNOWN_SEAT
    assert driver.refused(SitDown, seat=4, player=" ", buy_in=200) is Refuse.WHO_NEEDED
    assert driver.table.seat(3).stack == 100 and driver.table.chips == 100


def test_sit_out_and_in_decide_who_is_dealt_in():
    driver = TableDriver.make().seat({1: 200, 2: 200, 3: 200})
    driver.ok(SitOut, seat=2)
    driver.ok(deck_loaded, count=52)
    driver.ok(NewHand)
    assert [p.seat for p in driver.table.hand.players] == [1, 3]
    driver.ok(SitIn, seat=2)
    assert not driver.table.seat(2).sitting_out
    assert driver.refused(SitOut, seat=6) is Refuse.SEAT_EMPTY


def test_leave_cashes_out_but_not_during_the_hand():
    driver = two_seats()
    assert driver.refused(Leave, seat=2) is Refuse.SEAT_IN_HAND
    driver.ok(SitDown, seat=7, player="Cy", buy_in=300)
    driver.ok(Leave, seat=7)  # not in the hand: leaves at once
    assert driver.table.cashed_out == 300 and driver.table.seat(7) is None
    assert driver.effects[-1].kind == "cash_out" and driver.effects[-1].data["chips"] == 300


def test_rebuy_up_to_the_maximum_between_hands():
    driver = TableDriver.make().seat({1: 900})
    assert driver.refused(Rebuy, seat=1, chips=101) is Refuse.BUY_IN_LIMIT
    assert driver.refused(Rebuy, seat=1, chips=0) is Refuse.BAD_AMOUNT
    driver.ok(Rebuy, seat=1, chips=100)
    assert driver.table.seat(1).stack == 1000 and driver.table.bought_in == 1000
    driver = two_seats()
    assert driver.refused(Rebuy, seat=2, chips=10) is Refuse.SEAT_IN_HAND


def test_change_seat_keeps_the_stack_between_hands_and_replays():
    driver = two_seats()
    driver.ok(SitDown, seat=7, player="Cy", buy_in=300)
    assert driver.refused(ChangeSeat, seat=2, to=3) is Refuse.SEAT_IN_HAND
    assert driver.refused(ChangeSeat, seat=7, to=5) is Refuse.SEAT_TAKEN
    assert driver.refused(ChangeSeat, seat=7, to=7) is Refuse.SAME_SEAT
    assert driver.refused(ChangeSeat, seat=7, to=9) is Refuse.UNKNOWN_SEAT
    assert driver.refused(ChangeSeat, seat=4, to=3) is Refuse.SEAT_EMPTY
    sitting = driver.table.seat(7).sitting
    driver.ok(ChangeSeat, seat=7, to=1)  # not in the hand: moves at once
    moved = driver.table.seat(1)
    assert driver.table.seat(7) is None
    assert (moved.player, moved.stack, moved.sitting) == ("Cy", 300, sitting)
    assert driver.table.chips == 700 and driver.table.bought_in == 700
    effect = driver.effects[-1]
    assert effect.kind == "seat_change" and effect.data == {"seat": 7, "to": 1, "chips": 300}
    assert effect.message == "Cy moves from seat 7 to seat 1 with 300"


def test_correct_stack_is_signed_and_kept_in_the_ledger():
    driver = TableDriver.make().seat({1: 200})
    assert driver.refused(CorrectStack, seat=1, stack=150, who="S100", why="") is Refuse.WHO_NEEDED
    assert driver.refused(CorrectStack, seat=1, stack=-1, **SUPERVISOR) is Refuse.BAD_AMOUNT
    driver.ok(CorrectStack, seat=1, stack=150, **SUPERVISOR)
    assert driver.table.seat(1).stack == 150 and driver.table.corrected == -50
    assert driver.table.chips == 150
    assert driver.effects[-1].data["who"] == "S100"


# Hands ---------------------------------------------------------------------------------


def test_new_hand_needs_a_deck_two_players_and_no_blocking_alert():
    driver = TableDriver.make().seat({1: 200})
    assert driver.table.signals.display == "LOAD A DECK"
    assert driver.refused(NewHand) is Refuse.NO_DECK
    driver.ok(deck_loaded, count=52)
    assert driver.table.signals.display == "WAITING FOR PLAYERS"
    assert driver.refused(NewHand) is Refuse.TOO_FEW_PLAYERS
    driver.seat({4: 200})
    assert driver.table.signals.display == "READY: NEW HAND"
    driver.ok(device_fault, device=DeviceKind.SHOE, fault=FaultCode.LID_OPEN)
    assert driver.refused(NewHand) is Refuse.ALERTS_OPEN
    driver.ok(device_fault_cleared, device=DeviceKind.SHOE, fault=FaultCode.LID_OPEN)
    step = driver.ok(NewHand)
    kinds = [effect.kind for effect in step.effects]
    assert kinds[:3] == ["hand_started", "ante", "ante"]
    assert driver.table.hand_number == 1 and not driver.table.deck_ready
    assert driver.table.signals.display == "DEAL: seat 1, face down"
    assert driver.table.signals.lamps.seats == (1,)
    assert driver.refused(NewHand) is Refuse.HAND_IN_PROGRESS


def test_stacks_carry_from_hand_to_hand():
    driver = betting()
    driver.act(2, "bring_in")
    driver.act(5, "fold")
    assert not driver.table.in_hand
    assert driver.table.seat(2).stack == 201 and driver.table.seat(5).stack == 199
    assert "hand_over" in driver.kinds()
    driver.ok(deck_loaded, count=52)
    driver.ok(NewHand)
    assert {p.seat: p.start for p in driver.table.hand.players} == {2: 201, 5: 199}
    assert driver.table.hand_number == 2


def test_a_refused_decision_changes_nothing_and_says_why_in_the_engines_words():
    driver = betting()
    refusal = driver.refusal(Decide, seat=5, do=Do.CALL)
    assert refusal.code is Illegal.OUT_OF_TURN
    assert refusal.message == "seat 5 cannot call: out of turn (seat 2 to act)"
    assert driver.effects[-1].kind == "refused"
    assert TableDriver.make().refused(Decide, seat=1, do=Do.CALL) is Refuse.NO_HAND
    assert driver.refused(Decide, seat=2, do=Do.VOID) is Refuse.NOT_A_DECISION
    assert driver.refused(Decide, seat=2, do=Do.BRING_IN, by=By.PLAYER) is Refuse.DEALER_DECIDES


def test_a_step_carries_what_its_table_shows_and_the_next_input_goes_on_from_it():
    driver = betting()
    last = Step.of(driver.table)
    assert last.signals.display == "BETTING: seat 2 to act" and last.effects == ()
    refused = last.then(Decide(at=1, seat=5, do=Do.CALL))
    assert refused.refused is not None
    assert refused.table is last.table and refused.signals is last.signals
    brought_in = refused.then(Decide(at=2, seat=2, do=Do.BRING_IN))
    assert brought_in.signals.display == "BETTING: seat 5 to act"
    assert [effect.kind for effect in brought_in.effects][-1] == "display"
    burn = brought_in.then(Decide(at=3, seat=5, do=Do.CALL))
    assert burn.signals == burn.table.signals and burn.signals.display == "BURN"
    assert burn == apply(brought_in.table, Decide(at=3, seat=5, do=Do.CALL))


def test_players_decide_on_their_own_where_the_table_allows_it():
    driver = TableDriver(Table(TableSettings(player_decisions=True))).start({2: 200, 5: 200})
    driver.read(THIRD)
    driver.ok(Decide, seat=2, do=Do.BRING_IN, by=By.PLAYER)


def test_configure_only_between_hands():
    driver = two_seats()
    stud = TableSettings(Rules(variant="seven-card-stud"), 50, 500, seat_board=False)
    assert driver.refused(Configure, settings=stud) is Refuse.HAND_IN_PROGRESS
    driver.ok(VoidHand, **SUPERVISOR)
    driver.ok(Configure, settings=stud)
    assert driver.table.settings == stud


# Cards out of turn, in play, not in the deck --------------------------------------------


def test_card_drawn_during_betting_pauses_and_the_supervisor_holds_it():
    driver = betting()
    driver.ok(card_read, code=code("Qc"))
    alert = driver.table.alerts[0]
    assert alert.kind is AlertKind.CARD_OUT_OF_TURN and alert.card == parse_card("Qc")
    assert alert.facts == alerts.CardOutOfTurn(parse_card("Qc"), alerts.NotDue(alerts.Busy.ACT, 2))
    assert driver.table.paused
    assert driver.table.signals.mode is Mode.PAUSED
    assert driver.refused(Decide, seat=2, do=Do.BRING_IN) is Refuse.PAUSED
    driver.resolve(AlertKind.CARD_OUT_OF_TURN, Remedy.HOLD)
    assert driver.table.held == (parse_card("Qc"),)
    driver.ok(Decide, seat=2, do=Do.BRING_IN)  # the betting goes on once it is resolved
    driver.ok(Decide, seat=5, do=Do.CALL)  # the round ends: the held card is the burn card
    assert driver.table.held == () and driver.table.hand.burns == (parse_card("Qc"),)
    assert "held_card" in driver.kinds()
    assert driver.table.signals.display == "DEAL: seat 2, face up"


def test_a_pause_stops_every_decision_and_not_the_remedies():
    """Robert's Rules: the action waits while the irregularity is put right (docs/rules.md,
    "A pause stops the action")."""
    driver = betting()
    driver.ok(seat_occupied, seat=5)
    driver.ok(seat_vacated, seat=5)  # a non-blocking alert: the action goes on
    assert driver.table.alerts and not driver.table.paused
    assert paused_refusal(driver.table, Decide(at=0, seat=2, do=Do.BRING_IN)) is None
    driver.ok(card_read, code=code("Qc"))  # out of turn: the table pauses
    alert = driver.alert(AlertKind.CARD_OUT_OF_TURN)
    assert driver.table.paused
    for seat, do, by in [
        (2, Do.BRING_IN, By.DEALER),  # one the engine would take
        (2, Do.COMPLETE, By.PLAYER),
        (2, Do.FOLD, By.DEALER),
        (5, Do.CALL, By.DEALER),  # out of turn too: the pause is said first
        (5, Do.BONUS, By.PLAYER),
        (5, Do.MUCK, By.DEALER),
    ]:
        refusal = driver.refusal(Decide, seat=seat, do=do, by=by)
        assert refusal.code is Refuse.PAUSED
        assert refusal.message == paused_refusal(
            driver.table, Decide(at=0, seat=seat, do=do, by=by)
        )
    # the remedies are no decisions: the pause does not stop them
    resolve = ResolveAlert(at=0, alert=alert, remedy=Remedy.DEAD, **SUPERVISOR)
    assert paused_refusal(driver.table, resolve) is None
    assert paused_refusal(driver.table, VoidHand(at=0, **SUPERVISOR)) is None
    driver.ok(ResolveAlert, alert=alert, remedy=Remedy.DEAD, **SUPERVISOR)
    assert not driver.table.paused
    driver.ok(Decide, seat=2, do=Do.BRING_IN)  # resolved: the action goes on
    driver.ok(card_read, code=code("Jc"))  # paused again; a void still ends the hand
    driver.ok(VoidHand, **SUPERVISOR)
    assert not driver.table.in_hand and not driver.table.paused


def test_held_card_is_set_aside_when_the_hand_ends_first():
    driver = betting()
    driver.ok(card_read, code=code("Qc"))
    driver.resolve(AlertKind.CARD_OUT_OF_TURN, Remedy.HOLD)
    driver.act(2, "bring_in")
    step = driver.act(5, "fold")
    assert HeldSetAside((parse_card("Qc"),)) in step.effects
    assert driver.table.held == () and driver.table.spent >> code("Qc") & 1


def test_card_out_of_turn_taken_out_of_play_is_never_dealt():
    driver = betting()
    driver.ok(card_read, code=code("Qc"))
    driver.resolve(AlertKind.CARD_OUT_OF_TURN, Remedy.DEAD)
    assert not driver.table.paused
    driver.ok(card_read, code=code("Qc"))  # the same card again: it cannot be
    assert driver.table.alerts[0].kind is AlertKind.CARD_IN_PLAY


def test_card_read_with_no_hand_in_progress():
    driver = TableDriver.make().seat({1: 200, 2: 200})
    driver.ok(deck_loaded, count=52)
    driver.ok(card_read, code=code("Qc"))
    assert driver.table.alerts[0].facts == alerts.CardOutOfTurn(
        parse_card("Qc"), alerts.NotDue(alerts.Busy.NO_HAND)
    )
    refused = driver.refused(
        ResolveAlert, alert=driver.table.alerts[0].id, remedy=Remedy.HOLD, **SUPERVISOR
    )
    assert refused is Refuse.NO_HAND
    driver.resolve(AlertKind.CARD_OUT_OF_TURN, Remedy.DEAD)
    driver.ok(NewHand)
    driver.ok(card_read, code=code("Qc"))  # that card left this deck before the hand
    assert driver.table.alerts[-1].kind is AlertKind.CARD_IN_PLAY


def test_card_already_in_play():
    driver = two_seats()
    driver.read("As")
    step = driver.ok(card_read, code=code("As"))
    assert step.effects[0].kind == "alert"
    assert driver.table.alerts[0].kind is AlertKind.CARD_IN_PLAY
    assert driver.table.hand.waiting_for.seat == 5  # nothing was dealt
    assert (
        driver.refused(
            ResolveAlert, alert=driver.table.alerts[0].id, remedy=Remedy.HOLD, **SUPERVISOR
        )
        is Refuse.WRONG_REMEDY
    )
    driver.resolve(AlertKind.CARD_IN_PLAY, Remedy.DEAD)
    driver.read("Ks")
    assert driver.table.hand.player(5).cards[0].card == parse_card("Ks")


def test_card_not_in_the_deck():
    driver = two_seats()
    driver.ok(card_read, code=60)
    alert = driver.table.alerts[0]
    assert alert.facts == alerts.CardNotInDeck(60)
    driver.resolve(AlertKind.CARD_NOT_IN_DECK, Remedy.DEAD)
    assert not driver.table.paused and driver.table.hand.waiting_for.seat == 2


# Decks ---------------------------------------------------------------------------------


def test_deck_whose_count_is_not_52():
    driver = TableDriver.make().seat({1: 200, 2: 200})
    driver.ok(deck_loaded, count=51)
    alert = driver.table.alerts[0]
    assert alert.facts == alerts.BadDeck(51)
    assert driver.refused(NewHand) is Refuse.ALERTS_OPEN
    driver.ok(deck_loaded, count=52)  # the remedy: a full deck clears it
    assert driver.table.alerts == () and driver.table.deck_ready
    driver.ok(deck_loaded, count=104)
    driver.resolve(AlertKind.BAD_DECK, Remedy.DONE)  # removed, by the supervisor's word
    assert not driver.table.deck_ready


def test_deck_loaded_during_a_hand():
    driver = two_seats()
    driver.ok(deck_loaded, count=52)
    assert driver.table.alerts[0].kind is AlertKind.DECK_DURING_HAND
    driver.resolve(AlertKind.DECK_DURING_HAND, Remedy.DONE)
    driver.read("As")
    assert driver.table.hand.player(2).cards


# Unreadable cards ----------------------------------------------------------------------


def test_unreadable_card_rejected_to_the_tray_changes_nothing():
    driver = two_seats()
    before = driver.dump()
    step = driver.ok(card_unreadable, disposition=Disposition.REJECT_TRAY)
    assert [effect.kind for effect in step.effects] == ["rejected"]
    assert driver.dump() == before


def test_unread_card_identified_by_the_seat_board():
    driver = two_seats()
    driver.ok(card_unreadable, disposition=Disposition.DEALT_UNREAD)
    alert = driver.table.alerts[0]
    assert alert.kind is AlertKind.UNREAD_CARD and alert.belongs == 2 and alert.due
    assert alert.facts == alerts.UnreadCard(None, Dest.SEAT, 2, False, seat_board=True)
    driver.ok(card_at_seat, seat=2, code=None)  # its reader could not read it either
    assert driver.table.alerts == (alert,)
    driver.ok(card_at_seat, seat=2, code=code("As"))
    assert driver.table.alerts == () and driver.table.unconfirmed == ()
    assert driver.table.hand.player(2).cards[0].card == parse_card("As")
    assert driver.table.signals.display == "DEAL: seat 5, face down"


def test_unread_card_entered_by_the_supervisor_without_a_seat_board():
    driver = TableDriver.make(seat_board=False).start({2: 200, 5: 200})
    driver.read("As Ks Ad Kd")
    driver.ok(card_unreadable, disposition=Disposition.DEALT_UNREAD)
    assert driver.table.alerts[0].remedy.startswith("the supervisor enters it")
    driver.ok(EnterCard, card=parse_card("As"), **SUPERVISOR)  # not applied: an alert says so
    (unread, wrong) = driver.table.alerts
    assert wrong.kind is AlertKind.WRONG_CARD_NAMED and wrong.card == parse_card("As")
    assert wrong.message == (
        "supervisor S100 entered As for the unread card, but the As is already in play"
    )
    driver.resolve(AlertKind.WRONG_CARD_NAMED, Remedy.DONE)
    assert driver.table.alerts == (unread,)
    driver.ok(EnterCard, card=parse_card("2c"), **SUPERVISOR)
    assert driver.table.hand.player(2).cards[2].card == parse_card("2c")
    assert driver.table.unconfirmed == ()
    assert driver.refused(EnterCard, card=parse_card("3c"), **SUPERVISOR) is Refuse.NO_UNREAD_CARD


def test_an_acknowledged_alert_stays_open_and_the_table_paused_until_resolved():
    driver = TableDriver.make(seat_board=False).start({2: 200, 5: 200})
    driver.read("As Ks Ad Kd")
    driver.ok(card_unreadable, disposition=Disposition.DEALT_UNREAD)
    alert = driver.table.alerts[0]
    paused = driver.table.signals
    assert driver.refused(AcknowledgeAlert, alert=9, who="D200") is Refuse.NO_ALERT
    assert driver.refused(AcknowledgeAlert, alert=alert.id, who=" ") is Refuse.WHO_NEEDED
    step = driver.ok(AcknowledgeAlert, alert=alert.id, who="D200")
    assert [(e.kind, e.data) for e in step.effects] == [
        ("alert_acknowledged", {"id": alert.id, "who": "D200"})
    ]
    assert driver.table.paused  # acknowledged, not resolved
    seen = driver.table.alerts[0]
    assert seen == alert._replace(acknowledged_by="D200", acknowledged_at=seen.acknowledged_at)
    assert seen.acknowledged_at is not None
    assert driver.table.paused and driver.table.signals == paused  # still paused, same display
    assert (
        driver.refused(AcknowledgeAlert, alert=alert.id, who="D201") is Refuse.ALREADY_ACKNOWLEDGED
    )
    assert Table.from_json(json.loads(driver.dump())) == driver.table
    assert driver.replayed() == driver.dump()
    driver.ok(EnterCard, card=parse_card("2c"), **SUPERVISOR)  # the remedy clears it
    assert driver.table.alerts == () and not driver.table.paused


def test_an_alert_from_before_acknowledgements_reads_back_unacknowledged():
    driver = TableDriver.make(seat_board=False).start({2: 200, 5: 200})
    driver.read("As Ks Ad Kd")
    driver.ok(card_unreadable, disposition=Disposition.DEALT_UNREAD)
    data = driver.table.to_json()
    for alert in data["alerts"]:
        del alert["acknowledged_by"], alert["acknowledged_at"]
    assert Table.from_json(data) == driver.table


def test_unread_burn_card_and_unread_card_out_of_turn():
    driver = fourth()
    driver.ok(card_unreadable, disposition=Disposition.DEALT_UNREAD)
    assert driver.table.alerts[0].facts == alerts.UnreadCard(None, Dest.BURN)
    driver.ok(EnterCard, card=parse_card("Qc"), **SUPERVISOR)
    assert driver.table.hand.burns == (parse_card("Qc"),)
    driver = betting()
    driver.ok(card_unreadable, disposition=Disposition.DEALT_UNREAD)
    assert not driver.table.alerts[0].due
    driver.ok(EnterCard, card=parse_card("Qd"), **SUPERVISOR)  # known now, still early
    assert driver.table.alerts[0].kind is AlertKind.CARD_OUT_OF_TURN
    driver.resolve(AlertKind.CARD_OUT_OF_TURN, Remedy.DEAD)
    driver = two_seats()
    driver.ok(card_unreadable, disposition=Disposition.DEALT_UNREAD)
    driver.resolve(AlertKind.UNREAD_CARD, Remedy.DEAD)  # taken away: seat 2 gets another
    assert driver.table.signals.display == "DEAL: seat 2, face down"


def test_earlier_cards_at_the_seat_are_confirmed_before_the_unread_one():
    driver = two_seats()
    driver.read("As Ks")
    driver.ok(card_unreadable, disposition=Disposition.DEALT_UNREAD)  # seat 2's second card
    driver.ok(card_at_seat, seat=2, code=code("As"))  # the first card's report, late
    driver.ok(card_at_seat, seat=5, code=None)
    assert driver.table.unconfirmed == ()
    assert [a.kind for a in driver.table.alerts] == [AlertKind.UNREAD_CARD]
    driver.ok(card_at_seat, seat=2, code=code("Ad"))
    assert driver.table.alerts == () and driver.table.hand.player(2).cards[1].card == parse_card(
        "Ad"
    )


def test_unread_card_named_by_the_seat_board_as_a_card_in_play():
    """The seat's reader names the unread card as a card in play: one card, one alert
    (card_in_play); taken out of play, it leaves the shoe's count once (issue 34: the
    unread card's alert and the card_in_play both taken dead counted it twice)."""
    driver = two_seats()
    driver.read("As", confirm=True)
    driver.ok(card_unreadable, disposition=Disposition.DEALT_UNREAD)
    driver.ok(card_at_seat, seat=5, code=code("As"))
    assert [a.kind for a in driver.table.alerts] == [AlertKind.CARD_IN_PLAY]
    assert driver.table.hand.stub == 51  # type: ignore[union-attr]
    driver.resolve(AlertKind.CARD_IN_PLAY, Remedy.DEAD)
    assert driver.table.alerts == () and driver.table.hand.stub == 50  # type: ignore[union-attr]
    driver.read("Kd", confirm=True)  # the card due to seat 5 comes next
    assert str(driver.table.hand.player(5).cards[0].card) == "Kd"  # type: ignore[union-attr]


# The seat board ------------------------------------------------------------------------


def test_cards_await_the_seat_boards_confirmation():
    driver = two_seats()
    driver.read("As Ks")
    assert [(p.seat, str(p.card)) for p in driver.table.unconfirmed] == [(2, "As"), (5, "Ks")]
    driver.ok(card_at_seat, seat=5, code=None)  # its reader missed it: the seat's oldest card
    driver.ok(card_at_seat, seat=2, code=code("As"))
    assert driver.table.unconfirmed == ()
    driver.ok(card_at_seat, seat=2, code=code("As"))  # seen again where it is: nothing
    assert driver.table.alerts == ()


def test_card_at_another_seat_is_moved_and_confirmed():
    driver = two_seats()
    driver.read("As")
    driver.ok(card_at_seat, seat=5, code=code("As"))
    alert = driver.table.alerts[0]
    assert alert.kind is AlertKind.MISPLACED_CARD and (alert.seat, alert.belongs) == (5, 2)
    driver.ok(card_at_seat, seat=5, code=code("As"))  # reported again: one alert
    assert len(driver.table.alerts) == 1
    driver.ok(card_read, code=code("Ks"))  # dealing is paused
    assert driver.table.alerts[-1].kind is AlertKind.CARD_OUT_OF_TURN
    driver.ok(card_at_seat, seat=2, code=code("As"))  # moved: confirmed where it belongs
    assert [a.kind for a in driver.table.alerts] == [AlertKind.CARD_OUT_OF_TURN]
    driver.resolve(AlertKind.CARD_OUT_OF_TURN, Remedy.HOLD)  # it goes to seat 5 now
    assert driver.table.hand.player(5).cards[0].card == parse_card("Ks")


def test_card_at_a_seat_with_no_player():
    driver = two_seats()
    driver.read("As")
    driver.ok(card_at_seat, seat=7, code=code("As"))
    alert = driver.table.alerts[0]
    assert alert.kind is AlertKind.CARD_AT_EMPTY_SEAT and alert.belongs == 2
    driver.ok(card_at_seat, seat=2, code=code("As"))
    assert driver.table.alerts == ()
    driver.ok(card_at_seat, seat=7, code=None)  # an unknown card at an empty seat
    assert driver.table.alerts[0].kind is AlertKind.CARD_AT_EMPTY_SEAT
    driver.resolve(AlertKind.CARD_AT_EMPTY_SEAT, Remedy.DONE)


def test_unknown_and_undealt_cards_at_seats():
    driver = two_seats()
    driver.ok(card_at_seat, seat=2, code=None)  # no card is due at seat 2 yet
    assert driver.table.alerts[0].kind is AlertKind.MISPLACED_CARD
    driver.resolve(AlertKind.MISPLACED_CARD, Remedy.DONE)
    driver.ok(card_at_seat, seat=2, code=code("7h"))
    alert = driver.table.alerts[0]
    assert alert.kind is AlertKind.CARD_NOT_DEALT and alert.card == parse_card("7h")
    driver.resolve(AlertKind.CARD_NOT_DEALT, Remedy.DONE)


def test_misplaced_card_resolved_by_the_supervisor_is_no_longer_awaited():
    driver = two_seats()
    driver.read("As")
    driver.ok(card_at_seat, seat=5, code=code("As"))
    driver.resolve(AlertKind.MISPLACED_CARD, Remedy.DONE)
    assert driver.table.unconfirmed == ()


def test_without_a_seat_board_card_reports_are_ignored():
    driver = TableDriver.make(seat_board=False).start({2: 200, 5: 200})
    driver.read("As")
    assert driver.table.unconfirmed == ()
    step = driver.ok(card_at_seat, seat=5, code=code("As"))
    assert [effect.kind for effect in step.effects] == ["ignored"]


# Devices -------------------------------------------------------------------------------


def test_device_fault_pauses_until_the_device_clears_it():
    driver = two_seats()
    driver.ok(device_fault, device=DeviceKind.SHOE, fault=FaultCode.JAM)
    driver.ok(
        device_fault, device=DeviceKind.SHOE, fault=FaultCode.JAM
    )  # reported twice: one alert
    alert = driver.table.alerts[0]
    assert len(driver.table.alerts) == 1
    assert alert.message == "shoe: a card is jammed in the shoe's exit"
    assert alert.to_json()["severity"] == "fault"
    refused = driver.refused(ResolveAlert, alert=alert.id, remedy=Remedy.DONE, **SUPERVISOR)
    assert refused is Refuse.DEVICE_CLEARS
    driver.ok(device_fault_cleared, device=DeviceKind.SHOE, fault=FaultCode.JAM)
    assert driver.table.alerts == () and driver.table.signals.mode is Mode.DEAL


@pytest.mark.parametrize("fault", list(FaultCode))
def test_every_fault_has_words_and_a_remedy(fault):
    driver = TableDriver.make()
    driver.ok(device_fault, device=DeviceKind.SEAT_BOARD, fault=fault)
    alert = driver.table.alerts[0]
    assert alert.message.startswith("seat board: ") and alert.remedy


def test_link_down_and_up():
    driver = two_seats()
    driver.ok(LinkUp, device=DeviceKind.SHOE)
    driver.ok(LinkDown, device=DeviceKind.SHOE, reason="silence")
    alert = driver.table.alerts[0]
    assert alert.kind is AlertKind.LINK_DOWN and alert.facts == alerts.LinkDown(
        DeviceKind.SHOE, "silence"
    )
    assert driver.table.links == ()
    driver.ok(LinkUp, device=DeviceKind.SHOE)
    assert driver.table.alerts == () and driver.table.links == (DeviceKind.SHOE,)
    quiet = TableDriver.make(seat_board=False)
    quiet.ok(LinkDown, device=DeviceKind.SEAT_BOARD)
    assert quiet.table.alerts == ()


def test_device_restart_that_lost_events():
    driver = two_seats()
    step = driver.ok(DeviceRestarted, device=DeviceKind.SEAT_BOARD, lost=0)
    assert [effect.kind for effect in step.effects] == ["restart"]
    driver.ok(DeviceRestarted, device=DeviceKind.SHOE, lost=3)
    assert driver.table.alerts[0].facts == alerts.EventsLost(DeviceKind.SHOE, 3)
    driver.resolve(AlertKind.EVENTS_LOST, Remedy.DONE)
    driver.ok(DeviceRestarted, device=DeviceKind.SHOE)  # how many is not known
    assert driver.table.alerts[0].facts == alerts.EventsLost(DeviceKind.SHOE, None)
    driver.resolve(AlertKind.EVENTS_LOST, Remedy.DONE)
    assert driver.refused(DeviceRestarted, device=DeviceKind.SHOE, lost=-1) is Refuse.MALFORMED


def test_player_leaving_the_seat_during_the_hand():
    driver = two_seats()
    driver.ok(seat_occupied, seat=2)
    driver.ok(seat_vacated, seat=2)
    alert = driver.table.alerts[0]
    assert alert.kind is AlertKind.PLAYER_AWAY and not driver.table.paused
    driver.ok(seat_occupied, seat=2)
    assert driver.table.alerts == ()
    driver.ok(seat_vacated, seat=6)  # nobody plays there
    assert driver.table.alerts == () and driver.table.occupied == (2,)
    step = driver.ok(seat_occupied, seat=6)
    assert step.effects[0] == SomeoneSat(6)  # the dealer is told to sit the player down


# The bonus card ------------------------------------------------------------------------


def test_bonus_card_lamps_and_display():
    driver = fourth()
    driver.read("Qc 3d")
    assert driver.table.signals.lamps.seats == (5,) and not driver.table.signals.lamps.bonus
    driver.read("4c", confirm=True)  # seat 5's four of clubs, face up
    signals = driver.table.signals
    assert signals.display == "BONUS CARD: seat 5, face down"
    assert signals.lamps.bonus and signals.lamps.seats == (5,)
    assert driver.effects[-1].kind == "lamps"
    driver.read("8d")
    assert not driver.table.signals.lamps.bonus
    assert driver.table.signals.mode is Mode.BETTING


def test_priced_bonus_card_waits_for_accept_or_decline():
    driver = fourth(bonus_price=5)
    driver.read("Qc 3d 4c")
    assert driver.table.signals.display == "BONUS CARD: seat 5, accept or decline for 5"
    assert driver.table.signals.lamps.bonus
    driver.ok(card_read, code=code("8d"))  # drawn before the player decided
    why = alerts.NotDue(alerts.Busy.BONUS, 5)
    assert driver.table.alerts[0].facts == alerts.CardOutOfTurn(parse_card("8d"), why)
    driver.resolve(AlertKind.CARD_OUT_OF_TURN, Remedy.HOLD)
    driver.ok(Decide, seat=5, do=Do.BONUS, accept=True)
    assert driver.table.hand.player(5).cards[-1].bonus  # the held card was the bonus card
    assert driver.table.hand.player(5).total == 3 + 5


def test_bonus_card_declined():
    driver = fourth(bonus_price=5)
    driver.read("Qc 3d 4c")
    driver.ok(Decide, seat=5, do=Do.BONUS, accept=False)
    assert not driver.table.signals.lamps.bonus
    assert driver.table.signals.mode is Mode.BETTING


# The supervisor ------------------------------------------------------------------------


def test_void_puts_every_chip_back_and_clears_the_hands_alerts():
    driver = betting()
    driver.act(2, "complete")
    driver.ok(card_read, code=code("Qc"))
    driver.ok(device_fault, device=DeviceKind.SHOE, fault=FaultCode.LID_OPEN)
    assert driver.refused(VoidHand, who="", why="misdeal") is Refuse.WHO_NEEDED
    step = driver.ok(VoidHand, **SUPERVISOR)
    assert driver.table.hand.phase is Phase.VOID and not driver.table.in_hand
    assert {s.seat: s.stack for s in driver.table.seats} == {2: 200, 5: 200}
    assert [a.kind for a in driver.table.alerts] == [AlertKind.DEVICE_FAULT]
    assert Void() in step.effects  # the supervisor's: no hand exposed
    assert driver.refused(VoidHand, **SUPERVISOR) is Refuse.NO_HAND


def test_correct_a_misread_card_before_it_is_acted_on():
    driver = two_seats()
    driver.read("As Ks Ad Kd 2c")
    driver.ok(CorrectCard, wrong=parse_card("2c"), right=parse_card("3c"), **SUPERVISOR)
    assert driver.table.hand.player(2).cards[2].card == parse_card("3c")
    assert driver.table.unconfirmed[-1].card == parse_card("3c")
    driver.read("2c")  # the card read wrongly is still in the shoe
    assert driver.table.hand.player(5).cards[2].card == parse_card("2c")
    assert driver.table.signals.display == "BETTING: seat 5 to act"  # 2c brings in now
    before = driver.table.hand
    driver.ok(CorrectCard, wrong=parse_card("As"), right=parse_card("Ks"), **SUPERVISOR)
    assert driver.table.hand == before  # not applied
    assert driver.table.alerts[0].facts == alerts.WrongCardNamed(
        parse_card("Ks"), alerts.Named.IN_PLAY, "S100", parse_card("As")
    )
    assert driver.table.paused
    driver.resolve(AlertKind.WRONG_CARD_NAMED, Remedy.DONE)
    driver.act(5, "bring_in")
    refused = driver.refused(
        CorrectCard, wrong=parse_card("2c"), right=parse_card("2d"), **SUPERVISOR
    )
    assert refused is Refuse.ACTED_ON
    assert (
        driver.refused(CorrectCard, wrong=parse_card("7h"), right=parse_card("7d"), **SUPERVISOR)
        is Refuse.NOT_DEALT
    )


def test_resolve_an_unknown_alert():
    driver = TableDriver.make()
    assert (
        driver.refused(ResolveAlert, alert=4, remedy=Remedy.DONE, **SUPERVISOR) is Refuse.NO_ALERT
    )


# JSON and replay -----------------------------------------------------------------------

EXAMPLES = [
    card_read(at=1, code=12),
    card_unreadable(at=2, disposition=Disposition.DEALT_UNREAD),
    card_at_seat(at=3, seat=4, code=None),
    card_at_seat(at=3, seat=4, code=51),
    seat_occupied(at=4, seat=1),
    seat_vacated(at=5, seat=1),
    deck_card(at=6, deck=9, code=12, uid="04a1b2c3d4e5f6"),
    deck_loaded(at=6, count=52),
    deck_loaded(at=6, count=52, deck=9),
    card_read(at=6, code=12, uid="04a1b2c3d4e5f6"),
    card_at_seat(at=6, seat=2, code=12, uid="04a1b2c3d4e5f6"),
    device_fault(at=7, device=DeviceKind.SHOE, fault=FaultCode.TAMPER),
    device_fault_cleared(at=8, device=DeviceKind.SEAT_BOARD, fault=FaultCode.SENSOR),
    LinkUp(at=9, device=DeviceKind.SHOE),
    LinkUp(at=9, device=DeviceKind.SHOE, boot=7, next_seq=12, pending=3),
    LinkUp(at=9, device=DeviceKind.SEAT_BOARD, boot=7, serial="SEATS-0042"),
    card_read(at=9, code=12, seq=11),
    Tick(at=9),
    LinkDown(at=10, device=DeviceKind.SHOE, reason="unplugged"),
    DeviceRestarted(at=11, device=DeviceKind.SHOE, lost=2),
    DeviceRestarted(at=11, device=DeviceKind.SHOE),
    Decide(at=12, seat=3, do=Do.RAISE, to=15),
    Decide(at=12, seat=3, do=Do.BONUS, accept=False),
    NewHand(at=13),
    DealerIn(at=13, who="D200"),
    NewHand(at=13, dealer="D7"),
    SitDown(at=14, seat=2, player="Ann", buy_in=300),
    SitDown(at=14, seat=2, player="Ann", buy_in=300, player_id="PC-1001"),
    SitOut(at=15, seat=2),
    SitIn(at=16, seat=2),
    Leave(at=17, seat=2),
    ChangeSeat(at=17, seat=2, to=5),
    Rebuy(at=18, seat=2, chips=50),
    AcknowledgeAlert(at=18, alert=3, who="D200"),
    SignInAttack(at=18, role="dealer", who="D200", failures=5, window=60, clients="10.0.0.7"),
    SignInLocked(at=18, role="dealer", who="D200", failures=20, window=3600, clients="10.0.0.7"),
    ClockStepped(at=18, step=-3_600_000),
    Configure(at=19, settings=TableSettings(Rules(bonus_price=5), 50, 500, False)),
    Configure(at=19, settings=TableSettings(serials=Serials(shoe="SHOE-7"))),
    VoidHand(at=20, who="S1", why="misdeal"),
    EnterCard(at=21, card=parse_card("4c"), who="S1", why="unread"),
    CorrectCard(at=22, wrong=parse_card("Kd"), right=parse_card("Kh"), who="S1", why="misread"),
    WrongFace(at=22, seat=3, card=parse_card("4c"), who="S1", why="dealt face down"),
    ResolveAlert(at=23, alert=3, remedy=Remedy.HOLD, who="S1", why="early card"),
    CorrectStack(at=24, seat=2, stack=120, who="S1", why="count"),
    UndoDecision(at=25, seat=3, do=Do.CALL, who="S1", why="wrong button"),
]


def test_every_input_type_has_an_example():
    """Every input of the table's own, and a device's input of every device message."""
    assert {type(item) for item in EXAMPLES} == {*INPUT_TYPES.values(), FromDevice}
    messages = {type(item.event) for item in EXAMPLES if isinstance(item, FromDevice)}
    assert messages == set(get_args(ev.DeviceEvent))


@pytest.mark.parametrize("item", EXAMPLES, ids=lambda item: item.to_json()["type"])
def test_inputs_round_trip_through_json(item):
    text = json.dumps(item.to_json())
    assert input_from_json(json.loads(text)) == item
    assert json.dumps(input_from_json(json.loads(text)).to_json()) == text


def test_the_dealer_and_the_player_card_are_journaled_only_when_given():
    """Inputs journaled before the dealer and the player card existed read (and write) as
    they were; given, each is kept: the hand's dealer (where no dealer was pushed in), the
    card on the seat."""
    assert NewHand(at=1).to_json() == {"type": "new_hand", "at": 1}
    old = {"type": "sit_down", "at": 2, "seat": 2, "player": "Ann", "buy_in": 300}
    assert SitDown(at=2, seat=2, player="Ann", buy_in=300).to_json() == old
    assert input_from_json(old) == SitDown(at=2, seat=2, player="Ann", buy_in=300)
    driver = TableDriver.make()
    driver.ok(SitDown, seat=1, player="Ann", buy_in=300, player_id="PC-1001")
    driver.ok(SitDown, seat=2, player="Bob", buy_in=300)
    ann, bob = driver.table.seat(1), driver.table.seat(2)
    assert ann is not None and bob is not None
    assert ann.player_id == "PC-1001" and ann.to_json()["player_id"] == "PC-1001"
    assert bob.player_id is None and "player_id" not in bob.to_json()
    assert Table.from_json(json.loads(json.dumps(driver.table.to_json()))) == driver.table
    driver.ok(deck_loaded, count=52)
    started = driver.ok(NewHand, dealer="D7").effects  # no dealer pushed: the one who starts
    (hand,) = [effect for effect in started if isinstance(effect, HandStarted)]
    assert hand.dealer == "D7" and hand.data["dealer"] == "D7"
    assert driver.table.hand_dealer == "D7"


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ([], "must be an object"),
        ({"type": "shuffle", "at": 1}, "'type': 'shuffle' is not one of"),
        ({"type": "card_read", "at": 1}, "card_read: missing field 'code'"),
        ({"type": "card_read", "at": 1, "code": 3, "tag": "x"}, "unknown field 'tag'"),
        ({"type": "card_read", "at": "now", "code": 3}, "card_read.at: 'now' is not a whole"),
        ({"type": "card_read", "at": 1, "code": True}, "card_read.code: True is not a whole"),
        ({"type": "link_up", "at": 1, "device": "lamp"}, "link_up.device: 'lamp' is not one of"),
        ({"type": "enter_card", "at": 1, "card": "Zz", "who": "a", "why": "b"}, "enter_card.card"),
        ({"type": "enter_card", "at": 1, "card": 5, "who": "a", "why": "b"}, "5 is not a card"),
        ({"type": "decide", "at": 1, "seat": 1, "do": "call", "accept": 1}, "not true or false"),
        ({"type": "sit_down", "at": 1, "seat": 1, "player": 7, "buy_in": 5}, "7 is not text"),
        ({"type": "configure", "at": 1, "settings": {"min_buy_in": 0}}, "configure.settings"),
        ({"type": "configure", "at": 1, "settings": 3}, "3 is not an object"),
    ],
)
def test_bad_input_records_are_refused_with_the_reason(data, words):
    with pytest.raises(TableInputError) as caught:
        input_from_json(data)
    assert words in str(caught.value)


def test_state_round_trips_and_replays_byte_for_byte():
    driver = fourth(bonus_price=5)
    driver.read("Qc 3d 4c")
    driver.ok(card_read, code=code("8d"))
    driver.ok(device_fault, device=DeviceKind.SHOE, fault=FaultCode.JAM)
    driver.ok(seat_vacated, seat=2)
    text = driver.dump()
    assert json.dumps(Table.from_json(json.loads(text)).to_json()) == text
    assert Table.from_json(json.loads(text)) == driver.table
    assert driver.replayed() == text
    journal = [json.dumps(item.to_json()) for item in driver.inputs]
    table = Table(driver.first.settings)
    for line in journal:
        table = apply(table, input_from_json(json.loads(line))).table
    assert json.dumps(table.to_json()) == text


def test_a_whole_hand_to_the_showdown_conserves_chips():
    driver = fourth()
    driver.read("Qc 3d 8d", confirm=True)
    driver.act(5, "check")
    driver.act(2, "check")
    for cards in ("Jc 5h 9s", "Jd 6h Tc", "Jh 7h Td"):  # a burn and a card to each seat
        driver.read(cards, confirm=True)
        while driver.table.in_hand and driver.table.hand.waiting_for.kind == "action":
            seat = driver.table.hand.waiting_for.seat
            legal = driver.table.hand.waiting_for.legal
            do = "check" if any(c.do is Do.CHECK for c in legal) else "call"
            assert driver.act(seat, do).refused is None
            assert not driver.table.in_hand or hand_chips(driver.table) == 400
    assert not driver.table.in_hand and driver.table.hand.phase is Phase.COMPLETE
    assert sum(seat.stack for seat in driver.table.seats) == 400 == driver.table.chips
    assert driver.table.unconfirmed == () and driver.table.signals.display == "LOAD A DECK"


@pytest.mark.parametrize(
    ("timing", "display"),
    [
        ("end", "RAKE 2, JACKPOT 1: drop 3, then LOAD A DECK"),
        ("street", "LOAD A DECK"),  # taken before fourth street: nothing left to take
    ],
)
def test_the_house_s_take_leaves_the_stacks_for_the_drop_box_and_the_ledger_counts_it(
    timing, display
):
    house = {"rake_percent": 50, "rake_cap": 2, "jackpot_drop": 1, "jackpot_drop_at": 5}
    driver = betting(**house, rake_timing=timing)
    driver.act(2, "bring_in")
    driver.act(5, "call")
    driver.read("Qc 3d 8d", confirm=True)  # the burn, a card to each seat
    driver.act(5, "check")
    driver.act(2, "check")
    for cards in ("Jc 5h 9s", "Jd 6h Tc", "Jh 7h Td"):  # a burn and a card to each seat
        driver.read(cards, confirm=True)
        while driver.table.in_hand and driver.table.hand.waiting_for.kind == "action":
            assert driver.act(driver.table.hand.waiting_for.seat, "check").refused is None
    table = driver.table
    assert not table.in_hand and (table.hand.rake, table.hand.jackpot_drop) == (2, 1)
    assert (table.raked, table.jackpot_dropped) == (2, 1)  # pot 6: rake 3 capped at 2; drop 1
    assert sum(seat.stack for seat in table.seats) == 397 == table.chips
    assert table.signals.display == display
    told = [effect.message for effect in driver.effects if effect.kind == "rake"]
    assert told == ["RAKE 2, JACKPOT 1: drop 3"]
    text = driver.dump()
    assert json.loads(text)["raked"] == 2 and json.loads(text)["jackpot_dropped"] == 1
    assert Table.from_json(json.loads(text)) == table and driver.replayed() == text
    driver.ok(deck_loaded, count=52)
    driver.ok(NewHand)
    assert not driver.table.signals.display.startswith("RAKE")  # until the next hand begins
    assert driver.table.chips == 397 and driver.table.raked == 2


def test_taken_as_the_pot_grows_the_display_says_so_until_the_next_card():
    house = {"rake_percent": 50, "rake_cap": 2, "rake_timing": "street"}
    driver = betting(**house)
    driver.act(2, "bring_in")
    driver.act(5, "call")  # 6 in: half is 3, capped at 2, taken before fourth street
    hand = driver.table.hand
    assert (hand.rake, hand.took) == (2, (2, 0)) and driver.table.in_hand
    assert driver.table.signals.display == "RAKE 2: drop 2, then BURN"
    assert [pot.amount for pot in hand.current_pots()] == [4]
    assert driver.table.raked == 0  # the ledger counts the hand's take once it is over
    driver.read("Jc", confirm=True)  # the burn
    assert driver.table.signals.mode is Mode.DEAL
    assert driver.table.hand.took == (0, 0) and driver.table.hand.rake == 2
    assert Table.from_json(json.loads(driver.dump())) == driver.table


def test_a_table_without_a_rake_keeps_its_snapshot_as_before():
    driver = fourth()
    text = driver.dump()
    assert "raked" not in json.loads(text) and "rake" not in json.loads(text)["hand"]
    assert "rake_percent" not in json.loads(text)["settings"]["rules"]


def test_apply_refuses_what_is_not_a_table_input():
    step = apply(Table(TableSettings()), "deal Kd")  # type: ignore[arg-type]
    assert step.refusal is not None and step.refusal.code is Refuse.NOT_AN_INPUT


def test_a_sign_in_attack_raises_an_alert_that_does_not_pause_the_table():
    table = TableDriver.make().table
    attack = SignInAttack(
        at=5, role="dealer", who="D200", failures=5, window=60, clients="10.0.0.7"
    )
    step = apply(table, attack)
    assert not step.refused
    (alert,) = step.table.alerts
    assert alert.kind is AlertKind.SIGN_IN_ATTACK and not alert.rule.blocking
    assert alert.facts == alerts.SignInAttack(5, "dealer", "D200", 60, "10.0.0.7")
    assert [effect.kind for effect in step.effects] == ["alert"]
    resolved = apply(
        step.table, ResolveAlert(at=6, alert=alert.id, remedy=Remedy.DONE, who="S1", why="ok")
    )
    assert not resolved.refused and resolved.table.alerts == ()
    empty = apply(table, SignInAttack(at=5, role="", who="D200", failures=5, window=60, clients=""))
    assert empty.refused and empty.table is table


def test_an_id_locked_raises_a_blocking_alert_that_a_supervisor_resolves():
    table = TableDriver.make().table
    lock = SignInLocked(
        at=5, role="dealer", who="D200", failures=20, window=3600, clients="10.0.0.7, 10.0.0.8"
    )
    step = apply(table, lock)
    assert not step.refused
    (alert,) = step.table.alerts
    assert alert.kind is AlertKind.SIGN_IN_LOCKED and step.table.paused
    assert alert.facts == alerts.SignInLocked(20, "dealer", "D200", 3600, "10.0.0.7, 10.0.0.8")
    assert apply(step.table, NewHand(at=6)).refusal.code is Refuse.ALERTS_OPEN
    resolved = apply(
        step.table, ResolveAlert(at=6, alert=alert.id, remedy=Remedy.DONE, who="S1", why="ok")
    )
    assert not resolved.refused and not resolved.table.paused
    empty = apply(
        table, SignInLocked(at=5, role="dealer", who="", failures=1, window=1, clients="x")
    )
    assert empty.refusal.code is Refuse.MALFORMED
