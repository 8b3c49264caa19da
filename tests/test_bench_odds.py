"""The odds benchmark's short version: ``bench/odds.py`` on one third-street hand and every
sixth-street point computes the odds, exact where the goal says, the exact fractions the
same as the baseline's where it ran to the end (``--json``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench_kit import rows, run_short

pytestmark = pytest.mark.slow  # a benchmark's process


def test_the_odds_benchmark_computes_exact_odds_equal_to_the_baseline(tmp_path: Path) -> None:
    _, figures = run_short("odds", tmp_path)
    assert figures["checks"] == {"exact odds equal the baseline's fractions": True}
    points = figures["figures"]["sixth_street"]
    assert {point["players"] for point in points} == set(range(2, 9))
    assert sum(point["same_as_baseline"] == "True" for point in points) >= 1
    assert rows(figures)["its standard error, max"]["goal"] == "<= 0.25 pp"
