"""The floor benchmark's short version: ``bench/floor.py``'s casino floor with four tables
for three seconds and a month of three tables over two days runs, ships every entry of
every table, generates the month and times each of the pit's questions."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.bench_kit import figures_of, run_bench
from tests.floor_kit import floor_database

pytestmark = pytest.mark.slow  # PostgreSQL


def test_the_floor_benchmark_runs_a_small_casino_and_a_small_month(tmp_path: Path) -> None:
    with floor_database():  # skipped with the reason without a PostgreSQL
        pass
    out = run_bench(
        "floor.py",
        *("--parts", "casino,month", "--hands", "2"),
        *("--casino-tables", "4", "--casino-seconds", "3", "--connections", "2"),
        *("--month-tables", "3", "--month-days", "2", "--samples", "5"),
        *("--json", str(tmp_path / "floor.json")),
    )
    figures = figures_of("floor.py", tmp_path / "floor.json")
    casino = figures["figures"]["casino"]
    assert [(run["how"], run["tables"]) for run in casino] == [
        ("own", 1),
        ("own", 4),
        ("long", 1),
        ("long", 4),
    ]
    assert [run["entries"] for run in casino] == [6, 24, 6, 24]
    month = [row for row in figures["rows"] if row["what"].startswith("3 tables x 2 days: ")]
    assert len(month) == 4 and all(row["goal"] == "<= 100 ms" for row in month)  # the questions
    shipped = re.findall(r"(\d+) tables: table->floor .* \((\d+) entries, 3 s\)", out)
    # every entry of every table, sent whole and the long way (as before)
    assert shipped == [("1", "6"), ("4", "24")] * 2, out
    month = re.search(r"a month of a casino: 3 tables x 2 days, (\d+) hands", out)
    assert month is not None, out
    assert int(month[1]) == 3 * int(2 * 24 * 3600 / 70.6)
    questions = re.findall(r"^  (.+?) +p50 +[\d.]+ ms +p99 +[\d.]+ ms$", out, re.M)
    assert [q.strip() for q in questions] == [
        "floor view",
        "as before: with every hand in progress",
        "a table's drill-down",
        "as before: every chip movement",
        "hands per hour, floor, last 8 h",
        "as before: the hands of those hours",
        "the house's gaming day (GET /api/house)",
        "a pooled connection, SELECT 1",
        "as before: a connection per request",
    ]
