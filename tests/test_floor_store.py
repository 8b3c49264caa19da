"""The floor store on a real PostgreSQL: migrations, idempotent ingest, order, the views.

Each test has a database of its own (``floor_kit.floor_database``); the journals are
written with the table core (``floor_kit.write_journal``) and derived as a table's shipper
derives them (``controller.floor.derive``).
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest

from controller.floor import facts as f
from controller.floor import store
from controller.floor.derive import Point, derive, point_at
from controller.floor.migrate import FOLDER, MigrationError, migrate
from controller.floor.store import shipped as shipped_as
from controller.history.hands import recorded_hands
from controller.journal import Journal
from controller.journal.snapshots import Snapshots
from controller.records import record_of
from controller.recovery import initial_table
from controller.table import ChangeSeat, Leave, NewHand, SitDown, VoidHand
from tests.device_inputs import card_read, deck_loaded
from tests.floor_kit import JournalWriter, floor_database, write_journal
from tests.service_kit import write_config
from tests.test_journal_writer import EARLIER_SCHEMA

pytestmark = pytest.mark.slow  # PostgreSQL

LUCK_TABLE = str(Path(sys.executable).parent / "luck-table")

TABLES = (
    "floor_tables",
    "floor_table_sessions",
    "floor_journal_entries",
    "floor_hands",
    "floor_chip_movements",
    "floor_seat_sessions",
    "floor_alerts",
    "floor_supervisor_actions",
    "floor_table_status",
)


@pytest.fixture
def floor():
    with floor_database() as dsn, psycopg.connect(dsn, autocommit=True) as connection:
        migrate(connection)
        yield connection


def shipped(journal: Journal, table_id: str = "T-01") -> f.Journal:
    return shipped_as(journal, table_id, f"table {table_id}")


def batches(journal: Journal, size: int, table_id: str = "T-01") -> list[f.Batch]:
    """The whole journal as a shipper cuts it: consecutive batches of ``size`` entries."""
    out, point = [], Point(0, initial_table())
    while True:
        derived = derive(journal, point, size)
        if not derived.entries:
            return out
        out.append(
            f.Batch(shipped(journal, table_id), derived.entries, derived.facts, derived.status)
        )
        point = derived.point


def counts(connection: psycopg.Connection) -> dict[str, int]:
    return {
        name: connection.execute(f"SELECT count(*) FROM {name}").fetchone()[0] for name in TABLES
    }


def assert_hourly_totals_are_the_hands(connection: psycopg.Connection) -> None:
    """The hourly totals the floor keeps are the hands it holds, grouped by table and hour."""
    hourly = "SELECT table_id, hour, hands, void_hands, chips_in_pots, bonus_cards "
    kept = connection.execute(hourly + "FROM floor_hands_hourly ORDER BY 1, 2").fetchall()
    grouped = connection.execute(
        "SELECT table_id, date_trunc('hour', ended_at, 'UTC'), count(*)::integer, "
        "(count(*) FILTER (WHERE void))::integer, coalesce(sum(pot), 0)::bigint, "
        "coalesce(sum(bonus_cards), 0)::integer FROM floor_hands WHERE ended_at IS NOT NULL "
        "GROUP BY 1, 2 ORDER BY 1, 2"
    ).fetchall()
    assert kept == grouped


def test_migrations_apply_once_then_find_the_schema(tmp_path):
    with floor_database() as dsn, psycopg.connect(dsn, autocommit=True) as connection:
        assert migrate(connection) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
        assert migrate(connection) == []
        rows = connection.execute(
            "SELECT version, name FROM floor_schema_migrations ORDER BY version"
        ).fetchall()
        assert rows == [
            (1, "floor"),
            (2, "live"),
            (3, "journal_identity"),
            (4, "partitions"),
            (5, "game_protection"),
            (6, "hourly"),
            (7, "ship_on"),
            (8, "hourly_search_path"),
            (9, "quarantine"),
            (10, "house"),
        ]
        assert store.tables(connection) == []


def test_concurrent_migrations_apply_once():
    with floor_database() as dsn:
        results: list[list[int]] = []

        def run() -> None:
            with psycopg.connect(dsn, autocommit=True) as connection:
                results.append(migrate(connection))

        threads = [threading.Thread(target=run) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(results) == [[], [], [], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]]


def test_an_edited_or_misnamed_migration_is_refused(tmp_path):
    folder = tmp_path / "migrations"
    shutil.copytree(FOLDER, folder)
    for later in sorted(folder.glob("*.sql"))[2:]:  # the first two are enough here
        later.unlink()
    with floor_database() as dsn, psycopg.connect(dsn, autocommit=True) as connection:
        assert migrate(connection, folder) == [1, 2]
        first = folder / "0001_floor.sql"
        first.write_text(first.read_text() + "\n-- edited\n")
        with pytest.raises(MigrationError, match="0001_floor was applied from another text"):
            migrate(connection, folder)
        shutil.copy(FOLDER / "0001_floor.sql", first)
        (folder / "0002_live.sql").rename(folder / "0003_more.sql")
        with pytest.raises(MigrationError, match="0003_more: expected version 2"):
            migrate(connection, folder)
        (folder / "0003_more.sql").rename(folder / "two.sql")
        with pytest.raises(MigrationError, match=r"two\.sql: a migration is named NNNN_name\.sql"):
            migrate(connection, folder)


def test_a_journal_shipped_twice_is_held_once(floor, tmp_path):
    with Journal.open(write_journal(tmp_path / "t.sqlite"), create=False) as journal:
        cut = batches(journal, 17)
        for batch in cut:
            assert store.ingest(floor, batch) == batch.last
        once = counts(floor)
        for batch in cut:  # every batch again: a shipper that lost the floor's answers
            assert store.ingest(floor, batch) == cut[-1].last
        assert counts(floor) == once
        entries = list(journal.entries())
        assert store.entries(floor, "T-01") == entries
        assert once["floor_journal_entries"] == len(entries)
        assert store.confirmed_position(floor, "T-01") == entries[-1].position
        hands = [hand for hand in recorded_hands(journal)]
        held = store.hands(floor, "T-01")
        assert [h.script for h in held] == [hand.script_json() for hand in hands]
        assert [h.outcome for h in held] == [hand.history_json()["outcome"] for hand in hands]
        assert all(h.recorded for h in held)


def ship_on(connection: psycopg.Connection, journal: Journal, size: int) -> None:
    """The journal's entries after the floor's confirmed position, in batches of ``size``."""
    position = store.confirmed_position(connection, "T-01")
    point = point_at(journal, Snapshots(journal.path), position)
    while (derived := derive(journal, point, size)).entries:
        batch = f.Batch(shipped(journal), derived.entries, derived.facts, derived.status)
        store.ingest(connection, batch)
        point = derived.point


def assert_hands_are_the_journal_s(connection: psycopg.Connection, journal: Journal) -> None:
    held = store.hands(connection, "T-01")
    hands = list(recorded_hands(journal))
    assert [(h.number, h.ended_at is None) for h in held] == [
        (hand.number, hand.ended is None) for hand in hands
    ]
    assert [h.script for h in held] == [hand.script_json() for hand in hands]


def test_the_hand_in_progress_is_the_journal_s_so_far(floor, tmp_path):
    path = write_journal(tmp_path / "t.sqlite", hands=2)
    writer = JournalWriter(path, clock=1_900_000_000_000)
    writer.table = point_at(writer.journal, Snapshots(path), writer.journal_last()).table
    rng = random.Random(7)
    deck = writer.play_hand(rng, decisions=1)  # the table stops in a hand: its bring-in made
    with Journal.open(path, create=False) as journal:
        for batch in batches(journal, 6):
            store.ingest(floor, batch)
        assert_hands_are_the_journal_s(floor, journal)
        (current,) = [h for h in store.hands(floor, "T-01") if h.ended_at is None]
        assert (current.outcome, current.recorded) == (None, None)
        writer.play_on(rng, deck, decisions=2)  # dealt on, and shipped in the middle again
        ship_on(floor, journal, 4)
        assert_hands_are_the_journal_s(floor, journal)
        writer.play_on(rng, deck)  # to its end
        writer.close()
        ship_on(floor, journal, 5)
        assert_hands_are_the_journal_s(floor, journal)
        assert all(h.recorded and h.ended_at for h in store.hands(floor, "T-01"))


def test_an_overlapping_batch_applies_only_what_is_new(floor, tmp_path):
    with Journal.open(write_journal(tmp_path / "t.sqlite"), create=False) as journal:
        small = batches(journal, 10)
        store.ingest(floor, small[0])
        store.ingest(floor, small[1])
        wide = batches(journal, 1000)  # one batch: positions 1 to the end
        assert store.ingest(floor, wide[0]) == wide[0].last
        reference = floor
        expected = counts(reference)
    with floor_database() as dsn, psycopg.connect(dsn, autocommit=True) as other:
        migrate(other)
        store.ingest(other, wide[0])
        assert counts(other) == expected


def test_a_gap_or_a_batch_out_of_order_is_refused(floor, tmp_path):
    with Journal.open(write_journal(tmp_path / "t.sqlite"), create=False) as journal:
        cut = batches(journal, 10)
        store.ingest(floor, cut[0])
        before = counts(floor)
        with pytest.raises(store.FloorOrderError) as caught:
            store.ingest(floor, cut[2])
        assert (caught.value.expected, caught.value.found) == (11, 21)  # the floor holds 10
        holey = f.Batch(cut[1].journal, cut[1].entries[:3] + cut[1].entries[4:], (), cut[1].status)
        with pytest.raises(store.FloorOrderError) as caught:
            store.ingest(floor, holey)
        assert (caught.value.expected, caught.value.found) == (14, 15)  # a gap
        assert counts(floor) == before
        assert store.confirmed_position(floor, "T-01") == 10
        with pytest.raises(store.FloorError, match="at least one journal entry"):
            store.ingest(floor, f.Batch(cut[0].journal, (), (), cut[0].status))


def test_the_views_answer_on_known_data(floor, tmp_path):
    path = write_journal(tmp_path / "t.sqlite")
    writer = JournalWriter(path, clock=1_900_000_000_000)
    writer.table = point_at(writer.journal, Snapshots(path), writer.journal_last()).table
    writer.ok(card_read(at=0, code=5))  # a card with no hand in progress: an open alert
    writer.close()
    with Journal.open(path, create=False) as journal:
        for batch in batches(journal, 50):
            store.ingest(floor, batch)
        hands = list(recorded_hands(journal))
    outcomes = [hand.history_json()["outcome"] for hand in hands]
    pots = [sum(pot["amount"] for pot in outcome["pots"]) for outcome in outcomes]
    bonus = [sum(d.bonus for p in hand.hand.players for d in p.cards) for hand in hands]
    hours = Counter(
        datetime.fromtimestamp(h.ended // 1000 // 3600 * 3600, UTC) for h in hands if h.ended
    )

    per_hour = store.hands_per_hour(floor)
    assert per_hour  # the hands ended over several hours
    assert_hourly_totals_are_the_hands(floor)
    assert {(row.hour, row.hands) for row in per_hour} == set(hours.items())
    assert sum(row.chips_in_pots for row in per_hour) == sum(pots)
    assert sum(row.bonus_cards for row in per_hour) == sum(bonus)
    assert store.hands_per_hour(floor, "T-02") == []
    later = datetime.fromtimestamp(2_000_000_000, UTC)
    assert store.hands_per_hour(floor, since=later) == []

    (sizes,) = store.pot_sizes(floor)
    assert (sizes.hands, sizes.total, sizes.largest) == (len(hands), sum(pots), max(pots))
    assert sizes.average == pytest.approx(sum(pots) / len(pots), abs=0.01)
    (cards,) = store.bonus_cards(floor)
    assert (cards.bonus_cards, cards.hands_with_bonus) == (sum(bonus), sum(b > 0 for b in bonus))

    (alert,) = store.open_alerts(floor)
    assert (alert.table_id, alert.kind, alert.blocking) == ("T-01", "card_out_of_turn", True)
    resolved = [a for a in store.alerts(floor, "T-01") if a.cleared_at is not None]
    assert [(a.kind, a.resolved_by, a.resolved_remedy) for a in resolved] == [
        ("card_out_of_turn", "S100", "hold")
    ]
    (action,) = store.supervisor_actions(floor)
    assert (action.action, action.who, action.why, action.hand_number) == (
        "resolve_alert",
        "S100",
        "held",
        2,
    )

    (status,) = store.tables(floor)
    assert (status.state, status.alert_id, status.alert_kind) == (
        "paused",
        alert.alert_id,
        alert.kind,
    )
    assert status.hand_number == len(hands) and status.open_alerts == 1
    assert {seat["player"] for seat in status.seats} == {"P1", "P2b", "P4"}

    sessions = {(s.player, s.seat): s for s in store.player_sessions(floor)}
    assert set(sessions) == {("P1", 1), ("P2", 2), ("P4", 4), ("P2b", 2)}
    left = sessions["P2", 2]
    assert left.left_at is not None and left.cashed_out is not None and left.hands == len(hands)
    assert sessions["P2b", 2].left_at is None and sessions["P2b", 2].hands == 0
    assert sessions["P4", 4].buy_in == 200
    moves = store.chip_movements(floor, "T-01")
    assert sessions["P4", 4].rebuys == sum(m.chips for m in moves if m.kind == "rebuy")
    assert [m.kind for m in moves].count("buy_in") == 4
    assert [m.chips for m in moves if m.kind == "cash_out"] == [left.cashed_out]
    assert store.player_sessions(floor, player="P4") == [sessions["P4", 4]]
    assert store.player_sessions(floor, table_id="T-01", seat=2) == [
        sessions["P2", 2],
        sessions["P2b", 2],
    ]
    assert store.hand(floor, "T-01", 2) == store.hands(floor, "T-01")[1]
    assert store.hand(floor, "T-01", 99) is None


def test_a_new_journal_for_a_table_is_refused_until_the_operator_binds_it(floor, tmp_path):
    with Journal.open(write_journal(tmp_path / "a.sqlite", hands=2), create=False) as first:
        for batch in batches(first, 100):
            store.ingest(floor, batch)
    with Journal.open(write_journal(tmp_path / "b.sqlite", hands=1, seed=2), create=False) as new:
        (batch,) = batches(new, 1000)
        with pytest.raises(store.FloorRefusedError) as refused:
            store.register(floor, shipped(new))
        assert refused.value.kind is store.FloorRefusal.SECOND_JOURNAL
        with pytest.raises(store.FloorRefusedError) as refused:
            store.ingest(floor, batch)
        assert refused.value.kind is store.FloorRefusal.SECOND_JOURNAL
        (alert,) = store.open_alerts(floor, "T-01")  # once, however often it is refused
        assert (alert.kind, alert.session) == ("second_journal", 1)
        assert "floor-bind --config FILE --new-journal" in alert.remedy
        assert [h.number for h in store.hands(floor, "T-01")] == [1, 2]  # nothing of it taken
        session = store.bind_journal(floor, shipped(new), "the operator")
        assert (session.session, session.confirmed_position, session.current) == (2, 0, True)
        store.ingest(floor, batch)
    assert [h.number for h in store.hands(floor, "T-01")] == [1]
    assert [h.number for h in store.hands(floor, "T-01", session=1)] == [1, 2]
    assert store.confirmed_position(floor, "T-01") == batch.last
    (status,) = store.tables(floor)
    assert (status.session, status.last_position) == (2, batch.last)
    (old,) = [a for a in store.alerts(floor, "T-01", session=1) if a.kind == "second_journal"]
    assert old.cleared_at is not None and "bound as the table's" in (old.resolution or "")


def test_a_journal_shipped_under_another_table_id_is_refused_until_renamed(floor, tmp_path):
    with Journal.open(write_journal(tmp_path / "a.sqlite", hands=2), create=False) as journal:
        for batch in batches(journal, 100):
            store.ingest(floor, batch)
        renamed = shipped(journal, "T-1")
        with pytest.raises(store.FloorRefusedError) as refused:
            store.register(floor, renamed)
        assert refused.value.kind is store.FloorRefusal.JOURNAL_REFUSED
        assert [t.table_id for t in store.tables(floor)] == ["T-01"]  # no table T-1
        (alert,) = store.open_alerts(floor)
        assert (alert.table_id, alert.kind) == ("T-01", "journal_refused")
        assert "--renamed-from T-01" in alert.remedy
        with pytest.raises(store.FloorError, match="not table T-9's on the floor"):
            store.rename_table(floor, renamed, "T-9", "the operator")
        session = store.rename_table(floor, renamed, "T-01", "the operator")
        assert (session.table_id, session.session, session.current) == ("T-1", 1, True)
        assert session.confirmed_position == batch.last
        assert store.register(floor, renamed) == session
    assert [t.table_id for t in store.tables(floor)] == ["T-1"]
    assert [h.number for h in store.hands(floor, "T-1")] == [1, 2]  # its history came along
    assert [h.table_id for h in store.hands_per_hour(floor)] == ["T-1"]  # its hours too
    assert sum(h.hands for h in store.hands_per_hour(floor)) == 2
    assert_hourly_totals_are_the_hands(floor)
    assert store.hands(floor, "T-01") == []
    assert store.open_alerts(floor) == []
    (count,) = floor.execute("SELECT count(*) FROM floor_journal_entries").fetchone()
    assert count == batch.last  # held once


def deal_on(path: Path, rng: random.Random, hands: int) -> None:
    """``hands`` more hands at the table of the journal at ``path``."""
    writer = JournalWriter(path)
    snapshots = Snapshots(path)
    writer.table = point_at(writer.journal, snapshots, writer.journal_last()).table
    snapshots.close()
    for _ in range(hands):
        writer.play_hand(rng)
    writer.close()


def test_a_journal_restored_from_a_backup_is_kept_apart_not_spliced(floor, tmp_path):
    path = tmp_path / "t.sqlite"
    rng = random.Random(5)
    writer = JournalWriter(path)
    for seat in (1, 2):
        writer.ok(SitDown(at=0, seat=seat, player=f"P{seat}", buy_in=500))
    writer.play_hand(rng)
    writer.close()
    backup = tmp_path / "backup.sqlite"
    with sqlite3.connect(path) as live, sqlite3.connect(backup) as copy:
        live.backup(copy)  # as `sqlite3 FILE ".backup COPY"` does
    deal_on(path, rng, hands=1)
    with Journal.open(path, create=False) as journal:
        for batch in batches(journal, 50):
            store.ingest(floor, batch)
        floor_copy = list(journal.entries())
    for part in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        part.unlink(missing_ok=True)
    shutil.copy(backup, path)  # restored from the backup, then dealt on: another timeline
    deal_on(path, rng, hands=3)
    with Journal.open(path, create=False) as journal:
        restored = list(journal.entries())
        assert len(restored) > len(floor_copy)
        beyond = next(b for b in batches(journal, 50) if b.last > len(floor_copy))
    with pytest.raises(store.FloorDivergedError) as refused:
        store.ingest(floor, beyond)
    assert refused.value.kind is store.FloorRefusal.JOURNAL_DIVERGED
    assert store.entries(floor, "T-01") == floor_copy  # nothing spliced on
    (alert,) = store.open_alerts(floor, "T-01")
    assert alert.kind == "journal_diverged"


def test_the_live_status_holds_the_hand_in_progress_and_each_batch_is_notified(floor, tmp_path):
    hours_ago = int(time.time() * 1000) - 3_600_000  # the kit's inputs are a second apart
    path = write_journal(tmp_path / "t.sqlite", hands=1, clock=hours_ago)
    with (
        Journal.open(path, create=False) as journal,
        psycopg.connect(floor.info.dsn, autocommit=True) as listener,
    ):
        listener.execute(f"LISTEN {store.CHANNEL}")
        snapshots = Snapshots(path)
        for batch in batches(journal, 15):
            store.ingest(floor, batch)
            (status,) = store.tables(floor)
            table = point_at(journal, snapshots, batch.last).table
            if table.in_hand:
                assert status.state == "dealing"
                assert table.hand is not None and status.hand == table.hand.to_json()
            else:
                assert status.state == "idle" and status.hand is None
            (note,) = list(listener.notifies(timeout=5, stop_after=1))
            assert json.loads(note.payload) == {
                "table_id": "T-01",
                "session": 1,
                "position": batch.last,
                "state": status.state,
            }
        lags = store.lags(floor, "T-01")
        assert len(lags) == batch.last  # one per entry, each from the table's time to the floor's
        assert all(0 < lag < 3600 + 60 for lag in lags)


def test_a_seat_change_keeps_the_player_s_stay_at_the_table(floor, tmp_path):
    path = tmp_path / "moved.sqlite"
    writer = JournalWriter(path)
    writer.ok(SitDown(at=0, seat=3, player="Ann", buy_in=200))
    writer.ok(ChangeSeat(at=0, seat=3, to=6))
    writer.ok(Leave(at=0, seat=6))
    writer.close()
    with Journal.open(path, create=False) as journal:
        for batch in batches(journal, 2):
            store.ingest(floor, batch)
    (stay,) = store.player_sessions(floor)
    assert (stay.player, stay.seat, stay.buy_in, stay.cashed_out) == ("Ann", 6, 200, 200)
    assert stay.left_at is not None
    assert [m.kind for m in store.chip_movements(floor, "T-01")] == ["buy_in", "cash_out"]


def test_a_void_hand_and_the_alert_it_clears_name_the_supervisor(floor, tmp_path):
    path = tmp_path / "void.sqlite"
    writer = JournalWriter(path)
    for seat in (1, 2):
        writer.ok(SitDown(at=0, seat=seat, player=f"P{seat}", buy_in=200))
    writer.ok(deck_loaded(at=0, count=52))
    writer.ok(NewHand(at=0))
    deck = iter(range(52))
    while writer.table.hand is not None and writer.table.hand.waiting_for.kind == "card":
        writer.ok(card_read(at=0, code=next(deck)))
    writer.ok(card_read(at=0, code=next(deck)))  # drawn while a decision is due: an alert
    writer.ok(VoidHand(at=0, who="S200", why="misdeal"))
    writer.close()
    with Journal.open(path, create=False) as journal:
        for batch in batches(journal, 7):
            store.ingest(floor, batch)
    (hand,) = store.hands(floor, "T-01")
    assert (hand.void, hand.pot, hand.recorded) == (True, 0, True)
    (hour,) = store.hands_per_hour(floor)
    assert (hour.hands, hour.void_hands) == (1, 1)
    assert hand.outcome is not None
    assert [event["kind"] for event in hand.outcome["events"]][-1] == "void"
    (alert,) = store.alerts(floor, "T-01")
    assert (alert.kind, alert.resolution, alert.resolved_by, alert.resolved_why) == (
        "card_out_of_turn",
        "the hand is void",
        "S200",
        "misdeal",
    )
    assert alert.resolved_remedy is None
    (action,) = store.supervisor_actions(floor)
    assert (action.action, action.who, action.hand_number) == ("void_hand", "S200", 1)
    assert store.open_alerts(floor) == []
    (status,) = store.tables(floor)
    assert (status.state, status.hand) == ("idle", None)


def test_floor_bind_says_what_it_cannot_do_and_changes_nothing(floor, tmp_path):
    dsn = floor.info.dsn
    config = write_config(tmp_path, "/dev/null", table_id="T-1", floor=f"dsn = {json.dumps(dsn)}")
    path = write_journal(tmp_path / "table.sqlite", hands=1)
    with Journal.open(path, create=False) as journal:
        for batch in batches(journal, 100, table_id="T-01"):
            store.ingest(floor, batch)
    bind = [LUCK_TABLE, "floor-bind", "--config", str(config)]
    wrong = subprocess.run(
        [*bind, "--renamed-from", "T-9"], capture_output=True, text=True, check=False
    )
    assert wrong.returncode == 1
    assert "is not table T-9's on the floor (the floor holds it as table T-01)" in wrong.stderr
    assert [t.table_id for t in store.tables(floor)] == ["T-01"]
    right = subprocess.run(
        [*bind, "--renamed-from", "T-01"], capture_output=True, text=True, check=False
    )
    assert right.returncode == 0, right.stderr
    assert [t.table_id for t in store.tables(floor)] == ["T-1"]
    config.write_text(config.read_text().replace(f"[floor]\ndsn = {json.dumps(dsn)}\n", ""))
    nowhere = subprocess.run([*bind, "--new-journal"], capture_output=True, text=True, check=False)
    assert nowhere.returncode == 2
    assert "no [floor] section: the table ships nowhere" in nowhere.stderr


def test_a_journal_shipped_by_the_earlier_release_takes_its_identity_on_the_floor(floor, tmp_path):
    with Journal.open(write_journal(tmp_path / "t.sqlite", hands=1), create=False) as journal:
        cut = batches(journal, 20)
        store.ingest(floor, cut[0])
        # as the earlier release left it: the journal known by its creation time only
        floor.execute("UPDATE floor_table_sessions SET journal_id = NULL")
        with pytest.raises(store.FloorRefusedError) as refused:
            store.register(floor, shipped(journal, "T-02"))  # not under another id either
        assert refused.value.kind is store.FloorRefusal.JOURNAL_REFUSED
        session = store.register(floor, shipped(journal))
        assert (session.session, session.confirmed_position) == (1, cut[0].last)
        assert store.held(floor, shipped(journal).journal_id) == ("T-01", 1)
        for batch in cut[1:]:
            store.ingest(floor, batch)
        assert store.entries(floor, "T-01") == list(journal.entries())


def test_a_journal_of_the_earlier_release_ships_with_its_chain_from_where_it_starts(
    floor, tmp_path
):
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as old:  # the earlier release's journal: no chain, no identity
        old.executescript(EARLIER_SCHEMA)
        for seat in (1, 2):
            record = record_of(
                SitDown(at=1_800_000_000_000 + seat, seat=seat, player="P", buy_in=500)
            )
            old.execute(
                "INSERT INTO inputs (recorded_at, source, type, fields) VALUES (?, ?, ?, ?)",
                (record.recorded_at, record.source, record.type, json.dumps(record.fields)),
            )
    deal_on(path, random.Random(3), hands=1)  # its writer gives it identity and chain
    with Journal.open(path, create=False) as journal:
        held = list(journal.entries())
        assert [entry.chain is None for entry in held[:3]] == [True, True, False]
        for batch in batches(journal, 10):
            store.ingest(floor, batch)
    assert store.entries(floor, "T-01") == held


def test_a_batch_after_the_connection_s_last_is_sent_whole_unless_the_session_moved(
    floor, tmp_path, monkeypatch
):
    """The batch that follows a connection's last one skips the first look at its session
    (sent in one pipeline, checked by floor_ship_on()); when the session moved meanwhile
    (another shipper shipped, a journal was bound) it goes the long way and the floor holds
    every entry once, the status the current journal's."""
    from controller.floor import ingest  # noqa: PLC0415

    long_way = ingest._session

    def refused(*args: object) -> object:
        raise AssertionError("the long way")

    with (
        Journal.open(write_journal(tmp_path / "a.sqlite", hands=2), create=False) as journal,
        psycopg.connect(floor.info.dsn, autocommit=True) as other,
    ):
        cut = batches(journal, 20)
        store.ingest(floor, cut[0])
        monkeypatch.setattr(ingest, "_session", refused)
        assert store.ingest(floor, cut[1]) == cut[1].last  # sent whole
        monkeypatch.setattr(ingest, "_session", long_way)
        store.ingest(other, cut[2])  # another shipper takes over
        assert store.ingest(floor, cut[2]) == cut[2].last  # moved: the long way, nothing twice
        store.ingest(floor, cut[3])
        monkeypatch.setattr(ingest, "_session", refused)
        store.ingest(floor, cut[4])  # sent whole again
        monkeypatch.setattr(ingest, "_session", long_way)
        with Journal.open(write_journal(tmp_path / "b.sqlite", hands=1, seed=2)) as new:
            store.bind_journal(other, shipped(new), "the operator")  # a new current journal
            (status,) = store.tables(floor)
            assert store.ingest(floor, cut[5]) == cut[5].last  # moved: the long way
            (now,) = store.tables(floor)  # the old journal's status is not the table's now
            assert (now.last_position, now.hand) == (status.last_position, status.hand)
        for batch in cut[6:]:
            store.ingest(floor, batch)
        assert store.entries(floor, "T-01", session=1) == list(journal.entries())
        assert store.confirmed_position(floor, "T-01", session=1) == cut[-1].last
        assert_hourly_totals_are_the_hands(floor)
