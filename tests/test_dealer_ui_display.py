"""The broadcast line of the public and the players, and the OpenAPI model of the views:
every field of every role's view, exactly."""

from __future__ import annotations

from controller.rules import parse_card
from controller.table import Mode, NewHand
from dealer_ui.models import ViewOut
from dealer_ui.views import Role, view
from tests.device_inputs import card_read, deck_loaded
from tests.table_driver import TableDriver
from tests.test_dealer_ui_views import fourth_street_burned, third_street


def test_the_public_and_the_players_read_the_table_not_the_dealers_instructions() -> None:
    driver = TableDriver.make(seat_board=False).start({1: 200, 2: 200})
    assert driver.table.signals.display == "DEAL: seat 1, face down"
    lines = {role: view(driver.table, role, 1)["display"] for role in Role}
    assert lines[Role.DEALER] == lines[Role.SURVEILLANCE] == "DEAL: seat 1, face down"
    assert lines[Role.PUBLIC] == lines[Role.PLAYER] == "Third street: dealing"
    assert {view(driver.table, role, 1)["mode"] for role in Role} == {Mode.DEAL}
    driver = third_street()  # the four of clubs face up to seat 1: its bonus card is due
    assert driver.table.signals.display == "BONUS CARD: seat 1, face down"
    assert view(driver.table, Role.PUBLIC)["display"] == "Bonus card to seat 1"
    assert {view(driver.table, role, 1)["mode"] for role in Role} == {Mode.BONUS_CARD}
    driver = fourth_street_burned()
    assert driver.table.signals.mode is Mode.DEAL  # the burn is out
    assert view(driver.table, Role.PUBLIC)["display"] == "Fourth street: dealing"
    driver.ok(card_read, code=int(parse_card("Kd")))  # a card already in play: the pause
    assert driver.table.signals.mode is Mode.PAUSED
    assert driver.table.signals.display.startswith("PAUSED: ")
    for role, seat in ((Role.PUBLIC, None), (Role.PLAYER, 1)):  # the pause, not the alert
        seen = view(driver.table, role, seat)
        assert seen["display"] == "Table paused" and seen["paused"] and seen["alerts"] == []
        assert seen["mode"] == Mode.PAUSED
    assert view(driver.table, Role.DEALER)["alerts"]


def test_the_display_s_mode_follows_the_hand_and_hides_the_burn_from_the_broadcast() -> None:
    """The mode of the dealer's line and of the broadcast line, from before the first hand
    through a burn (the dealer's ``burn``, the broadcast's ``deal``) to the betting."""
    driver = TableDriver.make(seat_board=False)
    assert driver.table.signals.mode is Mode.LOAD_DECK
    assert view(driver.table, Role.PUBLIC)["mode"] == Mode.BETWEEN_HANDS
    driver.ok(deck_loaded, count=52)
    assert driver.table.signals.mode is Mode.WAITING_FOR_PLAYERS
    driver.seat({1: 200, 2: 200})
    assert driver.table.signals.mode is Mode.READY
    driver.ok(NewHand)
    driver.read("Kd Qh 2c 3d 9s 8h")  # third street
    assert view(driver.table, Role.DEALER)["mode"] == Mode.BETTING
    assert view(driver.table, Role.PUBLIC)["mode"] == Mode.BETTING
    first = driver.table.hand.waiting_for.seat  # type: ignore[union-attr]  # in a hand
    driver.act(first, "bring_in")
    driver.act(3 - first, "call")
    assert view(driver.table, Role.DEALER)["mode"] == Mode.BURN
    assert view(driver.table, Role.PUBLIC)["mode"] == Mode.DEAL


def test_the_openapi_view_model_holds_every_field_of_every_role_s_view() -> None:
    driver = fourth_street_burned()
    driver.ok(card_read, code=int(parse_card("Kd")))  # an alert with its card
    for table in (TableDriver.make().table, third_street().table, driver.table):
        for role in Role:
            seen = view(table, role, 1 if role is Role.PLAYER else None)
            modelled = ViewOut.model_validate(seen).model_dump(by_alias=True, exclude_unset=True)
            assert modelled == seen, role
