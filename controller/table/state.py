"""The table's state: seats, the hand in progress, alerts, and what lamps and displays show.

Alerts are records of their facts (``controller.table.alerts``).

Every type here is immutable and round-trips through ``to_json``/``from_json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, NamedTuple, NotRequired, TypedDict

from controller.rules import (
    Card,
    Dest,
    Form,
    Hand,
    Wait,
    Waiting,
    input_from_json,
    parse_card,
    say_waiting,
)
from controller.rules.effects import CardName, HouseTook
from controller.rules.hand import HandJson
from controller.rules.inputs import ActionJson, DealJson
from controller.rules.inputs import Input as EngineInput
from controller.table.alerts import Alert, AlertKind, AlertRecordJson
from controller.table.protection import Deck, DeckJson, Registration, RegistrationJson
from controller.table.settings import TableSettings, TableSettingsJson
from controller.table.shuffle import Shuffles, ShufflesJson
from controller.table.streams import Streams, StreamsJson
from drivers.protocol import DeviceKind

SEATS = range(1, 9)


class SeatedJson(TypedDict):
    """A seated player as the table keeps it (:class:`Seat`'s fields): ``player_id`` and
    ``paid_period`` only when known."""

    seat: int
    player: str
    stack: int
    sitting_out: bool
    sitting: int
    since_hand: int
    player_id: NotRequired[str]
    paid_period: NotRequired[int]


class Seat(NamedTuple):
    """A seated player. ``stack`` is the chips behind between hands; during a hand it is
    the stack the player began the hand with (the hand holds the live stack).

    ``sitting``: the table's number for this sit-down (1 for the journal's first, then 2,
    3, ...; never given twice), which ends when the player leaves; ``since_hand``: the
    table's hand number when they sat down (they are dealt in from the next hand on);
    ``player_id``: the player card's number given at sit-down, if any (omitted from the
    JSON when None); ``paid_period``: the last time period the player paid the time charge
    for (the period's number: its start over its length, since the Unix epoch; None: none
    yet, omitted from the JSON)."""

    seat: int
    player: str
    stack: int
    sitting_out: bool = False
    sitting: int = 0
    since_hand: int = 0
    player_id: str | None = None
    paid_period: int | None = None

    def to_json(self) -> SeatedJson:
        out: SeatedJson = {
            "seat": self.seat,
            "player": self.player,
            "stack": self.stack,
            "sitting_out": self.sitting_out,
            "sitting": self.sitting,
            "since_hand": self.since_hand,
        }
        if self.player_id is not None:
            out["player_id"] = self.player_id
        if self.paid_period is not None:
            out["paid_period"] = self.paid_period
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Seat:
        return cls(
            data["seat"],
            data["player"],
            data["stack"],
            data["sitting_out"],
            data["sitting"],  # required: a snapshot from before sittings is replayed over
            data["since_hand"],
            data.get("player_id"),
            data.get("paid_period"),
        )


class PlacementJson(TypedDict):
    """A card dealt to a seat, not yet confirmed by the seat board."""

    seat: int
    card: str


class Placement(NamedTuple):
    """A card dealt to a seat that the seat board has not yet confirmed."""

    seat: int
    card: Card

    def to_json(self) -> PlacementJson:
        return {"seat": self.seat, "card": str(self.card)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Placement:
        return cls(data["seat"], parse_card(data["card"]))


class LampsJson(TypedDict):
    """The lamps as the views and the table's records send them."""

    bonus: bool
    seats: list[int]


class Lamps(NamedTuple):
    """The shoe's bonus lamp, and the seats whose lamps are lit (the next card's seat
    and a seat with a bonus card due)."""

    bonus: bool = False
    seats: tuple[int, ...] = ()

    def to_json(self) -> LampsJson:
        return {"bonus": self.bonus, "seats": list(self.seats)}


class Mode(StrEnum):
    """What the display line is about, as data: the consoles switch on it, never on the
    line's words (the ``display`` beside it)."""

    PAUSED = "paused"  # a blocking alert: "PAUSED: <its words>"
    SCRAMBLE = "scramble"  # the burn cards go back with the stub into the shoe
    LOAD_DECK = "load_deck"
    WAITING_FOR_PLAYERS = "waiting_for_players"
    READY = "ready"  # a new hand may begin
    BETWEEN_HANDS = "between_hands"  # the broadcast line between hands ("Hand 12 over")
    DEAL = "deal"  # a card to a seat
    BURN = "burn"
    COMMUNITY = "community"
    BONUS_CARD = "bonus_card"  # the bonus card to a seat
    BONUS_OFFER = "bonus_offer"  # a seat accepts or declines a priced bonus card
    BETTING = "betting"
    SHOWDOWN = "showdown"


