"""The journal's closed segments: the older inputs, sealed into files that never change.

A journal ``DIR/T-01.sqlite`` rotates at a hand's end (:mod:`.rotation`): its inputs up to
that hand's last one are copied into a segment, ``DIR/T-01.sqlite.segments/FIRST-LAST.sqlite``
(the positions it holds, 12 digits each), an SQLite file of its own (``application_id``
``LUCS``) that holds those inputs as the journal held them (chain included), the snapshots
of the table within them (the one before its first input, the base, and the checkpoints),
and a one-row ``segment`` table (the journal's id, the positions, the hands, the chain
before its first input and at its last). The file is read-only from then on.

The journal's own file keeps the catalogue of its segments (``journal_segments``: the
positions, the hands, the file's name, size and SHA-256, the chain at the segment's last
input, when it was sealed): a segment exists for the journal once its row is committed, and
only then are its inputs deleted from the journal's file (the ``inputs_no_delete`` trigger
refuses every delete but of an input a segment holds). Readers (:class:`Segments`) read
the segments the catalogue names, then the journal's file, as one journal: a segment whose
bytes are not the ones recorded is refused (:class:`SegmentDamaged`), never read.

A segment the floor has confirmed may be archived (moved to another folder) or pruned
(deleted) by ``luck-table journal``: its catalogue row stays (the journal's file is the
service's to write), and a note beside where the segment was, ``FIRST-LAST.sqlite.moved``
(JSON: archived where, or pruned; when; the position the floor had confirmed), says where
it went. A reader follows an archived segment to its folder; a pruned one's inputs are
gone from this machine, and reading them says so.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from controller.journal.base import JournalError, probe

SUFFIX = ".segments"
APPLICATION_ID = 0x4C554353  # "LUCS": marks the SQLite file as a journal's segment
MOVED = ".moved"
PARTIAL = ".partial"

#: The catalogue of segments, in the journal's file, and the delete guard: one statement each.
CATALOGUE = (
    """CREATE TABLE journal_segments (
        first INTEGER PRIMARY KEY,
        last INTEGER NOT NULL CHECK (last >= first),
        first_hand INTEGER,
        last_hand INTEGER,
        name TEXT NOT NULL UNIQUE,
        bytes INTEGER NOT NULL,
        sha256 TEXT NOT NULL CHECK (length(sha256) = 64),
        chain BLOB CHECK (chain IS NULL OR length(chain) = 32),
        sealed_at REAL NOT NULL
    )""",
    # the last device event of each device boot that a segment holds: the journal numbers
    # and checks a device's events on from it when its file holds none of that boot
    """CREATE TABLE segment_devices (
        serial TEXT NOT NULL,
        boot_id INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        event_number INTEGER NOT NULL,
        PRIMARY KEY (serial, boot_id)
    )""",
    "DROP TRIGGER IF EXISTS inputs_no_delete",
    """CREATE TRIGGER inputs_no_delete BEFORE DELETE ON inputs
        WHEN coalesce((SELECT last FROM journal_segments WHERE first <= old.position
                       ORDER BY first DESC LIMIT 1), 0) < old.position
        BEGIN SELECT RAISE(ABORT, 'the journal is append-only: inputs cannot be deleted'); END""",
)

#: A segment file's schema (its inputs as the journal's, without the triggers: the file is
#: read-only and its SHA-256 recorded).
SEGMENT_SCHEMA = f"""
PRAGMA application_id = {APPLICATION_ID};
CREATE TABLE segment (
    journal_id TEXT,
    first INTEGER NOT NULL,
    last INTEGER NOT NULL,
    first_hand INTEGER,
    last_hand INTEGER,
    chain_before BLOB,
    chain BLOB,
    sealed_at REAL NOT NULL
);
CREATE TABLE inputs (
    position INTEGER PRIMARY KEY,
    recorded_at REAL NOT NULL,
    source TEXT NOT NULL,
    type TEXT NOT NULL,
    fields TEXT NOT NULL,
    device_kind TEXT,
    serial TEXT,
    boot_id INTEGER,
    seq INTEGER,
    event_number INTEGER,
    chain BLOB
);
CREATE UNIQUE INDEX device_event ON inputs (serial, boot_id, event_number)
    WHERE event_number IS NOT NULL;
