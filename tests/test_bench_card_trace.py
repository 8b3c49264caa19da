"""The card trace's short version: ``bench/card_trace.py`` with 30 cards, alone and with a
floor, times every card at each stage of its path (``--json``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench_kit import run_short
from tests.floor_kit import floor_database

pytestmark = pytest.mark.slow  # a benchmark's process

STAGES = ["card", "to the service", "its commit", "the table", "published"]


@pytest.mark.slow
def test_the_card_trace_times_each_stage_of_every_card(tmp_path: Path) -> None:
    with floor_database():  # skipped with the reason without a PostgreSQL
        pass
    _, figures = run_short("card_trace", tmp_path)
    for way in ("alone", "floor"):
        traced = figures["figures"][way]
        assert traced["cards"] == 30 and list(traced["stages"]) == STAGES
        assert all(stage["p50_ms"] is not None for stage in traced["stages"].values())
        assert traced["commits"] >= 30
