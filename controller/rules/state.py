"""The parts of a hand's state: cards as dealt, players, pots; and ``HandState``, what
betting and the showdown know of a hand.

All types are immutable named tuples; the engine makes changed copies with ``_replace``
(a player's changes on every card and decision have a method of their own: ``given``,
``puts_in``, ``passes``, ``new_round``, ``reopened``, ``revealed``, ``wins``). Every type
has ``to_json`` and a matching ``from_json``. The engine's one idiom: a value that changes
is a named tuple changed with ``_replace``; a record made once (an effect, ``Rules``) is a
frozen dataclass with slots. Why: a slotted frozen ``Hand`` takes the engine below its
goal of 5x pokerkit (docs/performance.md, "The query API, and named tuple or frozen
dataclass for ``Hand``").
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, NamedTuple, NotRequired, Protocol, Self, TypedDict

from controller.rules.cards import Card, parse_card
from controller.rules.settings import Rules

STREET_NAMES = {3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh"}
FOUR_OF_CLUBS = Card(8)


class Phase(StrEnum):
    DEAL = "deal"  # waiting on the deal queue: cards and bonus-card offers
    BETTING = "betting"
    SHOWDOWN = "showdown"  # manual showdown: waiting for show or muck
    COMPLETE = "complete"  # pot awarded
    VOID = "void"  # misdeal: every chip returned


class Dest(StrEnum):
    """Where the next card out of the shoe goes."""

    SEAT = "seat"
    BURN = "burn"
    BONUS = "bonus"
    COMMUNITY = "community"


class Reveal(StrEnum):
    SHOW = "show"
    MUCK = "muck"


class DealtJson(TypedDict):
    """A card in a player's hand as the hand's records write it: ``bonus`` and ``exposed``
    only when true."""

    card: str
    face: str  # up or down
    street: int
    bonus: NotRequired[bool]
    exposed: NotRequired[bool]


class PlayerJson(TypedDict):
    """A player as the hand's records write it (:class:`Player`'s fields): ``reveal`` only
    at the showdown, ``bonus_paid`` only when a bonus card was bought."""

    seat: int
    start: int
    stack: int
    cards: list[DealtJson]
    folded: bool
    total: int
    bet: int
    acted: bool
    reveal: NotRequired[str]
    bonus_paid: NotRequired[int]


class PotJson(TypedDict):
    """A pot as the views and the hand's records send it: ``shares`` by seat (its name),
    ``taken`` only where the house took something from it."""

    amount: int
    eligible: list[int]
    winners: list[int]
    shares: dict[str, int]
    taken: NotRequired[int]


class Dealt(NamedTuple):
    """A card in a player's hand: face up or down, the street it came on, how it came."""

    card: Card
    up: bool
    street: int
    bonus: bool = False
    exposed: bool = False

    def to_json(self) -> DealtJson:
        out: DealtJson = {
            "card": str(self.card),
            "face": "up" if self.up else "down",
            "street": self.street,
        }
        if self.bonus:
            out["bonus"] = True
        if self.exposed:
            out["exposed"] = True
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Dealt:
        return cls(
            parse_card(data["card"]),
            data["face"] == "up",
            data["street"],
            data.get("bonus", False),
            data.get("exposed", False),
        )


