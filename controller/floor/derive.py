"""The facts of a table's journal, derived at the table through the table core.

The same path as recovery and ``luck-table history``: each journal entry is applied with
``controller.history.recovery.entry_steps`` and each hand recorded as it ends by
``controller.history.hands.HandRecorder``. A :class:`Point` is where the derivation stands (a
journal position, the table after it, when its hand in progress started); :func:`point_at`
rebuilds one at any position (from the latest snapshot at or before it), :func:`derive`
goes on from one for up to ``limit`` entries.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from controller.floor import facts as f
from controller.history.hands import HandRecorder
from controller.history.records import at_of
from controller.history.recovery import entry_steps, from_snapshot
from controller.journal import Entry, Journal, JournalError
from controller.journal.snapshots import Snapshots
from controller.rules import Phase
from controller.table import Clearance, Cleared, Step, Table

#: How the alerts a supervisor's void, entered or corrected card clears close.
_CLEARED_BY = {
    "void_hand": Clearance.HAND_VOID,
    "enter_card": Clearance.ENTERED,
    "correct_card": Clearance.CORRECTED,
    "wrong_face": Clearance.HAND_VOID,  # three third-street cards face up: a misdeal
}


@dataclass(frozen=True, slots=True)
class Point:
    """The derivation after journal ``position``: the table then, and when the hand in
    progress started (ms; 0 between hands)."""

    position: int
    table: Table
    started: int = 0


@dataclass(frozen=True, slots=True)
class Derived:
    """Entries after a point, their facts in order, the table's status after them, and the
    point they lead to."""

    entries: tuple[Entry, ...]
    facts: tuple[f.Fact, ...]
    status: f.Status
    point: Point


def point_at(journal: Journal, snapshots: Snapshots, position: int) -> Point:
    """The point after journal ``position`` (0: before the first entry)."""
    recovered = from_snapshot(snapshots, position)
    point = Point(recovered.position, recovered.table)
    if point.position < position:
        point = derive(journal, point, position - point.position).point
    if point.position != position:
        raise JournalError(
            f"journal {journal.path} ends at position {point.position}, before position "
            f"{position}: it is not the journal the floor holds"
        )
    return point


def derive(journal: Journal, start: Point, limit: int) -> Derived:
    """The next ``limit`` entries at most after ``start`` and what they gave."""
    entries = tuple(itertools.islice(journal.entries(start.position), limit))
    recorder = HandRecorder(start.started)
    table = start.table
    out: list[f.Fact] = []
    for entry in entries:
        where = f"journal {journal.path}, position {entry.position}"
        for step in entry_steps(table, entry, where):
            out.extend(facts_of(entry, table, step, recorder))
            table = step.table
    position = entries[-1].position if entries else start.position
    current = recorder.in_progress(table)
    if entries and current is not None:  # the floor's hand in progress stays the journal's
        out.append(f.HandInProgress(position, current.number, current.script_json()))
    last_at = at_of(entries[-1].recorded_at) if entries else None
    point = Point(position, table, recorder.started if table.in_hand else 0)
    return Derived(entries, tuple(out), status_of(table, last_at), point)


def facts_of(entry: Entry, before: Table, step: Step, recorder: HandRecorder) -> list[f.Fact]:
    """The facts of one step (the table was ``before``, it is ``step.table`` after)."""
    after = step.table
    position, at = entry.position, at_of(entry.recorded_at)
    ended = iter(recorder.observe(step))
    signed: dict[str, Any] | None = None  # the step's supervisor action, if any
    out: list[f.Fact] = []
    for effect in step.effects:
        if isinstance(effect, Cleared):
            out.append(_cleared(position, effect, at, signed))
            continue
        data = dict(effect.data)
        match effect.kind:
            case "hand_started":
                out.append(f.HandStarted(position, data["hand"], data["at"], tuple(data["seats"])))
            case "hand_over":
                hand = next(ended)
                item = hand.history_json()
                dealt_in = [hand.hand.player(seat).cards for seat in hand.hand.seats]
                bonus = sum(dealt.bonus for cards in dealt_in for dealt in cards)
                pot = sum(pot["amount"] for pot in item["outcome"]["pots"])
                void = hand.hand.phase is Phase.VOID
                out.append(
                    f.HandEnded(
                        position,
                        hand.number,
                        data["at"],
                        void,
                        pot,
                        bonus,
                        item["recorded"],
                        item["script"],
                        item["outcome"],
                    )
                )
            case "alert":
                out.append(f.AlertRaised(position, after.hand_number, data))
            case "deck_registered":
                out.append(f.DeckRegistered(position, data["deck"], data["at"], data["tags"]))
            case "sit_down" | "rebuy" | "cash_out":
                seat = data["seat"]
                held = (before if effect.kind == "cash_out" else after).seat(seat)
                assert held is not None
                kind = "buy_in" if effect.kind == "sit_down" else effect.kind
                out.append(f.ChipMovement(position, kind, seat, held.player, data["chips"], at))
            case "supervisor":
                signed = data
                out.append(
                    f.SupervisorAction(
                        position,
                        data["type"],
                        data["who"],
                        data["why"],
                        effect.message,
                        after.hand_number,
                        data,
                        at,
                    )
                )
    return out


def _cleared(
    position: int, cleared: Cleared, at: int, signed: dict[str, Any] | None
) -> f.AlertCleared:
    """An alert cleared; by the supervisor when the step's action resolved that alert,
    voided the hand or entered the card (other alerts the same step clears, as the hand
    ends, are not the supervisor's)."""
    alert, how = cleared.alert, cleared.how
    kind = None if signed is None else signed["type"]
    if signed is not None and kind == "resolve_alert" and signed["alert"] == alert:
        return f.AlertCleared(
            position, alert, at, how, signed["who"], signed["why"], signed["remedy"]
        )
    if signed is not None and _CLEARED_BY.get(kind or "") is cleared.by:
        return f.AlertCleared(position, alert, at, how, signed["who"], signed["why"])
    return f.AlertCleared(position, alert, at, how)


def status_of(table: Table, last_entry_at: int | None) -> f.Status:
    """The table's live status: dealing, paused (with its first blocking alert) or idle."""
    blocking = [alert for alert in table.alerts if table.blocks(alert)]
    state = "paused" if blocking else "dealing" if table.in_hand else "idle"
    live = {} if table.hand is None or not table.in_hand else table.hand.stacks()
    seats = tuple(
        {**seat.to_json(), "stack": live.get(seat.seat, seat.stack), "in_hand": seat.seat in live}
        for seat in table.seats
    )
    first = blocking[0] if blocking else None
    deck = table.deck
    return f.Status(
        state,
        table.hand_number,
        table.signals.display,
        None if first is None else first.id,
        None if first is None else first.kind.value,
        None if first is None else first.message,
        len(table.alerts),
        seats,
        last_entry_at,
        table.hand.to_json() if table.hand is not None and table.in_hand else None,
        table.settings.protection.tag_checks,
        None if deck is None else deck.hands,
        None if deck is None else deck.since,
    )
