"""The table settings the core plays by: the game's rules, the buy-in limits, whether a
seat board confirms where each card lands, and game protection (tag checks, deck life)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

from controller.rules import Rules, RulesError
from controller.rules.settings import RulesJson
from luck_errors import LuckTableError


class SettingsError(LuckTableError, ValueError):
    """A table setting that does not exist or has a value it cannot take: ``field``, the
    setting at fault (``time_charge``, ``protection.deck_hands``, ``rules.ante``; None: an
    unknown one, named in the words)."""

    def __init__(self, field: str | None, message: str) -> None:
        super().__init__(message)
        self.field = field


_PROTECTION = (
    "tag_checks",
    "deck_hands",
    "deck_hours",
    "shuffle_check",
    "unverified_blocks",
    "two_person",
)


#: Game protection as JSON (``Protection.to_json``): every setting by name, its value. The
#: settings are declared once, by the dataclass (``_PROTECTION`` names them in order).
ProtectionJson = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Protection:
    """Game protection (docs/game-protection.md). ``tag_checks``: every deck is registered
    by the shoe (each card's code and tag UID) and every card read is checked against it;
    false for a shoe whose reader gives no UID (optical): decks are then counted by the
    shoe, or their codes checked when it registers them. ``deck_hands`` and ``deck_hours``:
    a deck's life (None: no limit); past either, a ``deck_due`` alert at the hand's end.
    ``shuffle_check``: each deck's order, as it is dealt, is compared with the last decks'
    (``controller.table.shuffle``); one too close raises ``deck_not_shuffled``, for
    surveillance (the dealing goes on).
    ``unverified_blocks``: a seat's read of a dealt card without a readable tag (an
    ``unverified_read`` alert for surveillance) pauses the dealing; by default it does not.
    ``two_person``: a void, a correction to or from a wild card and a stack correction need
    a second supervisor's approval (``core.second_needed``); by default one is enough.

    ``Protection()`` is a table without tag checks: the settings of a journal written
    before game protection. A configuration file turns tag checks on unless it says
    otherwise (``controller.config``)."""

    tag_checks: bool = False
    deck_hands: int | None = None
    deck_hours: float | None = None
    shuffle_check: bool = False
    unverified_blocks: bool = False
    two_person: bool = False

    def __post_init__(self) -> None:
        for name in ("tag_checks", "shuffle_check", "unverified_blocks", "two_person"):
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise SettingsError(
                    f"protection.{name}", f"protection.{name}: {value!r} is not true or false"
                )
        hands = self.deck_hands
        whole = isinstance(hands, int) and not isinstance(hands, bool)
        if hands is not None and (not whole or hands < 1):
            raise SettingsError(
                "protection.deck_hands",
                f"protection.deck_hands: {hands!r} is not a whole number of hands, 1 or more",
            )
        hours = self.deck_hours
        if hours is not None and (
            not isinstance(hours, int | float) or isinstance(hours, bool) or not 0 < hours <= 168
        ):
            raise SettingsError(
                "protection.deck_hours",
                f"protection.deck_hours: {hours!r} is not a number of hours over 0, at most 168",
            )

    @property
    def deck_ms(self) -> int | None:
        """``deck_hours`` in ms (None: no limit)."""
        return None if self.deck_hours is None else round(self.deck_hours * 3_600_000)

    def to_json(self) -> ProtectionJson:
        return {name: getattr(self, name) for name in _PROTECTION}

    @classmethod
    def from_json(cls, data: object) -> Protection:
        if not isinstance(data, Mapping):
            raise SettingsError("protection", f"protection: {data!r} is not an object")
        unknown = sorted(set(data) - set(_PROTECTION))
        if unknown:
            raise SettingsError(None, f"unknown setting protection.{unknown[0]}")
        return cls(**data)


class SerialsJson(TypedDict, total=False):
    """The serials the devices must report, each only where one is named."""

    shoe: str
    seat_board: str


@dataclass(frozen=True, slots=True)
class Serials:
    """The serials the table's devices must report in their HELLO (``[devices.shoe]
    serial``, ``[devices.seat_board] serial``); None: any. A device that reports another
    raises ``device_replaced`` (docs/game-protection.md)."""

    shoe: str | None = None
    seat_board: str | None = None

    def __post_init__(self) -> None:
        for name in ("shoe", "seat_board"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise SettingsError(
                    f"serials.{name}", f"serials.{name}: {value!r} is not a device's serial"
                )

    def of(self, device: str) -> str | None:
        """The serial ``device`` (``"shoe"`` or ``"seat_board"``) must report (None: any)."""
        serial: str | None = getattr(self, device)
        return serial

    def to_json(self) -> SerialsJson:
        out: SerialsJson = {}
        if self.shoe:
            out["shoe"] = self.shoe
        if self.seat_board:
            out["seat_board"] = self.seat_board
        return out

    @classmethod
    def from_json(cls, data: object) -> Serials:
        if not isinstance(data, Mapping):
            raise SettingsError("serials", f"serials: {data!r} is not an object")
        unknown = sorted(set(data) - {"shoe", "seat_board"})
        if unknown:
            raise SettingsError(None, f"unknown setting serials.{unknown[0]}")
        return cls(**data)


class TableSettingsJson(TypedDict):
    """The table's settings as its records keep them (a ``configure`` input, snapshots):
    ``serials`` only where one is named, ``time_charge`` and ``time_period`` only where
    the house collects time (:class:`TableSettings`)."""

    rules: RulesJson
    min_buy_in: int
    max_buy_in: int
    seat_board: bool
    player_decisions: bool
    protection: ProtectionJson
    serials: NotRequired[SerialsJson]
    time_charge: NotRequired[int]
    time_period: NotRequired[int]


@dataclass(frozen=True, slots=True)
class TableSettings:
    """``rules``: the game (every ``Rules`` field); ``min_buy_in`` and ``max_buy_in``: what
    a player may sit down with, and the most a rebuy may bring a stack to; ``seat_board``:
    a seat board reports every card that lands at a seat (see docs/table.md);
    ``player_decisions``: players may make their own decisions (on their own screens, at a
    live-dealer table); otherwise the dealer enters every decision; ``protection``: tag
    checks and deck life (:class:`Protection`; settings without it, from a journal written
    before it, have none); ``serials``: the serials the devices must report
    (:class:`Serials`; written only when one is named, so settings that name none read as
    they did before); ``time_charge``: the chips each player sitting in pays at the first
    hand after each boundary of ``time_period`` minutes (time collection, instead of a rake;
    0: none, and both are left out of the JSON then)."""

    rules: Rules = field(default_factory=Rules)
    min_buy_in: int = 100
    max_buy_in: int = 1000
    seat_board: bool = True
    player_decisions: bool = False
    protection: Protection = field(default_factory=Protection)
    serials: Serials = field(default_factory=Serials)
    time_charge: int = 0
    time_period: int = 30

    def __post_init__(self) -> None:
        for name in ("min_buy_in", "max_buy_in"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise SettingsError(
                    name, f"{name}: {value!r} is not a positive whole number of chips"
                )
        if self.max_buy_in < self.min_buy_in:
            raise SettingsError(
                "max_buy_in",
                f"max_buy_in: {self.max_buy_in} is less than min_buy_in ({self.min_buy_in})",
            )
        for name in ("seat_board", "player_decisions"):
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise SettingsError(name, f"{name}: {value!r} is not true or false")
        charge, period = self.time_charge, self.time_period
        if not isinstance(charge, int) or isinstance(charge, bool) or charge < 0:
            raise SettingsError(
                "time_charge", f"time_charge: {charge!r} is not a whole number of chips, 0 or more"
            )
        if not isinstance(period, int) or isinstance(period, bool) or not 1 <= period <= 1440:
            raise SettingsError(
                "time_period", f"time_period: {period!r} is not a number of minutes, 1 to 1440"
            )
        if charge and self.rules.house_takes:
            raise SettingsError(
                "time_charge",
                f"time_charge: {charge} with a rake or a jackpot drop: time collection is "
                "instead of a rake (set time_charge to 0, or rake_percent and jackpot_drop to 0)",
            )

    def to_json(self) -> TableSettingsJson:
        out: TableSettingsJson = {
            "rules": self.rules.to_json(),
            "min_buy_in": self.min_buy_in,
            "max_buy_in": self.max_buy_in,
            "seat_board": self.seat_board,
            "player_decisions": self.player_decisions,
            "protection": self.protection.to_json(),
        }
        serials = self.serials.to_json()
        if serials:
            out["serials"] = serials
        if self.time_charge:  # only where the house collects time: settings as before it existed
            out["time_charge"], out["time_period"] = self.time_charge, self.time_period
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TableSettings:
        known = {"rules", "min_buy_in", "max_buy_in", "seat_board", "player_decisions"}
        known |= {"protection", "serials", "time_charge", "time_period"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise SettingsError(None, f"unknown setting {unknown[0]!r}")
        rules = data.get("rules", {})
        if not isinstance(rules, Mapping):
            raise SettingsError("rules", f"rules: {rules!r} is not an object")
        try:
            parsed = Rules.from_mapping(rules)
        except RulesError as error:
            field = None if error.field is None else f"rules.{error.field}"
            raise SettingsError(field, str(error)) from None
        except TypeError as error:
            raise SettingsError("rules", str(error)) from None
        protection = Protection.from_json(data.get("protection", {}))
        serials = Serials.from_json(data.get("serials", {}))
        nested = {"rules", "protection", "serials"}
        others = {name: data[name] for name in known - nested if name in data}
        return cls(parsed, protection=protection, serials=serials, **others)
