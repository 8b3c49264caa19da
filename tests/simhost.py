"""A minimal protocol host for the simulator's tests, written from docs/protocol.md.

It is deliberately small (the real host session lives in ``drivers``): in-order
delivery by sequence number, cumulative ACK, RESEND on a gap or when a STATUS
shows events it has not seen, duplicates dropped and acknowledged again.
"""

from __future__ import annotations

from collections.abc import Callable

from drivers.protocol import (
    Ack,
    DecodeError,
    FrameDecoder,
    Hello,
    Message,
    Resend,
    Status,
    StatusRequest,
    encode_frame,
    seq_add,
    seq_distance,
)
from firmware_sim import SimulatedDevice


class SimHost:
    def __init__(self) -> None:
        self.decoder = FrameDecoder()
        self.expected: int | None = None
        self.boot_id: int | None = None
        self.events: list[tuple[int, Message]] = []
        self.hellos: list[Hello] = []
        self.statuses: list[Status] = []
        self.errors: list[DecodeError] = []
        self.duplicates = 0
        self.gaps = 0
        self.deaf = False  # when set, frames are read but nothing is answered
        self.version = 1  # the device's (its HELLO's): what the host sends in
        self._out = bytearray()

    def send(self, message: Message) -> None:
        self._out += encode_frame(0, message, self.version)

    def take(self) -> bytes:
        data = bytes(self._out)
        self._out.clear()
        return b"" if self.deaf else data

    def feed(self, data: bytes) -> None:
        for item in self.decoder.feed(data):
            if isinstance(item, DecodeError):
                self.errors.append(item)
            elif isinstance(item.message, Hello):
                self.version = item.message.protocol_version
                self._hello(item.message)
            elif isinstance(item.message, Status):
                self._status(item.message)
            elif self.expected is not None:
                self._event(item.seq, item.message)

    def _hello(self, hello: Hello) -> None:
        self.hellos.append(hello)
        if hello.boot_id != self.boot_id:
            self.boot_id = hello.boot_id
            self.expected = hello.first_unacked

    def _status(self, status: Status) -> None:
        self.statuses.append(status)
        if self.expected is not None and seq_distance(self.expected, status.next_seq) > 0:
            self.send(Resend(self.expected))

    def _event(self, seq: int, message: Message) -> None:
        assert self.expected is not None
        distance = seq_distance(self.expected, seq)
        if distance == 0:
            self.events.append((seq, message))
            self.send(Ack(seq))
            self.expected = seq_add(seq)
        elif distance < 0:
            self.duplicates += 1
            self.send(Ack(seq_add(self.expected, -1)))
        else:
            self.gaps += 1
            self.send(Resend(self.expected))

    def messages(self) -> list[Message]:
        return [message for _, message in self.events]


def pump(
    device: SimulatedDevice,
    host: SimHost,
    now: float,
    until: Callable[[], bool],
    *,
    limit: float = 3600.0,
    heartbeat: bool = True,
) -> float:
    """Run device and host on a virtual clock until ``until()``; returns the time reached.

    Time jumps from one device deadline to the next; with ``heartbeat`` the host
    sends STATUS_REQUEST at the device's heartbeat interval.
    """
    t = now
    host_beat = now
    for _ in range(1_000_000):
        host.feed(device.transmit(t))
        if heartbeat and t >= host_beat + device.heartbeat:
            host.send(StatusRequest())
            host_beat = t
        device.receive(host.take(), t)
        if until():
            return t
        deadline = device.next_deadline()
        if deadline is not None and deadline > t:
            t = deadline
        elif deadline is None:
            t += device.heartbeat
        if t - now > limit:
            break
    raise AssertionError(f"condition not reached within {limit} s of virtual time")
