"""Every past hand of the table, from its journal, for the surveillance role.

The journal is replayed through the table core, as ``luck-table history`` does, in a
process of its own (a pool of one worker, at a lower priority), so that a long replay does
not take the interpreter from the service's event loop. The worker reads the journal on a
connection of its own (SQLite's WAL lets it read while the service writes) and keeps the
table where its last reading stopped: each reading replays only the inputs journaled
since, and sends back only the hands they ended (at most ``HANDS_PER_READING`` at a time,
so that taking them in here is short) and the hand in progress. A worker that dies is
replaced by one that reads from the start.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from controller.cli.hands import HandRecorder, RecordedHand
from controller.journal import Journal
from controller.service import TableService
from controller.service.recovery import initial_table, steps
from controller.table import Table

log = logging.getLogger(__name__)

#: Hands sent back by one reading at most: about 2.5 kB and 0.25 ms each to take in.
HANDS_PER_READING = 20
#: The worker's niceness, added to the service's.
WORKER_NICE = 10


@dataclass(frozen=True)
class Reading:
    """What one reading gives: the journal's position it stopped at, the inputs it
    replayed, the hands they ended, the hand in progress there (if any), and whether the
    journal holds more (the reading stopped at ``HANDS_PER_READING`` hands)."""

    position: int
    replayed: int
    ended: list[RecordedHand]
    current: RecordedHand | None
    more: bool


@dataclass(frozen=True)
class _Replay:
    """The worker's table where its last reading stopped, and when the hand in progress
    there started."""

    position: int = 0
    table: Table = field(default_factory=initial_table)
    started: int = 0


# The worker process's replay of each journal (one: the pool has one worker, for one
# Archive). Module state because it must outlive each call of ``read_on``, which a pool's
# worker runs as a module function: that is what makes the readings incremental.
_replays: dict[Path, _Replay] = {}


def read_on(journal_path: Path, position: int) -> Reading:
    """In the worker: replay the inputs after ``position`` (0: from the start; otherwise
    where the last reading stopped). A reading that fails leaves the replay as it was."""
    replay = _Replay() if position == 0 else _replays[journal_path]
    assert replay.position == position, (replay.position, position)
    table, recorder = replay.table, HandRecorder(replay.started)
    ended: list[RecordedHand] = []
    replayed = 0
    more = False
    with Journal.open(journal_path, create=False) as journal:
        for entry, step in steps(journal, position, table):
            new = entry.position != position  # an entry may give two steps
            if new and len(ended) >= HANDS_PER_READING:
                more = True
                break
            table = step.table
            ended += recorder.observe(step)
            position = entry.position
            replayed += new
    _replays[journal_path] = _Replay(position, table, recorder.started)
    return Reading(position, replayed, ended, recorder.in_progress(table), more)


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
    """The hands of ``service``'s journal, the one in progress (if any) last. The worker
    starts with the first reading; ``close()`` ends it."""

    def __init__(self, service: TableService) -> None:
        self.service = service
        self._pool: ProcessPoolExecutor | None = None
        self._position = 0  # the last journal position read
        self._ended: list[RecordedHand] = []
        self._current: RecordedHand | None = None
        self._lock = asyncio.Lock()

    async def hands(self) -> list[RecordedHand]:
        async with self._lock:
            if self.service.position != self._position:
                await self._read_on()
            return self._ended + ([] if self._current is None else [self._current])

    async def hand(self, number: int) -> RecordedHand | None:
        return next((hand for hand in await self.hands() if hand.number == number), None)

    def close(self) -> None:
        """End the worker (the next reading would start another)."""
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None

    async def _read_on(self) -> None:
        """Take in the hands journaled after the last position read (under the lock)."""
        restarted = False
        more = True
        while more:
            try:
                reading = await self._read(self._position)
            except BrokenProcessPool:
                if restarted:
                    raise
                log.warning("the past hands' worker died: a new one reads from the start")
                self.close()
                self._position, self._ended, restarted = 0, [], True
                continue
            self._position, self._current, more = reading.position, reading.current, reading.more
            self._ended += reading.ended

    async def _read(self, position: int) -> Reading:
        if self._pool is None:
            self._pool = _pool()
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._pool, read_on, self.service.config.journal, position
        )