_CARD_MODES = {
    Dest.SEAT: Mode.DEAL,
    Dest.BURN: Mode.BURN,
    Dest.COMMUNITY: Mode.COMMUNITY,
    Dest.BONUS: Mode.BONUS_CARD,
}
_WAIT_MODES = {Wait.ACTION: Mode.BETTING, Wait.BONUS: Mode.BONUS_OFFER, Wait.SHOW: Mode.SHOWDOWN}


def waiting_mode(waiting: Waiting) -> Mode:
    """The display's mode while the hand waits for ``waiting``."""
    if waiting.kind == Wait.CARD:
        assert waiting.destination is not None
        return _CARD_MODES[waiting.destination]
    return _WAIT_MODES[waiting.kind]


class SignalsJson(TypedDict):
    """The display line and the lamps as a snapshot keeps them (not the mode)."""

    display: str
    lamps: LampsJson


class Signals(NamedTuple):
    """What the lamps and the dealer's display show: its line (``display``) and what the
    line is about (``mode``; not in the JSON, which a snapshot keeps as it always was)."""

    display: str
    lamps: Lamps
    mode: Mode

    def to_json(self) -> SignalsJson:
        return {"display": self.display, "lamps": self.lamps.to_json()}


class TakenJson(TypedDict, total=False):
    """The chips the house took into the drop box, in a table's record only once it took
    any (a record as before the house took anything): ``raked`` and ``jackpot_dropped``
    once it took either, ``time_collected`` once it collected time."""

    raked: int
    jackpot_dropped: int
    time_collected: int


class KnownJson(TypedDict, total=False):
    """Who deals and the serials accepted, in a table's record only once known (a record
    as before they were kept)."""

    dealer: str
    hand_dealer: str
    accepted: dict[str, str]  # a device's serial by its kind


class TableJson(TakenJson, KnownJson):
    """The whole table as its snapshots keep it (:meth:`Table.to_json`, read back by
    :meth:`Table.from_json`), :class:`Table`'s fields by name, with the display and the
    lamps (``signals``); ``spent``, the cards spent, by name."""

    settings: TableSettingsJson
    seats: list[SeatedJson]
    occupied: list[int]
    links: list[str]
    hand_number: int
    hand: HandJson | None
    hand_log: list[DealJson | ActionJson]
    deck_ready: bool
    spent: list[str]
    held: list[str]
    unconfirmed: list[PlacementJson]
    scramble_due: bool
    streams: StreamsJson
    alerts: list[AlertRecordJson]
    next_alert: int
    bought_in: int
    cashed_out: int
    corrected: int
    sittings: int
    deck: DeckJson | None
    registering: RegistrationJson | None
    shuffles: ShufflesJson
    unverified: list[int]
    signals: SignalsJson


