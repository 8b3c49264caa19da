"""Alerts as records: what each kind of alert knows, and its words made from that.

An :class:`Alert` is an open alert: its number, when it was raised, who acknowledged it,
and its facts, one frozen dataclass per :class:`AlertKind` (:class:`CardOutOfTurn`,
:class:`CardMismatch`, ...). The table core reads the facts (the seat, the card, the
device); people read the words, which the facts make when asked: ``say`` (what happened)
and ``todo`` (what to do), each given ``name``, how to name a card (``str``: "Kd"; a
viewer's: "a card" for a card they may not see). A card reaches the words only through
``name``, so no wording can show a card its reader may not see.

The table tells of alerts with two effects, records as well: :class:`Raised` (an alert
opened) and :class:`Cleared` (how it closed: a :class:`Clearance`).

``Alert.to_json`` writes the facts (``"facts"``) beside the words and the flat fields that
the consoles and the floor read; ``Alert.from_json`` reads it back, and reads an alert of
a snapshot taken before the facts were kept (their words read by ``controller.table.legacy``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import Field, dataclass, fields
from enum import StrEnum
from typing import Any, ClassVar, NamedTuple, TypedDict

from controller.rules import Card, Dest, Effect, Form, Wait, Waiting, parse_card, say_waiting
from controller.rules.state import STREET_NAMES
from controller.table import legacy
from controller.table.inputs import Remedy
from controller.table.told import TableTold, device_words
from drivers.protocol import DeviceKind, FaultCode

#: How the words name a card: ``str`` ("Kd"), or a viewer's (a hidden card: "a card").
Name = Callable[[Card], str]


class Severity(StrEnum):
    """How the console colours an alert."""

    FAULT = "fault"  # red: a device or link failed
    ABNORMAL = "abnormal"  # yellow: something happened that should not have
    ACTION = "action"  # blue: someone must act for the table to go on


class AlertKind(StrEnum):
    CARD_OUT_OF_TURN = "card_out_of_turn"
    CARD_IN_PLAY = "card_in_play"
    CARD_NOT_IN_DECK = "card_not_in_deck"
    BAD_DECK = "bad_deck"
    DECK_DURING_HAND = "deck_during_hand"
    UNREAD_CARD = "unread_card"
    MISPLACED_CARD = "misplaced_card"
    CARD_AT_EMPTY_SEAT = "card_at_empty_seat"
    CARD_NOT_DEALT = "card_not_dealt"
    CARD_MISMATCH = "card_mismatch"
    DEAD_CARD = "dead_card"
    DEVICE_FAULT = "device_fault"
    LINK_DOWN = "link_down"
    EVENTS_LOST = "events_lost"
    PLAYER_AWAY = "player_away"
    SIGN_IN_ATTACK = "sign_in_attack"
    SIGN_IN_LOCKED = "sign_in_locked"
    DECK_REJECTED = "deck_rejected"
    FOREIGN_CARD = "foreign_card"
    DECK_DUE = "deck_due"
    CLOCK_STEPPED = "clock_stepped"
    DECK_NOT_SHUFFLED = "deck_not_shuffled"
    WRONG_CARD_NAMED = "wrong_card_named"
    UNVERIFIED_READ = "unverified_read"
    CARD_MOVED = "card_moved"
    DEVICE_REPLACED = "device_replaced"
    SHOE_EMPTY = "shoe_empty"


class AlertRule(NamedTuple):
    """What an alert kind is: its colour, whether it pauses the dealing, the supervisor's
    remedies for ``ResolveAlert`` (none: only the device or the table clears it), and
    whether it belongs to the hand (a void clears it; a device's alerts stay)."""

    severity: Severity
    blocking: bool
    remedies: tuple[Remedy, ...]
    of_hand: bool


_HOLD, _DEAD, _DONE, _REPLACE = Remedy.HOLD, Remedy.DEAD, Remedy.DONE, Remedy.REPLACE_DECK
_VOID = Remedy.VOID
ALERT_RULES: dict[AlertKind, AlertRule] = {
    AlertKind.CARD_OUT_OF_TURN: AlertRule(Severity.ABNORMAL, True, (_HOLD, _DEAD), True),
    AlertKind.CARD_IN_PLAY: AlertRule(Severity.ABNORMAL, True, (_DEAD,), True),
    AlertKind.CARD_NOT_IN_DECK: AlertRule(Severity.ABNORMAL, True, (_DEAD,), True),
    AlertKind.BAD_DECK: AlertRule(Severity.ACTION, True, (_DONE,), False),
    AlertKind.DECK_DURING_HAND: AlertRule(Severity.ABNORMAL, True, (_DONE,), True),
    AlertKind.UNREAD_CARD: AlertRule(Severity.ACTION, True, (_DEAD,), True),
    AlertKind.MISPLACED_CARD: AlertRule(Severity.ACTION, True, (_DONE,), True),
    AlertKind.CARD_AT_EMPTY_SEAT: AlertRule(Severity.ACTION, True, (_DONE,), True),
    AlertKind.CARD_NOT_DEALT: AlertRule(Severity.ABNORMAL, True, (_DONE,), True),
    AlertKind.CARD_MISMATCH: AlertRule(Severity.ABNORMAL, True, (_DONE,), True),
    AlertKind.DEAD_CARD: AlertRule(Severity.ACTION, True, (_DONE,), True),
    AlertKind.DEVICE_FAULT: AlertRule(Severity.FAULT, True, (), False),
    AlertKind.LINK_DOWN: AlertRule(Severity.FAULT, True, (), False),
    AlertKind.EVENTS_LOST: AlertRule(Severity.FAULT, True, (_DONE,), True),
    AlertKind.PLAYER_AWAY: AlertRule(Severity.ABNORMAL, False, (_DONE,), True),
    AlertKind.SIGN_IN_ATTACK: AlertRule(Severity.ABNORMAL, False, (_DONE,), False),
    AlertKind.SIGN_IN_LOCKED: AlertRule(Severity.ABNORMAL, True, (_DONE,), False),
    AlertKind.DECK_REJECTED: AlertRule(Severity.ABNORMAL, True, (), False),
    AlertKind.FOREIGN_CARD: AlertRule(Severity.ABNORMAL, True, (_DEAD, _REPLACE), True),
    AlertKind.DECK_DUE: AlertRule(Severity.ACTION, False, (_DONE,), False),
    AlertKind.CLOCK_STEPPED: AlertRule(Severity.ABNORMAL, False, (_DONE,), False),
    AlertKind.DECK_NOT_SHUFFLED: AlertRule(Severity.ABNORMAL, False, (_DONE,), False),
    AlertKind.WRONG_CARD_NAMED: AlertRule(Severity.ABNORMAL, True, (_DONE, _VOID), True),
    # not blocking unless the house says so (``Table.blocks``), not of the hand: surveillance's
    AlertKind.UNVERIFIED_READ: AlertRule(Severity.ABNORMAL, False, (_DONE,), False),
    AlertKind.CARD_MOVED: AlertRule(Severity.ABNORMAL, True, (_HOLD, _VOID), True),
    AlertKind.DEVICE_REPLACED: AlertRule(Severity.ABNORMAL, True, (_DONE,), False),
    AlertKind.SHOE_EMPTY: AlertRule(Severity.ABNORMAL, True, (_VOID,), True),
}


class Tamper(StrEnum):
    """Why a card is not one of the table's deck."""

    FOREIGN = "foreign"  # its tag is not of the registered deck
    RETAGGED = "retagged"  # its tag is registered for another card
    CLONED = "cloned"  # its tag was already dealt from this deck
    UNTAGGED = "untagged"  # the shoe read it without a tag UID
    SWITCHED = "switched"  # at a seat: not the card the shoe dealt there (same face)
    NOT_DEALT = "not_dealt"  # at a seat: a card that never came out of the shoe


class Lay(StrEnum):
    """Where the table has a card that a seat's reader sees elsewhere (``card_moved``)."""

    SEAT = "seat"  # a live player's card, dealt to that seat
    FOLDED = "folded"  # a card of a player who folded
    BURN = "burn"  # a burn card
    COMMUNITY = "community"  # the community card
    OUT_OF_PLAY = "out_of_play"  # out of the shoe and taken out of play, or held aside


class Named(StrEnum):
    """Why a card a supervisor named (a correction, an entry) cannot be the card."""

    IN_SHOE = "in_shoe"  # its tag has not come out of the shoe: the card is still in it
    IN_PLAY = "in_play"  # the card is already in play


# Why a card is not due, and where a due card goes -------------------------------------


class Busy(StrEnum):
    """Why a card out of the shoe cannot go to the hand now."""

    NO_HAND = "no_hand"
    PAUSED = "paused"
    BONUS = "bonus"  # seat ``seat`` decides on the bonus card
    SHOW = "show"  # seat ``seat`` is to show or muck
    ACT = "act"  # seat ``seat`` is to act
    UNREAD = "unread"  # the supervisor entered a card that left the shoe unread, not due


class NotDueJson(TypedDict):
    """Why a card was not due, as an alert's facts write it (:class:`NotDue`)."""

    busy: str
    seat: int | None


@dataclass(frozen=True, slots=True)
class NotDue:
    """Why a card out of the shoe is not the card the hand waits for."""

    busy: Busy
    seat: int | None = None

    @classmethod
    def of(cls, waiting: Waiting) -> NotDue:
        """The hand waits for ``waiting``, a decision: not for a card."""
        return cls(_BUSY[waiting.kind], waiting.seat)

    @property
    def words(self) -> str:
        match self.busy:
            case Busy.NO_HAND:
                return "with no hand in progress"
            case Busy.PAUSED:
                return "while the table is paused"
            case Busy.UNREAD:
                return "unread"
        waits = next(kind for kind, busy in _BUSY.items() if busy is self.busy)
        return say_waiting(Waiting(waits, self.seat), Form.WHILE)

    def to_json(self) -> NotDueJson:
        return {"busy": self.busy.value, "seat": self.seat}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> NotDue:
        return cls(Busy(data["busy"]), data["seat"])


_BUSY = {Wait.BONUS: Busy.BONUS, Wait.SHOW: Busy.SHOW, Wait.ACTION: Busy.ACT}


# The facts of each kind of alert ------------------------------------------------------

#: An alert's facts as JSON (``AlertFacts.to_json``): its kind's fields by name, as
#: ``_encode`` writes them. Each kind's fields are declared once, by its dataclass: a
#: ``TypedDict`` of each would declare them a second time.
FactsJson = dict[str, Any]


class AlertFacts:
    """What an alert of one kind knows. Each kind is a frozen dataclass of its facts;
    ``say`` and ``todo`` word them, naming each card with ``name``."""

    __slots__ = ()
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]  # each kind is a dataclass
    kind: ClassVar[AlertKind]

    def say(self, name: Name = str) -> str:
        """What happened."""
        raise NotImplementedError

    def todo(self, name: Name = str) -> str:
        """What to do."""
        raise NotImplementedError

    @property
    def cards(self) -> tuple[Card, ...]:
        """The cards the alert is about (its words name no other)."""
        return tuple(
            value for spec in fields(self) if isinstance(value := getattr(self, spec.name), Card)
        )

    def to_json(self) -> FactsJson:
        return {spec.name: _encode(getattr(self, spec.name)) for spec in fields(self)}

    @staticmethod
    def from_json(kind: AlertKind, data: Mapping[str, Any]) -> AlertFacts:
        """Read the facts of an alert of ``kind`` written by ``to_json``."""
        made = FACTS[kind]  # a field added later, absent in an older record: its default
        known = (spec.name for spec in fields(made) if spec.name in data)
        return made(**{name: _decode(name, data[name]) for name in known})


