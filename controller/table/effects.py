"""What the table core tells people besides the engine's effects and the alerts: one frozen
record per kind (:class:`TableTold`), worded from its facts when read, as the engine's
effects are (``controller.rules.effects``).

People's own words in a record (a supervisor's id and why, a player's name, a refusal's
reason) are :class:`Words`: the text with the cards it names, found when the record is
made, so that a viewer's words name those cards as the viewer may see them, as every
other card of a record.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NotRequired, TypedDict

from controller.rules import (
    Card,
    CardName,
    Effect,
    Form,
    Illegal,
    Waiting,
    parse_card,
    say_waiting,
)
from controller.rules.effects import AtSeat, SeatChips, SeatChipsData, named
from controller.table import inputs as ti
from controller.table.settings import TableSettings, TableSettingsJson
from controller.table.state import Lamps, LampsJson, Table, signals
from controller.table.streams import card_at_seat
from controller.table.told import TableTold, device_words
from drivers.protocol import DeviceKind

_CARD_NAME = re.compile(r"\b[2-9TJQKA][cdhs]\b")


@dataclass(frozen=True, slots=True)
class Words:
    """People's own words (``text``) and the cards they name (``cards``)."""

    text: str
    cards: tuple[Card, ...] = ()

    @classmethod
    def of(cls, text: str) -> Words:
        """``text`` and every card it names, in order, each once."""
        found = dict.fromkeys(parse_card(match) for match in _CARD_NAME.findall(text))
        return cls(text, tuple(found))

    def say(self, name: CardName = str) -> str:
        return named(self.text, self.cards, name)


def _s(count: int) -> str:
    return "" if count == 1 else "s"


class Refuse(StrEnum):
    """Why the table core refuses an input, as data (the API's ``code``: docs/api.md); the
    engine's own reasons for a decision or a card are ``controller.rules.Illegal``."""

    NOT_AN_INPUT = "not_an_input"
    MALFORMED = "malformed"  # a field out of its range: a count, a step, a name left blank
    WHO_NEEDED = "who_needed"  # a supervisor's action without who and why, an id left blank
    SECOND_NEEDED = "second_needed"  # two-person control: a second supervisor must approve
    SECOND_SAME = "second_same"  # two-person control: the second is the first supervisor
    NO_HAND = "no_hand"  # no hand in progress
    PAUSED = "paused"  # a decision while a blocking alert pauses the table
    NOT_A_DECISION = "not_a_decision"  # not a player's decision
    DEALER_DECIDES = "dealer_decides"  # players do not enter their own decisions here
    HAND_IN_PROGRESS = "hand_in_progress"  # between hands only
    ALERTS_OPEN = "alerts_open"  # a blocking alert is open: resolve it first
    NO_DECK = "no_deck"  # no full deck loaded since the last hand
    SEAT_BOARD_DOWN = "seat_board_down"
    REPORT_WAITS = "report_waits"  # a card at a seat waits for the shoe's report
    TOO_FEW_PLAYERS = "too_few_players"
    ALREADY_DEALER = "already_dealer"
    UNKNOWN_SEAT = "unknown_seat"
    SEAT_EMPTY = "seat_empty"  # no player is seated there
    SEAT_TAKEN = "seat_taken"
    SAME_SEAT = "same_seat"  # a seat change to the seat the player is at
    SEAT_IN_HAND = "seat_in_hand"  # the seat plays the hand in progress: after the hand
    NOT_IN_HAND = "not_in_hand"  # the seat does not play the hand in progress
    BUY_IN_LIMIT = "buy_in_limit"  # a buy-in or rebuy outside the table's limits
    BAD_AMOUNT = "bad_amount"  # chips that are not a positive (a stack: 0 or more) number
    NO_ALERT = "no_alert"  # no open alert of that number
    ALREADY_ACKNOWLEDGED = "already_acknowledged"
    DEVICE_CLEARS = "device_clears"  # only the device clears the alert
    WRONG_REMEDY = "wrong_remedy"  # not one of the alert's remedies
    DECK_TAGGED = "deck_tagged"  # the shoe's registration of a new deck clears it
    NO_UNREAD_CARD = "no_unread_card"
    NOT_DEALT = "not_dealt"  # the card was not dealt in this hand
    ACTED_ON = "acted_on"  # the card was acted on: void the hand instead
    SAME_CARD = "same_card"  # the card named is the card read
    NOT_SEATS_CARD = "not_seats_card"  # not a card of that seat
    NOTHING_TO_UNDO = "nothing_to_undo"
    DECISION_STANDS = "decision_stands"  # a card or a correction came since: it stands
    NOT_LAST_DECISION = "not_last_decision"


