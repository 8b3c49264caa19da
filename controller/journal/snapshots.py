"""Snapshots of the table at hand boundaries, in the journal file (table ``table_snapshots``).

A snapshot is a cache, never the record: the inputs in ``inputs`` are. It holds the state
after every input up to its ``position``; recovery starts from the latest snapshot and
replays only the inputs after it. Only the latest few are kept (``KEEP``); a journal
without snapshots (or with all of them removed) recovers the same state, only slower.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from controller.journal.store import JournalError

KEEP = 2

_SCHEMA = """
CREATE TABLE IF NOT EXISTS table_snapshots (
    position INTEGER PRIMARY KEY,
    hand_number INTEGER NOT NULL,
    state TEXT NOT NULL CHECK (json_valid(state))
)
"""


class Snapshots:
    """The snapshot table of an open journal (its own SQLite connection to the file)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA busy_timeout = 10000")
            self._db.execute(_SCHEMA)
        except sqlite3.Error as error:
            raise JournalError(
                f"cannot use the snapshots of journal {self.path}: {error}"
            ) from None

    def close(self) -> None:
        self._db.close()

    def save(self, position: int, hand_number: int, state: dict[str, Any]) -> None:
        """Keep ``state``, the state after the input at ``position``; drop older ones."""
        text = json.dumps(state, separators=(",", ":"), sort_keys=True)
        try:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                "INSERT OR REPLACE INTO table_snapshots VALUES (?, ?, ?)",
                (position, hand_number, text),
            )
            self._db.execute(
                "DELETE FROM table_snapshots WHERE position NOT IN "
                "(SELECT position FROM table_snapshots ORDER BY position DESC LIMIT ?)",
                (KEEP,),
            )
            self._db.execute("COMMIT")
        except sqlite3.Error as error:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise JournalError(f"cannot write a snapshot to journal {self.path}: {error}") from None

    def last_position(self) -> int:
        """The position of the journal's last input (0 when it holds none)."""
        row = self._db.execute("SELECT max(position) FROM inputs").fetchone()
        return int(row[0] or 0)

    def latest(self, at_most: int) -> tuple[int, dict[str, Any]] | None:
        """The latest snapshot at or before position ``at_most``: (position, state)."""
        try:
            row = self._db.execute(
                "SELECT position, state FROM table_snapshots WHERE position <= ? "
                "ORDER BY position DESC LIMIT 1",
                (at_most,),
            ).fetchone()
        except sqlite3.Error as error:
            raise JournalError(
                f"cannot read the snapshots of journal {self.path}: {error}"
            ) from None
        return None if row is None else (row[0], json.loads(row[1]))
