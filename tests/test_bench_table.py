"""The table service benchmark's short version: ``bench/table.py`` with 30 cards alone, with
a floor and with 2 viewers (a), 50 hands recovered (b, c), 20 hands of history read (e), a
floor catching up 5 hands (g) and the journal rotating every 5 hands (h): every card dealt,
the table recovered to its last input, each part's figures written (``--json``). (d) is the
recovery test itself (tests/test_service_recovery.py); (f) is test_bench_table_attacks.py's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench_kit import rows, run_short
from tests.floor_kit import floor_database

pytestmark = pytest.mark.slow  # a benchmark's process


@pytest.mark.slow
def test_the_table_benchmark_runs_each_part(tmp_path: Path) -> None:
    with floor_database():  # skipped with the reason without a PostgreSQL
        pass
    _, figures = run_short("table", tmp_path)
    parts = figures["figures"]
    assert list(parts) == ["latency", "recovery", "history", "resume", "rotations"]
    latency = parts["latency"]
    runs = ["whole service", "with a floor", "floor+2 viewers"]
    assert [latency[name]["cards"] for name in runs] == [30, 30, 30]
    assert all(figures["checks"][f"(a) {name}: every card dealt"] for name in runs)
    assert figures["checks"]["(b) recovered to the journal's last input"]
    assert parts["recovery"]["hands"] == 50 and parts["recovery"]["bytes_a_hand"] > 0
    assert parts["history"]["hands"] > 0 and parts["history"]["while it is read"]["cards"] > 0
    assert set(parts["resume"]) == {"thread", "process"}
    assert parts["resume"]["process"]["catching_up"]["cards"] > 0
    rotated = parts["rotations"]["pauses"]
    assert rotated["rotation_s"] and rotated["during a rotation"]["cards"] > 0
    goal = rows(figures)["(a) whole service, p99"]["goal"]
    assert goal == "<= wire + 10 ms = 12.08 ms"
