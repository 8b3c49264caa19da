"""The feed benchmark's short version: ``bench/feeds.py`` with a few viewers and one hand
runs, measures the three ways (one viewer, every viewer on the table service, the public
viewers through a relay process) and finds every update delivered, in order."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench_kit import run_short

pytestmark = pytest.mark.slow  # a benchmark's processes


def test_the_feed_benchmark_runs_and_loses_no_update(tmp_path: Path) -> None:
    out, figures = run_short("feeds", tmp_path, timeout=300)  # 4 public viewers, 1 hand
    rows = [line.split() for line in out.splitlines() if line[:8].strip().isdigit()]
    ways = [(int(row[0]), row[1]) for row in rows]
    assert ways == [(1, "direct"), (12, "direct"), (12, "relay")]  # 4 public + 8 players
    for row in rows:
        measured, cards = row[2].split("/")
        assert measured == cards and int(cards) > 10, row  # every card reached every viewer
        assert row[10:12] == ["0", "0"], row  # none dropped, none out of order
    measured = figures["figures"]["ways"]
    assert [(way["viewers"], way["how"]) for way in measured] == ways
    assert all(way["complete"] == way["cards"] and way["dropped"] == 0 for way in measured)
    assert len(figures["checks"]) == 6