class Table(NamedTuple):
    """The whole state of one table. Start from ``Table(settings)``; change it only
    through ``controller.table.apply``.

    ``hand`` is the hand in progress, or the last one (over), or None; ``hand_log`` the
    engine inputs of that hand (a corrected card replays them). ``deck_ready``: a full
    deck was loaded since the last hand began. ``spent``: a bit set of the cards out of
    this deck that the hand does not hold (cards of a finished hand, cards taken out of
    play, held cards). ``held``: cards out of turn the supervisor held, dealt in order
    when the next card is due. ``unconfirmed``: cards dealt to seats that the seat board
    has not yet seen. ``scramble_due``: the engine scrambled the burn cards back and the
    shoe has not yet reported the stub and the burns loaded. ``streams``: where the shoe's
    and the seat board's events stand, and the seat reports waiting for the shoe's
    (``controller.table.streams``). ``links``: devices whose link is up. ``occupied``:
    seats whose sensor reports someone. ``bought_in``, ``cashed_out``, ``corrected``: the chips that
    came onto the table, left it, and were added (or taken, negative) by corrections;
    ``raked``, ``jackpot_dropped``: the chips the house took from the pots into the drop box;
    ``time_collected``: the time charges the house took from the players' stacks.
    ``sittings``: the sit-downs so far (the last sitting's number). ``deck``: the deck in
    play, its tags and its life (None: none loaded yet); ``registering``: the cards of the
    deck the shoe is registering (``controller.table.protection``); ``shuffles``: the order
    the deck in the shoe is dealt in and the last decks' (``controller.table.shuffle``).
    ``unverified``: each seat's (1..8) reads of a dealt card without a readable tag, for
    surveillance.
    """

    settings: TableSettings
    seats: tuple[Seat, ...] = ()
    occupied: tuple[int, ...] = ()
    links: tuple[DeviceKind, ...] = ()
    hand_number: int = 0
    hand: Hand | None = None
    hand_log: tuple[EngineInput, ...] = ()
    deck_ready: bool = False
    spent: int = 0
    held: tuple[Card, ...] = ()
    unconfirmed: tuple[Placement, ...] = ()
    scramble_due: bool = False
    streams: Streams = Streams()
    alerts: tuple[Alert, ...] = ()
    next_alert: int = 1
    bought_in: int = 0
    cashed_out: int = 0
    corrected: int = 0
    raked: int = 0
    jackpot_dropped: int = 0
    time_collected: int = 0
    sittings: int = 0
    deck: Deck | None = None
    registering: Registration | None = None
    shuffles: Shuffles = Shuffles()
    unverified: tuple[int, ...] = (0,) * len(SEATS)
    dealer: str | None = None
    hand_dealer: str | None = None
    accepted: tuple[tuple[DeviceKind, str], ...] = ()

    def expected_serial(self, device: DeviceKind) -> str | None:
        """The serial ``device`` must report: the one accepted, else the configured one
        (None: any)."""
        accepted = dict(self.accepted).get(device)
        return accepted if accepted is not None else self.settings.serials.of(device.value)

    @property
    def in_hand(self) -> bool:
        """A hand is in progress."""
        return self.hand is not None and not self.hand.over

    @property
    def paused(self) -> bool:
        """A blocking alert is open: no card goes to the hand until it is cleared."""
        return any(self.blocks(alert) for alert in self.alerts)

    def blocks(self, alert: Alert) -> bool:
        """``alert`` pauses the dealing. The seat board's lost link does not, once the table
        knows the seat board's sequence numbers: a card drawn in order while it is away is
        dealt and waits for the seat board's report (its backlog, when it is back); the next
        hand waits for it."""
        if alert.kind is AlertKind.UNVERIFIED_READ:
            return self.settings.protection.unverified_blocks
        if (
            alert.kind is AlertKind.LINK_DOWN
            and alert.device is DeviceKind.SEAT_BOARD
            and self.streams.seat_board.announced is not None
        ):
            return False
        return alert.rule.blocking

    def seat(self, number: int) -> Seat | None:
        return next((seat for seat in self.seats if seat.seat == number), None)

    def dealt_in(self, number: int) -> bool:
        """The player seated at seat ``number`` now is the one ``hand`` (in progress, or
        the last) dealt in: not a later sitting at that seat."""
        seat = self.seat(number)
        return (
            seat is not None
            and self.hand is not None
            and seat.since_hand < self.hand_number
            and number in self.hand.seats
        )

    def alert(self, number: int) -> Alert | None:
        return next((alert for alert in self.alerts if alert.id == number), None)

    def in_play(self, seat: int) -> bool:
        """The player at ``seat`` is in the hand in progress (folded or not)."""
        return self.in_hand and seat in self.hand.seats  # type: ignore[union-attr]  # in_hand: a hand is in progress

    @property
    def chips(self) -> int:
        """Chips on the table by the ledger: what came in, less what left, plus corrections,
        less what the house took into the drop box. Always equal to the seats' stacks (a
        hand's chips count at its start)."""
        taken = self.raked + self.jackpot_dropped + self.time_collected
        return self.bought_in - self.cashed_out + self.corrected - taken

    @property
    def eligible(self) -> tuple[Seat, ...]:
        """The seats dealt into the next hand: sitting in, with chips."""
        return tuple(seat for seat in self.seats if not seat.sitting_out and seat.stack > 0)

    @property
    def signals(self) -> Signals:
        """What the lamps and the display show (:func:`signals`), computed on each call: a
        loop over inputs has each table's from its step (``controller.table.Step``)."""
        return signals(self)

    def to_json(self) -> TableJson:
        return {
            "settings": self.settings.to_json(),
            "seats": [seat.to_json() for seat in self.seats],
            "occupied": list(self.occupied),
            "links": [device.value for device in self.links],
            "hand_number": self.hand_number,
            "hand": None if self.hand is None else self.hand.to_json(),
            "hand_log": [item.to_json() for item in self.hand_log],
            "deck_ready": self.deck_ready,
            "spent": [str(Card(code)) for code in range(52) if self.spent >> code & 1],
            "held": [str(card) for card in self.held],
            "unconfirmed": [placement.to_json() for placement in self.unconfirmed],
            "scramble_due": self.scramble_due,
            "streams": self.streams.to_json(),
            "alerts": [alert.to_json() for alert in self.alerts],
            "next_alert": self.next_alert,
            "bought_in": self.bought_in,
            "cashed_out": self.cashed_out,
            "corrected": self.corrected,
            **self._taken(),  # absent until the house took any, as before any rake
            "sittings": self.sittings,
            "deck": None if self.deck is None else self.deck.to_json(),
            "registering": None if self.registering is None else self.registering.to_json(),
            "shuffles": self.shuffles.to_json(),
            "unverified": list(self.unverified),
            **self._people_and_devices(),  # absent when unknown, as before they were kept
            "signals": self.signals.to_json(),
        }

    def _taken(self) -> TakenJson:
        taken: TakenJson = {}
        if self.raked or self.jackpot_dropped:
            taken["raked"], taken["jackpot_dropped"] = self.raked, self.jackpot_dropped
        if self.time_collected:
            taken["time_collected"] = self.time_collected
        return taken

    def _people_and_devices(self) -> KnownJson:
        known: KnownJson = {}
        if self.dealer is not None:
            known["dealer"] = self.dealer
        if self.hand_dealer is not None:
            known["hand_dealer"] = self.hand_dealer
        if self.accepted:
            known["accepted"] = {device.value: serial for device, serial in self.accepted}
        return known

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Table:
        spent = 0
        for text in data["spent"]:
            spent |= 1 << parse_card(text)
        hand, deck, registering = data["hand"], data.get("deck"), data.get("registering")
        return cls(
            settings=TableSettings.from_json(data["settings"]),
            seats=tuple(Seat.from_json(item) for item in data["seats"]),
            occupied=tuple(data["occupied"]),
            links=tuple(DeviceKind(item) for item in data["links"]),
            hand_number=data["hand_number"],
            hand=None if hand is None else Hand.from_json(hand),
            hand_log=tuple(input_from_json(item) for item in data["hand_log"]),
            deck_ready=data["deck_ready"],
            spent=spent,
            held=tuple(parse_card(text) for text in data["held"]),
            unconfirmed=tuple(Placement.from_json(item) for item in data["unconfirmed"]),
            scramble_due=data.get("scramble_due", False),  # absent in older snapshots
            streams=Streams.from_json(data.get("streams")),  # absent in older snapshots
            alerts=tuple(Alert.from_json(item) for item in data["alerts"]),
            next_alert=data["next_alert"],
            bought_in=data["bought_in"],
            cashed_out=data["cashed_out"],
            corrected=data["corrected"],
            raked=data.get("raked", 0),  # absent before the house took anything
            jackpot_dropped=data.get("jackpot_dropped", 0),
            time_collected=data.get("time_collected", 0),  # absent before any time charge
            sittings=data["sittings"],
            deck=None if deck is None else Deck.from_json(deck),  # absent in older snapshots
            registering=None if registering is None else Registration.from_json(registering),
            shuffles=Shuffles.from_json(data["shuffles"]) if "shuffles" in data else Shuffles(),
            unverified=tuple(data.get("unverified", (0,) * len(SEATS))),  # absent: older
            dealer=data.get("dealer"),  # absent before dealers were named
            hand_dealer=data.get("hand_dealer"),
            accepted=tuple((DeviceKind(k), v) for k, v in data.get("accepted", {}).items()),
        )


