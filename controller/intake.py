"""One device's events into the journal: the intake that the table service and the monitor
share (docs/drivers.md, "Acknowledge after commit").

:class:`Intake` opens the device's driver with ``ack_on = "commit"``, waiting with the
link's backoff while the device is absent; takes the events waiting in one batch; hands the
batch to the caller, who journals it; and only then acknowledges the last device event of the
batch (which acknowledges every earlier one of its boot), and only while the device is still
the boot that sent it: a device that restarted holds nothing of the old boot to forget. A
crash at any moment loses nothing: the device sends again what was not acknowledged, and
the journal drops what it already holds by (serial, boot id, seq).

A deck's registration (``DeckCard`` events) is held until the ``DeckLoaded`` that closes it
and only then handed on, with the deck, in tag order (:class:`Registrations`): whatever order
a shoe sent it in (an older shoe sends the order it will deal), the journal, the floor and
every view after them hold the deck as a set (docs/security.md, "The deal order").
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from controller.config import DevicePort
from drivers import events as ev
from drivers.device import DeviceDriver, SeatBoardDriver, ShoeDriver
from drivers.errors import DriverError
from drivers.pcsc.deck import read_deck
from drivers.pcsc.device import PcscDevice, PcscSeats, PcscShoe
from drivers.protocol import DeviceKind, tag_order

DRIVERS: dict[DeviceKind, type[DeviceDriver]] = {
    DeviceKind.SHOE: ShoeDriver,
    DeviceKind.SEAT_BOARD: SeatBoardDriver,
}
#: A device's driver: on the wire protocol, or PC/SC readers (drivers/pcsc).
Driver = DeviceDriver | PcscDevice


@dataclass(frozen=True, slots=True)
class Arrival:
    """An event as the intake took it: from which device, when, and ``source``: the device
    boot of the last LinkUp before it (None before the first), which the journal records."""

    event: ev.Event
    device: DeviceKind
    source: ev.DeviceId | None
    received_at: float


#: The most cards of a registration held for its deck: twice a deck (the table core keeps
#: no more of one registration either).
MOST_HELD = 2 * 52

#: Journals a batch of arrivals (one transaction); returns once it is durable.
Journal = Callable[[Sequence[Arrival]], Awaitable[None]]
#: Told that the device is absent (with the seconds until the next attempt to open it) or
#: that its open driver stopped (None: it is opened again at once); raising stops the intake.
Absent = Callable[[DriverError, float | None], Awaitable[None]]


class Intake:
    """The events of ``device`` on ``port``; :meth:`run` until ``stopping`` is set.

    ``usb_backend``: a pyusb backend for ``usb://`` ports (tests' virtual bus).
    """

    def __init__(self, device: DeviceKind, port: DevicePort, *, usb_backend: Any = None) -> None:
        self.device = device
        self.port = port
        self.usb_backend = usb_backend
        #: The driver while the device is connected.
        self.driver: Driver | None = None
        self._source: ev.DeviceId | None = None

    async def run(self, journal: Journal, absent: Absent, stopping: asyncio.Event) -> None:
        """Open, take, journal, acknowledge; on a failure say so to ``absent`` and open
        again after the backoff (reset by every successful open)."""
        link = self.port.link
        delay = link.backoff_initial
        while not stopping.is_set():
            driver: Driver | None = None
            try:
                driver = self._driver()  # a PC/SC device's deck file may be unreadable
                await driver.open()
            except DriverError as error:  # absent, not answering, the wrong device, a bad port
                if driver is not None:
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

    def _driver(self) -> Driver:
        link = replace(self.port.link, ack_on="commit")  # acknowledged once durable
        pcsc = self.port.pcsc
        if pcsc is not None:  # the deck file read at each open: a new deck, a new file
            deck = read_deck(pcsc.deck)
            if self.device is DeviceKind.SHOE:
                return PcscShoe(pcsc.readers["shoe"], deck, link)
            return PcscSeats({int(seat): name for seat, name in pcsc.readers.items()}, deck, link)
        options: dict[str, Any] = {}
        if self.port.serial:
            options["baudrate"] = self.port.baud
        elif self.usb_backend is not None:
            options["backend"] = self.usb_backend
        return DRIVERS[self.device].from_url(self.port.url, link, **options)

    async def _take(self, driver: Driver, journal: Journal) -> None:
        # a new driver delivers again what was not acknowledged; held, unacknowledged
        # events count against the link's queue limit (back-pressure): never hold them all
        registrations = Registrations(min(MOST_HELD, self.port.link.queue_limit - 1))
        while True:
            try:
                events = [await driver.next_event(), *driver.ready_events()]
            except StopAsyncIteration:
                return
            ready, last = registrations.take([self._arrival(event) for event in events])
            if ready:
                await journal(ready)
            if last is not None:
                self._acknowledge(driver, last)

    def _arrival(self, event: ev.Event) -> Arrival:
        if isinstance(event, ev.LinkUp):
            self._source = event.device.id
        return Arrival(event, self.device, self._source, time.time())

    @staticmethod
    def _acknowledge(driver: Driver, last: Arrival) -> None:
        """The device event ``last`` (and every one before it), if the device is still the
        boot that sent it."""
        if driver.device is None or driver.device.id != last.source:
            return
        assert isinstance(last.event, ev.SequencedEvent)
        driver.acknowledge(last.event)


class Registrations:
    """The deck registration a shoe is sending, held until the ``DeckLoaded`` that closes it
    and then handed on in tag order (``drivers.protocol.tag_order``): card ``index`` is its
    place in that order, and the registration's sequence numbers and arrival times go to its
    cards in that order too, so nothing the journal keeps of it says the order it came in.

    Nothing held is acknowledged (the device keeps it until it is journaled): a driver
    opened again is sent it again. A registration is handed on as it is, in tag order, when
    a card of another deck or another boot of the device (which cannot send it again) comes
    first, or when ``most`` cards are held (no deck a table accepts has more: a flood, or a
    link whose queue limit is smaller), and a deck whose registration never began is
    handed on at once.
    """

    def __init__(self, most: int = MOST_HELD) -> None:
        self._held: list[tuple[Arrival, ev.DeckCard]] = []
        self._most = max(most, 1)

    def take(self, batch: Sequence[Arrival]) -> tuple[list[Arrival], Arrival | None]:
        """What of ``batch`` (with what was held before) to journal now, and the last device
        event that may be acknowledged once it is (None: none may)."""
        ready: list[Arrival] = []
        last: Arrival | None = None
        for item in batch:
            event = item.event
            if self._held and self._closes(item):
                ready += self._release()
            if isinstance(event, ev.DeckCard):
                self._held.append((item, event))
            else:
                ready.append(item)
            if not self._held and isinstance(event, ev.SequencedEvent):
                last = item
        return ready, last

    def _closes(self, item: Arrival) -> bool:
        """Whether ``item`` ends the registration held: the deck is loaded, a card of
        another deck, or another boot of the device."""
        first, card = self._held[0]
        event = item.event
        if len(self._held) >= self._most:
            return True
        if isinstance(event, ev.LinkUp):
            return item.source != first.source
        if isinstance(event, ev.DeckCard):
            return event.deck_id != card.deck_id or item.source != first.source
        return isinstance(event, ev.DeckLoaded)

    def _release(self) -> list[Arrival]:
        """The registration held, in tag order, each card with the sequence number and the
        arrival of the card that came in its place."""
        held, self._held = self._held, []
        cards = sorted((card for _, card in held), key=lambda card: tag_order(card.uid, card.card))
        return [
            replace(item, event=replace(card, seq=came.seq, index=index))
            for index, ((item, came), card) in enumerate(zip(held, cards, strict=True))
        ]
