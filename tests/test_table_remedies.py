"""Each remedy of an alert about a card at a seat leaves the seat board's pending
placements (``unconfirmed``) true: a card the supervisor says is where it belongs is no
longer awaited, a card still to be seen at its seat still is, and nothing the seat board
will never see is awaited for the rest of the hand (its reader's next unknown card at that
seat would confirm the wrong one)."""

from __future__ import annotations

import pytest

from controller.rules import parse_card
from controller.table import AlertKind, CorrectCard, Remedy, VoidHand
from tests.device_inputs import card_at_seat, card_read
from tests.table_driver import TableDriver, code
from tests.test_table_protection import SIGNED, draw, protected, tag


def dealt_down(stacks: dict[int, int] | None = None) -> TableDriver:
    """Seats 1 and 2 have their two hole cards, seen at their seats: seat 1's up card next."""
    return TableDriver.make().start(stacks or {1: 200, 2: 200}).read("As Ks Ad Kd", confirm=True)


def placements(driver: TableDriver) -> list[tuple[int, str]]:
    return [(p.seat, str(p.card)) for p in driver.table.unconfirmed]


def to_fourth_street(driver: TableDriver) -> TableDriver:
    """Seat 2's up card (5c, the low card: it brings in), seat 1 calls, the burn: seat 1's
    fourth-street card is next."""
    driver.read("5c", confirm=True)
    driver.act(2, "bring_in")
    driver.act(1, "call")
    driver.read("3h")  # the burn
    assert driver.table.signals.display == "DEAL: seat 1, face up"
    return driver


def test_a_mismatch_resolved_done_confirms_the_shoes_card_where_it_lies():
    """Seat 1's reader misreads the 9d as the 9h; the supervisor looks: it is the 9d, the
    shoe was right. The 9d is seen at seat 1, and the reader's next card there, one it did
    not know, is the fourth-street card the shoe dealt, not the 9d again."""
    driver = dealt_down()
    driver.ok(card_read, code=code("9d"))  # seat 1's up card
    driver.ok(card_at_seat, seat=1, code=code("9h"))  # the seat's reader: the 9h
    assert driver.table.alerts[0].kind is AlertKind.CARD_MISMATCH
    driver.resolve(AlertKind.CARD_MISMATCH, Remedy.DONE)
    assert placements(driver) == [] and driver.table.alerts == ()
    driver.ok(card_at_seat, seat=1, code=code("9d"))  # read right this time: seen again
    assert placements(driver) == [] and driver.table.alerts == ()
    to_fourth_street(driver)
    driver.ok(card_read, code=code("7d"))  # seat 1's fourth-street card
    assert placements(driver) == [(1, "7d")]
    driver.ok(card_at_seat, seat=1, code=None)  # its reader did not know it
    assert placements(driver) == [] and driver.table.alerts == ()
    assert driver.replayed() == driver.dump()


def test_a_mismatch_resolved_done_leaves_the_other_seats_cards_awaited():
    driver = dealt_down()
    driver.ok(card_read, code=code("9d"))  # seat 1's up card, not yet seen
    driver.ok(card_at_seat, seat=1, code=code("9h"))
    driver.resolve(AlertKind.CARD_MISMATCH, Remedy.DONE)
    driver.ok(card_read, code=code("5c"))  # seat 2's up card
    driver.ok(card_read, code=code("2c"))  # read while seat 2's 5c is still in the air
    assert placements(driver) == [(2, "5c")]


def test_a_mismatch_corrected_confirms_the_seats_card_where_it_lies():
    driver = dealt_down()
    driver.ok(card_read, code=code("9d"))
    driver.ok(card_at_seat, seat=1, code=code("9h"))
    driver.ok(CorrectCard, wrong=parse_card("9d"), right=parse_card("9h"), **SIGNED)
    assert placements(driver) == [] and driver.table.alerts == ()
    driver.ok(card_at_seat, seat=1, code=code("9h"))  # seen again: nothing
    assert placements(driver) == [] and driver.table.alerts == ()


def test_a_mismatch_where_both_readers_were_wrong_is_settled_by_the_correction():
    """The shoe read the 9d, the seat's reader the 9h: the supervisor looks, it is the 9c.
    Correcting the shoe's card names the card at the seat: seen there."""
    driver = dealt_down()
    driver.ok(card_read, code=code("9d"))
    driver.ok(card_at_seat, seat=1, code=code("9h"))
    driver.ok(CorrectCard, wrong=parse_card("9d"), right=parse_card("9c"), **SIGNED)
    assert placements(driver) == [] and driver.table.alerts == ()
    driver.ok(card_read, code=code("5c"))  # seat 2's up card
    assert placements(driver) == [(2, "5c")]


