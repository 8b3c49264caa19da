"""The ``--core-only`` run's journal writer in a process of its own
(``controller.sim.journal_writer``): what the run learns when the writer fails, dies or
stalls, and that it never holds more than ``AHEAD`` hands unwritten."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from controller.journal import Journal, JournalError
from controller.journal.rotation import Rotation
from controller.sim import journal_writer
from controller.sim.journal_writer import AHEAD, Hand, JournalWriter
from controller.table import TableInput
from controller.table import inputs as ti
from drivers.protocol import DeviceKind
from tests.waiting import wait_until

pytestmark = pytest.mark.slow  # the journal writer's processes


def inputs(count: int) -> list[TableInput]:
    return [ti.Tick(at=1_700_000_000_000 + n) for n in range(count)]


def test_hands_are_written_in_order_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    writer = JournalWriter(path, Rotation(0, 0))
    position = 0
    for _ in range(3 * AHEAD):  # more than it holds unwritten
        position += 5
        writer.write(Hand(inputs(5), position))
    writer.close()
    with Journal.open_read_only(path) as journal:
        assert [entry.position for entry in journal.entries()] == list(range(1, position + 1))


def test_a_hand_that_cannot_be_written_stops_the_run_with_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    writer = JournalWriter(path, Rotation(0, 0))
    writer.write(Hand(inputs(3), 3))
    writer.write(Hand(inputs(3), 7))  # the run's count is off by one: positions 4 to 6
    with pytest.raises(
        JournalError, match=r"j\.sqlite3: a hand of inputs 5 to 7 after position 3: inputs not"
    ):
        writer.write(Hand(inputs(1), 8))
        writer.close()
    with Journal.open_read_only(tmp_path / "j.sqlite3") as journal:  # nothing of it or after
        assert [entry.position for entry in journal.entries()] == [1, 2, 3]
    writer = JournalWriter(tmp_path / "k.sqlite3", Rotation(0, 0))
    writer.write(Hand(inputs(3), 4))
    with pytest.raises(JournalError, match="inputs not written in order"):  # the next write
        wait_until(lambda: writer.write(Hand(inputs(1), 5)), "the writer's error", 30, poll=0.05)
    with pytest.raises(JournalError, match="inputs not written in order"):  # and the close
        writer.close()


def test_an_input_its_record_does_not_stand_for_stops_the_run(tmp_path: Path) -> None:
    writer = JournalWriter(tmp_path / "j.sqlite3", Rotation(0, 0))
    second_boot = ti.LinkUp(at=1_700_000_000_000, device=DeviceKind.SHOE, boot=2, next_seq=0)
    writer.write(Hand([*inputs(2), second_boot], 3))  # the modelled shoe boots once only
    with pytest.raises(JournalError, match=r"j\.sqlite3, input 3: its record stands for"):
        writer.close()
    with Journal.open_read_only(tmp_path / "j.sqlite3") as journal:
        assert list(journal.entries()) == []  # none of the hand's inputs


def test_a_writer_killed_is_named_at_the_next_write(tmp_path: Path) -> None:
    writer = JournalWriter(tmp_path / "j.sqlite3", Rotation(0, 0))
    writer.write(Hand(inputs(2), 2))
    pid = writer._process.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    writer._process.wait(10)
    with pytest.raises(JournalError, match=r"its writer stopped \(exit code -9\)"):
        for position in range(3, 3 + 2 * AHEAD):
            writer.write(Hand(inputs(1), position))
        writer.close()


def test_a_stalled_writer_holds_the_run_at_most_ahead_hands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = JournalWriter(tmp_path / "j.sqlite3", Rotation(0, 0))
    # patience shortened once the writer is open (a loaded machine can take 2 s to start it)
    monkeypatch.setattr(journal_writer, "PATIENCE", 2.0)
    pid = writer._process.pid
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)
    try:
        for position in range(1, AHEAD + 1):  # these go, unwritten
            writer.write(Hand(inputs(1), position))
        started = time.monotonic()
        with pytest.raises(JournalError, match="its writer wrote nothing for 2 s"):
            writer.write(Hand(inputs(1), AHEAD + 1))
        assert 1.5 < time.monotonic() - started < 10
    finally:
        os.kill(pid, signal.SIGCONT)
    with pytest.raises(JournalError, match="wrote nothing"):
        writer.close()


def test_a_journal_that_cannot_be_opened_is_refused_at_once(tmp_path: Path) -> None:
    folder = tmp_path / "gone"
    with pytest.raises(JournalError, match="gone"):
        JournalWriter(folder / "j.sqlite3", Rotation(0, 0))
