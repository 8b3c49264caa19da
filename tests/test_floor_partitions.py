"""The floor for years: a floor of version 3 migrated in place to the partitioned schema,
partitions made when rows need them, old ones archived or dropped (``luck-table
floor-retention``).

Each test has a database of its own on the machine's PostgreSQL (``floor_kit``).
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import shutil
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest

from controller.floor import ingest, retention, store
from controller.floor.migrate import FOLDER, migrate
from controller.journal import Journal
from tests.floor_kit import floor_database, write_journal
from tests.test_floor_store import assert_hourly_totals_are_the_hands, batches, counts

pytestmark = pytest.mark.slow  # PostgreSQL

LUCK_TABLE = str(Path(sys.executable).parent / "luck-table")


@contextlib.contextmanager
def floor_holding(path: Path) -> Iterator[tuple[Journal, str, psycopg.Connection]]:
    """A floor of its own, migrated, holding the journal at ``path`` (shipped in batches of
    20): the journal, the floor's connection string and a connection to it."""
    with (
        Journal.open(path, create=False) as journal,
        floor_database() as dsn,
        psycopg.connect(dsn, autocommit=True) as connection,
    ):
        migrate(connection)
        for batch in batches(journal, 20):
            store.ingest(connection, batch)
        yield journal, dsn, connection


def partition_of(connection: psycopg.Connection, table: str, where: str) -> set[str]:
    """The partitions holding the rows of ``table`` that match ``where``."""
    rows = connection.execute(
        f"SELECT DISTINCT tableoid::regclass::text FROM {table} WHERE {where}"
    ).fetchall()
    return {row[0] for row in rows}


def test_a_populated_floor_of_version_3_migrates_in_place_and_ships_on(tmp_path, monkeypatch):
    """A floor of version 3 holding half a journal (its last hand in progress) becomes the
    partitioned floor with every row; the journal ships on to its end; the floor is then
    row for row the floor that had the journal on the partitioned schema from the start."""
    path = write_journal(tmp_path / "t.sqlite", hands=4)
    version_3 = tmp_path / "migrations"
    version_3.mkdir()
    for sql in sorted(FOLDER.glob("*.sql"))[:3]:
        shutil.copy(sql, version_3)
    with (
        Journal.open(path, create=False) as journal,
        floor_database() as old_dsn,
        floor_database() as new_dsn,
        psycopg.connect(old_dsn, autocommit=True) as old,
        psycopg.connect(new_dsn, autocommit=True) as new,
    ):
        cut = batches(journal, 13)
        half = len(cut) // 2
        assert migrate(old, version_3) == [1, 2, 3]
        with monkeypatch.context() as patch:  # the release of version 3 made no partitions
            patch.setattr(ingest, "_make_partitions", lambda connection, batch, clock: None)
            # and sent every batch the long way
            patch.setattr(ingest, "_ship_on", lambda connection, batch, session, clock: None)
            # its status had none of the later versions' columns: the status compared below
            # is the one the batches after the upgrade write
            patch.setattr(ingest, "_status", lambda connection, key, status, last, clock: None)
            # nor the house's columns (version 10)
            patch.setattr(ingest, "_house", lambda connection, key, fact, ordinal=0: None)
            for batch in cut[:half]:
                store.ingest(old, batch)
        in_progress = old.execute("SELECT count(*) FROM floor_hands WHERE ended_at IS NULL")
        assert in_progress.fetchone() == (1,)
        before = counts(old)
        assert migrate(old) == [4, 5, 6, 7, 8, 9, 10]
        assert counts(old) == before
        assert_hourly_totals_are_the_hands(old)  # the hands held, counted by the migration
        assert partition_of(old, "floor_journal_entries", "true") == {"floor_journal_entries_0003"}
        assert partition_of(old, "floor_hands", "true") == {"floor_hands_0003"}
        for batch in cut[half:]:
            store.ingest(old, batch)
        migrate(new)
        for batch in cut:
            store.ingest(new, batch)
        assert counts(old) == counts(new)
        assert store.entries(old, "T-01") == store.entries(new, "T-01") == list(journal.entries())
        assert store.hands(old, "T-01") == store.hands(new, "T-01")
        assert store.player_sessions(old) == store.player_sessions(new)
        assert [(h.table_id, h.hands) for h in store.hands_per_hour(old)] == [
            (h.table_id, h.hands) for h in store.hands_per_hour(new)
        ]
        assert_hourly_totals_are_the_hands(old)


