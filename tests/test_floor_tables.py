"""Four simulated tables deal at full speed into one floor store, through outages.

Each table is a table service (``tests.service_play``: the service, an automatic dealer,
players and supervisor) on its own shoe and seat-board simulator processes, shipping its
journal to one PostgreSQL database through a TCP proxy. During the run the floor's
connections are cut twice (every connection dropped and new ones refused for a while; the
second time the floor also terminates the shippers' backends), and one table's service is
killed with SIGKILL and started again on its journal. When all are done the floor holds
each table's journal exactly (every entry once, in order: 0 lost, 0 duplicated) and its
hands are the journal's, hand script for hand script (``recorded_hands``).

Then the floor's checks of a journal's identity and chain, each refusal an alert of the
table on the pit: a table renamed (refused until ``luck-table floor-bind --renamed-from``),
a table configured with another table's id (refused), and a journal restored from a backup
and dealt on past the floor's copy (the shipper stops, the floor keeps its copy apart,
until ``luck-table floor-bind --new-journal``).
"""

from __future__ import annotations

import contextlib
import json
import shutil
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from controller.floor import store
from controller.history.hands import recorded_hands
from controller.journal import Journal
from tests.floor_kit import floor_database, wait_for
from tests.service_kit import simulator, write_config
from tests.tcp_proxy import CutProxy

pytestmark = pytest.mark.slow  # PostgreSQL

TABLES = 4
HANDS = 5
KILLED = 2  # the table whose service is killed and restarted
TIMEOUT = 300.0
LUCK_TABLE = str(Path(sys.executable).parent / "luck-table")