def _encode(value: object) -> object:
    if isinstance(value, tuple):
        return [_encode(item) for item in value]
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, NotDue):
        return value.to_json()
    return value


def _cards(names: list[str]) -> tuple[Card, ...]:
    return tuple(parse_card(name) for name in names)


_DECODE: dict[str, Callable[[Any], Any]] = {
    "card": parse_card,
    "read": parse_card,
    "registered": parse_card,
    "missing": _cards,
    "twice": _cards,
    "untagged": _cards,
    "extra": tuple,
    "cloned": tuple,
    "tamper": Tamper,
    "was": parse_card,
    "named": Named,
    "lay": Lay,
    "why": NotDue.from_json,
    "to": Dest,
    "device": DeviceKind,
    "fault": FaultCode,
}


def _decode(field: str, value: Any) -> Any:
    decode = _DECODE.get(field)
    return value if value is None or decode is None else decode(value)


@dataclass(frozen=True, slots=True)
class CardOutOfTurn(AlertFacts):
    """A card out of the shoe that the hand did not wait for (``why``)."""

    kind = AlertKind.CARD_OUT_OF_TURN
    card: Card
    why: NotDue

    def say(self, name: Name = str) -> str:
        return f"a card came out of the shoe {self.why.words}"

    def todo(self, name: Name = str) -> str:
        return (
            "keep the card face down aside; the supervisor holds it (it is dealt as the next "
            "card due) or takes it out of play"
        )


