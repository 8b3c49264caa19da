"""The pace of ``luck-table sim --core-only --journal``'s writer (``controller.sim.core_journal``):
hands a second (the wall clock: the goal) and CPU time a hand (``time.process_time`` with the
CPU of the processes it started, its journal's writer: less moved by the machine's load
than the wall clock), against the same hands on the table core without a journal, and with
``--against REV`` against the writer of another revision of this repository (its tree taken
with ``git archive``), all in the same run: each round runs each in a process of its own, in
turns, so that the machine's load falls on all alike; each process deals one hand untimed
first (what is made once a process, as the evaluator's tables, is not a hand's cost). The
best round of each and the median are printed.

The same seed deals the same hands on each (their fingerprints are checked equal), and with
``--against`` the two journals are checked to hold the same entries (their hash chains
included), snapshots and index of hands.

    .venv/bin/python bench/core_journal.py [--hands 1000] [--rounds 3] [--against main]
        [--seed 1] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from contextlib import closing
from io import BytesIO
from pathlib import Path
from typing import TypedDict

from figures_kit import Report, add_json_option

from controller.journal import Entry, Journal
from controller.journal.rotation import Rotation
from controller.rules import Rules, evaluator
from controller.sim.core_journal import CoreJournal
from controller.sim.dealer import Dealer, Tally
from controller.sim.floor import CoreFloor
from controller.table import TableSettings

ROOT = Path(__file__).resolve().parent.parent
GOAL = 100  # hands a second of wall time, the writer of this tree (docs/performance.md)


class Dealt(TypedDict):
    """A run of ``deal``: its hands, the seconds and CPU seconds they took (all, and the
    journal's writer's), their fingerprint."""

    hands: int
    wall: float
    cpu: float
    writer_cpu: float
    digest: str


def deal(hands: int, seed: int, journal: Path | None) -> Dealt:
    """``hands`` hands on the core (journaled at ``journal``, rotating as the service's
    does); the seconds and CPU seconds they took and their fingerprint."""
    writer = None if journal is None else CoreJournal(journal, Rotation())
    tally = Tally()
    floor = CoreFloor(TableSettings(), tally.observe, start=1_700_000_000_000, journal=writer)
    wall, cpu, writers = time.perf_counter(), time.process_time(), _children_cpu()
    try:
        asyncio.run(Dealer(floor, tally, seats=6, hands=hands, seed=seed).run())
    finally:
        if writer is not None:
            writer.close()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    writers = _children_cpu() - writers
    return {
        "hands": tally.hands,
        "wall": wall,
        "cpu": cpu + writers,
        "writer_cpu": writers,
        "digest": tally.hand_digest,
    }


def prepare_evaluator() -> None:
    """Build the evaluator's whole tables (``prepare``; a revision from before it has the
    same under its private name)."""
    prepare = getattr(evaluator, "prepare", None)
    if prepare is None:
        evaluator._whole_tables(Rules())
    else:
        prepare()


def _children_cpu() -> float:
    """The CPU seconds of this process's children that have ended (its journal's writer)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def in_process(tree: Path, args: argparse.Namespace, journal: Path | None) -> Dealt:
    """:func:`deal` in a new process, with the ``controller`` of ``tree``."""
    command = [sys.executable, str(Path(__file__).resolve()), "--child"]
    command += ["--hands", str(args.hands), "--seed", str(args.seed)]
    if journal is not None:
        command += ["--journal", str(journal)]
    environment = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(command, env=environment, capture_output=True, text=True, check=True)
    dealt: Dealt = json.loads(done.stdout)  # the child's ``deal``
    return dealt


def tree_of(revision: str, folder: Path) -> Path:
    """The repository's files at ``revision``, in ``folder``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def contents(path: Path) -> tuple[list[Entry], list[tuple[object, ...]], list[tuple[object, ...]]]:
    """What two journals of the same hands must hold alike: every entry (through the
    segments), the snapshots and the index of hands of the journal's file."""
    with Journal.open_read_only(path) as journal:
        entries = list(journal.entries())
    with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as db:
        snapshots = db.execute("SELECT * FROM table_snapshots ORDER BY position").fetchall()
        index = db.execute("SELECT * FROM hand_index ORDER BY hand_number").fetchall()
    return entries, snapshots, index


