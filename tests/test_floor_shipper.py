"""The journal shipper, in-process and in a process of its own, against a real PostgreSQL
behind a proxy that cuts it.

The journal grows while the shipper runs (a table dealing); the floor goes away (every
connection cut and new ones refused, or the shipper's backend terminated) and comes back;
a second shipper takes over from a stopped one. Each time the floor ends up holding the
journal exactly: every entry once, in order, and every hand's script.
"""

from __future__ import annotations

import itertools
import logging
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from controller.config import FloorSettings
from controller.floor import facts as f
from controller.floor import store
from controller.floor.derive import Point, derive, point_at
from controller.floor.migrate import migrate
from controller.floor.shipper import Shipper
from controller.floor.shipper_process import ShipperProcess
from controller.floor.store import shipped
from controller.history.hands import recorded_hands
from controller.journal import Journal
from controller.journal.snapshots import Snapshots
from controller.recovery import initial_table
from controller.service import steps
from controller.table import SitDown, Table
from tests.floor_kit import JournalWriter, floor_database, wait_for, write_journal
from tests.tcp_proxy import CutProxy

pytestmark = pytest.mark.slow  # PostgreSQL


def settings(dsn: str) -> FloorSettings:
    return FloorSettings(dsn, batch=20, retry_initial=0.05, retry_max=0.3, heartbeat=0.2)


def shipper_for(journal: Journal, dsn: str) -> Shipper:
    return Shipper(settings(dsn), shipped(journal, "T-07", "table 7"))


def last_position(journal: Journal) -> int:
    return max(entry.position for entry in journal.entries())


def assert_floor_holds(dsn: str, journal: Journal) -> None:
    with psycopg.connect(dsn) as connection:
        assert store.entries(connection, "T-07") == list(journal.entries())
        held = store.hands(connection, "T-07")
    hands = list(recorded_hands(journal))
    assert [h.number for h in held] == [hand.number for hand in hands]
    assert [h.script for h in held] == [hand.script_json() for hand in hands]


@pytest.fixture
def floor_dsn():
    with floor_database() as dsn:
        yield dsn


def test_the_shipper_follows_a_growing_journal(floor_dsn, tmp_path):
    path = write_journal(tmp_path / "t.sqlite", hands=2)
    with Journal.open(path, create=False) as journal:
        shipper = shipper_for(journal, floor_dsn)
        shipper.start()
        try:
            wait_for(lambda: shipper.confirmed == last_position(journal), "the journal shipped")
            writer = JournalWriter(path, clock=1_850_000_000_000)
            writer.table = replayed_table(journal)
            writer.play_hand(random.Random(5))
            shipper.notify()
            wait_for(lambda: shipper.confirmed == last_position(journal), "the new hand shipped")
            writer.close()
        finally:
            shipper.stop()
        assert_floor_holds(floor_dsn, journal)


def test_catching_up_rests_after_each_full_batch_as_long_as_it_took(
    floor_dsn, tmp_path, monkeypatch
):
    """Behind the floor while the table deals (it commits, and says so, every few
    milliseconds), each full batch is followed by a rest at least as long as its shipping
    took (the table's cards find the cores free); then the floor holds it all."""
    path = write_journal(tmp_path / "t.sqlite", hands=2)
    ingests: list[tuple[float, float, int]] = []  # start, end, entries
    ingest = store.ingest

    def timed(connection: psycopg.Connection, batch: f.Batch) -> int:
        started = time.monotonic()
        confirmed = ingest(connection, batch)
        ingests.append((started, time.monotonic(), len(batch.entries)))
        return confirmed

    monkeypatch.setattr(store, "ingest", timed)
    with Journal.open(path, create=False) as journal:
        shipper = shipper_for(journal, floor_dsn)
        dealt = threading.Event()
        told: list[float] = []

        def dealing() -> None:  # the table's notifications after its commits
            while not dealt.wait(0.001):
                shipper.notify()
                told.append(time.monotonic())  # told by then

        table = threading.Thread(target=dealing)
        shipper.start()
        table.start()
        try:
            wait_for(lambda: shipper.confirmed == last_position(journal), "the journal shipped")
        finally:
            dealt.set()
            table.join()
            shipper.stop()
        assert_floor_holds(floor_dsn, journal)
    # the full batches while the table was dealing (told of a commit while it shipped one)
    full = [
        (this, after)
        for this, after in itertools.pairwise(ingests)
        if this[2] == 20 and any(this[0] <= at <= this[1] for at in told)
    ]
    assert len(full) >= 3, ingests
    for (started, ended, _), (next_started, _, _) in full:
        assert next_started - ended >= ended - started


