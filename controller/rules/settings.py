"""Table rules: the variant and every house-rule setting, with its default.

Field names are part of the project's contract (hand scripts, configuration
files and the API use them as written here).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from enum import StrEnum
from typing import Any

from luck_errors import LuckTableError


class Variant(StrEnum):
    LUCK_OF_THE_IRISH = "luck-of-the-irish"
    SEVEN_CARD_STUD = "seven-card-stud"


class HeadsUpUncapped(StrEnum):
    ANY_TIME = "any_time"  # uncapped as soon as only two players remain
    ROUND_START = "round_start"  # uncapped only if the round began heads-up
    NEVER = "never"  # the cap is kept heads-up


class BonusTiming(StrEnum):
    IMMEDIATE = "immediate"
    END_OF_STREET = "end_of_street"


class WildBringIn(StrEnum):
    ACE = "ace"  # a wild up card counts as an ace for the bring-in
    NATURAL = "natural"  # a wild up card counts at its natural rank


class ShowdownMode(StrEnum):
    AUTO = "auto"
    MANUAL = "manual"


class OddChip(StrEnum):
    SEAT_ORDER = "seat_order"  # to the winner closest to the dealer's left
    HIGH_CARD_SUIT = "high_card_suit"  # to the winner with the highest card by suit


class RakeFrom(StrEnum):
    """The street a hand must reach to pay the rake and the jackpot drop."""

    THIRD_STREET = "third_street"  # every hand that is not void
    FOURTH_STREET = "fourth_street"  # a hand won on third street pays nothing

    @property
    def street(self) -> int:
        return 3 if self is RakeFrom.THIRD_STREET else 4


class RakeTiming(StrEnum):
    """When the dealer takes the rake and the jackpot drop from the pot."""

    END = "end"  # at the settlement, before the pots are pushed
    STREET = "street"  # as the pot grows: at the end of each betting round, the rest at the end


_UNSAID = object()  # a RulesError's words show no value


class RulesError(LuckTableError, ValueError):
    """A rules setting that does not exist or has a value it cannot take: ``field``, the
    setting at fault (None: an unknown one, named in the words), and ``reason``, what is
    wrong with it (``value``: the value it cannot take, if the words show it)."""

    def __init__(self, field: str | None, reason: str, value: object = _UNSAID) -> None:
        said = reason if value is _UNSAID else f"{value!r} {reason}"
        super().__init__(f"rules: {said}" if field is None else f"rules.{field}: {said}")
        self.field, self.reason = field, reason


_POSITIVE_CHIPS = ("ante", "bring_in", "small_bet", "big_bet")


@dataclass(frozen=True, slots=True)
class Rules:
    variant: Variant = Variant.LUCK_OF_THE_IRISH
    ante: int = 1
    bring_in: int = 2
    small_bet: int = 5
    big_bet: int = 10
    max_raises: int = 3
    heads_up_uncapped: HeadsUpUncapped = HeadsUpUncapped.ANY_TIME
    open_pair_big_bet: bool = True
    burn: bool = True
    bonus_timing: BonusTiming = BonusTiming.IMMEDIATE
    bonus_price: int = 0
    wild_bring_in: WildBringIn = WildBringIn.ACE
    double_ace_flush: bool = False
    showdown: ShowdownMode = ShowdownMode.AUTO
    odd_chip: OddChip = OddChip.SEAT_ORDER
    rake_percent: int = 0
    rake_cap: int = 0
    rake_step: int = 1
    rake_from: RakeFrom = RakeFrom.THIRD_STREET
    jackpot_drop: int = 0
    jackpot_drop_at: int = 0
    rake_timing: RakeTiming = RakeTiming.END

    def __post_init__(self) -> None:
        for spec in fields(self):
            value = getattr(self, spec.name)
            kind = _FIELD_TYPES.get(spec.name, int)
            if issubclass(kind, StrEnum):
                try:
                    object.__setattr__(self, spec.name, kind(value))
                except ValueError:
                    choices = ", ".join(member.value for member in kind)
                    raise RulesError(spec.name, f"is not one of {choices}", value) from None
            elif kind is bool:
                if not isinstance(value, bool):
                    raise RulesError(spec.name, "is not true or false", value)
            elif not isinstance(value, int) or isinstance(value, bool):
                raise RulesError(spec.name, "is not a whole number of chips", value)
        for name in _POSITIVE_CHIPS:
            if getattr(self, name) <= 0:
                raise RulesError(name, "must be a positive number of chips")
        if self.bonus_price < 0:
            raise RulesError("bonus_price", "must be 0 (free) or a positive number of chips")
        if self.max_raises < 0:
            raise RulesError("max_raises", "must be 0 or more")
        if self.bring_in > self.small_bet:
            raise RulesError("bring_in", "must not exceed the small bet")
        if self.small_bet > self.big_bet:
            raise RulesError("small_bet", "must not exceed the big bet")
        self._check_house_take()

    def _check_house_take(self) -> None:
        if not 0 <= self.rake_percent <= 100:
            raise RulesError("rake_percent", "must be 0 (no rake) to 100")
        for name in ("rake_cap", "rake_step", "jackpot_drop", "jackpot_drop_at"):
            if getattr(self, name) < 0:
                raise RulesError(name, "must not be negative")
        if self.rake_percent:
            for name in ("rake_cap", "rake_step"):
                if getattr(self, name) == 0:
                    raise RulesError(name, "must be a positive number of chips with a rake set")
            if self.rake_cap % self.rake_step:
                raise RulesError(
                    "rake_cap", f"must be a whole number of steps of {self.rake_step} (rake_step)"
                )
        if self.jackpot_drop and not self.jackpot_drop_at:
            raise RulesError(
                "jackpot_drop_at", "must be a positive pot size with a jackpot drop set"
            )

    @property
    def house_takes(self) -> bool:
        """Whether the house takes a rake or a jackpot drop from the pot."""
        return bool(self.rake_percent or self.jackpot_drop)

    @property
    def wild(self) -> bool:
        """Whether fours are wild (and a face-up four of clubs earns a bonus card)."""
        return self.variant is Variant.LUCK_OF_THE_IRISH

    @classmethod
    def from_mapping(cls, overrides: Mapping[str, Any]) -> Rules:
        """Build rules from a JSON-like mapping of overrides; unknown names are errors."""
        known = {spec.name for spec in fields(cls)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise RulesError(None, f"unknown setting {unknown[0]!r}")
        return cls(**overrides)

    def to_json(self) -> RulesJson:
        """Every setting; those of the house's take left out at their defaults when the
        house takes nothing, so that the rules of a table without a rake read (and are
        journaled) as before the rake existed."""
        return {
            name: value.value if isinstance(value, StrEnum) else value
            for name, value in asdict(self).items()
            if self.house_takes or name not in _HOUSE_TAKE or value != _HOUSE_TAKE[name]
        }


_FIELD_TYPES: dict[str, type] = {
    "variant": Variant,
    "heads_up_uncapped": HeadsUpUncapped,
    "bonus_timing": BonusTiming,
    "wild_bring_in": WildBringIn,
    "showdown": ShowdownMode,
    "odd_chip": OddChip,
    "rake_from": RakeFrom,
    "rake_timing": RakeTiming,
    "open_pair_big_bet": bool,
    "burn": bool,
    "double_ace_flush": bool,
}

#: Rules as JSON (``Rules.to_json``): every setting by its field's name, its value's JSON.
#: Its keys are the dataclass's fields, written from them: a ``TypedDict`` would declare
#: them a second time.
RulesJson = dict[str, Any]

#: The settings of the house's take and their defaults (``Rules.to_json``).
_HOUSE_TAKE: dict[str, object] = {
    spec.name: spec.default
    for spec in fields(Rules)
    if spec.name.startswith(("rake_", "jackpot_drop"))
}
