"""The cheat soak's short version: ``bench/cheat_soak.py`` with a few hands through the
simulators and the service: every cheat caught, the same as on the core; and how it reads
the summary's count of each kind."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.cheat_soak import caught

BENCH = Path(__file__).resolve().parent.parent / "bench" / "cheat_soak.py"


@pytest.mark.slow
def test_the_cheat_soak_catches_every_cheat_through_the_service_as_the_core_does() -> None:
    args = ("--hands", "6", "--cheats", "0.8", "--seed", "3")
    done = subprocess.run(
        [sys.executable, str(BENCH), *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert done.stdout.rstrip().endswith("PASS")
    assert ", 0 missed;" in done.stdout and "the same as the core's: True" in done.stdout


def test_the_summary_is_read_kind_by_kind() -> None:
    output = "cheats: 3 injected, 2 caught (cloned 1/1, foreign 1/2); 1 missed\n"
    assert caught(output) == {"cloned": (1, 1), "foreign": (1, 2)}
    assert caught("cheats: none\n") == {}
