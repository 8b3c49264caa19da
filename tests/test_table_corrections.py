"""Corrections that leave every card where it lies: a misread corrected after the next
card was dealt, an unearned bonus card, a misread caught by the seat's reader, a card dealt
with the wrong face (an exposed hole card, an up card face down), a card pitched to a
folded seat, and the scramble of the burn cards shown until the shoe reports the reload."""

from __future__ import annotations

import json

from controller.history.hands import HandRecorder
from controller.rules import Card, Do, Phase, parse_card
from controller.rules.effects import BonusEarned, DealtDown
from controller.table import (
    AlertKind,
    Clearance,
    Cleared,
    CorrectCard,
    Decide,
    Lamps,
    Mode,
    Refuse,
    Remedy,
    Table,
    WrongFace,
    apply,
    input_from_json,
)
from dealer_ui.views import Role, view
from tests.device_inputs import card_at_seat, card_read, deck_loaded
from tests.table_driver import TableDriver, code

SUPERVISOR = {"who": "S100", "why": "checked at the table"}


def card(name: str) -> Card:
    return parse_card(name)


def holding(driver: TableDriver, seat: int) -> list[tuple[str, str, bool]]:
    """Seat's cards as (card, face, bonus)."""
    player = driver.table.hand.player(seat)
    return [(str(d.card), "up" if d.up else "down", d.bonus) for d in player.cards]


def journal_replays(driver: TableDriver) -> None:
    """The inputs, written as JSON and read back, give the same table byte for byte; the
    hand's script (``luck-table history``) replays to the hand the table holds."""
    table = driver.first
    assert table is not None
    for item in driver.inputs:
        table = apply(table, input_from_json(json.loads(json.dumps(item.to_json())))).table
    assert json.dumps(table.to_json()) == driver.dump()
    recorded = HandRecorder().in_progress(driver.table)
    assert recorded is not None
    assert recorded.matches(recorded.replay()), recorded.replay().error


def third_street_down(driver: TableDriver) -> TableDriver:
    """Seats 1 and 2 get their two hole cards, confirmed by the seat board."""
    return driver.read("As Ks Ad Kd", confirm=True)


# A misread corrected after the next card was dealt ------------------------------------


def test_a_four_of_clubs_misread_as_4d_earns_its_bonus_card_late_and_no_card_moves():
    driver = third_street_down(TableDriver.make().start({1: 200, 2: 200}))
    driver.ok(card_read, code=code("4d"))  # seat 1's up card: it is the 4c
    driver.ok(card_at_seat, seat=1, code=None)  # the seat's reader did not know it
    driver.read("5d", confirm=True)  # face up to seat 2, confirmed there
    assert driver.table.signals.display == "BETTING: seat 2 to act"
    step = driver.ok(CorrectCard, wrong=card("4d"), right=card("4c"), **SUPERVISOR)
    assert driver.table.alerts == ()
    assert holding(driver, 2)[-1] == ("5d", "up", False)  # the 5d lies face up at seat 2
    assert holding(driver, 1)[-1] == ("4c", "up", False)
    assert driver.table.signals.display == "BONUS CARD: seat 1, face down"
    assert driver.table.signals.lamps == Lamps(True, (1,))
    assert BonusEarned(seat=1, price=0, stack=199) in step.effects  # due, late
    driver.read("9h", confirm=True)  # the late bonus card: the next card, to seat 1
    assert holding(driver, 1)[-1] == ("9h", "down", True)
    assert driver.table.unconfirmed == () and driver.table.alerts == ()
    assert driver.table.signals.display == "BETTING: seat 2 to act"  # 5d brings in (4c: ace)
    journal_replays(driver)


def test_an_up_card_misread_as_the_four_of_clubs_makes_the_dealt_bonus_card_dead():
    driver = third_street_down(TableDriver.make().start({1: 200, 2: 200}))
    driver.read("4c", confirm=True)  # seat 1's up card as read: it is the 4d
    assert driver.table.signals.display == "BONUS CARD: seat 1, face down"
    driver.read("9h 5d", confirm=True)  # the bonus card to seat 1, then seat 2's up card
    step = driver.ok(CorrectCard, wrong=card("4c"), right=card("4d"), **SUPERVISOR)
    assert holding(driver, 1) == [("As", "down", False), ("Ad", "down", False), ("4d", "up", False)]
    assert holding(driver, 2)[-1] == ("5d", "up", False)  # not moved to seat 2's hand
    alert = driver.table.alerts[0]
    assert (alert.kind, alert.seat, alert.card) == (AlertKind.DEAD_CARD, 1, card("9h"))
    assert "take the face-down bonus card away from seat 1" in alert.remedy
    assert driver.table.signals.mode is Mode.PAUSED
    assert any(effect.kind == "dead_card" for effect in step.effects)
    driver.resolve(AlertKind.DEAD_CARD, Remedy.DONE)
    assert driver.table.signals.display == "BETTING: seat 2 to act"
    driver.ok(card_read, code=code("9h"))  # the dead card can never come out again
    assert driver.table.alerts[-1].kind is AlertKind.CARD_IN_PLAY
    journal_replays(driver)


