"""The messages of the table-hardware protocol as typed immutable values.

Every message is a frozen dataclass with its wire type code (``TYPE``), its
direction (``FROM_DEVICE``), whether it is a sequenced device event
(``SEQUENCED``) and its fixed payload layout (``LAYOUT``, big-endian); the
direction and the sequencing are its kind's, from its base: a device's report
(``_Report``), a device's event (``_Event``) or the host's command (``_Command``). The
constructors validate every field, so a message that exists can be encoded;
they accept a few convenient spellings (an enum by name or number, seats as any
iterable, a tag UID as bytes or hex) and store the canonical form.
``docs/protocol.md`` is the byte-level description of the same layouts.
"""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Self, cast

from luck_errors import LuckTableError

PROTOCOL_VERSION = 2  # the newest version, which a device of this code speaks
#: The versions this codec reads and writes (docs/protocol.md section 3).
VERSIONS = (1, 2)
SEQ_MODULUS = 1 << 16
SEATS = range(1, 9)
CARD_CODES = range(52)
SERIAL_LENGTH = 16
UID_MAX = 10
NO_CARD = 0xFF  # SEAT_CARD: the seat reader did not identify the card

_U8 = (0, 0xFF)
_U16 = (0, 0xFFFF)
_U32 = (0, 0xFFFF_FFFF)


class MessageError(LuckTableError, ValueError):
    """A message field with a value the protocol cannot carry."""

    def __init__(self, message: str, field: str, reason: str) -> None:
        super().__init__(f"{message}.{field}: {reason}")
        self.message = message
        self.field = field
        self.reason = reason


class WireEnum(StrEnum):
    """An enumeration of the protocol: a member is its name in lower case (``"jam"``, the
    spelling of the journal, the table and the simulator's control channel), and the wire
    carries its number (``wire``, :data:`WIRE_CODES`)."""

    @property
    def wire(self) -> int:
        """The member's number on the wire."""
        return WIRE_CODES[type(self)][self]

    @classmethod
    def of(cls, value: object) -> Self:
        """The member ``value`` stands for: itself, its name in any case (``"jam"``,
        ``"JAM"``) or its number on the wire (1); ``ValueError`` for another value."""
        if isinstance(value, cls):
            return value
        if isinstance(value, str) and value.upper() in cls.__members__:
            return cls[value.upper()]
        if isinstance(value, int) and not isinstance(value, bool):
            for member in cls:
                if member.wire == value:
                    return member
        raise ValueError(f"{value!r} is no {cls.__name__}")


class DeviceKind(WireEnum):
    """A kind of device (HELLO's ``device_kind``)."""

    SHOE = "shoe"
    SEAT_BOARD = "seat_board"


class FaultCode(WireEnum):
    """Device faults. Each is raised by FAULT and cleared by FAULT_CLEARED."""

    JAM = "jam"  # shoe: a card is stuck in the exit
    LID_OPEN = "lid_open"  # shoe: lid or door open
    READER = "reader"  # shoe reader or seat-board card reader failed
    TAMPER = "tamper"  # enclosure opened or seal broken
    SENSOR = "sensor"  # seat board: a seat sensor failed


class Disposition(WireEnum):
    """Where an unreadable card went."""

    REJECT_TRAY = "reject_tray"  # diverted to the reject tray: it is not in play
    DEALT_UNREAD = "dealt_unread"  # it left the shoe unread: it is on the table


#: The number on the wire of every member of the protocol's enumerations (docs/protocol.md).
WIRE_CODES: Mapping[type[WireEnum], Mapping[WireEnum, int]] = {
    DeviceKind: {DeviceKind.SHOE: 1, DeviceKind.SEAT_BOARD: 2},
    FaultCode: {
        FaultCode.JAM: 1,
        FaultCode.LID_OPEN: 2,
        FaultCode.READER: 3,
        FaultCode.TAMPER: 4,
        FaultCode.SENSOR: 5,
    },
    Disposition: {Disposition.REJECT_TRAY: 1, Disposition.DEALT_UNREAD: 2},
}


