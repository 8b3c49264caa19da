"""What goes into the table core: every input is an immutable record with its time.

Every input carries ``at``, the time it happened (milliseconds since the Unix epoch, from
the shell's clock): the core never reads a clock. Every input writes itself with
``to_json()`` (a ``"type"`` tag and its fields) and reads back with ``input_from_json``:
the journal stores inputs this way and recovery replays them. The free text people type
(a player's name, a supervisor's id and reason) is typed with its rule
(``controller.text``): ``input_from_json`` refuses text the rule refuses and keeps it as
the rule gives it (NFC, stripped), but for an input read back from the journal, which is
replayed as it was written.

Devices: ``FromDevice``, one device's event as its driver reported it (the drivers' own
type of each message, ``drivers.events``: ``CardRead``, ``CardUnreadable``, ``CardAtSeat``,
``SeatOccupied``, ``SeatVacated``, ``DeckCard``, ``DeckLoaded``, ``DeviceFault``,
``DeviceFaultCleared``), with the device's own sequence number of it (``seq``, None: not
known); the links: ``LinkUp``, ``LinkDown``, ``DeviceRestarted``. ``Tick``: time passed,
for what waits on the clock.

People: ``Decide`` (a player's decision, said by the dealer or made by the player),
``NewHand``, ``DealerIn`` (the dealer who deals from the next hand on), ``SitDown``,
``SitOut``, ``SitIn``, ``Leave``, ``ChangeSeat``, ``Rebuy``, ``Configure``; the supervisor's
``VoidHand``, ``EnterCard``, ``CorrectCard``, ``WrongFace``, ``ResolveAlert`` and
``CorrectStack``, each with ``who`` and ``why`` (and ``second``, a second supervisor, where
the house's two-person control covers it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import Field, dataclass, field
from dataclasses import fields as dataclass_fields
from enum import StrEnum
from typing import Any, ClassVar, get_args

from controller.codec import Codec, CodecError, Scalar
from controller.rules import Card, Do, parse_card
from controller.table.settings import TableSettings
from controller.text import Id, Name, Reason
from drivers import events as ev
from drivers.protocol import DeviceKind
from luck_errors import LuckTableError


class TableInputError(LuckTableError, ValueError):
    """An input record that cannot be read (a bad journal line or API request)."""


class By(StrEnum):
    """Who entered a player's decision."""

    DEALER = "dealer"  # the dealer, as the player said it
    PLAYER = "player"  # the player, on their own screen


class Remedy(StrEnum):
    """How the supervisor resolves an alert (each alert kind lists the remedies it takes)."""

    HOLD = "hold"  # keep the card out of turn and deal it when the next card is due
    DEAD = "dead"  # take the card out of play
    DONE = "done"  # the condition was put right by hand (card moved, deck removed, ...)
    REPLACE_DECK = "replace_deck"  # the deck is taken out of play: the hand is void, a new deck due
    VOID = "void"  # the hand is void (a misdeal): every chip goes back

    @property
    def words(self) -> str:
        """The remedy as what to do, in the console's words ("take the card out")."""
        return _REMEDY_WORDS[self]


_REMEDY_WORDS = {
    Remedy.HOLD: "hold the hand",
    Remedy.DEAD: "take the card out",
    Remedy.DONE: "done, carry on",
    Remedy.REPLACE_DECK: "replace the deck",
    Remedy.VOID: "void the hand",
}


class Covered(StrEnum):
    """What of a supervisor's action the house's two-person control covers
    (``core.second_needed``), as data; ``words``, as its refusal says it."""

    VOID = "void"  # the hand's void, or an alert's remedy that voids the hand in progress
    WILD_CORRECTION = "wild_correction"  # a card corrected to or from a wild card
    WILD_ENTERED = "wild_entered"  # a wild card entered for an unread card
    STACK_CORRECTION = "stack_correction"

    @property
    def words(self) -> str:
        return _COVERED_WORDS[self]


_COVERED_WORDS = {
    Covered.VOID: "a void",
    Covered.WILD_CORRECTION: "a correction to or from a wild card",
    Covered.WILD_ENTERED: "a wild card entered",
    Covered.STACK_CORRECTION: "a stack correction",
}


