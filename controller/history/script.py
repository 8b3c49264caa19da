"""Hand scripts played through the engine (``luck-table replay``, docs/replay.md).

:func:`read_script` reads a hand script, :func:`play` feeds it to the engine,
:func:`to_json` and :func:`history` give the outcome as JSON or as a hand history a
supervisor can read; :func:`read_record` reads one hand of ``luck-table history --hand N
--json`` and :func:`audit` checks a replay against the outcome it recorded.

A hand script is a JSON object::

    {"rules": {...overrides...}, "seats": {"1": 200, "4": 150},
     "cards": ["Kd", "7c", ...], "actions": [{"seat": 4, "do": "bring_in"}, ...]}

Cards are fed when the engine waits for a card, decisions when it waits for a
decision. Corrections (``expose``, ``dealt_down``, ``correct``, ``dead``, ``void``) are
applied as soon as they are the next action and can apply: ``void`` at once, the others
once as many cards as their ``dealt`` says are out, or without ``dealt`` once their card
has been dealt (``dead``, which names no card: at once).

A script that cannot be played at all is a :class:`ScriptError`: bad JSON, a key given
twice in an object, an unknown field or value, a seat outside 1-8 (in ``seats`` or an
action), fewer than 2 seats. An action the engine refuses, or one left over, is the
replay's ``error`` (``error.action`` is its index), and so is a card given twice or left
over (``error.card``). A card may come out twice only when the engine scrambled the burn
cards back (short deck); cards after the point where the engine stops are checked as far
as the rules can know (``_check_unused_cards``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, TypedDict, TypeVar

from controller.rules.cards import DECK, Card, CardError, parse_card
from controller.rules.effects import Effect, EffectJson, Street
from controller.rules.evaluator import ValueJson
from controller.rules.hand import MAX_SEAT, CardOut, Hand, HouseTakeJson, start_hand
from controller.rules.inputs import (
    CARD_CORRECTIONS,
    Action,
    ActionJson,
    Deal,
    Do,
    Illegal,
    IllegalInput,
    action_from_json,
)
from controller.rules.pots import build_pots
from controller.rules.settings import Rules, RulesError, RulesJson
from controller.rules.showdown import hand_value
from controller.rules.state import DealtJson, Dest, Phase, PotJson, Reveal
from controller.rules.waiting import WaitingJson
from luck_errors import LuckTableError

T = TypeVar("T")

IN_PROGRESS = "in progress"  # the end time of a hand not over, in the history records
CARDS_PER_PLAYER = 7  # seven-card stud, before any bonus card
BURNS_PER_HAND = 4  # one before each of fourth to seventh street
SCRIPT_FIELDS = frozenset({"rules", "seats", "cards", "actions"})
RECORD_FIELDS = frozenset({"hand", "started", "ended", "script", "outcome", "recorded"})
#: A record's fields that a history written before them lacks: the hand's dealer.
RECORD_OPTIONAL = frozenset({"dealer"})
SEAT_NAMES = frozenset(str(seat) for seat in range(1, MAX_SEAT + 1))


class ScriptError(LuckTableError, ValueError):
    """A hand script that cannot be played at all."""


@dataclass(frozen=True, slots=True)
class Script:
    rules: Rules
    seats: dict[int, int]
    cards: tuple[Card, ...]
    actions: tuple[Action, ...]


class ScriptJson(TypedDict):
    """A hand script as JSON (docs/replay.md): the rules, each seat's stack by its name,
    the cards in shoe order and the actions."""

    rules: RulesJson
    seats: dict[str, int]
    cards: list[str]
    actions: list[ActionJson]


class Refused(TypedDict):
    """Where the script does not replay, and why: the action the engine refused (its index
    among the actions), or the card it refused or did not use (among the cards); one of
    the two. ``code`` why as data (the engine's ``Illegal``), ``message`` in words."""

    action: NotRequired[int]
    card: NotRequired[int]
    code: str
    message: str


class StoppedJson(TypedDict, total=False):
    """Where a replay stopped before the hand's end: the refusal (``error``), or, with
    none, what the hand waits for next (``waiting_for``)."""

    error: Refused
    waiting_for: WaitingJson


class OutcomeSeatJson(TypedDict):
    """A seat in a replay's outcome: its cards, stack and fold; at a showdown its best
    hand (``best``: the seats that did not fold) and whether it mucked."""

    cards: list[DealtJson]
    folded: bool
    stack: int
    best: NotRequired[ValueJson]
    mucked: NotRequired[bool]


class OutcomeJson(StoppedJson, HouseTakeJson):
    """A replay's outcome (:func:`to_json`; docs/replay.md): its status, where it stopped,
    each seat by its name, the community card and burns, the pots, the house's take where
    the rules set one, and the effects."""

    status: str
    seats: dict[str, OutcomeSeatJson]
    community: list[str]
    burns: list[str]
    pots: list[PotJson]
    events: list[EffectJson]


@dataclass(slots=True)
class Replay:
    """The outcome of playing a script: the last state, the effects, and any refusal (the
    outcome's ``error``, docs/replay.md)."""

    hand: Hand
    events: list[Effect] = field(default_factory=list)
    error: Refused | None = None

    @property
    def refusal(self) -> tuple[Literal["card", "action"], int, str] | None:
        """Where the script does not replay (a card or an action, and its index), and why."""
        error = self.error
        if error is None:
            return None
        if "card" in error:
            return "card", error["card"], error["message"]
        return "action", error["action"], error["message"]

    @property
    def status(self) -> str:
        if self.error is not None:
            return "error"
        return "complete" if self.hand.over else "waiting"


def read_script(text: str) -> Script:
    try:
        return _read_script(text)
    except RecursionError:
        raise ScriptError("invalid hand script: nested too deeply") from None


def _read_script(text: str) -> Script:
    try:
        data = json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as error:
        raise ScriptError(f"invalid JSON: {error}") from None
    except ScriptError:
        raise
    except ValueError:  # Python's limit on converting long numbers
        limit = sys.get_int_max_str_digits()
        raise ScriptError(f"invalid JSON: a number of more than {limit:,} digits") from None
    if not isinstance(data, dict):
        raise ScriptError("a hand script is a JSON object")
    unknown = sorted(set(data) - SCRIPT_FIELDS)
    if unknown:
        raise ScriptError(f"unknown field {unknown[0]!r}")
    overrides = data.get("rules", {})
    if not isinstance(overrides, dict):
        raise ScriptError("'rules' must be an object")
    try:
        rules = Rules.from_mapping(overrides)
    except (RulesError, TypeError) as error:
        raise ScriptError(str(error)) from None
    seats = _read_seats(data.get("seats"))
    cards = _read_list(data, "cards", parse_card)
    actions = _read_list(data, "actions", action_from_json)
    for number, action in enumerate(actions):
        if action.seat is not None and not 1 <= action.seat <= MAX_SEAT:
            raise ScriptError(
                f"actions[{number}]: seat {action.seat} is not a seat (seats are 1 to {MAX_SEAT})"
            )
    return Script(rules, seats, cards, actions)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object; a key given twice is an error (JSON would keep the last silently)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ScriptError(f"duplicate key {key!r}")
        out[key] = value
    return out


def _read_list(data: dict[str, Any], name: str, read: Callable[[Any], T]) -> tuple[T, ...]:
    items = data.get(name, [])
    if not isinstance(items, list):
        raise ScriptError(f"{name!r} must be a list")
    out = []
    for number, item in enumerate(items):
        try:
            out.append(read(item))
        except (CardError, IllegalInput) as error:
            raise ScriptError(f"{name}[{number}]: {error}") from None
    return tuple(out)


def _read_seats(data: object) -> dict[int, int]:
    if not isinstance(data, dict):
        raise ScriptError("'seats' must be an object of seat number to stack")
    seats: dict[int, int] = {}
    for key, stack in data.items():
        if key not in SEAT_NAMES:
            raise ScriptError(f"seats: {key!r} is not a seat (seats are 1 to {MAX_SEAT})")
        if not isinstance(stack, int) or isinstance(stack, bool) or stack <= 0:
            raise ScriptError(f"seats: seat {key}: stack {stack!r} is not a positive whole number")
        seats[int(key)] = stack
    if len(seats) < 2:
        raise ScriptError("seats: a hand needs at least 2 seats")
    return seats


def play(script: Script) -> Replay:
    """Feed the script's cards and actions to the engine as it asks for them."""
    step = start_hand(script.rules, script.seats)
    replay = Replay(step.hand, list(step.effects))
    cards, actions = script.cards, script.actions
    next_card = next_action = 0
    while True:
        hand = replay.hand
        waiting = hand.waiting_for
        action = actions[next_action] if next_action < len(actions) else None
        if waiting is None:
            over = Illegal.HAND_OVER
            if action is not None:
                replay.error = {"action": next_action, "code": over, "message": "the hand is over"}
            elif next_card < len(cards):
                said = "the hand is over: card not used"
                replay.error = {"card": next_card, "code": over, "message": said}
            return replay
        if action is not None and _correction_due(hand, action, next_card):
            wanted: Deal | Action | None = action
        elif waiting.kind == "card":
            wanted = Deal(cards[next_card]) if next_card < len(cards) else action
        else:
            wanted = action
        if wanted is None:
            _check_unused_cards(replay, cards, next_card)
            return replay
        try:
            step = hand.apply(wanted)
        except IllegalInput as error:
            if isinstance(wanted, Deal):
                said = f"{error} (card given twice)"
                replay.error = {"card": next_card, "code": error.code, "message": said}
            else:
                replay.error = {"action": next_action, "code": error.code, "message": str(error)}
            return replay
        if isinstance(wanted, Deal):
            next_card += 1
        else:
            next_action += 1
        replay.hand = step.hand
        replay.events.extend(step.effects)


def _check_unused_cards(replay: Replay, cards: tuple[Card, ...], first: int) -> None:
    """Cards the engine has not asked for yet must be cards that can still come out.

    A card in play (dealt to a player, or the community card) never comes out again. A
    burned card comes out again only after the burn cards are scrambled back into the
    stub (short deck, seventh street). Which of the cards still to come will be burns
    depends on decisions not made yet, so while a scramble can still happen a card may
    be given twice in all (burned, then dealt after the scramble), never three times.
    """
    hand = replay.hand
    burned = 0 if hand.scrambled else sum(1 << card for card in hand.burns)
    may_return = _burns_may_return(hand)
    in_play = hand.out & ~burned
    once = burned
    twice = 0
    for number in range(first, len(cards)):
        card = cards[number]
        bit = 1 << card
        if in_play & bit or twice & bit or (once & bit and not may_return):
            said = f"{card}: card given twice"
            replay.error = {"card": number, "code": Illegal.CARD_IN_PLAY, "message": said}
            return
        if once & bit:
            twice |= bit
        else:
            once |= bit


def _burns_may_return(hand: Hand) -> bool:
    """Whether the burn cards may yet be scrambled back into the stub.

    Only a hand that could need more cards than the deck holds can scramble: seven to
    every player, a bonus card and a burn before each of the four later streets (seven
    players or more, with burns on).
    """
    if hand.scrambled or not hand.rules.burn:
        return False
    return len(hand.players) * CARDS_PER_PLAYER + 1 + BURNS_PER_HAND > len(DECK)


def _correction_due(hand: Hand, action: Action, fed: int) -> bool:
    """Whether the correction ``action`` applies now, ``fed`` cards into the script: at the
    point the table made it (``dealt``), else once the card it names is out."""
    if action.do is Do.VOID:
        return True
    if action.do not in CARD_CORRECTIONS and action.do is not Do.DEAD:
        return False
    waiting = hand.waiting_for
    if waiting is None or waiting.kind != "card":
        return True
    if action.dealt is not None:
        return fed >= action.dealt
    if action.do is Do.DEAD:
        return True
    card = action.was if action.do is Do.CORRECT else action.card
    assert card is not None
    return hand.is_out(card)


def to_json(replay: Replay) -> OutcomeJson:
    hand = replay.hand
    stopped: StoppedJson = {}
    if replay.error is not None:
        stopped["error"] = replay.error
    waiting = hand.waiting_for
    if replay.error is None and waiting is not None:
        stopped["waiting_for"] = waiting.to_json()
    showdown = hand.phase is Phase.COMPLETE and any(p.reveal is not None for p in hand.players)
    seats: dict[str, OutcomeSeatJson] = {}
    for player in hand.players:
        entry: OutcomeSeatJson = {
            "cards": [dealt.to_json() for dealt in player.cards],
            "folded": player.folded,
            "stack": player.stack,
        }
        if showdown and not player.folded:
            value = hand_value(hand, player)
            entry["best"] = {"category": value.category.value, "ranks": list(value.ranks)}
            if player.reveal is Reveal.MUCK:
                entry["mucked"] = True
        seats[str(player.seat)] = entry
    if hand.phase is Phase.VOID:
        pots: list[PotJson] = []
    elif hand.pots:
        pots = [pot.to_json() for pot in hand.pots]
    else:
        pots = [pot.to_json() for pot in build_pots(hand.players)]
    return {
        "status": replay.status,
        **stopped,
        "seats": seats,
        "community": [] if hand.community is None else [str(hand.community)],
        "burns": [str(card) for card in hand.burns],
        "pots": pots,
        **hand.house_json(),  # the rake and the jackpot drop, where the rules set them
        "events": [effect.to_json() for effect in replay.events],
    }


def history(replay: Replay) -> str:
    """A hand history a supervisor can read, street by street (hole cards shown)."""
    hand = replay.hand
    rules = hand.rules
    seats = ", ".join(f"seat {p.seat} ({p.start})" for p in hand.players)
    lines = [
        f"{rules.variant.value}: ante {rules.ante}, bring-in {rules.bring_in}, "
        f"bets {rules.small_bet}/{rules.big_bet}; {seats}"
    ]
    for effect in replay.events:
        match effect:
            case Street():
                lines.append(f"*** {effect.message.upper()} ***")
            case CardOut(card=card, where=to) if to.seat is not None:
                bonus = " (bonus card)" if to.destination is Dest.BONUS else ""
                lines.append(f"  seat {to.seat}: {card} {'up' if to.up else 'down'}{bonus}")
            case CardOut(card=card, where=to) if to.destination is Dest.BURN:
                lines.append(f"  burn {card}")
            case _:
                lines.append(f"  {effect.message}")
    lines.append(f"status: {replay.status}")
    if replay.refusal is not None:
        where, index, why = replay.refusal
        lines.append(f"error at {where} {index}: {why}")
    waiting = hand.waiting_for
    if replay.error is None and waiting is not None:
        lines.append(waiting.describe())
    lines.append("stacks: " + ", ".join(f"seat {p.seat} {p.stack}" for p in hand.players))
    return "\n".join(lines)


def read_record(text: str) -> tuple[Script, dict[str, Any]] | None:
    """A hand of ``luck-table history --hand N --json``, ``{"hand", "started", "ended",
    "dealer", "script", "outcome", "recorded"}`` (``dealer`` absent from a history written
    before it): its script and the record; None when ``text`` is not such a record (a hand
    script)."""
    try:
        data = json.loads(text, object_pairs_hook=_unique_keys)
    except (json.JSONDecodeError, RecursionError):
        return None  # read_script says what is wrong
    except ScriptError:
        raise
    except ValueError:
        return None
    if not isinstance(data, dict) or "script" not in data:
        return None
    missing = sorted(RECORD_FIELDS - set(data))
    unknown = sorted(set(data) - RECORD_FIELDS - RECORD_OPTIONAL)
    if missing or unknown:
        what = f"missing {missing[0]!r}" if missing else f"unknown field {unknown[0]!r}"
        raise ScriptError(f"a hand of 'luck-table history --json': {what}")
    if not isinstance(data["outcome"], dict):
        raise ScriptError("a hand of 'luck-table history --json': 'outcome' must be an object")
    try:
        script = read_script(json.dumps(data["script"]))
    except ScriptError as error:
        raise ScriptError(f"script: {error}") from None
    return script, data


def audit(replay: Replay, record: dict[str, Any]) -> tuple[str, bool]:
    """The audit line of a recorded hand replayed: whether the replay gives the outcome the
    history printed for it, and whether that is the one the table recorded."""
    hand = f"hand {record['hand']} ({record['started']} to {record['ended']})"
    if to_json(replay) != record["outcome"]:
        return f"AUDIT FAILED: {hand}: the replay's outcome is not the one recorded", False
    if record["recorded"] is not True:
        return f"AUDIT FAILED: {hand}: the table recorded another outcome (recorded: false)", False
    if record["ended"] == IN_PROGRESS:  # the hand the journal ends in, not over yet
        return f"audit: {hand} replays to the table's hand as far as it went", True
    return f"audit: {hand} replays to the outcome the table recorded", True
