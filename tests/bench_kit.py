"""Running a benchmark of ``bench/`` in its short version, as a test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.figures import BENCHES

BENCH = Path(__file__).resolve().parent.parent / "bench"
ROW = {"what", "value", "unit", "goal", "met"}
MACHINE = {"cpu", "cpus", "memory_gib", "kernel", "python", "commit"}


def run_bench(script: str, *args: str, timeout: float = 600) -> str:
    """Run ``bench/<script>`` with ``args`` in this interpreter: its standard output, once
    it exited with status 0 (else the test fails with its output's end)."""
    done = subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    return done.stdout


def figures_of(script: str, report: Path) -> dict[str, Any]:
    """The JSON ``bench/<script>`` wrote to ``report`` (``--json``), checked well-formed
    (bench/figures_kit.py) and passed: every check of the benchmark's own held."""
    document = json.loads(report.read_text(encoding="utf-8"))
    assert document["bench"] == Path(script).stem
    assert isinstance(document["command"], list) and document["seconds"] >= 0
    assert set(document["machine"]) == MACHINE and document["machine"]["cpus"] >= 1
    assert [len(document["load_average"][when]) for when in ("before", "after")] == [3, 3]
    assert document["rows"], "no figure"
    for row in document["rows"]:
        assert set(row) == ROW, row
        assert isinstance(row["what"], str) and isinstance(row["unit"], str)
        assert row["met"] is None or row["goal"] is not None, row  # met only against a goal
    assert all(isinstance(ok, bool) for ok in document["checks"].values())
    assert document["passed"] == all(document["checks"].values())
    assert document["passed"], document["checks"]
    assert isinstance(document["figures"], dict)
    return document


def run_short(name: str, folder: Path, timeout: float = 600) -> tuple[str, dict[str, Any]]:
    """The short version of the benchmark ``name`` of bench/figures.py's BENCHES (as
    ``bench/figures.py run --short`` runs it): its output and its JSON, well-formed and
    passed."""
    bench = next(bench for bench in BENCHES if bench.name == name)
    report = folder / f"{name}.json"
    script, *args = bench.command(short=True)
    out = run_bench(Path(script).name, *args, "--json", str(report), timeout=timeout)
    return out, figures_of(script, report)


def rows(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A benchmark's rows by what they are."""
    return {row["what"]: row for row in document["rows"]}