#: A table input as JSON (``TableInput.to_json``, read back by :func:`input_from_json`): its
#: ``type`` and its fields as the codec writes them, or a device's event in its table form
#: (:class:`DeviceForm`). Each type has its own fields, declared once, by its dataclass: a
#: ``TypedDict`` of each would declare them a second time.
InputJson = dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class TableInput:
    """The base of every input: ``at`` is when it happened (ms since the Unix epoch)."""

    tag: ClassVar[str]
    at: int

    def to_json(self) -> InputJson:
        return {"type": self.tag, **CODEC.fields(self)}


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatInput(TableInput):
    """The base of the inputs about one seat."""

    seat: int


# Device events ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class FromDevice(TableInput):
    """A device's event as its driver reported it: ``event`` is the drivers' own record of
    the message (``drivers.events``, one type per device message: ``CardRead``,
    ``CardAtSeat``, ``DeckLoaded``, ...), the same the journal keeps. The input adds what
    the table knows beside it: when (``at``), which device (``device``, its kind) and the
    device's sequence number of it as journaled (``seq``; None: not known, as in an input
    the table took with no number, when the event's own ``seq`` is 0). The table core
    handles each type of event (``controller.table.core``).

    Among the table's own records (a record of source ``table``, a seat report waiting in a
    snapshot, a ``ReportWaits`` effect's data) the input is written in its table form
    (:data:`DEVICE_FORMS`): a tag and the fields the table acts on, in the table's names.
    """

    tag = "device_event"  # its records are tagged by its form (``form.tag``: ``card_read``)
    device: DeviceKind
    event: ev.DeviceEvent
    seq: int | None = None

    def __post_init__(self) -> None:
        if self.seq is not None and self.seq != self.event.seq:
            raise TableInputError(f"{self.form.tag}: seq {self.seq} is not its event's")

    @property
    def form(self) -> DeviceForm:
        return form_of(type(self.event))

    def to_json(self) -> InputJson:
        return self.form.write(self)


@dataclass(frozen=True, slots=True)
class DeviceForm:
    """How the table writes a device's event among its own records, and reads it back.

    ``tag`` names it, ``names`` lists its fields in the order written, each as (the table's
    name, the event's name); ``device``: its device is written (else it is ``sender``, the
    device that sends that message); ``absent``: the JSON value of each event's field a
    record may not hold: one the table does not act on and does not write (a read
    counter, a deck card's index), or one written only since it was added (a tag's UID).
    The form of a message declared here (:data:`DEVICE_FORMS`) is the one the table has
    always written; a message with none is written as the codec writes its event, under
    its class's name in snake case, with its device."""

    event: type[ev.DeviceEvent]
    tag: str
    names: tuple[tuple[str, str], ...]
    device: bool = True
    sender: DeviceKind | None = None
    absent: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def plain(cls, event: type[ev.DeviceEvent]) -> DeviceForm:
        """The form of a message declared with none: the event's fields as they are."""
        tag = re.sub(r"(?<!^)(?=[A-Z])", "_", event.__name__).lower()
        names = tuple((spec.name, spec.name) for spec in _event_fields(event))
        return cls(event, tag, names)

    def write(self, item: FromDevice) -> InputJson:
        values = CODEC.fields(item.event)
        data: InputJson = {"type": self.tag, "at": item.at}
        if self.device:
            data["device"] = item.device.value
        data.update((name, values[key]) for name, key in self.names)
        if self.event is ev.DeckLoaded and not values["registered"]:
            data["deck"] = None  # a shoe that registers no deck: the table counts its cards
        data["seq"] = item.seq
        return data

    def read(self, data: Mapping[str, Any], codec: Codec) -> FromDevice:
        """The input of the table form ``data`` (its ``type`` taken out); raises
        ``CodecError`` naming the table's field."""
        known = {"at", "seq", *(name for name, _ in self.names)}
        if self.device:
            known.add("device")
        unknown = sorted(set(data) - known)
        if unknown:
            raise CodecError(self.tag, f"unknown field {unknown[0]!r}")
        if "at" not in data:
            raise CodecError(self.tag, "missing field 'at'")
        at = codec.decode(int, data["at"], f"{self.tag}.at")
        seq = codec.decode(int | None, data.get("seq"), f"{self.tag}.seq")
        if self.device:
            if "device" not in data:
                raise CodecError(self.tag, "missing field 'device'")
            device = codec.decode(DeviceKind, data["device"], f"{self.tag}.device")
        else:
            assert self.sender is not None
            device = self.sender
        values = {key: data[name] for name, key in self.names if name in data}
        for key, value in self.absent.items():
            values.setdefault(key, value)
        values["seq"] = 0 if seq is None else seq
        if self.event is ev.DeckLoaded:  # a deck with an id was registered card by card
            values["registered"] = values["deck_id"] is not None
            if values["deck_id"] is None:
                values["deck_id"] = 0
            values["cards_remaining"] = values.get("cards_loaded")
        back = {key: name for name, key in self.names}
        try:
            event = codec.build(self.event, values, self.tag)
        except CodecError as error:  # in the table's names
            where = re.sub(r"\.(\w+)", lambda m: "." + back.get(m[1], m[1]), error.where, count=1)
            what = re.sub(r"'(\w+)'", lambda m: repr(back.get(m[1], m[1])), error.what, count=1)
            raise CodecError(where, what) from None
        return FromDevice(at=at, device=device, seq=seq, event=event)


