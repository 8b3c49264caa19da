"""A floor for the floor service's tests: a PostgreSQL database of its own, tables shipped
into it from a real journal, and ``luck-table floor`` started as its own process.

``pit_database()`` is the floor tests' own database (unique name, dropped afterwards) with
the floor schema; ``relay()`` puts the floor tests' cuttable TCP proxy in front of it.

``sim_journal()`` deals hands with ``luck-table sim`` (the simulators, the service, its
journal, cards unread and misplaced). ``ship()`` puts a journal (up to a position) into the
floor as one table, the way a table's shipper does: facts derived through the table core
(``controller.floor.derive``), batches ingested by ``controller.floor.store.ingest``.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from controller.floor import facts, store
from controller.floor.derive import Point, derive
from controller.floor.migrate import migrate
from controller.journal import Journal
from controller.recovery import initial_table
from dealer_ui.auth import hash_pin
from tests.floor_kit import floor_database
from tests.tcp_proxy import CutProxy
from tests.waiting import wait_until

SUPERVISOR = {"id": "pit", "pin": "999999"}
TIMEOUT = 60.0
LUCK_TABLE = Path(sys.executable).with_name("luck-table")


@contextlib.contextmanager
def pit_database() -> Iterator[str]:
    """The DSN of a new database (``floor_kit.floor_database``) with the floor schema."""
    with floor_database() as dsn:
        with psycopg.connect(dsn) as connection:
            migrate(connection)
        yield dsn


def relay(dsn: str) -> tuple[CutProxy, str]:
    """A relay to the PostgreSQL of ``dsn`` that a test can cut (every connection dropped,
    new ones refused, as while PostgreSQL restarts), and ``dsn`` through it."""
    parts = conninfo_to_dict(dsn)
    proxy = CutProxy((str(parts.get("host", "127.0.0.1")), int(parts.get("port", 5432))))
    return proxy, make_conninfo(dsn, host="127.0.0.1", port=str(proxy.port))


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


def ship(
    dsn: str,
    path: Path,
    table_id: str,
    upto: int | None = None,
    batch: int = 100,
    created: float | None = None,
) -> int:
    """Ship the journal at ``path`` as table ``table_id`` up to position ``upto`` (all of
    it by default); the floor's confirmed position after it. ``created`` stands for the
    journal's time of creation (another time: another journal of the table, bound on the
    floor as its new session, as ``luck-table floor-bind --new-journal`` does)."""
    journal = Journal.open(path, create=False)
    made = journal.created_at() if created is None else created
    # one journal shipped as several tables, or as a table's new journal: each its own
    # identity on the floor
    identity = facts.Journal(
        table_id, f"Table {table_id}", made, str(path), f"{table_id}/{path}/{made}"
    )
    point = Point(0, initial_table())
    try:
        with store.connect(dsn) as connection:
            if created is not None and store.held(connection, identity.journal_id) is None:
                store.bind_journal(connection, identity, "pit tests")  # the operator's reset
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


def floor_config(
    folder: Path, consoles: dict[str, str] | None = None, supervisor: dict[str, str] = SUPERVISOR
) -> Path:
    """A floor service's configuration with ``supervisor`` (``id``, ``pin``: by default
    ``pit``, PIN 999999)."""
    lines = ["[api]", 'bind = "127.0.0.1"', "[consoles]"]
    lines += [f'{table} = "{url}"' for table, url in (consoles or {}).items()]
    lines += ["[[credentials.supervisors]]", f'id = "{supervisor["id"]}"']
    lines += [f'pin_hash = "{hash_pin(supervisor["pin"])}"', ""]
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

    def started() -> re.Match[str] | None:
        if process.poll() is not None:
            raise AssertionError(f"luck-table floor stopped: {log.read_text(encoding='utf-8')}")
        return _URL.search(log.read_text(encoding="utf-8"))

    try:
        found = wait_until(
            started, "luck-table floor starts", TIMEOUT, poll=0.05, detail=log.read_text
        )
    except AssertionError:
        process.kill()
        raise
    return FloorService(process, found.group(1), log)
