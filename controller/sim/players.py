"""The simulated players: a simple seeded strategy over the engine's legal choices."""

from __future__ import annotations

import random

from controller.rules import Choice, Do, Waiting

# How often a player takes each kind of decision when it is legal (relative weights).
_WEIGHTS: dict[Do, float] = {
    Do.CHECK: 6.0,
    Do.CALL: 6.0,
    Do.BRING_IN: 5.0,
    Do.COMPLETE: 1.0,
    Do.BET: 1.5,
    Do.RAISE: 0.8,
    Do.FOLD: 1.2,
}
NAMES = ("Aoife", "Brendan", "Ciara", "Declan", "Eileen", "Fionn", "Grainne", "Hugh")


class Strategy:
    """Chooses a decision among the legal ones, from its own seeded random source.

    Folding is rarer than calling, and never chosen when checking is free; a bet or raise
    picks one of the legal sizes. A priced bonus card is bought ``accept_bonus`` of the
    time; at a manual showdown a player shows ``show`` of the time.
    """

    def __init__(self, seed: int, *, accept_bonus: float = 0.7, show: float = 0.9) -> None:
        self.rng = random.Random(seed)
        self.accept_bonus = accept_bonus
        self.show = show

    def choose(self, waiting: Waiting) -> Choice | bool:
        """A ``Choice`` for a betting decision or a showdown (show or muck); for a priced
        bonus card offer, True to buy it and False to decline."""
        if waiting.kind == "bonus":
            return self.rng.random() < self.accept_bonus
        if waiting.kind == "show":
            return Choice(Do.SHOW if self.rng.random() < self.show else Do.MUCK)
        if waiting.kind != "action" or not waiting.legal:
            raise ValueError(f"no decision to take: {waiting.describe()}")
        legal = waiting.legal
        if any(choice.do is Do.CHECK for choice in legal):
            legal = tuple(choice for choice in legal if choice.do is not Do.FOLD)
        weights = [_WEIGHTS.get(choice.do, 1.0) / _sizes(legal, choice.do) for choice in legal]
        return self.rng.choices(legal, weights)[0]

    def buy_in(self, low: int, high: int) -> int:
        """A buy-in between the table's limits, in steps of a tenth of the range."""
        step = max((high - low) // 10, 1)
        return low + step * self.rng.randint(0, (high - low) // step)


def _sizes(legal: tuple[Choice, ...], do: Do) -> int:
    """How many sizes of ``do`` are legal: each shares the weight of the decision."""
    return sum(1 for choice in legal if choice.do is do)
