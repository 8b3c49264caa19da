"""The studio benchmark's short version: ``bench/studio.py`` with a hand a run deals with
the studio off and on, and knows the odds of every card (``--json``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench_kit import rows, run_short

pytestmark = pytest.mark.slow  # a benchmark's process


@pytest.mark.slow
def test_the_studio_knows_the_odds_of_every_card(tmp_path: Path) -> None:
    _, figures = run_short("studio", tmp_path)
    runs = figures["figures"]["runs"]
    assert list(runs) == [
        "full speed",
        "a card every 0.2 s",
        "a card every 0.2 s, the worker at nice 0",
    ]
    assert all(figures["checks"][f"{name}: every card's odds known"] for name in runs)
    goal = rows(figures)["card read to the studio's odds, a card every 0.2 s, p99"]
    assert goal["goal"] == "<= 250 ms"