#: Why an input was refused: the table core's reason or the engine's.
Why = Refuse | Illegal


# The facts of each kind as JSON (``data``), one ``TypedDict`` per shape ----------------------


class RefusalData(TypedDict):
    """The data of an input refused: its tag (None: not an input) and why, as data."""

    input: str | None
    code: str


class HandStartedData(TypedDict):
    """The data of a hand begun: its number, when (ms), its seats and, when the table
    names one, its dealer."""

    hand: int
    at: int
    seats: list[int]
    dealer: NotRequired[str]


class DealerInData(TypedDict):
    """The data of a dealer push: who deals, after whom, and whether a hand is on."""

    who: str
    was: str | None
    in_hand: bool


class HandOverData(TypedDict):
    """The data of a hand ended: its number, when (ms), each seat's stack by its name."""

    hand: int
    at: int
    stacks: dict[str, int]


class CardData(TypedDict):
    """The data of an effect of one card (a held card dealt)."""

    card: str


class CardsData(TypedDict):
    """The data of an effect of cards (the held cards set aside)."""

    cards: list[str]


class CountData(TypedDict):
    """The data of a deck loaded: its cards."""

    count: int


class LinkData(TypedDict, total=False):
    """The data of a link: the device, when it is up."""

    device: str


class SeatMoveData(SeatChipsData):
    """The data of a seat change: the seat left, the seat taken (``to``), the stack."""

    to: int


class UnpaidData(SeatChipsData):
    """The data of a time charge the seat cannot pay."""

    unpaid: bool


class AcknowledgedData(TypedDict):
    """The data of an alert acknowledged: its number and the dealer's id."""

    id: int
    who: str


@dataclass(frozen=True, slots=True)
class Refusal(Effect):
    """The input (``input``: its tag) was not taken, ``code`` why, said in ``reason``;
    nothing changed."""

    reason: Words
    input: str | None
    code: Why

    kind = TableTold.REFUSED

    def say(self, name: CardName = str) -> str:
        return self.reason.say(name)

    @property
    def data(self) -> RefusalData:
        return {"input": self.input, "code": self.code.value}

    @property
    def cards(self) -> tuple[Card, ...]:
        return self.reason.cards


@dataclass(frozen=True, slots=True)
class DisplayChanged(Effect):
    """The dealer's display changed: it shows ``table``'s line (``state.signals``)."""

    table: Table

    kind = TableTold.DISPLAY

    def say(self, name: CardName = str) -> str:
        return signals(self.table, name).display

    @property
    def cards(self) -> tuple[Card, ...]:
        """The cards of the alert that pauses the table (its words are the line's)."""
        table = self.table
        pausing = next((alert for alert in table.alerts if table.blocks(alert)), None)
        return () if pausing is None else pausing.facts.cards


@dataclass(frozen=True, slots=True)
class LampsChanged(Effect):
    """The lamps changed: they are ``lamps`` now."""

    lamps: Lamps

    kind = TableTold.LAMPS

    def say(self, name: CardName = str) -> str:
        lamps = self.lamps
        seats = ", ".join(str(seat) for seat in lamps.seats) or "none"
        return f"bonus lamp {'on' if lamps.bonus else 'off'}; seat lamps: {seats}"

    @property
    def data(self) -> LampsJson:
        return self.lamps.to_json()


# Hands -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HandStarted(Effect):
    """Hand ``hand`` began at ``at`` (ms) with the players at ``seats``, dealt by ``dealer``
    (None: the table names no dealer)."""

    hand: int
    at: int
    seats: tuple[int, ...]
    dealer: str | None = None

    kind = TableTold.HAND_STARTED

    def say(self, name: CardName = str) -> str:
        return f"hand {self.hand}"

    @property
    def data(self) -> HandStartedData:
        out: HandStartedData = {"hand": self.hand, "at": self.at, "seats": list(self.seats)}
        if self.dealer is not None:
            out["dealer"] = self.dealer
        return out


