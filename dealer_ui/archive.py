"""Every past hand of the table, from its journal, for the surveillance role.

The journal is read on a connection of its own (SQLite's WAL lets it read while the
service writes), in a worker thread, and replayed through the table core as
``luck-table history`` does. Each reading goes on from where the last one stopped: the
inputs journaled since are replayed on the table as it was then, so that a long journal
is replayed once, not again after every input.
"""

from __future__ import annotations

import asyncio

from controller.cli.hands import HandRecorder, RecordedHand
from controller.journal import Journal
from controller.service import TableService
from controller.service.recovery import initial_table, steps


class Archive:
    """The hands of ``service``'s journal, the one in progress (if any) last."""

    def __init__(self, service: TableService) -> None:
        self.service = service
        self._position = 0  # the last journal position read
        self._table = initial_table()
        self._recorder = HandRecorder()
        self._ended: list[RecordedHand] = []
        self._lock = asyncio.Lock()

    async def hands(self) -> list[RecordedHand]:
        async with self._lock:
            if self.service.position != self._position:
                await asyncio.to_thread(self._read_on)
            current = self._recorder.in_progress(self._table)
            return self._ended + ([] if current is None else [current])

    async def hand(self, number: int) -> RecordedHand | None:
        return next((hand for hand in await self.hands() if hand.number == number), None)

    def _read_on(self) -> None:
        """Replay the inputs journaled after the last position read (under the lock)."""
        with Journal.open(self.service.config.journal, create=False) as journal:
            for entry, step in steps(journal, self._position, self._table):
                self._table = step.table
                self._ended += self._recorder.observe(step)
                self._position = entry.position
