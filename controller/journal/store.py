"""The journal: one SQLite file (WAL, ``synchronous=FULL``) holding every input, in order.

One process writes a journal: :meth:`Journal.open` takes the journal's writer lock
(:mod:`.lock`) before it touches the file, and a second writer is refused with
:class:`JournalLocked`, naming the process that holds it; ``Journal.open(path,
create=False)`` opens it to read, without the lock.

Schema version 1 (docs/monitor.md describes it):

- ``schema_version``: one row, the format's name and version; a file of another version, or
  an SQLite file that is not a journal, is refused with :class:`JournalError`;
- ``inputs``: append-only (triggers refuse UPDATE and DELETE). ``position`` is the global
  journal position (1, 2, 3, ... in the order written); each row has the host's time, its
  ``source`` (``device``: a sequenced device event; ``link``: the link to a device went up or
  down), its ``type`` and its fields as JSON, and for device and link inputs the device
  (kind, serial, boot id). A device event also has the device's ``seq`` (16-bit, wrapping)
  and its ``event_number``, the same number unwrapped within the device's boot; the unique
  index on (serial, boot_id, event_number) keeps each device event once. ``chain`` is the
  entry's link in the journal's hash chain (:mod:`.chain`);
- ``journal_identity``: one row, the journal's identity (a random id made with the journal)
  and ``chain_from``, the first position with a chain. A journal of an earlier release gets
  both (and the ``chain`` column) when a writer first opens it; its earlier entries keep no
  chain.

The table service adds its own sources (decisions, supervisor actions, configuration) as
further rows of ``inputs``, and snapshots at hand boundaries in a table of their own.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import stat
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from controller.journal.base import (
    AUTOCHECKPOINT_PAGES,
    JournalError,
    JournalLocked,
    JournalUnwritable,
    probe,
    unwritable,
)
from controller.journal.chain import link, linked, stored
from controller.journal.lock import LockHeld, WriterLock, holder
from controller.journal.segments import Segment, Segments, install, last_sealed, sealed
from drivers.events import DeviceId
from drivers.protocol import SEQ_MODULUS, DeviceKind, seq_distance

FORMAT = "luck-table journal"
VERSION = 1
APPLICATION_ID = 0x4C55434B  # "LUCK": marks the SQLite file as a journal (PRAGMA application_id)
#: Seconds :func:`chain_of` sleeps at each pause (long enough for a waiting thread to run).
PAUSE = 0.0002

_SCHEMA = f"""
BEGIN IMMEDIATE;
PRAGMA application_id = {APPLICATION_ID};
CREATE TABLE schema_version (
    format TEXT NOT NULL,
    version INTEGER NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE inputs (
    position INTEGER PRIMARY KEY,
    recorded_at REAL NOT NULL,
    source TEXT NOT NULL,
    type TEXT NOT NULL,
    fields TEXT NOT NULL CHECK (json_valid(fields)),
    device_kind TEXT,
    serial TEXT,
    boot_id INTEGER,
    seq INTEGER CHECK (seq BETWEEN 0 AND {SEQ_MODULUS - 1}),
    event_number INTEGER,
    chain BLOB CHECK (chain IS NULL OR length(chain) = 32),
    CHECK ((seq IS NULL) = (event_number IS NULL)),
    CHECK (seq IS NULL OR (serial IS NOT NULL AND boot_id IS NOT NULL)),
    CHECK (event_number IS NULL OR event_number % {SEQ_MODULUS} = seq)
);
CREATE UNIQUE INDEX device_event ON inputs (serial, boot_id, event_number)
    WHERE event_number IS NOT NULL;
CREATE TRIGGER inputs_no_update BEFORE UPDATE ON inputs
    BEGIN SELECT RAISE(ABORT, 'the journal is append-only: inputs cannot be changed'); END;
CREATE TRIGGER inputs_no_delete BEFORE DELETE ON inputs
    BEGIN SELECT RAISE(ABORT, 'the journal is append-only: inputs cannot be deleted'); END;
"""

#: The journal's identity (a random id, made with the journal) and where its chain starts.
_IDENTITY = """
CREATE TABLE journal_identity (
    journal_id TEXT NOT NULL,
    chain_from INTEGER NOT NULL,
    assigned_at REAL NOT NULL
)
"""

_COLUMNS = (
    "position, recorded_at, source, type, fields, device_kind, serial, boot_id, seq, event_number"
)


@dataclass(frozen=True, slots=True)
class Input:
    """An input to write: when it was received, where from, what, and its fields (JSON).

    ``seq`` (with ``device``) makes it a sequenced device event, kept once per device boot.
    """

    recorded_at: float
    source: str
    type: str
    fields: dict[str, Any]
    device: DeviceId | None = None
    seq: int | None = None


@dataclass(frozen=True, slots=True)
class Entry:
    """An input as the journal holds it, at its ``position``."""

    position: int
    recorded_at: float
    source: str
    type: str
    fields: dict[str, Any]
    device: DeviceId | None
    seq: int | None
    event_number: int | None
    chain: bytes | None = None  # its link in the journal's hash chain (None: written before)


class Journal:
    """An open journal file. Not thread-safe: use it from one thread at a time."""

    def __init__(
        self, connection: sqlite3.Connection, path: str, lock: WriterLock | None = None
    ) -> None:
        self._db = connection
        self.path = path
        self._lock = lock
        self._chained = _has_chain(connection)
        #: The journal's closed segments, read through as one journal with its file.
        self.segments = Segments(path)
        #: The last entry's position and chain: the next entry's chain follows from it.
        self._tip: tuple[int, bytes | None] = (0, None)
        #: The last event this writer journaled of each device boot (serial, boot id):
        #: its seq and number, the next event's numbering without reading the journal.
        self._last_events: dict[tuple[str, int], tuple[int, int]] = {}
        if lock is not None:
            row = self._db.execute(
                "SELECT position, chain FROM inputs ORDER BY position DESC LIMIT 1"
            ).fetchone()
            last = self.last_sealed()
            if row is not None and (last is None or row[0] > last.last):
                self._tip = (row[0], row[1])
            elif last is not None:  # every input is in a segment: the chain goes on from it
                self._tip = (last.last, last.chain)

    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        create: bool = True,
        durable: bool = True,
        timed_checkpoints: bool = False,
    ) -> Self:
        """Open the journal at ``path`` to write it (created when absent), or with
        ``create=False`` to read it (it must exist). ``durable=False``: commits are not
        synced to the disk (``synchronous=NORMAL``), for a journal made up to be read (a
        simulation's, a benchmark's) that a crash would only make again; the file is the
        same. ``timed_checkpoints``: the writer copies the write-ahead log into the file
        itself, when it suits it (:meth:`checkpoint`), and no commit does but past
        ``AUTOCHECKPOINT_PAGES`` (SQLite's automatic checkpoint, at 1000 pages otherwise).

        To write it the process takes the journal's lock first, and holds it until
        :meth:`close`: while another process holds it, :class:`JournalLocked` names that
        process and nothing is touched. A journal of an earlier release gets its identity
        and its chain here. Reading takes no lock and changes nothing.

        Raises :class:`JournalError` when the file cannot be opened, is not a journal, or
        is a journal of another version.
        """
        name = str(path)
        if not create and not Path(name).is_file():
            why = "a folder, not a file" if Path(name).is_dir() else "no such file"
            raise JournalError(f"no journal at {name} ({why})")
        lock = writer_lock(name) if create else None
        try:
            connection = sqlite3.connect(name, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as error:
            if lock is not None:
                lock.release()
            raise JournalError(f"cannot open journal {name}: {error}") from None
        try:
            connection.execute("PRAGMA busy_timeout = 10000")
            _check_or_create(connection, name, create)
            mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode != "wal":
                raise JournalError(f"journal {name}: SQLite refused WAL mode (got {mode})")
            connection.execute(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")
            if timed_checkpoints:
                connection.execute(f"PRAGMA wal_autocheckpoint = {AUTOCHECKPOINT_PAGES}")
            if create:
                _identify(connection)
                install(connection)
            return cls(connection, name, lock)
        except (sqlite3.Error, JournalError) as error:
            connection.close()
            if lock is not None:
                lock.release()
            if isinstance(error, JournalError):
                raise
            if unwritable(error):
                raise JournalUnwritable(f"cannot open journal {name}: {error}") from None
            raise JournalError(f"cannot use journal {name}: {error}") from None

    @classmethod
    def open_read_only(cls, path: str | Path) -> Self:
        """Open the journal at ``path`` for reading only: the live file (its service may
        write on meanwhile), a copy, or a backup on read-only media (opened as immutable
        when nothing but the file is there to read). Writes nothing, makes no file.

        Raises :class:`JournalError` naming the file: no such file, no permission to read
        it, a write-ahead log that cannot be read there, not a journal, another version.
        """
        name = str(path)
        file = Path(name)
        wal = Path(f"{name}-wal")
        for part in (file, wal):
            _check_readable(part, name, required=part is file)
        uri = file.absolute().as_uri()
        try:
            connection = probe(f"{uri}?mode=ro")
        except sqlite3.OperationalError:
            # read-only media: SQLite cannot make the shared-memory file a WAL reader needs
            if wal.exists() and wal.stat().st_size > 0:
                raise JournalError(
                    f"{wal}: the journal's write-ahead log cannot be read on read-only media "
                    "(SQLite cannot make its -shm file there): copy it with the journal to a "
                    "writable folder, or back the journal up with sqlite3 .backup (one file)"
                ) from None
            try:
                connection = probe(f"{uri}?mode=ro&immutable=1")
            except sqlite3.Error as again:
                raise JournalError(f"cannot read journal {name}: {again}") from None
        except sqlite3.DatabaseError as error:
            raise JournalError(f"{name} is not a luck-table journal ({error})") from None
        try:
            _check_or_create(connection, name, create=False)
        except BaseException:
            connection.close()
            raise
        return cls(connection, name)

    def close(self) -> None:
        self._db.close()
        if self._lock is not None:
            self._lock.release()

    def checkpoint(self) -> None:
        """Copy what the write-ahead log holds into the journal's file, from a connection of
        its own (the writer's commits go on meanwhile): SQLite's PASSIVE checkpoint, which
        waits for no reader and no writer and copies what no reader still needs (the rest
        at the next). Durability does not depend on it: a commit is on the disk in the log.
        Raises :class:`JournalError` when SQLite fails."""
        try:
            with contextlib.closing(sqlite3.connect(self.path)) as connection:
                connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        except sqlite3.Error as error:
            raise JournalError(f"cannot checkpoint journal {self.path}: {error}") from None

    def identity(self) -> str | None:
        """The journal's id, made with it (None: a journal of an earlier release that no
        writer has opened since)."""
        try:
            row = self._db.execute("SELECT journal_id FROM journal_identity").fetchone()
        except sqlite3.OperationalError:
            return None  # no identity table yet
        except sqlite3.Error as error:
            raise JournalError(f"cannot read journal {self.path}: {error}") from None
        return None if row is None else str(row[0])

    def new_identity(self) -> str:
        """Give the journal a new id (a copy restored from a backup that is to ship as a
        journal of its own); the new id. Only its writer may."""
        self._writable()
        journal_id = str(uuid.uuid4())
        try:
            self._db.execute("UPDATE journal_identity SET journal_id = ?", (journal_id,))
        except sqlite3.Error as error:
            raise JournalError(f"cannot write journal {self.path}: {error}") from None
        return journal_id

    def entry(self, position: int) -> Entry | None:
        """The entry at ``position`` (in the journal's file or one of its segments), or
        None when the journal holds none there."""
        columns = f"{_COLUMNS}, {'chain' if self._chained else 'NULL'}"
        query = f"SELECT {columns} FROM inputs WHERE position = ?"
        for segment in self.sealed(holding=position):
            with self.segments.opened(segment) as connection:
                row = connection.execute(query, (position,)).fetchone()
            return None if row is None else _entry(row)
        try:
            row = self._db.execute(query, (position,)).fetchone()
        except sqlite3.Error as error:
            raise JournalError(f"cannot read journal {self.path}: {error}") from None
        return None if row is None else _entry(row)

    def last_position(self) -> int:
        """The position of the journal's last entry (0: none), in its file or, when every
        entry is sealed, in its last segment."""
        try:
            row = self._db.execute("SELECT MAX(position) FROM inputs").fetchone()
        except sqlite3.Error as error:
            raise JournalError(f"cannot read journal {self.path}: {error}") from None
        last = self.last_sealed()
        return max(int(row[0] or 0), last.last if last is not None else 0)

    def sealed(self, *, after: int = 0, holding: int | None = None) -> list[Segment]:
        """The journal's closed segments, in order (:func:`.segments.sealed`)."""
        try:
            return sealed(self._db, after=after, holding=holding)
        except sqlite3.Error as error:
            raise JournalError(f"cannot read journal {self.path}: {error}") from None

    def check_chain(self) -> tuple[int, int]:
        """Follow the hash chain over the inputs of the journal's own file (those after its
        last closed segment), from the chain the segment ends with: the first and last
        positions followed (0, 0: none). Raises :class:`JournalError` naming the position of
        the first input that does not fit (changed, or one before it taken out)."""
        last = self.last_sealed()
        after, before = (0, None) if last is None else (last.last, last.chain)
        if not self._chained:  # a journal of an earlier release, never opened to write since
            raise JournalError(f"journal {self.path}: written before the hash chain existed")
        try:
            chain_of(self._db, before, f"journal {self.path}", after=after)
            first, final = self._db.execute(
                "SELECT min(position), max(position) FROM inputs WHERE position > ?", (after,)
            ).fetchone()
        except sqlite3.Error as error:
            raise JournalError(f"cannot read journal {self.path}: {error}") from None
        return (first or 0, final or 0)

    def last_sealed(self) -> Segment | None:
        """The journal's last closed segment (None: it never rotated)."""
        try:
            return last_sealed(self._db)
        except sqlite3.Error as error:
            raise JournalError(f"cannot read journal {self.path}: {error}") from None

    def created_at(self) -> float:
        """When the journal was created (seconds since the epoch): what tells two journals
        apart (a table reset starts a new one)."""
        try:
            row = self._db.execute("SELECT created_at FROM schema_version").fetchone()
        except sqlite3.Error as error:
            raise JournalError(f"cannot read journal {self.path}: {error}") from None
        return float(row[0])

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def append(self, inputs: Sequence[Input]) -> list[int | None]:
        """Write ``inputs`` in one transaction, durable when this returns.

        Returns each input's position, or None for a device event the journal already
        holds (same device serial, boot id and sequence number: a re-delivery, dropped).
        Raises :class:`JournalError`, writing nothing, when a device event conflicts with
        the journal (same key, other content) or when SQLite fails.
        """
        self._writable()
        tip, last_events = self._tip, dict(self._last_events)
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                positions = [self._append_one(item) for item in inputs]
            except BaseException:
                self._db.execute("ROLLBACK")
                self._tip, self._last_events = tip, last_events
                raise
            self._db.execute("COMMIT")
        except sqlite3.Error as error:
            self._tip, self._last_events = tip, last_events
            raise JournalError(f"cannot write journal {self.path}: {error}") from None
        return positions

    def entries(self, after: int = 0, *, source: str | None = None) -> Iterator[Entry]:
        """Every entry after position ``after`` (of ``source`` only, if given), in journal
        order: from the segments that hold them, then from the journal's file. Raises
        :class:`JournalError` (a :class:`~.segments.SegmentDamaged`, a
        :class:`~.segments.SegmentPruned`) when a segment it needs cannot be read."""
        columns = f"{_COLUMNS}, {'chain' if self._chained else 'NULL'}"
        query = f"SELECT {columns} FROM inputs WHERE position > ? ORDER BY position"
        while True:
            for segment in self.sealed(after=after):
                with self.segments.opened(segment) as connection:
                    for row in connection.execute(query, (after,)):
                        if source is None or row[2] == source:
                            yield _entry(row)
                after = segment.last
            try:
                rows = self._db.execute(query, (after,))  # one reading: the file as it is
                row = rows.fetchone()
                if (row is None or row[0] != after + 1) and self._sealed_since(after):
                    rows.close()
                    continue  # the writer sealed a segment meanwhile: read it first
                while row is not None:
                    if source is None or row[2] == source:
                        yield _entry(row)
                    row = rows.fetchone()
                return
            except sqlite3.Error as error:
                raise JournalError(f"cannot read journal {self.path}: {error}") from None

    def _sealed_since(self, after: int) -> bool:
        last = self.last_sealed()
        return last is not None and last.last > after

    def _append_one(self, item: Input) -> int | None:
        device = item.device
        number = None
        if item.seq is not None:
            if device is None:
                raise JournalError(f"{item.type} seq {item.seq}: a device event needs its device")
            number = self._event_number(device, item)
            if number is None:
                return None
        fields = stored(item.fields)
        last, previous = self._tip
        entry = Entry(
            last + 1,
            item.recorded_at,
            item.source,
            item.type,
            item.fields,  # hashed as stored: the same JSON
            device,
            item.seq,
            number,
        )
        chain = link(previous, entry, fields)
        self._db.execute(
            "INSERT INTO inputs (position, recorded_at, source, type, fields, device_kind, "
            "serial, boot_id, seq, event_number, chain) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                entry.position,
                item.recorded_at,
                item.source,
                item.type,
                fields,
                None if device is None else device.kind,
                None if device is None else device.serial,
                None if device is None else device.boot_id,
                item.seq,
                number,
                chain,
            ),
        )
        self._tip = (entry.position, chain)
        return entry.position

    def _writable(self) -> None:
        if self._lock is None:
            raise JournalError(
                f"journal {self.path} is open to read (create=False): it cannot be written"
            )

    def _event_number(self, device: DeviceId, item: Input) -> int | None:
        """The event's number in its device boot, or None when the journal holds it already.

        A device delivers its events in order, so an event at or behind the last one
        journaled for its boot is a re-delivery; it must match the entry already held.
        """
        assert item.seq is not None
        boot = (device.serial, device.boot_id)
        last = self._last_events.get(boot) or self._last_event(boot)
        if last is None:
            self._last_events[boot] = (item.seq, item.seq)
            return item.seq
        distance = seq_distance(last[0], item.seq)
        number: int = last[1] + distance
        if distance > 0:
            self._last_events[boot] = (item.seq, number)
            return number
        held = self._held(device, number)
        where = f"{device.kind} {device.serial} boot {device.boot_id} seq {item.seq}"
        if held is None:
            raise JournalError(
                f"journal {self.path}: {where} comes before the first event journaled for that boot"
            )
        entry = _entry(held)
        if (entry.type, entry.fields) != (item.type, _as_stored(item.fields)):
            raise JournalError(
                f"journal {self.path}: {where} is {item.type} {item.fields}, but the journal "
                f"holds {entry.type} {entry.fields} at position {entry.position}"
            )
        return None

    def _last_event(self, boot: tuple[str, int]) -> tuple[int, int] | None:
        """The seq and number of the last event the journal holds of the device ``boot``
        (serial, boot id): in its file, or else in its segments."""
        last = self._db.execute(
            "SELECT seq, event_number FROM inputs WHERE serial = ? AND boot_id = ? "
            "AND event_number IS NOT NULL ORDER BY event_number DESC LIMIT 1",
            boot,
        ).fetchone()
        if last is None and self._sealed_since(0):  # the boot's last event, in a segment
            last = self._db.execute(
                "SELECT seq, event_number FROM segment_devices WHERE serial = ? AND boot_id = ?",
                boot,
            ).fetchone()
        return None if last is None else (last[0], last[1])

    def _held(self, device: DeviceId, number: int) -> tuple[Any, ...] | None:
        """The journal's row of the device boot's event ``number`` (the file first, then
        the segments, newest first: a re-delivery is of a recent event)."""
        query = (
            f"SELECT {_COLUMNS} FROM inputs WHERE serial = ? AND boot_id = ? AND event_number = ?"
        )
        key = (device.serial, device.boot_id, number)
        row: tuple[Any, ...] | None = self._db.execute(query, key).fetchone()
        for segment in reversed(self.sealed() if row is None else []):
            with self.segments.opened(segment) as connection:
                row = connection.execute(query, key).fetchone()
            if row is not None:
                break
        return row


def chain_of(
    connection: sqlite3.Connection,
    before: bytes | None,
    where: str,
    *,
    pause_every: int = 0,
    after: int = 0,
) -> bytes | None:
    """Follow the hash chain over the inputs the SQLite ``connection`` holds after position
    ``after``, in order, from ``before`` (the chain at the input before the first); the
    chain at the last.
    Raises :class:`JournalError` naming ``where`` and the position of the first input whose
    chain is not the one its content and the chain before it make. ``pause_every``: sleep
    a moment every so many inputs (0: never), letting the other threads of the process
    run: following the chain is Python, and holds the interpreter's lock meanwhile."""
    previous = before
    rows = connection.execute(
        f"SELECT {_COLUMNS}, chain FROM inputs WHERE position > ? ORDER BY position", (after,)
    )
    for number, row in enumerate(rows, 1):
        if pause_every and number % pause_every == 0:
            time.sleep(PAUSE)
        chain = row[10]
        if chain is None:  # written before the chain existed
            previous = None
            continue
        if linked(previous, row[:4], row[4], row[5:10]) != chain:  # the fields as stored
            raise JournalError(
                f"{where}: the input at position {row[0]} does not fit the journal's "
                "hash chain (changed after it was written)"
            )
        previous = bytes(chain)
    return previous


def _as_stored(fields: dict[str, Any]) -> Any:
    """The fields as they read back from the journal (JSON: tuples become lists)."""
    return json.loads(json.dumps(fields))


def _entry(row: tuple[Any, ...]) -> Entry:
    position, recorded_at, source, kind, fields, device_kind, serial, boot_id, seq, number = row[
        :10
    ]
    device = None if serial is None else DeviceId(DeviceKind(device_kind), serial, boot_id)
    chain = None if len(row) == 10 or row[10] is None else bytes(row[10])
    fields = json.loads(fields)
    return Entry(position, recorded_at, source, kind, fields, device, seq, number, chain)


def check_no_writer(path: str | Path) -> None:
    """Raise :class:`JournalLocked` when a process writes the journal at ``path`` (before
    anything is set up that a second writer would disturb); touches no file."""
    held = holder(path)
    if held is not None:
        raise JournalLocked(_in_use(str(path), held))


def _check_readable(part: Path, name: str, *, required: bool) -> None:
    """Raise :class:`JournalError` when ``part`` of the journal ``name`` cannot be read.
    Checked without opening it: closing a descriptor of a file drops every POSIX lock this
    process holds on it, SQLite's included, and a writer in this process that lost its
    lock would see another process take its write-ahead log for an orphan and delete it."""
    try:
        mode = part.stat().st_mode
    except FileNotFoundError:
        if required:
            raise JournalError(f"no journal at {name} (no such file)") from None
        return
    except PermissionError:
        raise JournalError(f"no permission to read {part}") from None
    except OSError as error:
        raise JournalError(f"cannot read {part}: {error.strerror}") from None
    if stat.S_ISDIR(mode):
        raise JournalError(f"no journal at {name} (a folder, not a file)")
    if not os.access(part, os.R_OK):
        raise JournalError(f"no permission to read {part}")


def _in_use(path: str, held: str) -> str:
    return f"journal {path} is in use: {held} writes it; one process writes a journal at a time"


def writer_lock(path: str) -> WriterLock:
    """The writer lock of the journal at ``path``, for this process (:class:`JournalLocked`
    names the process that holds it)."""
    try:
        return WriterLock.take(path)
    except LockHeld as held:
        raise JournalLocked(_in_use(path, held.holder)) from None
    except OSError as error:
        raise JournalError(f"cannot open journal {path}: its lock: {error}") from None


def _has_chain(connection: sqlite3.Connection) -> bool:
    columns = connection.execute("PRAGMA table_info(inputs)").fetchall()
    return any(column[1] == "chain" for column in columns)


def _identify(connection: sqlite3.Connection) -> None:
    """Give a journal of an earlier release its identity and its chain (column), at once."""
    if connection.execute(
        "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'journal_identity'"
    ).fetchone():
        return
    connection.execute("BEGIN IMMEDIATE")
    try:
        connection.execute(_IDENTITY)
        if not _has_chain(connection):
            connection.execute(
                "ALTER TABLE inputs ADD COLUMN chain BLOB "
                "CHECK (chain IS NULL OR length(chain) = 32)"
            )
        (last,) = connection.execute("SELECT coalesce(max(position), 0) FROM inputs").fetchone()
        connection.execute(
            "INSERT INTO journal_identity VALUES (?, ?, ?)",
            (str(uuid.uuid4()), last + 1, time.time()),
        )
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")


def _check_or_create(connection: sqlite3.Connection, path: str, create: bool = True) -> None:
    """Check that ``connection`` holds a journal of this version; make one in an empty file
    (when ``create``)."""
    try:
        application_id = connection.execute("PRAGMA application_id").fetchone()[0]
    except sqlite3.DatabaseError as error:
        if unwritable(error):  # a full disk: the files SQLite needs beside it cannot be made
            raise JournalUnwritable(f"cannot open journal {path}: {error}") from None
        raise JournalError(f"{path} is not a luck-table journal ({error})") from None
    if application_id == 0:
        if not create:
            raise JournalError(f"{path} is not a luck-table journal (no journal was made in it)")
        if connection.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0]:
            raise JournalError(f"{path} is an SQLite database but not a luck-table journal")
        connection.executescript(_SCHEMA)  # leaves its transaction open: created all at once
        now = time.time()
        connection.execute("INSERT INTO schema_version VALUES (?, ?, ?)", (FORMAT, VERSION, now))
        connection.execute(_IDENTITY)
        connection.execute(
            "INSERT INTO journal_identity VALUES (?, ?, ?)", (str(uuid.uuid4()), 1, now)
        )
        connection.execute("COMMIT")
        return
    if application_id != APPLICATION_ID:
        raise JournalError(f"{path} is an SQLite database but not a luck-table journal")
    try:
        row = connection.execute("SELECT format, version FROM schema_version").fetchone()
    except sqlite3.Error:
        row = None
    if row is None or row[0] != FORMAT:
        raise JournalError(f"{path} is not a luck-table journal (no schema version)")
    if row[1] != VERSION:
        raise JournalError(
            f"{path} is a journal of version {row[1]}; this luck-table reads version {VERSION}"
        )
