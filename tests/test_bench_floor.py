"""The floor benchmark's short version: ``bench/floor.py``'s casino floor with four tables
for three seconds and a month of three tables over two days runs, ships every entry of
every table, generates the month and times each of the pit's questions."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.floor_kit import floor_database

BENCH = Path(__file__).resolve().parent.parent / "bench" / "floor.py"


def test_the_floor_benchmark_runs_a_small_casino_and_a_small_month() -> None:
    with floor_database():  # skipped with the reason without a PostgreSQL
        pass
    done = subprocess.run(
        [
            *(sys.executable, str(BENCH), "--parts", "casino,month", "--hands", "2"),
            *("--casino-tables", "4", "--casino-seconds", "3", "--connections", "2"),
            *("--month-tables", "3", "--month-days", "2", "--samples", "5"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    shipped = re.findall(r"(\d+) tables: table->floor .* \((\d+) entries, 3 s\)", done.stdout)
    # every entry of every table, sent whole and the long way (as before)
    assert shipped == [("1", "6"), ("4", "24")] * 2, done.stdout
    month = re.search(r"a month of a casino: 3 tables x 2 days, (\d+) hands", done.stdout)
    assert month is not None, done.stdout
    assert int(month[1]) == 3 * int(2 * 24 * 3600 / 70.6)
    questions = re.findall(r"^  (.+?) +p50 +[\d.]+ ms +p99 +[\d.]+ ms$", done.stdout, re.M)
    assert [q.strip() for q in questions] == [
        "floor view",
        "as before: with every hand in progress",
        "a table's drill-down",
        "as before: every chip movement",
        "hands per hour, floor, last 8 h",
        "as before: the hands of those hours",
        "a pooled connection, SELECT 1",
        "as before: a connection per request",
    ]
