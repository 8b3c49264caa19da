"""The pure game engine: cards, hand evaluation, rules, the hand state machine.

No I/O, no clock, no randomness: deterministic. Driving a hand::

    step = start_hand(Rules(), {1: 200, 4: 150})      # HandStep(hand, effects)
    step.hand.waiting_for                              # Waiting, or None when over
    step = step.hand.apply(Deal(parse_card("Kd")))     # or Action(Do.CALL, seat=4)

See ``controller.rules.hand`` for the full description.
"""

from controller.rules.betting import Choice
from controller.rules.cards import DECK, Card, CardError, Suit, parse_card, parse_cards
from controller.rules.effects import CardName, Effect, Told
from controller.rules.evaluator import (
    Category,
    HandValue,
    PlayedCard,
    describe,
    evaluate,
    evaluate_many,
)
from controller.rules.hand import Hand, HandStep, apply, replay, start_hand
from controller.rules.inputs import (
    Action,
    Deal,
    Do,
    Illegal,
    IllegalInput,
    Input,
    action_from_json,
    input_from_json,
)
from controller.rules.pots import build_pots
from controller.rules.settings import (
    BonusTiming,
    HeadsUpUncapped,
    OddChip,
    RakeFrom,
    RakeTiming,
    Rules,
    RulesError,
    ShowdownMode,
    Variant,
    WildBringIn,
)
from controller.rules.state import Dealt, Dest, Phase, Player, Pot, Reveal
from controller.rules.waiting import Form, Wait, Waiting, say_waiting

__all__ = [
    "DECK",
    "Action",
    "BonusTiming",
    "Card",
    "CardError",
    "CardName",
    "Category",
    "Choice",
    "Deal",
    "Dealt",
    "Dest",
    "Do",
    "Effect",
    "Form",
    "Hand",
    "HandStep",
    "HandValue",
    "HeadsUpUncapped",
    "Illegal",
    "IllegalInput",
    "Input",
    "OddChip",
    "Phase",
    "PlayedCard",
    "Player",
    "Pot",
    "RakeFrom",
    "RakeTiming",
    "Reveal",
    "Rules",
    "RulesError",
    "ShowdownMode",
    "Suit",
    "Told",
    "Variant",
    "Wait",
    "Waiting",
    "WildBringIn",
    "action_from_json",
    "apply",
    "build_pots",
    "describe",
    "evaluate",
    "evaluate_many",
    "input_from_json",
    "parse_card",
    "parse_cards",
    "replay",
    "say_waiting",
    "start_hand",
]
