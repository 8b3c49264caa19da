"""Times on the floor's clock: a table's wall clock may step (NTP, an operator, a dying
battery), and the floor's hourly totals must not follow it.

A table stamps each journal entry with its wall clock; a step of it is journaled as a
``clock_stepped`` entry (the table service sees it against its monotonic clock:
``controller.service.clock``). The shipper (:class:`TableClock`) stamps each batch with
the table's wall clock as it sends it (``sent_at``) and how far that clock has stepped
since the batch's last entry (``steps_after``). The floor (:class:`FloorTime`) then knows
on which clock each entry of the batch was stamped: an entry at ``at`` happened at
``at + (floor_now - sent_at) + the steps after it``, on the floor's clock. Where that
offset is at most :data:`TOLERANCE` (a table whose clock agrees with the floor's, as NTP
keeps it), the time is stored as the table stamped it: a healthy table's stored forms do
not change.

The floor's clock is the floor database's (``clock_timestamp()``), read once a connection
and again every :data:`FLOOR_CLOCK_READ` seconds, and followed meanwhile on the shipper's
monotonic clock, which no step moves.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

import psycopg

from controller.floor import facts as f
from controller.journal import Entry, Journal

#: The ``type`` of a journal entry that records a step of the table's wall clock; its
#: ``step`` field is the step in ms (negative: back).
CLOCK_STEPPED = "clock_stepped"
#: Milliseconds: a fact's time is moved onto the floor's clock only when the table's clock
#: was further off the floor's than this (network and batching delays stay well within it).
TOLERANCE = 2000
#: Seconds a connection's reading of the floor's clock is followed on the monotonic clock
#: before the floor's clock is read again.
FLOOR_CLOCK_READ = 60.0


def _step(entry: Entry) -> int:
    """The step (ms) ``entry`` records, 0 for any other entry."""
    if entry.type != CLOCK_STEPPED:
        return 0
    step = entry.fields.get("step")
    return step if isinstance(step, int) and not isinstance(step, bool) else 0


class TableClock:
    """The table's wall clock as a shipper sees it: what it stamps a batch with.

    At its start it notes the wall clock against its monotonic clock (``base``) and the
    journal's last position (``start``): entries after ``start`` are stamped on the clock
    of ``base``, moved by the steps journaled after ``start``. At each batch, how far the
    wall clock has moved against the monotonic clock since the start, less the steps
    journaled between ``start`` and the batch's last entry (plus those between the batch's
    last entry and ``start``, for a batch from before the start) is how far it stepped
    since that entry: the steps the journal holds after it, and a step the service has not
    journaled yet (it journals one within a second)."""

    def __init__(
        self,
        journal: Journal,
        wall: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._journal, self._wall, self._monotonic = journal, wall, monotonic
        self._base = wall() - monotonic()
        self._start = journal.last_position()
        self._low = self._high = self._start  # the positions (low, high] are looked at
        self._steps: dict[int, int] = {}  # the clock_stepped entries there: position -> ms

    def stamp(self, entries: Sequence[Entry]) -> tuple[int, int]:
        """``sent_at`` and ``steps_after`` (ms) of a batch of ``entries`` sent now."""
        wall, monotonic = self._wall(), self._monotonic()
        last = entries[-1].position
        self._look(entries)
        if last >= self._start:
            journaled = -sum(s for p, s in self._steps.items() if self._start < p <= last)
        else:
            journaled = sum(s for p, s in self._steps.items() if last < p <= self._start)
        moved = round((wall - monotonic - self._base) * 1000)
        return round(wall * 1000), moved + journaled

    def _look(self, entries: Sequence[Entry]) -> None:
        """The steps journaled up to the batch's last entry known, and back to its first."""
        first, last = entries[0].position, entries[-1].position
        if first - 1 < self._low:
            self._scan(first - 1, self._low)
            self._low = first - 1
        if last > self._high:
            if first <= self._high + 1:  # the batch's own entries are what is left to see
                self._steps.update({e.position: _step(e) for e in entries if _step(e)})
            else:
                self._scan(self._high, last)
            self._high = last

    def _scan(self, after: int, through: int) -> None:
        for entry in self._journal.entries(after):
            if entry.position > through:
                break
            if _step(entry):
                self._steps[entry.position] = _step(entry)


#: Per connection: the floor's clock less the monotonic clock (seconds), and when that was
#: read (on the monotonic clock).
_FLOOR_CLOCK: weakref.WeakKeyDictionary[psycopg.Connection, tuple[float, float]] = (
    weakref.WeakKeyDictionary()
)


def floor_now(connection: psycopg.Connection) -> int:
    """The floor database's clock now (ms since the Unix epoch), read at most every
    :data:`FLOOR_CLOCK_READ` seconds and followed on the monotonic clock meanwhile."""
    now = time.monotonic()
    known = _FLOOR_CLOCK.get(connection)
    if known is None or now - known[1] > FLOOR_CLOCK_READ:
        row = connection.execute("SELECT extract(epoch FROM clock_timestamp())").fetchone()
        read = time.monotonic()
        assert row is not None
        known = (float(row[0]) - (now + read) / 2, read)
        _FLOOR_CLOCK[connection] = known
        now = read
    return round((now + known[0]) * 1000)


class FloorTime:
    """The times of one batch's facts on the floor's clock (:func:`floor_now`: ``now``).

    Each entry's offset from the floor's clock is ``now - sent_at`` plus the steps
    journaled after it (``steps_after`` and the batch's own ``clock_stepped`` entries after
    it); a time is moved by it when it is over :data:`TOLERANCE`. A batch without
    ``sent_at`` keeps the table's times."""

    def __init__(self, batch: f.Batch, now: int | None) -> None:
        self._offsets: dict[int, int] = {}
        if batch.sent_at is None or now is None:
            return
        after = batch.steps_after
        for entry in reversed(batch.entries):
            self._offsets[entry.position] = now - batch.sent_at + after
            after += _step(entry)

    def at(self, ms: int | None, position: int) -> datetime | None:
        """The floor's time of ``ms`` (the table's clock) stamped at entry ``position``."""
        if ms is None:
            return None
        offset = self._offsets.get(position, 0)
        if abs(offset) > TOLERANCE:
            ms += offset
        return datetime.fromtimestamp(ms / 1000, UTC)


def of(connection: psycopg.Connection, batch: f.Batch) -> FloorTime:
    """The times of ``batch``'s facts on the floor's clock of ``connection``."""
    return FloorTime(batch, None if batch.sent_at is None else floor_now(connection))
