"""A journal's age, short: ``bench/journal_age.py`` on journals of 10 and 30 hands in
segments of 10 reads each the ways the service, the history, the console and the shipper
do, and compares the old journal's times with the young one's (``--json``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench_kit import run_short

pytestmark = pytest.mark.slow  # a benchmark's process


def test_the_journal_age_benchmark_reads_a_young_and_an_old_journal(tmp_path: Path) -> None:
    _, figures = run_short("journal_age", tmp_path)
    assert figures["checks"] == {"each journal made holds its hands": True}
    young, old = figures["figures"]["journals"]
    assert (young["hands"], old["hands"]) == (10, 30)
    assert old["segments"] > young["segments"] >= 1
    ratios = [row for row in figures["rows"] if row["unit"] == "x"]
    assert len(ratios) == 9 and all(row["goal"] == "<= 2x" for row in ratios)