@dataclass(frozen=True, slots=True)
class CardInPlay(AlertFacts):
    """The shoe read a card that is already out of it: a second copy, or a misread.
    ``own_tag``: with the deck's own tag of it, out of the shoe for the first time: the
    card in play under its name was named without its tag (entered, or read by its face),
    and is another card."""

    kind = AlertKind.CARD_IN_PLAY
    card: Card
    own_tag: bool = False

    def say(self, name: Name = str) -> str:
        if self.own_tag:
            return (
                f"the shoe read {name(self.card)} with the deck's own tag of it, out for the "
                f"first time: the {name(self.card)} in play was named without its tag and is "
                "another card"
            )
        return "the card read is already in play (a second copy, or a misread)"

    def todo(self, name: Name = str) -> str:
        if self.own_tag:
            return (
                "keep this card face down aside and call surveillance; check the card the "
                f"table has as the {name(self.card)}: the supervisor corrects it to the card "
                "it is (this card then goes where it is due), or voids the hand"
            )
        return (
            "take the card away and check the deck; the supervisor takes it out of play "
            "or voids the hand"
        )


@dataclass(frozen=True, slots=True)
class CardNotInDeck(AlertFacts):
    """The shoe read a card code (``code``, kept for the journal, never said) that no card
    of a deck has. The words say it as the dealer sees it, with no code; earlier releases
    said the code (``controller.table.legacy`` reads those words)."""

    kind = AlertKind.CARD_NOT_IN_DECK
    code: int

    def say(self, name: Name = str) -> str:
        return "the shoe read a card that is not one of the deck's cards"

    def todo(self, name: Name = str) -> str:
        return (
            "keep the card face down aside and call surveillance; the supervisor takes it out "
            "of play or voids the hand"
        )


@dataclass(frozen=True, slots=True)
class BadDeck(AlertFacts):
    """A deck of ``count`` cards, not 52, was loaded between hands."""

    kind = AlertKind.BAD_DECK
    count: int

    def say(self, name: Name = str) -> str:
        return f"a deck of {self.count} cards was loaded: a deck has 52"

    def todo(self, name: Name = str) -> str:
        return "remove the deck and load a full deck of 52"


@dataclass(frozen=True, slots=True)
class DeckDuringHand(AlertFacts):
    """A deck of ``count`` cards was loaded during ``hand``."""

    kind = AlertKind.DECK_DURING_HAND
    count: int
    hand: int

    def say(self, name: Name = str) -> str:
        return f"a deck of {self.count} cards was loaded during hand {self.hand}"

    def todo(self, name: Name = str) -> str:
        return "take the new deck out of the shoe; the supervisor resolves it or voids the hand"


@dataclass(frozen=True, slots=True)
class UnreadCard(AlertFacts):
    """A card left the shoe unread: not due (``why``), or the card due (``why`` None), which
    goes ``to`` seat ``belongs`` face ``up`` (or is the burn or community card);
    ``seat_board``: it goes to a seat whose seat-board reader may identify it."""

    kind = AlertKind.UNREAD_CARD
    why: NotDue | None = None
    to: Dest | None = None
    belongs: int | None = None
    up: bool = False
    seat_board: bool = False

    @property
    def due(self) -> bool:
        return self.why is None

    def say(self, name: Name = str) -> str:
        if self.why is not None:
            return f"a card left the shoe unread {self.why.words}"
        assert self.to is not None
        due = Waiting.card(self.to, 0, self.belongs, self.up)
        return f"a card left the shoe unread: it is {say_waiting(due, Form.WHERE)}"

    def todo(self, name: Name = str) -> str:
        if self.why is not None:
            return (
                "keep the card face down aside; the supervisor enters it, or takes it out of play"
            )
        if self.seat_board:
            return (
                f"deal it to seat {self.belongs}: the seat's reader identifies it, or the "
                "supervisor enters it"
            )
        return "the supervisor enters it (or takes it out of play)"


