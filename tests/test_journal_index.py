"""The journal of a ``--core-only`` run, and the index of hands: a run's journal is the
one the table service writes for the same inputs, byte for byte, and recovers to the table
the run ended with and replays to its hands; ``luck-table history --hand N`` and the
console's hand lookup read from the snapshot before hand N and print what a replay of the
whole journal prints, byte for byte, through voids, a restart and an old journal."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from controller.history.hands import recorded_hands
from controller.history.index import recorded_hand
from controller.history.script import history
from controller.intake import Arrival
from controller.journal import Journal
from controller.journal.device_events import event_of
from controller.journal.rotation import Rotation
from controller.journal.snapshots import EVERY, Snapshots
from controller.recovery import recover, steps
from controller.rules import Effect
from controller.service.service import TableService
from controller.sim.core_journal import CoreJournal
from controller.sim.dealer import Dealer, FaultRates, Tally
from controller.sim.floor import CoreFloor
from controller.sim.human import HumanDealer
from controller.table import Table, TableSettings
from controller.table.inputs import input_from_json
from dealer_ui.archive import hand_record
from drivers.protocol import DeviceKind
from tests.console_kit import Script, live_table
from tests.service_kit import config, simulator

pytestmark = pytest.mark.slow  # a served console


def dealt(
    path: Path, *, hands: int, seed: int, human: bool = False, **options: Any
) -> tuple[Table, list[dict[str, Any]], Tally]:
    """A core run journaled at ``path``: its last table, each hand as it ended, the tally."""
    tally = Tally()
    ended: list[dict[str, Any]] = []

    def observe(table: Table, effects: Any) -> None:
        tally.observe(table, effects)
        if any(isinstance(e, Effect) and e.kind == "hand_over" for e in effects):
            assert table.hand is not None
            ended.append(table.hand.to_json())

    journal = CoreJournal(path)
    floor = CoreFloor(TableSettings(), observe, start=1_700_000_000_000, journal=journal)
    kind = HumanDealer if human else Dealer
    try:
        asyncio.run(kind(floor, tally, seats=6, hands=hands, seed=seed, **options).run())
    finally:
        journal.close()
    return floor.table, ended, tally


def test_a_core_run_journal_recovers_to_its_table_and_replays_to_its_hands(
    tmp_path: Path,
) -> None:
    path = tmp_path / "core.sqlite3"
    faults = FaultRates(unreadable=0.05, misplaced=0.05, unplug=0.03)
    table, ended, tally = dealt(path, hands=12, seed=3, faults=faults)
    assert sum(tally.injected.values()) > 0
    with Journal.open_read_only(path) as journal:
        snapshots = Snapshots(path, read_only=True)
        recovered = recover(journal, snapshots)
        assert recovered.snapshot > 0  # from the last hand's snapshot
        assert recovered.table.to_json() == table.to_json()
        *_, (_, last) = steps(journal)  # and from the start
        assert last.table.to_json() == table.to_json()
        hands = list(recorded_hands(journal))
        assert [hand.hand.to_json() for hand in hands] == ended
        assert all(hand.matches(hand.replay()) for hand in hands)
        sources = {(e.source, e.device.serial if e.device else None) for e in journal.entries()}
        assert sources >= {("device", "CORE-SHOE"), ("device", "CORE-SEAT_BOARD")}
        assert ("link", "CORE-SHOE") in sources and ("table", None) in sources
        spans = [snapshots.span(n) for n in range(1, 13)]
        snapshots.close()
    assert all(span is not None for span in spans)
    assert [s.first for s in spans if s] == [1] + [s.last + 1 for s in spans[:-1] if s]


def as_the_service_writes(core: Path, path: Path, folder: Path) -> None:
    """The inputs of the journal ``core`` given to a table service journaling at ``path``,
    as they come to it: a device's events through its intake's path (``_arrived``, the
    service's own event), people's and the table's own inputs submitted, each at the time
    the core journaled it (the service's clock)."""
    with Journal.open_read_only(core) as journal:
        entries = list(journal.entries())
    now = [0.0]

    async def serve() -> None:
        chosen = replace(
            config(folder, "unused"),
            shoe=None,
            seat_board=None,
            journal=path,
            settings=TableSettings(),  # the core run's: nothing configured at the start
            rotation=Rotation(0, 0),
        )
        async with TableService(chosen, clock=lambda: now[0], monotonic=lambda: now[0]) as service:
            for entry in entries:
                now[0] = entry.recorded_at
                if entry.source == "table":
                    await service.submit(input_from_json(entry.fields))
                    continue
                assert entry.device is not None
                device = DeviceKind(entry.device.kind)
                arrival = Arrival(event_of(entry), device, entry.device, entry.recorded_at)
                await service._arrived([arrival])

    asyncio.run(serve())


def rows(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """What a journal's file holds but its identity (made with each journal), as stored."""
    tables = {
        "inputs": "position",
        "table_snapshots": "position",
        "hand_index": "hand_number",
    }
    with closing(sqlite3.connect(path)) as db:
        return {
            table: db.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchall()
            for table, order in tables.items()
        }


def test_a_core_run_journal_is_the_one_the_service_writes_byte_for_byte(tmp_path: Path) -> None:
    """Each input in a transaction of its own in the service, a hand's in one in the core:
    the same entries (their JSON, times, devices, hash chain), snapshots and index."""
    core, served = tmp_path / "core.sqlite3", tmp_path / "served.sqlite3"
    _, ended, tally = dealt(core, hands=5, seed=7, faults=FaultRates(0.05, 0.05))
    assert len(ended) == 5 and sum(tally.injected.values()) > 0
    as_the_service_writes(core, served, tmp_path)
    made, written = rows(core), rows(served)
    assert len(made["inputs"]) > 500 and len(made["hand_index"]) == 5
    assert made == written


def test_the_sim_command_journals_a_core_run_and_refuses_an_existing_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "run.sqlite3"
    assert (
        main(["sim", "--core-only", "--journal", str(path), "--hands", "3", "--speed", "max"]) == 0
    )
    assert f"journal: {path}" in capsys.readouterr().out
    with Journal.open_read_only(path) as journal:
        assert [hand.number for hand in recorded_hands(journal)] == [1, 2, 3]
    assert (
        main(["sim", "--core-only", "--journal", str(path), "--hands", "3", "--speed", "max"]) == 2
    )
    assert "the file exists" in capsys.readouterr().err


def history_out(path: Path, capsys: pytest.CaptureFixture[str], *options: str) -> str:
    assert main(["history", "--journal", str(path), *options]) in (0, 1)
    return capsys.readouterr().out


def full_records(path: Path) -> dict[int, dict[str, Any]]:
    """Each hand's console record from a replay of the whole journal."""
    records = {}
    with Journal.open_read_only(path) as journal:
        for hand in recorded_hands(journal):
            played = hand.replay()
            records[hand.number] = {
                **hand.history_json(played),
                "history": history(played),
                "recorded_hand": hand.hand.to_json(),
            }
    return records


def read_alike(path: Path, capsys: pytest.CaptureFixture[str]) -> list[int]:
    """Each hand, and one past the last, read by number as the whole journal's replay
    reads it (history --hand N, text and JSON; the console's lookup); the inputs each
    reading replayed."""
    every = json.loads(history_out(path, capsys, "--json"))
    texts = history_out(path, capsys).rstrip("\n").split("\n\n=== ")
    assert len(texts) == len(every) > 1
    records = full_records(path)
    replayed = []
    for n, (item, text) in enumerate(zip(every, texts, strict=True), start=1):
        assert item["hand"] == n
        assert history_out(path, capsys, "--json", "--hand", str(n)) == (
            json.dumps(item, indent=2) + "\n"
        )
        one = history_out(path, capsys, "--hand", str(n)).rstrip("\n")
        assert one == (text if n == 1 else "=== " + text)
        reading, record = hand_record(path, n)
        assert record == records[n]
        replayed.append(reading.replayed)
    assert main(["history", "--journal", str(path), "--hand", str(len(every) + 1)]) == 2
    assert "is not in" in capsys.readouterr().err
    assert hand_record(path, len(every) + 1)[1] is None
    return replayed


def test_a_hand_read_by_number_is_the_whole_replays_byte_for_byte(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "core.sqlite3"
    dealt(path, hands=2 * EVERY + 3, seed=5, human=True, mistakes=0.1)
    replayed = read_alike(path, capsys)
    with Journal.open_read_only(path) as journal:
        total = sum(1 for _ in journal.entries())
    assert max(replayed) < total / 2  # from a checkpoint, never the whole journal


def test_through_a_void_and_a_restart_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async def sessions(shoe: Any) -> None:
        async with live_table(tmp_path, shoe) as live:
            await live.seat_players()
            await live.play_hand(Script())
            await live.play_hand(Script(void_hand=2))
            assert live.service.table.hand is not None
            assert live.service.table.hand.phase.value == "void"
        async with live_table(tmp_path, shoe) as live:  # the service restarted
            await live.play_hand(Script())
            await live.load(Script().deck(live.service.table))
            (await live.post("/api/hands")).raise_for_status()
            await live.draw()  # hand 4 in progress

    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(sessions(shoe), 400))
    path = next(tmp_path.glob("*.sqlite"))
    replayed = read_alike(path, capsys)
    assert len(replayed) == 4 and replayed[2] < sum(replayed)  # hand 3: after the restart


def test_an_old_journal_is_read_whole_and_indexed_by_its_first_writer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = tmp_path / "new.sqlite3"
    dealt(new, hands=EVERY + 2, seed=2)
    old = tmp_path / "old.sqlite3"
    shutil.copy(new, old)
    with sqlite3.connect(old) as db:  # as an earlier release left it: no index, 2 snapshots
        db.execute("DROP TABLE hand_index")
        db.execute(
            "DELETE FROM table_snapshots WHERE position NOT IN "
            "(SELECT position FROM table_snapshots ORDER BY position DESC LIMIT 2)"
        )
    with Journal.open_read_only(old) as journal:
        read = recorded_hand(journal, 3)
        assert read.after == 0 and read.hand is not None  # read from the start
    assert history_out(old, capsys, "--hand", "3") == history_out(new, capsys, "--hand", "3")
    restarted(old, tmp_path)
    index = "SELECT * FROM hand_index ORDER BY hand_number"
    kept = "SELECT position, hand_number FROM table_snapshots WHERE hand_number % ? = 0"
    with sqlite3.connect(old) as made, sqlite3.connect(new) as original:
        assert made.execute(index).fetchall() == original.execute(index).fetchall()
        assert (
            made.execute(kept, (EVERY,)).fetchall() == original.execute(kept, (EVERY,)).fetchall()
        )
    with Journal.open_read_only(old) as journal:
        read = recorded_hand(journal, EVERY + 1)
        assert read.after > 0 and read.hand is not None


def restarted(path: Path, folder: Path) -> None:
    """The table service started on the journal and stopped (it journals its restart)."""

    async def start_and_stop() -> None:
        chosen = replace(config(folder, "unused"), shoe=None, seat_board=None, journal=path)
        async with TableService(chosen):
            pass

    asyncio.run(start_and_stop())