def test_an_up_card_misread_as_the_four_of_clubs_before_its_bonus_card_is_dealt():
    driver = third_street_down(TableDriver.make().start({1: 200, 2: 200}))
    driver.read("4c", confirm=True)
    driver.ok(CorrectCard, wrong=card("4c"), right=card("4d"), **SUPERVISOR)
    assert driver.table.alerts == ()
    assert driver.table.signals.display == "DEAL: seat 2, face up"  # no bonus card due
    assert driver.table.signals.lamps == Lamps(False, (2,))
    journal_replays(driver)


# A misread caught by the seat's reader -------------------------------------------------


def test_a_misread_caught_by_the_seat_reader_is_a_mismatch_cleared_by_the_correction():
    driver = third_street_down(TableDriver.make().start({1: 200, 2: 200}))
    driver.ok(card_read, code=code("4d"))  # seat 1's up card
    driver.ok(card_at_seat, seat=1, code=code("4c"))  # the seat's reader: the 4c
    alert = driver.table.alerts[0]
    assert alert.kind is AlertKind.CARD_MISMATCH and alert.rule.blocking
    assert (alert.seat, alert.card) == (1, card("4c"))
    assert "supervisor corrects 4d to 4c" in alert.remedy
    assert "take the card away" not in alert.remedy
    driver.ok(card_at_seat, seat=1, code=code("4c"))  # reported again: one alert
    assert len(driver.table.alerts) == 1
    step = driver.ok(CorrectCard, wrong=card("4d"), right=card("4c"), **SUPERVISOR)
    assert "alert_cleared" in [effect.kind for effect in step.effects]
    assert driver.table.alerts == () and driver.table.unconfirmed == ()  # seen where it is
    assert driver.table.signals.display == "BONUS CARD: seat 1, face down"
    journal_replays(driver)


def test_the_real_card_in_play_after_a_misread_is_dealt_once_the_misread_is_corrected():
    """The 4c is misread as 4d; the real 4d comes out next: a card in play, taken away.
    Correcting 4d to 4c clears that alert, and the 4d is the card due (seat 1's late bonus
    card, face down), placed where the table says."""
    driver = third_street_down(TableDriver.make().start({1: 200, 2: 200}))
    driver.ok(card_read, code=code("4d"))  # seat 1's up card: it is the 4c
    driver.ok(card_at_seat, seat=1, code=None)  # the seat's reader did not know it
    driver.ok(card_read, code=code("4d"))  # the real 4d, for seat 2
    assert [alert.kind for alert in driver.table.alerts] == [AlertKind.CARD_IN_PLAY]
    step = driver.ok(CorrectCard, wrong=card("4d"), right=card("4c"), **SUPERVISOR)
    cleared = [effect for effect in step.effects if isinstance(effect, Cleared)]
    assert [effect.by for effect in cleared] == [Clearance.NO_LONGER_IN_PLAY]
    assert driver.table.alerts == ()
    assert holding(driver, 1) == [
        ("As", "down", False),
        ("Ad", "down", False),
        ("4c", "up", False),
        ("4d", "down", True),
    ]
    driver.ok(card_at_seat, seat=1, code=code("4d"))  # placed where the table said
    assert driver.table.unconfirmed == () and driver.table.alerts == ()
    driver.read("5d", confirm=True)  # seat 2's up card
    assert holding(driver, 2)[-1] == ("5d", "up", False)
    assert driver.table.alerts == ()
    journal_replays(driver)


