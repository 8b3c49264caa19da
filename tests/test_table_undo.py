"""Undoing the last decision (``undo_decision``): the hand as it was before it, as long as
no card has been dealt since; refused otherwise, and for any decision but the last; the
journal replays to the same table and the hand's script to the same hand."""

from __future__ import annotations

from controller.rules import Do
from controller.table import Refuse, UndoDecision
from tests.table_driver import TableDriver
from tests.test_table_corrections import SUPERVISOR, journal_replays, third_street_down


def betting() -> TableDriver:
    """Third street dealt to seats 1 and 2: seat 1 (the 2c) brings in."""
    driver = third_street_down(TableDriver.make().start({1: 200, 2: 200}))
    driver.read("2c 9h", confirm=True)
    return driver


def test_the_last_decision_undone_gives_the_hand_as_it_was_before_it():
    driver = betting()
    before = driver.dump()
    step = driver.act(1, "bring_in")
    assert not step.refused and driver.table.signals.display == "BETTING: seat 2 to act"
    bring_in = driver.table.hand
    driver.act(2, "call")
    undone = driver.ok(UndoDecision, seat=2, do=Do.CALL, **SUPERVISOR)
    assert driver.table.hand == bring_in
    assert driver.table.signals.display == "BETTING: seat 2 to act"
    assert "seat 2's call is undone (supervisor S100: checked at the table)" in [
        effect.message for effect in undone.effects
    ]
    driver.ok(UndoDecision, seat=1, do=Do.BRING_IN, **SUPERVISOR)  # and the one before
    assert driver.dump() == before
    driver.act(1, "complete")  # decided again, and the hand goes on
    assert driver.table.signals.display == "BETTING: seat 2 to act"
    journal_replays(driver)


def test_an_undo_is_refused_once_a_card_is_dealt_or_for_another_decision():
    driver = betting()
    assert (
        driver.refused(UndoDecision, seat=1, do=Do.BRING_IN, **SUPERVISOR) is Refuse.NOTHING_TO_UNDO
    )
    driver.act(1, "bring_in")
    assert (
        driver.refused(UndoDecision, seat=1, do=Do.CALL, **SUPERVISOR) is Refuse.NOT_LAST_DECISION
    )
    driver.act(2, "call")  # the street ends: fourth street's cards are due
    driver.read("3d")
    refused = driver.refused(UndoDecision, seat=2, do=Do.CALL, **SUPERVISOR)
    assert refused is Refuse.DECISION_STANDS
    journal_replays(driver)


def test_a_decision_that_ended_the_hand_stands():
    driver = betting()
    driver.act(1, "bring_in")
    driver.act(2, "fold")
    assert not driver.table.in_hand
    refused = driver.refused(UndoDecision, seat=2, do=Do.FOLD, **SUPERVISOR)
    assert refused is Refuse.NO_HAND