def replayed_table(journal: Journal) -> Table:
    """The table after the journal's last entry."""
    table = initial_table()
    for _, step in steps(journal):
        table = step.table
    return table


def test_outages_lose_nothing_and_duplicate_nothing(floor_dsn, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="controller.floor.shipper")
    parts = conninfo_to_dict(floor_dsn)
    path = write_journal(tmp_path / "t.sqlite", hands=1)
    rng = random.Random(3)
    with CutProxy((parts.get("host", "127.0.0.1"), int(parts.get("port", 5432)))) as proxy:
        via_proxy = make_conninfo(floor_dsn, host="127.0.0.1", port=proxy.port)
        with Journal.open(path, create=False) as journal:
            writer = JournalWriter(path, clock=1_850_000_000_000)
            writer.table = replayed_table(journal)
            shipper = shipper_for(journal, via_proxy)
            shipper.start()
            try:
                wait_for(lambda: shipper.confirmed == last_position(journal), "first shipping")
                # the network fails: cut and refused while the table deals on
                proxy.cut()
                writer.play_hand(rng)
                shipper.notify()
                wait_for(lambda: not shipper.connected, "the shipper sees the outage")
                wait_for(lambda: proxy.refused >= 2, "the shipper retries")
                writer.play_hand(rng)
                proxy.restore()
                wait_for(lambda: shipper.confirmed == last_position(journal), "caught up")
                # the floor ends the shipper's connection while a hand is shipped
                writer.play_hand(rng)
                with psycopg.connect(floor_dsn, autocommit=True) as admin:
                    admin.execute(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                        "AND application_name = 'luck-table shipper'"
                    )
                writer.put(SitDown(at=0, seat=6, player="late", buy_in=100))
                shipper.notify()
                wait_for(lambda: shipper.confirmed == last_position(journal), "caught up again")
            finally:
                shipper.stop()
                writer.close()
            assert_floor_holds(floor_dsn, journal)
    messages = [record.getMessage() for record in caplog.records]
    assert any("the floor is not reachable" in m and "the table deals on" in m for m in messages)
    assert any(m.startswith("the floor is back after") for m in messages)


def test_a_new_shipper_resumes_after_the_floor_s_position(floor_dsn, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="controller.floor.shipper")
    path = write_journal(tmp_path / "t.sqlite", hands=2)
    with Journal.open(path, create=False) as journal:
        first = shipper_for(journal, floor_dsn)
        first.start()
        wait_for(lambda: first.confirmed == last_position(journal), "shipped")
        first.stop()
        shipped = first.confirmed
        writer = JournalWriter(path, clock=1_850_000_000_000)
        writer.table = replayed_table(journal)
        writer.play_hand(random.Random(9))
        writer.close()
        second = shipper_for(journal, floor_dsn)
        second.start()
        try:
            wait_for(lambda: second.confirmed == last_position(journal), "shipped again")
        finally:
            second.stop()
        assert_floor_holds(floor_dsn, journal)
    assert any(
        r.getMessage().endswith(f"to the floor from position {shipped + 1}") for r in caplog.records
    )


def test_a_floor_that_never_answers_neither_blocks_nor_raises(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="controller.floor.shipper")
    path = write_journal(tmp_path / "t.sqlite", hands=1)
    with CutProxy(("127.0.0.1", 9)) as proxy, Journal.open(path, create=False) as journal:
        proxy.cut()
        shipper = shipper_for(journal, f"host=127.0.0.1 port={proxy.port} dbname=x user=x")
        shipper.start()
        wait_for(lambda: proxy.refused >= 3, "the shipper retries")
        started = time.monotonic()
        shipper.stop(drain=1.0)  # a floor still away meanwhile: given up after a second
        assert time.monotonic() - started < 4
        assert shipper.confirmed == 0 and not shipper.connected
    assert any("the floor is not reachable" in r.getMessage() for r in caplog.records)


def test_a_journal_behind_the_floors_copy_stops_the_shipper_with_the_tables_alert(
    floor_dsn, tmp_path, caplog
):
    caplog.set_level(logging.INFO, logger="controller.floor.shipper")
    path = write_journal(tmp_path / "t.sqlite", hands=1)
    with Journal.open(path, create=False) as journal:
        identity = shipped(journal, "T-07", "table 7")
        with psycopg.connect(floor_dsn, autocommit=True) as connection:
            migrate(connection)
            store.register(connection, identity)
            connection.execute(  # as if the journal had been restored from an older backup
                "UPDATE floor_table_sessions SET confirmed_position = 100000"
            )
        shipper = Shipper(settings(floor_dsn), identity)
        shipper.start()
        wait_for(lambda: shipper.refused is not None, "the shipper stops", timeout=60)
        time.sleep(1.0)  # the scenario: a silence; retries would come within 0.3 s
        shipper.stop()
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1, errors  # stopped, not retried
    assert "shipping stops" in errors[0] and "ends at position" in errors[0]
    assert "up to position 100000" in errors[0]
    with psycopg.connect(floor_dsn) as connection:
        (alert,) = store.open_alerts(connection, "T-07")
        assert (alert.kind, alert.severity, alert.alert_id) == ("journal_diverged", "fault", -1)
        assert "floor-bind --new-journal" in alert.remedy
        assert store.confirmed_position(connection, "T-07") == 100000  # the floor's copy stays