def seq_add(seq: int, n: int = 1) -> int:
    """The sequence number ``n`` after ``seq`` (16-bit, wrapping)."""
    return (seq + n) % SEQ_MODULUS


def seq_distance(start: int, end: int) -> int:
    """How far ``end`` is ahead of ``start``, in -32768..32767 (negative: behind)."""
    d = (end - start) % SEQ_MODULUS
    return d - SEQ_MODULUS if d >= SEQ_MODULUS // 2 else d


def _wire_uid(message: str, uid_length: int, raw: bytes) -> bytes:
    """The UID of a ``uid_length`` byte and a zero-padded 10-byte ``uid`` field."""
    if uid_length > UID_MAX:
        raise MessageError(message, "uid", f"length {uid_length} is over {UID_MAX}")
    if any(raw[uid_length:]):
        raise MessageError(message, "uid", "padding after the UID is not zero")
    return raw[:uid_length]


def seat_mask(seats: Iterable[int]) -> int:
    """Seats 1..8 as a bit mask: bit ``s - 1`` is seat ``s``."""
    return sum(1 << (s - 1) for s in seats)


def mask_seats(mask: int) -> frozenset[int]:
    return frozenset(s for s in SEATS if mask & (1 << (s - 1)))


class _Fields:
    """Field validation for one message class, naming the message in errors."""

    def __init__(self, message: Message) -> None:
        self.message = message
        self.name = type(message).NAME

    def error(self, field: str, reason: str) -> MessageError:
        return MessageError(self.name, field, reason)

    def set(self, field: str, value: object) -> None:
        object.__setattr__(self.message, field, value)

    def integer(self, field: str, bounds: tuple[int, int]) -> None:
        value = getattr(self.message, field)
        low, high = bounds
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(field, f"must be an integer, not {value!r}")
        if not low <= value <= high:
            raise self.error(field, f"{value} is outside {low}..{high}")
        self.set(field, int(value))

    def enum(self, field: str, kind: type[WireEnum]) -> None:
        value = getattr(self.message, field)
        try:
            member = kind.of(value)
        except ValueError:
            names = ", ".join(f"{m.value} ({m.wire})" for m in kind)
            raise self.error(field, f"unknown value {value!r}; known: {names}") from None
        self.set(field, member)

    def flag(self, field: str) -> None:
        value = getattr(self.message, field)
        if value not in (0, 1):  # True and False compare equal to 1 and 0
            raise self.error(field, f"must be true or false (1 or 0), not {value!r}")
        self.set(field, bool(value))

    def uid(self, field: str = "uid") -> None:
        """A tag UID: 0..UID_MAX bytes, given as bytes or hex text; stored as bytes."""
        uid = getattr(self.message, field)
        if isinstance(uid, str):
            try:
                uid = bytes.fromhex(uid)
            except ValueError:
                raise self.error(field, f"not hexadecimal: {uid!r}") from None
        if not isinstance(uid, bytes | bytearray) or len(uid) > UID_MAX:
            raise self.error(field, f"must be 0..{UID_MAX} bytes, not {uid!r}")
        self.set(field, bytes(uid))

    def seats(self, field: str) -> None:
        value = getattr(self.message, field)
        try:
            seats = frozenset(value)
        except TypeError:
            raise self.error(field, f"must be a collection of seats, not {value!r}") from None
        bad = [s for s in seats if isinstance(s, bool) or s not in SEATS]
        if bad:
            raise self.error(field, f"seats must be 1..8, got {bad!r}")
        self.set(field, seats)


def _on_wire(value: Any) -> Any:
    return value.wire if isinstance(value, WireEnum) else value


