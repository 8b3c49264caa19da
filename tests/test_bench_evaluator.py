"""The evaluator benchmark's short version: ``bench/evaluator.py`` on 3,000 hands a set runs,
finds no disagreement with the reference, and writes its figures (``--json``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench_kit import rows, run_short

pytestmark = pytest.mark.slow  # a benchmark's process


def test_the_evaluator_benchmark_runs_and_agrees_with_the_reference(tmp_path: Path) -> None:
    pytest.importorskip("eval7", reason="eval7 is the bench extra's (make bench)")
    _, figures = run_short("evaluator", tmp_path)
    assert figures["checks"] == {
        "no disagreement": True,
        "stud keys order and tie as eval7's": True,
    }
    assert rows(figures)["disagreements with the reference"]["value"] == 0
    sets = figures["figures"]["sets"]
    assert len(sets) == 4 and all(each["disagreements"] == 0 for each in sets.values())
    assert all(each["evaluate"] > 0 and each["evaluate_many"] > 0 for each in sets.values())