@dataclass(frozen=True, slots=True)
class DealerIn(Effect):
    """Dealer ``who`` is in (a push), after ``was`` (None: no dealer named before);
    ``in_hand``: a hand is in progress, which keeps its dealer."""

    who: Words
    was: str | None
    in_hand: bool

    kind = TableTold.DEALER_IN

    def say(self, name: CardName = str) -> str:
        after = " from the next hand on" if self.in_hand else ""
        was = "" if self.was is None else f" (after {self.was})"
        return f"dealer {self.who.say(name)} deals{after}{was}"

    @property
    def data(self) -> DealerInData:
        return {"who": self.who.text, "was": self.was, "in_hand": self.in_hand}

    @property
    def cards(self) -> tuple[Card, ...]:
        return self.who.cards


@dataclass(frozen=True, slots=True)
class HandOver(Effect):
    """Hand ``hand`` ended (``void``: a misdeal) at ``at``; each seat's stack after it."""

    hand: int
    void: bool
    at: int
    stacks: tuple[tuple[int, int], ...]

    kind = TableTold.HAND_OVER

    def say(self, name: CardName = str) -> str:
        return f"hand {self.hand} is {'void' if self.void else 'over'}"

    @property
    def data(self) -> HandOverData:
        stacks = {str(seat): chips for seat, chips in self.stacks}
        return {"hand": self.hand, "at": self.at, "stacks": stacks}


@dataclass(frozen=True, slots=True)
class HeldDealt(Effect):
    """A card the supervisor held (``card``, never named: it came out face down) is dealt
    as the card the hand waited for (``where``)."""

    card: Card
    where: Waiting

    kind = TableTold.HELD_CARD

    def say(self, name: CardName = str) -> str:
        return f"the held card is {say_waiting(self.where, Form.WHERE)}"

    @property
    def data(self) -> CardData:
        return {"card": str(self.card)}


@dataclass(frozen=True, slots=True)
class HeldSetAside(Effect):
    """The hand ended with cards still held: ``held`` are out of play."""

    held: tuple[Card, ...]

    kind = TableTold.HELD_CARD

    def say(self, name: CardName = str) -> str:
        count = len(self.held)
        return f"{count} held card{_s(count)} set aside: out of play"

    @property
    def data(self) -> CardsData:
        return {"cards": [str(card) for card in self.held]}


# The devices -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rejected(Effect):
    """An unreadable card went to the shoe's reject tray."""

    kind = TableTold.REJECTED

    def say(self, name: CardName = str) -> str:
        return "an unreadable card went to the reject tray: draw the next card"


@dataclass(frozen=True, slots=True)
class SeatBoardUnused(Effect):
    """The seat board reported a card at ``seat`` on a table that does not use it."""

    seat: int

    kind = TableTold.IGNORED

    def say(self, name: CardName = str) -> str:
        return f"card at seat {self.seat}: the seat board is not in use"


@dataclass(frozen=True, slots=True)
class SeatUnread(AtSeat):
    """Seat ``seat``'s reader could not read the card the shoe did not read either."""

    kind = TableTold.UNREAD

    def say(self, name: CardName = str) -> str:
        return f"seat {self.seat}'s reader could not read the card either: the supervisor enters it"


@dataclass(frozen=True, slots=True)
class ReportWaits(Effect):
    """The seat board's ``report`` (of an ``ev.CardAtSeat``) waits for the shoe's report of
    its card."""

    report: ti.FromDevice

    kind = TableTold.WAITING

    def say(self, name: CardName = str) -> str:
        event = card_at_seat(self.report)
        what = "a card" if event.card is None else "the card"
        return f"{what} at seat {event.seat}: waiting for the shoe's report"

    @property
    def data(self) -> ti.InputJson:  # the report in its table form (``ti.DeviceForm``)
        return self.report.to_json()


