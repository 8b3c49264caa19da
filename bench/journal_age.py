"""What a journal's age costs: the service's start, a hand read by number (``luck-table
history --hand N`` and the console's ``GET /api/history/{hand}``), surveillance's first
page of past hands (``GET /api/history``) and the floor shipper's resume (in its own
process: 1000 entries behind, and far behind, at hand 2), on a young journal and an old
one, both rotating into segments as the service's does (``--segment-hands``), each made
by ``luck-table sim --core-only --journal``'s writer (``controller.sim.core_journal``)
in this run, or the old one copied from an earlier run's (``--reuse FILE``: with
``luck-table backup``'s copy, segments included, so that a journal still being written
is measured as it is).

Prints, for each journal: how fast it was made (hands a second), its disk use per hand (the
file, its write-ahead log and its segments), the size of the file itself, the time of each
reading (the best of ``--rounds``, the journals read in turns; the first page with a new
worker each time), and at the end the
old journal's times over the young one's (the goal: within 2x). ``--whole`` also times a
replay of the whole journal (what the first page and a hand by number cost before the index
of hands).

    .venv/bin/python bench/journal_age.py [--hands 100 10000] [--segment-hands 1000]
        [--reuse FILE] [--seed S] [--folder DIR] [--whole] [--rounds 5] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import io
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from figures_kit import Report, add_json_option

from controller.cli import main
from controller.cli.backup_command import backup
from controller.cli.sim_command import PREPARED_FROM
from controller.config import FloorSettings
from controller.floor.derive import derive, point_at
from controller.history.hands import recorded_hands
from controller.journal import Journal
from controller.journal.rotation import Rotation
from controller.journal.segments import folder_of
from controller.journal.snapshots import Snapshots
from controller.recovery import recover
from controller.rules.evaluator import prepare
from controller.sim.core_journal import CoreJournal
from controller.sim.dealer import Dealer, Tally
from controller.sim.floor import CoreFloor
from controller.table import TableSettings
from dealer_ui import archive
from dealer_ui.archive import hand_record, summaries

GOAL = 2.0  # each reading of the oldest journal within this multiple of the youngest's


def made(path: Path, hands: int, seed: int, rotation: Rotation) -> float:
    """A journal of ``hands`` hands at ``path``, made as ``luck-table sim --core-only
    --journal`` makes it; the seconds it took."""
    tally = Tally()
    started = time.perf_counter()
    if hands >= PREPARED_FROM:
        prepare()
    journal = CoreJournal(path, rotation)
    floor = CoreFloor(TableSettings(), tally.observe, start=1_700_000_000_000, journal=journal)
    try:
        asyncio.run(Dealer(floor, tally, seats=6, hands=hands, seed=seed).run())
    finally:
        journal.close()
    return time.perf_counter() - started


def timed(run: Callable[[Path, int], None], path: Path, number: int) -> float:
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        run(path, number)
    return time.perf_counter() - started


def service_start(path: Path, number: int) -> None:
    """What the service's start reads: the journal opened to write, its snapshots, the
    table recovered (from the latest snapshot)."""
    with Journal.open(path) as journal:
        snapshots = Snapshots(path)
        try:
            assert recover(journal, snapshots).table.hand_number >= number
        finally:
            snapshots.close()


def history_hand(path: Path, number: int) -> None:
    assert main(["history", "--journal", str(path), "--hand", str(number), "--json"]) == 0


def sealed_hand(path: Path, number: int) -> None:
    """``history --hand`` of the last hand of the last segment (the last hand when none):
    the hand before it is the segment's, its snapshot the segment's too."""
    with Journal.open_read_only(path) as journal:
        closed = journal.sealed()
    history_hand(path, closed[-1].last_hand or number if closed else number)


def archive_hand(path: Path, number: int) -> None:
    assert hand_record(path, number)[1] is not None


def first_page(path: Path, number: int) -> None:
    """Surveillance's first ``GET /api/history`` (a new worker: nothing read yet)."""
    archive._summaries.clear()
    archive._replays.clear()
    listed = summaries(path)[1]
    assert listed[-1]["hand"] >= number, listed[-1]  # a hand ended since the last indexed too


def shipper_resume(path: Path, confirmed: Callable[[Snapshots], int]) -> None:
    """What the floor shipper's process (never the table's) does when it (re)connects to a
    floor that holds the journal up to position ``confirmed(snapshots)``: the journal and
    its snapshots opened, the check that the journal leads there (its entry there), the
    table rebuilt there (from the latest snapshot before it: ``point_at``), and the first
    batch derived (``derive``, the floor's default batch)."""
    with Journal.open(path, create=False) as journal:
        snapshots = Snapshots(path)
        try:
            position = confirmed(snapshots)
            assert journal.entry(position) is not None
            point = point_at(journal, snapshots, position)
            assert derive(journal, point, FloorSettings("").batch).entries
        finally:
            snapshots.close()


def hand_two(snapshots: Snapshots) -> int:
    """Midway through hand 2 (in the oldest segment of an old journal)."""
    span = snapshots.span(2)
    assert span is not None
    return (span.first + span.last) // 2


