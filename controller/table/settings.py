"""The table settings the core plays by: the game's rules, the buy-in limits, and whether a
seat board confirms where each card lands."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.errors import LuckTableError
from controller.rules import Rules, RulesError


class SettingsError(LuckTableError, ValueError):
    """A table setting that does not exist or has a value it cannot take."""


@dataclass(frozen=True, slots=True)
class TableSettings:
    """``rules``: the game (every ``Rules`` field); ``min_buy_in`` and ``max_buy_in``: what
    a player may sit down with, and the most a rebuy may bring a stack to; ``seat_board``:
    a seat board reports every card that lands at a seat (see docs/table.md);
    ``player_decisions``: players may make their own decisions (on their own screens, at a
    live-dealer table); otherwise the dealer enters every decision."""

    rules: Rules = field(default_factory=Rules)
    min_buy_in: int = 100
    max_buy_in: int = 1000
    seat_board: bool = True
    player_decisions: bool = False

    def __post_init__(self) -> None:
        for name in ("min_buy_in", "max_buy_in"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise SettingsError(f"{name}: {value!r} is not a positive whole number of chips")
        if self.max_buy_in < self.min_buy_in:
            raise SettingsError(
                f"max_buy_in: {self.max_buy_in} is less than min_buy_in ({self.min_buy_in})"
            )
        for name in ("seat_board", "player_decisions"):
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise SettingsError(f"{name}: {value!r} is not true or false")

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_json(),
            "min_buy_in": self.min_buy_in,
            "max_buy_in": self.max_buy_in,
            "seat_board": self.seat_board,
            "player_decisions": self.player_decisions,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TableSettings:
        known = {"rules", "min_buy_in", "max_buy_in", "seat_board", "player_decisions"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise SettingsError(f"unknown setting {unknown[0]!r}")
        rules = data.get("rules", {})
        if not isinstance(rules, Mapping):
            raise SettingsError(f"rules: {rules!r} is not an object")
        try:
            parsed = Rules.from_mapping(rules)
        except (RulesError, TypeError) as error:
            raise SettingsError(str(error)) from None
        others = {name: data[name] for name in known - {"rules"} if name in data}
        return cls(parsed, **others)
