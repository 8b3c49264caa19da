"""A group of casinos: a floor's publication, and the central database subscribed to it
(where the server's ``wal_level`` is ``logical``; skipped with the reason where not)."""

from __future__ import annotations

import uuid

import psycopg
import pytest

from controller.floor import group, store
from controller.floor.migrate import migrate
from controller.journal import Journal
from tests.floor_kit import floor_database, wait_for, write_journal
from tests.test_floor_store import batches


def test_a_floor_publishes_its_history_not_its_live_state_nor_its_bulk():
    with floor_database() as dsn, psycopg.connect(dsn, autocommit=True) as connection:
        migrate(connection)
        group.publish(connection)
        group.publish(connection)  # again: the same publication, set to the same tables
        assert group.published(connection) == sorted(group.PUBLISHED)
        via_root = connection.execute(
            "SELECT pubviaroot, pubinsert, pubupdate, pubdelete, pubtruncate FROM pg_publication "
            "WHERE pubname = %s",
            (group.PUBLICATION,),
        ).fetchone()
        assert via_root == (True, True, True, True, False)
        connection.execute(f"ALTER PUBLICATION {group.PUBLICATION} ADD TABLE floor_table_status")
        group.publish(connection)
        assert "floor_table_status" not in group.published(connection)


def test_the_central_database_follows_a_floor(tmp_path):
    with floor_database() as floor_dsn, psycopg.connect(floor_dsn, autocommit=True) as floor:
        level = floor.execute("SHOW wal_level").fetchone()
        if level is None or level[0] != "logical":
            pytest.skip(
                f"wal_level is {level and level[0]} on this server, not logical: a floor's "
                "publication cannot be subscribed to"
            )
        migrate(floor)
        path = write_journal(tmp_path / "t.sqlite", hands=3)
        with Journal.open(path, create=False) as journal:
            cut = batches(journal, 20)
        half = len(cut) // 2
        for batch in cut[:half]:
            store.ingest(floor, batch)
        group.publish(floor)
        name = f"casino_{uuid.uuid4().hex[:8]}"
        with (
            floor_database() as central_dsn,
            psycopg.connect(central_dsn, autocommit=True) as central,
        ):
            migrate(central)
            group.prepare_central(central, floor, ahead=2)
            group.subscribe(central, floor, name, floor_dsn)
            try:
                for batch in cut[half:]:
                    store.ingest(floor, batch)

                def same() -> bool:
                    return all(
                        central.execute(f"SELECT count(*) FROM {table}").fetchone()
                        == floor.execute(f"SELECT count(*) FROM {table}").fetchone()
                        for table in group.PUBLISHED
                    )

                wait_for(same, "the central database holds the floor's rows", timeout=60)
                assert store.hands(central, "T-01", session=1) == store.hands(floor, "T-01")
                assert central.execute("SELECT count(*) FROM floor_journal_entries").fetchone() == (
                    0,
                )
            finally:
                group.unsubscribe(central, floor, name)
