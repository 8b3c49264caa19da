"""One writer per journal (an OS lock held while a process writes it), the journal's
identity, and its hash chain, including journals of the earlier release."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.journal import Entry, Input, Journal, JournalError, JournalLocked
from controller.journal.chain import ORIGIN, link, linked, stored
from controller.journal.store import chain_of, check_no_writer
from drivers.events import DeviceId
from drivers.protocol import DeviceKind
from tests.hypothesis_profiles import examples
from tests.service_kit import simulator, write_config
from tests.waiting import wait_until

LUCK_TABLE = str(Path(sys.executable).parent / "luck-table")
DEADLINE = 60.0
SILENCE_TOLERANT_LINK = "backoff_initial = 0.05\nbackoff_max = 0.2\nsilence_timeout = 30.0"

#: The journal's schema as the earlier release made it: no chain, no identity.
EARLIER_SCHEMA = """
PRAGMA application_id = 1280656203;
PRAGMA journal_mode = WAL;
CREATE TABLE schema_version (format TEXT NOT NULL, version INTEGER NOT NULL,
    created_at REAL NOT NULL);
CREATE TABLE inputs (position INTEGER PRIMARY KEY, recorded_at REAL NOT NULL,
    source TEXT NOT NULL, type TEXT NOT NULL, fields TEXT NOT NULL CHECK (json_valid(fields)),
    device_kind TEXT, serial TEXT, boot_id INTEGER, seq INTEGER, event_number INTEGER);
CREATE TRIGGER inputs_no_update BEFORE UPDATE ON inputs
    BEGIN SELECT RAISE(ABORT, 'the journal is append-only: inputs cannot be changed'); END;
INSERT INTO schema_version VALUES ('luck-table journal', 1, 1800000000.0);
"""
#: A journal of the earlier release with two entries.
EARLIER = (
    EARLIER_SCHEMA
    + """
INSERT INTO inputs (recorded_at, source, type, fields) VALUES
    (1800000001.0, 'table', 'sit_down', '{"seat":1}'),
    (1800000002.0, 'table', 'sit_down', '{"seat":2}');
