"""What every scenario must leave true, whatever its steps: checked on the simulators from
the scenario's journal and from where the simulated world knows each card lies.

- the chips are conserved: the seats' stacks equal the table's ledger, and during a hand
  every chip a player began it with is behind or in the pot;
- every card the hand dealt to a seat lies at that seat, as far as the world placed it (the
  shoe's order and the seat reports say the same as the felt);
- no alert is left open at the end;
- no alert's remedy contradicts where the world knew the card lay when it was raised: a
  card "the shoe did not deal" that the shoe dealt, "move it to seat N" for a card lying at
  seat N, "keep the card aside" for a card the dealer had pitched to a seat.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from pathlib import Path

from controller.journal import Journal
from controller.recovery import initial_table, steps
from controller.rules import Card
from controller.table import Alert, AlertKind, Table


@dataclass
class Felt:
    """Where the simulated world put each card: the cards drawn from the shoe, and each
    card's places at the seats with the time (s since the epoch, taken before the act)."""

    drawn: set[Card] = field(default_factory=set)
    places: dict[Card, list[tuple[float, int]]] = field(default_factory=dict)

    def draw(self, card: Card) -> None:
        self.drawn.add(card)

    def place(self, when: float, card: Card, seat: int) -> None:
        self.places.setdefault(card, []).append((when, seat))

    def seat_of(self, card: Card, when: float | None = None) -> int | None:
        """Where ``card`` lay at ``when`` (None: now); None if it lay at no seat."""
        places = self.places.get(card, [])
        if when is None:
            return places[-1][1] if places else None
        index = bisect.bisect_right([moment for moment, _ in places], when)
        return places[index - 1][1] if index else None


def replay(path: Path) -> tuple[Table, list[Alert]]:
    """The table after the journal's last input, and every alert raised on the way."""
    table = initial_table()
    raised: list[Alert] = []
    journal = Journal.open(path, create=False)
    try:
        for _, step in steps(journal):
            table = step.table
            alerts = [effect.data for effect in step.effects if effect.kind == "alert"]
            raised.extend(Alert.from_json(data) for data in alerts)
    finally:
        journal.close()
    return table, raised


def problems(table: Table, raised: list[Alert], felt: Felt) -> list[str]:
    """What the run left wrong (empty: every invariant holds)."""
    found: list[str] = []
    stacks = sum(seat.stack for seat in table.seats)
    if stacks != table.chips:
        found.append(f"chips not conserved: the stacks hold {stacks}, the ledger {table.chips}")
    hand = table.hand
    if hand is not None and table.in_hand:
        began = sum(hand.starting_stacks().values())
        now = sum(hand.stacks().values()) + hand.pot
        if began != now:
            found.append(f"chips not conserved in the hand: began with {began}, now {now}")
    if table.alerts:
        kinds = ", ".join(f"{alert.kind.value} ({alert.message})" for alert in table.alerts)
        found.append(f"alerts left open at the end: {kinds}")
    if hand is not None:
        for player in map(hand.player, hand.seats):
            for dealt in player.cards:
                lies = felt.seat_of(dealt.card)
                if lies is not None and lies != player.seat:
                    found.append(
                        f"{dealt.card} is seat {player.seat}'s card in the table's hand, "
                        f"but it lies at seat {lies}"
                    )
    said = (_contradiction(alert, felt) for alert in raised)
    found.extend(problem for problem in said if problem)
    return found


def _contradiction(alert: Alert, felt: Felt) -> str:
    """Why ``alert``'s remedy contradicts where the card lay ('' when it does not)."""
    card = alert.card
    if card is None:
        return ""
    when = alert.raised_at / 1000
    lies = felt.seat_of(card, when)
    said = f"alert {alert.id} {alert.kind.value} ({alert.remedy})"
    if alert.kind is AlertKind.CARD_NOT_DEALT and card in felt.drawn:
        return f"{said}: the shoe dealt {card}"
    stray = alert.kind in (AlertKind.MISPLACED_CARD, AlertKind.CARD_AT_EMPTY_SEAT)
    if stray and alert.belongs is not None and lies == alert.belongs:
        return f"{said}: {card} already lay at seat {lies}"
    if alert.kind is AlertKind.CARD_OUT_OF_TURN and lies is not None:
        return f"{said}: {card} had been pitched to seat {lies}"
    return ""
