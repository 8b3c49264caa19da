"""The pure game engine: cards, hand evaluation, rules. No I/O, no clock, deterministic."""

from controller.rules.cards import DECK, Card, CardError, Suit, parse_card, parse_cards
from controller.rules.evaluator import (
    Category,
    HandValue,
    PlayedCard,
    describe,
    evaluate,
    evaluate_many,
)
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
    "Category",
    "HandValue",
    "HeadsUpUncapped",
    "OddChip",
    "PlayedCard",
    "Rules",
    "RulesError",
    "ShowdownMode",
    "Suit",
    "Variant",
    "WildBringIn",
    "describe",
    "evaluate",
    "evaluate_many",
    "parse_card",
    "parse_cards",
]