def test_a_second_copy_stays_in_play_when_another_card_is_corrected():
    driver = third_street_down(TableDriver.make().start({1: 200, 2: 200}))
    driver.ok(card_read, code=code("5h"))  # seat 1's up card: it is the 5c
    driver.ok(card_at_seat, seat=1, code=None)
    driver.ok(card_read, code=code("As"))  # a second As: the deck is wrong
    driver.ok(CorrectCard, wrong=card("5h"), right=card("5c"), **SUPERVISOR)
    assert [alert.kind for alert in driver.table.alerts] == [AlertKind.CARD_IN_PLAY]


def test_a_mismatch_where_the_shoe_was_right_is_resolved_done():
    driver = third_street_down(TableDriver.make().start({1: 200, 2: 200}))
    driver.ok(card_read, code=code("4d"))
    driver.ok(card_at_seat, seat=1, code=code("4c"))
    driver.resolve(AlertKind.CARD_MISMATCH, Remedy.DONE)
    assert driver.table.alerts == ()
    assert driver.table.signals.display == "DEAL: seat 2, face up"


# Wrong faces ---------------------------------------------------------------------------


def test_an_exposed_hole_card_on_third_street_makes_the_up_card_come_down():
    driver = TableDriver.make().start({1: 200, 2: 200})
    driver.read("As Ks", confirm=True)
    driver.ok(WrongFace, seat=1, card=card("As"), **SUPERVISOR)  # seat 1's first card, up
    driver.read("Ad Kd", confirm=True)
    assert driver.table.signals.display == "DEAL: seat 1, face down"  # its third card
    driver.read("2c 9h", confirm=True)
    assert holding(driver, 1) == [("As", "up", False), ("Ad", "down", False), ("2c", "down", False)]
    # the exposed ace is seat 1's up card: seat 2's 9h is the low card and brings in
    assert driver.table.signals.display == "BETTING: seat 2 to act"
    public = view(driver.table, Role.PUBLIC)
    seat_1 = next(entry for entry in public["seats"] if entry["seat"] == 1)
    assert [c["card"] for c in seat_1["cards"]] == ["As", None, None]
    journal_replays(driver)


def test_an_exposed_hole_card_after_the_bring_in_stays_a_hole_card_the_public_sees():
    driver = third_street_down(TableDriver.make().start({1: 200, 2: 200}))
    driver.read("2c 9h", confirm=True)
    driver.act(1, "bring_in")
    driver.ok(WrongFace, seat=2, card=card("Ks"), **SUPERVISOR)
    ks = driver.table.hand.player(2).cards[0]
    assert (ks.up, ks.exposed) == (False, True)
    assert driver.table.signals.display == "BETTING: seat 2 to act"  # nothing else changes
    public = view(driver.table, Role.PUBLIC)
    seat_2 = next(entry for entry in public["seats"] if entry["seat"] == 2)
    assert seat_2["cards"][0]["card"] == "Ks"
    journal_replays(driver)


def test_a_four_of_clubs_dealt_face_down_where_up_was_due_earns_no_bonus_card():
    driver = third_street_down(TableDriver.make().start({1: 200, 2: 200}))
    driver.read("4c", confirm=True)  # due face up; the dealer pitched it face down
    assert driver.table.signals.display == "BONUS CARD: seat 1, face down"
    step = driver.ok(WrongFace, seat=1, card=card("4c"), **SUPERVISOR)
    assert DealtDown(1, card("4c")) in step.effects  # the dealer turns it face up
    assert driver.table.signals.display == "DEAL: seat 2, face up"
    assert holding(driver, 1)[-1] == ("4c", "up", False)
    journal_replays(driver)


def test_a_four_of_clubs_found_face_down_after_its_bonus_card_was_dealt():
    driver = third_street_down(TableDriver.make().start({1: 200, 2: 200}))
    driver.read("4c 9h", confirm=True)
    driver.ok(WrongFace, seat=1, card=card("4c"), **SUPERVISOR)
    assert driver.table.alerts[0].kind is AlertKind.DEAD_CARD
    assert ("9h", "down", True) not in holding(driver, 1)
    journal_replays(driver)


def test_a_bonus_card_dealt_face_up_is_exposed():
    driver = third_street_down(TableDriver.make().start({1: 200, 2: 200}))
    driver.read("4c 9h 5d", confirm=True)
    driver.ok(WrongFace, seat=1, card=card("9h"), **SUPERVISOR)
    bonus = driver.table.hand.player(1).cards[-1]
    assert (bonus.card, bonus.bonus, bonus.exposed) == (card("9h"), True, True)
    assert driver.table.hand.phase is Phase.BETTING
    journal_replays(driver)


