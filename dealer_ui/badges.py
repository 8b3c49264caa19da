"""The console's badge reader: a PC/SC reader beside the console (``[devices.console]``,
docs/hardware.md) whose taps stand for an id, never for a PIN.

A badge that comes into the reader's field is read (its UID) and checked against every
badge hash of the configuration's dealers and supervisors (``dealer_ui.auth.badge_holder``,
in the reader's own thread: never on the event loop). The tap is then held for
:data:`HOLD` seconds as the latest: the console asks for it (``GET /api/badge``: its number
and whose kind of badge it is, never the id) and sends its number with the PIN typed on its
PIN pad in place of an id (sign-in, dealer push, a supervisor's approval). The PIN is
checked as an id's is, with the same limits; a tap serves once, and a badge alone never
signs anyone in. A badge that is nobody's is held as a tap of no one (the console says so)
and logged.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from controller.config_file import Credential
from dealer_ui.auth import Denied, badge_holder
from drivers.errors import DriverError
from drivers.pcsc.scard import Arrived, Readers, Seen, Watcher
from luck_errors import LuckTableError

log = logging.getLogger(__name__)

#: The seconds a tap waits for its PIN.
HOLD = 30.0


class BadgeRefused(LuckTableError):
    """A tap that cannot stand for an id: none, too old, used, or not of the kind asked
    (``code``: which, as data)."""

    def __init__(self, reason: str, code: Denied) -> None:
        super().__init__(reason)
        self.code = code


@dataclass(frozen=True, slots=True)
class Tap:
    """A badge read at the console: its ``number`` (the console sends it back), ``kind``
    (``dealer``, ``supervisor``, or None: nobody's badge), ``who`` (the id; None: nobody's)
    and when (the monotonic clock)."""

    number: int
    kind: str | None
    who: str | None
    at: float


class Badges:
    """The console's badge reader (``pattern``: its reader-name pattern) and its latest tap,
    for the badges of ``dealers`` and ``supervisors``."""

    def __init__(
        self,
        pattern: str,
        dealers: Sequence[Credential],
        supervisors: Sequence[Credential],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.pattern = pattern
        self.dealers = dealers
        self.supervisors = supervisors
        self.clock = clock
        self.reader: str | None = None  # the reader pcscd has for the pattern (None: none)
        self.detail = "not started"  # why there is none
        self._latest: Tap | None = None
        self._numbers = itertools.count(1)
        self._watcher: Watcher | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        """Watch the reader (a thread of its own); without pyscard, said and not watched."""
        self._loop = asyncio.get_running_loop()
        try:
            self._watcher = Watcher({"console": self.pattern}, self._seen)
        except DriverError as error:
            self.detail = str(error)
            log.error("the console's badge reader: %s", error)
            return
        self._watcher.start()

    async def stop(self) -> None:
        if self._watcher is not None:
            await asyncio.to_thread(self._watcher.stop)
            self._watcher = None

    def _seen(self, seen: Seen) -> None:
        """From the watcher's thread: a tap is checked here, then handed to the loop."""
        if isinstance(seen, Readers):
            reader = seen.found.get("console")
            self._call(self._reader, reader, seen.detail)
        elif isinstance(seen, Arrived):
            if seen.uid is None:
                log.warning("a badge at the console could not be read: %s", seen.why)
                return
            dealer = badge_holder(self.dealers, seen.uid)
            supervisor = None if dealer else badge_holder(self.supervisors, seen.uid)
            holder, kind = (dealer, "dealer") if dealer else (supervisor, "supervisor")
            self._call(self._tapped, kind if holder else None, holder.id if holder else None)

    def _call(self, function: Callable[..., None], *args: object) -> None:
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(function, *args)

    def _reader(self, reader: str | None, detail: str) -> None:
        self.reader, self.detail = reader, detail
        if reader is None:
            log.warning("the console's badge reader is missing: %s", detail or "pcscd has none")

    def _tapped(self, kind: str | None, who: str | None) -> None:
        self._latest = Tap(next(self._numbers), kind, who, self.clock())
        if who is None:
            log.warning("a badge that is nobody's was shown at the console")

    def latest(self) -> Tap | None:
        """The latest tap, while it waits for its PIN."""
        tap = self._latest
        if tap is None or self.clock() - tap.at > HOLD:
            return None
        return tap

    def holder(self, number: int, kind: str) -> str:
        """The id the tap ``number`` stands for, a ``kind``'s (BadgeRefused if none)."""
        tap = self.latest()
        if tap is None or tap.number != number:
            raise BadgeRefused(f"no badge {number} waiting: show the badge again", Denied.NO_BADGE)
        if tap.kind != kind or tap.who is None:
            raise BadgeRefused(f"not a {kind}'s badge", Denied.WRONG_BADGE)
        return tap.who

    def used(self, number: int) -> None:
        """The tap ``number`` signed someone in: it serves no more."""
        if self._latest is not None and self._latest.number == number:
            self._latest = None