def test_the_ingest_makes_the_partitions_its_rows_need(tmp_path):
    """Hands go to the month they started in by the table's clock (a table whose clock is
    years ahead included), entries to the floor's day; the next batch finds them made."""
    ahead = int(datetime(2031, 3, 5, tzinfo=UTC).timestamp() * 1000)
    path = write_journal(tmp_path / "t.sqlite", hands=3, clock=ahead)
    with floor_holding(path) as (_journal, _dsn, connection):
        today = datetime.now(UTC)
        assert partition_of(connection, "floor_hands", "true") == {"floor_hands_203103"}
        entries_at = partition_of(connection, "floor_journal_entries", "true")
        assert entries_at == {f"floor_journal_entries_{today:%Y%m%d}"}
        made = {p.name: p for p in retention.partitions(connection)}
        assert made["floor_hands_203103"].since == datetime(2031, 3, 1, tzinfo=UTC)
        assert made["floor_hands_203103"].until == datetime(2031, 4, 1, tzinfo=UTC)
        assert len(store.hands(connection, "T-01")) == 3


def age(connection: psycopg.Connection, days: int) -> None:
    """A copy of every entry and hand of the floor as the floor held them ``days`` days ago
    (entries taken then, hands started then; the copies' session is 2)."""
    connection.execute(
        "INSERT INTO floor_table_sessions (table_id, session, journal_created, journal_path) "
        "SELECT table_id, 2, journal_created + 1, journal_path FROM floor_table_sessions"
    )
    connection.execute(
        "INSERT INTO floor_journal_entries (table_id, session, position, recorded_at, source, "
        "type, fields, device_kind, serial, boot_id, seq, event_number, ingested_at, chain) "
        "SELECT table_id, 2, position, recorded_at, source, type, fields, device_kind, serial, "
        "boot_id, seq, event_number, now() - make_interval(days => %s), chain "
        "FROM floor_journal_entries",
        (days,),
    )
    connection.execute(
        "INSERT INTO floor_hands (table_id, session, number, started_at, ended_at, seats, "
        "start_position, end_position, void, pot, bonus_cards, recorded, script, outcome) "
        "SELECT table_id, 2, number, now() - make_interval(days => %s), ended_at, seats, "
        "start_position, end_position, void, pot, bonus_cards, recorded, script, outcome "
        "FROM floor_hands",
        (days,),
    )