@dataclass(frozen=True, slots=True)
class SomeoneSat(AtSeat):
    """The seat sensor reports someone at ``seat``, where no player is seated."""

    kind = TableTold.SEAT

    def say(self, name: CardName = str) -> str:
        return f"someone sat at seat {self.seat}: sit the player down with a buy-in"


@dataclass(frozen=True, slots=True)
class DeckIn(Effect):
    """``count`` cards are loaded in the shoe: a full deck, or (``reloaded``) the stub and
    the burn cards the hand scrambled back."""

    count: int
    reloaded: bool = False

    kind = TableTold.DECK

    def say(self, name: CardName = str) -> str:
        if self.reloaded:
            return f"the stub and the burn cards are back in the shoe: {self.count} cards"
        return "a full deck of 52 is loaded"

    @property
    def data(self) -> CountData:
        return {"count": self.count}


@dataclass(frozen=True, slots=True)
class DeckOut(Effect):
    """The supervisor took the deck out of play: the next hand waits for a new one."""

    kind = TableTold.DECK

    def say(self, name: CardName = str) -> str:
        return "the deck is out of play: load a new deck"


@dataclass(frozen=True, slots=True)
class Link(Effect):
    """``device``'s link is up, or (not ``up``) down on a table that does not use it."""

    device: DeviceKind
    up: bool

    kind = TableTold.LINK

    def say(self, name: CardName = str) -> str:
        if self.up:
            return f"the {device_words(self.device)} is connected"
        return f"the {device_words(self.device)} is not connected (not in use)"

    @property
    def data(self) -> LinkData:
        return {"device": self.device.value} if self.up else {}


@dataclass(frozen=True, slots=True)
class Restarted(Effect):
    """``device`` restarted and knows of no lost event."""

    device: DeviceKind

    kind = TableTold.RESTART

    def say(self, name: CardName = str) -> str:
        return f"the {device_words(self.device)} restarted; no lost event is known"


# Seats and the table -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sitting(Effect):
    """``player`` at ``seat`` with ``chips``, as they sit down or leave; the data: the seat
    and the chips (not the player's name); the cards: those the name names."""

    seat: int
    player: Words
    chips: int

    @property
    def data(self) -> SeatChipsData:
        return {"seat": self.seat, "chips": self.chips}

    @property
    def cards(self) -> tuple[Card, ...]:
        return self.player.cards


@dataclass(frozen=True, slots=True)
class SatDown(Sitting):
    """``player`` sat down at ``seat`` with ``chips``."""

    kind = TableTold.SIT_DOWN

    def say(self, name: CardName = str) -> str:
        return f"{self.player.say(name)} sits down at seat {self.seat} with {self.chips}"


@dataclass(frozen=True, slots=True)
class SatOut(Effect):
    """Seat ``seat`` sits out from the next hand."""

    seat: int

    kind = TableTold.SIT_OUT

    def say(self, name: CardName = str) -> str:
        return f"seat {self.seat} sits out from the next hand"


@dataclass(frozen=True, slots=True)
class SatIn(Effect):
    """Seat ``seat`` is dealt in again from the next hand."""

    seat: int

    kind = TableTold.SIT_IN

    def say(self, name: CardName = str) -> str:
        return f"seat {self.seat} is dealt in from the next hand"


@dataclass(frozen=True, slots=True)
class CashedOut(Sitting):
    """``player`` left ``seat`` with ``chips``."""

    kind = TableTold.CASH_OUT

    def say(self, name: CardName = str) -> str:
        return f"{self.player.say(name)} leaves seat {self.seat} and cashes out {self.chips}"


@dataclass(frozen=True, slots=True)
class ChangedSeat(Sitting):
    """``player`` moved from ``seat`` to ``to`` with ``chips`` (the stack kept)."""

    to: int

    kind = TableTold.SEAT_CHANGE

    def say(self, name: CardName = str) -> str:
        who = self.player.say(name)
        return f"{who} moves from seat {self.seat} to seat {self.to} with {self.chips}"

    @property
    def data(self) -> SeatMoveData:
        return {"seat": self.seat, "to": self.to, "chips": self.chips}


@dataclass(frozen=True, slots=True)
class TimeCharged(SeatChips):
    """Seat ``seat`` paid the time charge, ``chips`` from its stack into the drop box."""

    kind = TableTold.TIME_CHARGE

    def say(self, name: CardName = str) -> str:
        return f"TIME {self.chips}: seat {self.seat}, drop {self.chips}"