@dataclass(frozen=True, slots=True)
class _Stray(AlertFacts):
    """A card (``card``; None: its reader did not know it) landed at ``seat``, where it
    does not belong; it belongs to seat ``belongs`` (None: not known)."""

    seat: int
    card: Card | None
    belongs: int | None

    def todo(self, name: Name = str) -> str:
        if self.belongs is not None:
            return f"move it to seat {self.belongs}: the seat board confirms it there"
        return "move it where it belongs; the supervisor resolves it once it is there"


@dataclass(frozen=True, slots=True)
class MisplacedCard(_Stray):
    """A stray card at the seat of a player in the hand."""

    kind = AlertKind.MISPLACED_CARD

    def say(self, name: Name = str) -> str:
        belongs = "where it belongs" if self.belongs is None else f"seat {self.belongs}"
        return f"a card landed at seat {self.seat}; it belongs to {belongs}"


@dataclass(frozen=True, slots=True)
class CardAtEmptySeat(_Stray):
    """A stray card at a seat with no one in the hand (or a folded player)."""

    kind = AlertKind.CARD_AT_EMPTY_SEAT

    def say(self, name: Name = str) -> str:
        return f"a card landed at seat {self.seat}, where no one is in the hand"


@dataclass(frozen=True, slots=True)
class CardNotDealt(AlertFacts):
    """The seat board sees at ``seat`` a card the shoe did not deal this hand."""

    kind = AlertKind.CARD_NOT_DEALT
    seat: int
    card: Card

    def say(self, name: Name = str) -> str:
        return f"a card the shoe did not deal this hand is at seat {self.seat}"

    def todo(self, name: Name = str) -> str:
        return "take the card away from the seat; the supervisor resolves it or voids the hand"


@dataclass(frozen=True, slots=True)
class CardMismatch(AlertFacts):
    """The shoe read ``read`` for ``seat``; the seat's reader sees ``card`` there."""

    kind = AlertKind.CARD_MISMATCH
    seat: int
    read: Card
    card: Card

    @property
    def belongs(self) -> int:
        return self.seat

    def say(self, name: Name = str) -> str:
        seat = self.seat
        return (
            f"the shoe read {name(self.read)} for seat {seat}; seat {seat}'s reader sees "
            f"{name(self.card)}"
        )

    def todo(self, name: Name = str) -> str:
        read, card = name(self.read), name(self.card)
        return (
            f"check the card at seat {self.seat} and leave it there: if it is the {card}, the "
            f"supervisor corrects {read} to {card}; if it is the {read}, the supervisor "
            "resolves it"
        )


@dataclass(frozen=True, slots=True)
class DeadCard(AlertFacts):
    """Seat ``seat``'s bonus card ``card`` was not earned (a corrected card): it is dead."""

    kind = AlertKind.DEAD_CARD
    seat: int
    card: Card

    def say(self, name: Name = str) -> str:
        return f"seat {self.seat}'s bonus card was not earned: it is a dead card"

    def todo(self, name: Name = str) -> str:
        return (
            f"take the face-down bonus card away from seat {self.seat} unseen, with the "
            "discards; the supervisor resolves it"
        )


@dataclass(frozen=True, slots=True)
class ShoeEmpty(AlertFacts):
    """The hand waits for a card (``to`` seat ``seat`` on ``street``, or the community card)
    and the shoe holds none: ``gone`` cards of the hand were taken out of play undealt, and
    its burn cards are back in the shoe already (or it burned none)."""

    kind = AlertKind.SHOE_EMPTY
    to: Dest
    street: int
    seat: int | None = None
    gone: int = 0

    def say(self, name: Name = str) -> str:
        where = "the community card" if self.seat is None else f"seat {self.seat}'s card"
        street = STREET_NAMES.get(self.street, str(self.street))
        return (
            f"the shoe holds no card for {where} on {street} street: {self.gone} "
            f"card{_s(self.gone)} of this hand taken out of play, the burn cards dealt again"
        )

    def todo(self, name: Name = str) -> str:
        return "the hand cannot be dealt to its end: the supervisor voids it (void)"


_FAULT_WORDS = {
    FaultCode.JAM: ("a card is jammed in the shoe's exit", "clear the jam"),
    FaultCode.LID_OPEN: ("the shoe's lid is open", "close the lid"),
    FaultCode.READER: ("a card reader failed", "call a technician"),
    FaultCode.TAMPER: ("the enclosure was opened", "call the supervisor and surveillance"),
    FaultCode.SENSOR: ("a seat sensor failed", "call a technician"),
}


@dataclass(frozen=True, slots=True)
class DeviceFault(AlertFacts):
    """The device reports ``fault``, until it reports it cleared."""

    kind = AlertKind.DEVICE_FAULT
    device: DeviceKind
    fault: FaultCode

    def say(self, name: Name = str) -> str:
        return f"{device_words(self.device)}: {_FAULT_WORDS[self.fault][0]}"

    def todo(self, name: Name = str) -> str:
        todo = _FAULT_WORDS[self.fault][1]
        return f"{todo}; the table goes on when the device reports the fault cleared"


