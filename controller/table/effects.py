"""What the table core tells people besides the engine's effects and the alerts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from controller.rules import Card, CardName, Effect
from controller.rules.effects import named


@dataclass(frozen=True, slots=True)
class Notice(Effect):
    """An effect stated outright; ``cards``: the cards its ``message`` names."""

    kind: str
    text: str
    facts: Mapping[str, Any]
    named_cards: tuple[Card, ...] = ()

    def say(self, name: CardName = str) -> str:
        return named(self.text, self.named_cards, name)

    @property
    def data(self) -> Mapping[str, Any]:
        return self.facts

    @property
    def cards(self) -> tuple[Card, ...]:
        return self.named_cards
