"""A small driver for table-core tests: feeds inputs with a ticking clock, keeps them all
(for replay) and every effect."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from controller.rules import Do, Effect, Rules, parse_card
from controller.table import (
    AlertKind,
    Decide,
    NewHand,
    Refusal,
    ResolveAlert,
    SitDown,
    Step,
    Table,
    TableInput,
    TableSettings,
    Why,
    apply,
)
from controller.table.inputs import Remedy
from controller.table.settings import Protection
from tests.device_inputs import card_at_seat, card_read, deck_loaded


def code(card: str) -> int:
    return int(parse_card(card))


@dataclass
class TableDriver:
    table: Table
    inputs: list[TableInput] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)
    clock: int = 1_700_000_000_000
    first: Table | None = None

    def __post_init__(self) -> None:
        self.first = self.table

    @classmethod
    def make(
        cls, seat_board: bool = True, protection: Protection | None = None, **rules: Any
    ) -> TableDriver:
        settings = TableSettings(Rules.from_mapping(rules), 100, 1000, seat_board)
        if protection is not None:
            settings = replace(settings, protection=protection)
        return cls(Table(settings))

    def feed(self, make: Callable[..., TableInput], **fields: Any) -> Step:
        """Apply ``make(at=now, **fields)``; returns the step (refused or not)."""
        self.clock += 250
        item = make(at=self.clock, **fields)
        step = apply(self.table, item)
        self.inputs.append(item)
        self.table = step.table
        self.effects.extend(step.effects)
        return step

    def ok(self, make: Callable[..., TableInput], **fields: Any) -> Step:
        step = self.feed(make, **fields)
        assert step.refused is None, step.refused
        return step

    def refusal(self, make: Callable[..., TableInput], **fields: Any) -> Refusal:
        """Apply ``make(at=now, **fields)``, which must be refused: the refusal (its code
        and words); the table unchanged."""
        before = self.dump()
        step = self.feed(make, **fields)
        assert step.refusal is not None, f"{make.__name__} was taken"
        assert self.dump() == before
        return step.refusal

    def refused(self, make: Callable[..., TableInput], **fields: Any) -> Why:
        """Why ``make(at=now, **fields)`` is refused (see :meth:`refusal`): its code."""
        return self.refusal(make, **fields).code

    def seat(self, stacks: dict[int, int]) -> TableDriver:
        for seat, chips in stacks.items():
            self.ok(SitDown, seat=seat, player=f"P{seat}", buy_in=chips)
        return self

    def start(self, stacks: dict[int, int] | None = None) -> TableDriver:
        """Seat the players (if given), load a deck and start a hand."""
        if stacks:
            self.seat(stacks)
        self.ok(deck_loaded, count=52)
        self.ok(NewHand)
        return self

    def read(self, cards: str, confirm: bool = False) -> TableDriver:
        """Draw each card; with ``confirm`` the seat board reports it at its seat."""
        for token in cards.split():
            waiting = self.table.hand.waiting_for if self.table.in_hand else None
            self.ok(card_read, code=code(token))
            if confirm and waiting is not None and waiting.seat is not None:
                self.ok(card_at_seat, seat=waiting.seat, code=code(token))
        return self

    def act(self, seat: int, do: str, to: int | None = None) -> Step:
        return self.feed(Decide, seat=seat, do=Do(do), to=to)

    def alert(self, kind: AlertKind) -> int:
        """The id of the one open alert of ``kind``."""
        found = [alert.id for alert in self.table.alerts if alert.kind is kind]
        assert len(found) == 1, (kind, self.table.alerts)
        return found[0]

    def resolve(self, kind: AlertKind, remedy: Remedy) -> Step:
        return self.ok(
            ResolveAlert, alert=self.alert(kind), remedy=remedy, who="S100", why="checked"
        )

    def kinds(self) -> list[str]:
        return [effect.kind for effect in self.effects]

    def dump(self) -> str:
        return json.dumps(self.table.to_json())

    def replayed(self) -> str:
        """The table rebuilt from its first state and every input, as JSON text."""
        table = self.first
        assert table is not None
        for item in self.inputs:
            table = apply(table, item).table
        return json.dumps(table.to_json())
