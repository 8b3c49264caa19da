"""The cheat soak's short version: ``bench/cheat_soak.py`` with a few hands through the
simulators and the service: every cheat caught, the same as on the core; and how it reads
the summary's count of each kind."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.cheat_soak import caught
from tests.bench_kit import rows, run_short


@pytest.mark.slow
def test_the_cheat_soak_catches_every_cheat_through_the_service_as_the_core_does(
    tmp_path: Path,
) -> None:
    out, figures = run_short("cheat_soak", tmp_path)  # 6 hands, 0.8 cheats a deck, seed 3
    assert out.rstrip().endswith("PASS")
    assert ", 0 missed;" in out and "the same as the core's: True" in out
    assert figures["checks"] == {
        "both runs ended with status 0": True,
        "every cheat injected caught, at least one injected": True,
        "the cheats and the hands the same as the core's": True,
    }
    kinds = figures["figures"]["kinds"]
    assert (
        sum(kind["injected"] for kind in kinds.values())
        == rows(figures)["cheats injected"]["value"]
    )
    assert all(kind["caught"] == kind["injected"] for kind in kinds.values())


def test_the_summary_is_read_kind_by_kind() -> None:
    output = "cheats: 3 injected, 2 caught (cloned 1/1, foreign 1/2); 1 missed\n"
    assert caught(output) == {"cloned": (1, 1), "foreign": (1, 2)}
    assert caught("cheats: none\n") == {}
