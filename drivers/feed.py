"""What every device driver shares: its events handed to one consumer, in order, through an
async iterator, and its use as ``async with``.

:class:`EventFeed` is the base of :class:`~drivers.device.DeviceDriver` (a device on a wire)
and :class:`~drivers.pcsc.device.PcscDevice` (PC/SC card readers): each makes its events its
own way and puts them in the feed (:meth:`EventFeed._deliver`), and ends it when it closes
(:meth:`EventFeed._end`).
"""

from __future__ import annotations

import abc
import asyncio
from types import TracebackType
from typing import Self

from drivers.errors import DriverError
from drivers.events import Event


class _Closed:
    """Queue marker: the driver closed or failed; the iterator ends after it."""


_CLOSED = _Closed()


class EventFeed(abc.ABC):
    """One device's events to one consumer. Use as ``async with`` (opens the driver unless
    it is open, closes it at the end), iterate for events."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[Event | _Closed] = asyncio.Queue()
        #: The event loop the driver was opened on (None: not opened yet).
        self._loop: asyncio.AbstractEventLoop | None = None
        #: The fatal error that stopped the driver, raised once every event was taken.
        self._failure: DriverError | None = None

    @abc.abstractmethod
    async def open(self) -> None:
        """Start the device's link; the events follow."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Stop the device's link; the iterator ends once every event was taken."""

    async def next_event(self) -> Event:
        """The next event; raises the fatal error that stopped the driver, or
        ``StopAsyncIteration`` once the driver is closed and every event was taken."""
        item = await self._queue.get()
        if isinstance(item, _Closed):
            self._queue.put_nowait(item)  # later calls end too
            if self._failure is not None:
                raise self._failure
            raise StopAsyncIteration
        return self._taken(item)

    def ready_events(self) -> list[Event]:
        """The events delivered and not yet taken, without waiting (an empty list when
        there are none; the end of the driver is left for :meth:`next_event` to say)."""
        ready: list[Event] = []
        while not self._queue.empty():
            item = self._queue.get_nowait()
            if isinstance(item, _Closed):
                self._queue.put_nowait(item)
                break
            ready.append(self._taken(item))
        return ready

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Event:
        return await self.next_event()

    async def __aenter__(self) -> Self:
        if self._loop is None:
            await self.open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    # --- for the drivers ------------------------------------------------------------------

    def _deliver(self, event: Event) -> None:
        """Hand ``event`` to the consumer, after those delivered before it."""
        self._queue.put_nowait(event)

    def _end(self) -> None:
        """No event follows those delivered: the iterator ends after them."""
        self._queue.put_nowait(_CLOSED)

    def _taken(self, event: Event) -> Event:
        """``event`` was taken by the consumer (a driver with a bounded device queue makes
        room here); it is what the consumer gets."""
        return event
