"""What the table core needs to correct a card without moving any card on the felt.

A correction (a misread card, a card dealt with the wrong face) goes to the hand engine
as one input at the point it was made (``Action`` with ``dealt``: how many cards were
out), so the engine changes only what the corrected card decides: every card dealt stays
where it lies. These helpers read the hand's log and the seat board's pending placements;
the transitions themselves are in ``controller.table.core``.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.rules import Action, Card, Deal, Do
from controller.rules.inputs import BETTING_DECISIONS
from controller.rules.inputs import Input as EngineInput
from controller.table.state import Placement, Table

#: A player's decisions: once one is taken after a card, that card is not corrected.
DECISIONS = BETTING_DECISIONS | {Do.BONUS, Do.SHOW, Do.MUCK}


def cards_dealt(log: Sequence[EngineInput]) -> int:
    """How many cards of the hand have come out of the shoe (burns included)."""
    return sum(isinstance(entry, Deal) for entry in log)


def dealt_at(log: Sequence[EngineInput], card: Card) -> int | None:
    """Where in the log the card now known as ``card`` was dealt (following earlier
    corrections); None: no card of the hand is ``card``."""
    where: dict[Card, int] = {}
    for index, entry in enumerate(log):
        if isinstance(entry, Deal):
            where[entry.card] = index
        elif entry.do is Do.CORRECT and entry.was in where:
            assert entry.was is not None and entry.card is not None
            where[entry.card] = where.pop(entry.was)
    return where.get(card)


def decided_after(log: Sequence[EngineInput], index: int) -> bool:
    """A player's decision was taken after the log's entry ``index``."""
    return any(isinstance(entry, Action) and entry.do in DECISIONS for entry in log[index + 1 :])


def correction(
    do: Do, log: Sequence[EngineInput], card: Card, seat: int | None = None, was: Card | None = None
) -> Action:
    """The engine's correction input, marked with the cards out when it was made."""
    return Action(do, seat, card=card, was=was, dealt=cards_dealt(log))


def misread(table: Table, seat: int, card: Card) -> Placement | None:
    """The card the shoe read for ``seat`` that the seat's reader sees as ``card``: the
    seat's oldest card awaiting confirmation (cards at one seat land in deal order), when
    ``card`` is not a card out of the shoe; None: not a misread."""
    if table.spent >> card & 1 or (table.hand is not None and table.hand.is_out(card)):
        return None
    return next((placement for placement in table.unconfirmed if placement.seat == seat), None)
