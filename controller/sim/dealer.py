"""The automatic dealer: deals hand after hand on a ``Floor``, decides for the players
and resolves alerts as a supervisor would.

Each move looks at the table as it stands and does the one thing a dealer would do next:
seat the players (a buy-in; a rebuy when broke), resolve the first open alert, load a
deck, start a hand, draw the card the table waits for and place it at its seat, or enter
the decision of the player to act. Faults are injected at the rates asked: an unreadable
card (dealt unread: the seat board's reader names it at its seat, or the supervisor enters
it), a card that lands at a neighbouring seat (the dealer moves it where it belongs), a
cable pulled for a moment (the dealer waits for the table to have the device back before
its next move, as a dealer waits out the pause). A card is pitched only where the table
dealt it: one the table did not take (an alert about it) is kept aside for the supervisor.
A dealer may take over a table in play (the service restarted on its journal): it goes on
from what the table shows, taking the shoe's cards as they come until it loads a deck of
its own. Every random choice comes from the seed: the players' decisions, the decks, the
faults, each from its own source, so the same seed and options deal the same hands.

People may work the same table at its console (seat and cash out players, sit them out,
decide, resolve alerts): the dealer goes on from what the table shows. A player seated or
let go at the console takes or leaves the seat in the simulated world too (the seat's
sensor reports it); a seat emptied at the console is left to the console (the dealer
seats its own players once); with fewer than two players to deal in, the dealer waits for
the people at the console. When the table refuses the dealer because someone else changed
it meanwhile, the dealer looks again; a refusal by the very table it acted on is a fault.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from collections import Counter, defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple

from controller.rules import Card, Choice, Dest, Do, Effect, Waiting
from controller.rules.effects import BonusDecided, HouseReturned, HouseTook, Scramble
from controller.rules.hand import CardOut
from controller.rules.state import FOUR_OF_CLUBS
from controller.sim.floor import Floor
from controller.sim.players import NAMES, Strategy
from controller.table import (
    Alert,
    AlertKind,
    Clearance,
    Cleared,
    DealerIn,
    Decide,
    EnterCard,
    NewHand,
    Raised,
    Rebuy,
    Remedy,
    ResolveAlert,
    SitDown,
    Table,
    TableInput,
)
from controller.table import effects as told
from controller.table.alerts import CardMoved, DeckRejected, ForeignCard, Tamper, UnverifiedRead
from controller.table.state import SEATS
from drivers.protocol import DeviceKind, Disposition
from firmware_sim.shoe import Cheat
from luck_errors import LuckTableError

SUPERVISOR = "SIM"
WHY = "the simulated table's automatic supervisor"
#: The simulated table's dealers, who push each other every ``dealer_push`` hands.
DEALERS = ("SIM-D1", "SIM-D2")


class DealerError(LuckTableError, RuntimeError):
    """The table refused what the dealer did (``refusal``: the table's, its code and words;
    None: the world did not do what the dealer did): a fault of the simulation, not of the
    table."""

    def __init__(self, message: str, refusal: told.Refusal | None = None) -> None:
        super().__init__(message)
        self.refusal = refusal


class Injected(StrEnum):
    """A fault or a mistake the simulation injected, as data (``Tally.injected``'s keys);
    ``words``, as the summary says it."""

    SHOE_UNPLUGGED = "shoe_unplugged"
    SEAT_BOARD_UNPLUGGED = "seat_board_unplugged"
    UNREADABLE = "unreadable_card"
    MISPLACED = "misplaced_card"
    # the human dealer's mistakes (controller.sim.human), and what became of them
    EARLY = "card_out_of_order"
    WRONG_SEAT = "card_to_the_wrong_seat"
    EXPOSED = "exposed_card"
    DEALT_DOWN = "up_card_dealt_face_down"
    WRONG_FACE_NOT_TAKEN = "wrong_face_not_taken"  # the supervisor's record of it refused
    WRONG_CORRECTION = "wrong_correction"
    WRONG_CORRECTION_NOT_TAKEN = "wrong_correction_not_taken"
    WRONG_CORRECTION_STOPPED = "wrong_correction_stopped"  # by the deck's tags
    CORRECTED_BACK = "corrected_back"
    NOT_CORRECTED_BACK = "not_corrected_back"

    @classmethod
    def unplugged(cls, device: DeviceKind) -> Injected:
        return cls.SHOE_UNPLUGGED if device is DeviceKind.SHOE else cls.SEAT_BOARD_UNPLUGGED

    @property
    def words(self) -> str:
        return _INJECTED_WORDS[self]


_INJECTED_WORDS = {
    Injected.SHOE_UNPLUGGED: "shoe unplugged",
    Injected.SEAT_BOARD_UNPLUGGED: "seat board unplugged",
    Injected.UNREADABLE: "unreadable card",
    Injected.MISPLACED: "misplaced card",
    Injected.EARLY: "mistake: a card out of order",
    Injected.WRONG_SEAT: "mistake: a card to the wrong seat",
    Injected.EXPOSED: "mistake: an exposed card",
    Injected.DEALT_DOWN: "mistake: an up card dealt face down",
    Injected.WRONG_FACE_NOT_TAKEN: "mistake: a wrong face, not taken",
    Injected.WRONG_CORRECTION: "mistake: a wrong correction",
    Injected.WRONG_CORRECTION_NOT_TAKEN: "mistake: a wrong correction, not taken",
    Injected.WRONG_CORRECTION_STOPPED: "mistake: a wrong correction, stopped by the deck's tags",
    Injected.CORRECTED_BACK: "mistake: a wrong correction, corrected back",
    Injected.NOT_CORRECTED_BACK: "mistake: a wrong correction, not corrected back",
}


class Resolution(StrEnum):
    """How the simulation's dealer or supervisor resolved an alert other than by one of its
    remedies, as data; ``words``, as the summary says it."""

    ENTERED_CARD = "entered_card"  # the supervisor entered the unread card
    ANOTHER_DECK = "another_deck"  # the dealer loaded another deck (a deck rejected)
    MOVED_CARD = "moved_card"  # the dealer moved the card where the table says it belongs

    @property
    def words(self) -> str:
        return _RESOLUTION_WORDS[self]


_RESOLUTION_WORDS = {
    Resolution.ENTERED_CARD: "the supervisor entered the card",
    Resolution.ANOTHER_DECK: "the dealer loaded another deck",
    Resolution.MOVED_CARD: "the dealer moved the card",
}

#: How an alert was resolved (``Tally.resolved``'s keys): the simulation's act, the
#: supervisor's remedy, or how the table cleared it (a device, a seat, the hand's end, a
#: person at the console).
How = Resolution | Remedy | Clearance


def how_words(how: How) -> str:
    """How an alert was resolved, as the summary says it."""
    if isinstance(how, Resolution):
        return how.words
    if isinstance(how, Remedy):
        return f"the supervisor resolved it ({how.value})"
    return f"the table cleared it ({how.value})"


class SoakCheat(StrEnum):
    """A cheat a soak injects (``--cheats``): one done to a deck as it is loaded
    (``firmware_sim.shoe.Cheat``), or one done at a seat as a card lands there."""

    FOREIGN = "foreign"  # a card of another deck
    RETAGGED = "retagged"  # a card whose tag says another card
    CLONED = "cloned"  # a copy of a card dealt before it (its face and tag)
    MISSING = "missing"  # a card taken out before the load
    EXTRA = "extra"  # a card of another deck put in before the load
    CLONED_UNDEALT = "cloned_undealt"  # a copy of a card still in the shoe: dealt first
    CLONED_4C = "cloned_4c"  # a copy of the 4c, put in ahead of it (where it is not first)
    SWITCHED = "switched"  # a card at a seat switched for one of another deck
    PASSED = "passed"  # a live player's card, confirmed at its seat, read at another
    MUCKED = "mucked"  # a folded hand's card or a burn card, read at a live seat
    HOLDOUT = "holdout"  # a card with a shielded tag switched in as a card lands


#: The cheats done to the deck as it is loaded, and what the shoe's simulator does for each.
SHOE_CHEATS: dict[SoakCheat, Cheat] = {
    SoakCheat.FOREIGN: Cheat.FOREIGN,
    SoakCheat.RETAGGED: Cheat.RETAGGED,
    SoakCheat.CLONED: Cheat.CLONED,
    SoakCheat.MISSING: Cheat.MISSING,
    SoakCheat.EXTRA: Cheat.EXTRA,
    SoakCheat.CLONED_UNDEALT: Cheat.CLONED,
    SoakCheat.CLONED_4C: Cheat.CLONED,
}
#: The cheats the table may catch only cards after their own: a clone dealt before its
#: original, told when the original comes out (or never, when it stays in the shoe).
LATE = frozenset({SoakCheat.CLONED_UNDEALT, SoakCheat.CLONED_4C})
#: The cheats done at a seat (a table with a seat board only), each as likely.
SEAT_CHEATS = (SoakCheat.SWITCHED, SoakCheat.PASSED, SoakCheat.MUCKED, SoakCheat.HOLDOUT)
#: Every cheat a soak injects, each as likely.
CHEATS = (*SHOE_CHEATS, *SEAT_CHEATS)
#: The alerts that catch each cheat (``_signal``): a foreign card by how the table knew; a
#: deck rejected for a card missing or extra; a card that moved after it was dealt; a
#: seat's read without a readable tag.
CAUGHT_BY: dict[SoakCheat, frozenset[str]] = {
    **{kind: frozenset({cheat.value}) for kind, cheat in SHOE_CHEATS.items()},
    SoakCheat.SWITCHED: frozenset({Tamper.SWITCHED.value, Tamper.NOT_DEALT.value}),
    SoakCheat.PASSED: frozenset({AlertKind.CARD_MOVED.value}),
    SoakCheat.MUCKED: frozenset({AlertKind.CARD_MOVED.value}),
    SoakCheat.HOLDOUT: frozenset({AlertKind.UNVERIFIED_READ.value}),
}
#: Where a cheat on a card out of the shoe goes: any place of the load (a clone copies a
#: card before it; a clone of a card still in the shoe, a card after it). A cheat at a
#: seat: any card placed at a seat in the hand, up to this many a seat (seven cards and a
#: bonus card); a card passed or mucked, the first placed from there that has such a card.
SEAT_CARDS = 8


class Place(NamedTuple):
    """Where a cheat came into play (``Tally.places``' keys): at the deck's load (``dest``
    None: a card missing or extra), or as the card drawn for ``dest`` (a seat's, of
    ``street``; a burn, the bonus card, the community card), ``scrambled``: after the
    hand's burn cards were scrambled into a short deck's stub."""

    dest: Dest | None
    street: int | None = None
    scrambled: bool = False

    @property
    def words(self) -> str:
        """As the summary says it: "deck load", "street 3", "burn after the scramble"."""
        match self.dest:
            case None:
                where = "deck load"
            case Dest.BONUS:
                where = "bonus card"
            case Dest.BURN:
                where = "burn"
            case Dest.COMMUNITY:
                where = "community card"
            case _:
                where = f"street {self.street}"
        return where + (" after the scramble" if self.scrambled else "")


#: Where a cheat done to the deck as it is loaded is: at the load, before any card is dealt.
AT_LOAD = Place(None)


@dataclass(frozen=True)
class InPlay:
    """A cheat that came into play: its kind, where (``Place``) and how many cards had been
    drawn then, its own included; ``ahead``: a clone dealt before its
    original, which the table can tell only when the original comes out."""

    kind: SoakCheat
    where: Place
    drawn: int
    ahead: bool = False


@dataclass(frozen=True)
class FaultRates:
    """How often each fault happens: ``unreadable`` and ``misplaced`` per card drawn,
    ``unplug`` per card drawn (one device's cable pulled for a moment), ``line`` per
    frame on the wire (corrupted or dropped frames the link must recover), ``cheats`` per
    deck loaded (one of ``CHEATS``, each as likely; those at a seat only with a seat board)."""

    unreadable: float = 0.0
    misplaced: float = 0.0
    line: float = 0.0
    unplug: float = 0.0
    cheats: float = 0.0

    def __post_init__(self) -> None:
        for name in ("unreadable", "misplaced", "line", "unplug", "cheats"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"the {name} fault rate must be 0..1, not {value}")


@dataclass(frozen=True)
class Pace:
    """Seconds the dealer takes for each kind of move (all 0: as fast as possible)."""

    card: float = 0.0
    decision: float = 0.0
    hand: float = 0.0

    @classmethod
    def real(cls, speed: float) -> Pace:
        """A live table's pace, ``speed`` times faster."""
        return cls(card=0.6 / speed, decision=0.9 / speed, hand=2.0 / speed)


@dataclass
class Tally:
    """What happened, counted from the table's effects and the dealer's own acts."""

    hands: int = 0
    void_hands: int = 0
    cards: int = 0
    drawn: int = 0
    bonus_cards: int = 0
    bonus_declined: int = 0
    bought_in: int = 0
    cashed_out: int = 0
    raked: int = 0  # the house's rake, into the drop box, of the hands over
    jackpot_dropped: int = 0  # the jackpot drops, into the drop box, of the hands over
    taking: tuple[int, int] = (0, 0)  # the rake and drop of the hand in progress so far
    time_collected: int = 0  # the time charges, into the drop box
    decks: int = 0
    decisions: int = 0
    scrambles: int = 0  # hands whose burn cards went back into the shoe
    line_faults: float = 0.0
    injected: Counter[Injected] = field(default_factory=Counter)
    cheats: Counter[SoakCheat] = field(default_factory=Counter)  # injected, by kind (CHEATS)
    # cheats placed but never dealt (the hand ended first; a scramble reloaded the stub)
    unreached: Counter[SoakCheat] = field(default_factory=Counter)
    places: Counter[Place] = field(default_factory=Counter)  # where each cheat came into play
    # by kind: the cards dealt after each cheat caught, to its alert (its own not counted)
    late: defaultdict[SoakCheat, Counter[int]] = field(default_factory=lambda: defaultdict(Counter))
    caught: Counter[SoakCheat] = field(default_factory=Counter)  # by kind: caught by its alert
    # by kind: in play, not caught, and no alert could come: a clone dealt before its
    # original, which stayed in the shoe (docs/game-protection.md, "cannot detect")
    hidden: Counter[SoakCheat] = field(default_factory=Counter)
    signals: Counter[str] = field(default_factory=Counter)  # alerts of a cheat, by ``_signal``
    attributed: Counter[str] = field(default_factory=Counter)  # of those, a cheat's in play
    raised: Counter[str] = field(default_factory=Counter)
    resolved: defaultdict[str, Counter[How]] = field(default_factory=lambda: defaultdict(Counter))
    open: dict[int, str] = field(default_factory=dict)
    remedied: dict[int, How] = field(default_factory=dict)
    recent: deque[str] = field(default_factory=lambda: deque(maxlen=6))
    digest: hashlib._Hash = field(default_factory=hashlib.sha256)

    def observe(self, table: Table, effects: Sequence[Effect]) -> None:
        for effect in effects:
            if isinstance(effect, told.DisplayChanged | told.LampsChanged):
                continue
            self.recent.append(effect.message)
            match effect:
                case CardOut(where=where):
                    self.cards += 1
                    self.bonus_cards += where.destination is Dest.BONUS
                case Scramble():
                    self.scrambles += 1
                case BonusDecided(accept=False):
                    self.bonus_declined += 1
                case told.SatDown(chips=chips) | told.Rebought(chips=chips):
                    self.bought_in += chips
                case told.CashedOut(chips=chips):
                    self.cashed_out += chips
                case told.TimeCharged(chips=chips):
                    self.time_collected += chips
                case HouseTook(rake=rake, jackpot_drop=drop):
                    self.taking = (self.taking[0] + rake, self.taking[1] + drop)
                case HouseReturned(rake=rake, jackpot_drop=drop):
                    self.taking = (self.taking[0] - rake, self.taking[1] - drop)
                case Raised(alert=alert):
                    self.raised[alert.kind.value] += 1
                    self.open[alert.id] = alert.kind.value
                    signal = _signal(alert)
                    if signal is not None:
                        self.signals[signal] += 1
                case Cleared():
                    alert_kind = self.open.pop(effect.alert, "unknown")
                    how = self.remedied.pop(effect.alert, effect.by)
                    self.resolved[alert_kind][how] += 1
                case told.HandOver(hand=number, void=void):
                    self.hands += 1
                    self.void_hands += void
                    self.raked += self.taking[0]  # the ledger counts a hand's take once over
                    self.jackpot_dropped += self.taking[1]
                    self.taking = (0, 0)
                    stacks = json.dumps(effect.data["stacks"], sort_keys=True)
                    self.digest.update(f"{number}:{stacks};".encode())

    def conserved(self, table: Table) -> bool:
        """Every chip bought in and not cashed out is in a stack or in the drop box (with
        the supervisor's stack corrections, read from the table's ledger), and the ledger
        agrees, the house's take (the rake, the drops, the time charges) included."""
        house = self.raked + self.jackpot_dropped + self.time_collected
        counted = self.bought_in - self.cashed_out + table.corrected - house
        in_box = (table.raked, table.jackpot_dropped, table.time_collected) == (
            self.raked,
            self.jackpot_dropped,
            self.time_collected,
        )
        return sum(seat.stack for seat in table.seats) == table.chips == counted and in_box

    @property
    def missed(self) -> Counter[SoakCheat]:
        """The cheats injected that the table did not catch and could have, by kind."""
        return self.cheats - self.caught - self.hidden

    @property
    def mistaken(self) -> Counter[str]:
        """The alerts of a cheat that no cheat in play accounts for (a genuine card taken
        for one), by ``_signal``."""
        return self.signals - self.attributed

    @property
    def after(self) -> Counter[int]:
        """The cards dealt after each cheat caught, to its alert, every kind together."""
        return sum(self.late.values(), Counter[int]())

    @property
    def hand_digest(self) -> str:
        """A fingerprint of every hand's outcome: the same for the same hands."""
        return self.digest.hexdigest()[:16]


class Dealer:
    """Deals ``hands`` hands (0: until stopped) at ``seats`` seats on ``floor``; with
    ``dealer_push`` N, the table's dealer is one of ``DEALERS`` in turn, pushed every N
    hands (``dealer_in`` before the hand; 0: the table names no dealer). The cheats
    injected (``faults.cheats``) are of ``kinds``, each as likely (those at a seat only at a
    table with a seat board)."""

    def __init__(
        self,
        floor: Floor,
        tally: Tally,
        *,
        seats: int,
        hands: int,
        seed: int,
        faults: FaultRates = FaultRates(),
        pace: Pace = Pace(),
        dealer_push: int = 0,
        kinds: Sequence[SoakCheat] = CHEATS,
    ) -> None:
        if not 2 <= seats <= 8:
            raise ValueError(f"seats must be 2..8, not {seats}")
        if dealer_push < 0:
            raise ValueError(f"dealer_push must be 0 or more hands, not {dealer_push}")
        self.dealer_push = dealer_push
        if not kinds:
            raise ValueError("kinds must name at least one cheat")
        self.kinds = tuple(kinds)
        self.floor = floor
        self.tally = tally
        self.seats = tuple(range(1, seats + 1))
        self.hands = hands
        self.faults = faults
        self.pace = pace
        # every seat's player decides, also one seated at the console at any seat
        self.players = {seat: Strategy(seed * 100 + seat) for seat in SEATS}
        self.to_seat = set(self.seats)  # the dealer's seats it has not yet seated
        self.decks = random.Random(seed * 100 + 11)
        self.chance = random.Random(seed * 100 + 13)
        self.first_hand = floor.table.hand_number  # hands started after it are counted
        self.unread: dict[int, int] = {}  # unread-card alert -> the card it physically is
        self.scrambled = 0  # the last hand whose burn cards went back into the shoe
        self.shoe: deque[int] = deque()  # the cards in the shoe, next first
        self.cheating = random.Random(seed * 100 + 17)
        self.from_load = self.placed = 0  # cards drawn from the load; placed in the hand
        self.planted: tuple[SoakCheat, int] | None = None  # a cheat at a place of the load
        # a clone planted ahead of its original: the card it took the place of, the original
        self.ahead: tuple[int, int] | None = None
        self.twin: int | None = None  # the original, still in the shoe, of a clone dealt
        self.at_seat: tuple[SoakCheat, int] | None = None  # a cheat at the hand's Nth card placed
        self.in_play: InPlay | None = None  # a cheat dealt, until its alert

    async def run(self) -> None:
        """Deal until ``hands`` hands are over (for ever with 0). Each move gives the event
        loop its turn: a signal (Ctrl-C, SIGTERM) or a deadline stops the dealer also on a
        floor where nothing waits (``CoreFloor``)."""
        while await self.move():
            await asyncio.sleep(0)
        self._unreached()
        self._uncaught()

    async def move(self) -> bool:
        """One move; False once the last hand is over."""
        table = self.floor.table
        self.to_seat -= {seat.seat for seat in table.seats}
        sensed = _sensed(table) if self.floor.senses_seats else None
        empty = min(self.to_seat, default=None)
        if sensed is not None:
            seat, occupied = sensed
            await (self.floor.sit(seat) if occupied else self.floor.leave(seat))
        elif empty is not None:
            await self._sit_down(empty)
        elif table.alerts:
            await self._resolve(table.alerts[0])
        elif not table.in_hand:
            if self.hands and table.hand_number - self.first_hand >= self.hands:
                return False
            await self._between_hands(table)
        else:
            hand = table.hand
            assert hand is not None and hand.waiting_for is not None
            waiting = hand.waiting_for
            if hand.scrambled_burns and self.scrambled != table.hand_number:
                await self._scramble(list(hand.scrambled_burns), table.hand_number)
            elif waiting.kind == "card":
                await self._deal(waiting)
            else:
                await self._decide(waiting)
        return True

    async def _submit(self, item: TableInput) -> None:
        """Submit ``item``; refused on the table the dealer acted on: DealerError (a table
        that someone else changed meanwhile: the next move looks again)."""
        before = self.floor.table
        refusal = await self.floor.submit(item)
        if refusal is not None and self.floor.table is before:
            raise DealerError(f"the table refused {item.tag}: {refusal.message}", refusal)

    async def _pause(self, seconds: float) -> bool:
        """Take ``seconds``; whether the table stayed as it was meanwhile (else the dealer
        looks again: someone at the console changed it)."""
        if not seconds:
            return True
        table = self.floor.table
        await asyncio.sleep(seconds)
        return self.floor.table is table

    async def _sit_down(self, seat: int) -> None:
        settings = self.floor.table.settings
        buy_in = self.players[seat].buy_in(settings.min_buy_in, settings.max_buy_in)
        self.to_seat.discard(seat)
        await self.floor.sit(seat)
        player = NAMES[seat - 1]
        await self._submit(SitDown(at=self.floor.now(), seat=seat, player=player, buy_in=buy_in))

    async def _between_hands(self, table: Table) -> None:
        broke = next((seat for seat in table.seats if seat.stack == 0), None)
        if broke is not None:
            settings = table.settings
            chips = self.players[broke.seat].buy_in(settings.min_buy_in, settings.max_buy_in)
            await self._submit(Rebuy(at=self.floor.now(), seat=broke.seat, chips=chips))
        elif not table.deck_ready:
            await self._load(cheats=True)
        elif len(table.eligible) < 2:
            await self.floor.people()  # the console sat players out or let them go
        elif (dealer := self._dealer_due(table)) is not None:
            await self._submit(DealerIn(at=self.floor.now(), who=dealer))
        elif await self._pause(self.pace.hand):
            await self._submit(NewHand(at=self.floor.now()))

    def _dealer_due(self, table: Table) -> str | None:
        """The dealer to push in before the next hand (its turn has come), or None."""
        if not self.dealer_push:
            return None
        due = DEALERS[table.hand_number // self.dealer_push % len(DEALERS)]
        return None if table.dealer == due else due

    async def _load(self, *, cheats: bool) -> None:
        """Load a shuffled deck; with ``cheats``, at the rate asked, one of the cheats."""
        deck = list(range(52))
        self.decks.shuffle(deck)
        self._unreached()
        self._uncaught()
        self.from_load = self.placed = 0
        kind, at, of = self._cheat(deck) if cheats else (None, None, None)
        cheat = None if kind is None else SHOE_CHEATS[kind]
        self.shoe = deque(await self.floor.load(deck, cheat, at, of))
        self.tally.decks += 1
        if kind in (SoakCheat.MISSING, SoakCheat.EXTRA):  # the registration shows it at once
            self._in_play(kind, AT_LOAD)

    def _unreached(self) -> None:
        """A cheat placed that was never dealt (its hand ended, or a scramble reloaded the
        stub it was in): not injected, counted apart."""
        for kind in [cheat[0] for cheat in (self.planted, self.at_seat) if cheat is not None]:
            self.tally.unreached[kind] += 1
        self.planted = self.at_seat = self.ahead = None

    def _uncaught(self) -> None:
        """The cheat in play when its deck is done with: not caught (a miss, unless it is a
        clone dealt before its original and the original stayed in the shoe: no alert could
        come, counted apart)."""
        if self.in_play is not None and self.in_play.ahead and self.twin is not None:
            self.tally.hidden[self.in_play.kind] += 1
        self.in_play = self.twin = None

    def _in_play(self, kind: SoakCheat, where: Place, *, ahead: bool = False) -> None:
        """Cheat ``kind`` is on the table now, at ``where``: injected."""
        self.tally.cheats[kind] += 1
        self.tally.places[where] += 1
        self.in_play = InPlay(kind, where, self.tally.drawn, ahead)

    def _caught(self, signal: str) -> None:
        """An alert of a cheat (``_signal``): the cheat in play's, if it is an alert that
        catches it (else Tally.mistaken counts it), with the cards dealt after the cheat
        before it (a clone's original, which raised it and was not dealt, not counted)."""
        held = self.in_play
        if held is None or signal not in CAUGHT_BY[held.kind]:
            return
        self.tally.attributed[signal] += 1
        self.tally.caught[held.kind] += 1
        self.tally.late[held.kind][self.tally.drawn - held.drawn - held.ahead] += 1
        self.in_play = self.twin = None

    def _cheat(self, deck: list[int]) -> tuple[SoakCheat | None, int | None, int | None]:
        """A cheat for ``deck``, about to be loaded (none at the rate's odds): the cheat,
        its place in the load and, for a clone, the place of the card it copies; or
        (None, None, None) with a cheat at the Nth card placed at a seat armed."""
        if self.cheating.random() >= self.faults.cheats:
            return None, None, None
        seat_board = self.floor.table.settings.seat_board  # nothing at a seat seen without one
        kinds = [kind for kind in self.kinds if seat_board or kind in SHOE_CHEATS]
        if not kinds:
            return None, None, None
        kind = self.cheating.choice(kinds)
        if kind in SEAT_CHEATS:
            self.at_seat = (kind, self.cheating.randrange(SEAT_CARDS * len(self.seats)))
            return None, None, None
        last = len(deck) - 1
        of = None
        match kind:
            case SoakCheat.MISSING:
                return kind, self.cheating.randrange(len(deck)), None
            case SoakCheat.EXTRA:
                return kind, self.cheating.randrange(len(deck) + 1), None
            case SoakCheat.CLONED_UNDEALT:  # any place with a card after it, a card after it
                at = self.cheating.randrange(last)
                of = self.cheating.randrange(at + 1, len(deck))
            case SoakCheat.CLONED_4C:  # ahead of the 4c, unless it is the first card
                of = deck.index(FOUR_OF_CLUBS)
                at = self.cheating.randrange(of) if of else self.cheating.randrange(1, len(deck))
            case _:
                at = self.cheating.randrange(int(kind is SoakCheat.CLONED), len(deck))
        if of is not None and at < of:
            self.ahead = (deck[at], deck[of])
        self.planted = (kind, at)
        return kind, at, of

    async def _deal(self, waiting: Waiting) -> None:
        if not await self._pause(self.pace.card):
            return
        if self.chance.random() < self.faults.unplug:
            device = self.chance.choice((DeviceKind.SHOE, DeviceKind.SEAT_BOARD))
            self.tally.injected[Injected.unplugged(device)] += 1
            await self.floor.unplug(device, 1.0 + self.chance.random())
            return  # the table will say whether to go on
        unread = self.chance.random() < self.faults.unreadable
        before = {alert.id for alert in self.floor.table.alerts}
        card = await self.floor.draw(Disposition.DEALT_UNREAD if unread else None)
        if self.shoe:  # else a deck the dealer did not load (it took over the table)
            expected = self.shoe.popleft()
            if card != expected:
                raise DealerError(f"the shoe gave card {card}; the dealer loaded {expected} next")
        self.tally.drawn += 1
        self.from_load += 1
        table = self.floor.table
        if card == self.twin and card not in self.shoe:  # out of the shoe: a clone's original
            self.twin = None  # (or the first of the two, scrambled back with it)
        if self.planted is not None and self.planted[1] == self.from_load - 1:
            ahead, self.ahead = self.ahead, None
            self._in_play(self.planted[0], self._where(waiting, table), ahead=ahead is not None)
            self.twin = None if ahead is None else ahead[1]
            self.planted = None
        if any(_aside(alert, Card(card), alert.id not in before) for alert in table.alerts):
            return  # the table did not deal it: kept aside until the supervisor says
        seat = waiting.seat
        placed = seat is not None and table.settings.seat_board
        if unread:
            self.tally.injected[Injected.UNREADABLE] += 1
            for alert in table.alerts:  # the supervisor will enter it: the card of its alert
                if alert.kind is AlertKind.UNREAD_CARD and alert.id not in self.unread:
                    self.unread[alert.id] = card
        if seat is None or not placed:
            return
        lands_at = seat
        if not unread and self.chance.random() < self.faults.misplaced:
            lands_at = self.chance.choice([s for s in (seat - 1, seat + 1) if 1 <= s <= 8])
            self.tally.injected[Injected.MISPLACED] += 1
        due = self._at_seat_due(lands_at == seat)
        where = self._where(waiting, table)
        if due is SoakCheat.HOLDOUT:  # the player keeps the card; a shielded one lands
            self.at_seat = None
            self._in_play(due, where)
            await self.floor.shielded(seat)
        else:
            await self.floor.place(seat, card, lands_at)
        self.placed += 1
        if due in (SoakCheat.SWITCHED, SoakCheat.PASSED, SoakCheat.MUCKED):
            await self._at_seat(due, seat, card, where)

    def _at_seat_due(self, lands_right: bool) -> SoakCheat | None:
        """The cheat armed at a seat, when the card about to be placed is the one it waits
        for (the Nth of the hand or a later one) and lands where it belongs."""
        if self.at_seat is None or not lands_right or self.placed < self.at_seat[1]:
            return None
        return self.at_seat[0]

    async def _at_seat(self, kind: SoakCheat, seat: int, card: int, where: Place) -> None:
        """A cheat at a seat once ``card`` was placed at ``seat``: a player switches it for
        a card brought in, or a card already out is read at a live seat (one passed from
        another live player, or a folded hand's or a burn card from the muck). A card to
        pass or take from the muck chosen at random; none yet: the cheat waits for the
        next card placed."""
        moved = None if kind is SoakCheat.SWITCHED else self._to_move(kind)
        if kind is not SoakCheat.SWITCHED and moved is None:
            return
        self.at_seat = None
        self._in_play(kind, where)
        if moved is None:
            await self.floor.switch(seat, card)
        else:
            await self.floor.place(moved[1], moved[0], moved[1])

    def _to_move(self, kind: SoakCheat) -> tuple[int, int] | None:
        """A card out of the shoe that the table has settled (``PASSED``: a live player's;
        ``MUCKED``: a folded player's, or a burn card not scrambled back) and another live
        seat to bring it to, at random; None: no such card."""
        table = self.floor.table
        hand = table.hand
        assert hand is not None
        awaited = {placement.card for placement in table.unconfirmed}
        cards: list[tuple[int, int | None]] = [  # each card and the seat holding it
            (int(dealt.card), player.seat)
            for player in hand.players
            if player.folded == (kind is SoakCheat.MUCKED)
            for dealt in player.cards
            if dealt.card not in awaited
        ]
        if kind is SoakCheat.MUCKED:
            cards += [(int(burn), None) for burn in hand.burns if hand.is_out(burn)]
        live = [player.seat for player in hand.players if not player.folded]
        if not cards:
            return None
        card, holder = self.cheating.choice(cards)
        seats = [seat for seat in live if seat != holder]
        return (card, self.cheating.choice(seats)) if seats else None

    def _where(self, waiting: Waiting, table: Table) -> Place:
        """Where the card drawn for ``waiting`` was to go."""
        street = waiting.street if waiting.destination is Dest.SEAT else None
        return Place(waiting.destination, street, self.scrambled == table.hand_number)

    async def _scramble(self, burns: list[Card], hand_number: int) -> None:
        """The stub ran short: the burn cards are scrambled with it into the shoe (which
        reports the cards loaded: the stub and the burns, as the table expects). A clone
        goes back in as it is (its face and its tag): with its original among those cards
        too (a burn, or still in the stub), the later of the two is the one the table
        takes for a clone."""
        cards = [*self.shoe, *(int(card) for card in burns)]
        order = list(range(len(cards)))
        self.decks.shuffle(order)  # the cards' shuffle, followed card by card
        planted, self.planted = self.planted, None
        ahead, self.ahead = self.ahead, None
        if planted is not None and ahead is not None:
            # a copy of a card still in the stub, not dealt yet: the cheater takes it back
            # out and puts the card it replaced in again
            cards[planted[1] - self.from_load] = ahead[0]
            self.tally.unreached[planted[0]] += 1
            planted = None
        elif planted is not None and SHOE_CHEATS[planted[0]] is not Cheat.CLONED:
            self.tally.unreached[planted[0]] += 1  # the simulators reload it by its face
            planted = None
        cards = [cards[index] for index in order]
        twice = next((at for at, card in enumerate(cards) if card in cards[:at]), None)
        of = None if twice is None else cards.index(cards[twice])
        if planted is not None:
            place = order.index(planted[1] - self.from_load) if twice is None else twice
            self.planted = (planted[0], place)
        self.from_load = 0
        self.shoe = deque(cards)
        self.scrambled = hand_number
        await self.floor.load(cards, None if twice is None else Cheat.CLONED, twice, of)

    async def _decide(self, waiting: Waiting) -> None:
        if not await self._pause(self.pace.decision):
            return
        assert waiting.seat is not None
        choice = self.players[waiting.seat].choose(waiting)
        at = self.floor.now()
        if isinstance(choice, Choice):
            item = Decide(at=at, seat=waiting.seat, do=choice.do, to=choice.to)
        else:
            item = Decide(at=at, seat=waiting.seat, do=Do.BONUS, accept=choice)
        self.tally.decisions += 1
        await self._submit(item)

    async def _resolve(self, alert: Alert) -> None:
        """What a dealer and a supervisor do for ``alert``; a device's own alert (a fault,
        a lost link) is waited out."""
        if not await self._pause(self.pace.hand):  # a supervisor takes a moment to come over
            return
        kind = alert.kind
        signal = _signal(alert)
        if signal is not None:
            self._caught(signal)
        if kind is AlertKind.UNREAD_CARD:
            card = Card(self.unread.pop(alert.id))
            self.tally.remedied[alert.id] = Resolution.ENTERED_CARD
            await self._submit(EnterCard(card=card, **self._signed()))
        elif kind is AlertKind.DECK_REJECTED:
            self.tally.remedied[alert.id] = Resolution.ANOTHER_DECK
            self.floor.new_deck()
            await self._load(cheats=False)
        elif kind is AlertKind.FOREIGN_CARD:
            await self._tampered(alert)
        elif kind is AlertKind.WRONG_CARD_NAMED:  # the correction was not made: as it was
            self.tally.remedied[alert.id] = Remedy.DONE
            await self._submit(ResolveAlert(alert=alert.id, remedy=Remedy.DONE, **self._signed()))
        elif kind in (AlertKind.MISPLACED_CARD, AlertKind.CARD_AT_EMPTY_SEAT) and alert.belongs:
            assert alert.card is not None
            self.tally.remedied[alert.id] = Resolution.MOVED_CARD
            await self._move_card(int(alert.card), alert.belongs)
        elif alert.rule.remedies:
            remedy = alert.rule.remedies[-1]
            self.tally.remedied[alert.id] = remedy
            await self._submit(ResolveAlert(alert=alert.id, remedy=remedy, **self._signed()))
        else:
            await self.floor.settle()

    async def _tampered(self, alert: Alert) -> None:
        """A foreign card: the supervisor takes a foreign or re-tagged card out of play (the
        deck is otherwise whole) and replaces the deck for a cloned tag or a switched card
        (any doubt about the deck): the hand is void, another deck comes."""
        tamper = getattr(alert.facts, "tamper", None)
        remedy = Remedy.DEAD if tamper in (Tamper.FOREIGN, Tamper.RETAGGED) else Remedy.REPLACE_DECK
        self.tally.remedied[alert.id] = remedy
        await self._submit(ResolveAlert(alert=alert.id, remedy=remedy, **self._signed()))
        if remedy is Remedy.REPLACE_DECK:
            self.floor.new_deck()

    async def _move_card(self, card: int, seat: int) -> None:
        """The dealer moves ``card`` to ``seat``, where the table says it belongs."""
        await self.floor.place(seat, card, seat)

    def _signed(self) -> dict[str, Any]:
        """The fields of a supervisor's action: when, who and why."""
        return {"at": self.floor.now(), "who": SUPERVISOR, "why": WHY}


def _sensed(table: Table) -> tuple[int, bool] | None:
    """A seat whose sensor does not match the table's seating (someone was seated or let
    go at the console): (the seat, whether a player sits there), or None."""
    if not table.settings.seat_board:
        return None
    seated = {seat.seat for seat in table.seats}
    for seat in sorted(seated ^ set(table.occupied)):
        return seat, seat in seated
    return None


def _aside(alert: Alert, card: Card, new: bool) -> bool:
    """Whether ``card``, just drawn, is kept aside for ``alert`` (``new``: raised as it was
    drawn): the alert is about it, or about a card out of the shoe that is not the deck's,
    or one already in play (its tag may say another card: a re-tagged card at a table
    without tag checks)."""
    foreign = alert.kind is AlertKind.FOREIGN_CARD and alert.seat is None
    in_play = new and alert.kind is AlertKind.CARD_IN_PLAY
    return alert.card == card or foreign or in_play


def _signal(alert: Alert) -> str | None:
    """What an alert of a cheat says (``CAUGHT_BY``): a foreign card, by how the table
    knew (its ``tamper``); a deck rejected, for a card missing or one too many; a card
    moved; a seat's read without a tag. None for another alert."""
    facts = alert.facts
    if isinstance(facts, ForeignCard):
        return facts.tamper.value
    if isinstance(facts, DeckRejected):
        return Cheat.MISSING.value if facts.missing else Cheat.EXTRA.value
    if isinstance(facts, CardMoved | UnverifiedRead):
        return alert.kind.value
    return None