def whole_replay(path: Path, number: int) -> None:
    with Journal.open_read_only(path) as journal:
        assert any(hand.number == number for hand in recorded_hands(journal))


def disk(path: Path) -> int:
    files = [*path.parent.glob(f"{path.name}*"), *folder_of(path).glob("*")]
    return sum(p.stat().st_size for p in files if p.is_file())


def last_hand(path: Path) -> int:
    snapshots = Snapshots(path, read_only=True)
    try:
        last = snapshots.last_hand()
    finally:
        snapshots.close()
    assert last is not None
    return last.number


READINGS: dict[str, Callable[[Path, int], None]] = {
    "service start (s)": service_start,
    "history --hand N (s)": history_hand,
    "history --hand N-5 (s)": lambda path, number: history_hand(path, number - 5),
    "history --hand 2 (s)": lambda path, _: history_hand(path, 2),
    "history, a segment's last (s)": sealed_hand,
    "/api/history/N (s)": archive_hand,
    "/api/history (s)": first_page,
    "shipper resume, 1000 behind (s)": lambda path, _: shipper_resume(
        path, lambda snapshots: snapshots.last_position() - 1000
    ),
    "shipper resume at hand 2 (s)": lambda path, _: shipper_resume(path, hand_two),
}


def described(path: Path, seconds: float | None) -> dict[str, float | None]:
    hands = last_hand(path)
    return {
        "hands": hands,
        "made (hands/s)": hands / seconds if seconds else None,
        "disk (bytes/hand)": disk(path) / hands,
        "the file (MB)": path.stat().st_size / 1e6,
    }


def known(figures: dict[str, float | None], name: str) -> float:
    """``figures[name]``, a figure every journal has (None only for a copied journal's rate
    of making: it was not made here)."""
    value = figures[name]
    assert value is not None, name
    return value


def measure(journals: dict[Path, dict[str, float | None]], rounds: int, whole: bool) -> None:
    """Each reading of each journal, in turns (young, old, young, ...: the machine's load
    falls on both alike), the best of ``rounds``."""
    for _ in range(rounds):
        for path, figures in journals.items():
            hands = int(known(figures, "hands"))
            for name, reading in READINGS.items():
                took = timed(reading, path, hands)
                figures[name] = min(figures.get(name) or float("inf"), took)
    for path, figures in journals.items():
        if whole:
            figures["whole replay (s)"] = timed(whole_replay, path, int(known(figures, "hands")))
        with Journal.open_read_only(path) as journal:
            segments = len(journal.sealed())
        print(f"{int(known(figures, 'hands'))} hands ({segments} segments):")
        figures["segments"] = segments
        for name, value in figures.items():
            if name not in {"hands", "segments"} and value is not None:
                print(f"  {name:32} {value:12.3f}")


def run(args: argparse.Namespace) -> int:
    report = Report.start(__file__, args)
    rotation = Rotation(args.segment_hands, 0)
    with tempfile.TemporaryDirectory(dir=args.folder) as folder:
        journals = {}
        for hands in args.hands:
            path = Path(folder) / f"journal-{hands}.sqlite3"
            journals[path] = described(path, made(path, hands, args.seed, rotation))
            report.check("each journal made holds its hands", journals[path]["hands"] == hands)
        if args.reuse is not None:
            now = datetime.datetime.now(datetime.UTC)
            copy = backup(args.reuse, Path(folder), 1, now)
            copy.chmod(0o640)  # the service's start opens it to write
            journals[copy] = described(copy, None)
        measure(journals, args.rounds, args.whole)
    *_, old = figures = list(journals.values())
    young = figures[0]
    print("the oldest over the youngest:")
    for name in young:
        if "(s)" in name:
            ratio = known(old, name) / known(young, name)
            print(f"  {name:32} {ratio:12.2f}x")
            goal = f"<= {GOAL:g}x" if name != "whole replay (s)" else None
            met = ratio <= GOAL if goal else None
            report.row(
                f"{name[:-4]}, {old['hands']:,} hands over {young['hands']:,}",
                ratio,
                "x",
                goal,
                met,
            )
    disk_a_hand = known(old, "disk (bytes/hand)")
    report.row(f"disk a hand, {old['hands']:,} hands", disk_a_hand, "bytes")
    report.figures = {
        "segment_hands": args.segment_hands,
        "rounds": args.rounds,
        "journals": [{key: _rounded(value) for key, value in each.items()} for each in figures],
    }
    return report.finish()


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, nargs="+", default=[100, 10_000])
    parser.add_argument("--segment-hands", type=int, default=Rotation().hands)
    parser.add_argument("--reuse", type=Path, metavar="FILE", help="an old journal to copy")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--folder", type=Path, help="where to make the journals (default: /tmp)")
    parser.add_argument("--whole", action="store_true", help="also replay each journal whole")
    parser.add_argument("--rounds", type=int, default=5, help="readings of each (the best)")
    add_json_option(parser)
    raise SystemExit(run(parser.parse_args()))
