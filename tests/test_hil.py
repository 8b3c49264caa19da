"""Hardware-in-the-loop scenarios: every file in tests/scenarios/ against simulator
processes, and ``luck-table hil``'s verdicts and exit statuses."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from controller.hil import load_scenario, run_scenario

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("*.toml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[path.stem for path in SCENARIOS])
def test_scenario(path: Path) -> None:
    lines: list[str] = []
    result = asyncio.run(run_scenario(load_scenario(path), lines.append))
    assert result.ok, "\n".join(lines)
    assert result.passed == len(result.scenario.steps)


def hil(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).parent / "luck-table"), "hil", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )


BASE = """
[table]
seat_board = false
[[step]]
sit_down = 1
buy_in = 200
expect = { stacks = { 1 = 200 }, display = "LOAD A DECK" }
"""


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[[step]]\ndraw = 0\n", "step 2: draw = 0: a whole number, at least 1"),
        ("[[step]]\ndraw = 1\nplace = 3\n", "step 2: a step takes exactly one action"),
        ("[[step]]\nload = ['As', 'Zz']\n", "step 2: load = 'Zz'"),
        ("[[step]]\ndecide = '2 dance'\n", "step 2: decide: '2 dance': 'dance' is not a decision"),
        (
            "[[step]]\nnew_hand = true\nexpect = { colour = 'red' }\n",
            "step 2: expect: unknown key 'colour'",
        ),
        (
            "[[step]]\nfault = 'jam'\ndevice = 'seat_board'\n",
            "step 2: the seat_board has no jam fault",
        ),
        (
            "[[step]]\nresolve = 'fire'\nremedy = 'done'\n",
            "step 2: resolve = 'fire': an alert kind",
        ),
        ("[game]\nante = -1\n", "[table] or [game]: game.ante"),
        ("[[step\n", "is not valid TOML"),
    ],
)
def test_a_bad_scenario_file_exits_2_naming_the_file_the_step_and_what_is_wrong(
    tmp_path: Path, text: str, said: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(BASE + text)
    done = hil(str(path))
    assert done.returncode == 2, done.stdout + done.stderr
    assert str(path) in done.stderr and said in done.stderr, done.stderr


def run_file(folder: Path, steps: str) -> subprocess.CompletedProcess[str]:
    """``luck-table hil`` on a scenario of BASE and then ``steps``; exit status 1 expected."""
    path = folder / "scenario.toml"
    path.write_text(BASE + steps)
    done = hil(str(path))
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"FAILED at step 2: {path}" in done.stdout
    return done


def test_a_failed_expectation_exits_1_saying_what_differs_and_what_was_not_run(
    tmp_path: Path,
) -> None:
    done = run_file(
        tmp_path,
        "[[step]]\nsit_down = 2\nbuy_in = 300\nexpect = { stacks = { 2 = 200 } }\n"
        "[[step]]\nnew_hand = true\n",
    )
    assert "ok   step  1" in done.stdout
    assert "FAIL step  2" in done.stdout
    assert "seat 2's stack is 300, expected 200" in done.stdout
    assert "1 steps not run" in done.stdout


def test_a_refusal_is_a_failure_unless_expected(tmp_path: Path) -> None:
    done = run_file(
        tmp_path,
        "[[step]]\nsit_down = 2\nbuy_in = 300\nexpect = { refused = 'buy-in' }\n",
    )
    assert "taken, expected it refused ('buy-in')" in done.stdout
    done = run_file(tmp_path, "[[step]]\nsit_down = 2\nbuy_in = 5000\n")
    assert "refused: " in done.stdout and "5000" in done.stdout