@dataclass(frozen=True, slots=True)
class TimeUnpaid(SeatChips):
    """Seat ``seat`` cannot pay the time charge of ``chips``: it sits out."""

    kind = TableTold.TIME_CHARGE

    def say(self, name: CardName = str) -> str:
        return f"seat {self.seat} cannot pay the time charge of {self.chips}: sits out"

    @property
    def data(self) -> UnpaidData:
        return {"seat": self.seat, "chips": self.chips, "unpaid": True}


@dataclass(frozen=True, slots=True)
class Rebought(SeatChips):
    """Seat ``seat`` added ``chips`` to its stack."""

    kind = TableTold.REBUY

    def say(self, name: CardName = str) -> str:
        return f"seat {self.seat} rebuys {self.chips}"


@dataclass(frozen=True, slots=True)
class Acknowledged(Effect):
    """Alert ``alert`` acknowledged by ``who`` (``paused``: it still pauses the table)."""

    alert: int
    who: Words
    paused: bool

    kind = TableTold.ALERT_ACKNOWLEDGED

    def say(self, name: CardName = str) -> str:
        still = ": the table stays paused until it is resolved" if self.paused else ""
        return f"alert {self.alert} acknowledged by {self.who.say(name)}{still}"

    @property
    def data(self) -> AcknowledgedData:
        return {"id": self.alert, "who": self.who.text}

    @property
    def cards(self) -> tuple[Card, ...]:
        return self.who.cards


@dataclass(frozen=True, slots=True)
class Configured(Effect):
    """The table's settings are ``settings`` from now on."""

    settings: TableSettings

    kind = TableTold.CONFIGURED

    def say(self, name: CardName = str) -> str:
        return "new table settings"

    @property
    def data(self) -> TableSettingsJson:
        return self.settings.to_json()


# Supervisor actions --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Supervised(Effect):
    """A supervisor's action ``item``, with who and why (``said``) and what the table knew
    of it: ``hand`` (the hand voided), ``alert`` (the unread-card alert whose card was
    entered), ``was`` (a corrected stack before), ``face_down`` (a card of ``WrongFace``
    lies face down: it was dealt up)."""

    item: ti.SupervisorInput
    said: Words
    hand: int = 0
    alert: int = 0
    was: int = 0
    face_down: bool = False

    kind = TableTold.SUPERVISOR

    @classmethod
    def of(cls, item: ti.SupervisorInput, **known: Any) -> Supervised:
        who = item.who if item.second is None else f"{item.who} and {item.second}"
        return cls(item, Words.of(f"{who}: {item.why}"), **known)

    def say(self, name: CardName = str) -> str:
        return f"{self._act(name)} (supervisor {self.said.say(name)})"

    def _act(self, name: CardName) -> str:
        match self.item:
            case ti.VoidHand():
                return f"hand {self.hand} is void"
            case ti.EnterCard():
                return f"the unread card of alert {self.alert} is entered"
            case ti.CorrectCard(wrong=wrong, right=right):
                return f"the card read as {name(wrong)} is {name(right)}"
            case ti.WrongFace(seat=seat, card=card):
                return f"seat {seat}'s {name(card)} lies face {'down' if self.face_down else 'up'}"
            case ti.ResolveAlert(alert=alert, remedy=remedy):
                return f"alert {alert} resolved: {remedy.words}"
            case ti.CorrectStack(seat=seat, stack=stack):
                return f"seat {seat}'s stack corrected from {self.was} to {stack}"
            case ti.UndoDecision(seat=seat, do=do):
                return f"seat {seat}'s {do.value.replace('_', ' ')} is undone"
        raise TypeError(f"not a supervisor's action: {self.item!r}")

    @property
    def data(self) -> ti.InputJson:
        return self.item.to_json()

    @property
    def cards(self) -> tuple[Card, ...]:
        match self.item:
            case ti.CorrectCard(wrong=wrong, right=right):
                return (wrong, right, *self.said.cards)
            case ti.WrongFace(card=card):
                return (card, *self.said.cards)
        return self.said.cards
