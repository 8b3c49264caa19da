"""Game protection: the deck the shoe registered, each card checked against it, and the
deck's life. Pure, as the rest of the table core (docs/game-protection.md).

While a deck is loaded the shoe reads every card of it and reports each one (``DeckCard``:
its code and tag UID); its ``DeckLoaded`` of the same deck closes the
:class:`Registration`. :func:`examine` accepts it only as a deck: 52 cards, each code
0..51 once and, at a table with tag checks, 52 distinct tag UIDs; otherwise it gives the
facts of the ``deck_rejected`` alert. The deck accepted is the table's :class:`Deck`: its
tags by code, and the tags dealt since it was loaded, against which :meth:`Deck.check`
checks every card the shoe reads (foreign, re-tagged, cloned, untagged).

A deck's life (hands begun with it, and its age from the inputs' times) goes on while the
shoe registers the same 52 tags (the deck shuffled and loaded again for the next hand) and
starts again with another deck. Without tag checks the table cannot tell one deck from
another: the life goes on until the supervisor says a new deck is in (``deck_due``
resolved, done).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, TypedDict

from controller.rules import Card, CardName, Effect
from controller.table.alerts import DeckRejected, Tamper
from controller.table.told import TableTold

DECK_SIZE = 52


class RegistrationJson(TypedDict):
    """A deck's registration so far as a snapshot keeps it: (code, tag UID) of each card."""

    deck: int
    cards: list[list[int | str]]


class Registration(NamedTuple):
    """The cards the shoe has registered so far of deck ``deck``: (code, tag UID) each."""

    deck: int
    cards: tuple[tuple[int, str], ...] = ()

    def to_json(self) -> RegistrationJson:
        return {"deck": self.deck, "cards": [[code, uid] for code, uid in self.cards]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Registration:
        return cls(data["deck"], tuple((code, uid) for code, uid in data["cards"]))


class DeckJson(TypedDict):
    """The deck in play as a snapshot keeps it (:class:`Deck`'s fields)."""

    deck: int | None
    tags: list[str]
    since: int
    hands: int
    dealt: list[str]
    due: bool


class Deck(NamedTuple):
    """The deck in play. ``deck``: the shoe's id of it (None: it was not registered);
    ``tags``: the tag UID of each card, by code (empty: its cards are not checked);
    ``since``: when its life began (ms); ``hands``: the hands begun with it since;
    ``dealt``: the tags that came out of the shoe since it was last loaded; ``due``: its
    ``deck_due`` alert was raised in this life."""

    deck: int | None
    tags: tuple[str, ...]
    since: int
    hands: int = 0
    dealt: tuple[str, ...] = ()
    due: bool = False

    @property
    def checked(self) -> bool:
        """Every card read is checked against this deck's tags."""
        return bool(self.tags)

    def registered(self, uid: str) -> Card | None:
        """The card this deck has tag ``uid`` on, if any."""
        return Card(self.tags.index(uid)) if uid and uid in self.tags else None

    def check(self, code: int, uid: str) -> Tamper | None:
        """Why the card the shoe read (``code``, tag ``uid``) is not one of this deck's
        cards still in the shoe; None: it is."""
        if not uid:
            return Tamper.UNTAGGED
        if uid in self.dealt:
            return Tamper.CLONED
        registered = self.registered(uid)
        if registered is None:
            return Tamper.FOREIGN
        return None if registered == code else Tamper.RETAGGED

    def age(self, now: int) -> int:
        """The deck's age at ``now`` in whole minutes."""
        return max(0, now - self.since) // 60_000

    def to_json(self) -> DeckJson:
        return {
            "deck": self.deck,
            "tags": list(self.tags),
            "since": self.since,
            "hands": self.hands,
            "dealt": list(self.dealt),
            "due": self.due,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Deck:
        return cls(
            data["deck"],
            tuple(data["tags"]),
            data["since"],
            data["hands"],
            tuple(data["dealt"]),
            data["due"],
        )


def examine(
    registration: Registration | None, deck: int, count: int, tag_checks: bool
) -> DeckRejected | tuple[str, ...]:
    """The deck's tags by code when ``registration`` (of ``deck``, ``count`` cards by the
    shoe's count) is a whole deck; else the facts of its rejection. Without
    ``tag_checks`` only the codes are checked, and the deck has no tags."""
    cards = () if registration is None or registration.deck != deck else registration.cards
    codes = Counter(code for code, _ in cards)
    missing = tuple(Card(code) for code in range(DECK_SIZE) if code not in codes)
    twice = tuple(Card(code) for code in sorted(codes) if 0 <= code < DECK_SIZE and codes[code] > 1)
    extra = tuple(sorted({code for code in codes if not 0 <= code < DECK_SIZE}))
    cloned: tuple[str, ...] = ()
    untagged: tuple[Card, ...] = ()
    if tag_checks:
        uids = Counter(uid for _, uid in cards if uid)
        cloned = tuple(sorted(uid for uid, seen in uids.items() if seen > 1))
        untagged = tuple(
            sorted(Card(code) for code, uid in cards if not uid and 0 <= code < DECK_SIZE)
        )
    if missing or twice or extra or cloned or untagged or count != len(cards):
        return DeckRejected(deck, count, len(cards), missing, twice, extra, cloned, untagged)
    if not tag_checks:
        return ()
    by_code = dict(cards)
    return tuple(by_code[code] for code in range(DECK_SIZE))


class DeckRegisteredData(TypedDict):
    """The data of a deck registered: the shoe's id of it, each card's tag UID by the
    card's name, and when (ms)."""

    deck: int
    tags: dict[str, str]
    at: int


@dataclass(frozen=True, slots=True)
class DeckRegistered(Effect):
    """The shoe registered deck ``deck`` and the table accepted it: ``tags``, the tag UID
    of each card by code; ``at``, when (ms). The floor keeps every table's live deck."""

    deck: int
    tags: tuple[str, ...]
    at: int

    kind = TableTold.DECK_REGISTERED

    def say(self, name: CardName = str) -> str:
        return f"deck {self.deck} is registered: every card's tag is checked as it is dealt"

    @property
    def data(self) -> DeckRegisteredData:
        tags = {str(Card(code)): uid for code, uid in enumerate(self.tags)}
        return {"deck": self.deck, "tags": tags, "at": self.at}
