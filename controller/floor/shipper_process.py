"""The journal shipper in a process of its own, beside the table service's.

The shipper derives every entry it ships through the table core (``controller.floor.derive``)
and, when it starts behind the floor's position, rebuilds the table there from a snapshot:
Python work that, in a thread of the service's process, takes the interpreter from the
event loop that reads the cards. :class:`ShipperProcess` runs the same
:class:`~controller.floor.shipper.Shipper` in a child process (``multiprocessing``'s spawn:
a fresh interpreter, nothing of the service's threads or sockets) and offers the service
what the thread offered: :meth:`~ShipperProcess.notify` after each commit (one byte on a
pipe, never blocking), :meth:`~ShipperProcess.stop`, and the shipper's ``confirmed``,
``connected``, ``refused`` and :meth:`~ShipperProcess.outage_seconds`, read from memory the
two processes share. The child's log records are the service's (relayed to its loggers,
so they go where the service's log goes). The child runs at nice :data:`NICE`: when the
machine is busy, the table's process is served first.

The child ends with the service: on :meth:`~ShipperProcess.stop` (after shipping what is
left, for up to the drain given), and when the service's process is gone however it went
(its end of the pipe closes: the child ships what is left for ``STOP_DRAIN`` seconds and
ends). A SIGTERM ends it at once (the table's systemd unit sends its SIGTERM to the
service alone, ``KillMode=mixed``, which then stops the child); Ctrl-C at a terminal is
left to the service.
A restarted service starts a new child; the floor takes each entry once, whoever ships it
(``controller.floor.store.ingest`` is idempotent).
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import multiprocessing
import os
import signal
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.sharedctypes import Synchronized, SynchronizedString
from typing import Any, cast

from controller.config import FloorSettings
from controller.floor import facts as f
from controller.floor.shipper import STOP_DRAIN, Shipper

log = logging.getLogger(__name__)

_CONTEXT = multiprocessing.get_context("spawn")
_NOTIFY, _STOP = b"n", b"s"
#: Bytes of the floor's refusal kept for the service (the alert's words; longer is cut).
_REFUSAL_BYTES = 4096
#: Seconds the service waits for the child beyond its drain before ending it.
_GRACE = 10.0
#: The child's niceness: on a busy machine the table's cards go first, the floor (whose lag
#: is counted in hundreds of milliseconds, not in one) after.
NICE = 10


class _Shared:
    """The shipper's state in memory both processes see: written by the child, read by
    the service. ``down_since`` is ``time.monotonic()``'s (one clock for every process of
    the machine); negative while shipping works."""

    def __init__(self) -> None:
        self.confirmed: Synchronized[int] = _CONTEXT.Value("q", 0)
        self.connected: Synchronized[bool] = _CONTEXT.Value("b", False)
        self.down_since: Synchronized[float] = _CONTEXT.Value("d", -1.0)
        # an array of chars is a SynchronizedString (typeshed's overload of a context's
        # Array says SynchronizedArray)
        self.refused = cast("SynchronizedString", _CONTEXT.Array("c", _REFUSAL_BYTES))
        self.drain: Synchronized[float] = _CONTEXT.Value("d", STOP_DRAIN)


class ShipperProcess:
    """Ships the journal at ``journal.path`` to the floor of ``settings`` from a child
    process (see the module's doc); the same calls and state as a
    :class:`~controller.floor.shipper.Shipper`."""

    def __init__(
        self, settings: FloorSettings, journal: f.Journal, *, new_journal: bool = False
    ) -> None:
        self.settings = settings
        self.journal = journal
        self._shared = _Shared()
        self._records: Any = _CONTEXT.Queue()
        self._relay = logging.handlers.QueueListener(self._records, _Relay())
        # the child's end of the pipe goes to it as multiprocessing passes a Connection;
        # raw bytes on both ends (no framing): a byte a wake-up, or the stop
        self._reader, writer = _CONTEXT.Pipe(duplex=False)
        self._writer_end = writer
        self._writer = writer.fileno()
        level = logging.getLogger("controller.floor.shipper").getEffectiveLevel()
        self._process = _CONTEXT.Process(
            target=_child,
            args=(
                _Start(settings, journal, new_journal, self._reader, self._shared, level),
                self._records,
            ),
            name=f"floor shipper {journal.table_id}",
            # a daemon: should this process end without stopping it, the child is ended
            # (SIGTERM) rather than waited for; what it had not shipped ships at the next start
            daemon=True,
        )
        os.set_blocking(self._writer, False)

    def start(self) -> None:
        self._relay.start()
        self._process.start()
        self._reader.close()  # the child's now: its end sees this process go
        log.info("the floor shipper runs in process %d", self._process.pid)

    @property
    def pid(self) -> int | None:
        return self._process.pid

    @property
    def confirmed(self) -> int:
        """The last position the floor confirmed (as far as the shipper knows)."""
        return self._shared.confirmed.value

    @property
    def connected(self) -> bool:
        return bool(self._shared.connected.value)

    @property
    def refused(self) -> str | None:
        text = self._shared.refused.value.decode("utf-8", "replace")
        return text or None

    def outage_seconds(self, now: float) -> float:
        """How long shipping has not worked at ``now`` (``time.monotonic()``); 0 while it
        works."""
        down_since = self._shared.down_since.value
        return 0.0 if down_since < 0 else max(0.0, now - down_since)

    def notify(self) -> None:
        """New entries are committed (never blocks: a full pipe already says so)."""
        if self._writer_end.closed:  # stopped: its descriptor may be another file's now
            return
        with contextlib.suppress(BlockingIOError, BrokenPipeError):
            os.write(self._writer, _NOTIFY)

    def stop(self, drain: float = STOP_DRAIN) -> None:
        """Ship what is left, for up to ``drain`` seconds, then end the child; what is still
        unshipped ships at the next start."""
        if self._writer_end.closed:
            return
        self._shared.drain.value = drain
        # a full pipe: the child reads on to the stop; a child gone needs none
        with contextlib.suppress(BlockingIOError, BrokenPipeError):
            os.write(self._writer, _STOP)
        self._writer_end.close()  # the end of the pipe after the stop, if the child missed it
        self._process.join(drain + _GRACE)
        if self._process.is_alive():
            log.warning("the floor shipper did not stop in time: ended")
            self._process.terminate()
            self._process.join(_GRACE)
        self._relay.stop()
        self._records.close()


class _Relay(logging.Handler):
    """The child's records, handled by this process's loggers of the same names."""

    def handle(self, record: logging.LogRecord) -> bool:
        logger = logging.getLogger(record.name)
        if logger.isEnabledFor(record.levelno):
            logger.handle(record)
        return True


class _Published(Shipper):
    """The shipper whose state is also written where the service reads it."""

    def __init__(
        self, settings: FloorSettings, journal: f.Journal, new_journal: bool, shared: _Shared
    ) -> None:
        self._shared = shared
        super().__init__(settings, journal, new_journal=new_journal)

    @property
    def confirmed(self) -> int:
        return self._shared.confirmed.value

    @confirmed.setter
    def confirmed(self, position: int) -> None:
        self._shared.confirmed.value = position

    @property
    def connected(self) -> bool:
        return bool(self._shared.connected.value)

    @connected.setter
    def connected(self, connected: bool) -> None:
        self._shared.connected.value = connected

    @property
    def refused(self) -> str | None:
        return self._shared.refused.value.decode("utf-8", "replace") or None

    @refused.setter
    def refused(self, why: str | None) -> None:
        text = (why or "").encode("utf-8")[: _REFUSAL_BYTES - 1]
        self._shared.refused.value = text.decode("utf-8", "ignore").encode("utf-8")

    @property
    def _down_since(self) -> float | None:
        since = self._shared.down_since.value
        return None if since < 0 else since

    @_down_since.setter
    def _down_since(self, since: float | None) -> None:
        self._shared.down_since.value = -1.0 if since is None else since


@dataclass(frozen=True, slots=True)
class _Start:
    """What the child starts from (pickled into it): the shipper's settings and journal,
    its end of the service's pipe, the shared state, the service's log level."""

    settings: FloorSettings
    journal: f.Journal
    new_journal: bool
    reader: Connection
    shared: _Shared
    level: int


def _child(start: _Start, records: Any) -> None:
    """The child's life: ship, woken by the service's bytes, until asked to stop or the
    service is gone."""
    # Ctrl-C at a terminal is the service's to handle: it stops the child (or is gone)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.nice(NICE)
    root = logging.getLogger()
    root.handlers[:] = [logging.handlers.QueueHandler(records)]
    root.setLevel(start.level)
    reader, shared = start.reader, start.shared
    shipper = _Published(start.settings, start.journal, start.new_journal, shared)
    shipper.start()
    drain = STOP_DRAIN
    while True:
        try:
            got = os.read(reader.fileno(), 4096)
        except InterruptedError:
            continue
        if not got:  # the service's process is gone (or closed its end)
            break
        if _STOP in got:
            drain = shared.drain.value
            break
        shipper.notify()
    shipper.stop(drain)
    reader.close()
