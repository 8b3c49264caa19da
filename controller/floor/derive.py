"""The facts of a table's journal, derived at the table through the table core.

The same path as recovery and ``luck-table history``: each journal entry is applied with
``controller.recovery.entry_steps`` and each hand recorded as it ends by
``controller.history.hands.HandRecorder``. A :class:`Point` is where the derivation stands (a
journal position, the table after it, when its hand in progress started); :func:`point_at`
rebuilds one at any position (from the latest snapshot at or before it), :func:`derive`
goes on from one for up to ``limit`` entries. An entry the table core cannot read stops a
derivation (:class:`Underivable`, naming it): the shipper keeps it in the floor's quarantine
and steps over it, and so does :func:`point_at`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from controller.floor import facts as f
from controller.history.hands import HandRecorder, RecordedHand
from controller.journal import Entry, Journal, JournalError
from controller.journal.snapshots import Snapshots
from controller.records import at_of
from controller.recovery import entry_steps, from_snapshot
from controller.rules import Phase
from controller.table import Clearance, Cleared, Raised, Step, Table
from controller.table import effects as told
from controller.table import inputs as ti
from controller.table.protection import DeckRegistered

#: How the alerts a supervisor's void, entered or corrected card clears close.
_CLEARED_BY: dict[type[ti.SupervisorInput], Clearance] = {
    ti.VoidHand: Clearance.HAND_VOID,
    ti.EnterCard: Clearance.ENTERED,
    ti.CorrectCard: Clearance.CORRECTED,
    ti.WrongFace: Clearance.HAND_VOID,  # three third-street cards face up: a misdeal
}


class Underivable(JournalError):
    """The table core cannot read journal ``entry`` (the message says why)."""

    def __init__(self, entry: Entry, why: str) -> None:
        super().__init__(why)
        self.entry = entry


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
    """The point after journal ``position`` (0: before the first entry); an entry the table
    core cannot read on the way is stepped over (the floor keeps it in quarantine)."""
    recovered = from_snapshot(snapshots, position)
    point = Point(recovered.position, recovered.table)
    while point.position < position:
        try:
            point = derive(journal, point, position - point.position).point
        except Underivable as error:
            before = error.entry.position - 1
            if before > point.position:
                point = derive(journal, point, before - point.position).point
            point = over(point, error.entry)
    if point.position != position:
        raise JournalError(
            f"journal {journal.path} ends at position {point.position}, before position "
            f"{position}: it is not the journal the floor holds"
        )
    return point


def over(point: Point, entry: Entry) -> Point:
    """The point after ``entry``, one the table core cannot read, right after ``point``:
    the table as it was."""
    return Point(entry.position, point.table, point.started)


def derive(journal: Journal, start: Point, limit: int) -> Derived:
    """The next ``limit`` entries at most after ``start`` and what they gave."""
    entries = tuple(itertools.islice(journal.entries(start.position), limit))
    recorder = HandRecorder(start.started)
    last = Step.of(start.table)
    out: list[f.Fact] = []
    for entry in entries:
        where = f"journal {journal.path}, position {entry.position}"
        try:
            made = entry_steps(last, entry, where)
        except JournalError as error:
            raise Underivable(entry, str(error)) from None
        for step in made:
            out.extend(facts_of(entry, last.table, step, recorder))
            last = step
    table = last.table
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
    ended_hands = iter(recorder.observe(step))
    signed: ti.SupervisorInput | None = None  # the step's supervisor action, if any
    time_charge = 0  # the time charges of the step (they come before its hand starts)
    out: list[f.Fact] = []
    for effect in step.effects:
        match effect:
            case told.TimeCharged(chips=chips):
                time_charge += chips
            case Cleared():
                out.append(_cleared(position, effect, at, signed))
            case told.HandStarted(hand=number, at=started, seats=seats, dealer=dealer):
                out.append(f.HandStarted(position, number, started, seats, dealer, time_charge))
            case told.HandOver(at=ended):
                out.append(_hand_ended(position, ended, next(ended_hands)))
            case Raised():
                out.append(f.AlertRaised(position, after.hand_number, effect.data))
            case DeckRegistered(deck=deck, at=registered):
                out.append(f.DeckRegistered(position, deck, registered, effect.data["tags"]))
            case told.SatDown(seat=seat, chips=chips) | told.Rebought(seat=seat, chips=chips):
                held = after.seat(seat)
                assert held is not None
                kind = f.Movement.BUY_IN if isinstance(effect, told.SatDown) else f.Movement.REBUY
                out.append(
                    f.ChipMovement(position, kind, seat, held.player, chips, at, held.player_id)
                )
            case told.CashedOut(seat=seat, chips=chips):
                gone = before.seat(seat)
                assert gone is not None
                out.append(
                    f.ChipMovement(
                        position, f.Movement.CASH_OUT, seat, gone.player, chips, at, gone.player_id
                    )
                )
            case told.ChangedSeat(seat=seat, to=to):
                out.append(f.SeatChanged(position, seat, to))
            case told.Supervised(item=item):
                signed = item
                out.append(
                    f.SupervisorAction(
                        position,
                        item.tag,
                        item.who,
                        item.why,
                        effect.message,
                        after.hand_number,
                        effect.data,
                        at,
                    )
                )
    return out


def _hand_ended(position: int, at: int, hand: RecordedHand) -> f.HandEnded:
    item = hand.history_json()
    dealt_in = [hand.hand.player(seat).cards for seat in hand.hand.seats]
    bonus = sum(dealt.bonus for cards in dealt_in for dealt in cards)
    outcome = item["outcome"]
    pot = sum(pot["amount"] for pot in outcome["pots"])  # as awarded: net of the take
    void = hand.hand.phase is Phase.VOID
    return f.HandEnded(
        position,
        hand.number,
        at,
        void,
        pot,
        bonus,
        item["recorded"],
        item["script"],
        outcome,
        hand.dealer,
        outcome.get("rake"),  # the keys are there only where the rules set a take
        outcome.get("jackpot_drop"),
    )


def _cleared(
    position: int, cleared: Cleared, at: int, signed: ti.SupervisorInput | None
) -> f.AlertCleared:
    """An alert cleared; by the supervisor when the step's action resolved that alert,
    voided the hand or entered the card (other alerts the same step clears, as the hand
    ends, are not the supervisor's)."""
    alert, how = cleared.alert, cleared.how
    if isinstance(signed, ti.ResolveAlert) and signed.alert == alert:
        remedy = signed.remedy.value
        return f.AlertCleared(position, alert, at, how, signed.who, signed.why, remedy)
    if signed is not None and _CLEARED_BY.get(type(signed)) is cleared.by:
        return f.AlertCleared(position, alert, at, how, signed.who, signed.why)
    return f.AlertCleared(position, alert, at, how)


def status_of(table: Table, last_entry_at: int | None) -> f.Status:
    """The table's live status: dealing, paused (with its first blocking alert) or idle."""
    blocking = [alert for alert in table.alerts if table.blocks(alert)]
    state = "paused" if blocking else "dealing" if table.in_hand else "idle"
    live = {} if table.hand is None or not table.in_hand else table.hand.stacks()
    seats: tuple[f.LiveSeatJson, ...] = tuple(
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
