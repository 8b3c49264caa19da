"""The device monitor: devices -> journal (commit, then acknowledge) -> a report per event.

:class:`Monitor` opens each configured device with its driver, waiting for an absent device
(retrying with backoff and saying so), and takes every event the drivers deliver. With a
journal, the drivers run with ``ack_on = "commit"``: the events waiting are written in one
transaction and only then acknowledged to their devices (the last of each device, which
acknowledges every earlier one of its boot), so a crash at any moment loses nothing: the
devices still hold what was not committed and send it again to the next run, and the
journal drops what it already has by (device serial, boot id, seq).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from controller.journal import Device, Journal, to_input
from controller.journal.device_events import device_of
from drivers import events as ev
from drivers.device import DeviceDriver
from drivers.errors import HandshakeTimeout, PortNotFoundError

RETRY_INITIAL = 0.5  # seconds before the first new attempt to open an absent device
RETRY_MAX = 5.0


@dataclass(frozen=True, slots=True)
class Observed:
    """An event as the monitor took it: from which device, when, and where it was journaled.

    ``device`` is the device of the last LinkUp before the event (None before the first);
    ``position`` its journal position; ``duplicate``: the journal already held it.
    """

    event: ev.Event
    kind: str
    device: Device | None
    received_at: float
    position: int | None = None
    duplicate: bool = False


class _Stop:
    """Inbox marker: stop after what came before it."""


@dataclass(frozen=True, slots=True)
class _Failed:
    """Inbox marker: a device's watcher stopped on an error."""

    error: BaseException


_STOP = _Stop()
_Item = Observed | _Stop | _Failed


class _Watcher:
    """One device: opens its driver (waiting while it is absent) and forwards its events."""

    def __init__(
        self,
        driver_class: type[DeviceDriver],
        settings: Mapping[str, Any],
        inbox: asyncio.Queue[_Item],
        notice: Callable[[str], None],
        usb_backend: Any,
    ) -> None:
        self.kind = driver_class.KIND.name.lower()
        self.driver_class = driver_class
        self.settings = settings
        self.inbox = inbox
        self.notice = notice
        self.usb_backend = usb_backend
        self.driver: DeviceDriver | None = None
        self.device: Device | None = None
        self.task: asyncio.Task[None] | None = None
        self.stopping = False

    def start(self) -> None:
        self.task = asyncio.create_task(self._watch())

    async def stop(self) -> None:
        """Close the driver (events not taken stay unacknowledged with the device)."""
        self.stopping = True
        task, self.task = self.task, None
        if self.driver is not None:
            await self.driver.close()
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def acknowledge(self, observed: Observed) -> None:
        """Acknowledge a device event (and every earlier one of its boot) once journaled,
        unless the device restarted since: it no longer holds the events of that boot."""
        info = None if self.driver is None else self.driver.device
        event = observed.event
        if info is not None and device_of(info) == observed.device:
            assert self.driver is not None and isinstance(event, ev.SequencedEvent)
            self.driver.acknowledge(event)

    async def _watch(self) -> None:
        try:
            driver = await self._open()
            if driver is None:
                return
            async for event in driver:
                if isinstance(event, ev.LinkUp):
                    self.device = device_of(event.device)
                self.inbox.put_nowait(Observed(event, self.kind, self.device, time.time()))
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the driver stopped for good: the monitor stops too
            self.inbox.put_nowait(_Failed(error))

    async def _open(self) -> DeviceDriver | None:
        """The opened driver, or None when the monitor stops first."""
        delay = RETRY_INITIAL
        port = self.settings["port"]
        while not self.stopping:
            self.driver = self.driver_class.from_config(self.settings, usb_backend=self.usb_backend)
            try:
                await self.driver.open()
            except (PortNotFoundError, HandshakeTimeout) as error:
                self.notice(f"waiting for the {self.kind} on {port}: {error}; retry in {delay:g} s")
            else:
                return self.driver
            await asyncio.sleep(delay)
            delay = min(delay * 2, RETRY_MAX)
        return None


class Monitor:
    """Watch devices, journal their events (if ``journal``), and ``report`` each one.

    ``devices``: (driver class, configuration) pairs, the configuration as
    ``DeviceDriver.from_config`` takes it. ``notice`` receives messages for the operator
    (waiting for a device). :meth:`run` returns after :meth:`stop`; it raises the error of
    a device that stopped for good (wrong device, protocol version) or of the journal.
    """

    def __init__(
        self,
        devices: list[tuple[type[DeviceDriver], Mapping[str, Any]]],
        report: Callable[[Observed], None],
        notice: Callable[[str], None],
        journal: Journal | None = None,
        usb_backend: Any = None,
    ) -> None:
        self._inbox: asyncio.Queue[_Item] = asyncio.Queue()
        self._report = report
        self._journal = journal
        self._watchers = [
            _Watcher(
                driver_class,
                _with_ack_on_commit(settings, journal),
                self._inbox,
                notice,
                usb_backend,
            )
            for driver_class, settings in devices
        ]

    def stop(self) -> None:
        """Stop after the events already taken are journaled and acknowledged."""
        self._inbox.put_nowait(_STOP)

    async def run(self) -> None:
        for watcher in self._watchers:
            watcher.start()
        try:
            while True:
                batch = await self._next_batch()
                events = [item for item in batch if isinstance(item, Observed)]
                if events:
                    await self._record(events)
                if len(events) < len(batch):
                    stop = batch[len(events)]
                    if isinstance(stop, _Failed):
                        raise stop.error
                    return
        finally:
            for watcher in self._watchers:
                await watcher.stop()

    async def _next_batch(self) -> list[_Item]:
        """Every item waiting (at least one), up to and including a stop marker."""
        batch = [await self._inbox.get()]
        while not isinstance(batch[-1], _Stop | _Failed) and not self._inbox.empty():
            batch.append(self._inbox.get_nowait())
        return batch

    async def _record(self, events: list[Observed]) -> None:
        if self._journal is None:
            for observed in events:
                self._report(observed)
            return
        inputs = [to_input(item.event, item.device, item.received_at) for item in events]
        positions = await asyncio.to_thread(self._journal.append, inputs)
        last = {item.kind: item for item in events if isinstance(item.event, ev.SequencedEvent)}
        for watcher in self._watchers:
            if watcher.kind in last:
                watcher.acknowledge(last[watcher.kind])
        for item, position in zip(events, positions, strict=True):
            self._report(
                Observed(
                    item.event, item.kind, item.device, item.received_at, position, position is None
                )
            )


def _with_ack_on_commit(settings: Mapping[str, Any], journal: Journal | None) -> Mapping[str, Any]:
    """With a journal, the driver acknowledges an event only when the monitor says so."""
    if journal is None:
        return settings
    return {**settings, "link": {**settings.get("link", {}), "ack_on": "commit"}}
