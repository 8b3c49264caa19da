"""The index of hands (:mod:`controller.journal.snapshots`): built for a journal of an
earlier release, and read to take one hand from the journal without replaying it all.

:func:`recorded_hand` replays hand N from the latest snapshot before it through the input
that ended it (the hand in progress: through the journal's end), and gives the same hand,
byte for byte, as replaying the whole journal (:func:`controller.history.hands.recorded_hands`)
does; a journal without an index (one no writer has opened since the index came) is
replayed from the start, as before.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Container, Iterator
from dataclasses import dataclass

from controller.history.hands import HandRecorder, RecordedHand
from controller.journal import Journal, JournalError
from controller.journal.segments import Segment, pruned
from controller.journal.snapshots import EVERY, Snapshots
from controller.records import TABLE
from controller.recovery import Recovered, from_snapshot, initial_table, steps
from controller.table.effects import HandOver
from drivers.events import DeviceId
from drivers.protocol import DeviceKind

log = logging.getLogger(__name__)


def build_index(journal: Journal, snapshots: Snapshots) -> int:
    """Index the hands of a journal that has no index (replaying it all, once), keeping a
    checkpoint snapshot at the end of every ``EVERY``-th hand; the hands indexed."""
    started = time.perf_counter()
    hands: list[tuple[int, int]] = []
    checkpoints: list[tuple[int, int, str]] = []
    devices: dict[DeviceKind, DeviceId] = {}
    for entry, step in steps(journal):
        if entry.source != TABLE and entry.device is not None:
            devices[entry.device.kind] = entry.device
        if not any(isinstance(effect, HandOver) for effect in step.effects):
            continue
        number = step.table.hand_number
        hands.append((number, entry.position))
        if number % EVERY == 0:
            state = Recovered(step.table, entry.position, dict(devices)).state()
            text = json.dumps(state, separators=(",", ":"), sort_keys=True)
            checkpoints.append((entry.position, number, text))
    snapshots.build_index(hands, checkpoints)
    log.info(
        "journal %s: %d hands indexed in %.3f s (a journal of an earlier release)",
        journal.path,
        len(hands),
        time.perf_counter() - started,
    )
    return len(hands)


def readable_from(journal: Journal) -> tuple[Recovered, Segment | None]:
    """Where the journal can be read from: its start, or, when segments of it were pruned,
    the snapshot where the last pruned one ends (and that segment)."""
    gone = [s for s in journal.sealed() if pruned(journal.path, s)]
    if not gone:
        return Recovered(initial_table()), None
    snapshots = Snapshots(journal.path, read_only=True)
    try:
        recovered = from_snapshot(snapshots, gone[-1].last)
    finally:
        snapshots.close()
    if recovered.position != gone[-1].last:
        raise JournalError(
            f"journal {journal.path}: no snapshot where {gone[-1].words()} ends: the hands "
            "after it cannot be read without it"
        )
    return recovered, gone[-1]


@dataclass(frozen=True)
class HandReading:
    """Hand N read from the journal: the hand (None: not in the journal), the position
    read after (the snapshot's; 0: the journal's start), the last one read, and how many
    inputs were replayed."""

    hand: RecordedHand | None
    after: int
    through: int
    replayed: int


def recorded_hand(journal: Journal, number: int) -> HandReading:
    """Hand ``number`` as the journal recorded it, replayed from the latest snapshot
    before it through its end (the index says where it is)."""
    try:
        snapshots = Snapshots(journal.path, read_only=True)
        try:
            after, stop = _where(snapshots, number)
            recovered = from_snapshot(snapshots, after) if after else Recovered(initial_table())
        finally:
            snapshots.close()
    except JournalError as error:  # the snapshots and the index cannot be read: the inputs can
        log.info("%s: replaying from the start", error)
        return _replayed(journal, Recovered(initial_table()), number, None)
    return _replayed(journal, recovered, number, stop)


@dataclass(frozen=True)
class PageReading:
    """A page of hands read from the journal: the hands (those not ``known`` already, and
    the one in progress), the position read after, the last one read, the inputs replayed,
    and the numbers of the page's ended hands, in order."""

    hands: list[RecordedHand]
    after: int
    through: int
    replayed: int
    numbers: list[int]


