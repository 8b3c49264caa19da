"""One device's events into the journal: the intake that the table service and the monitor
share (docs/drivers.md, "Acknowledge after commit").

:class:`Intake` opens the device's driver with ``ack_on = "commit"``, waiting with the
link's backoff while the device is absent; takes the events waiting in one batch; hands the
batch to the caller, who journals it; and only then acknowledges the last device event of the
batch (which acknowledges every earlier one of its boot), and only while the device is still
the boot that sent it: a device that restarted holds nothing of the old boot to forget. A
crash at any moment loses nothing: the device sends again what was not acknowledged, and
the journal drops what it already holds by (serial, boot id, seq).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from controller.config import DevicePort
from controller.journal import Device as JournalDevice
from controller.journal.device_events import device_of
from controller.table import Device
from drivers import events as ev
from drivers.device import DeviceDriver, SeatBoardDriver, ShoeDriver
from drivers.errors import DriverError

DRIVERS: dict[Device, type[DeviceDriver]] = {
    Device.SHOE: ShoeDriver,
    Device.SEAT_BOARD: SeatBoardDriver,
}


@dataclass(frozen=True, slots=True)
class Arrival:
    """An event as the intake took it: from which device, when, and ``source``: the device
    boot of the last LinkUp before it (None before the first), which the journal records."""

    event: ev.Event
    device: Device
    source: JournalDevice | None
    received_at: float


#: Journals a batch of arrivals (one transaction); returns once it is durable.
Journal = Callable[[Sequence[Arrival]], Awaitable[None]]
#: Told that the device is absent (with the seconds until the next attempt to open it) or
#: that its open driver stopped (None: it is opened again at once); raising stops the intake.
Absent = Callable[[DriverError, float | None], Awaitable[None]]


class Intake:
    """The events of ``device`` on ``port``; :meth:`run` until ``stopping`` is set.

    ``usb_backend``: a pyusb backend for ``usb://`` ports (tests' virtual bus).
    """

    def __init__(self, device: Device, port: DevicePort, *, usb_backend: Any = None) -> None:
        self.device = device
        self.port = port
        self.usb_backend = usb_backend
        #: The driver while the device is connected.
        self.driver: DeviceDriver | None = None
        self._source: JournalDevice | None = None

    async def run(self, journal: Journal, absent: Absent, stopping: asyncio.Event) -> None:
        """Open, take, journal, acknowledge; on a failure say so to ``absent`` and open
        again after the backoff (reset by every successful open)."""
        link = self.port.link
        delay = link.backoff_initial
        while not stopping.is_set():
            driver = self._driver()
            try:
                await driver.open()
            except DriverError as error:  # absent, not answering, the wrong device, a bad port
                await driver.close()
                await absent(error, delay)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stopping.wait(), delay)
                delay = min(delay * 2, link.backoff_max)
                continue
            delay = link.backoff_initial
            self.driver = driver
            try:
                await self._take(driver, journal)
            except DriverError as error:
                await absent(error, None)
            finally:
                self.driver = None
                await driver.close()

    def _driver(self) -> DeviceDriver:
        link = replace(self.port.link, ack_on="commit")  # acknowledged once durable
        options: dict[str, Any] = {}
        if self.port.serial:
            options["baudrate"] = self.port.baud
        elif self.usb_backend is not None:
            options["backend"] = self.usb_backend
        return DRIVERS[self.device].from_url(self.port.url, link, **options)

    async def _take(self, driver: DeviceDriver, journal: Journal) -> None:
        while True:
            try:
                events = [await driver.next_event(), *driver.ready_events()]
            except StopAsyncIteration:
                return
            batch = [self._arrival(event) for event in events]
            await journal(batch)
            self._acknowledge(driver, batch)

    def _arrival(self, event: ev.Event) -> Arrival:
        if isinstance(event, ev.LinkUp):
            self._source = device_of(event.device)
        return Arrival(event, self.device, self._source, time.time())

    @staticmethod
    def _acknowledge(driver: DeviceDriver, batch: Sequence[Arrival]) -> None:
        """The last device event of ``batch``, if the device is still the boot that sent it."""
        sent = [item for item in batch if isinstance(item.event, ev.SequencedEvent)]
        if not sent or driver.device is None or device_of(driver.device) != sent[-1].source:
            return
        event = sent[-1].event
        assert isinstance(event, ev.SequencedEvent)
        driver.acknowledge(event)
