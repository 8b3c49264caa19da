"""The pure game engine: cards, hand evaluation, rules. No I/O, no clock, deterministic."""

from controller.rules.cards import DECK, Card, CardError, Suit, parse_card, parse_cards
from controller.rules.settings import (
    BonusTiming,
    HeadsUpUncapped,
    OddChip,
    Rules,
    RulesError,
    ShowdownMode,
    Variant,
    WildBringIn,
)

__all__ = [
    "DECK",
    "BonusTiming",
    "Card",
    "CardError",
    "HeadsUpUncapped",
    "OddChip",
    "Rules",
    "RulesError",
    "ShowdownMode",
    "Suit",
    "Variant",
    "WildBringIn",
    "parse_card",
    "parse_cards",
]