def _event_fields(event: type[ev.DeviceEvent]) -> list[Field[Any]]:
    """An event's fields the codec writes, but ``seq`` (the input's, written last)."""
    return [spec for spec in dataclass_fields(event) if spec.compare and spec.name != "seq"]


#: The table form of each device message the table has written so far: its tag and its
#: fields in the table's names (the shoe's ``card`` is the table's ``code``), as journals
#: and snapshots hold them. A new message needs no line here (:meth:`DeviceForm.plain`).
DEVICE_FORMS: dict[type[ev.DeviceEvent], DeviceForm] = {
    form.event: form
    for form in (
        DeviceForm(
            ev.CardRead,
            "card_read",
            (("code", "card"), ("uid", "uid")),
            False,
            DeviceKind.SHOE,
            {"read_counter": 0, "uid": ""},
        ),
        DeviceForm(
            ev.CardUnreadable,
            "card_unreadable",
            (("disposition", "disposition"),),
            False,
            DeviceKind.SHOE,
            {"read_counter": 0},
        ),
        DeviceForm(
            ev.CardAtSeat,
            "card_at_seat",
            (("seat", "seat"), ("code", "card"), ("uid", "uid")),
            False,
            DeviceKind.SEAT_BOARD,
            {"card": None},
        ),
        DeviceForm(
            ev.SeatOccupied, "seat_occupied", (("seat", "seat"),), False, DeviceKind.SEAT_BOARD
        ),
        DeviceForm(
            ev.SeatVacated, "seat_vacated", (("seat", "seat"),), False, DeviceKind.SEAT_BOARD
        ),
        DeviceForm(
            ev.DeckCard,
            "deck_card",
            (("deck", "deck_id"), ("code", "card"), ("uid", "uid")),
            False,
            DeviceKind.SHOE,
            {"index": 0, "uid": ""},
        ),
        DeviceForm(
            ev.DeckLoaded,
            "deck_loaded",
            (("count", "cards_loaded"), ("deck", "deck_id")),
            False,
            DeviceKind.SHOE,
            {"deck_id": None},
        ),
        DeviceForm(ev.DeviceFault, "device_fault", (("fault", "code"),)),
        DeviceForm(ev.DeviceFaultCleared, "device_fault_cleared", (("fault", "code"),)),
    )
}


def form_of(event: type[ev.DeviceEvent]) -> DeviceForm:
    """The table form of a device message (its declared one, else the plain one)."""
    form = DEVICE_FORMS.get(event)
    return DeviceForm.plain(event) if form is None else form


#: Every device message's table form by its tag (the declared ones first).
_FORMS_BY_TAG: dict[str, DeviceForm] = {
    form.tag: form for form in (*DEVICE_FORMS.values(), *map(form_of, get_args(ev.DeviceEvent)))
}


@dataclass(frozen=True, slots=True, kw_only=True)
class LinkUp(TableInput):
    """The device said HELLO: ``boot`` (its boot id), ``next_seq`` (the number its next new
    event will carry), ``pending`` (how many events before it are not yet acknowledged:
    its backlog, resent now) and ``serial`` (its serial number, checked against the one
    the table expects). None when not known (journals written before they were kept): the
    table then takes the device as having nothing pending, and checks no serial."""

    tag = "link_up"
    device: DeviceKind
    boot: int | None = None
    next_seq: int | None = None
    pending: int | None = None
    serial: str | None = None  # the serial its HELLO reports (None: not known)


@dataclass(frozen=True, slots=True, kw_only=True)
class LinkDown(TableInput):
    tag = "link_down"
    device: DeviceKind
    reason: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceRestarted(TableInput):
    """The device came back (a new boot id, or behind the events it owed); ``lost``: how
    many events it could not resend, None when that is not known (a restart)."""

    tag = "device_restarted"
    device: DeviceKind
    lost: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Tick(TableInput):
    """Time passed (the service's clock, journaled): a seat report waiting for the shoe's
    report is decided once the shoe has nothing pending and the wait is over."""

    tag = "tick"


