"""Time collection at the table core: each player sitting in pays ``time_charge`` at the
first hand after each boundary of ``time_period`` minutes (the inputs' times, no clock);
a player who cannot pay sits out; the ledger counts it (docs/rules.md "Time collection")."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from controller.rules import Rules
from controller.sim.dealer import Tally
from controller.table import (
    Configure,
    NewHand,
    Refuse,
    SitDown,
    SitIn,
    SitOut,
    Table,
    TableSettings,
    VoidHand,
)
from controller.table.effects import SatOut, TimeCharged, TimeUnpaid
from controller.table.settings import SettingsError
from tests.device_inputs import deck_loaded
from tests.table_driver import TableDriver

PERIOD = 30 * 60_000  # ms
#: The start of a half hour (UTC): the periods run from the Unix epoch.
BOUNDARY = 1_700_000_000_000 // PERIOD * PERIOD + PERIOD


def timed(charge: int = 5, period: int = 30) -> TableDriver:
    driver = TableDriver.make()
    settings = replace(driver.table.settings, time_charge=charge, time_period=period)
    driver.ok(Configure, settings=settings)
    return driver


def new_hand(driver: TableDriver, at: int) -> list[object]:
    """A deck loaded and a new hand at ``at`` (ms): the new hand's effects."""
    driver.ok(deck_loaded, count=52)
    driver.clock = at - 250  # feed() moves the clock on by 250 ms
    return list(driver.ok(NewHand).effects)


def void(driver: TableDriver) -> None:
    driver.ok(VoidHand, who="S1", why="test")


def stacks(table: Table) -> dict[int, int]:
    return {seat.seat: seat.stack for seat in table.seats}


def assert_ledger(table: Table) -> None:
    """The chips by the ledger are the seats' stacks (a hand's at its start): the time
    charges are in the drop box."""
    assert table.chips == sum(seat.stack for seat in table.seats)


def test_each_player_pays_once_a_period_at_the_first_hand_after_its_boundary():
    driver = timed()
    for seat, chips in ((1, 100), (2, 200), (4, 300)):
        driver.ok(SitDown, seat=seat, player=f"P{seat}", buy_in=chips)
    first = new_hand(driver, BOUNDARY + 5_000)
    charged = [e for e in first if isinstance(e, TimeCharged)]
    assert [(e.seat, e.chips) for e in charged] == [(1, 5), (2, 5), (4, 5)]
    assert first.index(charged[-1]) < next(  # the charge comes before the hand begins
        i for i, e in enumerate(first) if type(e).__name__ == "HandStarted"
    )
    assert charged[0].say() == "TIME 5: seat 1, drop 5"
    table = driver.table
    assert table.time_collected == 15
    assert stacks(table) == {1: 95, 2: 195, 4: 295}  # what each began the hand with
    assert_ledger(table)
    void(driver)
    again = new_hand(driver, BOUNDARY + PERIOD - 1)  # the same period: nothing more
    assert not [e for e in again if isinstance(e, TimeCharged)]
    void(driver)
    assert driver.table.time_collected == 15
    later = new_hand(driver, BOUNDARY + 3 * PERIOD + 1)  # periods with no hand: charged once
    assert [e.seat for e in later if isinstance(e, TimeCharged)] == [1, 2, 4]
    assert driver.table.time_collected == 30
    assert_ledger(driver.table)


