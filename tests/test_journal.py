"""The journal on real SQLite files: order, dedupe by device boot and seq, refusals."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from controller.journal import Journal, JournalError, event_of, to_input
from drivers import events as ev
from drivers.events import DeviceId
from drivers.protocol import DeviceKind, Disposition, FaultCode

SHOE = ev.DeviceInfo(DeviceKind.SHOE, "SHOE-1", 0xC0FFEE, "/dev/pts/3", (1, 2, 3), 1)
SEATS = ev.DeviceInfo(DeviceKind.SEAT_BOARD, "SEATS-7", 9, "socket://127.0.0.1:5555", (2, 0, 0), 1)


def inputs(events, info=SHOE, at=1_800_000_000.0):
    device = info.id
    return [to_input(event, device, at + n) for n, event in enumerate(events)]


def cards(first_seq, codes):
    """Cards read from ``first_seq`` on (16-bit, wrapping); the read counter is the seq."""
    seqs = [(first_seq + n) % 65536 for n in range(len(codes))]
    return [
        ev.CardRead(seq, code, seq, b"\x04" + seq.to_bytes(2))
        for seq, code in zip(seqs, codes, strict=True)
    ]


@pytest.fixture
def journal(tmp_path):
    with Journal.open(tmp_path / "table.journal") as opened:
        yield opened


def test_every_kind_of_event_reads_back_in_order_and_equal(journal):
    events = [
        ev.LinkUp(SHOE, "HELLO from the shoe"),
        ev.DeckLoaded(0, 7, 52, 52),
        ev.CardRead(1, 51, 0, b"\x04\x00\x00\x00\x07\x00\x00"),
        ev.CardUnreadable(2, 1, Disposition.DEALT_UNREAD),
        ev.DeviceFault(3, FaultCode.LID_OPEN),
        ev.DeviceFaultCleared(4, FaultCode.LID_OPEN),
        ev.LinkDown(ev.LinkDownReason.SILENCE, "nothing received for 3.00 s"),
    ]
    seat_events = [
        ev.LinkUp(SEATS, "restarted", previous_boot_id=8, lost=(ev.LostEvents(8, 65535, 3),)),
        ev.SeatOccupied(0, 3),
        ev.CardAtSeat(1, 3, 51),
        ev.CardAtSeat(2, 3, None),
        ev.SeatVacated(3, 3),
    ]
    assert journal.append(inputs(events)) == [1, 2, 3, 4, 5, 6, 7]
    assert journal.append(inputs(seat_events, SEATS)) == [8, 9, 10, 11, 12]
    entries = list(journal.entries())
    assert [entry.position for entry in entries] == list(range(1, 13))
    assert [event_of(entry) for entry in entries] == events + seat_events
    card = entries[2]
    assert (card.source, card.type, card.seq, card.event_number) == ("device", "CardRead", 1, 1)
    assert card.fields == {"card": 51, "read_counter": 0, "uid": "04000000070000"}
    assert card.device == DeviceId(DeviceKind.SHOE, "SHOE-1", 0xC0FFEE)
    assert entries[0].source == "link" and entries[0].seq is None
    assert [entry.position for entry in journal.entries(after=10)] == [11, 12]


def test_a_redelivered_event_is_dropped_and_reported(journal):
    first = cards(0, [51, 8, 0, 17])
    assert journal.append(inputs(first)) == [1, 2, 3, 4]
    # a restarted host gets the unacknowledged tail again, then new events
    again = inputs(first[2:] + cards(4, [30, 31]))
    assert journal.append(again) == [None, None, 5, 6]
    # twice in one batch: kept once
    assert journal.append(inputs(cards(6, [40]) * 2)) == [7, None]
    held = [(e.seq, e.fields["card"]) for e in journal.entries()]
    assert held == [(0, 51), (1, 8), (2, 0), (3, 17), (4, 30), (5, 31), (6, 40)]


def test_the_same_seq_of_another_boot_or_device_is_another_event(journal):
    rebooted = replace(SHOE, boot_id=SHOE.boot_id + 1)
    other = replace(SHOE, serial="SHOE-2")
    for info in (SHOE, rebooted, other):
        assert journal.append(inputs(cards(0, [5]), info)) != [None]
    assert len(list(journal.entries())) == 3


def test_sequence_numbers_wrap_within_a_boot(journal):
    wrapping = cards(65534, [1, 2, 3, 4])
    assert journal.append(inputs(wrapping)) == [1, 2, 3, 4]
    numbers = [(e.seq, e.event_number) for e in journal.entries()]
    assert numbers == [(65534, 65534), (65535, 65535), (0, 65536), (1, 65537)]
    assert journal.append(inputs(wrapping[1:3])) == [None, None]


def test_a_gap_is_kept_as_a_gap(journal):
    """A device that lost events (it no longer held them) goes on from a later number."""
    assert journal.append(inputs(cards(0, [1]) + cards(5, [2]))) == [1, 2]
    assert [e.event_number for e in journal.entries()] == [0, 5]


def test_a_conflicting_event_writes_nothing_of_its_batch(journal):
    journal.append(inputs(cards(0, [1, 2])))
    forged = inputs([*cards(2, [3]), ev.CardRead(1, 50, 1, b"\x04\x01")])
    with pytest.raises(JournalError, match=r"seq 1 is CardRead .* holds CardRead .* position 2"):
        journal.append(forged)
    assert len(list(journal.entries())) == 2
    assert journal.append(inputs(cards(2, [3]))) == [3]


def test_an_event_older_than_the_boots_first_is_refused(journal):
    journal.append(inputs(cards(10, [1])))
    with pytest.raises(JournalError, match="before the first event journaled for that boot"):
        journal.append(inputs(cards(9, [2])))


def test_a_device_event_needs_the_link_up_before_it():
    with pytest.raises(JournalError, match="CardRead seq 0 came before any LinkUp"):
        to_input(cards(0, [1])[0], None, 0.0)


def test_it_survives_a_reopen_and_goes_on_numbering(tmp_path):
    path = tmp_path / "j.sqlite"
    with Journal.open(path) as journal:
        journal.append(inputs(cards(0, [1, 2])))
    with Journal.open(path) as journal:
        assert journal.append(inputs(cards(1, [2, 3]))) == [None, 3]
        assert [e.fields["card"] for e in journal.entries()] == [1, 2, 3]
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_it_is_append_only(journal):
    journal.append(inputs(cards(0, [1, 2])))
    with sqlite3.connect(journal.path) as raw:
        with pytest.raises(sqlite3.DatabaseError, match="append-only: inputs cannot be changed"):
            raw.execute("UPDATE inputs SET fields = '{}' WHERE position = 1")
        with pytest.raises(sqlite3.DatabaseError, match="append-only: inputs cannot be deleted"):
            raw.execute("DELETE FROM inputs")
    assert len(list(journal.entries())) == 2


def test_a_journal_of_another_version_is_refused(tmp_path):
    path = tmp_path / "future.journal"
    Journal.open(path).close()
    with sqlite3.connect(path) as raw:
        raw.execute("UPDATE schema_version SET version = 2")
    with pytest.raises(JournalError, match="journal of version 2; this luck-table reads version 1"):
        Journal.open(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"hand 1: seat 3 calls\n" * 100, "is not a luck-table journal"),
        ("CREATE TABLE hands (id INTEGER)", "an SQLite database but not a luck-table journal"),
        ("PRAGMA application_id = 7", "an SQLite database but not a luck-table journal"),
    ],
)
def test_a_file_that_is_not_a_journal_is_refused_and_left_alone(tmp_path, content, message):
    path = tmp_path / "other"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        with sqlite3.connect(path) as raw:
            raw.execute(content)
    before = path.read_bytes()
    with pytest.raises(JournalError, match=message):
        Journal.open(path)
    assert path.read_bytes() == before


def test_an_empty_file_becomes_a_journal_but_a_missing_one_is_not_made_for_reading(tmp_path):
    empty = tmp_path / "empty"
    empty.touch()
    Journal.open(empty).close()
    with pytest.raises(JournalError, match=r"no journal at .*missing"):
        Journal.open(tmp_path / "missing", create=False)
    assert not (tmp_path / "missing").exists()
    with pytest.raises(JournalError, match="cannot open journal"):
        Journal.open(tmp_path / "no-such-folder" / "j")


def test_the_example_in_docs_monitor_md_runs_as_written(tmp_path, monkeypatch, capsys):
    text = (Path(__file__).resolve().parent.parent / "docs" / "monitor.md").read_text()
    (example,) = re.findall(r"```python\n(.*?)```", text, re.S)
    monkeypatch.chdir(tmp_path)
    exec(compile(example, "docs/monitor.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed[:2] == ["[1, 2]", "[None]"]
    assert printed[2].startswith("1 LinkUp LinkUp(") and printed[3].startswith("2 CardRead Card")


def test_commits_leave_the_log_to_a_checkpoint_that_a_reader_does_not_block(tmp_path):
    """With timed checkpoints (the table service's), 1,500 commits (more pages than SQLite's
    automatic checkpoint at 1000 would let grow) copy nothing into the journal's file;
    ``checkpoint`` does, beside an open reader's
    transaction, and every entry reads back after it."""
    path = tmp_path / "j.sqlite"
    with Journal.open(path, durable=False, timed_checkpoints=True) as journal:
        size = path.stat().st_size
        for seq in range(1500):
            journal.append(inputs(cards(seq, [seq % 52])))
        assert path.stat().st_size == size
        with Journal.open(path, create=False) as reader:
            read = reader.entries()
            assert next(read).position == 1  # its read transaction stays open
            journal.checkpoint()
            assert path.stat().st_size > size + 1000 * 100
            assert sum(1 for _ in read) == 1499
        journal.checkpoint()
        assert [e.fields["card"] for e in journal.entries()] == [n % 52 for n in range(1500)]
