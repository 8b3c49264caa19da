"""Every past hand of the table, from its journal, for the surveillance role.

The journal is replayed through the table core, as ``luck-table history`` does, in a
process of its own (a pool of one worker, at a lower priority), so that a long replay does
not take the interpreter from the service's event loop. The worker reads the journal on a
connection of its own (SQLite's WAL lets it read while the service writes; the journal's
segments as its file), and what the service gets back is only what the request answers
(a page of the hands' summaries, or one hand's record).

A page of hands (the last ``count`` below a hand, or the last ones with the hand in
progress) is read from the latest snapshot before its first hand through its last (the
journal's index of hands: :mod:`controller.history.index`), however old the journal; the
worker keeps the summary of each ended hand it has read (an ended hand never changes), so
that the next page asks only for the hands it has not read, and the hand in progress.
One hand's record is read the same way, from the latest snapshot before it through its end.
A journal without an index (one no writer has opened since the index came) is replayed
whole, once, the worker keeping the table where its last reading stopped with the hands so
far, each request replaying only the inputs journaled since. The hands themselves stay in
the worker: held in the service's process, their millions of objects made each of its
full garbage collections long enough to delay a card (docs/performance.md). A worker that
dies is replaced by one that reads afresh.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.history.hands import HandRecorder, HandSummaryJson, HistoryJson, RecordedHand
from controller.history.index import recorded_hand, recorded_page
from controller.history.script import history
from controller.journal import Journal
from controller.recovery import initial_table, steps
from controller.rules.hand import HandJson
from controller.table import Table

log = logging.getLogger(__name__)

#: The worker's niceness, added to the service's.
WORKER_NICE = 10
#: Hands in a page of summaries, unless asked otherwise.
PAGE = 50


class ArchivedHandJson(HistoryJson):
    """A past hand as ``GET /api/history/{number}`` gives it (``dealer_ui.app.HandOut``):
    ``luck-table history --json``'s record, its history text and the hand as the table
    recorded it."""

    history: str
    recorded_hand: HandJson


@dataclass(frozen=True)
class Reading:
    """The worker's account of one reading: the journal position it read after, the one it
    stopped at, and how many inputs it replayed."""

    after: int
    position: int
    replayed: int


@dataclass(frozen=True)
class _Replay:
    """The worker's table where its last reading stopped, when the hand in progress there
    started, and the hands ended so far with their summaries (made once)."""

    position: int = 0
    table: Table = field(default_factory=initial_table)
    started: int = 0
    ended: tuple[RecordedHand, ...] = ()
    summaries: tuple[HandSummaryJson, ...] = ()

    def current(self) -> RecordedHand | None:
        return HandRecorder(self.started).in_progress(self.table)

    def hands(self) -> list[RecordedHand]:
        current = self.current()
        return [*self.ended, *([] if current is None else [current])]


# The worker process's replay of each journal (one: the pool has one worker, for one
# Archive). Module state because it must outlive each call, which a pool's worker runs as
# a module function: that is what makes the readings incremental.
_replays: dict[Path, _Replay] = {}
#: The summaries of the ended hands the worker has read, by journal and hand number.
_summaries: dict[Path, dict[int, HandSummaryJson]] = {}


def _read_on(journal_path: Path) -> tuple[_Replay, Reading]:
    """In the worker: replay the inputs journaled after the last reading (all of them the
    first time). A reading that fails leaves the replay as it was."""
    replay = _replays.get(journal_path, _Replay())
    after = position = replay.position
    table, recorder = replay.table, HandRecorder(replay.started)
    ended: list[RecordedHand] = []
    replayed = 0
    with Journal.open(journal_path, create=False) as journal:
        for entry, step in steps(journal, replay.position, table):
            replayed += entry.position != position  # an entry may give two steps
            table, position = step.table, entry.position
            ended += recorder.observe(step)
    replay = _replays[journal_path] = _Replay(
        position,
        table,
        recorder.started,
        replay.ended + tuple(ended),
        replay.summaries + tuple(hand.summary() for hand in ended),
    )
    return replay, Reading(after, position, replayed)


def summaries(
    journal_path: Path, before: int | None = None, count: int = PAGE
) -> tuple[Reading, list[HandSummaryJson]]:
    """In the worker: the summaries of the last ``count`` hands below hand ``before``
    (None: the last ``count`` hands, the one in progress last), in order."""
    known = _summaries.setdefault(journal_path, {})
    with Journal.open(journal_path, create=False) as journal:
        page = recorded_page(journal, before, count, known)
    if page is None:  # no index of hands: the whole journal, replayed once
        replay, reading = _read_on(journal_path)
        current = replay.current()
        every = [*replay.summaries, *([] if current is None else [current.summary()])]
        below = [item for item in every if before is None or item["hand"] < before]
        return reading, below[-count:]
    in_progress = []
    for hand in page.hands:
        if hand.ended is None:
            in_progress.append(hand.summary())
        else:
            known[hand.number] = hand.summary()
    listed = [known[number] for number in page.numbers] + in_progress
    return Reading(page.after, page.through, page.replayed), listed[-count:]


def hand_record(journal_path: Path, number: int) -> tuple[Reading, ArchivedHandJson | None]:
    """In the worker: hand ``number`` as ``GET /api/history/{number}`` gives it (None: not
    in the journal), read from the latest snapshot before it through its end (the
    journal's index of hands), not from the worker's replay of every hand."""
    with Journal.open(journal_path, create=False) as journal:
        read = recorded_hand(journal, number)
    reading, hand = Reading(read.after, read.through, read.replayed), read.hand
    if hand is None:
        return reading, None
    played = hand.replay()  # once, for the record and its text
    return reading, {
        **hand.history_json(played),
        "history": history(played),
        "recorded_hand": hand.hand.to_json(),
    }


def _pool() -> ProcessPoolExecutor:
    # spawned, not forked: the service's process has threads (the journal's commits, the
    # floor's shipper) and a fork could copy a lock one of them holds. At a lower priority
    # (nice 10): on a machine with few cores the table's cards come first, the replay after.
    return ProcessPoolExecutor(
        max_workers=1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=os.nice,
        initargs=(WORKER_NICE,),
    )


class Archive:
    """The past hands of the journal at ``journal``, asked of the worker process, which
    starts with the first request; ``close()`` ends it."""

    def __init__(self, journal: Path) -> None:
        self.journal = journal
        self._pool: ProcessPoolExecutor | None = None

    async def summaries(
        self, before: int | None = None, count: int = PAGE
    ) -> list[HandSummaryJson]:
        """The summaries of the last ``count`` hands below hand ``before`` (None: the last
        ones, the one in progress last), in order."""
        result: list[HandSummaryJson] = await self._ask(summaries, before, count)
        return result

    async def hand(self, number: int) -> ArchivedHandJson | None:
        """Hand ``number``'s record, or None when it is not in the journal."""
        result: ArchivedHandJson | None = await self._ask(hand_record, number)
        return result

    def close(self) -> None:
        """End the worker (the next request would start another)."""
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None

    async def _ask(self, question: Callable[..., tuple[Reading, Any]], *args: Any) -> Any:
        """The worker's answer; a dead worker is replaced once (the new one reads from the
        start)."""
        try:
            _, answer = await self._run(question, *args)
        except BrokenProcessPool:
            log.warning("the past hands' worker died: a new one reads from the start")
            self.close()
            _, answer = await self._run(question, *args)
        return answer

    async def _run(
        self, question: Callable[..., tuple[Reading, Any]], *args: Any
    ) -> tuple[Reading, Any]:
        if self._pool is None:
            self._pool = _pool()
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, question, self.journal, *args)
