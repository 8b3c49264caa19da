"""What the engine tells people: each effect a frozen record of its facts, worded when read.

An effect has a ``kind`` (:class:`Told`), its facts (the dataclass's fields), the cards its
words may name (``cards``), and words made from the facts by ``say(name)``, each card named
by ``name`` (``str``: "Kd"; a viewer's: "a card" for a card they may not see). ``message``
is ``say(str)``; ``data`` the facts as JSON; ``to_json`` both. Kinds with the same facts
share a small base record that holds them with their data and cards (``AtSeat``,
``CardOfSeat``, ``SeatChips``, ``OnStreet``, ``ShortStub``). The records of the deal and
the betting (``CardOut``, ``Decision``) are in ``controller.rules.hand``, those of the
showdown (``Shows``, ``Awarded``) in ``controller.rules.showdown``; the table's in
``controller.table.effects`` and ``controller.table.alerts``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NotRequired, TypedDict

from controller.rules.betting import describe_showing
from controller.rules.cards import Card
from controller.rules.state import STREET_NAMES, Dest

#: How words name a card: ``str`` ("Kd"), or a viewer's (a card they may not see: "a card").
CardName = Callable[[Card], str]


class Told(StrEnum):
    """The kinds of the engine's effects."""

    ANTE = "ante"
    STREET = "street"
    CARD = "card"
    BURN = "burn"
    BONUS = "bonus"
    NO_BONUS = "no_bonus"
    DEAD_CARD = "dead_card"
    SHORT_DECK = "short_deck"
    COMMUNITY = "community"
    SCRAMBLE = "scramble"
    NO_BETTING = "no_betting"
    BRING_IN = "bring_in"
    TO_ACT = "to_act"
    OPEN_PAIR = "open_pair"
    DECISION = "decision"
    SHOWDOWN = "showdown"
    SHOW = "show"
    MUCK = "muck"
    RAKE = "rake"
    AWARD = "award"
    EXPOSE = "expose"
    DEALT_DOWN = "dealt_down"
    CORRECT = "correct"
    VOID = "void"


class Effect:
    """Something people must be told: ``kind``, the facts, and the words made of them.

    Each kind of effect is a frozen dataclass of its facts that words them in ``say``.
    ``cards``: the cards the words may name (each named through ``name``: no other card's
    name appears in them); ``data``: the facts as JSON.
    """

    __slots__ = ()
    kind: str

    def say(self, name: CardName = str) -> str:
        """The effect in words, each card named by ``name``."""
        raise NotImplementedError

    @property
    def message(self) -> str:
        return self.say(str)

    @property
    def data(self) -> Mapping[str, Any]:
        return {}

    @property
    def cards(self) -> tuple[Card, ...]:
        return ()

    def to_json(self) -> EffectJson:
        return {"kind": str(self.kind), "message": self.message, **self.data}


#: An effect as JSON: its ``kind`` and ``message`` beside the facts of its kind (its
#: ``data``, a ``TypedDict`` of each kind's own: ``SeatData``, ``AwardData``, ...). One
#: object whose keys depend on the kind, which a ``TypedDict`` cannot spell (no extra keys
#: beside declared ones before PEP 728): a map to whoever reads it.
EffectJson = dict[str, Any]


def named(text: str, cards: Iterable[Card], name: CardName) -> str:
    """``text`` with each of ``cards`` (as ``str`` names it) named by ``name`` instead."""
    for card in cards:
        text = name(card).join(re.split(rf"\b{card}\b", text))
    return text


def _s(count: int) -> str:
    return "" if count == 1 else "s"


# The facts of each kind as JSON (``data``), one ``TypedDict`` per shape ----------------------


class SeatData(TypedDict):
    """The data of an effect at a seat."""

    seat: int


class SeatCardData(SeatData):
    """The data of an effect of a seat's card."""

    card: str


class SeatChipsData(SeatData):
    """The data of an effect of a seat's chips."""

    chips: int


