"""The journal's closed segments, as operators meet them: a rotated journal reads as the
whole one (entries, hands, one hand, recovery, a page of surveillance's list); a rotation cut
by a power cut at each of its steps loses nothing and the next writer finishes it; a
segment tampered with is refused by every reader and by the operator's commands; a
segment is pruned or archived only once the floor holds it; a backup carries the
segments and restores the table."""

from __future__ import annotations

import asyncio
import datetime
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from controller.cli.backup_command import backup
from controller.floor import facts as f
from controller.floor import store
from controller.floor.derive import derive, point_at
from controller.floor.migrate import migrate
from controller.floor.store import shipped
from controller.history.hands import recorded_hands
from controller.history.index import recorded_hand
from controller.journal import Input, Journal, JournalError
from controller.journal import store as journal_store
from controller.journal.chain import link
from controller.journal.lock import WriterLock
from controller.journal.rotation import CHAIN_STEP, Rotation, due, finish, rotate
from controller.journal.segments import SegmentDamaged, folder_of, last_sealed, sealed
from controller.journal.snapshots import EVERY, Snapshots
from controller.recovery import recover
from controller.sim.core_journal import CoreJournal
from controller.sim.dealer import Dealer, Tally
from controller.sim.floor import CoreFloor
from controller.table import TableSettings
from dealer_ui.archive import hand_record, summaries
from tests.console_kit import Script, live_table
from tests.floor_kit import floor_database
from tests.service_kit import simulator
from tests.test_dealer_ui_api import past_hands, watching

pytestmark = pytest.mark.slow  # processes

ROOT = Path(__file__).resolve().parent.parent


def made(path: Path, hands: int, every: int = 0, seed: int = 3) -> Path:
    """A core run's journal of ``hands`` hands at ``path``, rotating every ``every``
    hands (0: never)."""
    tally = Tally()
    journal = CoreJournal(path, Rotation(every, 0))
    floor = CoreFloor(TableSettings(), tally.observe, start=1_700_000_000_000, journal=journal)
    try:
        asyncio.run(Dealer(floor, tally, seats=5, hands=hands, seed=seed).run())
    finally:
        journal.close()
    return path


def read(path: Path) -> tuple[list[Any], list[dict[str, Any]], tuple[int, str]]:
    """Everything a reader gets of the journal: its entries, its hands, its recovery."""
    with Journal.open_read_only(path) as journal:
        entries = list(journal.entries())
        hands = [hand.history_json() for hand in recorded_hands(journal)]
        snapshots = Snapshots(path, read_only=True)
        try:
            recovered = recover(journal, snapshots)
        finally:
            snapshots.close()
    return entries, hands, (recovered.position, str(recovered.table.to_json()))