class Table:
    """One simulated table: its folder, configuration, simulators and service process."""

    def __init__(self, number: int, folder: Path, floor_dsn: str, stack: contextlib.ExitStack):
        self.id = f"T-{number}"
        self.number = number
        folder.mkdir()
        self.folder = folder
        shoe = stack.enter_context(simulator("shoe", seed=number))
        seats = stack.enter_context(simulator("seats", seed=number))
        self.controls = (shoe.announced["control"], seats.announced["control"])
        # batches of 200 (the default is 500): several a hand (a hand is about 170 entries
        # with the deck's registration), and a stop still drains the outage's backlog
        floor = (
            f"dsn = {json.dumps(floor_dsn)}\nbatch = 200\n"
            "retry_initial = 0.1\nretry_max = 0.5\nheartbeat = 0.5"
        )
        self.config = write_config(folder, shoe.port, seats.port, table_id=self.id, floor=floor)
        self.journal = folder / "table.sqlite"
        self.runs = 0
        self.process: subprocess.Popen[str] | None = None

    def renamed(self, table_id: str) -> None:
        """The table's ``[table] id`` is ``table_id`` from now on."""
        text = self.config.read_text()
        self.config.write_text(text.replace(f'id = "{self.id}"', f'id = "{table_id}"', 1))
        self.id = table_id

    def start(self, hands: int = HANDS) -> None:
        self.runs += 1
        log = (self.folder / f"service-{self.runs}.log").open("w")
        self.process = subprocess.Popen(
            [
                *(sys.executable, "-m", "tests.service_play", str(self.config)),
                *("--shoe-control", self.controls[0], "--seats-control", self.controls[1]),
                *("--hands", str(hands), "--seed", str(self.number * 100 + self.runs)),
            ],
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
        log.close()
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # the service has recovered its journal
        assert line, f"{self.id}: the service ended with status {self.process.wait()}"

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        assert self.process.stdout is not None
        self.process.stdout.close()

    def finish(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        assert self.process.wait(timeout=TIMEOUT) == 0, f"{self.id} failed: see {self.folder}"
        self.process.stdout.close()

    def logs(self) -> str:
        return "".join(path.read_text() for path in sorted(self.folder.glob("service-*.log")))


def confirmed(dsn: str, table: str) -> int:
    with psycopg.connect(dsn) as connection:
        return store.confirmed_position(connection, table)


def open_alerts(dsn: str, table: str) -> list[str]:
    with psycopg.connect(dsn) as connection:
        return [alert.kind for alert in store.open_alerts(connection, table)]


def entries(path: Path) -> list:
    with Journal.open(path, create=False) as journal:
        return list(journal.entries())


def floor_bind(table: Table, *how: str) -> str:
    done = subprocess.run(
        [LUCK_TABLE, "floor-bind", "--config", str(table.config), *how],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def hand_number(table: Table) -> int:
    with Journal.open(table.journal, create=False) as journal:
        return max((hand.number for hand in recorded_hands(journal)), default=0)


@contextlib.contextmanager
def cut(proxy: CutProxy, dsn: str, terminate: bool) -> Iterator[None]:
    """An outage of the floor: connections dropped and refused (and, with ``terminate``,
    the shippers' backends ended by the floor itself) while the block runs."""
    proxy.cut()
    if terminate:
        with psycopg.connect(dsn, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                "AND application_name = 'luck-table shipper'"
            )
    try:
        yield
    finally:
        proxy.restore()


@pytest.mark.slow
def test_four_tables_into_one_floor_through_outages_and_a_kill(tmp_path):
    with floor_database() as dsn, contextlib.ExitStack() as stack:
        parts = conninfo_to_dict(dsn)
        proxy = stack.enter_context(
            CutProxy((parts.get("host", "127.0.0.1"), int(parts.get("port", 5432))))
        )
        via_proxy = make_conninfo(dsn, host="127.0.0.1", port=proxy.port)
        tables = [Table(n, tmp_path / f"t{n}", via_proxy, stack) for n in range(1, TABLES + 1)]
        try:
            for table in tables:
                table.start()
            wait_for(lambda: all(confirmed(dsn, t.id) > 0 for t in tables), "every table ships")
            with cut(proxy, dsn, terminate=False):  # the tables deal on, shippers knock
                knocked = proxy.refused
                wait_for(lambda: proxy.refused > knocked, "a shipper refused in the outage")
            killed = tables[KILLED - 1]
            wait_for(lambda: hand_number(killed) >= 2, f"{killed.id} deals its second hand")
            killed.kill()
            killed.start()  # recovered from its journal
            with cut(proxy, dsn, terminate=True):
                knocked = proxy.refused
                wait_for(lambda: proxy.refused > knocked, "a shipper refused in the outage")
            running = [t.id for t in tables if t.process is not None and t.process.poll() is None]
            assert running, "every table finished before the second outage: deal more hands"
            for table in tables:
                table.finish()
        finally:
            for table in tables:
                if table.process is not None and table.process.poll() is None:
                    table.kill()

        assert proxy.refused >= 2  # shippers knocked while the floor was away
        with psycopg.connect(dsn) as connection:
            for table in tables:
                with Journal.open(table.journal, create=False) as journal:
                    entries = list(journal.entries())
                    hands = list(recorded_hands(journal))
                # 0 lost, 0 duplicated: the floor's entries are exactly the journal's
                assert store.entries(connection, table.id) == entries, table.id
                assert store.confirmed_position(connection, table.id) == entries[-1].position
                held = store.hands(connection, table.id)
                assert [h.number for h in held] == list(range(1, HANDS + 1)), table.id
                assert [h.number for h in hands] == [h.number for h in held]
                assert [h.script for h in held] == [hand.script_json() for hand in hands]
                assert all(h.recorded for h in held)
                (status,) = store.tables(connection, table.id)
                assert (status.state, status.hand_number) == ("idle", HANDS)  # all hands dealt
                assert status.last_position == entries[-1].position
            (count,) = connection.execute("SELECT count(*) FROM floor_hands").fetchone()
            assert count == TABLES * HANDS
        logs = {table.id: table.logs() for table in tables}
        assert sum("the floor is not reachable" in text for text in logs.values()) >= 2
        assert sum("the floor is back after" in text for text in logs.values()) >= 2
        assert killed.runs == 2
        assert "shipping journal" in logs[killed.id]

        twin = Table(TABLES + 1, tmp_path / "twin", via_proxy, stack)
        renamed_and_duplicate_ids_are_refused(dsn, tables, twin)
        a_restored_backup_is_kept_apart(dsn, proxy, tables[KILLED - 1], tmp_path)


def renamed_and_duplicate_ids_are_refused(dsn: str, tables: list[Table], twin: Table) -> None:
    """T-1 renamed T-10: refused (an alert at T-1) until the operator says it was renamed;
    a new table (``twin``) configured with T-4's id: refused, an alert at T-4, which keeps
    its own journal."""
    renamed, other = tables[0], tables[3]
    renamed.renamed("T-10")
    twin.renamed(other.id)
    try:
        for table in (renamed, twin):
            table.start(HANDS + 1)
        wait_for(lambda: "journal_refused" in open_alerts(dsn, "T-1"), "T-1 renamed is refused")
        wait_for(lambda: "second_journal" in open_alerts(dsn, other.id), "T-3 as T-4 is refused")
        # the shipper's log line comes from its process, a moment after its alert
        wait_for(lambda: "--renamed-from T-1" in renamed.logs(), "T-1's log says what to do")
        wait_for(lambda: "floor-bind" in twin.logs(), "the twin's log says what to do")
        assert confirmed(dsn, "T-10") == 0
        said = floor_bind(renamed, "--renamed-from", "T-1")
        assert "table T-1 is table T-10 on the floor from now on" in said
        for table in (renamed, twin):
            table.finish()
    finally:
        for table in (renamed, twin):
            if table.process is not None and table.process.poll() is None:
                table.kill()
    with psycopg.connect(dsn) as connection:
        assert store.entries(connection, "T-10") == entries(renamed.journal)  # all, once
        assert [h.number for h in store.hands(connection, "T-10")] == list(range(1, HANDS + 2))
        assert "T-1" not in [t.table_id for t in store.tables(connection)]
        assert store.open_alerts(connection, "T-10") == []
        assert store.entries(connection, other.id) == entries(other.journal)  # its own only
        with Journal.open(twin.journal, create=False) as journal:
            identity = journal.identity()
            assert identity is not None and len(list(journal.entries())) > 0  # it dealt
        assert store.held(connection, identity) is None  # nothing of it on the floor


def a_restored_backup_is_kept_apart(dsn: str, proxy: CutProxy, table: Table, folder: Path) -> None:
    """A backup of a table's journal, restored after the table dealt on and dealt on again
    past the floor's copy while the floor was away: the shipper stops with an alert at the
    table, the floor keeps its copy; ``floor-bind --new-journal`` ships it as a new session."""
    backup = folder / "backup.sqlite"
    with sqlite3.connect(table.journal) as live, sqlite3.connect(backup) as copy:
        live.backup(copy)  # the online backup operations.md gives
    table.start(HANDS + 1)
    table.finish()
    shipped = entries(table.journal)
    wait_for(lambda: confirmed(dsn, table.id) == shipped[-1].position, "the floor has it all")
    for part in ("", "-wal", "-shm"):
        Path(f"{table.journal}{part}").unlink(missing_ok=True)
    shutil.copy(backup, table.journal)
    try:
        proxy.cut()  # the floor away while the restored table deals past its copy
        table.start(HANDS + 3)
        wait_for(
            lambda: entries(table.journal)[-1].position > shipped[-1].position,
            "the restored journal passes the floor's copy",
        )
        proxy.restore()
        wait_for(lambda: "journal_diverged" in open_alerts(dsn, table.id), "the alert")
        table.finish()  # the table dealt on
    finally:
        proxy.restore()
        if table.process is not None and table.process.poll() is None:
            table.kill()
    assert "shipping stops" in table.logs() and "is not the floor's copy" in table.logs()
    with psycopg.connect(dsn) as connection:
        assert store.entries(connection, table.id) == shipped  # nothing spliced on
    said = floor_bind(table, "--new-journal")
    assert "session 2" in said and "keeps it" in said
    table.start(HANDS + 4)  # one more hand while it ships
    table.finish()
    with psycopg.connect(dsn) as connection:
        assert store.entries(connection, table.id) == entries(table.journal)
        assert store.entries(connection, table.id, session=1) == shipped
        assert store.open_alerts(connection, table.id) == []
