"""The service's two clocks: the wall clock it journals with, and the monotonic clock its
delays run on (docs/security.md, "Time as a boundary").

The journal keeps the wall clock's time of every record (people read it, the floor sums
by it). Nothing that holds a secret back or ends a right runs by it: the wall clock is an
input that NTP, an operator or a dying battery can step. Within a run, the studio's
delay, the studio tokens' expiries and the seat reports' wait run on the monotonic clock,
which nothing steps; across a restart (the monotonic clock of a new run starts afresh)
they are anchored to the journal: a moment journaled before the start counts as journaled
at the start, and a token lives at most its lifetime from the start.

A step of the wall clock is seen as a change of the wall clock against the monotonic one
(:meth:`ServiceClock.check`, at every journaled input and every ``CHECK_SECONDS``): the
service journals it as a table input (``ClockStepped``), which raises a non-blocking
alert and keeps the table's ages (a deck's, a waiting seat report's) true.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Callable

#: A change of the wall clock against the monotonic clock of this many seconds or more is a
#: step (NTP slews a drift of at most 0.5 ms a second, and steps only beyond 0.128 s).
STEP_SECONDS = 1.0
#: How often the service checks the wall clock while nothing is journaled.
CHECK_SECONDS = 1.0
#: A slow drift (a slew) of this much starts a new span of the mapping from journal times
#: to monotonic times, without a step; the mapping adds it, so a moment is never taken for
#: older than it is.
DRIFT_SECONDS = 0.05


class ServiceClock:
    """The wall clock (``wall``: seconds since the epoch) and the monotonic clock
    (``monotonic``: seconds) of one run of the service, and the mapping of the journal's
    times of this run to the monotonic clock."""

    def __init__(
        self,
        wall: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        *,
        step: float = STEP_SECONDS,
    ) -> None:
        self.wall = wall
        self.monotonic = monotonic
        self.step = step
        self._offset = wall() - monotonic()  # wall minus monotonic, as last seen
        self._start = monotonic()
        self._start_position = 0
        #: from which journal position on each offset holds: (positions, offsets)
        self._positions: list[int] = [1]
        self._offsets: list[float] = [self._offset]

    def started(self, position: int) -> None:
        """The run begins after journal position ``position`` (the journal recovered)."""
        self._start, self._start_position = self.monotonic(), position
        self._offset = self.wall() - self.monotonic()
        self._positions, self._offsets = [position + 1], [self._offset]

    def check(self, next_position: int) -> float | None:
        """How far the wall clock stepped (seconds, negative: back) since the last check, or
        None; inputs from ``next_position`` on are journaled on the clock as it is now."""
        offset = self.wall() - self.monotonic()
        change, self._offset = offset - self._offset, offset
        if abs(change) >= self.step or abs(offset - self._offsets[-1]) >= DRIFT_SECONDS:
            if self._positions[-1] == next_position:
                self._offsets[-1] = offset
            else:
                self._positions.append(next_position)
                self._offsets.append(offset)
        return change if abs(change) >= self.step else None

    def journaled(self, position: int, at: float) -> float:
        """The monotonic time of the input journaled at ``position`` with time ``at``
        (seconds since the epoch): for an input of an earlier run, the start of this one
        (its age is not known here; it is at least that)."""
        if position <= self._start_position:
            return self._start
        span = bisect.bisect_right(self._positions, position) - 1
        return at - self._offsets[max(span, 0)] + DRIFT_SECONDS
