"""The attack benchmark's short version: ``bench/table.py --attacks 2`` with 10 quiet cards and
floods of half a second runs every attack (sign-in bursts, 20 MiB bodies, tiny-frame and
big-frame feed floods, a player's decision flood, a PIN sweep from many addresses), each
refused as docs/security.md says, and writes its figures (``--json``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bench_kit import run_bench

pytestmark = pytest.mark.slow  # a benchmark's processes

SKIP_THE_REST = ("--cards", "0", "--hands", "0", "--kills", "0", "--history", "0")


def test_the_attack_benchmark_runs_every_attack(tmp_path: Path) -> None:
    report = tmp_path / "attacks.json"
    run_bench(
        "table.py",
        *SKIP_THE_REST,
        *("--resume", "0", "--rotations", "0", "--attacks", "2"),
        *("--attack-cards", "10", "--attack-seconds", "0.5", "--json", str(report)),
        timeout=120,
    )
    written = json.loads(report.read_text(encoding="utf-8"))
    assert written["bench"] == "table" and written["passed"], written["checks"]
    figures = written["figures"]["attacks"]
    attacks = figures["attacks"]
    assert list(attacks) == [
        "no request",
        "2 sign-ins, locked",
        "2 sign-ins, checked",
        "20 MiB bodies",
        "tiny-frame flood",
        "big-frame flood",
        "decision flood",
        "PIN sweep",
    ]
    assert attacks["no request"]["cards"] == 10
    for run in attacks.values():
        assert {"p50_ms", "p99_ms", "rss_before_mib", "rss_after_mib"} <= set(run)
    answers = {name: run["answers"] for name, run in attacks.items()}
    assert answers["20 MiB bodies"]["413"] >= 1
    assert answers["tiny-frame flood"]["closed 1008"] >= 1
    assert answers["big-frame flood"]["closed 1009"] >= 1
    assert set(answers["decision flood"]) <= {"403", "429"}
    assert answers["decision flood"]["403"] >= 1  # refused for what it is, then limited
    assert set(answers["PIN sweep"]) <= {"401", "429", "503", "given up"}  # never a 500
    assert figures["rss_growth_mib"] < 32  # the goal
    assert len(figures["load_average"]["before"]) == 3
