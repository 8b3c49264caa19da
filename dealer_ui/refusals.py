"""Inputs the API refuses before the table sees them, journaled once per burst.

An input a role may never make at this table (a player's decision at a table where the
dealer enters every decision) is refused at the API with 403: it is not a table input, so
it is not journaled as one (replaying the journal has nothing to refuse again). It is
still part of the record that someone tried, and how often: but a phone sending refused
decisions as fast as it can must not write the journal (and the floor's copy) as fast.

:class:`Refusals` folds them: the first refusal of a session opens a burst, later ones of
the same session only count, and ``window`` seconds (``[api] refusal_fold``, on the
monotonic clock) after the first the burst is journaled as one access record,
``refused_input``: what was refused, who (role, id, seat, sitting), from where, why (its
words and its code), ``count`` and ``seconds`` (from the first to the last). A longer
flood gives one record per window. Bursts still open when the console stops are journaled
then (:meth:`close`).

The log is folded the same way (:class:`LogFold`): a refusal made before the app reads the
request (a rate limit, an id locked, an address locked out) is logged once per burst of its
key, its first at once and the rest in one line with their count when the burst's window
ends: a flood of refused requests neither floods the log nor pays a log line each.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the records' module imports the studio's, which imports the sign-ins'
    from dealer_ui.access import Refused, RefusedInput

log = logging.getLogger(__name__)

#: The access record of a burst of refused inputs.
REFUSED_INPUT = "refused_input"

#: Journals an access record (its kind and fields): ``TableService.record_access``.
Record = Callable[[str, Mapping[str, object]], Awaitable[int]]


@dataclass(slots=True)
class _Burst:
    fields: Refused
    first: float
    last: float
    count: int = 1
    timer: asyncio.TimerHandle | None = field(default=None, repr=False)


class Refusals:
    """Refused inputs per session (a key), journaled with ``record`` once per ``window``
    seconds with their count."""

    def __init__(
        self, record: Record, window: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._record, self.window, self._clock = record, window, clock
        self._open: dict[str, _Burst] = {}
        self._writing: set[asyncio.Task[None]] = set()

    def refuse(self, key: str, fields: Refused) -> None:
        """Count a refused input of the session ``key``: ``fields`` say what, who, from
        where and why (the first refusal's are journaled, with the count)."""
        now = self._clock()
        burst = self._open.get(key)
        if burst is not None:
            burst.count += 1
            burst.last = now
            return
        burst = self._open[key] = _Burst(fields, now, now)
        burst.timer = asyncio.get_running_loop().call_later(self.window, self._due, key)

    def _due(self, key: str) -> None:
        burst = self._open.pop(key)
        writing = asyncio.create_task(self._write(burst))
        self._writing.add(writing)
        writing.add_done_callback(self._writing.discard)

    async def _write(self, burst: _Burst) -> None:
        seconds = round(burst.last - burst.first, 3)
        fields: RefusedInput = {**burst.fields, "count": burst.count, "seconds": seconds}
        try:
            await self._record(REFUSED_INPUT, fields)
        except (RuntimeError, OSError) as error:  # the table stopped, or its journal failed
            log.error("%d refused inputs could not be journaled: %s", burst.count, error)

    async def close(self) -> None:
        """Journal every burst still open, and wait for those being written."""
        for key, burst in list(self._open.items()):
            if burst.timer is not None:
                burst.timer.cancel()
            self._due(key)
        if self._writing:
            await asyncio.gather(*self._writing)


class LogFold:
    """Log lines of refusals, folded per key (an address, an id) over ``window`` seconds:
    the first of a key is logged at once; the later ones within the window are only
    counted, then logged in one line (the first's words, how many more, over how long)
    when the window ends. Without a running event loop each is logged (nothing would end
    the window)."""

    def __init__(
        self, logger: logging.Logger, window: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._log, self.window, self._clock = logger, window, clock
        self._open: dict[str, _Folded] = {}

    def warning(self, key: str, message: str, *args: object) -> None:
        """Log ``message % args`` as the refusal of ``key`` (counted, if its burst is open)."""
        folded = self._open.get(key)
        if folded is not None:
            folded.count += 1
            folded.last = self._clock()
            return
        self._log.warning(message, *args)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        now = self._clock()
        self._open[key] = _Folded(message, args, now, now)
        loop.call_later(self.window, self._due, key)

    def _due(self, key: str) -> None:
        folded = self._open.pop(key)
        if folded.count:
            self._log.warning(
                folded.message + " (and %d more like it within %.1f s)",
                *folded.args,
                folded.count,
                folded.last - folded.first,
            )


@dataclass(slots=True)
class _Folded:
    message: str
    args: tuple[object, ...]
    first: float
    last: float
    count: int = 0
