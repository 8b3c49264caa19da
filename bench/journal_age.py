"""What a journal's age costs a reader of one hand: ``luck-table history --hand N`` (the
last hand) and the console's hand lookup (``GET /api/history/{hand}``'s worker function),
on a young journal and an old one, each made by ``luck-table sim --core-only --journal``'s
writer (``controller.sim.core_journal``) in this run, with the same reading by a replay
of the whole journal (what both did before the index of hands) for comparison.

Prints, for each journal: how fast it was made (hands a second), its size on disk per
hand, the time of each reading, and at the end the old journal's times over the young
one's (the goal: within 2x).

    .venv/bin/python bench/journal_age.py [--hands 100 10000] [--seed S] [--folder DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from controller.cli import main
from controller.history.hands import recorded_hands
from controller.journal import Journal
from controller.sim.core_journal import CoreJournal
from controller.sim.dealer import Dealer, Tally
from controller.sim.floor import CoreFloor
from controller.table import TableSettings
from dealer_ui.archive import hand_record


def made(path: Path, hands: int, seed: int) -> float:
    """A journal of ``hands`` hands at ``path``; the seconds it took."""
    tally = Tally()
    started = time.perf_counter()
    journal = CoreJournal(path)
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


def history_hand(path: Path, number: int) -> None:
    assert main(["history", "--journal", str(path), "--hand", str(number), "--json"]) == 0


def archive_hand(path: Path, number: int) -> None:
    assert hand_record(path, number)[1] is not None


def whole_replay(path: Path, number: int) -> None:
    with Journal.open_read_only(path) as journal:
        assert any(hand.number == number for hand in recorded_hands(journal))


def measure(folder: Path, hands: int, seed: int) -> dict[str, float]:
    path = folder / f"journal-{hands}.sqlite3"
    seconds = made(path, hands, seed)
    size = sum(p.stat().st_size for p in folder.glob(f"{path.name}*") if p.is_file())
    figures = {
        "made (hands/s)": hands / seconds,
        "disk (bytes/hand)": size / hands,
        "history --hand N (s)": min(timed(history_hand, path, hands) for _ in range(3)),
        "archive lookup (s)": min(timed(archive_hand, path, hands) for _ in range(3)),
        "whole replay (s)": timed(whole_replay, path, hands),
    }
    print(f"{hands} hands:")
    for name, value in figures.items():
        print(f"  {name:24} {value:12.3f}")
    return figures


def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(dir=args.folder) as folder:
        results = [measure(Path(folder), hands, args.seed) for hands in args.hands]
    young, old = results[0], results[-1]
    print(f"{args.hands[-1]} hands over {args.hands[0]} hands:")
    for name in ("history --hand N (s)", "archive lookup (s)", "whole replay (s)"):
        print(f"  {name:24} {old[name] / young[name]:12.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, nargs="+", default=[100, 10_000])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--folder", type=Path, help="where to make the journals (default: /tmp)")
    run(parser.parse_args())
