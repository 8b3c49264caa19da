"""Scenario files: the physical world scripted step by step, and what the table must show.

A scenario is a TOML file (docs/scenarios.md): an optional ``title``, ``[table]`` and
``[game]`` (the table's settings), then ``[[step]]`` entries, each with exactly one action
and an optional ``expect`` table. :func:`load_scenario` reads and checks one; every
mistake is a :class:`ScenarioError` naming the file, the step and what is wrong.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, TypeVar

from controller.codec import Codec, CodecError
from controller.rules import DECK, Card, CardError, Do, parse_card
from controller.table import AlertKind, Mode, Remedy
from drivers.protocol import DeviceKind, Disposition, FaultCode
from firmware_sim.shoe import Cheat
from luck_errors import LuckTableError

#: Actions on the physical world: in simulation a simulator control command, with real
#: devices an instruction for the engineer and a wait for the device's event.
PHYSICAL = (
    "load",
    "draw",
    "place",
    "pitch",
    "sit",
    "leave",
    "unplug",
    "fault",
    "clear",
    "restart",
    "switch",
)
#: Inputs of people (the dealer, the players, the supervisor), submitted to the service.
PEOPLE = (
    "new_hand",
    "decide",
    "sit_down",
    "sit_out",
    "sit_in",
    "cash_out",
    "rebuy",
    "void",
    "enter_card",
    "correct_card",
    "resolve",
    "correct_stack",
)
#: The controller itself: its power cut (the service stops) and back (it recovers).
SERVICE = ("stop_service", "start_service")
ACTIONS = (*PHYSICAL, *PEOPLE, *SERVICE, "wait")
#: The keys an action may take beside its own.
OPTIONS: dict[str, frozenset[str]] = {
    "load": frozenset({"deck", "cheat", "at"}),
    "draw": frozenset({"unreadable"}),
    "place": frozenset({"card", "lands_at"}),
    "switch": frozenset({"card"}),
    "pitch": frozenset({"pace"}),
    "sit": frozenset({"buy_in", "player"}),
    "unplug": frozenset({"seconds"}),
    "restart": frozenset({"seconds"}),
    "fault": frozenset({"device"}),
    "clear": frozenset({"device"}),
    "sit_down": frozenset({"buy_in", "player"}),
    "rebuy": frozenset({"chips"}),
    "resolve": frozenset({"remedy"}),
    "correct_stack": frozenset({"stack"}),
}
SUPERVISOR = ("void", "enter_card", "correct_card", "resolve", "correct_stack")
_COMMON = frozenset({"expect", "timeout", "note"})
_E = TypeVar("_E", bound=Enum)
CODEC = Codec()
_EXPECT = (
    "display",
    "display_has",
    "mode",
    "waiting",
    "alerts",
    "raised",
    "cleared",
    "paused",
    "lamps",
    "shoe_lamps",
    "stacks",
    "seated",
    "pot",
    "pots",
    "street",
    "hand",
    "in_hand",
    "refused",
)
_FAULTS = {
    DeviceKind.SHOE: (FaultCode.JAM, FaultCode.LID_OPEN, FaultCode.READER, FaultCode.TAMPER),
    DeviceKind.SEAT_BOARD: (FaultCode.READER, FaultCode.TAMPER, FaultCode.SENSOR),
}


class ScenarioError(LuckTableError, ValueError):
    """A scenario file that cannot be run: the file, the step (if any) and what is wrong."""

    def __init__(self, path: Path, step: int | None, what: str) -> None:
        where = f"{path}" if step is None else f"{path}: step {step}"
        super().__init__(f"{where}: {what}")
        self.path, self.step, self.what = path, step, what


@dataclass(frozen=True)
class Decision:
    """One decision of a ``decide`` step: ``"2 call"``, ``"3 raise 10"``, ``"5 bonus accept"``."""

    seat: int
    do: Do
    to: int | None = None
    accept: bool | None = None

    def __str__(self) -> str:
        extra = "" if self.to is None else f" {self.to}"
        if self.accept is not None:
            extra = " accept" if self.accept else " decline"
        return f"seat {self.seat} {self.do.value}{extra}"


@dataclass(frozen=True)
class Lamps:
    bonus: bool
    seats: tuple[int, ...]


@dataclass(frozen=True)
class Expect:
    """What the table must show after a step (every field None: not checked)."""

    display: str | None = None
    display_has: str | None = None
    mode: Mode | None = None  # what the display is about (docs/api.md, "The display's mode")
    waiting: str | None = None
    alerts: tuple[AlertKind, ...] | None = None
    raised: tuple[AlertKind, ...] = ()
    cleared: tuple[AlertKind, ...] = ()
    paused: bool | None = None
    lamps: Lamps | None = None
    shoe_lamps: Lamps | None = None
    stacks: Mapping[int, int] = field(default_factory=dict)
    seated: tuple[int, ...] | None = None
    pot: int | None = None
    pots: tuple[int, ...] | None = None
    street: int | None = None
    hand: int | None = None
    in_hand: bool | None = None
    refused: str | None = None  # the refusal's reason code (docs/api.md, "Reason codes")


@dataclass(frozen=True)
class ScenarioStep:
    """One step: ``action`` with its ``value`` and ``options``, then ``expect``."""

    number: int
    action: str
    value: Any
    options: Mapping[str, Any]
    expect: Expect
    timeout: float
    note: str = ""

    @property
    def physical(self) -> bool:
        return self.action in PHYSICAL


@dataclass(frozen=True)
class Scenario:
    path: Path
    title: str
    table: Mapping[str, Any]
    game: Mapping[str, Any]
    steps: tuple[ScenarioStep, ...]

    @property
    def seat_board(self) -> bool:
        return bool(self.table.get("seat_board", True))

    @property
    def tag_checks(self) -> bool:
        """The table checks every card's tag; false: its devices read no tags (simulators
        of protocol version 1: no deck registration, no UIDs)."""
        return bool(self.table.get("tag_checks", True))


_SEAT_ACTIONS = (
    "place",
    "switch",
    "sit",
    "leave",
    "sit_down",
    "sit_out",
    "sit_in",
    "cash_out",
    "rebuy",
    "correct_stack",
)
_TABLE_KEYS = {"seat_board", "player_decisions", "min_buy_in", "max_buy_in", "tag_checks"}
DEFAULT_TIMEOUT = 10.0


def load_scenario(path: str | Path) -> Scenario:
    """Read and check the scenario file at ``path``."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except OSError as error:
        raise ScenarioError(path, None, f"cannot be read ({error.strerror})") from None
    except tomllib.TOMLDecodeError as error:
        raise ScenarioError(path, None, f"is not valid TOML ({error})") from None
    unknown = sorted(set(data) - {"title", "table", "game", "step"})
    if unknown:
        raise ScenarioError(path, None, f"unknown key {unknown[0]!r} (title, table, game, step)")
    table = data.get("table", {})
    game = data.get("game", {})
    if not isinstance(table, dict) or not isinstance(game, dict):
        raise ScenarioError(path, None, "[table] and [game] must be tables")
    for flag in ("seat_board", "tag_checks"):
        if not isinstance(table.get(flag, True), bool):
            raise ScenarioError(path, None, f"[table] {flag} = {table[flag]!r}: true or false")
    extra = sorted(set(table) - _TABLE_KEYS)
    if extra:
        allowed = ", ".join(sorted(_TABLE_KEYS))
        raise ScenarioError(path, None, f"[table]: unknown key {extra[0]!r} ({allowed})")
    entries = data.get("step")
    if not isinstance(entries, list) or not entries:
        raise ScenarioError(path, None, "no [[step]]: a scenario has at least one step")
    steps = tuple(_step(path, number, entry) for number, entry in enumerate(entries, 1))
    if not table.get("seat_board", True):
        for step in steps:
            if _uses_seat_board(step):
                raise ScenarioError(
                    path, step.number, f"{step.action}: the table has no seat board"
                )
    return Scenario(path, str(data.get("title", path.stem)), table, game, steps)


