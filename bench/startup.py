"""Start-up cost of the command line: ``luck-table --version`` and ``luck-table replay``.

One command: ``.venv/bin/python bench/startup.py`` (``--runs N``, default 30; ``--json FILE``).
It runs, in turn and interleaved so that a busy moment of the machine falls on all three alike:

* ``python -c pass`` with the venv's Python: the comparison, the interpreter's own start;
* ``luck-table --version`` (the installed console script);
* ``luck-table replay`` of one hand script (``tests/hands/article4_worked_example.json``,
  a hand played to its showdown; checked once to end with the expected stacks).

Each run's CPU time is the user plus system time of the process and of what it waited for
(``os.wait4``: ``--version`` asks git for the commit in a checkout). It prints the median
and the fastest run of each, and each command's median as a multiple of ``python -c pass``
measured in this run, beside the goals: ``--version`` within 5x, ``replay`` within 10x.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from figures_kit import Report, add_json_option

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
HAND = ROOT / "tests" / "hands" / "article4_worked_example.json"
GOALS = {"luck-table --version": 5, "luck-table replay (one hand)": 10}


def cpu_seconds(command: list[str]) -> tuple[float, float]:
    """Run ``command`` (output discarded); its CPU time (user + system, its waited-for
    children included) and its wall time, in seconds."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)}: exit status {process.returncode}")
    return usage.ru_utime + usage.ru_stime, wall


def check_replay(luck_table: str) -> None:
    """The replay benchmarked plays the hand to the end, to the expected stacks."""
    out = subprocess.run(
        [luck_table, "replay", str(HAND), "--json"], capture_output=True, text=True, check=True
    )
    expected = json.loads(HAND.with_suffix(".expected.json").read_text(encoding="utf-8"))
    played = json.loads(out.stdout)
    stacks = {seat: played["seats"][seat]["stack"] for seat in expected["seats"]}
    if played["status"] != "complete" or stacks != {
        seat: entry["stack"] for seat, entry in expected["seats"].items()
    }:
        raise SystemExit(f"luck-table replay {HAND.name}: not the expected outcome")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=30, help="runs of each command")
    add_json_option(parser)
    args = parser.parse_args()
    report = Report.start(__file__, args)
    luck_table = str(BIN / "luck-table")
    check_replay(luck_table)
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "luck-table --version": [luck_table, "--version"],
        "luck-table replay (one hand)": [luck_table, "replay", str(HAND)],
    }
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    wall: dict[str, list[float]] = {name: [] for name in commands}
    for command in commands.values():  # a first run of each, not counted: warm caches
        cpu_seconds(command)
    for _ in range(args.runs):
        for name, command in commands.items():
            used, took = cpu_seconds(command)
            cpu[name].append(used)
            wall[name].append(took)

    print(f"machine {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs")
    print(f"python {platform.python_version()}, {args.runs} runs of each, interleaved")
    base = statistics.median(cpu["python -c pass"])
    print(f"{'command':30} {'CPU median':>11} {'CPU fastest':>12} {'wall median':>12} {'ratio':>7}")
    for name in commands:
        median = statistics.median(cpu[name])
        goal = f"  (goal: within {GOALS[name]}x)" if name in GOALS else ""
        print(
            f"{name:30} {median * 1000:8.1f} ms {min(cpu[name]) * 1000:9.1f} ms "
            f"{statistics.median(wall[name]) * 1000:9.1f} ms {median / base:6.1f}x{goal}"
        )
        report.figures[name] = {
            "cpu_median_ms": round(median * 1000, 2),
            "cpu_fastest_ms": round(min(cpu[name]) * 1000, 2),
            "wall_median_ms": round(statistics.median(wall[name]) * 1000, 2),
            "ratio": round(median / base, 2),
        }
        if name in GOALS:
            within = median / base <= GOALS[name]
            report.row(
                f"{name}, CPU", median / base, "x python -c pass", f"<= {GOALS[name]}x", within
            )
    report.figures["runs"] = args.runs
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