def test_a_journal_far_ahead_of_the_floor_is_shipped_from_a_process_of_its_own(
    floor_dsn, tmp_path, caplog
):
    """A restarted table whose floor holds 2 of its 30 hands: the shipper process rebuilds
    the table at the floor's position and derives the 28 hands after it; the table's own
    process spends next to nothing of that (its CPU time against the same work done in it),
    and the floor names the child as the journal's shipper."""
    caplog.set_level(logging.INFO, logger="controller.floor.shipper")
    path = write_journal(tmp_path / "t.sqlite", hands=30)
    with Journal.open(path, create=False) as journal:
        identity = shipped(journal, "T-07", "table 7")
        whole = derive(journal, Point(0, initial_table()), 10**6)
        hands_two = next(
            fact.position
            for fact in whole.facts
            if isinstance(fact, f.HandEnded) and fact.number == 2
        )
        snapshots = Snapshots(path)
        with psycopg.connect(floor_dsn, autocommit=True) as connection:
            migrate(connection)
            derived = derive(journal, Point(0, initial_table()), hands_two)
            batch = f.Batch(identity, derived.entries, derived.facts, derived.status)
            store.ingest(connection, batch)
        last = last_position(journal)
        began = time.process_time()
        point_at(journal, snapshots, hands_two)
        snapshots.close()
        in_process = derive(journal, derived.point, last)
        here = time.process_time() - began  # the work, done in this process
        assert in_process.entries[-1].position == last
        shipper = ShipperProcess(settings(floor_dsn), identity)
        began = time.process_time()
        shipper.start()
        try:
            wait_for(lambda: shipper.confirmed == last, "the journal shipped", timeout=60)
            assert shipper.connected and shipper.refused is None
            assert shipper.outage_seconds(time.monotonic()) == 0.0
        finally:
            shipper.stop()
        spent = time.process_time() - began
        assert spent < here / 4, (spent, here)
        assert_floor_holds(floor_dsn, journal)
        with psycopg.connect(floor_dsn) as connection:
            (name,) = connection.execute("SELECT shipper FROM floor_table_sessions").fetchone()
        assert name.endswith(f"pid {shipper.pid}") and shipper.pid != os.getpid()
    messages = [r.getMessage() for r in caplog.records]  # the child's, in this process's log
    assert f"shipping journal {path} to the floor from position {hands_two + 1}" in messages


def test_the_shipper_process_ends_when_the_table_s_process_is_killed(floor_dsn, tmp_path):
    """A table service killed (SIGKILL) leaves no shipper behind: the child sees the
    service's end of the pipe close, ships what is left and ends."""
    path = write_journal(tmp_path / "t.sqlite", hands=2)
    with psycopg.connect(floor_dsn, autocommit=True) as connection:
        migrate(connection)
    script = (
        "import sys, time\n"
        "from controller.floor.shipper_process import ShipperProcess\n"
        "from controller.floor.store import shipped\n"
        "from controller.journal import Journal\n"
        "from tests.test_floor_shipper import settings\n"
        "with Journal.open(sys.argv[1], create=False) as journal:\n"
        "    identity = shipped(journal, 'T-07', 'table 7')\n"
        "shipper = ShipperProcess(settings(sys.argv[2]), identity)\n"
        "shipper.start()\n"
        "print(shipper.pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    table = subprocess.Popen(
        [sys.executable, "-c", script, str(path), floor_dsn],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).parent.parent,
    )
    try:
        assert table.stdout is not None
        child = int(table.stdout.readline())
        with Journal.open(path, create=False) as journal:
            last = last_position(journal)
        with psycopg.connect(floor_dsn, autocommit=True) as connection:
            wait_for(lambda: store.confirmed_position(connection, "T-07") == last, "shipped", 60)
        table.kill()
        table.wait(10)
        wait_for(lambda: not Path(f"/proc/{child}").exists() or _zombie(child), "ended", 15)
    finally:
        table.kill()
        table.wait(10)


def _zombie(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    return "State:\tZ" in status
