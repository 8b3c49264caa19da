"""The typed events a shoe or seat-board driver hands to its asyncio consumer.

Device events (everything but the link events) carry ``seq``, the device's sequence number
of the event: each is delivered exactly once and in the device's order, across corrupted
bytes, lost frames and reconnects. Cards are card codes 0..51 (``(rank - 2) * 4 + suit``,
suits c d h s = 0..3); the drivers know nothing of what a card means to the game.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from drivers.protocol import DeviceKind, Disposition, FaultCode


@dataclass(frozen=True)
class DeviceInfo:
    """Who answered on a port: from the device's HELLO."""

    port: str
    kind: DeviceKind
    serial: str
    firmware: tuple[int, int, int]
    protocol_version: int
    boot_id: int

    def __str__(self) -> str:
        firmware = ".".join(map(str, self.firmware))
        return f"{self.kind.name.lower()} {self.serial} (firmware {firmware}) on {self.port}"


class LinkDownReason(StrEnum):
    """Why the link to a device went down."""

    SILENCE = "silence"  # nothing valid received for longer than the configured silence
    CONNECTION_LOST = "connection_lost"  # the transport failed: unplugged, port vanished
    DEVICE_RESTARTED = "device_restarted"  # HELLO with a new boot id while the link was up
    CLOSED = "closed"  # the host closed the driver


@dataclass(frozen=True)
class LinkUp:
    """The device said HELLO; ``reason`` says what brought the link up."""

    device: DeviceInfo
    reason: str


@dataclass(frozen=True)
class LinkDown:
    """The link to the device is down; events resume (none lost) after the next LinkUp."""

    reason: LinkDownReason
    detail: str


@dataclass(frozen=True)
class CardRead:
    """The shoe identified a card as it left."""

    seq: int
    card: int
    read_counter: int
    uid: bytes


@dataclass(frozen=True)
class CardUnreadable:
    """A card left the shoe unidentified; ``disposition`` says whether it is on the table."""

    seq: int
    read_counter: int
    disposition: Disposition


@dataclass(frozen=True)
class DeckLoaded:
    """A deck (or several decks in a row) was loaded into the shoe."""

    seq: int
    deck_id: int
    cards_loaded: int
    cards_remaining: int


@dataclass(frozen=True)
class DeviceFault:
    """A fault began: jam, lid open, reader fault, tamper, seat sensor."""

    seq: int
    code: FaultCode


@dataclass(frozen=True)
class DeviceFaultCleared:
    """A fault ended."""

    seq: int
    code: FaultCode


@dataclass(frozen=True)
class SeatOccupied:
    """A player sat down at ``seat`` (1..8)."""

    seq: int
    seat: int


@dataclass(frozen=True)
class SeatVacated:
    """The player at ``seat`` (1..8) left."""

    seq: int
    seat: int


@dataclass(frozen=True)
class CardAtSeat:
    """A card arrived in the card area of ``seat``; ``card`` None: its reader did not know it."""

    seq: int
    seat: int
    card: int | None


LinkEvent = LinkUp | LinkDown
DeviceEvent = (
    CardRead
    | CardUnreadable
    | DeckLoaded
    | DeviceFault
    | DeviceFaultCleared
    | SeatOccupied
    | SeatVacated
    | CardAtSeat
)
Event = LinkEvent | DeviceEvent