def out(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The same run journaled twice: whole, and rotating every 4 hands."""
    folder = tmp_path_factory.mktemp("pair")
    return made(folder / "whole.sqlite", 22), made(folder / "rotated.sqlite", 22, every=4)


def test_the_catalogue_read_by_its_key_names_the_segments_the_whole_list_does(
    pair: tuple[Path, Path],
) -> None:
    """A reader of the last segments (a start, a hand by number, the snapshot before a
    position) reads only their rows of the catalogue: the same segments as filtering the
    whole list."""
    _, rotated = pair
    with sqlite3.connect(rotated) as db:
        every = sealed(db)
        assert len(every) == 5
        assert last_sealed(db) == every[-1]
        for position in range(0, every[-1].last + 3):
            assert sealed(db, after=position) == [s for s in every if s.last > position]
            assert sealed(db, holding=position) == [s for s in every if s.covers(position)]
            starting = [s for s in every if s.first - 1 <= position]
            assert last_sealed(db, position) == (starting[-1] if starting else None)
    with sqlite3.connect(":memory:") as never:  # a journal that never rotated
        assert sealed(never) == [] and last_sealed(never) is None


def test_a_rotated_journal_reads_as_the_whole_one(
    pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    whole, rotated = pair
    segments = sorted(p.name for p in folder_of(rotated).iterdir())
    assert len(segments) == 5 and segments[0].startswith("000000000001-")  # hands 4, 8, ... 20
    assert read(rotated) == read(whole)
    with sqlite3.connect(rotated) as db:  # the file keeps only what no segment holds
        (kept,) = db.execute("SELECT count(*) FROM inputs").fetchone()
    assert 0 < kept < len(read(whole)[0]) / 5
    for number in (1, 4, 5, 13, 20, 21, 22):
        with Journal.open_read_only(rotated) as journal:
            reading = recorded_hand(journal, number)
        assert 0 < reading.replayed < 6 * 120  # from the snapshot before it: a few hands
        assert out(
            capsys, "history", "--journal", str(rotated), "--hand", str(number), "--json"
        ) == (out(capsys, "history", "--journal", str(whole), "--hand", str(number), "--json"))
        assert hand_record(rotated, number)[1] == hand_record(whole, number)[1]
    index = "SELECT hand_number, first, last, snapshot FROM hand_index ORDER BY hand_number"
    with sqlite3.connect(whole) as one, sqlite3.connect(rotated) as other:
        spans = zip(one.execute(index).fetchall(), other.execute(index).fetchall(), strict=True)
    for (number, first, last, checkpoint), (*same, snapshot) in spans:
        assert same == [number, first, last]
        assert snapshot >= checkpoint and (number <= 4 or snapshot > 0)  # or the segment's base
    with Journal.open_read_only(rotated) as journal:  # a segment keeps its last hands' snapshots
        assert recorded_hand(journal, 20).after == recorded_hand(journal, 19).through
    status, listed, _ = out(capsys, "journal", "list", "--journal", str(rotated))
    assert status == 0 and len(listed.splitlines()) == 5 and "hands 1-4" in listed
    assert out(capsys, "journal", "verify", "--journal", str(rotated))[0] == 0
    for action in ("list", "verify"):  # a journal that never rotated says so
        status, said, _ = out(capsys, "journal", action, "--journal", str(whole))
        assert status == 0 and said.startswith(f"{whole}: no closed segments")


def test_surveillance_s_first_page_starts_at_a_snapshot_not_at_position_0(
    pair: tuple[Path, Path],
) -> None:
    whole, rotated = pair
    with Journal.open_read_only(whole) as journal:
        every = [hand.summary() for hand in recorded_hands(journal)]
    for path in (whole, rotated):
        reading, page = summaries(path, None, 5)
        assert page == every[-5:]
        snapshots = Snapshots(path, read_only=True)
        checkpoint = snapshots.span(page[0]["hand"] - EVERY - 1)
        snapshots.close()
        assert checkpoint is not None and reading.after >= checkpoint.last  # at most EVERY back
        reading, earlier = summaries(path, page[0]["hand"], 5)
        assert earlier == every[-10:-5]
        assert summaries(path, 3, 50)[1] == every[:2]


def rotation_cut(path: Path, through: int, step: str) -> None:
    """A writer process rotating the journal through ``through``, killed (SIGKILL, as a
    power cut) at ``step``: ``partial`` (the segment written, not yet renamed),
    ``renamed`` (in place, not yet in the catalogue), ``deleting`` (in the catalogue, the
    file's inputs partly deleted)."""
    script = f"""
import sys, time
from controller.journal import Journal
from controller.journal import rotation

def cut(*args, **kwargs):
    print("cut here", flush=True)
    time.sleep(120)

step = {step!r}
if step == "partial":
    rotation.sync_file = cut
elif step == "renamed":
    rotation.sync_folder = cut
else:
    rotation.CHUNK = 40
    connect = rotation._connect
    deletes = []
    def traced(path):
        connection = connect(path)
        def trace(statement):
            if statement.startswith("DELETE FROM inputs"):
                deletes.append(statement)
                if len(deletes) == 3:
                    cut()
        connection.set_trace_callback(trace)
        return connection
    rotation._connect = traced
with Journal.open({str(path)!r}):
    rotation.rotate({str(path)!r}, {through})
print("not cut", flush=True)
"""
    process = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "cut here"
        process.send_signal(signal.SIGKILL)
    finally:
        process.kill()
        process.wait(30)


@pytest.mark.parametrize("step", ["partial", "renamed", "deleting"])
def test_a_power_cut_during_a_rotation_loses_nothing_and_the_next_writer_finishes_it(
    tmp_path: Path, step: str
) -> None:
    path = made(tmp_path / "cut.sqlite", 12)
    before = read(path)
    with Journal.open_read_only(path) as journal:
        snapshots = Snapshots(path, read_only=True)
        through = snapshots.span(EVERY).last  # type: ignore[union-attr]  # a checkpoint: kept
        snapshots.close()
    rotation_cut(path, through, step)
    assert read(path) == before  # a reader meanwhile: nothing lost, nothing twice
    folder = folder_of(path)
    with Journal.open(path) as journal:  # the next writer (the service's start)
        finish(path)
        assert [p.name for p in folder.iterdir() if p.name.endswith(".partial")] == []
        if step == "deleting":
            (segment,) = journal.sealed()
            assert segment.last == through
        else:
            assert journal.sealed() == [] and list(folder.iterdir()) == []
            rotate(path, through)
        with sqlite3.connect(path) as db:
            assert db.execute("SELECT min(position) FROM inputs").fetchone() == (through + 1,)
        assert read(path) == before
        old = next(e for e in before[0] if e.seq is not None and e.position < through // 2)
        again = Input(old.recorded_at, old.source, old.type, old.fields, old.device, old.seq)
        assert journal.append([again]) == [None]  # a device sends again what a segment holds
        last = before[0][-1]
        (position,) = journal.append([Input(1_800_000_000.0, "table", "Tick", {"at": 1})])
        added = journal.entry(position)
        assert added is not None and position == last.position + 1
        assert added.chain == link(last.chain, added)  # the chain goes on over the segment
    assert main(["journal", "verify", "--journal", str(path)]) == 0


def test_a_rotation_lets_the_service_s_loop_run_while_it_follows_the_segment_s_chain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Following the new segment's chain is Python, holding the interpreter's lock that the
    service's event loop (the cards) needs: the rotating thread sleeps a moment every
    ``CHAIN_STEP`` inputs, and checks the whole chain all the same."""
    path = made(tmp_path / "paused.sqlite", 12)
    before = read(path)
    snapshots = Snapshots(path, read_only=True)
    through = snapshots.span(EVERY).last  # type: ignore[union-attr]  # a checkpoint: kept
    snapshots.close()
    pauses: list[float] = []
    with Journal.open(path), monkeypatch.context() as patched:
        patched.setattr(journal_store.time, "sleep", pauses.append)
        segment = rotate(path, through)
    assert segment is not None and segment.last == through > 2 * CHAIN_STEP
    assert pauses.count(journal_store.PAUSE) == through // CHAIN_STEP  # (and the deletes')
    assert read(path) == before
    tampered(path)
    db = sqlite3.connect(folder_of(path) / segment.name)
    try:
        with pytest.raises(JournalError, match="does not fit the journal's hash chain"):
            journal_store.chain_of(db, None, segment.name, pause_every=CHAIN_STEP)
    finally:
        db.close()


def test_only_the_journal_s_writer_rotates_it(tmp_path: Path) -> None:
    path = made(tmp_path / "locked.sqlite", 3)
    with pytest.raises(JournalError, match="only its writer rotates it"):
        rotate(path, 10)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"from controller.journal import Journal\n"
            f"j = Journal.open({str(path)!r})\nprint('open', flush=True)\nimport time\n"
            "time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        with pytest.raises(JournalError, match=f"process {holder.pid}"):
            rotate(path, 10)
        with pytest.raises(JournalError, match=f"process {holder.pid}"):
            Journal.open(path)  # a second copy of the service
    finally:
        holder.kill()
        holder.wait(30)
    assert not folder_of(path).exists()


def tampered(path: Path) -> Path:
    """A byte of the journal's first segment changed (its permissions lifted first)."""
    segment = sorted(folder_of(path).iterdir())[0]
    segment.chmod(0o640)
    data = bytearray(segment.read_bytes())
    at = data.index(b"CardRead")
    data[at : at + 8] = b"CardReaX"
    segment.write_bytes(bytes(data))
    return segment


def test_a_segment_tampered_with_is_refused_by_every_reader(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = made(tmp_path / "tampered.sqlite", 9, every=4)
    segment = tampered(path)
    status, _, err = out(capsys, "history", "--journal", str(path))
    assert status == 2 and f"{segment.name}" in err and "damaged" in err
    status, _, err = out(capsys, "history", "--journal", str(path), "--hand", "2")
    assert status == 2 and "damaged" in err
    assert out(capsys, "history", "--journal", str(path), "--hand", "9")[0] == 0  # not in it
    status, _, err = out(capsys, "journal", "verify", "--journal", str(path))
    assert status == 1 and segment.name in err
    with Journal.open_read_only(path) as journal, pytest.raises(SegmentDamaged):
        list(journal.entries())


def ship(dsn: str, path: Path, through: int) -> None:
    """The floor takes the journal up to position ``through``, as the shipper ships it."""
    with Journal.open(path, create=False) as journal, store.connect(dsn, autocommit=True) as db:
        migrate(db)
        which = shipped(journal, "T-01", "table 1")
        store.register(db, which, "test")
        snapshots = Snapshots(path, read_only=True)
        point = point_at(journal, snapshots, store.confirmed_position(db, "T-01"))
        snapshots.close()
        while point.position < through:
            derived = derive(journal, point, min(200, through - point.position))
            store.ingest(db, f.Batch(which, derived.entries, derived.facts, derived.status, "t"))
            point = derived.point


def test_a_segment_leaves_the_machine_only_once_the_floor_holds_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = made(tmp_path / "T-01.sqlite", 13, every=4)
    with Journal.open_read_only(path) as journal:
        first, second, third = journal.sealed()
    folder = folder_of(path)
    files = sorted(p.name for p in folder.iterdir())
    with floor_database() as dsn:
        floor = ("--journal", str(path), "--floor", dsn)
        with store.connect(dsn, autocommit=True) as db:
            migrate(db)  # a floor, without this table yet
        status, _, err = out(capsys, "journal", "prune", *floor)
        assert status == 1 and "the floor holds no copy of journal" in err
        ship(dsn, path, second.last - 1)  # the floor is one entry short of the second
        status, _, err = out(capsys, "journal", "prune", *floor, "--segment", second.name)
        assert status == 1 and f"up to position {second.last - 1} only" in err
        assert sorted(p.name for p in folder.iterdir()) == files  # nothing changed
        archived = tmp_path / "archive"
        archived.mkdir()
        (archived / first.name).write_bytes(b"another table's segment of that name")
        status, _, err = out(capsys, "journal", "archive", *floor, "--to", str(archived))
        assert status == 1 and "is there already" in err and (folder / first.name).exists()
        (archived / first.name).unlink()
        status, said, _ = out(capsys, "journal", "archive", *floor, "--to", str(archived))
        assert status == 0 and f"{first.name}: archived to" in said
        assert f"{second.name}: kept" in said and f"{third.name}: kept" in said
        assert (archived / first.name).is_file() and not (folder / first.name).exists()
        ship(dsn, path, third.last)
        status, said, _ = out(capsys, "journal", "prune", *floor, "--segment", second.name)
        assert status == 0 and said == f"{second.name}: pruned\n"
        # the hands of an archived segment read from the archive; a pruned one's say so
        assert out(capsys, "history", "--journal", str(path), "--hand", "2")[0] == 0
        status, _, err = out(capsys, "history", "--journal", str(path), "--hand", "6")
        assert status == 2 and "pruned" in err and "the floor has them" in err
        assert out(capsys, "history", "--journal", str(path), "--hand", "10")[0] == 0
        assert out(capsys, "history", "--journal", str(path), "--hand", "13")[0] == 0
        status, said, err = out(capsys, "history", "--journal", str(path), "--json")
        assert status == 0 and "up to hand 8 were pruned (the floor has them)" in err
        assert [hand["hand"] for hand in json.loads(said)] == [9, 10, 11, 12, 13]
        # the third, damaged, is refused: nothing of it changes
        segment = folder / third.name
        segment.chmod(0o640)
        with segment.open("r+b") as file:
            file.seek(third.size // 2)
            byte = file.read(1)
            file.seek(third.size // 2)
            file.write(bytes([byte[0] ^ 0xFF]))
        status, _, err = out(capsys, "journal", "prune", *floor)
        assert status == 1 and "damaged" in err and segment.exists()
        # one run at a time
        lock = WriterLock.take(folder)
        try:
            status, _, err = out(capsys, "journal", "prune", *floor)
            assert status == 1 and f"process {os.getpid()}" in err
        finally:
            lock.release()
    notes = {p.name: json.loads(p.read_text()) for p in folder.glob("*.moved")}
    assert notes[f"{second.name}.moved"]["pruned"] is True
    assert notes[f"{first.name}.moved"]["archived_to"] == str(archived.absolute())


def test_a_backup_carries_the_segments_and_restores_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = made(tmp_path / "T-02.sqlite", 10, every=3)
    backups = tmp_path / "backups"
    backups.mkdir()
    night = datetime.datetime(2026, 12, 1, 3, 0, tzinfo=datetime.UTC)
    copy = backup(path, backups, 2, night)
    again = backup(path, backups, 2, night + datetime.timedelta(days=1))
    for name in (p.name for p in folder_of(path).iterdir()):  # stored once: linked
        assert (folder_of(copy) / name).stat().st_ino == (folder_of(again) / name).stat().st_ino
    assert out(capsys, "history", "--journal", str(again))[0] == 0
    # the restore drill: the copy and its segments in the journal's place
    restored = tmp_path / "restored" / "T-02.sqlite"
    restored.parent.mkdir()
    shutil.copyfile(again, restored)
    shutil.copytree(folder_of(again), folder_of(restored))
    assert read(restored) == read(path)
    with Journal.open(restored):  # the service's start on it
        finish(restored)
    assert read(restored) == read(path)
    # a segment missing from a restore is named, never skipped
    (folder_of(restored) / sorted(p.name for p in folder_of(path).iterdir())[1]).unlink()
    status, _, err = out(capsys, "history", "--journal", str(restored))
    assert status == 2 and "is missing" in err
    backup(path, backups, 2, night + datetime.timedelta(days=2))
    assert not folder_of(copy).exists()  # the oldest copy went with its segments


def test_the_service_rotates_at_each_hand_s_end_and_reads_through_its_segments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async def sessions(shoe: Any) -> None:
        async with live_table(tmp_path, shoe, journal_lines="segment_hands = 1") as live:
            watcher = await watching(live)
            await live.seat_players()
            for _ in range(3):
                await live.play_hand(Script())
            rotating = live.service._rotating  # the last hand's rotation, in its thread
            assert rotating is not None
            await asyncio.wait_for(asyncio.shield(rotating), 60)
            listed = await past_hands(live, watcher)
            assert [hand["hand"] for hand in listed] == [1, 2, 3]
            for query, hands in (("?limit=2", [2, 3]), ("?before=3&limit=1", [2])):
                page = await live.http.get(f"/api/history{query}", headers=watcher)
                assert [hand["hand"] for hand in page.json()] == hands
                assert page.json() == [hand for hand in listed if hand["hand"] in hands]
            for query in ("?limit=0", "?limit=1001", "?before=0"):
                refused = await live.http.get(f"/api/history{query}", headers=watcher)
                assert refused.status_code == 422, query
            one = (await live.http.get("/api/history/2", headers=watcher)).json()
            assert one["hand"] == 2 and one["recorded"] is True
            position = live.service.position
        async with live_table(tmp_path, shoe, journal_lines="segment_hands = 1") as live:
            recovered = live.service.recovered
            assert recovered is not None and recovered.snapshot > 0 and recovered.replayed < 20
            assert live.service.position > position  # its restart journaled, after the rest

    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(sessions(shoe), 400))
    path = tmp_path / "table.sqlite"
    with Journal.open_read_only(path) as journal:
        closed = journal.sealed()
        assert closed[0].first == 1 and closed[-1].last_hand == 3  # a rotation a hand
        assert [s.first for s in closed[1:]] == [s.last + 1 for s in closed[:-1]]
        assert [s.first_hand for s in closed] == [1, *(s.last_hand + 1 for s in closed[:-1])]
        hands = list(recorded_hands(journal))
        assert [hand.number for hand in hands] == [1, 2, 3]
        assert all(hand.matches(hand.replay()) for hand in hands)
    assert main(["journal", "verify", "--journal", str(path)]) == 0
    assert main(["history", "--journal", str(path), "--hand", "1"]) == 0


def test_a_journal_rotates_by_size_too(tmp_path: Path) -> None:
    path = tmp_path / "sized.sqlite"
    tally = Tally()
    journal = CoreJournal(path, Rotation(0, 1))  # 1 MB of the file in use
    floor = CoreFloor(TableSettings(), tally.observe, start=1_700_000_000_000, journal=journal)
    try:
        asyncio.run(Dealer(floor, tally, seats=5, hands=70, seed=4).run())
    finally:
        journal.close()
    with Journal.open_read_only(path) as reading:
        closed = reading.sealed()
    assert len(closed) == 1 and 800_000 <= closed[0].size < 1_300_000  # the file held ~1 MB
    assert [hand["hand"] for hand in read(path)[1]] == list(range(1, 71))


def test_whether_a_rotation_is_due_reads_the_same_on_a_kept_connection(tmp_path: Path) -> None:
    """The core run's writer asks on a connection it keeps, the service on one opened for
    the question: both see the segments sealed since the connection was opened."""
    path = made(tmp_path / "due.sqlite", 6)
    rotation = Rotation(4, 0)
    with closing(sqlite3.connect(path)) as kept, Journal.open(path):  # its writer, here
        asked = [due(path, number, rotation) for number in range(1, 10)]
        assert asked == [due(path, n, rotation, connection=kept) for n in range(1, 10)]
        assert asked == [False, False, False, True, True, True, True, True, True]
        (through,) = kept.execute("SELECT max(position) FROM table_snapshots").fetchone()
        rotate(path, through, durable=False, paced=False)  # through hand 6
        assert [due(path, n, rotation, connection=kept) for n in (9, 10)] == [False, True]
        assert [due(path, n, rotation) for n in (9, 10)] == [False, True]
        assert due(path, 99, Rotation(0, 0), connection=kept) is False  # never rotates


def unguarded(path: Path) -> Path:
    """The journal's append-only triggers dropped, as someone with the file may."""
    with sqlite3.connect(path) as db:
        db.execute("DROP TRIGGER inputs_no_update")
        db.execute("DROP TRIGGER inputs_no_delete")
    return path


def test_verify_follows_the_live_file_s_chain_and_names_the_position_of_a_break(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A journal too young to have a segment is checked too: one entry changed with
    sqlite3 (a stake rewritten), or one taken out, is exit 1 naming its position; in a
    rotated journal, the live file's inputs are followed from where the last segment
    ends."""
    young = unguarded(made(tmp_path / "young.sqlite", 2))
    status, said, _ = out(capsys, "journal", "verify", "--journal", str(young))
    assert status == 0 and "no closed segments" in said and "the hash chain followed" in said
    with sqlite3.connect(young) as db:
        (last,) = db.execute("SELECT max(position) FROM inputs").fetchone()
        position, fields = db.execute(
            "SELECT position, fields FROM inputs WHERE type = 'sit_down' ORDER BY position"
        ).fetchone()
        assert position < last
        db.execute(
            "UPDATE inputs SET fields = ? WHERE position = ?",
            (fields.replace('"buy_in":', '"buy_in":1'), position),
        )
    status, _, err = out(capsys, "journal", "verify", "--journal", str(young))
    assert status == 1 and f"the input at position {position} does not fit" in err, err
    with sqlite3.connect(young) as db:
        db.execute("UPDATE inputs SET fields = ? WHERE position = ?", (fields, position))
        db.execute("DELETE FROM inputs WHERE position = ?", (position + 1,))
    status, _, err = out(capsys, "journal", "verify", "--journal", str(young))
    assert status == 1 and f"the input at position {position + 2} does not fit" in err, err

    rotated = unguarded(made(tmp_path / "rotated.sqlite", 9, every=4))
    status, said, _ = out(capsys, "journal", "verify", "--journal", str(rotated))
    assert status == 0 and said.count(": ok") == 3, said
    with sqlite3.connect(rotated) as db:
        first, final = db.execute(
            "SELECT min(position), max(position) FROM inputs WHERE position > "
            "(SELECT max(last) FROM journal_segments)"
        ).fetchone()
        assert f"positions {first}-{final}" in said
        db.execute("UPDATE inputs SET recorded_at = recorded_at + 1 WHERE position = ?", (final,))
    status, _, err = out(capsys, "journal", "verify", "--journal", str(rotated))
    assert status == 1 and f"position {final} does not fit" in err, err