# Decisions and the table's own inputs --------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Decide(TableInput):
    """A player's decision, mapped to the engine's ``Action`` (``do``: bring_in, complete,
    check, call, bet, raise, fold, bonus with ``accept``, show, muck; ``to``: the street
    total after a wager, needed only when more than one size is legal)."""

    tag = "decide"
    seat: int
    do: Do
    to: int | None = None
    accept: bool | None = None
    by: By = By.DEALER


@dataclass(frozen=True, slots=True, kw_only=True)
class NewHand(TableInput):
    """Deal the next hand; ``dealer``: the id of the dealer dealing it (the console's
    signed-in dealer), None when not known (omitted from the journal then)."""

    tag = "new_hand"
    dealer: Id | None = None

    def to_json(self) -> InputJson:
        return _without_none(TableInput.to_json(self), "dealer")


@dataclass(frozen=True, slots=True, kw_only=True)
class DealerIn(TableInput):
    """A dealer push: dealer ``who`` signed in at the console and deals from the next hand
    on (a hand in progress keeps the dealer it started with)."""

    tag = "dealer_in"
    who: Id


@dataclass(frozen=True, slots=True, kw_only=True)
class SitDown(TableInput):
    """A player sits down with a buy-in; ``player_id``: the player card's number, when the
    player gave one (omitted from the journal otherwise)."""

    tag = "sit_down"
    seat: int
    player: Name
    buy_in: int
    player_id: Id | None = None

    def to_json(self) -> InputJson:
        return _without_none(TableInput.to_json(self), "player_id")


def _without_none(data: InputJson, key: str) -> InputJson:
    """``data`` without ``key`` when it is None: an optional field added to an input is
    journaled only when given, so that journals that never use it read as before."""
    if data.get(key, 0) is None:
        del data[key]
    return data


@dataclass(frozen=True, slots=True, kw_only=True)
class SitOut(SeatInput):
    tag = "sit_out"


@dataclass(frozen=True, slots=True, kw_only=True)
class SitIn(SeatInput):
    tag = "sit_in"


@dataclass(frozen=True, slots=True, kw_only=True)
class Leave(SeatInput):
    """The player leaves and cashes out the whole stack."""

    tag = "leave"


@dataclass(frozen=True, slots=True, kw_only=True)
class ChangeSeat(SeatInput):
    """The player at ``seat`` moves to the empty seat ``to`` with the same stack (and the
    same sitting), between their hands."""

    tag = "change_seat"
    to: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Rebuy(TableInput):
    tag = "rebuy"
    seat: int
    chips: int


@dataclass(frozen=True, slots=True, kw_only=True)
class AcknowledgeAlert(TableInput):
    """The dealer has seen an open alert (``who``: the dealer's id). It stays open, and the
    pause with it, until it is resolved; it is shown as acknowledged."""

    tag = "acknowledge_alert"
    alert: int
    who: Id


@dataclass(frozen=True, slots=True, kw_only=True)
class SignInAttack(TableInput):
    """An id under attack at the console: ``failures`` wrong PINs for ``role`` ``who``
    within ``window`` seconds, from ``clients`` (the addresses, comma-separated). The
    addresses are refused for a while and the id slowed down by the console; the table
    raises a non-blocking alert for the supervisor and surveillance."""

    tag = "sign_in_attack"
    role: str
    who: str
    failures: int
    window: int
    clients: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SignInLocked(SignInAttack):
    """An id locked at the console: ``failures`` wrong PINs for ``role`` (dealer or
    supervisor) ``who`` within ``window`` seconds (the hour), from ``clients``. The console
    refuses the id from every address but its kiosks until a supervisor unlocks it; the
    table raises a blocking alert, whose resolution (``done``) is the unlock."""

    tag = "sign_in_locked"


@dataclass(frozen=True, slots=True, kw_only=True)
class ClockStepped(TableInput):
    """The service saw its wall clock step by ``step`` ms (negative: back) against its
    monotonic clock: the journal's times jump by that much from this input on. The table
    keeps its ages true (a deck's life, a seat report's wait: they move with the step) and
    raises a non-blocking alert."""

    tag = "clock_stepped"
    step: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Configure(TableInput):
    """New table settings, between hands."""

    tag = "configure"
    settings: TableSettings