CREATE TABLE table_snapshots (
    position INTEGER PRIMARY KEY,
    hand_number INTEGER NOT NULL,
    state TEXT NOT NULL
);
"""


class SegmentDamaged(JournalError):
    """A segment's file is not the one sealed (its SHA-256 differs), or is not there."""


class SegmentPruned(JournalError):
    """The inputs asked for were in a segment that has been pruned."""


@dataclass(frozen=True, slots=True)
class Segment:
    """A closed segment, as the journal's catalogue records it."""

    first: int
    last: int
    first_hand: int | None
    last_hand: int | None
    name: str
    size: int  # bytes
    sha256: str
    chain: bytes | None
    sealed_at: float

    def covers(self, position: int) -> bool:
        return self.first <= position <= self.last

    def words(self) -> str:
        return f"segment {self.name} (positions {self.first} to {self.last})"


def folder_of(journal: str | Path) -> Path:
    """The folder of the segments of the journal at ``journal``."""
    return Path(f"{journal}{SUFFIX}")


def name_of(first: int, last: int) -> str:
    return f"{first:012d}-{last:012d}.sqlite"


def digest(path: Path) -> str:
    """The SHA-256 of the file at ``path`` (hex)."""
    sha = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(1 << 20):
            sha.update(block)
    return sha.hexdigest()


def has_catalogue(connection: sqlite3.Connection) -> bool:
    row = connection.execute(
        "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'journal_segments'"
    ).fetchone()
    return row is not None


def install(connection: sqlite3.Connection) -> None:
    """Give a journal's file the catalogue of segments and the delete guard (its writer,
    at open; at once, in one transaction; nothing when it has them)."""
    if has_catalogue(connection):
        return
    connection.execute("BEGIN IMMEDIATE")
    try:
        for statement in CATALOGUE:
            connection.execute(statement)
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")


_SEGMENT_COLUMNS = "first, last, first_hand, last_hand, name, bytes, sha256, chain, sealed_at"


def sealed(
    connection: sqlite3.Connection, *, after: int = 0, holding: int | None = None
) -> list[Segment]:
    """The journal's segments, in order (none: a journal that never rotated): those with
    inputs after position ``after``; or, with ``holding``, only the one that holds that
    position. The catalogue is read by its key, so a long journal's many segments cost
    nothing to a reader of its last ones."""
    if not has_catalogue(connection):
        return []
    values: tuple[int, ...]
    if holding is None:
        query, values = "WHERE last > ? ORDER BY first", (after,)
    else:
        query, values = "WHERE first <= ? AND last >= ?", (holding, holding)
    rows = connection.execute(
        f"SELECT {_SEGMENT_COLUMNS} FROM journal_segments {query}", values
    ).fetchall()
    return [_segment(row) for row in rows]


def last_sealed(connection: sqlite3.Connection, at_most: int | None = None) -> Segment | None:
    """The journal's last segment (None: it never rotated); with ``at_most``, the last one
    that starts at or before position ``at_most + 1`` (the one whose snapshot before its
    first input is the latest at or before ``at_most``)."""
    if not has_catalogue(connection):
        return None
    bound = "" if at_most is None else "WHERE first <= ? + 1"
    row = connection.execute(
        f"SELECT {_SEGMENT_COLUMNS} FROM journal_segments {bound} ORDER BY first DESC LIMIT 1",
        () if at_most is None else (at_most,),
    ).fetchone()
    return None if row is None else _segment(row)


def _segment(row: tuple[Any, ...]) -> Segment:
    first, last, low, high, name, size, sha, chain, at = row
    return Segment(
        first, last, low, high, name, size, sha, None if chain is None else bytes(chain), at
    )


class Moved(TypedDict):
    """Where a segment went: archived to a folder (``archived_to``) or ``pruned``, once the
    floor held the journal up to position ``confirmed``."""

    archived_to: NotRequired[str]
    pruned: NotRequired[bool]
    confirmed: int


class MovedNote(Moved):
    """A moved segment's note (``NAME.moved`` in the segment folder): where it went, which
    segment (its name and SHA-256), and when (seconds since the epoch, and ISO 8601)."""

    segment: str
    sha256: str
    at: float
    at_iso: str


def moved_note(journal: str | Path, segment: Segment) -> Path:
    return folder_of(journal) / f"{segment.name}{MOVED}"


