"""The typed events a shoe or seat-board driver hands to its asyncio consumer.

Device events (everything but the link events) carry ``seq``, the device's sequence number
of the event: each is delivered exactly once and in the device's order, across corrupted
bytes, lost frames and reconnects. Cards are card codes 0..51 (``(rank - 2) * 4 + suit``,
suits c d h s = 0..3); the drivers know nothing of what a card means to the game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from drivers.protocol import DeviceKind, Disposition, FaultCode, seq_add


@dataclass(frozen=True, slots=True)
class DeviceId:
    """A device's identity, from its HELLO: its kind, serial number and boot id (a new one
    each time it starts). The one record of it from the drivers to the table: the journal
    keeps each device event once by it and its ``seq``; the intake, the service and
    recovery know each device by it."""

    kind: DeviceKind
    serial: str
    boot_id: int


@dataclass(frozen=True, slots=True)
class DeviceInfo(DeviceId):
    """Who answered on a port: the device's identity and, from its HELLO, where it is and
    what it runs. ``id`` is the identity alone (a ``DeviceInfo`` never equals a
    ``DeviceId``)."""

    port: str
    firmware: tuple[int, int, int]
    protocol_version: int

    @property
    def id(self) -> DeviceId:
        return DeviceId(self.kind, self.serial, self.boot_id)

    def __str__(self) -> str:
        firmware = ".".join(map(str, self.firmware))
        return f"{self.kind.value} {self.serial} (firmware {firmware}) on {self.port}"


class LinkDownReason(StrEnum):
    """Why the link to a device went down."""

    SILENCE = "silence"  # nothing valid received for longer than the configured silence
    CONNECTION_LOST = "connection_lost"  # the transport failed: unplugged, port vanished
    DEVICE_RESTARTED = "device_restarted"  # HELLO with a new boot id while the link was up
    CLOSED = "closed"  # the host closed the driver


@dataclass(frozen=True)
class LostEvents:
    """Events a device numbered that the host will never receive: ``count`` events of boot
    ``boot_id`` from ``first_seq`` on (16-bit sequence numbers, wrapping)."""

    boot_id: int
    first_seq: int
    count: int

    @property
    def seqs(self) -> list[int]:
        return [seq_add(self.first_seq, k) for k in range(self.count)]

    def __str__(self) -> str:
        last = seq_add(self.first_seq, self.count - 1)
        span = f"seq {self.first_seq}" if self.count == 1 else f"seq {self.first_seq}..{last}"
        return f"{self.count} event(s) of boot {self.boot_id} lost ({span})"


@dataclass(frozen=True)
class LinkUp:
    """The device said HELLO; ``reason`` says what brought the link up.

    ``previous_boot_id`` is set when the device restarted since the last LinkUp (whatever
    took the link down: over TCP a restarting device first closes the connection), and
    ``lost`` lists the events the host will never get (empty when none). ``next_seq`` and
    ``pending`` are the HELLO's: the device's backlog, resent now, runs from ``next_seq -
    pending`` to ``next_seq - 1`` (None in a journal written before they were kept).
    """

    device: DeviceInfo
    reason: str
    previous_boot_id: int | None = None
    lost: tuple[LostEvents, ...] = ()
    next_seq: int | None = None
    pending: int | None = None

    @property
    def restarted(self) -> bool:
        return self.previous_boot_id is not None


@dataclass(frozen=True)
class LinkDown:
    """The link to the device is down; events resume (none lost) after the next LinkUp."""

    reason: LinkDownReason
    detail: str


class Origin:
    """Which driver (``owner``) and which device boot (``device``) delivered an event. Set
    by the driver on every device event it delivers and compared by identity, so that
    ``acknowledge`` can tell an event of the current boot from one of a previous boot or of
    another driver."""

    __slots__ = ("device", "owner")

    def __init__(self, owner: object, device: DeviceId) -> None:
        self.owner = owner
        self.device = device

    def __repr__(self) -> str:
        return f"<Origin {self.device.serial} boot {self.device.boot_id}>"


@dataclass(frozen=True)
class SequencedEvent:
    """Base of the device events: ``seq`` is the device's sequence number of the event.

    ``origin`` (keyword only, not compared) is set by the driver that delivered it.
    """

    seq: int
    origin: Origin | None = field(default=None, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True)
class CardRead(SequencedEvent):
    """The shoe identified a card as it left."""

    card: int
    read_counter: int
    uid: bytes


@dataclass(frozen=True)
class CardUnreadable(SequencedEvent):
    """A card left the shoe unidentified; ``disposition`` says whether it is on the table."""

    read_counter: int
    disposition: Disposition


@dataclass(frozen=True)
class DeckCard(SequencedEvent):
    """Deck registration: the shoe read card ``index`` (from 0) of deck ``deck_id`` as it
    was loaded, its code and tag UID (b'' from a reader without UIDs)."""

    deck_id: int
    index: int
    card: int
    uid: bytes


@dataclass(frozen=True)
class DeckLoaded(SequencedEvent):
    """A deck (or several decks in a row) was loaded into the shoe. ``registered``: the shoe
    reported the deck's cards one by one (``DeckCard``) before this event, as a shoe of
    protocol version 2 does; False from a version 1 shoe (and in journals from before)."""

    deck_id: int
    cards_loaded: int
    cards_remaining: int
    registered: bool = False


@dataclass(frozen=True)
class DeviceFault(SequencedEvent):
    """A fault began: jam, lid open, reader fault, tamper, seat sensor."""

    code: FaultCode


@dataclass(frozen=True)
class DeviceFaultCleared(SequencedEvent):
    """A fault ended."""

    code: FaultCode


@dataclass(frozen=True)
class SeatOccupied(SequencedEvent):
    """A player sat down at ``seat`` (1..8)."""

    seat: int


@dataclass(frozen=True)
class SeatVacated(SequencedEvent):
    """The player at ``seat`` (1..8) left."""

    seat: int


@dataclass(frozen=True)
class CardAtSeat(SequencedEvent):
    """A card arrived in the card area of ``seat``; ``card`` None: its reader did not know it;
    ``uid``: the tag UID the seat's reader read (b'' when none, and from a version 1 board)."""

    seat: int
    card: int | None
    uid: bytes = b""


LinkEvent = LinkUp | LinkDown
DeviceEvent = (
    CardRead
    | CardUnreadable
    | DeckCard
    | DeckLoaded
    | DeviceFault
    | DeviceFaultCleared
    | SeatOccupied
    | SeatVacated
    | CardAtSeat
)
Event = LinkEvent | DeviceEvent