# Supervisor actions: each says who and why --------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class SupervisorInput(TableInput):
    """``who`` acts, saying ``why``; ``second``: the second supervisor who approved it, where
    the house's two-person control covers the action (``core.second_needed``), None (and
    omitted from the journal) otherwise."""

    who: Id
    why: Reason
    second: Id | None = None

    def to_json(self) -> InputJson:
        return _without_none(TableInput.to_json(self), "second")


@dataclass(frozen=True, slots=True, kw_only=True)
class VoidHand(SupervisorInput):
    tag = "void_hand"


@dataclass(frozen=True, slots=True, kw_only=True)
class EnterCard(SupervisorInput):
    """The supervisor names the card of the open unread-card alert."""

    tag = "enter_card"
    card: Card


@dataclass(frozen=True, slots=True, kw_only=True)
class CorrectCard(SupervisorInput):
    """A misread: ``wrong`` was read, the card is ``right``; before it is acted on."""

    tag = "correct_card"
    wrong: Card
    right: Card


@dataclass(frozen=True, slots=True, kw_only=True)
class WrongFace(SupervisorInput):
    """``card`` lies at ``seat`` with the other face than the deal gave it: a face-down
    card face up (an exposed card), or an up card face down."""

    tag = "wrong_face"
    seat: int
    card: Card


@dataclass(frozen=True, slots=True, kw_only=True)
class ResolveAlert(SupervisorInput):
    tag = "resolve_alert"
    alert: int
    remedy: Remedy


@dataclass(frozen=True, slots=True, kw_only=True)
class CorrectStack(SupervisorInput):
    tag = "correct_stack"
    seat: int
    stack: int


@dataclass(frozen=True, slots=True, kw_only=True)
class UndoDecision(SupervisorInput):
    """Seat ``seat``'s decision ``do``, the hand's last input, is taken back: the hand is
    as it was before it, as long as no card has been dealt since (a dealer's wrong tap,
    caught before the next card)."""

    tag = "undo_decision"
    seat: int
    do: Do


INPUT_TYPES: dict[str, type[TableInput]] = {
    kind.tag: kind
    for kind in (
        LinkUp,
        LinkDown,
        DeviceRestarted,
        Tick,
        Decide,
        NewHand,
        DealerIn,
        SitDown,
        SitOut,
        SitIn,
        Leave,
        ChangeSeat,
        Rebuy,
        AcknowledgeAlert,
        SignInAttack,
        SignInLocked,
        ClockStepped,
        Configure,
        VoidHand,
        EnterCard,
        CorrectCard,
        WrongFace,
        ResolveAlert,
        CorrectStack,
        UndoDecision,
    )
}


def _settings(value: object) -> TableSettings:
    if not isinstance(value, Mapping):
        raise ValueError(f"{value!r} is not an object")
    return TableSettings.from_json(value)


def _card(value: object) -> Card:
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is not a card")
    return parse_card(value)


_SCALARS: dict[type, Scalar] = {
    Card: (str, _card),
    TableSettings: (TableSettings.to_json, _settings),
}
#: The table's inputs as JSON: a card is its name, the settings their own object.
CODEC = Codec(_SCALARS)
#: The same, reading free text as it was journaled (written before its rule, perhaps).
_JOURNALED = Codec(_SCALARS, checks=False)


def input_from_json(data: Mapping[str, Any], *, journaled: bool = False) -> TableInput:
    """Read an input written by ``to_json``; ``TableInputError`` names what is wrong, free
    text its rule refuses included. ``journaled``: the input is read back from the journal,
    its text as it was written (recovery gives the table it gave then)."""
    if not isinstance(data, Mapping):
        raise TableInputError(f"an input must be an object, not {data!r}")
    tag = data.get("type")
    if not isinstance(tag, str) or (tag not in INPUT_TYPES and tag not in _FORMS_BY_TAG):
        tags = ", ".join([*_FORMS_BY_TAG, *INPUT_TYPES])
        raise TableInputError(f"'type': {tag!r} is not one of {tags}")
    codec = _JOURNALED if journaled else CODEC
    fields = {k: v for k, v in data.items() if k != "type"}
    try:
        if tag in _FORMS_BY_TAG:
            return _FORMS_BY_TAG[tag].read(fields, codec)
        item: TableInput = codec.build(INPUT_TYPES[tag], fields, tag)
    except CodecError as error:
        raise TableInputError(str(error)) from None
    return item
