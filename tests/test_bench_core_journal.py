"""The core-only journal writer's benchmark, short: ``bench/core_journal.py`` with a few
hands against the repository's last commit: the same hands on each, the two journals alike,
and each figure printed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.bench_kit import figures_of, rows

pytestmark = pytest.mark.slow  # processes

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench" / "core_journal.py"


def test_the_writer_is_timed_beside_the_core_and_another_revision_s_writer(
    tmp_path: Path,
) -> None:
    git = ["git", "-C", str(ROOT), "rev-parse", "HEAD"]
    head = subprocess.run(git, capture_output=True, check=False)
    if head.returncode != 0:
        pytest.skip("not in a git repository: no revision to compare with")
    done = subprocess.run(
        [
            *(sys.executable, str(BENCH), "--hands", "3", "--rounds", "1", "--against", "HEAD"),
            *("--json", str(tmp_path / "core_journal.json")),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("3 hands, 6 seats, seed 1, 1 rounds")
    for name in ("core, no journal", "writer (this tree)", "writer (HEAD)"):
        assert sum(
            line.strip().startswith(name) and "hands/s" in line and "ms CPU a hand" in line
            for line in lines
        )
    assert "same journal as HEAD's" in done.stdout
    assert "this tree over HEAD:" in lines[-1] and "the hands a second" in lines[-1]
    figures = figures_of("core_journal.py", tmp_path / "core_journal.json")
    assert figures["checks"] == {
        "every run dealt the same hands": True,
        "the same journal as HEAD's": True,
    }
    assert rows(figures)["the writer, best round"]["goal"] == ">= 100 hands/s"