def _uses_seat_board(step: ScenarioStep) -> bool:
    if step.action in ("place", "pitch", "sit", "leave", "switch"):
        return True
    device = step.value if step.action in ("unplug", "restart") else step.options.get("device")
    return device is DeviceKind.SEAT_BOARD


class _Bad(ValueError):
    """What is wrong with one step (the caller adds the file and the step)."""


def _step(path: Path, number: int, entry: object) -> ScenarioStep:
    try:
        if not isinstance(entry, dict):
            raise _Bad("a step must be a table")
        actions = [key for key in entry if key in ACTIONS]
        if len(actions) != 1:
            found = ", ".join(actions) or "none"
            raise _Bad(f"a step takes exactly one action ({', '.join(ACTIONS)}); found {found}")
        action = actions[0]
        allowed = OPTIONS.get(action, frozenset()) | _COMMON
        if action in SUPERVISOR:
            allowed |= {"who", "why"}
        for key in entry:
            if key != action and key not in allowed:
                raise _Bad(f"{action}: unknown key {key!r}")
        value = _value(action, entry[action])
        options = {key: _option(key, entry[key]) for key in entry if key in allowed - _COMMON}
        _check_options(action, value, options)
        timeout = entry.get("timeout", DEFAULT_TIMEOUT)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise _Bad(f"timeout = {timeout!r}: a number of seconds above 0")
        expect = _expect(entry.get("expect", {}))
        note = entry.get("note", "")
        if not isinstance(note, str):
            raise _Bad(f"note = {note!r}: text")
        return ScenarioStep(number, action, value, options, expect, float(timeout), note)
    except _Bad as error:
        raise ScenarioError(path, number, str(error)) from None