def test_wrong_face_is_refused_for_a_card_not_at_that_seat():
    driver = third_street_down(TableDriver.make().start({1: 200, 2: 200}))
    assert driver.refused(WrongFace, seat=1, card=card("Ks"), **SUPERVISOR) is Refuse.NOT_SEATS_CARD
    assert driver.refused(WrongFace, seat=1, card=card("As"), who="S1", why="") is Refuse.WHO_NEEDED


# A card pitched to a folded seat -------------------------------------------------------


def test_a_card_pitched_to_a_folded_seat_is_a_card_at_an_empty_seat():
    driver = TableDriver.make().start({1: 200, 2: 200, 3: 200})
    driver.read("As Ks Qs Ad Kd Qd 2c 9h 8h", confirm=True)
    driver.act(1, "bring_in")
    driver.act(2, "fold")
    driver.act(3, "call")
    driver.read("3c 7d")  # the burn, then seat 1's fourth-street card
    driver.ok(card_at_seat, seat=2, code=code("7d"))  # it lands at the folded seat 2
    alert = driver.table.alerts[0]
    assert alert.kind is AlertKind.CARD_AT_EMPTY_SEAT and (alert.seat, alert.belongs) == (2, 1)
    assert alert.remedy == "move it to seat 1: the seat board confirms it there"
    driver.ok(card_at_seat, seat=1, code=code("7d"))
    assert driver.table.alerts == ()


# The scramble -------------------------------------------------------------------------


def play_to_the_scramble() -> TableDriver:
    """Eight players check and call to seventh street with burns: 51 cards are out, and
    the engine scrambles the 3 burn cards with the stub for the community card."""
    driver = TableDriver.make(seat_board=False).start({seat: 200 for seat in range(1, 9)})
    deck = iter(range(52))
    while not any(effect.kind == "scramble" for effect in driver.effects):
        waiting = driver.table.hand.waiting_for
        if waiting.kind == "card":
            driver.ok(card_read, code=next(deck))
        else:
            legal = {choice.do for choice in waiting.legal}
            do = next(do for do in (Do.CHECK, Do.CALL, Do.BRING_IN) if do in legal)
            driver.ok(Decide, seat=waiting.seat, do=do)
    return driver


def test_the_scramble_is_shown_until_the_shoe_reports_the_reload():
    driver = play_to_the_scramble()
    shown = "SCRAMBLE: the 3 burn cards with the stub, then load them in the shoe"
    assert driver.table.signals.display == shown
    assert driver.table.signals.lamps == Lamps()  # no seat lamp: nothing is to be dealt
    assert shown in [effect.message for effect in driver.effects if effect.kind == "display"]
    assert view(driver.table, Role.DEALER)["display"] == shown
    text = driver.dump()
    assert json.dumps(Table.from_json(json.loads(text)).to_json()) == text
    step = driver.ok(deck_loaded, count=driver.table.hand.stub)  # the stub and the burns
    assert driver.table.signals.display == "COMMUNITY CARD"
    assert [effect.kind for effect in step.effects] == ["deck", "display"]
    journal_replays(driver)


def test_three_third_street_cards_face_up_are_a_misdeal_the_history_replays():
    driver = TableDriver.make().start({1: 200, 2: 200})
    driver.read("As Ks", confirm=True)
    driver.ok(WrongFace, seat=1, card=card("As"), **SUPERVISOR)
    driver.read("Ad Kd", confirm=True)
    driver.ok(WrongFace, seat=1, card=card("Ad"), **SUPERVISOR)
    driver.read("2c", confirm=True)  # seat 1's third card, dealt down as due: it came up
    driver.ok(card_at_seat, seat=2, code=code("Kd"))
    step = driver.ok(WrongFace, seat=1, card=card("2c"), **SUPERVISOR)
    assert driver.table.hand.phase is Phase.VOID and not driver.table.in_hand
    assert {seat.seat: seat.stack for seat in driver.table.seats} == {1: 200, 2: 200}
    assert "hand_over" in [effect.kind for effect in step.effects]
    (recorded,) = HandRecorder().observe(step)
    assert recorded.matches(recorded.replay()), recorded.replay().error


def test_a_snapshot_from_before_the_scramble_was_shown_reads_back():
    driver = third_street_down(TableDriver.make().start({1: 200, 2: 200}))
    older = json.loads(driver.dump())
    del older["scramble_due"]
    assert Table.from_json(older) == driver.table
