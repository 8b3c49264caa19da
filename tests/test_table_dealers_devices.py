"""The dealer of every hand (``dealer_in``) and the devices' identity (``device_replaced``)
in the table core."""

from __future__ import annotations

import json
from dataclasses import replace

from controller.table import (
    AlertKind,
    Clearance,
    Cleared,
    Configure,
    DealerIn,
    LinkUp,
    Mode,
    NewHand,
    Refuse,
    Serials,
    Table,
    alerts,
)
from controller.table.effects import DealerIn as DealerInEffect
from controller.table.effects import HandStarted
from controller.table.inputs import Remedy
from drivers.protocol import DeviceKind
from tests.table_driver import TableDriver


def started(driver: TableDriver) -> list[HandStarted]:
    return [effect for effect in driver.effects if isinstance(effect, HandStarted)]


def play_out(driver: TableDriver) -> None:
    """Third street to seats 1 and 2 (seat 1 brings it in), then seat 2 folds."""
    driver.read("2c 3d 4h 5s 6c 7d")
    driver.act(1, "bring_in")
    assert driver.act(2, "fold").refused is None
    assert not driver.table.in_hand


def test_dealer_in_names_the_dealer_of_the_hands_that_begin_after_it() -> None:
    driver = TableDriver.make(seat_board=False)
    driver.ok(DealerIn, who="D100")
    driver.start({1: 200, 2: 200})
    assert (driver.table.dealer, driver.table.hand_dealer) == ("D100", "D100")
    assert started(driver)[-1].dealer == "D100"
    assert started(driver)[-1].data["dealer"] == "D100"
    assert driver.refused(DealerIn, who="D100") is Refuse.ALREADY_DEALER


def test_a_push_during_a_hand_takes_effect_at_the_next_hand() -> None:
    driver = TableDriver.make(seat_board=False)
    driver.ok(DealerIn, who="D100")
    driver.start({1: 200, 2: 200})
    step = driver.ok(DealerIn, who="D200")
    told = [effect for effect in step.effects if isinstance(effect, DealerInEffect)]
    assert [effect.message for effect in told] == [
        "dealer D200 deals from the next hand on (after D100)"
    ]
    assert (driver.table.dealer, driver.table.hand_dealer) == ("D200", "D100")
    assert Table.from_json(json.loads(driver.dump())) == driver.table
    play_out(driver)
    assert driver.table.hand_dealer == "D100"  # the hand over keeps its dealer
    driver.start()
    assert [hand.dealer for hand in started(driver)] == ["D100", "D200"]
    assert driver.replayed() == driver.dump()


def test_a_table_that_names_no_dealer_writes_what_it_wrote_before() -> None:
    driver = TableDriver.make(seat_board=False)
    driver.start({1: 200, 2: 200})
    written = driver.table.to_json()
    assert not {"dealer", "hand_dealer", "accepted"} & set(written)
    assert "serials" not in written["settings"]
    assert started(driver)[-1].data == {"hand": 1, "at": driver.clock, "seats": [1, 2]}


def expecting(shoe: str) -> TableDriver:
    driver = TableDriver.make(seat_board=False)
    settings = replace(driver.table.settings, serials=Serials(shoe=shoe))
    driver.table = driver.first = Table(settings)
    return driver


def test_a_shoe_with_another_serial_blocks_until_a_supervisor_accepts_it() -> None:
    driver = expecting("SHOE-1")
    driver.seat({1: 200, 2: 200})
    step = driver.ok(LinkUp, device=DeviceKind.SHOE, boot=3, serial="SHOE-9")
    alert = driver.table.alert(driver.alert(AlertKind.DEVICE_REPLACED))
    assert alert is not None and driver.table.blocks(alert)
    assert alert.facts == alerts.DeviceReplaced(DeviceKind.SHOE, "SHOE-9", "SHOE-1")
    assert alert.rule.remedies == (Remedy.DONE,)
    assert alert.to_json()["device"] == "shoe"
    assert step.signals.mode is Mode.PAUSED
    assert driver.refused(NewHand) is Refuse.ALERTS_OPEN
    # the same device saying HELLO again raises no second alert
    driver.ok(LinkUp, device=DeviceKind.SHOE, boot=4, serial="SHOE-9")
    assert driver.alert(AlertKind.DEVICE_REPLACED) == alert.id
    driver.resolve(AlertKind.DEVICE_REPLACED, Remedy.DONE)
    assert driver.table.expected_serial(DeviceKind.SHOE) == "SHOE-9"
    assert driver.table.to_json()["accepted"] == {"shoe": "SHOE-9"}
    driver.ok(LinkUp, device=DeviceKind.SHOE, boot=5, serial="SHOE-9")  # accepted: no alert
    assert not driver.table.alerts
    driver.start()
    assert driver.table.in_hand
    assert Table.from_json(json.loads(driver.dump())) == driver.table
    assert driver.replayed() == driver.dump()


def test_the_expected_device_back_clears_the_alert() -> None:
    driver = expecting("SHOE-1")
    driver.ok(LinkUp, device=DeviceKind.SHOE, serial="SHOE-9")
    driver.alert(AlertKind.DEVICE_REPLACED)
    step = driver.ok(LinkUp, device=DeviceKind.SHOE, serial="SHOE-1")
    assert not driver.table.alerts
    cleared = [effect for effect in step.effects if isinstance(effect, Cleared)]
    assert [(c.by, c.message) for c in cleared] == [
        (Clearance.SERIAL_EXPECTED, "alert 1 cleared: the shoe reports the serial expected")
    ]


def test_no_serial_known_or_none_configured_checks_nothing() -> None:
    driver = expecting("SHOE-1")
    driver.ok(LinkUp, device=DeviceKind.SHOE)  # a journal from before serials were kept
    driver.ok(LinkUp, device=DeviceKind.SEAT_BOARD, serial="ANY-BOARD")  # none configured
    assert not driver.table.alerts


def test_a_configured_serial_replaces_the_one_accepted() -> None:
    driver = expecting("SHOE-1")
    driver.ok(LinkUp, device=DeviceKind.SHOE, serial="SHOE-9")
    driver.resolve(AlertKind.DEVICE_REPLACED, Remedy.DONE)
    same = driver.table.settings
    driver.ok(Configure, settings=replace(same, min_buy_in=50))  # the serials unchanged
    assert driver.table.expected_serial(DeviceKind.SHOE) == "SHOE-9"
    driver.ok(Configure, settings=replace(same, serials=Serials(shoe="SHOE-5")))
    assert driver.table.accepted == ()
    assert driver.table.expected_serial(DeviceKind.SHOE) == "SHOE-5"