def retire(dsn: str, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LUCK_TABLE, "floor-retention", "--dsn", dsn, *options],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_retention_archives_old_partitions_then_drops_them_and_keeps_the_rest(tmp_path):
    path = write_journal(
        tmp_path / "t.sqlite", hands=3, clock=int(datetime.now(UTC).timestamp()) * 1000
    )
    archive = tmp_path / "archive"
    with floor_holding(path) as (_journal, dsn, connection):
        for day in (40, 80):
            connection.execute(
                "SELECT floor_make_partition('floor_journal_entries', now() - make_interval(days "
                "=> %s)), floor_make_partition('floor_hands', now() - make_interval(days => %s))",
                (day, day),
            )
        age(connection, 80)
        assert_hourly_totals_are_the_hands(connection)
        hourly = sum(h.hands for h in store.hands_per_hour(connection))
        now = counts(connection)
        old_entries = now["floor_journal_entries"] // 2
        old_hands = now["floor_hands"] // 2

        refused = retire(dsn, "--keep", "0")
        assert refused.returncode == 2
        assert "--keep 0" in refused.stderr
        dry = retire(dsn, "--keep", "30", "--dry-run")
        assert dry.returncode == 0, dry.stderr
        assert "would retire floor_journal_entries_" in dry.stdout
        assert counts(connection) == now

        done = retire(dsn, "--keep", "30", "--keep-hands", "45", "--archive", str(archive))
        assert done.returncode == 0, done.stderr
        assert (
            counts(connection)["floor_journal_entries"]
            == now["floor_journal_entries"] - old_entries
        )
        assert counts(connection)["floor_hands"] == now["floor_hands"] - old_hands
        assert connection.execute(
            "SELECT count(*) FROM floor_hands WHERE session = 2"
        ).fetchone() == (0,)
        assert len(store.hands(connection, "T-01")) == 3
        # the retired hands left the hourly totals with their partition
        assert sum(h.hands for h in store.hands_per_hour(connection)) == hourly - old_hands == 3
        assert_hourly_totals_are_the_hands(connection)
        names = {p.name for p in retention.partitions(connection)}
        files = sorted(p.name for p in archive.iterdir())
        # two days of entries (80 and 40 days ago), the month of hands 80 days ago (not 40)
        assert len(files) == 3
        assert not names & {name.removesuffix(".csv.gz") for name in files}
        assert f"floor_journal_entries_{datetime.now(UTC):%Y%m%d}" in names  # made ahead too
        archived = 0
        for name in files:
            with gzip.open(archive / name, "rt", newline="") as rows:
                archived += sum(1 for _ in csv.reader(rows)) - 1
        assert archived == old_entries + old_hands

        # an archive file is PostgreSQL's CSV of the partition: it restores as it was
        entries_file = next(archive / n for n in files if n.startswith("floor_journal_entries_"))
        connection.execute(
            "SELECT floor_make_partition('floor_journal_entries', now() - interval '80 days')"
        )
        restore = "COPY floor_journal_entries FROM STDIN (FORMAT csv, HEADER)"
        with connection.cursor() as cursor, cursor.copy(restore) as copy:
            copy.write(gzip.decompress(entries_file.read_bytes()))
        restored = connection.execute(
            "SELECT count(*) FROM floor_journal_entries WHERE session = 2"
        ).fetchone()
        assert restored == (old_entries,)

        again = retire(dsn, "--keep", "30", "--archive", str(archive))
        assert again.returncode == 1
        assert "an archive of that name is there already: nothing detached" in again.stderr
        assert connection.execute(
            "SELECT count(*) FROM floor_journal_entries WHERE session = 2"
        ).fetchone() == (old_entries,)


def test_a_retirement_cut_short_is_finished_by_the_next(tmp_path):
    path = write_journal(tmp_path / "t.sqlite", hands=2)
    with floor_holding(path) as (journal, dsn, connection):
        name = connection.execute(
            "SELECT floor_make_partition('floor_journal_entries', now() - interval '40 days'), "
            "floor_make_partition('floor_hands', now() - interval '40 days')"
        ).fetchone()[0]
        age(connection, 40)
        # cut short after the detach: the partition off the floor, not yet dropped
        connection.execute(f"ALTER TABLE floor_journal_entries DETACH PARTITION {name}")
        connection.execute(
            "UPDATE floor_partitions SET detached_at = now() WHERE name = %s", (name,)
        )
        assert counts(connection)["floor_journal_entries"] == len(list(journal.entries()))
        (old,) = [p for p in retention.expired(connection, 30, 365) if p.name == name]
        assert old.detached
        done = retention.retire(connection, old, None)
        assert done.rows == len(list(journal.entries()))
        assert connection.execute("SELECT to_regclass(%s)", (name,)).fetchone() == (None,)
        assert name not in {p.name for p in retention.partitions(connection)}
        with (
            pytest.raises(retention.RetentionError, match="autocommit"),
            psycopg.connect(dsn) as in_transaction,
        ):
            retention.retire(in_transaction, old, None)
