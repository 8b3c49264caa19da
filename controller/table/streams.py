"""Two devices, one table: where the shoe's and the seat board's streams stand.

The shoe and the seat board are two links, each with its own buffer and backlog: a device
numbers its events (``seq``, 16-bit, wrapping) and keeps each one until the host has
acknowledged it, and after a reconnection (a cable pulled, the service restarted) it sends
its backlog again. Between the two devices there is no order: the seat board's report of
a card landing may reach the table before the shoe's report of drawing it.

``Streams`` holds what the table core needs to decide with the devices' own sequence
numbers and the links' state: for each device, its boot, the last event the table has
applied and the last event the device has announced (its ``HELLO``'s ``next_seq``); and
the seat board's reports that wait for the shoe's report of their card. The shoe *owes*
events while its link is down or until the event it announced is in; a seat report of a
card the shoe has not reported waits until the shoe owes nothing and ``WAIT_MS`` has
passed since the report (a frame the line spoilt comes again within it). Everything here
is pure: it is part of the table's state and changes only through its inputs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple, TypedDict

from controller.table.inputs import FromDevice, InputJson, input_from_json
from drivers import events as ev

#: How long (ms, by the inputs' times) a seat report of a card the shoe has not reported
#: waits with the shoe up and owing nothing: a shoe's frame spoilt on the line is sent
#: again within 0.5 s (the device's retransmission), or at the next heartbeat's gap.
WAIT_MS = 2000

_SEQS = 65536


def seq_after(seq: int, last: int) -> bool:
    """``seq`` comes after ``last`` (16-bit sequence numbers, compared by signed distance)."""
    distance = (seq - last) % _SEQS
    return 0 < distance < _SEQS // 2


class StreamJson(TypedDict):
    """One device's stream as a snapshot keeps it (:class:`Stream`'s fields)."""

    boot: int | None
    seq: int | None
    announced: int | None


class Stream(NamedTuple):
    """One device's events as the table has them: ``boot`` (its boot id), ``seq`` (the last
    event applied), ``announced`` (the last event the device said it had numbered, at its
    last HELLO); None: not known (then the device owes nothing)."""

    boot: int | None = None
    seq: int | None = None
    announced: int | None = None

    @property
    def complete(self) -> bool:
        """Every event the device announced is in."""
        if self.announced is None:
            return True
        return self.seq is not None and not seq_after(self.announced, self.seq)

    def linked(self, boot: int | None, next_seq: int | None, pending: int | None) -> Stream:
        """The device said HELLO: its backlog runs up to ``next_seq - 1``; the events before
        ``next_seq - pending`` are all in (acknowledged only once applied) or, for a new
        boot, numbered by no event the table will see."""
        if next_seq is None or pending is None:
            return Stream(boot)
        first = (next_seq - pending) % _SEQS
        done = (first - 1) % _SEQS
        seq = self.seq if boot == self.boot else None
        if seq is None or seq_after(done, seq):
            seq = done
        return Stream(boot, seq, (next_seq - 1) % _SEQS)

    def saw(self, seq: int | None) -> Stream:
        """The device's event ``seq`` was applied."""
        if seq is None:
            return self
        return self._replace(seq=seq)

    def to_json(self) -> StreamJson:
        return {"boot": self.boot, "seq": self.seq, "announced": self.announced}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Stream:
        return cls(data["boot"], data["seq"], data["announced"])


class StreamsJson(TypedDict):
    """Both streams and the seat reports waiting, as a snapshot keeps them: each report
    in its table form, as journaled (``FromDevice.to_json``)."""

    shoe: StreamJson
    seat_board: StreamJson
    waiting: list[InputJson]


class Streams(NamedTuple):
    """The shoe's and the seat board's streams, and the seat reports waiting for the shoe."""

    shoe: Stream = Stream()
    seat_board: Stream = Stream()
    waiting: tuple[FromDevice, ...] = ()  # each of an ``ev.CardAtSeat``

    def to_json(self) -> StreamsJson:
        return {
            "shoe": self.shoe.to_json(),
            "seat_board": self.seat_board.to_json(),
            "waiting": [report.to_json() for report in self.waiting],  # as journaled
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Streams:
        """Read back ``to_json``; None (a table saved before streams were kept): none."""
        if data is None:
            return cls()
        return cls(
            Stream.from_json(data["shoe"]),
            Stream.from_json(data["seat_board"]),
            tuple(_report(item) for item in data["waiting"]),
        )


def _report(data: Mapping[str, Any]) -> FromDevice:
    report = input_from_json(data)
    if not isinstance(report, FromDevice) or not isinstance(report.event, ev.CardAtSeat):
        raise ValueError(f"streams.waiting: {data.get('type')} is not a seat board's card report")
    return report


def card_at_seat(report: FromDevice) -> ev.CardAtSeat:
    """The seat board's report of a card that ``report`` (one of ``waiting``) holds."""
    event = report.event
    assert isinstance(event, ev.CardAtSeat)
    return event


def over(report: FromDevice, now: int) -> bool:
    """``report`` has waited ``WAIT_MS`` by ``now``."""
    return now - report.at >= WAIT_MS
