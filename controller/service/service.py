"""The table service: drivers -> journal (commit, then acknowledge) -> table core -> effects.

One table per process. Every input is journaled before it is applied: device events as the
drivers report them (a device event the journal already holds, by serial, boot id and seq,
is dropped), people's inputs as the table core's records, each with its time from the
service's clock. The shoe's lamps follow ``table.signals.lamps``; every applied input is
published as an :class:`Update` to the subscribers of :meth:`TableService.updates`.
A refused credential is journaled too (:meth:`TableService.record_failed_attempt`), as an
audit record that is no table input.

A journal that cannot be written (a full disk, an I/O error) stops the dealing, not the
service: nothing is applied that is not journaled, so the input in hand is refused
(:class:`TableStopped`, which the console answers 503 with the reason), and so is every
input while it lasts (:attr:`TableService.journal_fault` says why; the console's feed tells
the screens); the devices' events wait, unacknowledged, in the service and in the devices.
The service tries the journal again with a backoff (``RETRY_SECONDS`` doubling to
``RETRY_MAX_SECONDS``) by journaling the fault's record (``journal_fault``: why, since when,
for how long): once it is written the table deals on, the waiting events first. A start
whose journal's disk is full (SQLite cannot open it) tries again with the same backoff
rather than fail; one whose first records cannot be written starts, waiting as above.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from enum import StrEnum
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

from controller.config import Config
from controller.history.index import build_index
from controller.intake import Absent, Arrival, Driver, Intake
from controller.journal import Entry, Input, Journal, JournalError, JournalUnwritable, to_input
from controller.journal.rotation import due, finish, rotate
from controller.journal.snapshots import Snapshots
from controller.records import ACCESS, record_of, table_inputs
from controller.recovery import Recovered, Update, recover
from controller.recovery.lagging import Recent, access_records, entries_since, replayed
from controller.service.clock import CHECK_SECONDS, ServiceClock
from controller.service.heap import bound_arenas, give_back
from controller.service.timings import CARD_SECONDS, COMMIT_SECONDS
from controller.table import (
    AlertKind,
    ClockStepped,
    Configure,
    Lamps,
    LinkDown,
    Step,
    Table,
    TableInput,
    Tick,
    device_words,
    paused_refusal,
)
from controller.table import DeviceRestarted as TableDeviceRestarted
from controller.table.effects import HandOver
from controller.table.streams import WAIT_MS
from drivers import events as ev
from drivers.errors import DriverError
from drivers.protocol import DeviceKind
from luck_errors import LuckTableError

if TYPE_CHECKING:
    from controller.floor.shipper_process import ShipperProcess

log = logging.getLogger(__name__)

#: The first wait before the journal is tried again after a failed write; it doubles up to
#: the most (seconds).
RETRY_SECONDS, RETRY_MAX_SECONDS = 0.5, 10.0
#: The access record journaled once the journal can be written again after a fault.
JOURNAL_FAULT = "journal_fault"


class Halted(StrEnum):
    """Why the table takes no input, as data (``TableStopped.code``, the console's 503
    ``code``: docs/api.md); the message says it for people."""

    FAILED = "service_failed"  # a task of the service failed: it stops
    JOURNAL_FAULT = "journal_fault"  # its journal cannot be written now: it waits for it
    NOT_RUNNING = "not_running"  # the service is stopped or stopping


class TableStopped(LuckTableError, RuntimeError):
    """The table takes no input: its service is stopped or stopping, or its journal cannot
    be written now (the message says why, ``code`` as data)."""

    def __init__(self, reason: str, code: Halted) -> None:
        super().__init__(reason)
        self.code = code


#: Whether an input still fits the table (None) or why not: see TableService.submit.
Guard = Callable[[Table], str | None]


class Stale(LuckTableError):
    """An input made for a table that has moved on (its guard's reason): not journaled."""


class Paused(LuckTableError):
    """A player's decision while the table is paused (the table core's reason,
    :func:`controller.table.paused_refusal`): refused, not journaled."""


class Subscription:
    """The updates after the moment of subscribing, in order; ends when the service stops."""

    def __init__(self, subscribers: set[Subscription]) -> None:
        self._queue: asyncio.Queue[Update | None] = asyncio.Queue()
        self._subscribers = subscribers
        subscribers.add(self)

    def put(self, update: Update | None) -> None:
        self._queue.put_nowait(update)

    def close(self) -> None:
        self._subscribers.discard(self)

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Update:
        update = await self._queue.get()
        if update is None:
            self.close()
            raise StopAsyncIteration
        return update


def _unpaused(item: TableInput, guard: Guard | None) -> Guard:
    """The guard :meth:`TableService.submit` asks for ``item``: :class:`Paused` when the
    table is paused and ``item`` is a decision the pause stops; then ``guard``, if any."""

    def check(table: Table) -> str | None:
        paused = paused_refusal(table, item)
        if paused is not None:
            raise Paused(paused)
        return None if guard is None else guard(table)

    return check


class TableService:
    """The live table. ``async with TableService(config) as service:`` opens the journal,
    recovers the table, and starts one task per configured device; then
    ``await service.submit(item)`` for people's inputs, ``service.updates()`` for what
    happens, ``await service.stop()`` (or leave the ``async with``) to stop."""

    def __init__(
        self,
        config: Config,
        *,
        usb_backend: Any = None,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        new_floor_journal: bool = False,
        waiting: Callable[[str, float], None] | None = None,
    ) -> None:
        """``clock``: the wall clock the journal's times come from (seconds since the
        epoch); ``monotonic``: the clock the delays run on (:mod:`controller.service.clock`).
        ``new_floor_journal``: the journal is its table's new one on the floor (the
        simulated table's, new at each run), taken as the table's in place of another.
        ``waiting``: told, while a start waits for the journal's disk, why and for how
        long at most until the next try (systemd's start timeout)."""
        self.config = config
        self._waiting = waiting
        self._new_floor_journal = new_floor_journal
        self._usb_backend = usb_backend
        self._clock = ServiceClock(clock, monotonic)
        self._journal: Journal | None = None
        self._snapshots: Snapshots | None = None
        #: The journal's rotation in progress (in a thread), if any: one at a time.
        self._rotating: asyncio.Task[None] | None = None
        #: The last input's step: the table after it, and what the table shows.
        self._last: Step | None = None
        self._position = 0
        self._devices: dict[DeviceKind, ev.DeviceId] = {}
        self._intakes: dict[DeviceKind, Intake] = {}
        self._down: set[DeviceKind] = set()  # devices whose absence is journaled
        self._lamps: Lamps | None = None  # the lamps last sent to the shoe
        self._configure_due = False  # the configured settings wait for the hand to end
        self._lock = asyncio.Lock()
        self._subscribers: set[Subscription] = set()
        self._tasks: list[asyncio.Task[object]] = []
        self._stopping = asyncio.Event()
        self._stopped = asyncio.Event()
        self._failure: BaseException | None = None
        #: Why the journal cannot be written now (the table waits for it), if so.
        self._fault: str | None = None
        self._writable = asyncio.Event()
        self._writable.set()
        #: Told when the journal's fault begins or ends (the console's feed).
        self.fault_listeners: list[Callable[[], None]] = []
        self._shipper: ShipperProcess | None = None
        self._tick: asyncio.TimerHandle | None = None  # a Tick due for the waiting seat reports
        #: How recovery went at the last start.
        self.recovered: Recovered | None = None

    # --- public ---------------------------------------------------------------------------

    @property
    def table(self) -> Table:
        """The table after the last input applied."""
        return self._last_step().table

    def _last_step(self) -> Step:
        """The last input's step, to go on from."""
        if self._last is None:
            raise RuntimeError("the table service is not started")
        return self._last

    @property
    def position(self) -> int:
        """The journal position of the last input applied."""
        return self._position

    @property
    def shipper(self) -> ShipperProcess | None:
        """The journal shipper (in a process of its own), when the table ships to a floor
        (``[floor]``)."""
        return self._shipper

    def driver(self, device: DeviceKind) -> Driver | None:
        """The open driver of ``device``, if it is connected now."""
        intake = self._intakes.get(device)
        return None if intake is None else intake.driver

    async def start(self) -> None:
        """Open the journal, recover the table, start the devices' tasks."""
        bound_arenas()  # before its threads start: each would grow a C heap of its own
        path = self.config.journal
        if not path.parent.is_dir():  # a state folder is the installer's (StateDirectory=)
            problem = "is not a folder" if path.parent.exists() else "does not exist"
            raise JournalError(
                f"journal {path}: its folder {path.parent} {problem} (journal.path; the "
                "service makes no folders: make it, or let systemd's StateDirectory= make it)"
            )
        journal = await self._open_journal()
        try:
            snapshots = Snapshots(path, timed_checkpoints=True)
        except BaseException:
            journal.close()
            raise
        try:
            if not snapshots.indexed():  # a journal of an earlier release: indexed once
                await asyncio.to_thread(build_index, journal, snapshots)
            recovered = await asyncio.to_thread(recover, journal, snapshots)
        except BaseException:  # a journal it cannot read: nothing stays open
            snapshots.close()
            journal.close()
            raise
        self._journal, self._snapshots = journal, snapshots
        self.recovered = recovered
        # what a rotation cut by a stop or a power cut left (bounded: one segment's inputs)
        self._rotating = asyncio.create_task(self._rotation(finish, path))
        if self.config.floor is not None:
            self._start_shipper(journal)
        self._last, self._position = Step.of(recovered.table), recovered.position
        self._devices = dict(recovered.devices)
        self._clock.started(recovered.position)
        log.info(
            "journal %s: recovered to position %d (hand %d) in %.3f s: snapshot at %d, "
            "%d inputs replayed",
            path,
            recovered.position,
            recovered.table.hand_number,
            recovered.seconds,
            recovered.snapshot,
            recovered.replayed,
        )
        self._tasks.append(asyncio.create_task(self._watch_clock()))
        try:
            await self._restarted()
            self._start_devices()
        except TableStopped:  # the journal cannot be written: the table waits for it
            if self._fault is None:  # stopped meanwhile: nothing stays open
                await self.stop()
                raise
            self._tasks.append(asyncio.create_task(self._open_when_writable()))
        # What the start made (the modules, the recovered table, the rules' tables) lives as
        # long as the process: out of the collector's reach, a full collection while the
        # table deals walks only what came after (it walked all of it: a pause of tens of
        # milliseconds, on the loop that reads the cards).
        gc.freeze()

    async def _open_journal(self) -> Journal:
        """Open the journal; while its disk takes no write (full: SQLite cannot make the
        files it needs beside it), try again with a backoff rather than fail."""
        path, delay = self.config.journal, RETRY_SECONDS
        while True:
            try:  # the write-ahead log copied into the file at hands' ends, not in a commit
                return await asyncio.to_thread(Journal.open, path, timed_checkpoints=True)
            except JournalUnwritable as error:
                why = f"{error}: the table waits for its journal (free space on its disk)"
                if delay == RETRY_SECONDS:
                    log.error("%s", why)
                if self._waiting is not None:
                    self._waiting(why, delay + 60)  # the try after the wait, with time to spare
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_MAX_SECONDS)

    def _start_devices(self) -> None:
        ports = {DeviceKind.SHOE: self.config.shoe, DeviceKind.SEAT_BOARD: self.config.seat_board}
        for device, port in ports.items():
            if port is not None:
                intake = Intake(device, port, usb_backend=self._usb_backend)
                self._intakes[device] = intake
                self._tasks.append(asyncio.create_task(self._run_device(intake)))

    async def _open_when_writable(self) -> None:
        """A start that could not journal its first records: once the journal can be
        written, journal them and start the devices."""
        while await self._until_writable():
            try:
                await self._restarted()
            except TableStopped:
                continue
            self._start_devices()
            return

    async def _until_writable(self) -> bool:
        """Wait until the journal can be written (True) or the service stops (False)."""
        stopping = asyncio.create_task(self._stopping.wait())
        writable = asyncio.create_task(self._writable.wait())
        try:
            await asyncio.wait((stopping, writable), return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()
            writable.cancel()
        return not self._stopping.is_set()

    async def _restarted(self) -> None:
        """Journal what a start changes: the links down until the devices are back, and
        the configured settings."""
        for device in self.table.links:  # the link was up before: it is down until it is back
            await self._record_own(LinkDown(at=0, device=device, reason="the service restarted"))
        self._down = {
            alert.device
            for alert in self.table.alerts
            if alert.kind is AlertKind.LINK_DOWN and alert.device is not None
        }
        await self._configure()

    async def submit(self, item: TableInput, guard: Guard | None = None) -> Step:
        """Journal ``item`` with the service's time, then apply it; a refused input comes
        back with ``step.refused`` (journaled all the same: replaying refuses it again).
        ``guard`` is asked, with the table as it is when the input's turn comes (under the
        service's lock, so nothing comes between), whether the input still fits it: a reason
        it gives raises :class:`Stale`, and nothing is journaled or applied. A player's
        decision while the table is paused raises :class:`Paused` the same way (asked
        first, under the same lock): a pause stops the action, and a decision it stops is
        no input of the table's."""
        return await self._record_own(item, _unpaused(item, guard))

    async def record_failed_attempt(self, fields: Mapping[str, object]) -> int:
        """Journal a refused credential (``fields``: who tried, for what, from where, why):
        see :meth:`record_access`."""
        return await self.record_access("failed_attempt", fields)

    async def record_access(self, kind: str, fields: Mapping[str, object]) -> int:
        """Journal an access record of type ``kind`` (a refused credential, a studio token
        issued or revoked) with the service's time: not a table input, the table does not
        change and nothing is published. Returns its journal position."""
        async with self._lock:
            journal = self._running()
            await self._check_clock(journal)
            record = Input(self._now() / 1000, ACCESS, kind, dict(fields))
            positions = await self._append(journal, [record])
        position = positions[0]
        assert position is not None
        return position

    async def recent(self, since: float) -> Recent:
        """The table at time ``since`` (seconds since the epoch) and every input journaled
        after it up to the last input applied: the entries are read under the service's
        lock (a subscription made before this call gets every later input), the table core
        replays them after it (the table deals on meanwhile)."""
        async with self._lock:
            journal, snapshots = self._running(reading=True), self._snapshots
            assert snapshots is not None
            start, entries = await asyncio.to_thread(
                entries_since, journal, snapshots, since, self._position
            )
        return await asyncio.to_thread(replayed, start, entries, since)

    async def access_records(self, types: Collection[str], since: float) -> list[Entry]:
        """The access records of ``types`` journaled after ``since`` (seconds since the
        epoch)."""
        async with self._lock:
            journal = self._running(reading=True)
            return await asyncio.to_thread(access_records, journal, types, since)

    def now(self) -> float:
        """The service's time (seconds since the epoch): the time it journals inputs with.
        A wall clock's: it may step (journaled as ``clock_stepped``); time nothing by it."""
        return self._clock.wall()

    def monotonic(self) -> float:
        """The service's monotonic clock (seconds): what delays and expiries run on."""
        return self._clock.monotonic()

    def journaled(self, update: Update) -> float:
        """When ``update`` was journaled on :meth:`monotonic`'s clock; for an input of an
        earlier run, when this run started (at least that long ago): never later than it
        was, whatever the wall clock did."""
        return self._clock.journaled(update.position, update.at)

    @property
    def journal_fault(self) -> str | None:
        """Why the journal cannot be written now (the table waits for it); None if it can."""
        return self._fault

    @property
    def halted(self) -> TableStopped | None:
        """Why the table takes no input (stopped, or its journal cannot be written); None
        while it runs."""
        if self._failure is not None:
            return TableStopped(str(self._failure), Halted.FAILED)
        if self._fault is not None:
            return TableStopped(self._fault, Halted.JOURNAL_FAULT)
        if self._journal is None or self._stopping.is_set():
            return TableStopped("the table service is not running", Halted.NOT_RUNNING)
        return None

    def updates(self) -> Subscription:
        """An async iterator of every :class:`Update` from now on."""
        return Subscription(self._subscribers)

    async def run_until_stopped(self) -> None:
        """Wait until :meth:`stop`; raises what stopped the service if it failed."""
        await self._stopped.wait()
        if self._failure is not None:
            raise self._failure

    async def stop(self) -> None:
        """Close the devices, end the subscriptions, close the journal."""
        if self._stopping.is_set():
            await self._stopped.wait()
            return
        self._stopping.set()
        if self._tick is not None:
            self._tick.cancel()
        if self._rotating is not None:  # a segment is sealed whole, or not at all
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(self._rotating)
        async with self._lock:  # no input is half-way: journaled inputs are applied
            current = asyncio.current_task()
            tasks = [task for task in self._tasks if task is not current]
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, TableStopped):
                    await task
            for subscription in list(self._subscribers):
                subscription.put(None)
            if self._shipper is not None:
                await asyncio.to_thread(self._shipper.stop)
            if self._snapshots is not None:
                self._snapshots.close()
            if self._journal is not None:
                self._journal.close()
        self._stopped.set()
        log.info("table service stopped at journal position %d", self._position)

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.stop()

    # --- inside ---------------------------------------------------------------------------

    def _start_shipper(self, journal: Journal) -> None:
        """Ship the journal to the floor, from a process of its own (docs/floor.md): what
        the shipper derives and rebuilds never takes the interpreter from the event loop."""
        # imported here: only a table with a floor needs the floor's code and its PostgreSQL
        # client (about 0.1 s of CPU to load)
        from controller.floor.shipper_process import ShipperProcess  # noqa: PLC0415
        from controller.floor.store import shipped  # noqa: PLC0415

        assert self.config.floor is not None
        identity = shipped(journal, self.config.table_id, self.config.table_name)
        self._shipper = ShipperProcess(
            self.config.floor, identity, new_journal=self._new_floor_journal
        )
        self._shipper.start()

    def _now(self) -> int:
        return round(self._clock.wall() * 1000)

    async def _record_own(self, item: TableInput, guard: Guard | None = None) -> Step:
        """Journal and apply an input of the service's own or of people."""
        steps = await self._commit(lambda now: [record_of(replace(item, at=now))], guard)
        return steps[0]

    async def _watch_clock(self) -> None:
        """Check the wall clock every ``CHECK_SECONDS`` while the table is quiet (every
        journaled input checks it too)."""
        while True:
            await asyncio.sleep(CHECK_SECONDS)
            async with self._lock:
                if self._stopping.is_set() or self._journal is None:
                    return
                if self._fault is None:
                    with contextlib.suppress(TableStopped):
                        await self._check_clock(self._journal)

    async def _check_clock(self, journal: Journal) -> None:
        """Holding the lock, before anything is journaled: a step of the wall clock since
        the last check is journaled (``ClockStepped``, which raises its alert) and applied."""
        step = self._clock.check(self._position + 1)
        if step is None:
            return
        log.warning("the wall clock stepped %+.3f s against the monotonic clock", step)
        item = ClockStepped(at=self._now(), step=round(step * 1000))
        await self._apply_records(journal, [record_of(item)])

    async def _configure(self) -> None:
        """Journal the configured settings when the table does not have them yet."""
        if self.table.settings == self.config.settings:
            return
        step = await self._record_own(Configure(at=0, settings=self.config.settings))
        if step.refused:
            log.warning("the configured settings wait for the hand to end: %s", step.refused)
            self._configure_due = True

    async def _commit(
        self, records: Callable[[int], Sequence[Input]], guard: Guard | None = None
    ) -> list[Step]:
        """Write ``records(now)`` (one transaction; ``now``: the service's time in ms, taken
        once the clock is checked), then apply and publish each one the journal did not
        already hold. Inputs are applied in journal order. ``guard``: see :meth:`submit`."""
        async with self._lock:
            journal = self._running()
            stale = None if guard is None else guard(self.table)
            if stale is not None:
                raise Stale(stale)
            await self._check_clock(journal)
            return await self._apply_records(journal, records(self._now()))

    async def _apply_records(self, journal: Journal, records: Sequence[Input]) -> list[Step]:
        """:meth:`_commit`'s work, holding the lock."""
        with COMMIT_SECONDS.time():
            positions = await self._append(journal, records)
        steps: list[Step] = []
        for record, position in zip(records, positions, strict=True):
            if position is None:
                log.info("%s %s already in the journal: dropped", record.type, record.device)
                continue
            for item in table_inputs(record, f"input {position}"):
                step = self._last_step().then(item)
                steps.append(step)
                self._applied(position, step, record.recorded_at)
        self._show_lamps()
        self._time_the_wait()
        if self._shipper is not None:  # once the table has it: the floor's wake-up after
            self._shipper.notify()
        return steps

    def _running(self, *, reading: bool = False) -> Journal:
        """The journal, while the table takes inputs (``reading``: while it runs, its
        journal read even when it cannot be written); :class:`TableStopped` if not."""
        halted = self.halted
        if reading and halted is not None and halted.code is Halted.JOURNAL_FAULT:
            halted = None
        if halted is not None:
            raise halted
        assert self._journal is not None  # else halted
        return self._journal

    async def _append(self, journal: Journal, records: Sequence[Input]) -> list[int | None]:
        """Write ``records`` (holding the lock); a journal that cannot be written stops the
        dealing: :class:`TableStopped` saying why, and the table waits for its journal."""
        try:
            return await asyncio.to_thread(journal.append, records)
        except JournalError as error:
            if self._fault is None:
                self._fault = (
                    f"{error}: the table stopped dealing until its journal can be written "
                    "(what is journaled is kept: free space on its disk or mend the fault; "
                    "it deals on by itself)"
                )
                log.error("%s", self._fault)
                self._writable.clear()
                self._told()
                self._tasks.append(asyncio.create_task(self._retry_journal(str(error))))
            raise TableStopped(self._fault, Halted.JOURNAL_FAULT) from None

    def _told(self) -> None:
        for listener in self.fault_listeners:
            listener()

    async def _retry_journal(self, error: str) -> None:
        """Try the journal again, with a backoff, by journaling the fault's record; once it
        is written the table deals on."""
        since, began = self._clock.wall(), self._clock.monotonic()
        delay = RETRY_SECONDS
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), delay)
            async with self._lock:
                if self._stopping.is_set() or self._journal is None:
                    return
                seconds = round(self._clock.monotonic() - began, 3)
                fault = {"error": error, "since": since, "seconds": seconds}
                record = Input(self._now() / 1000, ACCESS, JOURNAL_FAULT, fault)
                try:
                    await asyncio.to_thread(self._journal.append, [record])
                except JournalError as again:
                    log.debug("the journal still cannot be written: %s", again)
                    delay = min(delay * 2, RETRY_MAX_SECONDS)
                    continue
                self._fault = None
                self._writable.set()
                self._told()
                log.warning(
                    "the journal is written again after %.1f s: the table deals on", seconds
                )
                self._time_the_wait()
                return

    def _time_the_wait(self) -> None:
        """Seat reports wait for the shoe's (docs/table.md, "Two devices, one table"): once
        the shoe owes nothing, a ``Tick`` when the oldest has waited its time decides it.
        While the shoe owes events, its own events (or its link) come first."""
        table = self.table
        waiting = table.streams.waiting
        owes = DeviceKind.SHOE not in table.links or not table.streams.shoe.complete
        if not waiting or owes or self._tick is not None or self._stopping.is_set():
            return
        delay = (min(report.at for report in waiting) + WAIT_MS - self._now()) / 1000
        loop = asyncio.get_running_loop()  # bounded: a step of the clock moves no wait
        self._tick = loop.call_later(min(max(delay, 0), WAIT_MS / 1000) + 0.01, self._tick_due)

    def _tick_due(self) -> None:
        self._tick = None
        running = not self._stopping.is_set() and self.halted is None
        if running and self.table.streams.waiting:
            self._tasks.append(asyncio.create_task(self._own_tick()))

    async def _own_tick(self) -> None:
        with contextlib.suppress(TableStopped):  # a journal fault: timed again once it ends
            await self._record_own(Tick(at=0))

    def _applied(self, position: int, step: Step, at: float) -> None:
        self._last, self._position = step, position
        update = Update(position, step.table, step.effects, at)
        for subscription in list(self._subscribers):
            subscription.put(update)
        if any(isinstance(effect, HandOver) for effect in step.effects):
            self._snapshot()
            self._rotate()
            if self._configure_due and not self._stopping.is_set():
                self._configure_due = False
                self._tasks.append(asyncio.create_task(self._configure()))

    def _snapshot(self) -> None:
        """Keep a snapshot of the table; one that cannot be written is only a slower
        recovery (the inputs are the record), so the table deals on."""
        assert self._snapshots is not None
        state = Recovered(self.table, self._position, dict(self._devices)).state()
        try:
            self._snapshots.save(self._position, self.table.hand_number, state)
        except JournalError as error:
            log.warning("%s: recovery will replay from an earlier snapshot", error)

    def _rotate(self) -> None:
        """At a hand's end (its snapshot kept), in a thread, never two at a time, never
        while stopping: copy the write-ahead log into the journal's file (off the cards'
        commits: docs/performance.md), and rotate the journal when it is due
        (``[journal]``)."""
        running = self._rotating is not None and not self._rotating.done()
        if running or self._stopping.is_set():
            return
        self._rotating = asyncio.create_task(
            self._rotation(self._hand_ended, self._position, self.table.hand_number)
        )

    def _hand_ended(self, through: int, hand_number: int) -> None:
        assert self._journal is not None
        try:
            self._journal.checkpoint()
        except JournalError as error:  # the log keeps every commit: copied at a later hand
            log.warning("%s: at a later hand", error)
        path = self.config.journal
        if due(path, hand_number, self.config.rotation):
            rotate(path, through)
            give_back()  # the copy's pages, freed: the process keeps none of them

    async def _rotation(self, work: Callable[..., object], *args: object) -> None:
        """``work(*args)`` in a thread; a rotation that fails only waits for a later hand
        (the journal's file holds every input meanwhile), so the table deals on."""
        try:
            await asyncio.to_thread(work, *args)
        except JournalError as error:
            log.warning("%s: the journal rotates at a later hand", error)
        except OSError as error:
            log.warning("the journal's segment cannot be written (%s): it rotates later", error)

    def _show_lamps(self) -> None:
        lamps = self._last_step().signals.lamps
        shoe = self.driver(DeviceKind.SHOE)
        if shoe is not None and lamps != self._lamps:
            shoe.set_indicator(lamps.bonus, lamps.seats)
            self._lamps = lamps

    async def _run_device(self, intake: Intake) -> None:
        """Feed ``intake``'s device to the table until the service stops; a journal that
        cannot be written ends it (the service is stopping), so does a failure of its own."""
        while True:
            try:
                await intake.run(self._arrived, self._absent(intake.device), self._stopping)
                return
            except TableStopped:  # a journal fault: opened again once it ends
                if not await self._until_writable():
                    return
            except Exception as error:
                log.exception("the %s task failed", device_words(intake.device))
                self._failure = error
                self._tasks.append(asyncio.create_task(self.stop()))
                return

    def _absent(self, device: DeviceKind) -> Absent:
        async def absent(error: DriverError, retry: float | None) -> None:
            if device not in self._down:
                log.warning("the %s is not connected: %s", device_words(device), error)
                await self._record_own(LinkDown(at=0, device=device, reason=str(error)))
                self._down.add(device)

        return absent

    async def _arrived(self, batch: Sequence[Arrival]) -> None:
        """Journal and apply a batch of one device's events; while the journal cannot be
        written, the batch waits (unacknowledged) and is journaled once it can."""
        before: dict[DeviceKind, ev.DeviceId | None] = {}  # what the batch's LinkUps replace

        def records(now: int) -> list[Input]:
            before.clear()
            return [
                record for item in batch for record in self._records_of(item, now / 1000, before)
            ]

        while True:
            try:
                await self._commit(records)
                break
            except TableStopped:
                for kind, known in before.items():  # not journaled: the devices as they were
                    if known is None:
                        self._devices.pop(kind, None)
                    else:
                        self._devices[kind] = known
                if self._fault is None or not await self._until_writable():
                    raise
        done = time.time()
        for item in batch:
            if isinstance(item.event, ev.CardRead):
                CARD_SECONDS.observe(done - item.received_at)

    def _records_of(
        self, arrival: Arrival, recorded_at: float, before: dict[DeviceKind, ev.DeviceId | None]
    ) -> list[Input]:
        """The records of ``arrival``; a LinkUp's device becomes the known one of its kind
        (``before`` gets the one it replaces, to put back if the records are not
        journaled)."""
        event, device = arrival.event, arrival.device
        if not isinstance(event, ev.LinkUp):
            if isinstance(event, ev.LinkDown):
                log.warning("the %s link is down: %s", device_words(device), event.detail)
            return [to_input(event, arrival.source, recorded_at)]
        info = event.device.id
        known = self._devices.get(info.kind)
        records = [to_input(event, None, recorded_at)]
        if not event.restarted and known is not None and known != info:
            # a new boot (or another device) since the journal's last: what it held is gone
            log.warning(
                "the %s restarted while the service was down: %s", device_words(device), info
            )
            restarted = TableDeviceRestarted(at=self._now(), device=device, lost=None)
            records.append(record_of(restarted))
        before.setdefault(info.kind, known)
        self._devices[info.kind] = info
        self._down.discard(device)
        if device is DeviceKind.SHOE:
            self._lamps = None  # a shoe that (re)connects shows the table's lamps again
        log.info("the %s is connected: %s (%s)", device_words(device), event.device, event.reason)
        return records