def test_a_player_who_cannot_pay_sits_out_and_one_sitting_out_is_not_charged():
    driver = timed(charge=10)
    for seat, chips in ((1, 100), (2, 100), (3, 100), (5, 100)):
        driver.ok(SitDown, seat=seat, player=f"P{seat}", buy_in=chips)
    driver.ok(SitOut, seat=5)
    new_hand(driver, BOUNDARY)
    void(driver)
    # seat 3 left with 6 chips (a correction stands for the hands it lost)
    table = driver.table
    seat3 = table.seat(3)
    assert seat3 is not None
    driver.table = table._replace(
        seats=tuple(s._replace(stack=6) if s.seat == 3 else s for s in table.seats),
        corrected=table.corrected - (seat3.stack - 6),
    )
    driver.ok(SitIn, seat=5)
    effects = new_hand(driver, BOUNDARY + PERIOD)
    assert [(e.seat, e.chips) for e in effects if isinstance(e, TimeUnpaid)] == [(3, 10)]
    assert [e.seat for e in effects if isinstance(e, SatOut)] == [3]
    assert [e.seat for e in effects if isinstance(e, TimeCharged)] == [1, 2, 5]
    table = driver.table
    assert table.seat(3) is not None and table.seat(3).sitting_out  # type: ignore[union-attr]
    assert table.hand is not None and sorted(table.hand.stacks()) == [1, 2, 5]
    assert table.seat(3).stack == 6  # type: ignore[union-attr]  # nothing taken
    assert table.time_collected == 30 + 30
    assert_ledger(table)


def test_a_hand_that_the_charge_leaves_without_two_players_is_refused_whole():
    driver = timed(charge=50)
    driver.ok(SitDown, seat=1, player="P1", buy_in=100)
    driver.ok(SitDown, seat=2, player="P2", buy_in=100)
    table = driver.table
    driver.table = table._replace(
        seats=tuple(s._replace(stack=40) if s.seat == 2 else s for s in table.seats),
        corrected=-60,
    )
    driver.ok(deck_loaded, count=52)
    before = driver.table
    assert driver.refused(NewHand) is Refuse.TOO_FEW_PLAYERS
    assert driver.table == before  # nobody charged, nobody sat out


def test_the_table_with_time_collection_round_trips_and_one_without_reads_as_before():
    driver = timed()
    driver.ok(SitDown, seat=1, player="P1", buy_in=100)
    driver.ok(SitDown, seat=2, player="P2", buy_in=100)
    new_hand(driver, BOUNDARY)
    data = json.loads(json.dumps(driver.table.to_json()))
    assert data["time_collected"] == 10
    assert data["settings"]["time_charge"] == 5 and data["settings"]["time_period"] == 30
    assert {seat["paid_period"] for seat in data["seats"]} == {BOUNDARY // PERIOD}
    assert Table.from_json(data) == driver.table

    plain = TableDriver.make()
    plain.ok(SitDown, seat=1, player="P1", buy_in=100)
    plain.ok(SitDown, seat=2, player="P2", buy_in=100)
    plain.ok(deck_loaded, count=52)
    effects = plain.ok(NewHand).effects
    assert not [e for e in effects if isinstance(e, TimeCharged | TimeUnpaid)]
    data = plain.table.to_json()
    assert "time_collected" not in data
    assert not {"time_charge", "time_period"} & set(data["settings"])
    assert all("paid_period" not in seat for seat in data["seats"])


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"time_charge": -1}, "time_charge"),
        ({"time_charge": True}, "time_charge"),
        ({"time_charge": 5, "time_period": 0}, "time_period"),
        ({"time_charge": 5, "time_period": 1441}, "time_period"),
        ({"time_charge": 5, "rules": Rules(rake_percent=10, rake_cap=3)}, "time_charge"),
    ],
)
def test_bad_time_settings_are_refused_naming_the_field(changes, field):
    with pytest.raises(SettingsError) as refused:
        TableSettings(**changes)
    assert refused.value.field == field
    good = TableSettings(time_charge=5, time_period=60)
    assert TableSettings.from_json(json.loads(json.dumps(good.to_json()))) == good


def test_the_simulator_s_chips_check_counts_the_time_collected():
    driver = timed()
    for seat in (1, 2, 3):
        driver.ok(SitDown, seat=seat, player=f"P{seat}", buy_in=100)
    new_hand(driver, BOUNDARY)
    void(driver)
    new_hand(driver, BOUNDARY + PERIOD)
    void(driver)
    tally = Tally()
    tally.observe(driver.table, driver.effects)
    assert tally.time_collected == driver.table.time_collected == 30
    assert tally.conserved(driver.table)
    tally.time_collected = 0  # a check that did not count it would find chips missing
    assert not tally.conserved(driver.table)
