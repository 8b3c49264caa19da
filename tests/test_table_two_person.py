"""Two-person control in the table core (``[protection] two_person``): a void, a correction
to or from a wild card and a stack correction need a second supervisor, another than the
first; refused with the table unchanged otherwise, and journaled with both ids. The API's
two approvals: tests/test_two_person_api.py."""

from __future__ import annotations

import json
from typing import Any

from controller.rules import parse_card
from controller.table import (
    AlertKind,
    CorrectCard,
    CorrectStack,
    Covered,
    EnterCard,
    Refuse,
    ResolveAlert,
    SupervisorInput,
    Table,
    TableInput,
    TableSettings,
    VoidHand,
    Why,
    input_from_json,
    second_needed,
)
from controller.table.inputs import Remedy
from controller.table.settings import Protection
from drivers.protocol import Disposition
from tests.device_inputs import card_unreadable
from tests.table_driver import TableDriver

TWO = Protection(two_person=True)
FIRST = {"who": "S100", "why": "checked"}
BOTH = {**FIRST, "second": "S300"}


def covered(
    driver: TableDriver, make: type[TableInput], **fields: Any
) -> tuple[Covered | None, Why]:
    """What of ``make(**fields)`` the two-person control covers, and the code of its
    refusal (the control's: the table unchanged, the words saying it for people)."""
    refusal = driver.refusal(make, **fields)
    item = make(at=driver.clock, **fields)
    assert isinstance(item, SupervisorInput) and refusal.message, refusal
    return second_needed(driver.table, item), refusal.code


def hand(protection: Protection = TWO, **rules: str) -> TableDriver:
    driver = TableDriver.make(True, protection, **rules).start({1: 500, 2: 500})
    driver.read("7h 8h", confirm=True)
    return driver


def replays(driver: TableDriver) -> None:
    assert driver.replayed() == driver.dump()
    assert Table.from_json(json.loads(driver.dump())).to_json() == driver.table.to_json()


def test_a_void_needs_a_second_supervisor_other_than_the_first() -> None:
    driver = hand()
    refused = covered(driver, VoidHand, **FIRST)  # the table unchanged (TableDriver.refusal)
    assert refused == (Covered.VOID, Refuse.SECOND_NEEDED)
    assert driver.refusal(VoidHand, **FIRST, second="S100").message == (
        "a void needs a second supervisor other than S100 (two-person control)"
    )
    assert covered(driver, VoidHand, **FIRST, second="S100") == (Covered.VOID, Refuse.SECOND_SAME)
    assert driver.table.in_hand
    step = driver.ok(VoidHand, **BOTH)
    assert not driver.table.in_hand
    said = [effect for effect in step.effects if effect.kind == "supervisor"]
    assert said[0].say() == "hand 1 is void (supervisor S100 and S300: checked)"
    assert said[0].data == {"type": "void_hand", "at": said[0].data["at"], **BOTH}
    replays(driver)


def test_a_correction_to_or_from_a_wild_card_needs_two_and_another_one() -> None:
    driver = hand()
    to_wild = {"wrong": parse_card("7h"), "right": parse_card("4c")}
    wild = (Covered.WILD_CORRECTION, Refuse.SECOND_NEEDED)
    assert covered(driver, CorrectCard, **to_wild, **FIRST) == wild
    from_wild = {"wrong": parse_card("8h"), "right": parse_card("4d")}
    assert covered(driver, CorrectCard, **from_wild, **FIRST) == wild
    driver.ok(CorrectCard, wrong=parse_card("7h"), right=parse_card("9h"), **FIRST)
    driver.ok(CorrectCard, **to_wild | {"wrong": parse_card("9h")}, **BOTH)
    back = {"wrong": parse_card("4c"), "right": parse_card("7h")}
    assert covered(driver, CorrectCard, **back, **FIRST) == wild
    replays(driver)


def test_a_card_entered_as_a_wild_card_needs_two() -> None:
    driver = TableDriver.make(False, TWO).start({1: 500, 2: 500})
    driver.ok(card_unreadable, disposition=Disposition.DEALT_UNREAD)
    entered = covered(driver, EnterCard, card=parse_card("4c"), **FIRST)
    assert entered == (Covered.WILD_ENTERED, Refuse.SECOND_NEEDED)
    driver.ok(EnterCard, card=parse_card("4c"), **BOTH)
    driver.ok(card_unreadable, disposition=Disposition.DEALT_UNREAD)
    driver.ok(EnterCard, card=parse_card("Qh"), **FIRST)  # not wild: one is enough
    assert driver.table.alerts == ()
    replays(driver)


def test_a_remedy_that_voids_the_hand_needs_two_others_do_not() -> None:
    driver = TableDriver.make(False, TWO).start({1: 500, 2: 500})
    driver.read("7h")
    driver.ok(card_unreadable, disposition=Disposition.DEALT_UNREAD)
    driver.ok(EnterCard, card=parse_card("7h"), **FIRST)  # a card in play: wrong_card_named
    alert = driver.alert(AlertKind.WRONG_CARD_NAMED)
    refused = covered(driver, ResolveAlert, alert=alert, remedy=Remedy.VOID, **FIRST)
    assert refused == (Covered.VOID, Refuse.SECOND_NEEDED)
    replace = ResolveAlert(at=0, alert=alert, remedy=Remedy.REPLACE_DECK, **FIRST)
    assert second_needed(driver.table, replace) is Covered.VOID  # the hand in progress is void
    driver.ok(ResolveAlert, alert=alert, remedy=Remedy.DONE, **FIRST)
    replays(driver)


def test_a_stack_correction_needs_two() -> None:
    driver = TableDriver.make(True, TWO).seat({1: 500, 2: 500})
    stack = covered(driver, CorrectStack, seat=1, stack=450, **FIRST)
    assert stack == (Covered.STACK_CORRECTION, Refuse.SECOND_NEEDED)
    step = driver.ok(CorrectStack, seat=1, stack=450, **BOTH)
    assert driver.table.seat(1).stack == 450  # type: ignore[union-attr]
    journaled = [e.data for e in step.effects if e.kind == "supervisor"]
    assert journaled[0]["who"] == "S100" and journaled[0]["second"] == "S300"


def test_without_the_setting_or_the_wild_cards_one_supervisor_is_enough() -> None:
    plain = hand(Protection())
    plain.ok(CorrectCard, wrong=parse_card("7h"), right=parse_card("4c"), **FIRST)
    plain.ok(VoidHand, **FIRST)
    stud = hand(variant="seven-card-stud")  # no wild cards: a four is a four
    stud.ok(CorrectCard, wrong=parse_card("7h"), right=parse_card("4c"), **FIRST)
    assert covered(stud, VoidHand, **FIRST) == (Covered.VOID, Refuse.SECOND_NEEDED)


def test_the_second_id_is_journaled_only_when_given_and_the_setting_reads_back() -> None:
    void = input_from_json({"type": "void_hand", "at": 5, **FIRST})
    assert "second" not in void.to_json()  # journals from before read and write the same
    both = input_from_json({"type": "void_hand", "at": 5, **BOTH})
    assert both.to_json()["second"] == "S300"
    assert second_needed(Table(TableSettings(protection=TWO)), both) is Covered.VOID  # type: ignore[arg-type]
    old = TableSettings().to_json()
    del old["protection"]["two_person"]
    assert TableSettings.from_json(old).protection.two_person is False
    assert TableSettings.from_json(TableSettings(protection=TWO).to_json()).protection == TWO