def run(args: argparse.Namespace) -> int:
    report = Report.start(__file__, args)
    with tempfile.TemporaryDirectory() as folder:
        trees = {"this tree": ROOT}
        if args.against:
            trees[args.against] = tree_of(args.against, Path(folder) / "against")
        runs: dict[str, list[Dealt]] = {"core, no journal": []}
        runs.update({f"writer ({name})": [] for name in trees})
        for number in range(args.rounds):
            runs["core, no journal"].append(in_process(ROOT, args, None))
            for tag, (name, tree) in enumerate(trees.items()):
                journal = Path(folder) / f"journal-{tag}-{number}.sqlite3"
                runs[f"writer ({name})"].append(in_process(tree, args, journal))
        digests = {done["digest"] for each in runs.values() for done in each}
        report.check("every run dealt the same hands", len(digests) == 1)
        if args.against:  # the first round's journals
            mine, theirs = (contents(Path(folder) / f"journal-{tag}-0.sqlite3") for tag in (0, 1))
            same = report.check(f"the same journal as {args.against}'s", mine == theirs)
    hands = runs["core, no journal"][0]["hands"]
    print(f"{hands} hands, 6 seats, seed {args.seed}, {args.rounds} rounds (best, median):")
    best: dict[str, tuple[float, float]] = {}
    for name, each in runs.items():
        wall = [hands / done["wall"] for done in each]
        cpu = [done["cpu"] / hands for done in each]
        writer = [done["writer_cpu"] / hands for done in each]
        best[name] = max(wall), min(cpu)
        report.figures[name] = {
            "hands_per_s": [round(pace, 2) for pace in wall],
            "cpu_ms_a_hand": [round(1000 * spent, 3) for spent in cpu],
            "writer_cpu_ms_a_hand": [round(1000 * spent, 3) for spent in writer],
        }
        print(
            f"  {name:<24} {max(wall):6.1f} {statistics.median(wall):6.1f} hands/s   "
            f"{1000 * min(cpu):6.2f} {1000 * statistics.median(cpu):6.2f} ms CPU a hand "
            f"(the writer's process {1000 * min(writer):5.2f})"
        )
    paces = [hands / done["wall"] for done in runs["writer (this tree)"]]
    report.row(
        "the writer, best round", max(paces), "hands/s", f">= {GOAL} hands/s", max(paces) >= GOAL
    )
    report.row("the writer, median", statistics.median(paces), "hands/s")
    core = max(hands / done["wall"] for done in runs["core, no journal"])
    report.row("the table core alone, best round", core, "hands/s")
    report.figures |= {"hands": hands, "seed": args.seed, "rounds": args.rounds}
    if args.against:
        print(f"  same journal as {args.against}'s: entries, chain, snapshots, index: {same}")
        (pace, spent), (their_pace, they_spent) = (
            best["writer (this tree)"],
            best[f"writer ({args.against})"],
        )
        print(
            f"  this tree over {args.against}: {pace / their_pace:.2f}x the hands a second, "
            f"{they_spent / spent:.2f}x less CPU a hand"
        )
        report.row(f"this tree's writer over {args.against}'s", pace / their_pace, "x hands/s")
    return report.finish()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--against", metavar="REV", help="a revision's writer beside this one")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--journal", type=Path, help=argparse.SUPPRESS)
    add_json_option(parser)
    chosen = parser.parse_args()
    if chosen.child:
        prepare_evaluator()  # untimed, as a long run's start (``sim --core-only``) does
        deal(1, chosen.seed, None)  # untimed: what else a process makes once
        print(json.dumps(deal(chosen.hands, chosen.seed, chosen.journal)))
    else:
        sys.exit(run(chosen))
