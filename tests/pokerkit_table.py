"""pokerkit's fixed-limit seven-card stud, and this engine's rules set to its conventions.

Shared by the differential test and ``bench/engine.py``, so that both compare the engine
with pokerkit on the same table: completion plus three raises, the cap kept heads-up, no
open-pair option, burns before 4th-7th street, ante 1, bring-in 2, bets 5/10.
"""

import pokerkit

from controller.rules import HeadsUpUncapped, Rules, Variant

POKERKIT_RULES = Rules(
    variant=Variant.SEVEN_CARD_STUD,
    ante=1,
    bring_in=2,
    small_bet=5,
    big_bet=10,
    max_raises=3,
    heads_up_uncapped=HeadsUpUncapped.NEVER,
    open_pair_big_bet=False,
    burn=True,
)
AUTOMATIONS = (
    pokerkit.Automation.ANTE_POSTING,
    pokerkit.Automation.BET_COLLECTION,
    pokerkit.Automation.BLIND_OR_STRADDLE_POSTING,
    pokerkit.Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    pokerkit.Automation.HAND_KILLING,
    pokerkit.Automation.CHIPS_PUSHING,
    pokerkit.Automation.CHIPS_PULLING,
)


def pokerkit_state(stacks: list[int]) -> pokerkit.State:
    """A new pokerkit hand at POKERKIT_RULES' stakes, antes posted by its automations."""
    return pokerkit.FixedLimitSevenCardStud.create_state(
        AUTOMATIONS,
        False,
        POKERKIT_RULES.ante,
        POKERKIT_RULES.bring_in,
        POKERKIT_RULES.small_bet,
        POKERKIT_RULES.big_bet,
        stacks,
        len(stacks),
    )
