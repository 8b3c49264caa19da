"""A floor for the floor service's tests: a PostgreSQL database of its own, tables shipped
into it from a real journal, and ``luck-table floor`` started as its own process.

``floor_database()`` creates a database with a unique name on the machine's PostgreSQL
(``LUCK_FLOOR_PG``, default ``postgresql://postgres@127.0.0.1:5432/postgres``) and drops
it afterwards; without a reachable server the test is skipped with the reason, except
under CI (``CI`` set), where it fails.

``sim_journal()`` deals hands with ``luck-table sim`` (the simulators, the service, its
journal, cards unread and misplaced). ``ship()`` puts a journal (up to a position) into the
floor as one table, the way a table's shipper does: facts derived through the table core
(``controller.floor.derive``), batches ingested by ``controller.floor.store.ingest``.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

from controller.config import hash_pin
from controller.floor import facts, store
from controller.floor.derive import Point, derive
from controller.floor.migrate import migrate
from controller.journal import Journal
from controller.service.recovery import initial_table

ADMIN = os.environ.get("LUCK_FLOOR_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
SUPERVISOR = {"id": "pit", "pin": "9999"}
TIMEOUT = 60.0
LUCK_TABLE = Path(sys.executable).with_name("luck-table")


def _admin() -> psycopg.Connection:
    try:
        return psycopg.connect(ADMIN, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as error:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"no PostgreSQL at {ADMIN} for the floor's tests: {error}")


@contextlib.contextmanager
def floor_database() -> Iterator[str]:
    """The DSN of a new database with the floor schema, dropped when the block ends."""
    name = f"luck_pit_test_{uuid.uuid4().hex[:12]}"
    with _admin() as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    dsn = make_conninfo(ADMIN, dbname=name)
    try:
        with psycopg.connect(dsn) as connection:
            migrate(connection)
        yield dsn
    finally:
        with _admin() as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


def sim_journal(folder: Path, hands: int = 6) -> Path:
    """A journal of ``hands`` hands dealt by ``luck-table sim`` at full speed, with cards
    unread and misplaced (alerts the simulated supervisor and dealer resolve)."""
    path = folder / "table.sqlite3"
    subprocess.run(
        [
            *(str(LUCK_TABLE), "sim", "--hands", str(hands), "--speed", "max", "--seed", "3"),
            *("--unreadable", "0.04", "--misplaced", "0.03", "--journal", str(path)),
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    return path


def statuses(path: Path) -> list[facts.Status]:
    """The table's status after each position of the journal at ``path`` (index 0: after
    position 1)."""
    journal = Journal.open(path, create=False)
    try:
        point, out = Point(0, initial_table()), []
        while True:
            derived = derive(journal, point, 1)
            if not derived.entries:
                return out
            out.append(derived.status)
            point = derived.point
    finally:
        journal.close()


def ship(dsn: str, path: Path, table_id: str, upto: int | None = None, batch: int = 100) -> int:
    """Ship the journal at ``path`` as table ``table_id`` up to position ``upto`` (all of
    it by default); the floor's confirmed position after it."""
    journal = Journal.open(path, create=False)
    identity = facts.Journal(table_id, f"Table {table_id}", journal.created_at(), str(path))
    point = Point(0, initial_table())
    try:
        with store.connect(dsn) as connection:
            while upto is None or point.position < upto:
                limit = batch if upto is None else min(batch, upto - point.position)
                derived = derive(journal, point, limit)
                if not derived.entries:
                    break
                batch_of = facts.Batch(
                    identity, derived.entries, derived.facts, derived.status, "pit tests"
                )
                store.ingest(connection, batch_of)
                point = derived.point
            return store.confirmed_position(connection, table_id)
    finally:
        journal.close()


@dataclass
class FloorService:
    """``luck-table floor`` running as its own process: its ``url``."""

    process: subprocess.Popen[str]
    url: str
    log: Path

    def stop(self) -> int:
        self.process.terminate()
        return self.process.wait(timeout=TIMEOUT)


def floor_config(folder: Path, consoles: dict[str, str] | None = None) -> Path:
    """A floor service's configuration with the supervisor ``pit`` (PIN 9999)."""
    lines = ["[api]", 'bind = "127.0.0.1"', "[consoles]"]
    lines += [f'{table} = "{url}"' for table, url in (consoles or {}).items()]
    lines += ["[[credentials.supervisors]]", f'id = "{SUPERVISOR["id"]}"']
    lines += [f'pin_hash = "{hash_pin(SUPERVISOR["pin"])}"', ""]
    path = folder / f"floor-{uuid.uuid4().hex[:6]}.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


_URL = re.compile(r"is at (https?://\S+)")


def start_floor(config: Path, dsn: str, poll: float | None = None) -> FloorService:
    """Start ``luck-table floor`` on ``config`` against ``dsn`` and wait until it listens."""
    if poll is not None:
        text = config.read_text(encoding="utf-8")
        config.write_text(f"[floor]\npoll = {poll}\n{text}", encoding="utf-8")
    log = config.with_suffix(".log")
    with log.open("w", encoding="utf-8") as out:
        process = subprocess.Popen(
            [str(LUCK_TABLE), "floor", "--config", str(config), "--dsn", dsn, "--port", "0"],
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        found = _URL.search(log.read_text(encoding="utf-8"))
        if found:
            return FloorService(process, found.group(1), log)
        if process.poll() is not None:
            raise AssertionError(f"luck-table floor stopped: {log.read_text(encoding='utf-8')}")
        time.sleep(0.05)
    process.kill()
    raise AssertionError(f"luck-table floor did not start: {log.read_text(encoding='utf-8')}")


class Proxy:
    """A TCP relay to PostgreSQL that a test can cut (every connection closed, new ones
    refused, as while PostgreSQL restarts) and restore at the same port."""

    def __init__(self, host: str = "127.0.0.1", port: int = 5432) -> None:
        self.target = (host, port)
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._serve(self._listener)

    def dsn(self, dsn: str) -> str:
        """``dsn`` through the relay."""
        return make_conninfo(dsn, host="127.0.0.1", port=str(self.port))

    def cut(self) -> None:
        with self._lock:
            for sock in (self._listener, *self._sockets):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self._sockets.clear()

    def restore(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", self.port), reuse_port=False)
        self._serve(self._listener)

    def _serve(self, listener: socket.socket) -> None:
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
                upstream = socket.create_connection(self.target)
            except OSError:
                return
            with self._lock:
                self._sockets.update((client, upstream))
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pump, args=(source, sink), daemon=True).start()


def _pump(source: socket.socket, sink: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)
