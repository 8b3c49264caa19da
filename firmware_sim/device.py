"""The sans-IO core shared by the simulated shoe and seat board.

No sockets, no clock: a transport hands over the bytes from the host with
``receive(data, now)``, asks for the bytes due to the host with
``transmit(now)`` and calls ``transmit`` again at ``next_deadline()`` (or
sooner, after any control action). ``now`` is in seconds on any monotonic
clock. The device follows docs/protocol.md: events are buffered until
acknowledged, retransmitted (go-back-N) on RESEND and on timeout, heartbeats
are sent when idle, and HELLO plus every pending event follow each connection.

With a ``baud`` rate the device puts a frame on the line only when its transmit
buffer (``TX_BUFFER`` bytes, as a UART's FIFO) has room, so what it has not yet
started to send can still be changed: a RESEND or RESET restarts the one
go-back-N round instead of queueing another behind it.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass
from enum import StrEnum
from itertools import islice
from typing import ClassVar, TypeVar

from drivers.protocol import (
    PROTOCOL_VERSION,
    VERSIONS,
    Ack,
    DecodeError,
    DeviceKind,
    Fault,
    FaultCleared,
    FaultCode,
    FrameDecoder,
    Hello,
    Indicator,
    Message,
    MessageError,
    Resend,
    Reset,
    Status,
    StatusRequest,
    WireEnum,
    encode_frame,
    seq_add,
    seq_distance,
)
from firmware_sim.faults import FaultInjector
from luck_errors import LuckTableError

W = TypeVar("W", bound=WireEnum)
HOST_SILENCE_HEARTBEATS = 3  # lamps go off after this many silent heartbeat intervals
TX_BUFFER = 64  # bytes the transmitter holds ahead of the line (with a baud rate)


class Cannot(StrEnum):
    """Why the simulated device refuses a control action, as data (``DeviceError.code``, the
    code of the control channel's ``error`` reply: docs/simulator.md); the words say it for
    the person at the control channel."""

    BAD_VALUE = "bad_value"  # a setting or an argument out of its range, or not of its kind
    UNKNOWN_NAME = "unknown_name"  # not one of the names known (a fault, a cheat, ...)
    BUFFER_FULL = "buffer_full"  # no room for the action's events until the host acks
    NO_SUCH_FAULT = "no_such_fault"  # this kind of device has no such fault
    ALREADY_ACTIVE = "already_active"  # the fault is active already
    NOT_ACTIVE = "not_active"  # the fault is not active
    ALREADY_OCCUPIED = "already_occupied"  # a seat
    ALREADY_VACANT = "already_vacant"
    EMPTY = "empty"  # the shoe holds no card
    JAMMED = "jammed"  # the shoe is jammed
    LID_OPEN = "lid_open"  # the shoe's lid is open
    NOT_SETTLED = "not_settled"  # events not yet acknowledged, or the cable out (``settled``)
    # the control channel: a line it cannot read (no such command, an argument missing or
    # unexpected, a word not of its form)
    BAD_COMMAND = "bad_command"


class DeviceError(LuckTableError, ValueError):
    """A control action the device cannot perform now (``code``: why); nothing was
    changed."""

    def __init__(self, message: str, code: Cannot = Cannot.BAD_VALUE) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class DeviceStats:
    """Counters for tests and the control channel."""

    connections: int = 0  # times the link was (re)established
    frames_sent: int = 0  # frames handed to the wire, before wire faults
    retransmissions: int = 0  # event frames sent again
    heartbeats: int = 0  # STATUS frames sent because the device was idle
    frames_received: int = 0  # valid frames from the host
    receive_errors: int = 0  # frames from the host dropped by the decoder
    ignored: int = 0  # valid frames that a device does not act on


@dataclass
class _Pending:
    seq: int
    message: Message
    sent_at: float | None = None
    acked: bool = False


_Control = type[Hello] | type[Status]


class SimulatedDevice:
    """Base of :class:`SimulatedShoe` and :class:`SimulatedSeatBoard`."""

    KIND: ClassVar[DeviceKind]
    FAULT_CODES: ClassVar[frozenset[FaultCode]]

    def __init__(
        self,
        *,
        serial: str,
        seed: int = 0,
        firmware: tuple[int, int, int] = (1, 0, 0),
        heartbeat_ms: int = 1000,
        retransmit_timeout: float = 0.5,
        buffer_size: int = 1024,
        first_seq: int = 0,
        boot_id: int | None = None,
        protocol_version: int = PROTOCOL_VERSION,
        baud: int | None = None,
    ) -> None:
        if not 1 <= buffer_size <= 0x7FFF:
            raise DeviceError(f"buffer_size must be 1..32767, not {buffer_size}")
        if baud is not None and baud <= 0:
            raise DeviceError(f"baud must be > 0 (or None for an instant line), not {baud}")
        if retransmit_timeout <= 0:
            raise DeviceError(f"retransmit_timeout must be > 0, not {retransmit_timeout}")
        self.rng = random.Random(seed)
        self.faults = FaultInjector(seed=self.rng.getrandbits(32))
        boot = self.rng.getrandbits(32) if boot_id is None else boot_id
        try:  # checks serial, firmware, heartbeat, seq and version once, up front
            Hello(protocol_version, self.KIND, firmware, serial, boot, first_seq, 0, heartbeat_ms)
        except MessageError as exc:
            raise DeviceError(f"cannot configure the device: {exc}") from None
        self.serial = serial
        self.firmware = firmware
        self.heartbeat = heartbeat_ms / 1000
        self.retransmit_timeout = retransmit_timeout
        self.buffer_size = buffer_size
        self.boot_id = boot
        self.protocol_version = protocol_version
        self.baud = baud  # 8N1: 10 bit times per byte
        self.next_seq = first_seq
        self.stats = DeviceStats()
        self.connected = False
        self.bonus_lamp = False
        self.seat_lamps: frozenset[int] = frozenset()
        self.active_faults: set[FaultCode] = set()
        self._pending: deque[_Pending] = deque()
        self._control: deque[_Control] = deque()  # HELLO and STATUS to send, before events
        self._round: deque[_Pending] = deque()  # events to send, in order: new or go-back-N
        self._wire: deque[tuple[float, bytes]] = deque()
        # host frames of every version up to the device's own (they are the same in each)
        self._decoder = FrameDecoder(versions=tuple(v for v in VERSIONS if v <= protocol_version))
        self._now = 0.0
        self._last_sent = 0.0
        self._last_heard = 0.0
        self._reconnect_at: float | None = None
        self._line_free = 0.0  # when the device's transmit line is idle again

    # --- state ----------------------------------------------------------------------------

    @property
    def pending(self) -> int:
        """Events not yet acknowledged."""
        return len(self._pending)

    @property
    def first_unacked(self) -> int:
        return seq_add(self.next_seq, -len(self._pending))

    def pending_events(self) -> list[tuple[int, Message]]:
        return [(p.seq, p.message) for p in self._pending]

    def hello(self) -> Hello:
        return Hello(
            self.protocol_version,
            self.KIND,
            self.firmware,
            self.serial,
            self.boot_id,
            self.next_seq,
            len(self._pending),
            round(self.heartbeat * 1000),
        )

    def status(self) -> Status:
        return Status(
            self.next_seq,
            len(self._pending),
            frozenset(self.active_faults),
            self.bonus_lamp,
            self.seat_lamps,
            self._occupied(),
            self._cards_remaining(),
        )

    def _occupied(self) -> frozenset[int]:
        return frozenset()

    def _cards_remaining(self) -> int:
        return 0

    # --- link -----------------------------------------------------------------------------

    def connect(self, now: float) -> None:
        """The link is (re)established: HELLO, then every unacknowledged event."""
        self._now = now
        self.connected = True
        self.stats.connections += 1
        self._reconnect_at = None
        self._decoder.reset()
        self._wire.clear()
        self._last_heard = now
        self._last_sent = now
        self._say_hello()

    def _say_hello(self) -> None:
        """HELLO, then every pending event from the oldest: one round, replacing any other."""
        self._control = deque([Hello])
        self._round = deque(self._pending)

    def disconnect(self) -> None:
        """The cable is pulled: output stops, bytes in flight are lost, events are kept."""
        self.connected = False
        self._reconnect_at = None
        self._control.clear()
        self._round.clear()
        self._wire.clear()
        self._line_free = 0.0
        self._decoder.reset()

    def unplug(self, now: float, duration: float) -> None:
        """Disconnect now and reconnect by itself ``duration`` seconds later."""
        if duration < 0:
            raise DeviceError(f"an unplug lasts >= 0 seconds, not {duration}")
        self.disconnect()
        self._now = now
        self._reconnect_at = now + duration

    def restart(self, now: float, duration: float = 0.5) -> int:
        """A power cycle: off for ``duration`` seconds, then a new boot id and numbering
        from 0; the events not yet acknowledged (kept in RAM) are lost, their number is
        returned. Lamps and faults start afresh; a shoe keeps its cards."""
        self.unplug(now, duration)
        lost = len(self._pending)
        self._pending.clear()
        self.next_seq = 0
        old = self.boot_id
        while self.boot_id == old:
            self.boot_id = self.rng.getrandbits(32)
        self.active_faults.clear()
        self._set_lamps(False, frozenset())
        return lost

    @property
    def unplugged(self) -> bool:
        """The cable is out until the reconnection ``unplug`` scheduled."""
        return self._reconnect_at is not None

    def receive(self, data: bytes, now: float) -> None:
        """Bytes from the host (ignored while disconnected)."""
        self._now = now
        if not self.connected:
            return
        for item in self._decoder.feed(data):
            if isinstance(item, DecodeError):
                self.stats.receive_errors += 1
                continue
            self.stats.frames_received += 1
            self._last_heard = now
            self._handle(item.message)

    def _handle(self, message: Message) -> None:
        match message:
            case Ack(seq=seq):
                self._acknowledge(seq)
            case Resend(seq=seq):
                self._resend_from(seq)
            case Reset():
                self._set_lamps(False, frozenset())
                self._say_hello()
            case StatusRequest():
                self._control.append(Status)
            case Indicator(bonus_lamp=bonus, seat_lamps=seats):
                self._set_lamps(bonus, seats)
                self._control.append(Status)
            case _:
                self.stats.ignored += 1

    def _acknowledge(self, seq: int) -> None:
        covered = seq_distance(self.first_unacked, seq) + 1
        if not 0 < covered <= len(self._pending):
            return  # stale, repeated, or for an event not sent: changes nothing
        for _ in range(covered):
            self._pending.popleft().acked = True

    def _resend_from(self, seq: int) -> None:
        """Go back to ``seq`` (or the oldest pending event): the round restarts there, in
        place of whatever was still to be sent, so at most one round is ever queued."""
        start = seq_distance(self.first_unacked, seq)
        if start >= len(self._pending):
            return  # nothing sent from there on
        self._round = deque(islice(self._pending, max(start, 0), None))

    def _set_lamps(self, bonus: bool, seats: frozenset[int]) -> None:
        self.bonus_lamp = bonus
        self.seat_lamps = seats

    def transmit(self, now: float) -> bytes:
        """The bytes due to the host at ``now``, after wire faults."""
        self._now = now
        if self._reconnect_at is not None and now >= self._reconnect_at:
            self.connect(now)
        if not self.connected:
            return b""
        if (self.bonus_lamp or self.seat_lamps) and now >= self._lamps_deadline():
            self._set_lamps(False, frozenset())
        retransmit_at = self._retransmit_deadline()
        if retransmit_at is not None and now >= retransmit_at:
            self._round = deque(self._pending)
        if not self._control and not self._round and now >= self._last_sent + self.heartbeat:
            self._control.append(Status)
            self.stats.heartbeats += 1
        self._send_queued(now)
        due = bytearray()
        while self._wire and self._wire[0][0] <= now:
            due += self._wire.popleft()[1]
        return bytes(due)

    def _line_has_room(self, now: float) -> bool:
        """Whether the transmitter takes another frame: always on an instant line, else
        while at most TX_BUFFER bytes wait for the line."""
        return self.baud is None or now >= self._line_free - TX_BUFFER * 10 / self.baud

    def _send_queued(self, now: float) -> None:
        """Control frames first, then the round's events, as far as the line takes them."""
        while (self._control or self._round) and self._line_has_room(now):
            if self._control:
                if self._control.popleft() is Hello:
                    frame = b"\x00" + encode_frame(0, self.hello(), self.protocol_version)
                else:
                    frame = encode_frame(0, self.status(), self.protocol_version)
            else:
                item = self._round.popleft()
                if item.acked:
                    continue
                if item.sent_at is not None:
                    self.stats.retransmissions += 1
                item.sent_at = now
                frame = encode_frame(item.seq, item.message, self.protocol_version)
            self.stats.frames_sent += 1
            self._last_sent = now
            self._put_on_wire(frame, now)

    def _put_on_wire(self, frame: bytes, now: float) -> None:
        """Queue what reaches the host: after the frame's time on the line at ``baud``
        (instant when None) and ``faults.delay``, in order, after the wire faults."""
        start = max(now, self._line_free)
        self._line_free = start + (len(frame) * 10 / self.baud if self.baud else 0.0)
        arrival = self._line_free + self.faults.delay
        if self._wire:
            arrival = max(arrival, self._wire[-1][0])
        self._wire.extend((arrival, copy) for copy in self.faults.on_wire(frame))

    def _retransmit_deadline(self) -> float | None:
        """When the oldest pending event, if sent, is due again: not while a round is still
        being sent, nor before the line has carried what was sent before."""
        if not self._pending or self._pending[0].sent_at is None or self._round:
            return None
        return max(self._pending[0].sent_at + self.retransmit_timeout, self._line_free)

    def _lamps_deadline(self) -> float:
        return self._last_heard + HOST_SILENCE_HEARTBEATS * self.heartbeat

    def next_deadline(self) -> float | None:
        """When ``transmit`` must be called again (None: only after new input)."""
        times: list[float] = []
        if self._reconnect_at is not None:
            times.append(self._reconnect_at)
        if self.connected:
            if self._control or self._round:
                if self.baud is None:
                    return self._now
                times.append(max(self._now, self._line_free - TX_BUFFER * 10 / self.baud))
            times.append(self._last_sent + self.heartbeat)
            retransmit_at = self._retransmit_deadline()
            if retransmit_at is not None:
                times.append(retransmit_at)
            if self.bonus_lamp or self.seat_lamps:
                times.append(self._lamps_deadline())
        if self._wire:
            times.append(self._wire[0][0])
        return min(times, default=None)

    # --- events ---------------------------------------------------------------------------

    def _require_room(self, events: int = 1) -> None:
        """Refuse an action of ``events`` events that the buffer has no room for."""
        if len(self._pending) + events > self.buffer_size:
            raise DeviceError(
                f"event buffer full ({len(self._pending)} unacknowledged events, "
                f"{events} more needed): the device holds the action until the host "
                "acknowledges",
                Cannot.BUFFER_FULL,
            )

    def _emit(self, message: Message) -> int:
        """Buffer a new event (after ``_require_room``) and queue it; returns its seq."""
        entry = _Pending(self.next_seq, message)
        self._pending.append(entry)
        self.next_seq = seq_add(self.next_seq)
        if self.connected:
            self._round.append(entry)
        return entry.seq

    def set_fault(self, code: FaultCode | str, active: bool) -> Message:
        """Raise (``active``) or clear a fault; returns the FAULT or FAULT_CLEARED sent."""
        fault = parse_enum(FaultCode, code, "fault")
        if fault not in self.FAULT_CODES:
            allowed = ", ".join(sorted(c.value for c in self.FAULT_CODES))
            kind = self.KIND.value
            said = f"a {kind} has no {fault.value} fault (it has: {allowed})"
            raise DeviceError(said, Cannot.NO_SUCH_FAULT)
        if (fault in self.active_faults) == active:
            state, why = (
                ("already active", Cannot.ALREADY_ACTIVE)
                if active
                else ("not active", Cannot.NOT_ACTIVE)
            )
            raise DeviceError(f"fault {fault.value} is {state}", why)
        self._require_room()
        message: Message
        if active:
            self.active_faults.add(fault)
            message = Fault(fault)
        else:
            self.active_faults.discard(fault)
            message = FaultCleared(fault)
        self._emit(message)
        return message


S = TypeVar("S", bound=StrEnum)


def parse_enum_text(kind: type[S], value: S | str, what: str) -> S:
    """A text enum member from itself or its (case-insensitive) value."""
    try:
        return kind(value.lower())
    except ValueError:
        known = ", ".join(member.value for member in kind)
        said = f"unknown {what} {value!r}; known: {known}"
        raise DeviceError(said, Cannot.UNKNOWN_NAME) from None


def parse_enum(kind: type[W], value: W | int | str, what: str) -> W:
    """A protocol enumeration's member from itself, its number on the wire or its
    (case-insensitive) name."""
    try:
        return kind.of(value)
    except ValueError:
        known = ", ".join(member.value for member in kind)
        said = f"unknown {what} {value!r}; known: {known}"
        raise DeviceError(said, Cannot.UNKNOWN_NAME) from None
