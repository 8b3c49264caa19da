"""The floor shipper never wedges on a record (issue 33, finding 5): a journal entry the floor
cannot store (here a player's name holding U+0000, journaled straight into the journal as one
written before the console refused such text) is kept in the floor's quarantine with its
position and error, the pit sees the table's alert, and every later hand ships. What else
reads the journal's text (``luck-table history --json``, the console's archive) reads it."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from controller.floor import store
from controller.floor.shipper import Shipper
from controller.history.hands import recorded_hands
from controller.journal import Input, Journal
from controller.records import TABLE
from controller.table import Leave, SitDown, VoidHand
from dealer_ui import archive
from tests.floor_kit import JournalWriter, floor_database, wait_for
from tests.test_floor_shipper import last_position, settings

pytestmark = pytest.mark.slow  # PostgreSQL

#: A name no console takes now: NUL (PostgreSQL's text cannot hold it) and a bidi override.
EVIL = "EVIL\x00\u202eLIVE"


@pytest.fixture
def floor_dsn():
    with floor_database() as dsn:
        yield dsn


def evil_journal(path: Path) -> tuple[int, int]:
    """A journal with a player named :data:`EVIL` (sitting, playing, leaving) and a reason
    holding U+0000, hands dealt before and after: the positions of the two bad entries."""
    rng = random.Random(3)
    writer = JournalWriter(path)
    for seat in (1, 2):
        writer.ok(SitDown(at=0, seat=seat, player=f"P{seat}", buy_in=500))
    writer.play_hand(rng)
    writer.ok(SitDown(at=0, seat=5, player=EVIL, buy_in=300))  # bypasses the API
    name_at = writer.journal_last()
    writer.play_hand(rng)
    writer.play_hand(rng, decisions=2)
    writer.ok(VoidHand(at=0, who="S100", why="mis\x00deal"))
    why_at = writer.journal_last()
    writer.play_hand(rng)
    writer.ok(Leave(at=0, seat=5))
    writer.play_hand(rng)
    writer.close()
    return name_at, why_at


def test_a_record_the_floor_cannot_store_is_quarantined_and_shipping_goes_on(
    floor_dsn: str, tmp_path: Path
) -> None:
    path = tmp_path / "t.sqlite"
    name_at, why_at = evil_journal(path)
    with Journal.open(path, create=False) as journal:
        shipper = Shipper(settings(floor_dsn), store.shipped(journal, "T-07", "table 7"))
        shipper.start()
        try:
            last = last_position(journal)
            wait_for(lambda: shipper.confirmed == last, "every entry after the bad ones shipped")
        finally:
            shipper.stop()
        entries = list(journal.entries())
        hands = list(recorded_hands(journal))
    bad = {name_at, why_at}
    with psycopg.connect(floor_dsn) as connection:
        held = store.entries(connection, "T-07")
        assert held == [entry for entry in entries if entry.position not in bad]
        kept = connection.execute(
            "SELECT position, type, record, error, chain FROM floor_quarantine ORDER BY position"
        ).fetchall()
        assert [(row[0], row[1]) for row in kept] == [(name_at, "sit_down"), (why_at, "void_hand")]
        by_position = {entry.position: entry for entry in entries}
        for position, _, record, error, chain in kept:
            assert json.loads(record) == by_position[position].fields  # kept exactly
            assert chain == by_position[position].chain
            assert "\\u0000" in error or "0x00" in error, error
        floor_hands = store.hands(connection, "T-07")
        assert [hand.number for hand in floor_hands] == [hand.number for hand in hands]
        assert floor_hands[-1].ended_at is not None  # the last hand, after both, is there
        alerts = store.open_alerts(connection, "T-07")
        quarantined = [alert for alert in alerts if alert.kind == store.QUARANTINED]
        assert len(quarantined) == 1, alerts
        assert quarantined[0].severity == "fault"
        assert f"journal entry {why_at} (void_hand)" in quarantined[0].message
        assert "with 1 more of this journal" in quarantined[0].message
        # the facts of the bad entries reached the pit, their text made storable
        movements = store.chip_movements(connection, "T-07")
        evil = [m for m in movements if m.seat == 5]
        assert [m.kind for m in evil] == ["buy_in", "cash_out"]
        assert {m.player for m in evil} == {"EVIL\ufffd\u202eLIVE"}
        actions = store.supervisor_actions(connection, "T-07")
        assert [a.why for a in actions if a.action == "void_hand"] == ["mis\ufffddeal"]
        (position,) = connection.execute(
            "SELECT confirmed_position FROM floor_table_sessions WHERE table_id = 'T-07'"
        ).fetchone() or (None,)
        assert position == entries[-1].position

    # a new shipper (a restart) finds the floor where the first left it: nothing again
    with Journal.open(path, create=False) as journal:
        again = Shipper(settings(floor_dsn), store.shipped(journal, "T-07", "table 7"))
        again.start()
        try:
            wait_for(lambda: again.connected, "the second shipper connected")
            assert again.confirmed == entries[-1].position
        finally:
            again.stop()
    with psycopg.connect(floor_dsn) as connection:
        alerts = store.open_alerts(connection, "T-07")
        assert [alert.kind for alert in alerts].count(store.QUARANTINED) == 1  # still open
        (count,) = connection.execute("SELECT count(*) FROM floor_quarantine").fetchone() or (0,)
        assert count == 2


def test_an_entry_the_table_core_cannot_read_is_quarantined_and_stepped_over_after_a_restart(
    floor_dsn: str, tmp_path: Path
) -> None:
    rng = random.Random(4)
    path = tmp_path / "t.sqlite"
    writer = JournalWriter(path)
    for seat in (1, 2):
        writer.ok(SitDown(at=0, seat=seat, player=f"P{seat}", buy_in=500))
    writer.play_hand(rng)
    writer.clock += 1000
    broken = {"type": "sit_down", "at": writer.clock, "seat": 6}  # no player, no buy-in
    writer.journal.append([Input(writer.clock / 1000, TABLE, "sit_down", broken)])
    bad_at = writer.journal_last()
    writer.play_hand(rng)
    try:
        with Journal.open(path, create=False) as journal:
            first = Shipper(settings(floor_dsn), store.shipped(journal, "T-07", "table 7"))
            first.start()
            try:
                last = last_position(journal)
                wait_for(lambda: first.confirmed == last, "shipped past the unreadable entry")
            finally:
                first.stop()
            writer.play_hand(rng)  # dealt on while no shipper ran
            second = Shipper(settings(floor_dsn), store.shipped(journal, "T-07", "table 7"))
            second.start()
            try:
                last = last_position(journal)
                wait_for(lambda: second.confirmed == last, "a restart stepped over it")
            finally:
                second.stop()
            entries = list(journal.entries())
    finally:
        writer.close()
    with psycopg.connect(floor_dsn) as connection:
        assert store.entries(connection, "T-07") == [e for e in entries if e.position != bad_at]
        kept = connection.execute("SELECT position, record, error FROM floor_quarantine").fetchall()
        assert [(row[0], json.loads(row[1])) for row in kept] == [(bad_at, broken)]
        assert "missing field 'player'" in kept[0][2]
        assert [hand.number for hand in store.hands(connection, "T-07")] == [1, 2, 3]
        assert [a.kind for a in store.open_alerts(connection, "T-07")] == [store.QUARANTINED]


def test_history_and_the_archive_read_a_journal_holding_text_no_console_takes_now(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.sqlite"
    evil_journal(path)
    luck_table = str(Path(sys.executable).with_name("luck-table"))
    shown = subprocess.run(
        [luck_table, "history", "--journal", str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    history = json.loads(shown.stdout)
    with Journal.open(path, create=False) as journal:
        hands = list(recorded_hands(journal))
    assert [hand["hand"] for hand in history] == [hand.number for hand in hands]
    assert all(hand["recorded"] for hand in history)
    _, listed = archive.summaries(path)
    assert [summary["hand"] for summary in listed] == [hand.number for hand in hands]
    assert EVIL in listed[1]["players"].values()
    _, second = archive.hand_record(path, 2)
    assert second is not None and second["recorded"] and second["hand"] == 2