class StreetData(TypedDict):
    """The data of an effect on a street (3 to 7)."""

    street: int


class StubData(TypedDict):
    """The data of seventh street's short deck: the stub's cards and the players."""

    stub: int
    players: int


class BurnsData(TypedDict):
    """The data of a scramble: the burn cards back in the stub."""

    burns: list[str]


class BonusEarnedData(SeatData):
    """The data of a bonus card earned: its price and whether it is offered."""

    price: int
    offered: bool


class BonusDecidedData(SeatData):
    """The data of a bonus card bought or declined."""

    accept: bool
    price: int


class BringInData(SeatData):
    """The data of a bring-in passed on from the low card's seat, ``low``, all-in."""

    low: int


class ToActData(SeatData):
    """The data of the seat to act first on ``street``; ``high``: the high hand's seat,
    after third street."""

    high: NotRequired[int]
    street: int


class OpenPairData(TypedDict):
    """The data of an open pair on fourth street: the bets it allows."""

    small: int
    big: int


class AwardData(TypedDict):
    """The data of a pot awarded: its chips (net of the house's ``taken``, present only
    when it took something) to ``winners``, each seat's share by its name."""

    amount: int
    winners: list[int]
    shares: dict[str, int]
    taken: NotRequired[int]


class TakeData(TypedDict):
    """The house's rake and jackpot drop (taken now, or from a hand so far)."""

    rake: int
    jackpot_drop: int


class ReturnedData(TakeData):
    """The data of the house's take given back (a void hand)."""

    returned: bool


class CorrectedData(TypedDict):
    """The data of a card corrected: the card it is, the card read, and its seat (absent
    for the burn and the community card)."""

    seat: NotRequired[int]
    card: str
    was: str


class VoidData(TypedDict):
    """The data of a void hand: the seat whose three third-street cards lie face up (None:
    the supervisor voided it)."""

    exposed: int | None


# The facts several kinds share, with their data and cards ----------------------------------


@dataclass(frozen=True, slots=True)
class AtSeat(Effect):
    """An effect at seat ``seat``; its data: the seat."""

    seat: int

    @property
    def data(self) -> SeatData:
        return {"seat": self.seat}


@dataclass(frozen=True, slots=True)
class CardOfSeat(Effect):
    """An effect of seat ``seat``'s card ``card``: its words may name the card; its data:
    the seat and the card."""

    seat: int
    card: Card

    @property
    def data(self) -> SeatCardData:
        return {"seat": self.seat, "card": str(self.card)}

    @property
    def cards(self) -> tuple[Card, ...]:
        return (self.card,)


@dataclass(frozen=True, slots=True)
class SeatChips(Effect):
    """Seat ``seat``'s ``chips``; its data: the seat and the chips."""

    seat: int
    chips: int

    @property
    def data(self) -> SeatChipsData:
        return {"seat": self.seat, "chips": self.chips}


@dataclass(frozen=True, slots=True)
class OnStreet(Effect):
    """An effect on street ``street`` (3 to 7); its data: the street."""

    street: int

    @property
    def data(self) -> StreetData:
        return {"street": self.street}


@dataclass(frozen=True, slots=True)
class ShortStub(Effect):
    """Seventh street with a stub of ``stub`` cards for ``players``; its data: both."""

    stub: int
    players: int

    @property
    def data(self) -> StubData:
        return {"stub": self.stub, "players": self.players}


# Seats, antes and streets ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ante(SeatChips):
    """Seat ``seat`` antes ``chips`` (``all_in``: its whole stack)."""

    all_in: bool = False

    kind = Told.ANTE

    def say(self, name: CardName = str) -> str:
        return f"seat {self.seat} antes {self.chips}{' (all-in)' if self.all_in else ''}"


@dataclass(frozen=True, slots=True)
class Street(OnStreet):
    """Street ``street`` begins."""

    kind = Told.STREET

    def say(self, name: CardName = str) -> str:
        return f"{STREET_NAMES[self.street]} street"


