"""The journal from a moment on, read back for a feed that lags the table (the studio's):
the table after each input journaled after a time, each with its journaled time, and the
access records of some types journaled after a time.

A table's state holds every input before it, so a feed that lags releases these in journal
order, each once its own time and every earlier one's is old enough. Reading starts from
the table's latest snapshot before the first entry journaled after the time (a binary
search on the positions, taking the journal's times as rising); from there on, every
entry journaled after the time, and every entry after such an one, is read back.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from controller.history.records import ACCESS
from controller.history.recovery import entry_steps, from_snapshot
from controller.journal import Entry, Journal
from controller.journal.snapshots import Snapshots
from controller.rules import Effect
from controller.table import Table


@dataclass(frozen=True, slots=True)
class Update:
    """An input was applied: its journal position, the table after it, its effects, and
    the time it was journaled (``at``, seconds since the epoch)."""

    position: int
    table: Table
    effects: tuple[Effect, ...]
    at: float = 0.0


@dataclass(frozen=True, slots=True)
class Recent:
    """``before``: the table after the last input read that was journaled at or before
    the time, with that input's time (a snapshot's: the time of the input it was taken
    at); ``updates``: every input after it, up to the position asked for, in journal
    order."""

    before: Update
    updates: tuple[Update, ...]


def first_after(journal: Journal, since: float, last: int) -> int:
    """The first position (1 to ``last``; ``last + 1`` if none) whose entry was journaled
    after ``since``, the journal's times taken as rising."""
    low, high = 1, last + 1
    while low < high:
        middle = (low + high) // 2
        entry = journal.entry(middle)
        if entry is not None and entry.recorded_at > since:
            high = middle
        else:
            low = middle + 1
    return low


def recent(journal: Journal, snapshots: Snapshots, since: float, last: int) -> Recent:
    """The table at ``since`` and every input journaled after it up to position ``last``."""
    first = first_after(journal, since, last)
    recovered = from_snapshot(snapshots, first - 1)
    table = recovered.table
    taken = journal.entry(recovered.position) if recovered.position else None
    before = Update(recovered.position, table, (), 0.0 if taken is None else taken.recorded_at)
    updates: list[Update] = []
    for entry in journal.entries(recovered.position):
        if entry.position > last:
            break
        where = f"journal {journal.path}, position {entry.position}"
        for step in entry_steps(table, entry, where):
            table = step.table
            update = Update(entry.position, table, step.effects, entry.recorded_at)
            if updates or entry.recorded_at > since:
                updates.append(update)
            else:
                before = update
    return Recent(before, tuple(updates))


def access_records(journal: Journal, types: Collection[str], since: float) -> list[Entry]:
    """The access records of ``types`` journaled after ``since``."""
    first = first_after(journal, since, journal.last_position())
    return [
        entry
        for entry in journal.entries(first - 1, source=ACCESS)
        if entry.type in types and entry.recorded_at > since
    ]


def read_recent(path: str | Path, since: float) -> Recent:
    """:func:`recent` of the journal at ``path`` (its own read-only connections, so that the
    service writes on meanwhile), up to its last entry."""
    journal = Journal.open_read_only(path)
    try:
        snapshots = Snapshots(path, read_only=True)
        try:
            return recent(journal, snapshots, since, journal.last_position())
        finally:
            snapshots.close()
    finally:
        journal.close()


def read_access_records(path: str | Path, types: Collection[str], since: float) -> list[Entry]:
    """:func:`access_records` of the journal at ``path`` (read only)."""
    with Journal.open_read_only(path) as journal:
        return access_records(journal, types, since)
