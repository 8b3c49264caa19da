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

from controller.journal import Entry, Journal
from controller.journal.snapshots import Snapshots
from controller.records import ACCESS
from controller.recovery import Update, entry_steps, from_snapshot
from controller.table import Step


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
    return replayed(*entries_since(journal, snapshots, since, last), since)


def entries_since(
    journal: Journal, snapshots: Snapshots, since: float, last: int
) -> tuple[Update, list[Entry]]:
    """What :func:`recent` reads (the quick part, for a caller that holds the journal):
    the table to start from (the latest snapshot before the first entry journaled after
    ``since``, with the time of its entry) and the entries after it up to ``last``."""
    first = first_after(journal, since, last)
    recovered = from_snapshot(snapshots, first - 1)
    taken = journal.entry(recovered.position) if recovered.position else None
    at = 0.0 if taken is None else taken.recorded_at
    entries = []
    for entry in journal.entries(recovered.position):
        if entry.position > last:
            break
        entries.append(entry)
    return Update(recovered.position, recovered.table, (), at), entries


def replayed(start: Update, entries: list[Entry], since: float) -> Recent:
    """:func:`recent` from what :func:`entries_since` read (the table core's work)."""
    last, before = Step.of(start.table), start
    updates: list[Update] = []
    for entry in entries:
        for step in entry_steps(last, entry, f"journal position {entry.position}"):
            last = step
            update = Update(entry.position, step.table, step.effects, entry.recorded_at)
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
