"""The host side of the link protocol, sans-IO: bytes and a clock in, events and bytes out.

:class:`HostSession` implements docs/protocol.md for one device, with no threads, sockets
or clock of its own (the asyncio driver in :mod:`drivers.device` feeds it):

- framing and decoding through :mod:`drivers.protocol`; a corrupted frame is dropped whole;
- in-order, exactly-once delivery of sequenced events: a duplicate is dropped (and
  acknowledged again), a gap is answered with ``RESEND`` from the first missing number
  (at most once per ``resend_holdoff`` for the same number, and again when the holdoff
  ends with the gap still open), every delivery is ``ACK``-ed;
- link state: up on ``HELLO`` (the first contact, a reconnection, or a restarted device:
  ``boot_id`` changed), down after ``silence_timeout`` without a valid frame, on the loss of
  the transport, or when a restarted device says ``HELLO`` while up (a ``HELLO`` of the
  same boot while up only resynchronises: nothing is lost, the link stays up); a restart
  shorter than the silence timeout whose HELLO was lost is found without it: a STATUS
  numbering behind the events received takes the link down and RESET asks for the HELLO, and
  duplicates of acknowledged events still coming a silence timeout after the first (a device
  busy resending, with no STATUS between its rounds) ask for it too;
- heartbeats: ``STATUS_REQUEST`` whenever the host has sent nothing for
  ``heartbeat_interval``; ``RESET`` (which makes the device say ``HELLO``) on every new
  connection and every ``reset_interval`` while the link is down;
- the indicator lamps: the host's wish is re-sent after every ``HELLO`` and whenever a
  ``STATUS`` shows the device's lamps differ from it;
- acknowledgement: with ``ack_on="delivery"`` every event is ``ACK``-ed as it is delivered;
  with ``ack_on="commit"`` none is until the owner calls :meth:`HostSession.acknowledge`
  (after making it durable): the device keeps the others, and a restarted host gets them
  again;
- back-pressure, when the owner gives a ``queue_limit`` and reports every event its consumer
  takes (:meth:`HostSession.taken`): at most that many delivered events wait (not yet taken,
  or with ``ack_on="commit"`` not yet acknowledged); beyond that, the next event is left
  unacknowledged in the device's buffer (which, once full, holds the dealer's action) and
  asked for again with ``RESEND`` once none waits;
- pacing, when the line's ``baudrate`` is known: the same ``RESEND`` is not repeated before
  the device can have sent the go-back-N round it asked for (the events from the missing
  one to the device's last known ``next_seq``, at the longest event frame's wire time),
  unless the device is seen to start a new round (an event number lower than the one
  before it) without the missing event: then it is asked for again at once.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from drivers import events as ev
from drivers.errors import DriverError, ProtocolVersionError, WrongDeviceError
from drivers.protocol import (
    MESSAGE_CLASSES,
    VERSIONS,
    Ack,
    CardMessage,
    Deck,
    DeckCardMessage,
    DecodeError,
    DeviceKind,
    ErrorCode,
    Fault,
    FaultCleared,
    FrameDecoder,
    Hello,
    Indicator,
    Message,
    Resend,
    Reset,
    SeatCard,
    SeatOccupied,
    Status,
    StatusRequest,
    Unreadable,
    cobs_decode,
    encode_frame,
    seq_add,
    seq_distance,
)
from drivers.protocol.codec import CRC, HEADER

DEFAULT_DEVICE_HEARTBEAT = 1.0  # seconds, until a HELLO announces the device's own
ACK_ON = ("delivery", "commit")
BITS_PER_BYTE = 10  # 8N1: start bit, 8 data bits, stop bit
HELLO_BODY = HEADER.size + Hello.LAYOUT.size + CRC.size  # its payload layout is frozen
TRACE_LENGTH = 128  # frames in and out the session remembers (HostSession.trace)


def max_event_frame(version: int) -> int:
    """The longest event frame on the wire in protocol ``version`` (24 bytes in version 1, a
    CARD; 26 in version 2, a DECK_CARD): header, payload and CRC, one COBS code byte (a body
    is shorter than 254 bytes) and the delimiter."""
    payload = max(
        m.layout(version).size for m in MESSAGE_CLASSES if m.SEQUENCED and version >= m.SINCE
    )
    return HEADER.size + payload + CRC.size + 2


@dataclass(frozen=True)
class LinkConfig:
    """Link timing (seconds) and the consumer's queue limit (events).
    ``LinkConfig.from_mapping`` reads it from configuration.

    ``heartbeat_interval`` (how often the host sends at least a STATUS_REQUEST) defaults to
    half the device's heartbeat, ``silence_timeout`` (link down) to three device heartbeats,
    both as announced in its HELLO (docs/protocol.md section 6).
    """

    heartbeat_interval: float | None = None
    silence_timeout: float | None = None
    resend_holdoff: float = 0.05
    reset_interval: float = 0.5
    handshake_timeout: float = 3.0
    backoff_initial: float = 0.1
    backoff_max: float = 5.0
    queue_limit: int = 1024  # events delivered but not yet taken (or acknowledged), at most
    ack_on: str = "delivery"  # or "commit": the application acknowledges each event

    def __post_init__(self) -> None:
        if self.ack_on not in ACK_ON:
            allowed = ", ".join(repr(value) for value in ACK_ON)
            raise DriverError(f"link setting ack_on must be one of {allowed}, not {self.ack_on!r}")
        if isinstance(self.queue_limit, bool) or not isinstance(self.queue_limit, int):
            raise DriverError(
                f"link setting queue_limit must be a whole number, not {self.queue_limit!r}"
            )
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "ack_on" or (
                value is None and f.name in ("heartbeat_interval", "silence_timeout")
            ):
                continue
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise DriverError(f"link setting {f.name} must be a positive number, not {value!r}")
        if (
            self.silence_timeout is not None
            and self.heartbeat_interval is not None
            and self.silence_timeout <= self.heartbeat_interval
        ):
            raise DriverError(
                f"link setting silence_timeout ({self.silence_timeout}) must be longer than "
                f"heartbeat_interval ({self.heartbeat_interval})"
            )
        if self.backoff_max < self.backoff_initial:
            raise DriverError("link setting backoff_max must be at least backoff_initial")

    @classmethod
    def from_mapping(cls, settings: Mapping[str, Any]) -> LinkConfig:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(settings) - known)
        if unknown:
            raise DriverError(
                f"unknown link setting(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        return cls(**settings)


@dataclass
class LinkStats:
    """Counters of what the session saw, for tests, logs and the benchmark."""

    frames: int = 0
    delivered: int = 0
    duplicates: int = 0
    gaps: int = 0
    resends_sent: int = 0
    held: int = 0  # events left with the device because the consumer's queue was full
    decode_errors: Counter[str] = field(default_factory=Counter)


#: The driver's event of each device message that carries the same fields, in order.
_SAME_FIELDS: Mapping[type[Message], Callable[..., ev.DeviceEvent]] = {
    CardMessage: ev.CardRead,
    Unreadable: ev.CardUnreadable,
    DeckCardMessage: ev.DeckCard,
    Fault: ev.DeviceFault,
    FaultCleared: ev.DeviceFaultCleared,
    SeatCard: ev.CardAtSeat,
}


def device_event(seq: int, message: Message, origin: ev.Origin, version: int) -> ev.DeviceEvent:
    """The driver's event for a device's message; ``version``: the device's protocol version
    (a shoe of version 2 registers each deck card by card before its DECK)."""
    same = _SAME_FIELDS.get(type(message))
    if same is not None:
        values = [getattr(message, spec.name) for spec in fields(message)]
        return same(seq, *values, origin=origin)
    match message:
        case Deck(deck_id=deck_id, cards_loaded=loaded, cards_remaining=remaining):
            registered = version >= DeckCardMessage.SINCE
            return ev.DeckLoaded(seq, deck_id, loaded, remaining, registered, origin=origin)
        case SeatOccupied(seat=seat, occupied=True):
            return ev.SeatOccupied(seq, seat, origin=origin)
        case SeatOccupied(seat=seat):
            return ev.SeatVacated(seq, seat, origin=origin)
    raise AssertionError(f"{message.NAME} is not a sequenced device event")


class HostSession:
    """One device's link, sans-IO. Drain :meth:`take_events` and :meth:`take_output` after
    every call; call :meth:`poll` at :meth:`next_deadline`.

    ``baudrate``: the line's speed, when known (serial ports), to pace RESENDs.
    """

    def __init__(
        self,
        port: str,
        kind: DeviceKind,
        config: LinkConfig | None = None,
        clock_start: float = 0.0,
        queue_limit: int | None = None,
        *,
        baudrate: int | None = None,
    ) -> None:
        self.port = port
        self.queue_limit = queue_limit
        self.baudrate = baudrate
        self.kind = kind
        self.config = config or LinkConfig()
        self.stats = LinkStats()
        self.device: ev.DeviceInfo | None = None
        self.status: Status | None = None
        self.up = False
        self.connected = False
        self._decoder = FrameDecoder()
        self._expected: int | None = None  # the next event to deliver
        self._acked: int | None = None  # the last event acknowledged to the device (cumulative)
        self._device_next: int | None = None  # the device's next_seq, as far as we know
        self._boot_id: int | None = None
        self._origin: ev.Origin | None = None  # tag of the events of the current boot
        self._indicator: Indicator | None = None
        self._events: list[ev.Event] = []
        self._output: list[bytes] = []
        self._last_rx = clock_start
        self._last_tx = clock_start
        self._last_reset = -float("inf")
        self._last_resend: tuple[int, float] | None = None
        self._resend_recheck: float | None = None
        self._last_seq: int | None = None  # of the last event frame received
        self._last_indicator = -float("inf")
        self._ack_due: float | None = None  # when an ACK became due
        self._device_heartbeat = DEFAULT_DEVICE_HEARTBEAT
        self._other_version: int | None = None  # of the last frame, if it had another version
        self._version = min(VERSIONS)  # the device's (its HELLO's); the oldest before one
        self._backlog = 0  # delivered device events the consumer has not taken yet
        self._holding = False  # an event was left with the device: RESEND once drained
        self._stale_since: float | None = None  # the first duplicate of an acknowledged event
        #: The last TRACE_LENGTH frames, oldest first: (time, "<" from the device or ">" to
        #: it, message name, seq: the event's, or for ACK, RESEND and STATUS the number they
        #: carry), for a failure's report; a tuple per frame, cheap enough to stay on.
        self.trace: deque[tuple[float, str, str, int]] = deque(maxlen=TRACE_LENGTH)

    # --- what the I/O shell calls ---------------------------------------------------------

    def connection_made(self, now: float) -> None:
        """A transport (re)opened: forget partial frames and ask the device for HELLO."""
        self.connected = True
        self._decoder.reset()
        self._last_rx = now
        self._send_reset(now)

    def connection_lost(self, detail: str, now: float) -> None:
        """The transport failed (or was closed for a reconnect)."""
        self.connected = False
        self._decoder.reset()
        self._output.clear()
        self._link_down(ev.LinkDownReason.CONNECTION_LOST, detail)

    def close(self, detail: str | None = None) -> None:
        """The host is closing the driver (``detail``: why, when not on request)."""
        self.connected = False
        self._output.clear()
        self._link_down(ev.LinkDownReason.CLOSED, detail or f"{self.port} closed by the host")

    def receive(self, data: bytes, now: float) -> None:
        """Bytes from the device. Raises ProtocolVersionError / WrongDeviceError (fatal)."""
        for item in self._decoder.feed(data):
            if isinstance(item, DecodeError):
                self._decode_error(item)
            else:
                self.stats.frames += 1
                self._last_rx = now
                self._other_version = None
                self.trace.append((now, "<", item.message.NAME, _number(item.seq, item.message)))
                self._frame(item.seq, item.message, now)
        self.send_due_ack(now)

    def poll(self, now: float) -> None:
        """Run the timers that are due."""
        if not self.connected:
            return
        self.send_due_ack(now)
        if self.up and now - self._last_rx >= self.silence_timeout:
            self._link_down(
                ev.LinkDownReason.SILENCE,
                f"nothing received from {self.port} for {now - self._last_rx:.2f} s",
            )
        if not self.up and now - self._last_reset >= self.config.reset_interval:
            self._send_reset(now)
        if self._resend_recheck is not None and now >= self._resend_recheck:
            self._request_resend(now, recheck=True)  # the gap is still open after the holdoff
        if now - self._last_tx >= self.heartbeat_interval:
            self._send(StatusRequest(), now)

    def next_deadline(self) -> float | None:
        if not self.connected:
            return None
        deadline = self._last_tx + self.heartbeat_interval
        if self._ack_due is not None:
            deadline = min(deadline, self._ack_due)
        if self.up:
            deadline = min(deadline, self._last_rx + self.silence_timeout)
            if self._resend_recheck is not None:
                deadline = min(deadline, self._resend_recheck)
        else:
            deadline = min(deadline, self._last_reset + self.config.reset_interval)
        return deadline

    @property
    def heartbeat_interval(self) -> float:
        if self.config.heartbeat_interval is not None:
            return self.config.heartbeat_interval
        return self._device_heartbeat / 2

    @property
    def silence_timeout(self) -> float:
        if self.config.silence_timeout is not None:
            return self.config.silence_timeout
        return self._device_heartbeat * 3

    def set_indicator(self, bonus_lamp: bool, seat_lamps: Iterable[int], now: float) -> None:
        """Light the lamps; kept and re-sent until the device's STATUS shows them."""
        self._indicator = Indicator(bonus_lamp, frozenset(seat_lamps))
        if self.up:
            self._send_indicator(now)

    def taken(self, now: float) -> None:
        """The consumer took one delivered device event. Once none waits, the events held
        back for want of room are asked for again."""
        self._backlog -= 1
        self._make_room(now)

    def acknowledge(self, event: ev.DeviceEvent, now: float) -> None:
        """With ``ack_on="commit"``: the application has made ``event`` durable, and every
        earlier event of the same boot. The ACK goes at the next :meth:`poll` (due now), so
        that several acknowledgements in a row make one ACK. Acknowledging an event already
        covered changes nothing; raises DriverError for an event this session did not
        deliver or one of a previous boot of the device."""
        if self.config.ack_on != "commit":
            raise DriverError(
                f"{self.port}: acknowledge() needs link setting ack_on='commit'; "
                "with ack_on='delivery' every event is acknowledged as it is delivered"
            )
        origin = getattr(event, "origin", None)
        if not isinstance(origin, ev.Origin) or origin.owner is not self:
            raise DriverError(
                f"{self.port}: cannot acknowledge {event!r}: this driver did not deliver it"
            )
        if origin is not self._origin:
            raise DriverError(
                f"{self.port}: cannot acknowledge event {event.seq} of boot "
                f"{origin.device.boot_id} of {origin.device.serial}: the device restarted since "
                f"(now boot {self._boot_id}) and no longer holds it"
            )
        assert self._acked is not None
        if seq_distance(self._acked, event.seq) <= 0:
            return  # covered already
        self._acked = event.seq
        self._ack_soon(now)
        self._make_room(now)

    def state(self, now: float) -> dict[str, object]:
        """What the session holds at ``now``, for a failure's report: the link, the numbers
        it keeps, its timers (seconds ago or ahead), its counters and its :attr:`trace`
        (each frame's time as seconds ago)."""

        def since(then: float | None) -> float | None:
            return None if then is None or then == -float("inf") else round(now - then, 3)

        resend = self._last_resend
        return {
            "up": self.up,
            "connected": self.connected,
            "boot_id": self._boot_id,
            "expected": self._expected,
            "acked": self._acked,
            "device_next": self._device_next,
            "last_seq": self._last_seq,
            "waiting": self.waiting,
            "holding": self._holding,
            "stale_since": since(self._stale_since),
            "rx_ago": since(self._last_rx),
            "tx_ago": since(self._last_tx),
            "reset_ago": since(self._last_reset),
            "last_resend": None if resend is None else (resend[0], since(resend[1])),
            "resend_recheck_in": None
            if self._resend_recheck is None
            else round(self._resend_recheck - now, 3),
            "ack_due": self._ack_due is not None,
            "next_deadline_in": None if (d := self.next_deadline()) is None else round(d - now, 3),
            "stats": {k: v for k, v in vars(self.stats).items() if k != "decode_errors"}
            | {"decode_errors": dict(self.stats.decode_errors)},
            "frames": [(since(at), way, name, n) for at, way, name, n in self.trace],
        }

    def take_events(self) -> list[ev.Event]:
        events, self._events = self._events, []
        return events

    def take_output(self) -> bytes:
        output = b"".join(self._output)
        self._output.clear()
        return output

    # --- inside ---------------------------------------------------------------------------

    def _send(self, message: Message, now: float) -> None:
        if self.connected:
            self._output.append(encode_frame(0, message, self._version))
            self._last_tx = now
            self.trace.append((now, ">", message.NAME, _number(0, message)))

    def send_due_ack(self, now: float) -> None:
        """Send the ACK that is due, if any (before closing, say)."""
        if self._ack_due is not None and self._acked is not None:
            self._ack_due = None
            self._send(Ack(self._acked), now)

    def _ack_soon(self, now: float) -> None:
        if self._ack_due is None:
            self._ack_due = now

    @property
    def waiting(self) -> int:
        """Delivered events the consumer has not taken or, with ``ack_on="commit"``, the
        application has not acknowledged."""
        if self.config.ack_on == "commit" and self._expected is not None:
            assert self._acked is not None
            return seq_distance(self._acked, self._expected) - 1
        return self._backlog

    def _make_room(self, now: float) -> None:
        if self._holding and self.waiting == 0:
            self._holding = False
            if self.up:
                self._request_resend(now, recheck=True)

    def _resend_pacing(self) -> float:
        """How long to wait before asking for the same RESEND again: the holdoff, plus on a
        line of known speed the wire time of the round the device was asked for."""
        holdoff = self.config.resend_holdoff
        if self.baudrate is None or self._expected is None or self._device_next is None:
            return holdoff
        frames = max(1, seq_distance(self._expected, self._device_next))
        return holdoff + frames * max_event_frame(self._version) * BITS_PER_BYTE / self.baudrate

    def _saw_next_seq(self, next_seq: int) -> None:
        """The device has numbered every event before ``next_seq``."""
        if self._device_next is None or seq_distance(self._device_next, next_seq) > 0:
            self._device_next = next_seq

    def _send_reset(self, now: float) -> None:
        self._last_reset = now
        self._send(Reset(), now)

    def _send_indicator(self, now: float) -> None:
        if self._indicator is not None:
            self._last_indicator = now
            self._send(self._indicator, now)

    def _request_resend(self, now: float, *, recheck: bool = False) -> None:
        assert self._expected is not None
        if self._last_resend is not None and not recheck:
            seq, sent = self._last_resend
            pacing = self._resend_pacing()
            if seq == self._expected and now - sent < pacing:
                self._resend_recheck = sent + pacing
                return
        self._resend_recheck = None
        self._last_resend = (self._expected, now)
        self.stats.resends_sent += 1
        self._send(Resend(self._expected), now)

    def _link_down(self, reason: ev.LinkDownReason, detail: str) -> None:
        if self.up:
            self.up = False
            self._events.append(ev.LinkDown(reason, detail))

    def _decode_error(self, error: DecodeError) -> None:
        self.stats.decode_errors[error.code.value] += 1
        if error.code is not ErrorCode.VERSION or error.version is None:
            self._other_version = None  # frames "in a row" are consecutive frames
            return
        # A HELLO (its layout is frozen) of another version, or two consecutive frames of
        # the same other version, is a device of that version. Any other frame of another
        # version is line noise that slipped past the CRC: dropped, not fatal.
        if _is_hello(error) or error.version == self._other_version:
            raise ProtocolVersionError(self.port, error.version, VERSIONS)
        self._other_version = error.version

    def _frame(self, seq: int, message: Message, now: float) -> None:
        handler = self._HANDLERS.get(type(message))
        if handler is not None:
            handler(self, message, now)
        elif message.SEQUENCED and message.FROM_DEVICE:
            self._event(seq, message, now)
        # a host-to-device message echoed back (loop:// or a miswired port) is ignored

    def _hello(self, hello: Hello, now: float) -> None:
        self._stale_since = None
        if hello.device_kind != self.kind:
            raise WrongDeviceError(self.port, self.kind, hello.device_kind, hello.serial)
        self._version = hello.protocol_version  # what it reads, and how its frames are laid
        device = ev.DeviceInfo(
            kind=hello.device_kind,
            serial=hello.serial,
            boot_id=hello.boot_id,
            port=self.port,
            firmware=hello.firmware,
            protocol_version=hello.protocol_version,
        )
        if hello.boot_id == self._boot_id:
            self._resume(hello, device, now)
        else:
            self._new_boot(hello, device, now)

    def _new_boot(self, hello: Hello, device: ev.DeviceInfo, now: float) -> None:
        """The first HELLO, or one with a new boot id: the device restarted."""
        first = hello.first_unacked
        previous = self._boot_id
        lost: list[ev.LostEvents] = []
        if previous is None:
            reason = f"HELLO from {device}: {hello.pending} event(s) pending"
        else:
            assert self._expected is not None and self._device_next is not None
            missed = seq_distance(self._expected, self._device_next)
            if missed > 0:  # numbered by the old boot (its last STATUS said so), never received
                lost.append(ev.LostEvents(previous, self._expected, missed))
            earlier = seq_distance(0, first)
            if earlier > 0:  # a device numbers from 0 at power-up: these it no longer holds
                lost.append(ev.LostEvents(hello.boot_id, 0, earlier))
            what = "; ".join(map(str, lost)) if lost else "no lost event is known"
            reason = (
                f"HELLO from {device}: the device restarted (boot id {previous} -> "
                f"{hello.boot_id}): {what}; resuming at event {first}"
            )
        self._link_down(ev.LinkDownReason.DEVICE_RESTARTED, reason)
        self._boot_id = hello.boot_id
        self._origin = ev.Origin(self, device.id)
        self._device_next = hello.next_seq
        self._start_at(first)
        self._link_up(ev.LinkUp(device, reason, previous, tuple(lost)), hello, now)

    def _resume(self, hello: Hello, device: ev.DeviceInfo, now: float) -> None:
        """A HELLO of the same boot: a reconnection, an answer to RESET, or a glitch."""
        assert self._expected is not None
        self._saw_next_seq(hello.next_seq)
        behind = seq_distance(self._expected, hello.first_unacked)
        if behind > 0:  # acknowledged by someone else: the device no longer holds them
            lost = ev.LostEvents(hello.boot_id, self._expected, behind)
            reason = f"HELLO from {device}: {lost}: the device no longer holds them"
            self._link_down(ev.LinkDownReason.DEVICE_RESTARTED, reason)
            self._start_at(hello.first_unacked)
            self._link_up(ev.LinkUp(device, reason, lost=(lost,)), hello, now)
            return
        if behind < 0:
            self._ack_soon(now)  # it still holds events we have acknowledged: let it drop them
        if self.up:
            self._send_indicator(now)  # our RESET answered, or a glitch: nothing lost
            return
        reason = f"HELLO from {device}: resuming at event {self._expected}"
        self._link_up(ev.LinkUp(device, reason), hello, now)

    def _start_at(self, first: int) -> None:
        self._expected = first
        self._acked = seq_add(first, -1)  # the device's own view: everything before is done

    def _link_up(self, up: ev.LinkUp, hello: Hello, now: float) -> None:
        up = replace(up, next_seq=hello.next_seq, pending=hello.pending)
        self._device_heartbeat = hello.heartbeat_ms / 1000
        self.device = up.device
        self.up = True
        self._last_resend = None
        self._resend_recheck = None
        self._last_seq = None
        self._events.append(up)
        self._send_indicator(now)

    def _status(self, status: Status, now: float) -> None:
        self.status = status
        if not self.up:
            self._send_reset_soon(now)
            return
        assert self._expected is not None
        if seq_distance(self._expected, status.next_seq) < 0:
            self._restarted_unheard(status.next_seq, now)
            return
        self._saw_next_seq(status.next_seq)
        if seq_distance(self._expected, status.next_seq) > 0 and not self._holding:
            self.stats.gaps += 1
            self._request_resend(now)
        wish = self._indicator
        if (
            wish is not None
            and (status.bonus_lamp, status.seat_lamps) != (wish.bonus_lamp, wish.seat_lamps)
            and now - self._last_indicator >= self.config.resend_holdoff
        ):
            self._send_indicator(now)

    def _restarted_unheard(self, next_seq: int, now: float) -> None:
        """The device numbers its events only up to ``next_seq``, behind events already
        delivered: one boot never numbers backwards, so it restarted and its HELLO was lost
        (a power cycle shorter than the silence timeout). Down goes the link, so that
        nothing of the new boot is delivered or acknowledged as the old one's, and RESET
        asks for its HELLO, which says what was lost."""
        self._link_down(
            ev.LinkDownReason.DEVICE_RESTARTED,
            f"{self.port}: the device numbers its events up to {next_seq}, behind event "
            f"{self._expected} already received: it restarted and its HELLO was lost",
        )
        self._send_reset(now)

    def _stale_duplicate(self, seq: int, now: float) -> None:
        """A duplicate of an event acknowledged already: the device should have dropped it.
        Some come while the ACK travels; still coming a silence timeout after the first of
        them, with nothing delivered meanwhile, they mean that the device does not take the
        ACKs: its HELLO after a restart was lost (and, busy resending, it sends no STATUS to
        show it), or the ACKs are lost. RESET asks for its HELLO, which tells which."""
        assert self._acked is not None
        if seq_distance(seq, self._acked) < 0:
            return  # received but not yet acknowledged: the device rightly keeps it
        if self._stale_since is None:
            self._stale_since = now
        elif now - self._stale_since >= self.silence_timeout:
            self._stale_since = now
            self._send_reset(now)

    def _send_reset_soon(self, now: float) -> None:
        """A device talks while the link is down (its HELLO was lost): ask for another."""
        if now - self._last_reset >= self.config.resend_holdoff:
            self._send_reset(now)

    def _event(self, seq: int, message: Message, now: float) -> None:
        if not self.up:
            self._send_reset_soon(now)
            return
        assert self._expected is not None and self._origin is not None
        distance = seq_distance(self._expected, seq)
        if distance < 0:
            self.stats.duplicates += 1
            self._ack_soon(now)  # up to what is acknowledged already
            self._stale_duplicate(seq, now)
            return
        self._saw_next_seq(seq_add(seq, 1))
        new_round = self._last_seq is not None and seq_distance(seq, self._last_seq) > 0
        self._last_seq = seq
        if self._holding or (self.queue_limit is not None and self.waiting >= self.queue_limit):
            self._holding = True  # no room: the device keeps it and sends it again
            self.stats.held += 1
        elif distance > 0:
            self.stats.gaps += 1
            self._request_resend(now, recheck=new_round)  # a new round that lacks it: at once
        else:
            self._expected = seq_add(seq, 1)
            self._resend_recheck = None  # events flow again; a new gap asks anew
            self._stale_since = None
            self.stats.delivered += 1
            self._backlog += 1
            if self.config.ack_on == "delivery":
                self._acked = seq
                self._ack_soon(now)
            self._events.append(device_event(seq, message, self._origin, self._version))

    _HANDLERS: Mapping[type[Message], Callable[[HostSession, Any, float], None]] = {
        Hello: _hello,
        Status: _status,
    }


def _number(seq: int, message: Message) -> int:
    """The number a frame carries, for the trace: an event's seq, the seq an ACK or RESEND
    names, the ``next_seq`` a HELLO or STATUS reports; 0 for the others."""
    match message:
        case Ack(seq=number) | Resend(seq=number) | Hello(next_seq=number):
            return number
        case Status(next_seq=number):
            return number
    return seq


def _is_hello(error: DecodeError) -> bool:
    """Whether a frame of another version is that version's HELLO: its type, and the length
    and version field of the frozen HELLO layout (not any frame with a stray type byte)."""
    if error.msg_type != Hello.TYPE:
        return False
    body = cobs_decode(error.raw)  # well formed: its CRC matched
    return len(body) == HELLO_BODY and body[HEADER.size] == error.version