@dataclass(frozen=True, slots=True)
class LinkDown(AlertFacts):
    """The device's link is down (``reason``: the driver's words, "" if none)."""

    kind = AlertKind.LINK_DOWN
    device: DeviceKind
    reason: str = ""

    def say(self, name: Name = str) -> str:
        return f"the {device_words(self.device)} is not connected"

    def todo(self, name: Name = str) -> str:
        return "check its cable and power; the table goes on when the link is back"


@dataclass(frozen=True, slots=True)
class EventsLost(AlertFacts):
    """The device restarted and lost ``lost`` events (None: perhaps some)."""

    kind = AlertKind.EVENTS_LOST
    device: DeviceKind
    lost: int | None

    def say(self, name: Name = str) -> str:
        lost = self.lost
        what = "may have lost events" if lost is None else f"lost {lost} event{_s(lost)}"
        device = device_words(self.device)
        return f"the {device} restarted and {what}: cards or seat reports may be missing"

    def todo(self, name: Name = str) -> str:
        return (
            "check every card on the table against the console; the supervisor resolves it "
            "or voids the hand"
        )


@dataclass(frozen=True, slots=True)
class PlayerAway(AlertFacts):
    """The player at ``seat`` left it during ``hand``."""

    kind = AlertKind.PLAYER_AWAY
    seat: int
    hand: int

    def say(self, name: Name = str) -> str:
        return f"the player at seat {self.seat} left the seat during hand {self.hand}"

    def todo(self, name: Name = str) -> str:
        return (
            "the hand stays live: the player comes back, or folds (said to the dealer) when "
            "it is their turn"
        )


@dataclass(frozen=True, slots=True)
class SignInAttack(AlertFacts):
    """``failures`` wrong PINs for ``role`` ``who`` within ``window`` s, from ``clients``."""

    kind = AlertKind.SIGN_IN_ATTACK
    failures: int
    role: str
    who: str
    window: int
    clients: str

    def say(self, name: Name = str) -> str:
        return (
            f"sign-in attack: {self.failures} wrong PINs for {self.role} {self.who} within "
            f"{self.window} s, from {self.clients}"
        )

    def todo(self, name: Name = str) -> str:
        return (
            "those addresses are refused for a while and the id's sign-ins slowed down (the "
            f"{self.role} still signs in); find who is trying, then resolve it"
        )


@dataclass(frozen=True, slots=True)
class SignInLocked(SignInAttack):
    """``failures`` wrong PINs for ``role`` ``who`` within ``window`` s (the hour), from
    ``clients``: the id is locked."""

    kind = AlertKind.SIGN_IN_LOCKED

    def say(self, name: Name = str) -> str:
        return (
            f"{self.role} {self.who} locked: {self.failures} wrong PINs within "
            f"{self.window} s, from {self.clients}"
        )

    def todo(self, name: Name = str) -> str:
        return (
            f"someone is guessing the {self.role}'s PIN: the id signs in only at a registered "
            "kiosk; find who is trying, then a supervisor unlocks it"
        )


@dataclass(frozen=True, slots=True)
class DeckRejected(AlertFacts):
    """The deck loaded (``count`` cards, the shoe's count) is not accepted. ``deck``: the
    shoe's id of it; None: the shoe registered none of its cards, at a table that checks
    every card's tag. Else what its registration (``reads``: the cards it read) lacks:
    ``missing`` cards, cards read ``twice`` or more, ``extra`` codes of no card, tag UIDs
    ``cloned`` onto more than one card, cards read without a tag (``untagged``)."""

    kind = AlertKind.DECK_REJECTED
    deck: int | None
    count: int
    reads: int = 0
    missing: tuple[Card, ...] = ()
    twice: tuple[Card, ...] = ()
    extra: tuple[int, ...] = ()
    cloned: tuple[str, ...] = ()
    untagged: tuple[Card, ...] = ()

    @property
    def cards(self) -> tuple[Card, ...]:
        return (*self.missing, *self.twice, *self.untagged)

    def say(self, name: Name = str) -> str:
        if self.deck is None:
            return (
                f"a deck of {self.count} cards was loaded without its registration: this table "
                "checks every card's tag against the deck the shoe registers"
            )
        found = [
            _listed(len(self.missing), "card", "missing", map(name, self.missing)),
            _listed(len(self.twice), "card", "more than once", map(name, self.twice)),
            _listed(len(self.extra), "code", "of no card", map(str, self.extra)),
            _listed(len(self.cloned), "tag", "on more than one card", ()),
            _listed(len(self.untagged), "card", "without a tag", map(name, self.untagged)),
        ]
        if self.count != self.reads:
            found.append(f"the shoe counted {self.count}, registered {self.reads}")
        what = "; ".join(part for part in found if part)
        return f"deck {self.deck} is rejected: {what}"

    def todo(self, name: Name = str) -> str:
        return (
            "take the deck out of the shoe, keep it for surveillance, and load another deck: "
            "the table goes on when the shoe registers a full deck"
        )


def _listed(count: int, noun: str, what: str, names: Iterable[str]) -> str:
    """``"2 cards missing (Kd, a card)"`` (no names: ``"2 tags on more than one card"``),
    or "" for none."""
    if not count:
        return ""
    listed = ", ".join(names)
    return f"{count} {noun}{_s(count)} {what}" + (f" ({listed})" if listed else "")


_TAMPER_WORDS = {
    Tamper.FOREIGN: "with a tag that is not of this table's deck",
    Tamper.RETAGGED: "with a tag this table's deck has on another card: a re-tagged card",
    Tamper.CLONED: "with a tag already dealt from this deck: a cloned tag",
}