def test_a_mismatch_the_supervisor_voids_leaves_nothing_awaited():
    driver = dealt_down()
    driver.ok(card_read, code=code("9d"))
    driver.ok(card_at_seat, seat=1, code=code("9h"))
    driver.ok(VoidHand, **SIGNED)
    assert placements(driver) == [] and driver.table.alerts == ()


def test_a_misplaced_card_resolved_done_is_no_longer_awaited_at_its_seat():
    driver = dealt_down()
    driver.ok(card_read, code=code("9d"))  # seat 1's up card
    driver.ok(card_at_seat, seat=2, code=code("9d"))  # pitched to seat 2
    assert driver.table.alerts[0].kind is AlertKind.MISPLACED_CARD
    driver.resolve(AlertKind.MISPLACED_CARD, Remedy.DONE)  # the dealer moved it to seat 1
    assert placements(driver) == [] and driver.table.alerts == ()


def test_a_card_at_an_empty_seat_resolved_done_is_no_longer_awaited_at_its_seat():
    driver = dealt_down({1: 200, 2: 200, 3: 200})
    driver.read("Qs Qd", confirm=True)  # seat 3's hole cards (the deal went 1 2 3 1 2 3)
    driver.ok(card_read, code=code("9d"))  # seat 1's up card
    driver.ok(card_at_seat, seat=6, code=code("9d"))  # pitched to the empty seat 6
    assert driver.table.alerts[0].kind is AlertKind.CARD_AT_EMPTY_SEAT
    driver.resolve(AlertKind.CARD_AT_EMPTY_SEAT, Remedy.DONE)
    assert placements(driver) == [] and driver.table.alerts == ()


def test_a_card_not_dealt_resolved_done_leaves_the_seats_own_cards_awaited():
    """A card the shoe never dealt is at seat 2, whose up card is not yet dealt, while seat
    1's up card is still in the air: taking the stray card away leaves seat 1's awaited."""
    driver = dealt_down()
    driver.ok(card_read, code=code("9d"))  # seat 1's up card, not yet seen
    driver.ok(card_at_seat, seat=2, code=code("Jc"))  # a card the shoe never dealt, at seat 2
    assert driver.table.alerts[0].kind is AlertKind.CARD_NOT_DEALT
    driver.resolve(AlertKind.CARD_NOT_DEALT, Remedy.DONE)  # taken away
    assert placements(driver) == [(1, "9d")] and driver.table.alerts == ()
    driver.ok(card_at_seat, seat=1, code=code("9d"))
    assert placements(driver) == [] and driver.table.alerts == ()


def test_a_dead_bonus_card_is_no_longer_awaited_and_its_done_changes_nothing_else():
    driver = dealt_down()
    driver.read("4c", confirm=True)  # seat 1's up card as read: it is the 4d
    driver.ok(card_read, code=code("9h"))  # its bonus card, not yet seen
    driver.ok(card_read, code=code("5d"))  # seat 2's up card, not yet seen
    assert placements(driver) == [(1, "9h"), (2, "5d")]
    driver.ok(CorrectCard, wrong=parse_card("4c"), right=parse_card("4d"), **SIGNED)
    assert placements(driver) == [(2, "5d")]  # the dead card goes away unseen
    driver.resolve(AlertKind.DEAD_CARD, Remedy.DONE)
    assert placements(driver) == [(2, "5d")] and driver.table.alerts == ()


@pytest.mark.parametrize("remedy", [Remedy.DEAD, Remedy.REPLACE_DECK])
def test_a_hole_card_switched_for_another_face_is_no_longer_awaited(remedy: Remedy):
    """The 9s dealt to seat 2 is switched for an ace from a sleeve: the 9s will never be
    seen there, whatever the supervisor does with the ace."""
    driver = protected()
    draw(driver, "Qh")
    driver.ok(card_read, code=code("9s"), uid=tag(code("9s")))  # seat 2, face down
    driver.ok(card_at_seat, seat=2, code=code("Ac"), uid="04beef0002")
    assert driver.table.alerts[0].kind is AlertKind.FOREIGN_CARD
    assert placements(driver) == []
    driver.resolve(AlertKind.FOREIGN_CARD, remedy)
    assert placements(driver) == [] and driver.table.alerts == ()


def test_a_hole_card_switched_for_its_twin_and_taken_out_is_no_longer_awaited():
    driver = protected()
    draw(driver, "Qh")
    driver.ok(card_read, code=code("9s"), uid=tag(code("9s")))
    driver.ok(card_at_seat, seat=2, code=code("9s"), uid="04beef0001")  # another 9s there
    driver.resolve(AlertKind.FOREIGN_CARD, Remedy.DEAD)
    assert placements(driver) == [] and driver.table.alerts == ()
    draw(driver, "Qd")  # seat 1's next card, seen there
    assert placements(driver) == []