@dataclass(frozen=True)
class Message:
    """Base of all messages; see the module docstring."""

    TYPE: ClassVar[int]
    NAME: ClassVar[str]
    FROM_DEVICE: ClassVar[bool]
    SEQUENCED: ClassVar[bool]
    LAYOUT: ClassVar[struct.Struct]
    SINCE: ClassVar[int] = 1  # the first protocol version that has this message

    def __post_init__(self) -> None:
        self._validate(_Fields(self))

    def _validate(self, fields: _Fields) -> None:
        """Check and normalise every field (overridden where there are fields)."""

    def _wire_values(self) -> tuple[Any, ...]:
        """The values packed into ``LAYOUT`` (default: the fields in order, an enumeration's
        member as its number)."""
        return tuple(_on_wire(getattr(self, f.name)) for f in dataclasses.fields(self))

    @classmethod
    def _from_wire(cls, values: tuple[Any, ...]) -> Self:
        return cls(*values)

    @classmethod
    def layout(cls, version: int = PROTOCOL_VERSION) -> struct.Struct:
        """The payload layout in protocol ``version`` (the same in every version but where
        a message overrides it)."""
        return cls.LAYOUT

    def pack_payload(self, version: int = PROTOCOL_VERSION) -> bytes:
        return self.layout(version).pack(*self._wire_values())

    @classmethod
    def unpack_payload(cls, payload: bytes, version: int = PROTOCOL_VERSION) -> Self:
        """Payload bytes (exactly ``layout(version).size``) to a message; MessageError if a
        field is bad."""
        return cls._from_wire(cls.layout(version).unpack(payload))


@dataclass(frozen=True)
class _Report(Message):
    """Device to host, not sequenced: the device's state."""

    FROM_DEVICE = True
    SEQUENCED = False


@dataclass(frozen=True)
class _Event(Message):
    """Device to host, sequenced: an event the host acknowledges."""

    FROM_DEVICE = True
    SEQUENCED = True


@dataclass(frozen=True)
class _Command(Message):
    """Host to device (none sequenced)."""

    FROM_DEVICE = False
    SEQUENCED = False


# --- device to host, not sequenced -------------------------------------------------------