@dataclass(frozen=True, slots=True)
class ForeignCard(AlertFacts):
    """A card that is not the table's deck's (``tamper``: how the table knows): read by the
    shoe (``seat`` None), or by the reader at ``seat``. ``card``: the card it reads as (None:
    it reads as no card, a tag of another deck at a reader that knows a card only by its
    tag); ``uid``: its tag UID ("": none read); ``registered``: the card the deck has that
    tag on (a re-tagged card, or a card of this deck at a seat it was never dealt to)."""

    kind = AlertKind.FOREIGN_CARD
    tamper: Tamper
    card: Card | None
    uid: str = ""
    seat: int | None = None
    registered: Card | None = None

    def say(self, name: Name = str) -> str:
        card, seat = "a card" if self.card is None else name(self.card), self.seat
        match self.tamper:
            case Tamper.UNTAGGED:
                return f"the shoe read {card} without a tag: this table checks every card's tag"
            case Tamper.SWITCHED:
                return (
                    f"the card at seat {seat} ({card}) is not the card the shoe dealt there: a "
                    "switched card"
                )
            case Tamper.NOT_DEALT:
                return f"a card the shoe never dealt is at seat {seat} ({card})"
        reader = "the shoe" if seat is None else f"seat {seat}'s reader"
        return f"{reader} read {card} {_TAMPER_WORDS[self.tamper]}"

    def todo(self, name: Name = str) -> str:
        remedies = (
            "the supervisor inspects it, then takes it out of play, voids the hand, "
            "or replaces the deck"
        )
        if self.seat is None:
            return f"keep the card face down aside, unseen, for surveillance; {remedies}"
        return (
            f"leave every card at seat {self.seat} where it lies and call surveillance; {remedies}"
        )


@dataclass(frozen=True, slots=True)
class DeckDue(AlertFacts):
    """The deck in play has dealt ``hands`` hands over ``minutes`` minutes since it was
    loaded: past ``limit_hands`` or ``limit_hours`` (the table's deck life)."""

    kind = AlertKind.DECK_DUE
    hands: int
    minutes: int
    limit_hands: int | None
    limit_hours: float | None

    def say(self, name: Name = str) -> str:
        limits = [
            f"{self.limit_hands} hands" if self.limit_hands is not None else "",
            f"{self.limit_hours:g} hours" if self.limit_hours is not None else "",
        ]
        age = f"{self.minutes // 60} h {self.minutes % 60:02d} min"
        return (
            f"the deck is due for replacement: {self.hands} hand{_s(self.hands)} in {age} "
            f"(its life: {' or '.join(limit for limit in limits if limit)})"
        )

    def todo(self, name: Name = str) -> str:
        return (
            "load a new deck before the next hand: the alert clears when the shoe registers "
            "it (a table without tag checks: the supervisor resolves it once it is in)"
        )


@dataclass(frozen=True, slots=True)
class ClockStepped(AlertFacts):
    """The wall clock of the table's computer stepped ``step`` ms (negative: back)."""

    kind = AlertKind.CLOCK_STEPPED
    step: int

    def say(self, name: Name = str) -> str:
        way = "forward" if self.step > 0 else "back"
        return (
            f"the computer's clock jumped {way} {_duration(abs(self.step))}: the journal's "
            "times jump with it (the delays and expiries do not)"
        )

    def todo(self, name: Name = str) -> str:
        return "the table deals on; have the clock's time source (NTP) checked, then resolve it"


def _duration(ms: int) -> str:
    """``ms`` in words: "1 h 5 min", "3 min 20 s", "2.5 s"."""
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, second = divmod(round(seconds), 60)
    hours, minute = divmod(minutes, 60)
    if hours:
        return f"{hours} h {minute} min"
    return f"{minute} min {second} s"


@dataclass(frozen=True, slots=True)
class DeckNotShuffled(AlertFacts):
    """The deck in the shoe is dealt in an order too close to an earlier deck's: ``pairs``
    of its first ``dealt`` cards came out one after the other in the same order as from the
    deck ``decks_ago`` loads before (``controller.table.shuffle``)."""

    kind = AlertKind.DECK_NOT_SHUFFLED
    pairs: int
    dealt: int
    decks_ago: int

    def say(self, name: Name = str) -> str:
        earlier = "the last deck" if self.decks_ago == 1 else f"the deck {self.decks_ago} loads ago"
        return (
            f"the deck was not shuffled: {self.pairs} pairs of its first {self.dealt} cards "
            f"came out in the same order as from {earlier} (a shuffled deck repeats about one)"
        )

    def todo(self, name: Name = str) -> str:
        return (
            "the hand goes on; surveillance reviews the last shuffle and load on video, and the "
            "next deck is shuffled where the camera sees it; the supervisor resolves it"
        )


@dataclass(frozen=True, slots=True)
class WrongCardNamed(AlertFacts):
    """Supervisor ``who`` named ``card``, which it cannot be (``named``: why), correcting
    the card read as ``was``, or entering an unread card (``was`` None). The correction or
    entry is not applied."""

    kind = AlertKind.WRONG_CARD_NAMED
    card: Card
    named: Named
    who: str
    was: Card | None = None

    def say(self, name: Name = str) -> str:
        card = name(self.card)
        if self.was is None:
            did = f"supervisor {self.who} entered {card} for the unread card"
        else:
            did = f"supervisor {self.who} corrected {name(self.was)} to {card}"
        if self.named is Named.IN_SHOE:
            return f"{did}, but the deck's {card} has not come out of the shoe: its tag is in it"
        return f"{did}, but the {card} is already in play"

    def todo(self, name: Name = str) -> str:
        return (
            "it is not applied: leave every card where it lies and call surveillance; check "
            "the card, then name the card it is (resolve done first) or void the hand"
        )


