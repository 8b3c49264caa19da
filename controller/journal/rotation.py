"""Rotation: the journal's older inputs sealed into a segment (:mod:`.segments`) at a
hand's end, by the journal's writer, in a thread of its own (its own SQLite connection).

:func:`rotate` seals the inputs after the last segment through ``through``, the input that
ended a hand (the snapshot at it must be there: it becomes the base of what the file keeps),
in these steps, each safe to lose to a power cut:

1. the segment is written as ``NAME.partial`` (its inputs copied with the snapshots of the
   table within them, and the one before its first input), synced, its hash chain followed
   from the last segment's and checked against every input's own (pausing every
   :data:`CHAIN_STEP` inputs: the service's event loop waits for no long stretch of
   Python here), made read-only, its SHA-256 taken, and renamed to ``NAME`` (the folder
   synced): until then the journal does not know it, and a file left by a cut is removed
   at the next rotation;
2. its row in the catalogue (``journal_segments``) is committed: from then on readers read
   those inputs from the segment;
3. the journal's file lets go of them: its inputs up to ``through`` are deleted a few
   hundred at a time (each a short transaction, so that the table's own commits never wait
   long), with its snapshots before ``through``; a cut in between leaves inputs in the file
   that readers no longer read, deleted by the next rotation (:func:`finish`).

The file's freed pages are reused by the inputs that follow: the file stays about one
segment large. Hands are never split: a segment ends where a hand ended.
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from controller.journal.base import JournalError, JournalLocked
from controller.journal.lock import held_here, holder
from controller.journal.segments import (
    PARTIAL,
    SEGMENT_SCHEMA,
    Segment,
    digest,
    folder_of,
    has_catalogue,
    last_sealed,
    name_of,
    sealed,
    sync_file,
    sync_folder,
)
from controller.journal.store import chain_of

log = logging.getLogger(__name__)

#: Inputs deleted from the journal's file per transaction once they are sealed.
CHUNK = 500
#: Seconds between two of those transactions: the table's commits, which wait for the
#: journal's write lock meanwhile (SQLite's busy handler retries after 1, 2, 5, 10, 15, 20
#: ms...), get in between (back to back, a card's commit once waited 0.44 s beside one).
CHUNK_PAUSE = 0.02
#: Inputs whose chain the rotating thread follows between two pauses (about a millisecond
#: of the interpreter's lock): the service's event loop, in the same process, waits for
#: that lock at most so long for each card while a segment is checked.
CHAIN_STEP = 64

_NAME = re.compile(r"(\d{12})-\d{12}\.sqlite")
_INPUT_COLUMNS = (
    "position, recorded_at, source, type, fields, device_kind, serial, boot_id, seq, "
    "event_number, chain"
)


@dataclass(frozen=True, slots=True)
class Rotation:
    """When the journal rotates (``[journal]`` of the configuration): at the end of the
    hand that brings the inputs since the last segment to ``hands`` hands or the journal's
    file to ``megabytes`` MB in use, whichever comes first (0: that one never)."""

    hands: int = 200
    megabytes: int = 0

    @property
    def enabled(self) -> bool:
        return self.hands > 0 or self.megabytes > 0


def _connect(path: str) -> sqlite3.Connection:
    connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    connection.execute("PRAGMA busy_timeout = 10000")
    return connection


def _writer_only(path: str) -> None:
    """Raise :class:`JournalLocked` unless this process writes the journal at ``path``."""
    if not held_here(path):
        raise JournalLocked(
            f"journal {path}: only its writer rotates it, and this process does not write it "
            f"({holder(path) or 'nobody does'})"
        )


def due(
    path: str | Path,
    hand_number: int,
    rotation: Rotation,
    *,
    connection: sqlite3.Connection | None = None,
) -> bool:
    """Whether the journal at ``path`` is due to rotate at the end of hand ``hand_number``;
    ``connection``: one to it that the caller keeps (else one is opened for the question)."""
    if not rotation.enabled:
        return False
    if connection is not None:
        return _due(connection, path, hand_number, rotation)
    opened = _connect(str(path))
    try:
        return _due(opened, path, hand_number, rotation)
    finally:
        opened.close()


def _due(
    connection: sqlite3.Connection, path: str | Path, hand_number: int, rotation: Rotation
) -> bool:
    try:
        last = last_sealed(connection)
        since = last.last_hand or 0 if last is not None else 0
        if rotation.hands and hand_number - since >= rotation.hands:
            return True
        if rotation.megabytes:
            pages = connection.execute("PRAGMA page_count").fetchone()[0]
            free = connection.execute("PRAGMA freelist_count").fetchone()[0]
            size = connection.execute("PRAGMA page_size").fetchone()[0]
            return bool((pages - free) * size >= rotation.megabytes * 1_000_000)
        return False
    except sqlite3.Error as error:
        raise JournalError(f"cannot read journal {path}: {error}") from None


def rotate(
    path: str | Path, through: int, *, durable: bool = True, paced: bool = True
) -> Segment | None:
    """Seal the inputs after the journal's last segment through position ``through`` (the
    last input of a hand, with its snapshot) into a new segment; the segment (None: nothing
    to seal). Only the journal's writer calls it (its process holds the journal's lock).
    ``durable=False``: no file is synced (a journal made up to be read, as
    ``Journal.open``'s). ``paced=False``: no pause between the chain's steps, and the
    sealed inputs deleted in one transaction (a process that deals no live table: nobody
    waits on it)."""
    name = str(path)
    _writer_only(name)
    connection = _connect(name)
    if not durable:  # as the journal's own connection: its commits not synced
        connection.execute("PRAGMA synchronous = NORMAL")
    pace = _Pace(CHUNK, CHUNK_PAUSE) if paced else _Pace(-1, 0.0)  # -1: SQLite's no limit
    try:
        _finish(name, connection, pace)
        previous = last_sealed(connection)
        first = previous.last + 1 if previous is not None else 1
        if through < first:
            return None
        if (
            connection.execute(
                "SELECT 1 FROM table_snapshots WHERE position = ?", (through,)
            ).fetchone()
            is None
        ):
            raise JournalError(
                f"journal {name}: no snapshot at position {through}: a segment ends where a "
                "hand ended, with its snapshot"
            )
        segment = _write(
            name,
            connection,
            first,
            through,
            previous=previous,
            durable=durable,
            chain_step=CHAIN_STEP if paced else 0,
        )
        _record(connection, segment)
        _finish(name, connection, pace)
        return segment
    except sqlite3.Error as error:
        raise JournalError(f"cannot rotate journal {name}: {error}") from None
    finally:
        connection.close()


def _write(
    journal: str,
    connection: sqlite3.Connection,
    first: int,
    through: int,
    *,
    previous: Segment | None,
    durable: bool,
    chain_step: int,
) -> Segment:
    """Step 1: the segment's file, whole, checked, read-only, under its own name."""
    folder = folder_of(journal)
    folder.mkdir(exist_ok=True)
    name = name_of(first, through)
    partial = folder / f"{name}{PARTIAL}"
    partial.unlink(missing_ok=True)
    made = sqlite3.connect(partial, isolation_level=None)
    try:
        made.executescript(SEGMENT_SCHEMA)
    finally:
        made.close()
    hands = (None, None)
    if connection.execute(
        "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'hand_index'"
    ).fetchone():
        hands = connection.execute(
            "SELECT min(hand_number), max(hand_number) FROM hand_index WHERE last BETWEEN ? AND ?",
            (first, through),
        ).fetchone()
    (journal_id,) = connection.execute("SELECT journal_id FROM journal_identity").fetchone()
    before = None if previous is None else previous.chain
    sealed_at = time.time()
    connection.execute("ATTACH DATABASE ? AS segment", (str(partial),))
    try:
        connection.execute("BEGIN")  # writes the segment, only reads the journal
        copied = connection.execute(
            f"INSERT INTO segment.inputs SELECT {_INPUT_COLUMNS} FROM main.inputs "
            "WHERE position BETWEEN ? AND ?",
            (first, through),
        ).rowcount
        connection.execute(  # the base, the checkpoints, the latest few (the last hands')
            "INSERT INTO segment.table_snapshots SELECT position, hand_number, state "
            "FROM main.table_snapshots WHERE position BETWEEN ? AND ?",
            (first - 1, through),
        )
        (chain,) = connection.execute(
            "SELECT chain FROM main.inputs WHERE position = ?", (through,)
        ).fetchone()
        connection.execute(
            "INSERT INTO segment.segment VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (journal_id, first, through, hands[0], hands[1], before, chain, sealed_at),
        )
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        connection.execute("DETACH DATABASE segment")
        partial.unlink(missing_ok=True)
        raise
    connection.execute("DETACH DATABASE segment")
    try:
        if copied != through - first + 1:
            raise JournalError(
                f"journal {journal}: positions {first} to {through} hold {copied} inputs, "
                f"not {through - first + 1}: not sealed"
            )
        check = sqlite3.connect(f"{partial.absolute().as_uri()}?mode=ro", uri=True)
        try:
            followed = chain_of(check, before, f"segment {partial}", pause_every=chain_step)
        finally:
            check.close()
        if followed != (None if chain is None else bytes(chain)):
            raise JournalError(f"segment {partial}: its chain does not end at position {through}'s")
        if durable:
            sync_file(partial)
        partial.chmod(0o440)
        size, sha = partial.stat().st_size, digest(partial)
        os.replace(partial, folder / name)
        if durable:
            sync_folder(folder)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return Segment(
        first,
        through,
        hands[0],
        hands[1],
        name,
        size,
        sha,
        None if chain is None else bytes(chain),
        sealed_at,
    )


def _record(connection: sqlite3.Connection, segment: Segment) -> None:
    """Step 2: the segment in the journal's catalogue, with the last event of each device
    boot it holds."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        connection.execute(
            "INSERT INTO journal_segments VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                segment.first,
                segment.last,
                segment.first_hand,
                segment.last_hand,
                segment.name,
                segment.size,
                segment.sha256,
                segment.chain,
                segment.sealed_at,
            ),
        )
        connection.execute(
            "INSERT INTO segment_devices (serial, boot_id, seq, event_number) "
            "SELECT serial, boot_id, seq, max(event_number) FROM inputs "
            "WHERE position BETWEEN ? AND ? AND event_number IS NOT NULL "
            "GROUP BY serial, boot_id "
            "ON CONFLICT (serial, boot_id) DO UPDATE SET seq = excluded.seq, "
            "event_number = excluded.event_number "
            "WHERE excluded.event_number > segment_devices.event_number",
            (segment.first, segment.last),
        )
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")
    log.info(
        "journal: positions %d to %d (hands %s to %s) sealed in segment %s (%d bytes)",
        segment.first,
        segment.last,
        segment.first_hand,
        segment.last_hand,
        segment.name,
        segment.size,
    )


def finish(path: str | Path) -> int:
    """Step 3, and what a cut left: the inputs (and snapshots) the segments hold deleted
    from the journal's file, a few hundred per transaction; a segment file the catalogue
    does not name (a rotation cut before step 2) removed. The inputs deleted. Only the
    journal's writer calls it."""
    _writer_only(str(path))
    connection = _connect(str(path))
    try:
        return _finish(path, connection, _Pace(CHUNK, CHUNK_PAUSE))
    except sqlite3.Error as error:
        raise JournalError(f"cannot rotate journal {path}: {error}") from None
    finally:
        connection.close()


@dataclass(frozen=True)
class _Pace:
    """How the sealed inputs are deleted: ``chunk`` a transaction, ``pause`` seconds apart."""

    chunk: int
    pause: float


def _finish(path: str | Path, connection: sqlite3.Connection, pace: _Pace) -> int:
    if not has_catalogue(connection):
        return 0
    closed = sealed(connection)
    folder = folder_of(path)
    if folder.is_dir():
        named = {segment.name for segment in closed}
        end = closed[-1].last if closed else 0
        for found in folder.iterdir():
            made = _NAME.fullmatch(found.name)
            stray = found.name.endswith(PARTIAL) or (
                made is not None and found.name not in named and int(made[1]) > end
            )
            if stray:
                log.info("journal %s: %s removed (a rotation was cut)", path, found)
                found.chmod(0o640)
                found.unlink()
    if not closed:
        return 0
    end = closed[-1].last
    deleted = 0
    while True:
        connection.execute("BEGIN IMMEDIATE")
        try:
            gone = connection.execute(
                "DELETE FROM inputs WHERE position IN (SELECT position FROM inputs "
                "WHERE position <= ? ORDER BY position LIMIT ?)",
                (end, pace.chunk),
            ).rowcount
            if gone == 0:
                connection.execute("DELETE FROM table_snapshots WHERE position < ?", (end,))
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        connection.execute("COMMIT")
        deleted += gone
        if gone == 0:
            return deleted
        time.sleep(pace.pause)
