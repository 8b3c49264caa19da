"""Snapshots of the table at hand boundaries, and the index of hands, in the journal file
(tables ``table_snapshots`` and ``hand_index``).

A snapshot is a cache, never the record: the inputs in ``inputs`` are. It holds the state
after every input up to its ``position``; recovery starts from the latest snapshot and
replays only the inputs after it. The latest few are kept (``KEEP``), and the one at the
end of every ``EVERY``-th hand (a checkpoint), so that a reader of any past hand replays
at most ``EVERY`` hands before it; a journal without snapshots (or with all of them
removed) recovers the same state, only slower.

The index of hands maps each hand that ended to its span of the journal: from the input
after the previous hand's end (``first``) to the input that ended it (``last``), and the
checkpoint before it (``snapshot``, 0: none, the journal's start). It is written with the
snapshot at the hand's end, in one transaction. A journal of an earlier release has no
index: its writer builds it at once (:meth:`Snapshots.build_index`), before writing on;
a reader that finds none replays from the start.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.journal.base import AUTOCHECKPOINT_PAGES, JournalError, probe
from controller.journal.segments import Segments, has_catalogue, last_sealed

KEEP = 2
#: The snapshot at the end of every EVERY-th hand stays (a checkpoint for readers).
EVERY = 10

_SCHEMA = """
CREATE TABLE IF NOT EXISTS table_snapshots (
    position INTEGER PRIMARY KEY,
    hand_number INTEGER NOT NULL,
    state TEXT NOT NULL CHECK (json_valid(state))
)
"""

_INDEX = """
CREATE TABLE hand_index (
    hand_number INTEGER PRIMARY KEY,
    first INTEGER NOT NULL,
    last INTEGER NOT NULL CHECK (last >= first),
    snapshot INTEGER NOT NULL CHECK (snapshot < first)
)
"""


@dataclass(frozen=True, slots=True)
class HandSpan:
    """Where hand ``number`` is in the journal: the inputs ``first`` to ``last`` (the one
    that ended it), and the checkpoint ``snapshot`` before them (0: none)."""

    number: int
    first: int
    last: int
    snapshot: int


class Snapshots:
    """The snapshot table of an open journal (its own SQLite connection to the file)."""

    def __init__(
        self,
        path: str | Path,
        *,
        read_only: bool = False,
        durable: bool = True,
        timed_checkpoints: bool = False,
    ) -> None:
        """``read_only``: to read the snapshots and the index only (no table is made);
        ``durable=False``: commits not synced to the disk; ``timed_checkpoints``: its
        commits leave the write-ahead log to the journal's writer (see ``Journal.open``)."""
        self.path = str(path)
        self._segments = Segments(self.path)
        try:
            if read_only:
                uri = f"{Path(self.path).absolute().as_uri()}?mode=ro"
                try:
                    self._db = probe(uri)
                except sqlite3.OperationalError:  # read-only media (as Journal.open_read_only)
                    self._db = probe(f"{uri}&immutable=1")
            else:
                self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA busy_timeout = 10000")
            if not durable:
                self._db.execute("PRAGMA synchronous = NORMAL")
            if timed_checkpoints:
                self._db.execute(f"PRAGMA wal_autocheckpoint = {AUTOCHECKPOINT_PAGES}")
            if not read_only:
                self._db.execute(_SCHEMA)
                if not self.indexed() and not self._holds_inputs():
                    self._db.execute(_INDEX)  # a new journal: indexed from its first hand
        except sqlite3.Error as error:
            raise JournalError(
                f"cannot use the snapshots of journal {self.path}: {error}"
            ) from None

    def _holds_inputs(self) -> bool:
        """The file holds journaled inputs (then an index of hands is built from them)."""
        if not self._db.execute(
            "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'inputs'"
        ).fetchone():
            return False
        return self._db.execute("SELECT 1 FROM inputs LIMIT 1").fetchone() is not None

    def indexed(self) -> bool:
        """The journal has its index of hands (a journal of an earlier release has none
        until its writer builds it)."""
        try:
            row = self._db.execute(
                "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'hand_index'"
            ).fetchone()
        except sqlite3.Error as error:
            raise JournalError(f"cannot read the hands of journal {self.path}: {error}") from None
        return row is not None

    def build_index(
        self, hands: Iterable[tuple[int, int]], checkpoints: Iterable[tuple[int, int, str]]
    ) -> None:
        """Make the index of a journal that has none, in one transaction: ``hands`` (hand
        number, position of the input that ended it) in journal order, and ``checkpoints``
        (position, hand number, state as JSON text) the snapshots to keep for them."""
        try:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(_INDEX)
            self._db.executemany(
                "INSERT OR REPLACE INTO table_snapshots VALUES (?, ?, ?)", checkpoints
            )
            for number, position in hands:
                self._index(number, position)
            self._db.execute("COMMIT")
        except sqlite3.Error as error:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise JournalError(f"cannot index the hands of journal {self.path}: {error}") from None

    def _index(self, number: int, position: int) -> None:
        """Index hand ``number``, ended by the input at ``position`` (in a transaction): its
        snapshot the latest checkpoint before it, or the snapshot where the last segment
        ends when that is later (the checkpoints before it are in the segments)."""
        base = "0"
        if has_catalogue(self._db):
            base = "(SELECT coalesce(max(last), 0) FROM journal_segments)"
        self._db.execute(
            "INSERT OR REPLACE INTO hand_index SELECT ?, first, ?, "
            "(SELECT coalesce(max(position), 0) FROM table_snapshots "
            f"WHERE position < first AND (hand_number % ? = 0 OR position = {base})) "
            "FROM (SELECT coalesce(max(last), 0) + 1 AS first FROM hand_index) "
            "WHERE first <= ?",  # a hand ends after the last one indexed (else: kept as is)
            (number, position, EVERY, position),
        )

    def span(self, number: int) -> HandSpan | None:
        """Where hand ``number`` is in the journal, or None when the index does not hold it
        (not ended yet, not in the journal, or no index)."""
        try:
            row = self._db.execute(
                "SELECT hand_number, first, last, snapshot FROM hand_index WHERE hand_number = ?",
                (number,),
            ).fetchone()
        except sqlite3.OperationalError:
            return None  # no index: a journal of an earlier release
        except sqlite3.Error as error:
            raise JournalError(f"cannot read the hands of journal {self.path}: {error}") from None
        return None if row is None else HandSpan(*row)

    def hands_before(self, before: int | None, count: int) -> list[HandSpan]:
        """The last ``count`` hands the index holds numbered below ``before`` (None: the
        last ``count`` of all), in order."""
        try:
            rows = self._db.execute(
                "SELECT hand_number, first, last, snapshot FROM hand_index "
                "WHERE hand_number < ? ORDER BY hand_number DESC LIMIT ?",
                (before if before is not None else 2**62, count),
            ).fetchall()
        except sqlite3.OperationalError:
            return []
        except sqlite3.Error as error:
            raise JournalError(f"cannot read the hands of journal {self.path}: {error}") from None
        return [HandSpan(*row) for row in reversed(rows)]

    def last_hand(self) -> HandSpan | None:
        """The last hand the index holds (None: none, or no index)."""
        try:
            row = self._db.execute(
                "SELECT hand_number, first, last, snapshot FROM hand_index "
                "ORDER BY last DESC LIMIT 1"
            ).fetchone()
        except sqlite3.OperationalError:
            return None
        except sqlite3.Error as error:
            raise JournalError(f"cannot read the hands of journal {self.path}: {error}") from None
        return None if row is None else HandSpan(*row)

    def close(self) -> None:
        self._db.close()

    def save(self, position: int, hand_number: int, state: Mapping[str, object]) -> None:
        """Keep ``state``, the state after the input at ``position`` that ended hand
        ``hand_number``, and index the hand; drop older snapshots but the checkpoints."""
        text = json.dumps(state, separators=(",", ":"), sort_keys=True)
        try:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                "INSERT OR REPLACE INTO table_snapshots VALUES (?, ?, ?)",
                (position, hand_number, text),
            )
            if self.indexed():
                self._index(hand_number, position)
            base = ""  # the snapshot where the last segment ends stays: the file's base
            if has_catalogue(self._db):
                base = "AND position != (SELECT coalesce(max(last), 0) FROM journal_segments)"
            self._db.execute(
                "DELETE FROM table_snapshots WHERE hand_number % ? != 0 AND position NOT IN "
                f"(SELECT position FROM table_snapshots ORDER BY position DESC LIMIT ?) {base}",
                (EVERY, KEEP),
            )
            self._db.execute("COMMIT")
        except sqlite3.Error as error:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise JournalError(f"cannot write a snapshot to journal {self.path}: {error}") from None

    def last_position(self) -> int:
        """The position of the journal's last input (0 when it holds none), in its file
        or, when every input is sealed, in its last segment."""
        row = self._db.execute("SELECT max(position) FROM inputs").fetchone()
        last = last_sealed(self._db)
        return max(int(row[0] or 0), last.last if last is not None else 0)

    def latest(self, at_most: int) -> tuple[int, dict[str, Any]] | None:
        """The latest snapshot at or before position ``at_most``: (position, state), in
        the journal's file or, for a position a segment holds, in that segment (each
        holds the snapshot before its first input). The state as stored, of whichever
        release wrote it: its reader checks it (``controller.recovery.from_snapshot``)."""
        try:
            row = self._db.execute(
                "SELECT position, state FROM table_snapshots WHERE position <= ? "
                "ORDER BY position DESC LIMIT 1",
                (at_most,),
            ).fetchone()
            found: tuple[int, str] | None = None if row is None else (row[0], row[1])
            segment = last_sealed(self._db, at_most)
        except sqlite3.Error as error:
            raise JournalError(
                f"cannot read the snapshots of journal {self.path}: {error}"
            ) from None
        if segment is not None and (found is None or found[0] < min(at_most, segment.last)):
            held = self._segments.latest_snapshot(segment, at_most)
            if held is not None and (found is None or held[0] > found[0]):
                found = held
        return None if found is None else (found[0], json.loads(found[1]))