@dataclass(frozen=True, slots=True)
class UnverifiedRead(AlertFacts):
    """Seat ``seat``'s reader reported ``card``, dealt there, without a readable tag: the
    card there is not known to be the card dealt (a shielded or dead tag hides a switch).
    ``count``: the seat's reads without a tag so far (``Table.unverified``)."""

    kind = AlertKind.UNVERIFIED_READ
    seat: int
    card: Card
    count: int

    def say(self, name: Name = str) -> str:
        return (
            f"seat {self.seat}'s reader reported the card dealt there ({name(self.card)}) "
            f"without a readable tag ({self.count} at this seat): not confirmed"
        )

    def todo(self, name: Name = str) -> str:
        return (
            f"surveillance reviews seat {self.seat} (a card with a shielded or dead tag may "
            "have been switched in); the supervisor resolves it"
        )


@dataclass(frozen=True, slots=True)
class CardMoved(AlertFacts):
    """Seat ``seat``'s reader sees ``card``, which the table has elsewhere (``lay``; at seat
    ``holder`` for a player's card) and no longer awaits anywhere: a card that moved after
    it was dealt (passed between players, a folded hand's or a burn card brought in). A
    security event, not a dealer's slip: ``misplaced_card`` is a card landing at the wrong
    seat as it is dealt."""

    kind = AlertKind.CARD_MOVED
    seat: int
    card: Card
    lay: Lay
    holder: int | None = None

    def say(self, name: Name = str) -> str:
        card = name(self.card)
        match self.lay:
            case Lay.SEAT:
                where = f"seat {self.holder}'s card, confirmed there"
            case Lay.FOLDED:
                where = f"a card of seat {self.holder}, which folded"
            case Lay.BURN:
                where = "a burn card"
            case Lay.COMMUNITY:
                where = "the community card"
            case _:
                where = "a card taken out of play"
        return f"a card moved: seat {self.seat}'s reader sees {card}, {where}"

    def todo(self, name: Name = str) -> str:
        return (
            "keep every card where it is; call surveillance. The supervisor holds (the hand "
            "goes on with each card where the table has it; surveillance reviews the video) "
            "or voids the hand"
        )


@dataclass(frozen=True, slots=True)
class DeviceReplaced(AlertFacts):
    """The ``device`` that said HELLO reports ``serial``, not the ``expected`` one (the
    table's configuration, or the serial a supervisor accepted before): another device."""

    kind = AlertKind.DEVICE_REPLACED
    device: DeviceKind
    serial: str
    expected: str

    def say(self, name: Name = str) -> str:
        return (
            f"the {device_words(self.device)}'s serial is {self.serial}, the table expects "
            f"{self.expected}: another {device_words(self.device)} is connected"
        )

    def todo(self, name: Name = str) -> str:
        return (
            f"a supervisor checks the {device_words(self.device)} and accepts it: the table "
            f"then takes {self.serial} until the configuration names its serial"
        )


def _s(count: int) -> str:
    return "" if count == 1 else "s"


FACTS: dict[AlertKind, type[AlertFacts]] = {
    facts.kind: facts
    for facts in (
        CardOutOfTurn,
        CardInPlay,
        CardNotInDeck,
        BadDeck,
        DeckDuringHand,
        UnreadCard,
        MisplacedCard,
        CardAtEmptySeat,
        CardNotDealt,
        CardMismatch,
        DeadCard,
        DeviceFault,
        LinkDown,
        EventsLost,
        PlayerAway,
        SignInAttack,
        SignInLocked,
        DeckRejected,
        ForeignCard,
        DeckDue,
        ClockStepped,
        DeckNotShuffled,
        WrongCardNamed,
        UnverifiedRead,
        CardMoved,
        DeviceReplaced,
        ShoeEmpty,
    )
}


# The open alert -------------------------------------------------------------------------


class AlertShownJson(TypedDict):
    """What every form of an open alert has: its number, kind, rule, words, when it was
    raised, the seat and the device it names, and who acknowledged it (the consoles' view
    of it, ``dealer_ui.views.AlertJson``, adds the card where the role may see it)."""

    id: int
    kind: str
    severity: str
    blocking: bool
    message: str
    remedy: str
    remedies: list[str]
    raised_at: int
    seat: int | None
    device: str | None
    acknowledged_by: str | None


class AlertRecordJson(AlertShownJson):
    """An open alert as the table keeps it (snapshots, a ``Raised`` effect's data, the
    floor): what every form has, the flat facts the consoles and the floor read, when it
    was acknowledged, and its ``facts`` (its kind's own, :meth:`AlertFacts.to_json`)."""

    belongs: int | None
    card: str | None
    fault: str | None
    due: bool
    acknowledged_at: int | None
    facts: FactsJson


