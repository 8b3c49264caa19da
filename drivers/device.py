"""The asyncio shell around a :class:`~drivers.session.HostSession` and a transport.

:class:`DeviceDriver` opens the transport, runs the session's timers on the event loop,
hands bytes between the transport threads (:class:`~drivers.link.LinkIO`) and the session,
reconnects with exponential backoff when the transport is lost, and delivers the session's
events to one consumer in order through an async iterator (:class:`~drivers.feed.EventFeed`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from typing import Any, ClassVar, Self

from drivers.errors import ConnectionLost, DriverError, HandshakeTimeout, TransportError
from drivers.events import DeviceEvent, DeviceInfo, Event, LinkDown, LinkUp
from drivers.feed import EventFeed
from drivers.link import LinkIO
from drivers.protocol import DeviceKind, Status
from drivers.session import HostSession, LinkConfig, LinkStats
from drivers.transport import Transport, transport_for_url


class DeviceDriver(EventFeed):
    """One device on one transport. Use as ``async with``, iterate for events."""

    KIND: ClassVar[DeviceKind]

    def __init__(self, transport: Transport, config: LinkConfig | None = None) -> None:
        super().__init__()
        self.transport = transport
        self.config = config or LinkConfig()
        self._session = HostSession(
            transport.name,
            self.KIND,
            self.config,
            queue_limit=self.config.queue_limit,
            baudrate=transport.baudrate,
        )
        self._io: LinkIO | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._reconnect_task: asyncio.Task[None] | None = None
        self._handshake: asyncio.Future[None] | None = None
        self._fail_close: asyncio.Future[None] | None = None
        self._closing = asyncio.Event()
        self._closed = False
        #: The last error of a failed reconnect attempt, for logs and the console.
        self.last_error: TransportError | None = None

    @classmethod
    def from_url(cls, url: str, config: LinkConfig | None = None, **options: Any) -> Self:
        """A driver for a configured port: a device path, a pyserial URL or ``usb://VID:PID``.

        ``options`` go to the transport (``baudrate`` for serial, ``backend`` for USB).
        """
        return cls(transport_for_url(url, **options), config)

    # --- public ---------------------------------------------------------------------------

    @property
    def link_up(self) -> bool:
        return self._session.up

    @property
    def device(self) -> DeviceInfo | None:
        """The device from its last HELLO."""
        return self._session.device

    @property
    def status(self) -> Status | None:
        """The device's last STATUS (heartbeat): faults, lamps, seats, cards remaining."""
        return self._session.status

    @property
    def stats(self) -> LinkStats:
        return self._session.stats

    @property
    def waiting(self) -> int:
        """Device events delivered and not yet taken or, with ``ack_on="commit"``, not yet
        acknowledged (back-pressure holds the next ones with the device at ``queue_limit``)."""
        return self._session.waiting

    def link_state(self) -> dict[str, object]:
        """The session's state now and its last frames in and out (HostSession.state), for
        a failure's report."""
        return self._session.state(self._now())

    async def open(self) -> None:
        """Open the port and wait for the device's HELLO.

        Raises PortNotFoundError (the port or device does not exist), TransportError,
        ProtocolVersionError, WrongDeviceError or HandshakeTimeout, or DriverError when
        :meth:`close` is called meanwhile; nothing stays open then.
        The LinkUp event is the first event the iterator yields.
        """
        if self._loop is not None:
            raise DriverError(f"{self.transport.name} is already open")
        loop = asyncio.get_running_loop()
        await asyncio.to_thread(self.transport.open)  # raises before anything is started
        if self._closed:
            await asyncio.to_thread(self.transport.close)
            raise self._closed_while_opening()
        self._loop = loop
        self._handshake = self._loop.create_future()
        self._start_io()
        try:
            await asyncio.wait_for(
                asyncio.shield(self._handshake), timeout=self.config.handshake_timeout
            )
        except TimeoutError:
            self._handshake.cancel()  # nobody waits for it any more
            await self.close()
            raise HandshakeTimeout(
                f"{self.transport.name}: no HELLO from a {self.KIND.value} within "
                f"{self.config.handshake_timeout} s (is the device connected and powered?)"
            ) from None
        except DriverError:
            await self.close()
            raise

    async def close(self) -> None:
        """Stop reconnecting, close the transport; the iterator ends after a LinkDown."""
        if self._closed:
            return
        self._closed = True
        self._closing.set()
        if self._handshake is not None and not self._handshake.done():
            self._handshake.set_exception(self._closed_while_opening())  # open() ends now
        if self._reconnect_task is not None:
            await self._reconnect_task  # ends at once, or after an open attempt under way
        if self._timer is not None:
            self._timer.cancel()
        self._session.send_due_ack(self._now())  # acknowledged events: tell the device
        output = self._session.take_output()
        if output and self._io is not None:
            self._io.write(output)
        await self._stop_io()  # writes what was queued first
        await asyncio.to_thread(self.transport.close)
        self._session.close(None if self._failure is None else f"stopped: {self._failure}")
        self._flush()
        self._end()

    def set_indicator(self, bonus_lamp: bool = False, seat_lamps: Iterable[int] = ()) -> None:
        """Light the bonus-card lamp and the given seats' lamps (all others off).

        Kept by the driver and re-sent until the device reports it, and after every HELLO.
        """
        self._session.set_indicator(bonus_lamp, seat_lamps, self._now())
        self._flush()

    def acknowledge(self, event: DeviceEvent) -> None:
        """With link setting ``ack_on="commit"``: ``event`` (a device event this driver
        delivered) and every earlier one of the same device boot are durable; the device
        may forget them. The ACK goes out in the event loop's next turn (acknowledgements
        made in one turn share it). Raises DriverError for an event of a previous boot of
        the device or one this driver did not deliver, or with ``ack_on="delivery"``."""
        self._session.acknowledge(event, self._now())
        self._flush()

    # --- inside ---------------------------------------------------------------------------

    def _taken(self, event: Event) -> Event:
        if not isinstance(event, LinkUp | LinkDown):
            self._session.taken(self._now())  # room again: held-back events may follow
            self._flush()
        return event

    def _closed_while_opening(self) -> DriverError:
        return DriverError(f"{self.transport.name} was closed while opening")

    def _now(self) -> float:
        return self._loop.time() if self._loop is not None else 0.0

    def _start_io(self) -> None:
        assert self._loop is not None
        self._io = LinkIO(self.transport, self._loop, self._on_data, self._on_lost)
        self._io.start()
        self._session.connection_made(self._now())
        self._flush()

    async def _stop_io(self) -> None:
        io, self._io = self._io, None
        if io is not None:
            await io.stop()

    def _on_data(self, data: bytes) -> None:
        try:
            self._session.receive(data, self._now())
        except DriverError as error:
            self._fail(error)
            return
        self._flush()

    def _on_lost(self, error: ConnectionLost) -> None:
        if self._closed:
            return
        self._session.connection_lost(str(error), self._now())
        self._flush()
        self._reconnect_task = asyncio.ensure_future(self._reconnect())

    def _on_timer(self) -> None:
        self._timer = None
        self._session.poll(self._now())
        self._flush()

    def _flush(self) -> None:
        """Write what the session wants sent, deliver its events, re-arm its timer."""
        output = self._session.take_output()
        if output and self._io is not None:
            self._io.write(output)
        for event in self._session.take_events():
            self._deliver(event)
            if isinstance(event, LinkUp) and self._handshake and not self._handshake.done():
                self._handshake.set_result(None)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        deadline = self._session.next_deadline()
        if deadline is not None and self._loop is not None and not self._closed:
            self._timer = self._loop.call_at(deadline, self._on_timer)

    def _fail(self, error: DriverError) -> None:
        """A fatal error (wrong protocol version or device): stop and report it."""
        if self._failure is not None:
            return
        self._failure = error
        if self._handshake is not None and not self._handshake.done():
            self._handshake.set_exception(error)
        else:
            self._fail_close = asyncio.ensure_future(self.close())

    async def _reconnect(self) -> None:
        """Reopen the transport with exponential backoff until it works or we close."""
        await self._stop_io()
        await asyncio.to_thread(self.transport.close)
        delay = self.config.backoff_initial
        while not self._closed:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), delay)
            if self._closed:
                return
            try:
                await asyncio.to_thread(self.transport.open)
            except TransportError as error:
                self.last_error = error
                delay = min(delay * 2, self.config.backoff_max)
                continue
            except Exception as error:  # not a port problem: stop loudly, never stay down silently
                self._fail(DriverError(f"{self.transport.name}: reopening failed: {error!r}"))
                return
            if self._closed:  # closed while this attempt was opening the port
                await asyncio.to_thread(self.transport.close)
                return
            self._start_io()
            return


class ShoeDriver(DeviceDriver):
    """The card shoe: CardRead, CardUnreadable, DeckLoaded, DeviceFault(Cleared), link events."""

    KIND = DeviceKind.SHOE


class SeatBoardDriver(DeviceDriver):
    """The seat-sensor board: SeatOccupied, SeatVacated, CardAtSeat, faults, link events."""

    KIND = DeviceKind.SEAT_BOARD
