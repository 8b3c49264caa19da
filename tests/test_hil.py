"""Hardware-in-the-loop scenarios: every file in tests/scenarios/ against simulator
processes, and ``luck-table hil``'s verdicts and exit statuses."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from controller.hil import ScenarioError, load_scenario, run_scenario

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("*.toml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[path.stem for path in SCENARIOS])
def test_scenario(path: Path) -> None:
    lines: list[str] = []
    result = asyncio.run(run_scenario(load_scenario(path), lines.append))
    assert result.ok, "\n".join(lines)
    assert result.passed == len(result.scenario.steps)