# The short deck ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ShortDeck(ShortStub):
    """Seventh street on a short deck: no burn, and with ``scramble`` the burn cards go
    back into the stub."""

    scramble: bool = False

    kind = Told.SHORT_DECK

    def say(self, name: CardName = str) -> str:
        short = f"short deck on seventh street (stub {self.stub}, {self.players} players)"
        return f"{short}: no burn{', the burn cards are scrambled' if self.scramble else ''}"


@dataclass(frozen=True, slots=True)
class CommunityCard(ShortStub):
    """Too few cards for every player: one community card on seventh street."""

    kind = Told.COMMUNITY

    def say(self, name: CardName = str) -> str:
        return (
            "not enough cards: community card on seventh street "
            f"(stub {self.stub}, {self.players} players)"
        )


@dataclass(frozen=True, slots=True)
class Scramble(Effect):
    """The burn cards ``burns`` go back into the stub (never named to people: burned)."""

    burns: tuple[Card, ...]

    kind = Told.SCRAMBLE

    def say(self, name: CardName = str) -> str:
        count = len(self.burns)
        return (
            f"the stub is short: scramble the {count} burn card{_s(count)} with the stub "
            "and deal from them"
        )

    @property
    def data(self) -> BurnsData:
        return {"burns": [str(card) for card in self.burns]}


# The bonus card ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BonusEarned(Effect):
    """Seat ``seat`` dealt a four of clubs face up: its bonus card is due (``price`` 0),
    offered at ``price``, or not (``stack``, its chips behind, cannot pay)."""

    seat: int
    price: int
    stack: int

    kind = Told.BONUS

    @property
    def offered(self) -> bool:
        return self.stack >= self.price

    def say(self, name: CardName = str) -> str:
        seat, price = self.seat, self.price
        if price == 0:
            return f"bonus card due: one card face down to seat {seat}"
        if self.offered:
            return f"seat {seat} may buy the bonus card for {price}"
        return (
            f"seat {seat} cannot pay the bonus card price of {price} (has {self.stack}): "
            "no bonus card"
        )

    @property
    def data(self) -> BonusEarnedData:
        return {"seat": self.seat, "price": self.price, "offered": self.offered}


@dataclass(frozen=True, slots=True)
class BonusDecided(Effect):
    """Seat ``seat`` buys (``accept``) the bonus card at ``price``, or declines it."""

    seat: int
    accept: bool
    price: int

    kind = Told.BONUS

    def say(self, name: CardName = str) -> str:
        if self.accept:
            return f"seat {self.seat} buys the bonus card for {self.price}"
        return f"seat {self.seat} declines the bonus card and stays in"

    @property
    def data(self) -> BonusDecidedData:
        return {"seat": self.seat, "accept": self.accept, "price": self.price}


@dataclass(frozen=True, slots=True)
class NoBonus(AtSeat):
    """Seat ``seat``'s bonus card is no longer due (its four of clubs did not earn it)."""

    kind = Told.NO_BONUS

    def say(self, name: CardName = str) -> str:
        return f"seat {self.seat}'s bonus card is not due"


@dataclass(frozen=True, slots=True)
class DeadCard(CardOfSeat):
    """Seat ``seat``'s bonus card ``card`` was not earned: a dead card, out of play."""

    kind = Told.DEAD_CARD

    def say(self, name: CardName = str) -> str:
        return (
            f"seat {self.seat}'s bonus card {name(self.card)} was not earned: it is a dead "
            "card, taken away face down, out of play"
        )


# Betting -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NoBetting(OnStreet):
    """No betting on ``street``: at most one player can bet."""

    kind = Told.NO_BETTING

    def say(self, name: CardName = str) -> str:
        return f"no betting on {STREET_NAMES[self.street]} street: at most one player can bet"