def _card(text: object, where: str) -> Card:
    if not isinstance(text, str):
        raise _Bad(f"{where} = {text!r}: a card name such as 'As', '4c', 'Td'")
    try:
        return parse_card(text)
    except CardError as error:
        raise _Bad(f"{where} = {text!r}: {error}") from None


def _seat(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 8:
        raise _Bad(f"{where} = {value!r}: a seat number, 1 to 8")
    return value


def _whole(value: object, where: str, least: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise _Bad(f"{where} = {value!r}: a whole number, at least {least}")
    return value


def _member(enum: type[_E], value: object, where: str) -> _E:
    """A member of ``enum`` by its value, read as the journal reads it (controller.codec)."""
    try:
        member: _E = CODEC.decode(enum, value, where)
    except CodecError as error:
        raise _Bad(f"{where} = {value!r}: {error.what.split(' is not ', 1)[-1]}") from None
    return member


def _seconds(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise _Bad(f"{where} = {value!r}: a number of seconds above 0")
    return float(value)


def _value(action: str, value: object) -> Any:
    if action == "load":
        if not isinstance(value, list):
            raise _Bad(f"load = {value!r}: a list of card names (the top of the deck first)")
        return tuple(_card(item, "load") for item in value)
    if action == "draw":
        return _whole(value, "draw", 1)
    if action == "pitch":
        if not isinstance(value, list) or not value:
            raise _Bad(f"pitch = {value!r}: a list of seats, a card to each in turn")
        return tuple(_seat(item, "pitch") for item in value)
    if action in _SEAT_ACTIONS:
        return _seat(value, action)
    if action in ("unplug", "restart"):
        return _member(DeviceKind, value, action)
    if action in ("fault", "clear"):
        return _member(FaultCode, value, action)
    if action == "decide":
        items = value if isinstance(value, list) else [value]
        return tuple(_decision(item) for item in items)
    if action == "enter_card":
        return _card(value, "enter_card")
    if action == "correct_card":
        if not isinstance(value, list) or len(value) != 2:
            raise _Bad(f"correct_card = {value!r}: [wrong, right], two card names")
        return (_card(value[0], "correct_card"), _card(value[1], "correct_card"))
    if action == "resolve":
        return _member(AlertKind, value, "resolve")
    if action == "wait":
        return _seconds(value, "wait")
    if action in ("new_hand", "void", *SERVICE):
        if value is not True:
            raise _Bad(f"{action} = {value!r}: write {action} = true")
        return True
    raise AssertionError(action)


def _option(key: str, value: object) -> Any:
    if key == "deck":
        return _whole(value, "deck", 1)
    if key == "cheat":
        return _member(Cheat, value, "cheat")
    if key == "at":
        return _whole(value, "at")
    if key == "unreadable":
        return _member(Disposition, value, "unreadable")
    if key == "card":
        return _card(value, "card")
    if key == "lands_at":
        return _seat(value, "lands_at")
    if key in ("buy_in", "chips", "stack"):
        return _whole(value, key, 1 if key != "stack" else 0)
    if key in ("player", "who", "why"):
        if not isinstance(value, str) or not value:
            raise _Bad(f"{key} = {value!r}: text")
        return value
    if key in ("seconds", "pace"):
        return _seconds(value, key)
    if key == "device":
        return _member(DeviceKind, value, "device")
    if key == "remedy":
        return _member(Remedy, value, "remedy")
    raise AssertionError(key)


def _check_options(action: str, value: Any, options: dict[str, Any]) -> None:
    needed = {"sit_down": ("buy_in",), "rebuy": ("chips",), "resolve": ("remedy",)}
    needed |= {"switch": ("card",)}
    needed |= {"correct_stack": ("stack",)}
    for key in needed.get(action, ()):
        if key not in options:
            raise _Bad(f"{action}: missing {key!r}")
    if action in ("fault", "clear"):
        device = options.setdefault("device", DeviceKind.SHOE)
        if value not in _FAULTS[device]:
            names = ", ".join(item.value for item in _FAULTS[device])
            raise _Bad(f"the {device.value} has no {value.value} fault ({names})")
    if action == "load" and "deck" in options and options["deck"] > len(DECK):
        raise _Bad(f"deck = {options['deck']}: at most {len(DECK)} cards")
    if action == "load" and "at" in options and "cheat" not in options:
        raise _Bad("at: the place of a cheat; give cheat too")


def _decision(text: object) -> Decision:
    if not isinstance(text, str):
        raise _Bad(f"decide: {text!r}: text such as '2 call' or '3 raise 10'")
    words = text.split()
    shape = "SEAT DECISION [TO] (e.g. '2 call', '3 raise 10', '5 bonus accept')"
    if len(words) not in (2, 3) or not words[0].isdigit():
        raise _Bad(f"decide: {text!r}: {shape}")
    seat = _seat(int(words[0]), "decide")
    try:
        do = Do(words[1])
    except ValueError:
        raise _Bad(f"decide: {text!r}: {words[1]!r} is not a decision") from None
    if len(words) == 2:
        return Decision(seat, do)
    if do is Do.BONUS:
        if words[2] not in ("accept", "decline"):
            raise _Bad(f"decide: {text!r}: a bonus card is 'accept' or 'decline'")
        return Decision(seat, do, accept=words[2] == "accept")
    if not words[2].isdigit():
        raise _Bad(f"decide: {text!r}: {shape}")
    return Decision(seat, do, to=int(words[2]))


def _kinds(value: object, where: str) -> tuple[AlertKind, ...]:
    items = value if isinstance(value, list) else [value]
    return tuple(_member(AlertKind, item, where) for item in items)


def _lamps(value: object, where: str) -> Lamps:
    if not isinstance(value, dict) or set(value) - {"bonus", "seats"}:
        raise _Bad(f"expect.{where} = {value!r}: {{ bonus = true|false, seats = [..] }}")
    bonus = value.get("bonus", False)
    seats = value.get("seats", [])
    if not isinstance(bonus, bool) or not isinstance(seats, list):
        raise _Bad(f"expect.{where} = {value!r}: {{ bonus = true|false, seats = [..] }}")
    return Lamps(bonus, tuple(_seat(seat, f"expect.{where}.seats") for seat in seats))


def _text(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise _Bad(f"expect.{where} = {value!r}: text")
    return value


def _flag(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise _Bad(f"expect.{where} = {value!r}: true or false")
    return value


def _expect(data: object) -> Expect:
    if not isinstance(data, dict):
        raise _Bad(f"expect = {data!r}: a table")
    unknown = sorted(set(data) - set(_EXPECT))
    if unknown:
        raise _Bad(f"expect: unknown key {unknown[0]!r} ({', '.join(_EXPECT)})")
    out: dict[str, Any] = {}
    for key in ("display", "display_has", "waiting", "refused"):
        if key in data:
            out[key] = _text(data[key], key)
    if out.get("refused") == "":
        raise _Bad("expect.refused = '': the refusal's reason code (out_of_turn, ...)")
    if "mode" in data:
        try:
            out["mode"] = Mode(data["mode"])
        except ValueError:
            modes = ", ".join(mode.value for mode in Mode)
            raise _Bad(f"expect.mode = {data['mode']!r}: one of {modes}") from None
    for key in ("paused", "in_hand"):
        if key in data:
            out[key] = _flag(data[key], key)
    for key in ("pot", "street", "hand"):
        if key in data:
            out[key] = _whole(data[key], f"expect.{key}")
    if "alerts" in data:
        out["alerts"] = _kinds(data["alerts"], "expect.alerts") if data["alerts"] != [] else ()
    for key in ("raised", "cleared"):
        if key in data:
            out[key] = _kinds(data[key], f"expect.{key}")
    for key in ("lamps", "shoe_lamps"):
        if key in data:
            out[key] = _lamps(data[key], key)
    if "pots" in data:
        if not isinstance(data["pots"], list):
            raise _Bad(f"expect.pots = {data['pots']!r}: a list of amounts, main pot first")
        out["pots"] = tuple(_whole(item, "expect.pots") for item in data["pots"])
    if "seated" in data:
        if not isinstance(data["seated"], list):
            raise _Bad(f"expect.seated = {data['seated']!r}: a list of seat numbers")
        out["seated"] = tuple(_seat(seat, "expect.seated") for seat in data["seated"])
    if "stacks" in data:
        stacks = data["stacks"]
        if not isinstance(stacks, dict) or not all(key.isdigit() for key in stacks):
            raise _Bad(f"expect.stacks = {stacks!r}: {{ SEAT = CHIPS, ... }}")
        out["stacks"] = {
            _seat(int(key), "expect.stacks"): _whole(chips, f"expect.stacks.{key}")
            for key, chips in stacks.items()
        }
    return Expect(**out)