@dataclass(frozen=True)
class Hello(_Report):
    """Sent by a device on every (re)connection and in answer to RESET.

    ``next_seq`` is the number the device's next new event will carry and
    ``pending`` how many events before it are still unacknowledged: right after
    HELLO the device retransmits those, from ``first_unacked``. ``boot_id``
    changes whenever the device restarts (its sequence numbers then start
    afresh). This layout is frozen for every protocol version, so that a host
    can always read it and refuse a version it does not speak.
    """

    TYPE = 0x01
    NAME = "HELLO"
    LAYOUT = struct.Struct(">BBBBBIHHH16s")

    protocol_version: int
    device_kind: DeviceKind
    firmware: tuple[int, int, int]
    serial: str
    boot_id: int
    next_seq: int
    pending: int
    heartbeat_ms: int

    @property
    def first_unacked(self) -> int:
        return seq_add(self.next_seq, -self.pending)

    def _validate(self, fields: _Fields) -> None:
        fields.integer("protocol_version", _U8)
        fields.enum("device_kind", DeviceKind)
        firmware = tuple(self.firmware)
        if len(firmware) != 3 or any(
            isinstance(p, bool) or not isinstance(p, int) or not 0 <= p <= 0xFF for p in firmware
        ):
            reason = f"must be (major, minor, patch) of 0..255, not {firmware}"
            raise fields.error("firmware", reason)
        fields.set("firmware", firmware)
        serial = self.serial
        if not isinstance(serial, str) or not 1 <= len(serial) <= SERIAL_LENGTH:
            raise fields.error("serial", f"must be 1..{SERIAL_LENGTH} characters, not {serial!r}")
        if not all(" " <= ch <= "~" for ch in serial):
            raise fields.error("serial", f"must be printable ASCII, not {serial!r}")
        fields.integer("boot_id", _U32)
        fields.integer("next_seq", _U16)
        fields.integer("pending", (0, SEQ_MODULUS // 2 - 1))
        fields.integer("heartbeat_ms", (1, 0xFFFF))

    def _wire_values(self) -> tuple[Any, ...]:
        return (
            self.protocol_version,
            self.device_kind.wire,
            *self.firmware,
            self.boot_id,
            self.next_seq,
            self.pending,
            self.heartbeat_ms,
            self.serial.encode("ascii"),
        )

    @classmethod
    def _from_wire(cls, values: tuple[Any, ...]) -> Self:
        version, kind, major, minor, patch, boot_id, next_seq, pending, heartbeat, raw = values
        text = raw.rstrip(b"\0")
        if b"\0" in text:
            raise MessageError(cls.NAME, "serial", "NUL inside the serial number")
        try:
            serial = text.decode("ascii")
        except UnicodeDecodeError:
            raise MessageError(cls.NAME, "serial", f"not ASCII: {raw!r}") from None
        return cls(
            version, kind, (major, minor, patch), serial, boot_id, next_seq, pending, heartbeat
        )


@dataclass(frozen=True)
class Status(_Report):
    """Heartbeat and answer to STATUS_REQUEST and INDICATOR: the device's state.

    ``next_seq``/``pending`` as in HELLO: a host that has not received
    everything before ``next_seq`` asks for a RESEND. ``occupied`` is the seat
    board's occupied seats and ``cards_remaining`` the shoe's; the other kind
    of device sends an empty set / 0.
    """

    TYPE = 0x02
    NAME = "STATUS"
    LAYOUT = struct.Struct(">HHBBBBH")

    next_seq: int
    pending: int
    faults: frozenset[FaultCode]
    bonus_lamp: bool
    seat_lamps: frozenset[int]
    occupied: frozenset[int]
    cards_remaining: int

    @property
    def first_unacked(self) -> int:
        return seq_add(self.next_seq, -self.pending)

    def _validate(self, fields: _Fields) -> None:
        fields.integer("next_seq", _U16)
        fields.integer("pending", (0, SEQ_MODULUS // 2 - 1))
        faults = []
        for code in self.faults:
            try:
                faults.append(FaultCode.of(code))
            except ValueError:
                raise fields.error("faults", f"unknown fault {code!r}") from None
        fields.set("faults", frozenset(faults))
        fields.flag("bonus_lamp")
        fields.seats("seat_lamps")
        fields.seats("occupied")
        fields.integer("cards_remaining", _U16)

    def _wire_values(self) -> tuple[Any, ...]:
        return (
            self.next_seq,
            self.pending,
            sum(1 << (f.wire - 1) for f in self.faults),
            self.bonus_lamp,
            seat_mask(self.seat_lamps),
            seat_mask(self.occupied),
            self.cards_remaining,
        )

    @classmethod
    def _from_wire(cls, values: tuple[Any, ...]) -> Self:
        next_seq, pending, fault_bits, bonus, lamps, occupied, remaining = values
        # The bits' numbers, made FaultCodes (or refused as unknown) by _validate.
        bits = frozenset(bit + 1 for bit in range(8) if fault_bits >> bit & 1)
        faults = cast("frozenset[FaultCode]", bits)
        return cls(
            next_seq, pending, faults, bonus, mask_seats(lamps), mask_seats(occupied), remaining
        )


# --- device to host, sequenced events ----------------------------------------------------


@dataclass(frozen=True)
class CardMessage(_Event):
    """The shoe identified a card as it left. ``uid``: the RFID tag UID, or b''."""

    TYPE = 0x10
    NAME = "CARD"
    LAYOUT = struct.Struct(">BIB10s")

    card: int
    read_counter: int
    uid: bytes = b""

    def _validate(self, fields: _Fields) -> None:
        fields.integer("card", (0, 51))
        fields.integer("read_counter", _U32)
        fields.uid()

    def _wire_values(self) -> tuple[Any, ...]:
        return (self.card, self.read_counter, len(self.uid), self.uid)

    @classmethod
    def _from_wire(cls, values: tuple[Any, ...]) -> Self:
        card, counter, uid_length, raw = values
        return cls(card, counter, _wire_uid(cls.NAME, uid_length, raw))


@dataclass(frozen=True)
class Unreadable(_Event):
    """A card left the shoe that the reader could not identify."""

    TYPE = 0x11
    NAME = "UNREADABLE"
    LAYOUT = struct.Struct(">IB")

    read_counter: int
    disposition: Disposition

    def _validate(self, fields: _Fields) -> None:
        fields.integer("read_counter", _U32)
        fields.enum("disposition", Disposition)


@dataclass(frozen=True)
class Deck(_Event):
    """A deck (or several decks in a row) was loaded into the shoe."""

    TYPE = 0x12
    NAME = "DECK"
    LAYOUT = struct.Struct(">IHH")

    deck_id: int
    cards_loaded: int
    cards_remaining: int

    def _validate(self, fields: _Fields) -> None:
        fields.integer("deck_id", _U32)
        fields.integer("cards_loaded", _U16)
        fields.integer("cards_remaining", (0, self.cards_loaded))


def tag_order(uid: bytes, card: int) -> tuple[bytes, int]:
    """The key of a registered card in a deck's registration (DECK_CARD): by tag UID, then
    by card code (the only order for a reader without UIDs). A registration in this order
    is the deck as a set: it says nothing of the order the cards will be dealt in."""
    return (uid, card)


@dataclass(frozen=True)
class DeckCardMessage(_Event):
    """Deck registration (version 2 on): card number ``index`` (from 0, in tag order) of
    the deck ``deck_id`` being loaded, its code and tag UID (b'' from a reader without UIDs).
    The shoe sends one per card it read, in tag order (:func:`tag_order`: never the order
    it will deal them), before the DECK of the same ``deck_id``."""

    TYPE = 0x15
    NAME = "DECK_CARD"
    SINCE = 2
    LAYOUT = struct.Struct(">IHBB10s")

    deck_id: int
    index: int
    card: int
    uid: bytes = b""

    def _validate(self, fields: _Fields) -> None:
        fields.integer("deck_id", _U32)
        fields.integer("index", _U16)
        fields.integer("card", (0, 51))
        fields.uid()

    def _wire_values(self) -> tuple[Any, ...]:
        return (self.deck_id, self.index, self.card, len(self.uid), self.uid)

    @classmethod
    def _from_wire(cls, values: tuple[Any, ...]) -> Self:
        deck_id, index, card, uid_length, raw = values
        return cls(deck_id, index, card, _wire_uid(cls.NAME, uid_length, raw))


@dataclass(frozen=True)
class _FaultEvent(_Event):
    LAYOUT = struct.Struct(">B")

    code: FaultCode

    def _validate(self, fields: _Fields) -> None:
        fields.enum("code", FaultCode)


@dataclass(frozen=True)
class Fault(_FaultEvent):
    """A fault began."""

    TYPE = 0x13
    NAME = "FAULT"


@dataclass(frozen=True)
class FaultCleared(_FaultEvent):
    """A fault ended."""

    TYPE = 0x14
    NAME = "FAULT_CLEARED"


@dataclass(frozen=True)
class SeatOccupied(_Event):
    """A player sat down at (``occupied``) or left (not ``occupied``) a seat."""

    TYPE = 0x20
    NAME = "SEAT_OCCUPIED"
    LAYOUT = struct.Struct(">BB")

    seat: int
    occupied: bool

    def _validate(self, fields: _Fields) -> None:
        fields.integer("seat", (1, 8))
        fields.flag("occupied")


@dataclass(frozen=True)
class SeatCard(_Event):
    """A card arrived in a seat's card area; ``card`` None: the seat reader did not identify
    it; ``uid``: the tag UID the seat reader read (version 2 on; b'' when none)."""

    TYPE = 0x21
    NAME = "SEAT_CARD"
    LAYOUT = struct.Struct(">BBB10s")
    LAYOUT_V1 = struct.Struct(">BB")

    seat: int
    card: int | None
    uid: bytes = b""

    def _validate(self, fields: _Fields) -> None:
        fields.integer("seat", (1, 8))
        if self.card is not None:
            fields.integer("card", (0, 51))
        fields.uid()

    @classmethod
    def layout(cls, version: int = PROTOCOL_VERSION) -> struct.Struct:
        return cls.LAYOUT_V1 if version == 1 else cls.LAYOUT

    def pack_payload(self, version: int = PROTOCOL_VERSION) -> bytes:
        if version != 1:
            return super().pack_payload(version)
        if self.uid:
            raise MessageError(self.NAME, "uid", "protocol version 1 carries no UID")
        return self.LAYOUT_V1.pack(*self._wire_values()[:2])

    def _wire_values(self) -> tuple[Any, ...]:
        card = NO_CARD if self.card is None else self.card
        return (self.seat, card, len(self.uid), self.uid)

    @classmethod
    def _from_wire(cls, values: tuple[Any, ...]) -> Self:
        seat, card, *tag = values  # version 1: no uid_length and uid
        uid = _wire_uid(cls.NAME, *tag) if tag else b""
        return cls(seat, None if card == NO_CARD else card, uid)


# --- host to device (none sequenced) -----------------------------------------------------


@dataclass(frozen=True)
class _SeqCommand(_Command):
    LAYOUT = struct.Struct(">H")

    seq: int

    def _validate(self, fields: _Fields) -> None:
        fields.integer("seq", _U16)


@dataclass(frozen=True)
class Ack(_SeqCommand):
    """Every event up to and including ``seq`` has been received."""

    TYPE = 0x80
    NAME = "ACK"


@dataclass(frozen=True)
class Resend(_SeqCommand):
    """Retransmit every unacknowledged event from ``seq`` on."""

    TYPE = 0x81
    NAME = "RESEND"


@dataclass(frozen=True)
class Reset(_Command):
    """Restart the link session: lamps off, HELLO, then every unacknowledged event again."""

    TYPE = 0x82
    NAME = "RESET"
    LAYOUT = struct.Struct(">")


@dataclass(frozen=True)
class StatusRequest(_Command):
    """Ask for a STATUS; also the host's heartbeat."""

    TYPE = 0x83
    NAME = "STATUS_REQUEST"
    LAYOUT = struct.Struct(">")


@dataclass(frozen=True)
class Indicator(_Command):
    """Set the lamps: the bonus-card lamp and the per-seat lamps (the set of lit seats)."""

    TYPE = 0x84
    NAME = "INDICATOR"
    LAYOUT = struct.Struct(">BB")

    bonus_lamp: bool
    seat_lamps: frozenset[int] = frozenset()

    def _validate(self, fields: _Fields) -> None:
        fields.flag("bonus_lamp")
        fields.seats("seat_lamps")

    def _wire_values(self) -> tuple[Any, ...]:
        return (self.bonus_lamp, seat_mask(self.seat_lamps))

    @classmethod
    def _from_wire(cls, values: tuple[Any, ...]) -> Self:
        bonus, lamps = values
        return cls(bonus, mask_seats(lamps))


MESSAGE_CLASSES: tuple[type[Message], ...] = (
    Hello,
    Status,
    CardMessage,
    Unreadable,
    Deck,
    DeckCardMessage,
    Fault,
    FaultCleared,
    SeatOccupied,
    SeatCard,
    Ack,
    Resend,
    Reset,
    StatusRequest,
    Indicator,
)
BY_TYPE: Mapping[int, type[Message]] = {cls.TYPE: cls for cls in MESSAGE_CLASSES}
BY_NAME: Mapping[str, type[Message]] = {cls.NAME: cls for cls in MESSAGE_CLASSES}


def to_dict(message: Message) -> dict[str, Any]:
    """A message as plain JSON-ready data: ``{"type": "CARD", "card": 51, ...}``.

    Enums are lower-case names, seat and fault sets sorted lists, a UID hex.
    """
    data: dict[str, Any] = {"type": message.NAME}
    for f in dataclasses.fields(message):
        value = getattr(message, f.name)
        if isinstance(value, WireEnum):
            value = value.value
        elif isinstance(value, frozenset):
            value = sorted(v.value if isinstance(v, WireEnum) else v for v in value)
        elif isinstance(value, bytes):
            value = value.hex()
        elif isinstance(value, tuple):
            value = list(value)
        data[f.name] = value
    return data


def from_dict(data: Mapping[str, Any]) -> Message:
    """The inverse of :func:`to_dict`; MessageError names what is wrong."""
    name = data.get("type")
    cls = BY_NAME.get(name) if isinstance(name, str) else None
    if cls is None:
        raise MessageError("message", "type", f"unknown message type {name!r}")
    fields = {k: v for k, v in data.items() if k != "type"}
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(fields) - known)
    if unknown:
        raise MessageError(cls.NAME, unknown[0], "no such field")
    try:
        return cls(**fields)
    except TypeError as exc:
        raise MessageError(cls.NAME, "fields", str(exc)) from None
