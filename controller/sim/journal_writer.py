"""The writer of a ``--core-only`` run's journal, in a process of its own.

The run's process deals (:mod:`.core_journal`); at each hand's end it sends the hand here:
its table inputs, the position of its last and the table after it. This process makes each
input's record (:mod:`.core_records`, checked to stand for that input) and writes them as
the table service does (:class:`~controller.journal.Journal`,
:class:`~controller.journal.snapshots.Snapshots`): the records in one transaction, then the
table's snapshot and the hand's place in the index, then a rotation when one is due.
Meanwhile the run deals the next hands on the other CPU.

At most :data:`AHEAD` hands are sent and not yet written: beyond, the run waits for the
writer (what is held in memory stays bounded). Each hand written is answered (None, or the
reason it could not be written, after which the writer writes nothing more and ends), so
the run learns of a failure within a few hands and stops there; its
:meth:`JournalWriter.close` waits for every hand sent.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

import controller
from controller.journal import Journal, JournalError
from controller.journal.rotation import Rotation, due, rotate
from controller.journal.snapshots import Snapshots
from controller.recovery import snapshot_state
from controller.sim.core_records import CoreRecords
from controller.table import TableInput
from controller.table.state import TableJson

#: Hands sent to the writer and not yet written, at most: enough that the run deals on while
#: the writer seals a segment (a rotation, about as long as 30 hands), and what waits in
#: memory stays a few megabytes.
AHEAD = 64
#: Seconds to wait for the writer to start, or to write what it was sent, before it is
#: taken for stuck.
PATIENCE = 60.0


@dataclass(frozen=True, slots=True)
class Hand:
    """What is written at once: the table's ``inputs``, the last at position ``last``;
    with the ``table`` after it when they end a hand, as its snapshot holds it
    (:meth:`Table.to_json`: made on the run's side, it crosses to the writer as plain
    values), none at the run's end (the inputs after the last hand)."""

    inputs: list[TableInput]
    last: int
    table: TableJson | None = None


class JournalWriter:
    """A new journal at ``path``, written by a process of its own, rotating as ``rotation``
    says (segments sealed unpaced: no table waits on this process)."""

    def __init__(self, path: Path, rotation: Rotation) -> None:
        self.path = path
        ours, theirs = socket.socketpair()
        with ours, theirs:
            arguments = [str(theirs.fileno()), str(path), str(rotation.hands)]
            self._process = subprocess.Popen(
                [sys.executable, "-P", "-c", _MAIN, *arguments, str(rotation.megabytes)],
                pass_fds=[theirs.fileno()],
                env={**os.environ, "PYTHONPATH": _search_path()},
            )
            self._connection = Connection(ours.detach())
        self._ahead = 0
        self._failure: str | None = None
        try:
            self._answer()  # opened, or why not
        except BaseException:
            self._stop()
            raise

    def write(self, hand: Hand) -> None:
        """Send ``hand`` to be written (waiting while :data:`AHEAD` hands are); raises
        :class:`JournalError` once a hand sent before could not be written."""
        while self._ahead and (self._ahead >= AHEAD or self._connection.poll()):
            self._answer()
            self._ahead -= 1
        try:
            self._connection.send(hand)
        except OSError:
            while True:  # the writer is gone: its last answers, then why
                self._answer()
                self._ahead -= 1
        self._ahead += 1

    def close(self) -> None:
        """Wait for every hand sent to be written, and the journal closed; raises
        :class:`JournalError` if one could not be."""
        try:
            while self._ahead:
                self._ahead -= 1
                self._answer()
        finally:
            self._stop()

    def _answer(self) -> None:
        """Take the writer's next answer; raises :class:`JournalError` for a failure (this
        one or an earlier one: after a failure nothing more is written)."""
        if self._failure is None:
            self._failure = self._next_answer()
        if self._failure is not None:
            raise JournalError(self._failure)

    def _next_answer(self) -> str | None:
        """The writer's next answer: None (written) or what went wrong."""
        waited = 0.0
        while waited < PATIENCE:
            try:
                if self._connection.poll(1.0):
                    answer: str | None = self._connection.recv()
                    return answer
            except (EOFError, OSError):  # the writer is gone
                break
            if self._process.poll() is not None:
                break
            waited += 1.0
        else:
            return f"journal {self.path}: its writer wrote nothing for {PATIENCE:g} s"
        code = self._process.wait(PATIENCE)
        return f"journal {self.path}: its writer stopped (exit code {code})"

    def _stop(self) -> None:
        with contextlib.suppress(OSError):  # the writer is gone already
            self._connection.send(None)
        try:
            self._process.wait(PATIENCE)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._connection.close()


