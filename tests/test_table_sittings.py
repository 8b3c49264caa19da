"""Sittings: the table numbers each sit-down (in the journal's order, replayed the same),
a sitting ends when its player leaves, and the last hand's cards at a seat belong to the
sitting that hand dealt in, never to a later player at that seat."""

from __future__ import annotations

import json
from pathlib import Path

from controller.history.recovery import Recovered, from_snapshot
from controller.journal.snapshots import Snapshots
from controller.table import Leave, Refuse, SitDown, Table, VoidHand
from dealer_ui.views import Role, view, visible_cards
from tests.table_driver import TableDriver

# third street for seats 1 and 2: down, down, down, down, up, up
THIRD = "Kd 7c 2s 9h Ah Qs"


def test_each_sit_down_gets_the_next_sitting_and_a_re_seat_a_new_one() -> None:
    driver = TableDriver.make().seat({1: 200, 2: 200})
    assert [(s.seat, s.sitting, s.since_hand) for s in driver.table.seats] == [(1, 1, 0), (2, 2, 0)]
    driver.ok(Leave, seat=2)
    driver.ok(SitDown, seat=2, player="P2", buy_in=200)  # the same name at the same seat
    assert driver.table.seat(2).sitting == 3 and driver.table.sittings == 3
    assert driver.refused(SitDown, seat=2, player="X", buy_in=200) is Refuse.SEAT_TAKEN
    assert driver.table.sittings == 3  # a refused sit-down gives no number
    assert Table.from_json(json.loads(driver.dump())) == driver.table
    assert driver.replayed() == driver.dump()  # the same numbers from the same inputs


def test_a_new_player_at_a_seat_sees_none_of_the_last_hands_cards_there() -> None:
    driver = TableDriver.make(seat_board=False).start({1: 200, 2: 200})
    driver.read(THIRD)
    hole = {"Kd", "2s"}  # seat 1's down cards
    driver.ok(SitDown, seat=3, player="Late", buy_in=200)  # during the hand: not dealt in
    assert driver.table.in_hand and not driver.table.dealt_in(3)
    assert driver.table.dealt_in(1) and hole <= visible_cards(driver.table, Role.PLAYER, 1)
    assert not hole & visible_cards(driver.table, Role.PLAYER, 3)
    driver.ok(VoidHand, who="S100", why="test")
    assert driver.table.dealt_in(1)
    assert hole <= visible_cards(driver.table, Role.PLAYER, 1)
    driver.ok(Leave, seat=1)
    driver.ok(SitDown, seat=1, player="P1", buy_in=300)
    table = driver.table
    assert not table.dealt_in(1) and table.hand is not None
    assert not hole & visible_cards(table, Role.PLAYER, 1)
    for role, seat in ((Role.PLAYER, 1), (Role.PUBLIC, None), (Role.DEALER, None)):
        seen = view(table, role, seat)
        text = json.dumps(seen)
        assert "Kd" not in text and "2s" not in text, (role, seen)
        mine = next(entry for entry in seen["seats"] if entry["seat"] == 1)
        assert mine["cards"] == [] and not mine["in_hand"] and mine["stack"] == 300


def test_a_snapshot_from_before_sittings_is_not_used_recovery_replays_instead(
    tmp_path: Path,
) -> None:
    driver = TableDriver.make().seat({1: 200, 4: 200})
    state = Recovered(driver.table, 2).state()
    snapshots = Snapshots(tmp_path / "journal.sqlite3")
    try:
        snapshots.save(2, 0, state)
        assert from_snapshot(snapshots, 2).snapshot == 2  # today's snapshot is used
        old = json.loads(json.dumps(state))
        del old["table"]["sittings"]
        for seat in old["table"]["seats"]:
            del seat["sitting"], seat["since_hand"]
        snapshots.save(3, 0, old)
        recovered = from_snapshot(snapshots, 3)
        assert (recovered.snapshot, recovered.position) == (0, 0)  # replayed from the start
    finally:
        snapshots.close()
