"""The shuffle check: the order each deck is dealt in, against the last decks' orders
(docs/game-protection.md, "Shuffle check"). Pure, as the rest of the table core.

A deck's order is secret until each card leaves the shoe (its registration is a set:
docs/security.md, "The deal order"). As the cards come out, :class:`Shuffles` keeps the
order they came in and counts, for each of the last ``DECKS`` decks, the *repeated pairs*:
two cards that came out one right after the other, in the same order, from that deck too.

Against one earlier deck, the repeated pairs of a shuffled deck are the successions of a
random permutation of 52 cards (nearly Poisson, mean 51/52): 10 or more with probability
9.2e-8 over a whole deck, less over the part of it dealt. A deck loaded again unshuffled
repeats a pair at every card after its first; a slug kept through a false shuffle, one at
every card of the slug after its first. ``PAIRS`` repeated pairs with any of the last
``DECKS`` decks raise ``deck_not_shuffled`` (once a deck): for a shuffled deck, with
probability at most 8 x 9.2e-8 = 7.4e-7 (one deck in 1.36 million); a deck dealt in the
last one's order is flagged at its 11th card.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise
from typing import Any, NamedTuple, TypedDict

#: How many of the last decks each deck is compared with.
DECKS = 8
#: The repeated pairs with one deck that say a deck was not shuffled.
PAIRS = 10
#: The most cards of one deck's order kept (a deck and the burns dealt again, with room).
MOST = 2 * 52


class Repeated(NamedTuple):
    """The deck being dealt repeats ``pairs`` pairs of the deck ``decks_ago`` loads
    before it (1: the last), in its first ``dealt`` cards."""

    pairs: int
    dealt: int
    decks_ago: int


class ShufflesJson(TypedDict):
    """The shuffle check's orders as a snapshot keeps them (:class:`Shuffles`'s fields)."""

    order: list[int]
    recent: list[list[int]]
    repeats: list[int]
    flagged: bool


class Shuffles(NamedTuple):
    """``order``: the codes of the cards the shoe read out of the deck in it, in order;
    ``recent``: the orders of the last decks (the last first, at most ``DECKS``);
    ``repeats``: the pairs of ``order`` repeated from each of ``recent``; ``flagged``: the
    deck's ``deck_not_shuffled`` was raised."""

    order: tuple[int, ...] = ()
    recent: tuple[tuple[int, ...], ...] = ()
    repeats: tuple[int, ...] = ()
    flagged: bool = False

    def dealt(self, code: int) -> tuple[Shuffles, Repeated | None]:
        """Card ``code`` came out of the shoe next: the orders after it, and what it
        repeats of an earlier deck, the first time that reaches ``PAIRS`` (else None)."""
        if len(self.order) >= MOST:
            return self, None
        repeats = self.repeats
        if self.order:
            pair = (self.order[-1], code)
            repeats = tuple(
                count + (pair in pairwise(earlier))
                for count, earlier in zip(repeats, self.recent, strict=True)
            )
        shuffles = self._replace(order=(*self.order, code), repeats=repeats)
        if self.flagged or max(repeats, default=0) < PAIRS:
            return shuffles, None
        most = max(repeats)
        repeated = Repeated(most, len(shuffles.order), repeats.index(most) + 1)
        return shuffles._replace(flagged=True), repeated

    def loaded(self) -> Shuffles:
        """Another deck (or the same, shuffled again) is loaded: the order dealt so far
        is the last deck's."""
        recent = self.recent if len(self.order) < 2 else (self.order, *self.recent)[:DECKS]
        return Shuffles(recent=recent, repeats=(0,) * len(recent))

    def to_json(self) -> ShufflesJson:
        return {
            "order": list(self.order),
            "recent": [list(order) for order in self.recent],
            "repeats": list(self.repeats),
            "flagged": self.flagged,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Shuffles:
        return cls(
            tuple(data["order"]),
            tuple(tuple(order) for order in data["recent"]),
            tuple(data["repeats"]),
            data["flagged"],
        )
