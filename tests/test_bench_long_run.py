"""The long run's short version: ``bench/long_run.py`` deals a few hands through the table
service with its console and viewers, follows the service's memory hand by hand and writes
its figures as JSON. Only the long run judges the memory's growth (a few hands are all
warm-up); here every figure is there, every viewer kept its feed and the chips add up."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.bench_kit import BENCH


def test_the_long_run_follows_the_memory_and_keeps_every_viewer(tmp_path: Path) -> None:
    figures = tmp_path / "long_run.json"
    done = subprocess.run(
        [
            *(sys.executable, str(BENCH / "long_run.py"), "--hands", "6", "--viewers", "4"),
            *("--warm", "3", "--seats", "3", "--json", str(figures)),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode in (0, 1), done.stdout + done.stderr[-3000:]
    measured = json.loads(figures.read_text())
    assert measured["hands"] == 6 and measured["status"] == 0, measured
    assert measured["viewers_closed_early"] == 0 and measured["messages_per_viewer_min"] > 50
    assert measured["chips_conserved"] is True
    assert 0 < measured["rss_first_mib"] <= measured["rss_highest_after_warm_mib"]
    assert measured["met"] == (measured["growth_after_warm"] <= 0.10)
    assert ("NOT met" in done.stdout) == (done.returncode == 1)
