"""The simulated table's benchmark, short: ``bench/sim.py`` with 3 hands deals the same
hands through the service on the simulators and on the core (``--json``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench_kit import run_short

pytestmark = pytest.mark.slow  # a benchmark's process


def test_the_simulated_table_deals_the_same_hands_as_the_core(tmp_path: Path) -> None:
    _, figures = run_short("sim", tmp_path)
    assert figures["checks"] == {"the same hands on both": True}
    measured = figures["figures"]
    assert measured["hands"] == 3 and measured["cards"] > 3 * 2 * 5
    assert measured["journal_bytes"] > 0