def recorded_page(
    journal: Journal, before: int | None, count: int, known: Container[int] = ()
) -> PageReading | None:
    """The last ``count`` hands below hand ``before`` (None: the last ``count`` hands and
    the one in progress) as the journal recorded them, but for the ended hands ``known``
    already: replayed from the latest snapshot before the first of them through the last
    (the journal's end for the hand in progress), whatever the journal's age. None: the
    journal has no index of hands (it is replayed from the start instead)."""
    snapshots = Snapshots(journal.path, read_only=True)
    try:
        if not snapshots.indexed():
            return None
        spans = snapshots.hands_before(before, count)
        last = snapshots.last_hand()
        missing = [span for span in spans if span.number not in known]
        current = before is None
        if missing:
            after = missing[0].first - 1
        elif current:
            after = 0 if last is None else last.last
        else:
            return PageReading([], 0, 0, 0, [span.number for span in spans])
        recovered = from_snapshot(snapshots, after) if after else Recovered(initial_table())
    finally:
        snapshots.close()
    replay = _Replay(journal, recovered, None if current else spans[-1].last)
    wanted = {span.number for span in missing}
    newest = 0 if last is None else last.number  # a hand ended since the index's last is new
    hands = [
        hand
        for hand in replay.hands()
        if hand.number in wanted or (current and hand.number > newest)
    ]
    numbers = [span.number for span in spans]
    numbers += [hand.number for hand in hands if hand.number > newest]
    in_progress = replay.in_progress() if current else None
    if in_progress is not None:
        hands.append(in_progress)
    return PageReading(hands, replay.after, replay.position, replay.replayed, numbers)


class _Replay:
    """The journal replayed from ``recovered`` through position ``stop`` (None: its end),
    hand by hand: the table and the position it reached, and the inputs it replayed."""

    def __init__(self, journal: Journal, recovered: Recovered, stop: int | None) -> None:
        self.journal = journal
        self.stop = stop
        self.after = recovered.position
        self.table, self.position, self.replayed = recovered.table, recovered.position, 0
        self.recorder = HandRecorder()

    def hands(self) -> Iterator[RecordedHand]:
        """The hands that end, in order, each as the replay reaches its end."""
        for entry, step in steps(self.journal, self.after, self.table):
            if self.stop is not None and entry.position > self.stop:
                return
            self.replayed += entry.position != self.position  # an entry may give two steps
            self.table, self.position = step.table, entry.position
            yield from self.recorder.observe(step)

    def in_progress(self) -> RecordedHand | None:
        """The hand in progress where the replay is, if any."""
        return self.recorder.in_progress(self.table)


def _where(snapshots: Snapshots, number: int) -> tuple[int, int | None]:
    """Where to read hand ``number``: after which position (the latest snapshot at or
    before it serves) and through which (None: the journal's end)."""
    if not snapshots.indexed():
        return 0, None
    span = snapshots.span(number)
    if span is not None:
        return span.first - 1, span.last
    last = snapshots.last_hand()
    if last is not None and number > last.number:  # the hand in progress, if any
        return last.last, None
    return 0, None  # no hand ended yet, or one the index misses: read it all


def _replayed(journal: Journal, recovered: Recovered, number: int, stop: int | None) -> HandReading:
    """Hand ``number``, replaying the journal from ``recovered`` through ``stop``."""
    replay = _Replay(journal, recovered, stop)
    found = next((hand for hand in replay.hands() if hand.number >= number), None)
    if found is None:
        found = replay.in_progress()
    found = found if found is not None and found.number == number else None
    return HandReading(found, replay.after, replay.position, replay.replayed)
