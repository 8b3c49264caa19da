"""The hands of a journal as hand scripts in the replay contract (docs/replay.md).

A hand's script is its rules, the seats' stacks at its start, every card in shoe order as
the shoe read it (burns included) and its decisions and corrections (a corrected card is a
``correct`` action at the point the table took it); ``luck-table replay``
plays it to the outcome the table recorded. A hand the supervisor voided ends with
``void`` and holds the cards dealt before its last decision (the replay tool voids the hand
as soon as ``void`` is the next action): the void gives every chip back, so the stacks are
the ones recorded. A misdeal the engine declares itself (three third-street cards exposed)
keeps every card and correction, as the table took them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TypedDict

from controller.history.script import (
    IN_PROGRESS,
    OutcomeJson,
    Replay,
    Script,
    ScriptJson,
    play,
    to_json,
)
from controller.journal import Journal
from controller.recovery import steps
from controller.rules import Action, Deal, Do, Hand, Phase
from controller.rules.hand import HouseTakeJson
from controller.table import Step, Table
from controller.table.effects import HandOver, HandStarted


def iso_time(ms: int | None) -> str:
    """A time (ms since the epoch) as ISO 8601 in UTC; None: the hand is in progress."""
    if ms is None:
        return IN_PROGRESS
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")


class HandSummaryJson(HouseTakeJson):
    """A hand in a list of hands (:meth:`RecordedHand.summary`): its number, when it
    started and ended (ISO 8601, UTC; ``ended``: "in progress"), its dealer, its phase,
    the seats dealt in and their players by the seat's name, the chips awarded, the
    winners; the rake and jackpot drop where the rules set a take."""

    hand: int
    started: str
    ended: str
    dealer: str | None
    phase: str
    seats: list[int]
    players: dict[str, str]
    pot: int
    winners: list[int]


class HistoryJson(TypedDict):
    """A hand as ``luck-table history --json`` gives it (:meth:`RecordedHand.history_json`):
    its number and times, its dealer, its script, the replay's outcome and whether that
    is the outcome the table recorded."""

    hand: int
    started: str
    ended: str
    dealer: str | None
    script: ScriptJson
    outcome: OutcomeJson
    recorded: bool


@dataclass(frozen=True)
class RecordedHand:
    """One hand as the journal recorded it: its number, when it started and ended (ms
    since the epoch; ``ended`` None while in progress), its script, the recorded hand, and
    the names of the players dealt in (seat, name), and its dealer (the table's dealer when
    it began: ``dealer_in``; None where the journal names none)."""

    number: int
    started: int
    ended: int | None
    script: Script
    hand: Hand
    players: tuple[tuple[int, str], ...] = ()
    dealer: str | None = None

    def script_json(self) -> ScriptJson:
        script = self.script
        return {
            "rules": script.rules.to_json(),
            "seats": {str(seat): stack for seat, stack in sorted(script.seats.items())},
            "cards": [str(card) for card in script.cards],
            "actions": [action.to_json() for action in script.actions],
        }

    def summary(self) -> HandSummaryJson:
        """What a list of hands shows: number, times, its dealer, how it ended, seats and
        their players, pots (as awarded: net of the house's take), winners, and the rake and
        jackpot drop where the rules set them."""
        hand = self.hand
        return {
            "hand": self.number,
            "started": iso_time(self.started),
            "ended": iso_time(self.ended),
            "dealer": self.dealer,
            "phase": hand.phase.value,
            "seats": sorted(self.script.seats),
            "players": {str(seat): name for seat, name in self.players},
            "pot": sum(pot.amount for pot in hand.pots),
            "winners": sorted({seat for pot in hand.pots for seat in pot.winners}),
            **hand.house_json(),
        }

    def replay(self) -> Replay:
        """The script played through the engine (what ``luck-table replay`` does)."""
        return play(self.script)

    def matches(self, replay: Replay) -> bool:
        """The replay's outcome is the one the table recorded."""
        if self.hand.phase is Phase.VOID:
            stacks = replay.hand.stacks()
            return replay.hand.phase is Phase.VOID and stacks == self.hand.stacks()
        return replay.error is None and replay.hand.to_json() == self.hand.to_json()

    def history_json(self, replay: Replay | None = None) -> HistoryJson:
        """The hand as ``luck-table history --json`` gives it: number, times, its dealer
        (null: not named), script, the replay's outcome, and whether that outcome is the one
        recorded (``replay``: the script's, when the caller has it already)."""
        replay = self.replay() if replay is None else replay
        return {
            "hand": self.number,
            "started": iso_time(self.started),
            "ended": iso_time(self.ended),
            "dealer": self.dealer,
            "script": self.script_json(),
            "outcome": to_json(replay),
            "recorded": self.matches(replay),
        }


def _recorded(table: Table, started: int, ended: int | None) -> RecordedHand:
    hand = table.hand
    assert hand is not None
    log = table.hand_log
    voided = bool(log) and isinstance(log[-1], Action) and log[-1].do is Do.VOID
    if voided:  # the cards after the last decision stay out of the script
        decisions = [n for n, item in enumerate(log) if isinstance(item, Action)]
        log = log[: decisions[-2] + 1 if len(decisions) > 1 else 0] + log[-1:]
    cards = tuple(item.card for item in log if isinstance(item, Deal))
    actions = tuple(item for item in log if isinstance(item, Action))
    seats = hand.starting_stacks()
    script = Script(hand.rules, seats, cards, actions)
    players = tuple((seat.seat, seat.player) for seat in table.seats if seat.seat in seats)
    number, dealer = table.hand_number, table.hand_dealer
    return RecordedHand(number, started, ended, script, hand, players, dealer)


class HandRecorder:
    """Follows a journal's steps in order and records each hand as it ends. ``started``:
    when the hand in progress started (for a recorder that starts mid-journal)."""

    def __init__(self, started: int = 0) -> None:
        self.started = started

    def observe(self, step: Step) -> list[RecordedHand]:
        """The hands that ``step`` ended (usually none)."""
        ended = []
        for effect in step.effects:
            if isinstance(effect, HandStarted):
                self.started = effect.at
            elif isinstance(effect, HandOver):
                ended.append(_recorded(step.table, self.started, effect.at))
        return ended

    def in_progress(self, table: Table) -> RecordedHand | None:
        """The hand in progress at ``table`` so far, if any."""
        return _recorded(table, self.started, None) if table.in_hand else None


def recorded_hands(
    journal: Journal, after: int = 0, start: Table | None = None
) -> Iterator[RecordedHand]:
    """Every hand of the journal in order, the one in progress (if any) last; ``after``
    and ``start``: from the table ``start`` after position ``after`` (a hand's end)."""
    table: Table | None = None
    recorder = HandRecorder()
    for _, step in steps(journal, after, start):
        table = step.table
        yield from recorder.observe(step)
    if table is not None:
        current = recorder.in_progress(table)
        if current is not None:
            yield current