#: The writer process's program: :func:`serve` with its arguments (run with ``-P``: the
#: working folder is not searched, the ``controller`` of :func:`_search_path` is found).
_MAIN = "import sys; from controller.sim.journal_writer import serve; serve(sys.argv[1:])"


def _search_path() -> str:
    """Where the writer finds this very ``controller`` (first), then what this process's
    ``PYTHONPATH`` names."""
    found = str(Path(controller.__file__).resolve().parent.parent)
    return os.pathsep.join(filter(None, [found, os.environ.get("PYTHONPATH")]))


def serve(arguments: Sequence[str]) -> None:
    """The writer's process: its end of the socket, the journal's path and the rotation's
    hands and megabytes."""
    descriptor, path, hands, megabytes = arguments
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the run, which stops this
    with Connection(int(descriptor)) as connection:
        _write(Path(path), Rotation(int(hands), int(megabytes)), connection)


def _write(path: Path, rotation: Rotation, connection: Connection) -> None:
    """Open the journal, answer, then write each hand sent until None comes (or the run's
    process is gone)."""
    try:
        writer = _Writer(path, rotation)
    except JournalError as error:
        connection.send(str(error))
        return
    connection.send(None)
    try:
        while (hand := connection.recv()) is not None:
            failure = writer.written(hand)
            connection.send(failure)
            if failure is not None:
                return  # nothing after a hand that could not be written
    except EOFError:  # the run's process is gone: what it sent is written
        pass
    finally:
        writer.close()


class _Writer:
    """The journal at ``path`` (new), its snapshots and the records of the inputs written
    so far; it rotates as ``rotation`` says."""

    def __init__(self, path: Path, rotation: Rotation) -> None:
        self.rotation = rotation
        self.records = CoreRecords()
        self.last = 0  # the position of the last input written
        self.journal = Journal.open(path, durable=False)  # not synced: a crash, a new run
        try:
            self.snapshots = Snapshots(path, durable=False)
            self._asked = sqlite3.connect(path)  # whether a rotation is due, each hand
        except BaseException:
            self.journal.close()
            raise

    def written(self, hand: Hand) -> str | None:
        """Write ``hand``, whose first input must follow the last written; None, or why it
        could not be written (then nothing of it is)."""
        journal = self.journal
        first = hand.last - len(hand.inputs) + 1
        if first != self.last + 1:
            return (
                f"journal {journal.path}: a hand of inputs {first} to {hand.last} after "
                f"position {self.last}: inputs not written in order"
            )
        try:
            if hand.inputs:
                made = [
                    self.records.record(item, f"journal {journal.path}, input {position}")
                    for position, item in enumerate(hand.inputs, first)
                ]
                if journal.append(made) != list(range(first, hand.last + 1)):
                    return f"journal {journal.path}: inputs not written in order"
            self.last = hand.last
            if hand.table is not None:
                number = hand.table["hand_number"]
                state = snapshot_state(hand.table, self.records.devices)
                self.snapshots.save(hand.last, number, state)
                if due(journal.path, number, self.rotation, connection=self._asked):
                    rotate(journal.path, hand.last, durable=False, paced=False)
        except JournalError as error:
            return str(error)
        return None

    def close(self) -> None:
        self._asked.close()
        self.snapshots.close()
        self.journal.close()
