"""The cheat soak's short version: ``bench/cheat_soak.py`` with a few hands through the
simulators and the service: every cheat caught, the same as on the core; and how it reads
the summary's count of each kind."""

from __future__ import annotations

import pytest

from bench.cheat_soak import caught
from tests.bench_kit import run_bench


@pytest.mark.slow
def test_the_cheat_soak_catches_every_cheat_through_the_service_as_the_core_does() -> None:
    args = ("--hands", "6", "--cheats", "0.8", "--seed", "3")
    out = run_bench("cheat_soak.py", *args)
    assert out.rstrip().endswith("PASS")
    assert ", 0 missed;" in out and "the same as the core's: True" in out


def test_the_summary_is_read_kind_by_kind() -> None:
    output = "cheats: 3 injected, 2 caught (cloned 1/1, foreign 1/2); 1 missed\n"
    assert caught(output) == {"cloned": (1, 1), "foreign": (1, 2)}
    assert caught("cheats: none\n") == {}