@dataclass(frozen=True, slots=True)
class BringInPasses(Effect):
    """Seat ``low`` (the low card) is all-in: seat ``seat`` brings in."""

    seat: int
    low: int

    kind = Told.BRING_IN

    def say(self, name: CardName = str) -> str:
        return f"seat {self.low} is all-in: the bring-in passes to seat {self.seat}"

    @property
    def data(self) -> BringInData:
        return {"seat": self.seat, "low": self.low}


@dataclass(frozen=True, slots=True)
class ToAct(Effect):
    """The betting on ``street`` begins with seat ``seat``: on third street the bring-in
    (``high``, the low card's seat, brings in unless all-in); later ``high`` shows the
    highest hand (``showing``: its key, ``betting.showing_key``) and acts first unless
    all-in."""

    seat: int
    street: int
    high: int
    showing: tuple[int, ...] = ()

    kind = Told.TO_ACT

    def say(self, name: CardName = str) -> str:
        seat, high = self.seat, self.high
        if self.street == 3:
            if seat == high:
                return f"seat {seat} has the low card and brings in"
            return f"seat {seat} brings in"
        first = "" if seat == high else f"; seat {seat} acts first"
        shown = describe_showing(self.showing)
        return f"{STREET_NAMES[self.street]} street: seat {high} ({shown} showing) is high{first}"

    @property
    def data(self) -> ToActData:
        if self.street == 3:
            return {"seat": self.seat, "street": 3}
        return {"seat": self.seat, "high": self.high, "street": self.street}


@dataclass(frozen=True, slots=True)
class OpenPair(Effect):
    """An open pair on fourth street: the bet may be ``small`` or ``big``."""

    small: int
    big: int

    kind = Told.OPEN_PAIR

    def say(self, name: CardName = str) -> str:
        return f"open pair: the bet may be {self.small} or {self.big}"

    @property
    def data(self) -> OpenPairData:
        return {"small": self.small, "big": self.big}


@dataclass(frozen=True, slots=True)
class AllFolded(Effect):
    """Every other player folded: the pot of ``amount`` goes to seat ``seat`` (net of the
    house's take ``taken`` from it)."""

    seat: int
    amount: int
    taken: int = 0

    kind = Told.AWARD

    def say(self, name: CardName = str) -> str:
        house = f" ({self.taken} to the house)" if self.taken else ""
        return f"pot of {self.amount}{house} to seat {self.seat}: all others folded"

    @property
    def data(self) -> AwardData:
        seat, amount = self.seat, self.amount
        data: AwardData = {"amount": amount, "winners": [seat], "shares": {str(seat): amount}}
        if self.taken:
            data["taken"] = self.taken
        return data


@dataclass(frozen=True, slots=True)
class HouseTook(Effect):
    """The house takes ``rake`` and ``jackpot_drop`` from the pot now: the dealer drops
    them in the box (at the settlement, before the pots are pushed; with the ``street``
    timing also at the end of each betting round, what the pot so far owes beyond what
    was taken)."""

    rake: int
    jackpot_drop: int

    kind = Told.RAKE

    def say(self, name: CardName = str) -> str:
        return f"{_house_take(self.rake, self.jackpot_drop)}: drop {self.rake + self.jackpot_drop}"

    @property
    def data(self) -> TakeData:
        return {"rake": self.rake, "jackpot_drop": self.jackpot_drop}


@dataclass(frozen=True, slots=True)
class HouseReturned(Effect):
    """A void hand: the house gives back the ``rake`` and ``jackpot_drop`` it took from
    its pot as the pot grew (every chip of a void hand goes back)."""

    rake: int
    jackpot_drop: int

    kind = Told.RAKE

    def say(self, name: CardName = str) -> str:
        chips = self.rake + self.jackpot_drop
        took = _house_take(self.rake, self.jackpot_drop)
        return f"RETURN {took}: {chips} from the drop box, with the hand's chips"

    @property
    def data(self) -> ReturnedData:
        return {"rake": self.rake, "jackpot_drop": self.jackpot_drop, "returned": True}


