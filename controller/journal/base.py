"""What every part of the journal shares: its errors and how a reader opens an SQLite file.

Kept apart from :mod:`.store` so that the journal's segments (:mod:`.segments`), which the
store reads through, need nothing of the store.
"""

from __future__ import annotations

import sqlite3

from luck_errors import LuckTableError

#: Pages of write-ahead log at which a commit copies it into the file itself (SQLite's
#: automatic checkpoint) in a journal opened with ``timed_checkpoints`` (SQLite's default:
#: 1000): a safety net only. The table service copies it at each hand's end
#: (:meth:`.store.Journal.checkpoint`, in a thread of its own), so that no card's commit
#: does (1 to 20 ms in a commit on a loaded machine: docs/performance.md).
AUTOCHECKPOINT_PAGES = 10_000


class JournalError(LuckTableError):
    """The journal cannot be opened, read or written; the message names the file."""


class JournalUnwritable(JournalError):
    """The journal's disk takes no write now (full, or an I/O error): it may later, once
    space is freed or the fault mended."""


#: SQLite's primary result codes of a disk that takes no write (SQLITE_IOERR, SQLITE_FULL).
_UNWRITABLE = {10, 13}


def unwritable(error: sqlite3.Error) -> bool:
    """``error`` is of a disk that takes no write (full, an I/O error), not of the file."""
    code = getattr(error, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in _UNWRITABLE


class JournalLocked(JournalError):
    """Another process writes the journal: the message names it (process id, command)."""


def probe(uri: str) -> sqlite3.Connection:
    """A connection to ``uri`` that has read the file (SQLite opens it at the first read)."""
    connection = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    try:
        connection.execute("SELECT count(*) FROM sqlite_schema").fetchone()
    except BaseException:
        connection.close()
        raise
    return connection
