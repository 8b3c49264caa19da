"""The start-up benchmark, short: ``bench/startup.py`` with 3 runs of each command times
``python -c pass``, ``luck-table --version`` and a replay, against their goals (``--json``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench_kit import rows, run_short

pytestmark = pytest.mark.slow  # a benchmark's process


def test_the_start_up_benchmark_times_each_command(tmp_path: Path) -> None:
    _, figures = run_short("startup", tmp_path)
    measured = figures["figures"]
    assert measured["runs"] == 3
    assert measured["python -c pass"]["ratio"] == 1.0
    goals = {what: row["goal"] for what, row in rows(figures).items()}
    assert goals == {
        "luck-table --version, CPU": "<= 5x",
        "luck-table replay (one hand), CPU": "<= 10x",
    }