def _house_take(rake: int, jackpot_drop: int) -> str:
    """The house's take in the dealer's words: "RAKE 3, JACKPOT 1" (either may be absent)."""
    parts = [f"RAKE {rake}"] if rake else []
    if jackpot_drop:
        parts.append(f"JACKPOT {jackpot_drop}")
    return ", ".join(parts)


# The showdown ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ManualShowdown(Effect):
    """The manual showdown begins: each player shows or mucks in turn."""

    kind = Told.SHOWDOWN

    def say(self, name: CardName = str) -> str:
        return "showdown: each player shows or mucks in turn"


@dataclass(frozen=True, slots=True)
class Mucks(AtSeat):
    """Seat ``seat`` mucks at the showdown."""

    kind = Told.MUCK

    def say(self, name: CardName = str) -> str:
        return f"seat {self.seat} mucks"


# Corrections -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Exposed(AtSeat):
    """Seat ``seat``'s hole card ``card`` lies face up. On third street before the betting
    (``replaces_up``) it counts as the up card (``turned``: the seat's up card still to
    come is dealt down instead); else it stays face up and plays as a hole card. Its data:
    the seat only (``AtSeat``'s); its words may name the card."""

    card: Card
    replaces_up: bool = False
    turned: bool = False

    kind = Told.EXPOSE

    def say(self, name: CardName = str) -> str:
        seat = self.seat
        said = f"seat {seat}'s hole card {name(self.card)} is exposed"
        if not self.replaces_up:
            return f"{said}: it stays face up where it lies and plays as a hole card"
        if self.turned:
            return f"{said}: the next card to seat {seat} is dealt down instead"
        return said

    @property
    def cards(self) -> tuple[Card, ...]:
        return (self.card,)


@dataclass(frozen=True, slots=True)
class DealtDown(CardOfSeat):
    """Seat ``seat``'s up card ``card`` was dealt face down: turned up where it lies."""

    kind = Told.DEALT_DOWN

    def say(self, name: CardName = str) -> str:
        return (
            f"seat {self.seat}'s up card {name(self.card)} was dealt face down: turn it face "
            "up where it lies"
        )


@dataclass(frozen=True, slots=True)
class Corrected(Effect):
    """The card read as ``was`` is ``card``: a card of seat ``seat`` (face ``up``), the
    burn card or the community card (``to``), where it lies."""

    was: Card
    card: Card
    to: Dest
    seat: int | None = None
    up: bool = False

    kind = Told.CORRECT

    def say(self, name: CardName = str) -> str:
        was, card = name(self.was), name(self.card)
        if self.to is Dest.COMMUNITY:
            return f"the community card read as {was} is {card}"
        if self.to is Dest.BURN:
            return f"the burn card read as {was} is {card}"
        face = "up" if self.up else "down"
        return (
            f"the card read as {was} is {card}: seat {self.seat}'s card face {face}, where it lies"
        )

    @property
    def data(self) -> CorrectedData:
        words: CorrectedData = {"card": str(self.card), "was": str(self.was)}
        return words if self.seat is None else {"seat": self.seat, **words}

    @property
    def cards(self) -> tuple[Card, ...]:
        return (self.was, self.card)


@dataclass(frozen=True, slots=True)
class Void(Effect):
    """The hand is void, every chip goes back: the supervisor voided it, or (``exposed``)
    all three of that seat's third-street cards lie face up."""

    exposed: int | None = None

    kind = Told.VOID

    def say(self, name: CardName = str) -> str:
        if self.exposed is None:
            why = "the supervisor voids the hand"
        else:
            why = f"all three of seat {self.exposed}'s third-street cards are exposed"
        return f"{why}: misdeal, every chip goes back"

    @property
    def data(self) -> VoidData:
        return {"exposed": self.exposed}
