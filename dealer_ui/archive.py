"""Every past hand of the table, from its journal, for the surveillance role.

The journal is read on a connection of its own (SQLite's WAL lets it read while the
service writes), in a worker thread, and replayed through the table core as
``luck-table history`` does; what was read is kept until the service applies another input.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from controller.cli.hands import RecordedHand, recorded_hands
from controller.journal import Journal
from controller.service import TableService


def _read(path: Path) -> list[RecordedHand]:
    with Journal.open(path, create=False) as journal:
        return list(recorded_hands(journal))


class Archive:
    """The hands of ``service``'s journal, the one in progress (if any) last."""

    def __init__(self, service: TableService) -> None:
        self.service = service
        self._position = -1
        self._hands: list[RecordedHand] = []
        self._lock = asyncio.Lock()

    async def hands(self) -> list[RecordedHand]:
        async with self._lock:
            position = self.service.position
            if position != self._position:
                self._hands = await asyncio.to_thread(_read, self.service.config.journal)
                self._position = position
            return self._hands

    async def hand(self, number: int) -> RecordedHand | None:
        return next((hand for hand in await self.hands() if hand.number == number), None)