"""
)


def note(n: int) -> Input:
    return Input(1_800_000_000.0 + n, "table", "note", {"n": n, "word": f"é{n}"})


def test_a_second_writer_is_refused_naming_the_holder_and_readers_need_no_lock(tmp_path):
    path = tmp_path / "table.sqlite"
    check_no_writer(path)  # nobody: and no file made to find it out
    assert list(tmp_path.iterdir()) == []
    with Journal.open(path) as writer:
        writer.append([note(1)])
        with pytest.raises(JournalLocked, match=rf"process {os.getpid()} \(.+\) writes it"):
            Journal.open(path)
        with pytest.raises(JournalLocked, match="is in use"):
            check_no_writer(path)
        with Journal.open(path, create=False) as reader:  # readers take no lock
            assert [entry.position for entry in reader.entries()] == [1]
            with pytest.raises(JournalError, match="open to read"):
                reader.append([note(2)])
        writer.append([note(2)])
    check_no_writer(path)
    with Journal.open(path) as again:  # closed: the lock is free
        assert again.append([note(3)]) == [3]


def test_a_new_journal_has_an_identity_and_every_entry_its_chain(tmp_path):
    path = tmp_path / "table.sqlite"
    with Journal.open(path) as journal:
        identity = journal.identity()
        assert identity is not None and len(identity) == 36
        journal.append([note(1), note(2)])
        journal.append([note(3)])
    with Journal.open(path) as journal:  # the chain goes on after a restart
        journal.append([note(4)])
        entries = list(journal.entries())
        assert journal.identity() == identity
    previous = None
    for entry in entries:
        assert entry.chain == link(previous, entry)
        previous = entry.chain
    assert entries[0].chain == link(ORIGIN, entries[0])
    with Journal.open(tmp_path / "other.sqlite") as other:
        assert other.identity() != identity


def test_the_chain_hashes_each_entry_in_its_canonical_form_and_a_change_breaks_it(tmp_path):
    """chain(N) = sha256(chain(N - 1) + the compact JSON, keys sorted, of the entry's
    position, time, source, type, fields, device kind, serial, boot id, seq and event
    number), made here from that definition alone; a segment's check follows it over the
    inputs as stored, and finds a field changed (even to the same value written otherwise)."""
    device = DeviceId(DeviceKind.SHOE, "SN-é1", 7)
    inputs = [
        Input(1.5, "table", "note", {"z": [1, 2.25], "a": {"y": None, "b": 'ü "q"'}}),
        Input(2.0, "device", "CardRead", {"card": 12, "uid": "ab"}, device, 65535),
        Input(3.0, "link", "LinkDown", {"detail": "x,y:z", "reason": "lost"}, device),
    ]
    path = tmp_path / "table.sqlite"
    with Journal.open(path) as journal:
        journal.append(inputs)
        entries = list(journal.entries())
    previous, before = ORIGIN, None
    for entry, item in zip(entries, inputs, strict=True):
        at = item.device
        canonical = json.dumps(
            [
                entry.position,
                item.recorded_at,
                item.source,
                item.type,
                item.fields,
                None if at is None else at.kind,
                None if at is None else at.serial,
                None if at is None else at.boot_id,
                item.seq,
                entry.event_number,
            ],
            separators=(",", ":"),
            sort_keys=True,
        )
        previous = hashlib.sha256(previous + canonical.encode()).digest()
        assert entry.chain == previous == link(before, entry)
        before = entry.chain
    with closing(sqlite3.connect(path)) as db:
        assert chain_of(db, None, "the journal") == previous
        db.execute("DROP TRIGGER inputs_no_update")  # the test changes history; no one else
        db.execute("""UPDATE inputs SET fields = '{"card": 12, "uid": "ab"}' WHERE position = 2""")
        with pytest.raises(JournalError, match="input at position 2 does not fit"):
            chain_of(db, None, "the journal")


def test_a_journal_of_the_earlier_release_gets_identity_and_chain_from_its_next_entry(
    tmp_path,
):
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as old:
        old.executescript(EARLIER)
    before = path.read_bytes()
    with Journal.open(path, create=False) as reader:  # a reader changes nothing
        assert reader.identity() is None
        assert [entry.chain for entry in reader.entries()] == [None, None]
    assert path.read_bytes() == before
    with Journal.open(path) as writer:
        identity = writer.identity()
        assert identity is not None
        assert writer.append([note(3), note(4)]) == [3, 4]
        entries = list(writer.entries())
    assert [entry.fields for entry in entries[:2]] == [{"seat": 1}, {"seat": 2}]
    assert [entry.chain for entry in entries[:2]] == [None, None]
    assert entries[2].chain == link(None, entries[2])
    assert entries[3].chain == link(entries[2].chain, entries[3])
    with sqlite3.connect(path) as check:
        assert check.execute("SELECT chain_from FROM journal_identity").fetchone() == (3,)
    with Journal.open(path) as writer:
        assert writer.identity() == identity  # made once


def test_a_new_identity_for_a_restored_copy(tmp_path):
    path = tmp_path / "table.sqlite"
    with Journal.open(path) as journal:
        first = journal.identity()
        assert journal.new_identity() != first
        assert journal.identity() not in (first, None)


def journal_files(path: Path) -> dict[str, bytes]:
    return {name.name: name.read_bytes() for name in (path, Path(f"{path}-wal")) if name.exists()}


def journal_entries(path: Path) -> list[Entry]:
    """What the journal holds (read as a reader does, without the writer's lock): the first
    writer's checkpoints may move its bytes between the files, never its entries."""
    with Journal.open(path, create=False) as journal:
        return list(journal.entries())


def settled_entries(path: Path, quiet: float = 0.5) -> list[Entry]:
    """The journal's entries once none has come for ``quiet`` seconds: a service says its
    shoe is connected a moment before the link's coming up is journaled."""
    deadline = time.monotonic() + DEADLINE
    entries = journal_entries(path)
    while time.monotonic() < deadline:
        time.sleep(quiet)  # the silence that must last
        again = journal_entries(path)
        if again == entries:
            return entries
        entries = again
    raise AssertionError(f"the journal kept growing for {DEADLINE} s: {len(entries)} entries")


@pytest.mark.slow
def test_the_monitor_refuses_a_journal_another_process_writes(tmp_path):
    path = tmp_path / "table.sqlite"
    with Journal.open(path) as journal:
        journal.append([note(1)])
        before = journal_files(path)
        done = subprocess.run(
            [LUCK_TABLE, "monitor", "--shoe", str(tmp_path / "no-shoe"), "--journal", str(path)],
            capture_output=True,
            check=False,
            text=True,
            timeout=DEADLINE,
        )
        assert journal_files(path) == before
    assert done.returncode == 1, done.stderr
    assert f"journal {path} is in use: process {os.getpid()} (" in done.stderr


class Collected:
    """A process's standard error, read as it comes."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.text = ""
        assert process.stderr is not None
        stream = process.stderr
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream) -> None:
        for line in stream:
            self.text += line

    def wait_for(self, words: str, process: subprocess.Popen[str]) -> None:
        def said() -> bool:
            assert process.poll() is None, self.text
            return words in self.text

        wait_until(said, repr(words), DEADLINE, poll=0.05)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.slow
def test_a_second_serve_with_the_same_configuration_exits_1_and_writes_nothing(tmp_path):
    with simulator("shoe") as shoe:
        # a link that a loaded machine does not drop: the first service writes nothing more
        config = write_config(tmp_path, shoe.port, link=SILENCE_TOLERANT_LINK)
        port = free_port()  # the same for both: the second finds the journal taken first
        config.write_text(config.read_text() + f'\n[api]\nbind = "127.0.0.1"\nport = {port}\n')
        first = subprocess.Popen(
            [LUCK_TABLE, "serve", "--config", str(config)], stderr=subprocess.PIPE, text=True
        )
        try:
            log = Collected(first)
            log.wait_for("the shoe is connected", first)
            log.wait_for("the console is at", first)
            path = tmp_path / "table.sqlite"
            before = settled_entries(path)
            second = subprocess.run(
                [LUCK_TABLE, "serve", "--config", str(config)],
                capture_output=True,
                check=False,
                text=True,
                timeout=DEADLINE,
            )
            assert second.returncode == 1, second.stderr
            assert second.stderr.startswith(
                f"luck-table serve: error: journal {path} is in use: process {first.pid} ("
            ), second.stderr
            assert f"serve --config {config}" in second.stderr, second.stderr  # its command
            assert journal_entries(path) == before  # not one entry more
            assert first.poll() is None  # the first one serves on
        finally:
            first.terminate()
            first.wait(timeout=DEADLINE)
    assert first.returncode == 0


def test_a_reader_opened_beside_the_writer_in_its_process_leaves_its_write_ahead_log_alone(
    tmp_path,
):
    """Closing any descriptor of the file drops this process's POSIX locks on it, SQLite's
    too: another process's last connection would then take the live write-ahead log for an
    orphan, check it in and delete it under the writer."""
    path = tmp_path / "table.sqlite"
    wal = Path(f"{path}-wal")
    with Journal.open(path) as writer:
        writer.append([note(1)])
        with Journal.open_read_only(path) as reader:
            assert [entry.position for entry in reader.entries()] == [1]
        other = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2])"
        read = "SELECT count(*) FROM inputs"  # and its connection closes: the last one, it thinks
        subprocess.run([sys.executable, "-c", other, str(path), read], check=True, timeout=60)
        assert wal.exists(), "another process deleted the writer's write-ahead log"
        writer.append([note(2)])
        with Journal.open_read_only(path) as reader:
            assert [entry.position for entry in reader.entries()] == [1, 2]


_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | st.text()
)


@settings(max_examples=examples(500), deadline=None)
@given(
    head=st.lists(_SCALARS, min_size=4, max_size=4),
    fields=st.dictionaries(st.text(), _SCALARS, max_size=3),
    tail=st.lists(_SCALARS, min_size=5, max_size=5),
)
def test_the_chain_s_canonical_form_is_the_json_of_the_ten_whatever_their_values(
    head: list[Any], fields: dict[str, Any], tail: list[Any]
) -> None:
    """The chain writes the head and the tail a value at a time (quicker than the encoder
    for a list): the bytes hashed are the canonical JSON of the list of the ten all the
    same, for text of any character, any whole number or float (NaN, infinities, -0.0
    included), booleans and nothing."""
    stored_fields = stored(fields)
    canonical = json.dumps(
        [*head, json.loads(stored_fields), *tail], separators=(",", ":"), sort_keys=True
    )
    expected = hashlib.sha256(ORIGIN + canonical.encode()).digest()
    assert linked(None, head, stored_fields, tail) == expected