def moved(journal: str | Path, segment: Segment) -> MovedNote | None:
    """Where the segment went (archived or pruned), as its note says; None: not moved."""
    note = moved_note(journal, segment)
    try:
        text = note.read_text()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise JournalError(f"cannot read {note}: {error.strerror}") from None
    try:
        found: MovedNote = json.loads(text)
    except ValueError:
        raise JournalError(f"{note} is not a segment's note (not JSON)") from None
    return found


def pruned(journal: str | Path, segment: Segment) -> bool:
    """The segment was pruned, as its note says."""
    note = moved(journal, segment)
    return note is not None and bool(note.get("pruned"))


def location(journal: str | Path, segment: Segment) -> Path:
    """Where the segment's file is now: the journal's segment folder, or the folder it was
    archived to. Raises :class:`SegmentPruned` when it was pruned."""
    note = moved(journal, segment)
    if note is None:
        return folder_of(journal) / segment.name
    if note.get("pruned"):
        raise SegmentPruned(
            f"journal {journal}: the inputs at positions {segment.first} to {segment.last} "
            f"(hands {segment.first_hand} to {segment.last_hand}) were in {segment.words()}, "
            f"pruned at {note.get('at_iso', '?')} once the floor held the journal up to "
            f"position {note.get('confirmed', '?')}: the floor has them"
        )
    return Path(str(note["archived_to"])) / segment.name


#: The segment files this process has checked, each with what would change if the file did
#: (its inode, size, modification and change times: a file rewritten or replaced is checked
#: again; the change time cannot be set back by a user).
_checked: dict[Path, tuple[int, int, int, int]] = {}


def verify(path: Path, segment: Segment) -> None:
    """Raise :class:`SegmentDamaged` unless the file at ``path`` is the sealed segment (read
    whole, whatever this process checked before)."""
    try:
        size = path.stat().st_size
        found = digest(path) if size == segment.size else None
    except FileNotFoundError:
        raise SegmentDamaged(
            f"{segment.words()} is missing: no file at {path} (restore it from a backup, or "
            "from where it was copied)"
        ) from None
    except OSError as error:
        raise SegmentDamaged(f"cannot read {path}: {error.strerror}") from None
    if found != segment.sha256:
        what = f"{size} bytes, sealed with {segment.size}" if found is None else "its SHA-256"
        raise SegmentDamaged(
            f"{segment.words()} at {path} is damaged: {what} differs from the journal's "
            "record; it is not read (restore it from a backup)"
        )
    _checked[path.absolute()] = _identity(path.stat())


def _identity(stat: os.stat_result) -> tuple[int, int, int, int]:
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


class Segments:
    """The segments of the journal at ``journal`` as its readers read them: each file
    checked against its record once in a process (again when the file changes), then
    opened read-only."""

    def __init__(self, journal: str | Path) -> None:
        self.journal = str(journal)

    @contextmanager
    def opened(self, segment: Segment) -> Iterator[sqlite3.Connection]:
        """A read-only connection to the segment's file, checked."""
        path = location(self.journal, segment).absolute()
        try:
            stat = path.stat()
        except OSError:
            stat = None
        seen = (
            None
            if stat is None
            else (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
        )
        if seen is None or _checked.get(path) != seen:
            verify(path, segment)
            assert seen is not None
            _checked[path] = seen
        try:
            connection = probe(f"{path.absolute().as_uri()}?mode=ro&immutable=1")
        except sqlite3.Error as error:
            raise SegmentDamaged(f"cannot read {segment.words()} at {path}: {error}") from None
        try:
            yield connection
        except sqlite3.Error as error:
            raise JournalError(f"cannot read {segment.words()} at {path}: {error}") from None
        finally:
            connection.close()

    def latest_snapshot(self, segment: Segment, at_most: int) -> tuple[int, str] | None:
        """The latest snapshot the segment holds at or before ``at_most``: (position,
        state as JSON text)."""
        with self.opened(segment) as connection:
            row = connection.execute(
                "SELECT position, state FROM table_snapshots WHERE position <= ? "
                "ORDER BY position DESC LIMIT 1",
                (at_most,),
            ).fetchone()
        return None if row is None else (int(row[0]), str(row[1]))


def sync_folder(folder: Path) -> None:
    """Make the folder's entries (a file renamed into it, one removed) durable."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