class Alert(NamedTuple):
    """An open alert: number ``id``, raised at ``raised_at`` (ms), its ``facts``.

    ``acknowledged_by`` and ``acknowledged_at``: the dealer who acknowledged it, and when
    (an acknowledged alert stays open until it is resolved). The words (``message``: what
    happened; ``remedy``: what to do) are the facts', every card named; the facts the
    table matches alerts by read through: ``seat`` (where a card landed), ``belongs`` (the
    seat a card belongs to), ``card``, ``device``, ``fault``, ``due`` (an unread card was
    the card the hand waited for).
    """

    id: int
    facts: AlertFacts
    raised_at: int
    acknowledged_by: str | None = None
    acknowledged_at: int | None = None

    @property
    def kind(self) -> AlertKind:
        return self.facts.kind

    @property
    def rule(self) -> AlertRule:
        return ALERT_RULES[self.kind]

    @property
    def message(self) -> str:
        return self.facts.say()

    @property
    def remedy(self) -> str:
        return self.facts.todo()

    @property
    def seat(self) -> int | None:
        return getattr(self.facts, "seat", None)

    @property
    def belongs(self) -> int | None:
        return getattr(self.facts, "belongs", None)

    @property
    def card(self) -> Card | None:
        return getattr(self.facts, "card", None)

    @property
    def device(self) -> DeviceKind | None:
        return getattr(self.facts, "device", None)

    @property
    def fault(self) -> FaultCode | None:
        return getattr(self.facts, "fault", None)

    @property
    def due(self) -> bool:
        return getattr(self.facts, "due", False)

    def to_json(self) -> AlertRecordJson:
        rule, card, device, fault = self.rule, self.card, self.device, self.fault
        return {
            "id": self.id,
            "kind": self.kind.value,
            "severity": rule.severity.value,
            "blocking": rule.blocking,
            "message": self.message,
            "remedy": self.remedy,
            "remedies": [remedy.value for remedy in rule.remedies],
            "raised_at": self.raised_at,
            "seat": self.seat,
            "belongs": self.belongs,
            "card": None if card is None else str(card),
            "device": None if device is None else device.value,
            "fault": None if fault is None else fault.value,
            "due": self.due,
            "acknowledged_by": self.acknowledged_by,
            "acknowledged_at": self.acknowledged_at,
            "facts": self.facts.to_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Alert:
        """Read an alert written by ``to_json``, or by a release that kept no facts (its
        facts read back from its words: ``controller.table.legacy``)."""
        kind = AlertKind(data["kind"])
        facts = data["facts"] if "facts" in data else legacy.facts_json(kind, data)
        return cls(
            data["id"],
            AlertFacts.from_json(kind, facts),
            data["raised_at"],
            data.get("acknowledged_by"),  # absent in snapshots taken before acknowledgements
            data.get("acknowledged_at"),
        )


# The effects that tell of alerts ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Raised(Effect):
    """An alert opened (``data``: the alert's JSON)."""

    alert: Alert

    kind = TableTold.ALERT

    @property
    def data(self) -> AlertRecordJson:
        return self.alert.to_json()

    @property
    def cards(self) -> tuple[Card, ...]:
        return self.alert.facts.cards

    def say(self, name: Name = str) -> str:
        return self.alert.facts.say(name)


class ClearedData(TypedDict):
    """The data of an alert closed: its number."""

    id: int


class Clearance(StrEnum):
    """How an alert closed."""

    HAND_OVER = "hand_over"
    HAND_VOID = "hand_void"
    READER_IDENTIFIED = "reader_identified"  # the seat's reader named the unread card
    SEEN_AT_SEAT = "seen_at_seat"  # the seat board sees the stray card where it belongs
    CONFIRMED_AT_SEAT = "confirmed_at_seat"  # the seat board confirmed the card dealt there
    PLAYER_BACK = "player_back"
    FULL_DECK = "full_deck"
    NEW_DECK = "new_deck"  # the shoe registered another deck than the one due
    FAULT_CLEARED = "fault_cleared"  # the device reports its fault cleared
    LINK_BACK = "link_back"
    ENTERED = "entered"  # the supervisor entered the unread card
    CORRECTED = "corrected"  # the supervisor corrected the card
    NO_LONGER_IN_PLAY = "no_longer_in_play"  # the misread card it named is now the card read
    SERIAL_EXPECTED = "serial_expected"  # the device now reports the serial expected
    RESOLVED = "resolved"  # the supervisor resolved it (ResolveAlert)


@dataclass(frozen=True, slots=True)
class Cleared(Effect):
    """Alert ``alert`` closed, ``by`` what: at ``seat``, by ``device``, by supervisor ``who``."""

    alert: int
    by: Clearance
    seat: int | None = None
    device: DeviceKind | None = None
    who: str | None = None

    kind = TableTold.ALERT_CLEARED

    @property
    def how(self) -> str:
        """How it closed, in words."""
        seat = self.seat
        device = "device" if self.device is None else device_words(self.device)
        match self.by:
            case Clearance.HAND_OVER:
                return "the hand is over"
            case Clearance.HAND_VOID:
                return "the hand is void"
            case Clearance.READER_IDENTIFIED:
                return f"seat {seat}'s reader identified the card"
            case Clearance.SEEN_AT_SEAT:
                return f"the seat board sees it at seat {seat}"
            case Clearance.CONFIRMED_AT_SEAT:
                return f"the seat board sees the card at seat {seat}"
            case Clearance.PLAYER_BACK:
                return f"the player is back at seat {seat}"
            case Clearance.FULL_DECK:
                return "a full deck is loaded"
            case Clearance.NEW_DECK:
                return "a new deck is loaded"
            case Clearance.FAULT_CLEARED:
                return f"the {device} reports it cleared"
            case Clearance.LINK_BACK:
                return f"the {device} is connected again"
            case Clearance.ENTERED:
                return "the supervisor entered the card"
            case Clearance.CORRECTED:
                return "the supervisor corrected the card"
            case Clearance.NO_LONGER_IN_PLAY:
                return "the card is no longer in play: the card read is it"
            case Clearance.SERIAL_EXPECTED:
                return f"the {device} reports the serial expected"
        return f"resolved by supervisor {self.who}"

    def say(self, name: Name = str) -> str:
        return f"alert {self.alert} cleared: {self.how}"

    @property
    def data(self) -> ClearedData:
        return {"id": self.alert}
