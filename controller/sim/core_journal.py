"""The journal of a ``--core-only`` run, written exactly as the table service writes its own.

The table takes each input as it comes; the input goes to the journal as the service's
record of it (:mod:`.core_records`: the devices' events as the drivers report them,
people's inputs as the table's records), checked to stand for that very input, and at each
hand's end the journal gets a snapshot and the hand its place in the index of hands. The
inputs of a hand are recorded and written in one transaction when it ends (and the rest
when the run ends), by a writer in a process of its own (:mod:`.journal_writer`) while the
next hands are dealt: what makes a month of journal in minutes. The journal then recovers
to the table the run ended with, and replays to the same hands.
"""

from __future__ import annotations

from pathlib import Path

from controller.journal import JournalError
from controller.journal.rotation import Rotation
from controller.sim.journal_writer import Hand, JournalWriter
from controller.table import Step, TableInput
from controller.table.effects import HandOver


class CoreJournal:
    """A new journal at ``path`` (an existing file is refused), written as the run goes;
    ``rotation``: it rotates into segments as the service's does (default: never)."""

    def __init__(self, path: Path, rotation: Rotation | None = None) -> None:
        if path.exists():
            raise JournalError(
                f"journal {path}: the file exists; a run starts a journal of its own"
            )
        self._writer = JournalWriter(path, Rotation(0, 0) if rotation is None else rotation)
        self._pending: list[TableInput] = []
        self._position = 0  # the position of the last input (written or pending)

    def record(self, item: TableInput) -> tuple[TableInput, ...]:
        """Journal ``item`` (pending until its hand ends); the table inputs to apply in
        turn, each then passed to :meth:`applied`: ``item`` (its record stands for it
        alone, as the writer checks)."""
        self._pending.append(item)
        self._position += 1
        return (item,)

    def applied(self, step: Step) -> None:
        """The table took the last input: at a hand's end, the hand's inputs go to the
        writer (one transaction), with the table for its snapshot."""
        if not any(isinstance(effect, HandOver) for effect in step.effects):
            return
        self._writer.write(Hand(self._pending, self._position, step.table.to_json()))
        self._pending = []

    def close(self) -> None:
        """Write what is pending, wait for the writer and close the journal; raises
        :class:`JournalError` if any of it could not be written."""
        try:
            if self._pending:
                self._writer.write(Hand(self._pending, self._position))
                self._pending = []
        finally:
            self._writer.close()