def signals(table: Table, name: CardName = str) -> Signals:
    """The display line and the lamps for ``table``; a card the line names (a pausing
    alert's) named by ``name``."""
    hand = table.hand
    bonus_seats: tuple[int, ...] = ()
    if table.in_hand:
        assert hand is not None
        bonus_seats = hand.bonus_seats()
    blocking = next((alert for alert in table.alerts if table.blocks(alert)), None)
    if blocking is not None:
        paused = f"PAUSED: {blocking.facts.say(name)}"
        return Signals(paused, Lamps(bool(bonus_seats), bonus_seats), Mode.PAUSED)
    if table.scramble_due and table.in_hand:
        assert hand is not None
        burns = len(hand.burns)
        display = (
            f"SCRAMBLE: the {burns} burn card{'' if burns == 1 else 's'} with the stub, "
            "then load them in the shoe"
        )
        return Signals(display, Lamps(bool(bonus_seats), bonus_seats), Mode.SCRAMBLE)
    if not table.in_hand:
        if not table.deck_ready:
            display, mode = "LOAD A DECK", Mode.LOAD_DECK
        elif len(table.eligible) < 2:
            display, mode = "WAITING FOR PLAYERS", Mode.WAITING_FOR_PLAYERS
        else:
            display, mode = "READY: NEW HAND", Mode.READY
        return Signals(_with_take(hand, display), Lamps(), mode)
    assert hand is not None
    waiting = hand.waiting_for
    assert waiting is not None
    lit = set(bonus_seats)
    if waiting.kind == Wait.CARD and waiting.seat is not None:
        lit.add(waiting.seat)
    display = _with_take(hand, say_waiting(waiting, Form.DISPLAY))
    lamps = Lamps(bool(bonus_seats), tuple(sorted(lit)))
    return Signals(display, lamps, waiting_mode(waiting))


def _with_take(hand: Hand | None, display: str) -> str:
    """``display``, after what the house took from the pot just now, if it took anything
    (at the settlement, until the next hand; as the pot grows, until the next card):
    "RAKE 3, JACKPOT 1: drop 4, then READY: NEW HAND"."""
    if hand is None or not any(hand.took):
        return display
    return f"{HouseTook(*hand.took).message}, then {display}"
