"""The long run's short version: ``bench/long_run.py`` deals a few hands through the table
service with its console and viewers, follows the service's memory hand by hand and writes
its figures as JSON. Only the long run judges the memory's growth (a few hands are all
warm-up); here every figure is there, every viewer kept its feed and the chips add up."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench_kit import rows, run_short

pytestmark = pytest.mark.slow  # a benchmark's process


def test_the_long_run_follows_the_memory_and_keeps_every_viewer(tmp_path: Path) -> None:
    _, figures = run_short("long_run", tmp_path)  # 6 hands, 10 viewers (2 addresses)
    assert figures["checks"] == {
        "the sim ended with status 0": True,
        "every viewer kept its feed": True,
        "the chips conserved": True,
    }
    measured = figures["figures"]
    assert measured["hands"] == 6 and measured["messages_per_viewer_min"] > 50
    assert 0 < measured["rss_first_mib"] <= measured["rss_highest_after_warm_mib"]
    growth = rows(figures)["memory growth after hand 3"]
    assert growth["goal"] == "<= 10%" and growth["met"] == (measured["growth_after_warm"] <= 0.10)
