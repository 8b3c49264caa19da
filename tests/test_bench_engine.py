"""The engine benchmark's short version: ``bench/engine.py`` on 100 hands plays them on the
engine and on pokerkit and writes each rate and its ratio to pokerkit's (``--json``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench_kit import rows, run_short

pytestmark = pytest.mark.slow  # a benchmark's process


def test_the_engine_benchmark_plays_the_hands_on_both(tmp_path: Path) -> None:
    _, figures = run_short("engine", tmp_path)
    rates = figures["figures"]["hands_per_second"]
    assert len(rates) == 3 and all(rate > 0 for rate in rates.values())
    for name in (
        "seven-card stud (pokerkit conventions)",
        "Luck of the Irish (default house rules)",
    ):
        row = rows(figures)[f"engine, {name}"]
        assert row["unit"] == "x pokerkit" and row["goal"] == ">= 5x"
        assert row["met"] == (row["value"] >= 5)
