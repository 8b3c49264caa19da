"""The link soak's short version: ``bench/soak.py`` with 300 cards a phase, a cable pull and
two kills of the monitor loses, duplicates and reorders no card on the pty, on TCP and
through the monitor's journal (``--json``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench_kit import run_short

pytestmark = pytest.mark.slow  # a benchmark's process


@pytest.mark.slow
def test_the_soak_loses_no_card_in_any_phase(tmp_path: Path) -> None:
    _, figures = run_short("soak", tmp_path)
    assert set(figures["checks"]) == {
        "pty: no card lost, duplicated, out of order or wrong",
        "tcp: no card lost, duplicated, out of order or wrong",
        "monitor: no card lost, duplicated, out of order or wrong",
        "monitor: the journal equals the drawn cards, in order",
    }
    for phase in ("pty", "tcp", "monitor"):
        run = figures["figures"][phase]
        assert run["cards"] == 300 and run["lost"] == run["duplicated"] == 0
        assert len(run["probes"]) == 1  # the card drawn as the one cable pull ended
    assert figures["figures"]["monitor"]["kills"] == 2