class Player(NamedTuple):
    """One seat in the hand.

    ``stack`` is the chips behind; ``total`` what the player has put in the pot this hand
    (antes, bets, a bought bonus card); ``bet`` what they have put in on this street;
    ``acted`` whether they have acted since the last full bet or raise (a player who has
    acted may not raise a short all-in); ``bonus_paid`` the price of a bought bonus card,
    part of ``total`` but dead money in the main pot (not layered into side pots).
    """

    seat: int
    start: int
    stack: int
    cards: tuple[Dealt, ...] = ()
    folded: bool = False
    total: int = 0
    bet: int = 0
    acted: bool = False
    reveal: Reveal | None = None
    bonus_paid: int = 0

    def given(self, dealt: Dealt) -> Player:
        """The player with one more card."""
        return self._replace(cards=(*self.cards, dealt))

    def puts_in(self, to: int) -> Player:
        """The player after a bet, raise, call or bring-in to ``to`` on this street."""
        chips = to - self.bet
        return self._replace(stack=self.stack - chips, total=self.total + chips, bet=to, acted=True)

    def passes(self, fold: bool) -> Player:
        """The player after a check, or a fold."""
        return self._replace(folded=fold, acted=True)

    def new_round(self) -> Player:
        """The player at the start of a betting round: no bet, not acted."""
        return self._replace(bet=0, acted=False)

    def reopened(self) -> Player:
        """The player once a full wager reopens the betting for them."""
        return self._replace(acted=False)

    def revealed(self, reveal: Reveal) -> Player:
        """The player who shows or mucks at the showdown."""
        return self._replace(reveal=reveal)

    def wins(self, chips: int) -> Player:
        """The player with ``chips`` of a pot added to their stack."""
        return self._replace(stack=self.stack + chips)

    @property
    def up_cards(self) -> tuple[Card, ...]:
        return tuple(dealt.card for dealt in self.cards if dealt.up)

    @property
    def own_cards(self) -> tuple[Card, ...]:
        return tuple(dealt.card for dealt in self.cards)

    def to_json(self) -> PlayerJson:
        out: PlayerJson = {
            "seat": self.seat,
            "start": self.start,
            "stack": self.stack,
            "cards": [dealt.to_json() for dealt in self.cards],
            "folded": self.folded,
            "total": self.total,
            "bet": self.bet,
            "acted": self.acted,
        }
        if self.reveal is not None:
            out["reveal"] = self.reveal.value
        if self.bonus_paid:
            out["bonus_paid"] = self.bonus_paid
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Player:
        reveal = data.get("reveal")
        return cls(
            seat=data["seat"],
            start=data["start"],
            stack=data["stack"],
            cards=tuple(Dealt.from_json(item) for item in data["cards"]),
            folded=data["folded"],
            total=data["total"],
            bet=data["bet"],
            acted=data["acted"],
            reveal=None if reveal is None else Reveal(reveal),
            bonus_paid=data.get("bonus_paid", 0),
        )


class Pot(NamedTuple):
    """A pot (the main pot first, then side pots) and, once awarded, its winners.
    ``amount``: what its winners share, net of the ``taken``: the house's rake and
    jackpot drop taken from it (``controller.rules.pots.take_from``)."""

    amount: int
    eligible: tuple[int, ...]
    winners: tuple[int, ...] = ()
    shares: tuple[tuple[int, int], ...] = ()
    taken: int = 0

    def to_json(self) -> PotJson:
        out: PotJson = {
            "amount": self.amount,
            "eligible": list(self.eligible),
            "winners": list(self.winners),
            "shares": {str(seat): chips for seat, chips in self.shares},
        }
        if self.taken:  # only where the house took something: pots as they were without
            out["taken"] = self.taken
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Pot:
        return cls(
            data["amount"],
            tuple(data["eligible"]),
            tuple(data["winners"]),
            tuple((int(seat), chips) for seat, chips in data["shares"].items()),
            data.get("taken", 0),
        )


class HandState(Protocol):
    """What betting (``betting.py``) and the showdown (``showdown.py``) read of a hand and
    how they change it: the engine's ``Hand`` is one (``hand.py`` describes each field).
    They take and return this, so neither depends on the hand module that drives them."""

    @property
    def rules(self) -> Rules: ...

    @property
    def players(self) -> tuple[Player, ...]: ...

    @property
    def phase(self) -> Phase: ...

    @property
    def street(self) -> int: ...

    @property
    def community(self) -> Card | None: ...

    @property
    def actor(self) -> int | None: ...

    @property
    def level(self) -> int: ...

    @property
    def full_level(self) -> int: ...

    @property
    def size(self) -> int: ...

    @property
    def wagers(self) -> int: ...

    @property
    def capped(self) -> bool: ...

    @property
    def bring_in_due(self) -> bool: ...

    @property
    def heads_up_start(self) -> bool: ...

    @property
    def first(self) -> int | None: ...

    @property
    def aggressor(self) -> int | None: ...

    @property
    def rake(self) -> int: ...

    @property
    def jackpot_drop(self) -> int: ...

    def _replace(
        self,
        *,
        players: tuple[Player, ...] = ...,
        phase: Phase = ...,
        actor: int | None = ...,
        level: int = ...,
        full_level: int = ...,
        size: int = ...,
        wagers: int = ...,
        capped: bool = ...,
        bring_in_due: bool = ...,
        aggressor: int | None = ...,
        pots: tuple[Pot, ...] = ...,
        rake: int = ...,
        jackpot_drop: int = ...,
        took: tuple[int, int] = ...,
    ) -> Self:
        """A copy with the fields given changed: the only fields betting and the showdown
        change."""
        ...
