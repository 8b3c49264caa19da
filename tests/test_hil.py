"""Hardware-in-the-loop scenarios: every file in tests/scenarios/ against a ``luck-table
serve`` process and simulator processes (through the service's API), and ``luck-table
hil``'s verdicts and exit statuses."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import tomli_w

from controller.hil import load_scenario, run_scenario
from controller.hil.runner import PIN, table_config
from controller.hil.service import ServiceProcess
from tests.service_kit import simulator

pytestmark = pytest.mark.slow  # luck-table hil against a served table

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
            "step 2: resolve = 'fire': one of card_out_of_turn",
        ),
        ("[game]\nante = -1\n", "[table] or [game]: game.ante"),
        ("[[step]]\nplace = 2\n", "step 2: place: the table has no seat board"),
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


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--attach", "http://127.0.0.1:9"], "--attach URL goes with --dealer ID and --supervisor"),
        (["--dealer", "D1"], "--attach URL goes with --dealer ID and --supervisor"),
        (
            [
                "--attach",
                "http://127.0.0.1:9",
                "--shoe",
                "/dev/null",
                "--dealer",
                "D",
                "--supervisor",
                "S",
            ],
            "--attach: the service has its own devices and journal",
        ),
        (
            ["--attach", "http://127.0.0.1:9", "--dealer", "D", "--supervisor", "S"],
            "stops and starts the service: not with --attach",
        ),
    ],
)
def test_attach_options_are_checked_before_anything_runs(
    tmp_path: Path, options: list[str], said: str
) -> None:
    path = tmp_path / "power.toml"
    path.write_text(BASE + "[[step]]\nstop_service = true\n")
    done = hil(*options, str(path))
    assert done.returncode == 2, done.stdout + done.stderr
    assert said in done.stderr, done.stderr


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
        "[[step]]\nsit_down = 2\nbuy_in = 300\nexpect = { refused = 'buy_in_limit' }\n",
    )
    assert "taken, expected it refused ('buy_in_limit')" in done.stdout
    done = run_file(tmp_path, "[[step]]\nsit_down = 2\nbuy_in = 5000\n")
    assert "refused: " in done.stdout and "(buy_in_limit)" in done.stdout
    done = run_file(
        tmp_path, "[[step]]\nsit_down = 2\nbuy_in = 5000\nexpect = { refused = 'seat_taken' }\n"
    )
    assert "refused 'buy_in_limit'" in done.stdout and "expected 'seat_taken'" in done.stdout


DEVICE_STEPS = """
[[step]]
sit = 1
buy_in = 200

[[step]]
sit = 2
buy_in = 200

[[step]]
load = ["Kd", "7c", "2s", "9h", "4c", "Qs", "5d"]

[[step]]
new_hand = true

[[step]]
draw = 5
expect = { display = "BONUS CARD: seat 1, face down", lamps = { bonus = true, seats = [1] } }

[[step]]
fault = "jam"
expect = { alerts = ["device_fault"] }

[[step]]
clear = "jam"
expect = { alerts = [], display = "BONUS CARD: seat 1, face down" }
"""


def engineer(instruction: str) -> str:
    """The simulator control command that does what an instruction asks."""
    if instruction.startswith("a player sits down at seat "):
        return f"sit {instruction.rsplit(maxsplit=1)[-1]}"
    if instruction.startswith("load a deck of 52 cards, top first: "):
        return f"load cards={','.join(instruction.split(': ')[1].split())}"
    if instruction.startswith("draw a card"):
        return "draw"
    words = instruction.split()
    if words[0] == "make" and words[-1] == "shoe":
        return f"raise {words[2]}"
    if words[0] == "clear" and words[-1] == "shoe":
        return f"clear {words[2]}"
    raise AssertionError(f"no engineer knows how to {instruction!r}")


@contextlib.contextmanager
def attached(scenario: Path, shoe: str, seats: str, folder: Path) -> Iterator[list[str]]:
    """A ``luck-table serve`` of the scenario's table on these ports, already running: the
    ``luck-table hil`` options that attach to it."""
    config = folder / "table.toml"
    data = table_config(load_scenario(scenario), shoe, seats, folder / "t.sqlite", False)
    config.write_text(tomli_w.dumps(data))
    process = ServiceProcess(config, folder / "service.log")
    url = asyncio.run(process.start())
    try:
        yield ["--attach", url, "--dealer", "HIL", "--supervisor", "HIL"]
    finally:
        assert process.process is not None
        process.process.terminate()
        assert process.process.wait(30) == 0


@pytest.mark.parametrize("mode", ["started", "attached"])
def test_real_devices_each_physical_step_an_instruction_waited_for(
    tmp_path: Path, mode: str
) -> None:
    """The simulators stand in for real devices on --shoe and --seats (or for the devices of
    a service already running, with --attach); this test is the engineer: it does what each
    printed instruction says, through the control channels."""
    path = tmp_path / "devices.toml"
    path.write_text(DEVICE_STEPS)
    with contextlib.ExitStack() as stack:
        shoe = stack.enter_context(simulator("shoe"))
        seats = stack.enter_context(simulator("seats"))
        options = ["--shoe", shoe.port, "--seats", seats.port]
        if mode == "attached":
            options = stack.enter_context(attached(path, shoe.port, seats.port, tmp_path))
        luck_table = str(Path(sys.executable).parent / "luck-table")
        command = [luck_table, "hil", *options, str(path)]
        pins = {"LUCK_TABLE_DEALER_PIN": PIN, "LUCK_TABLE_SUPERVISOR_PIN": PIN}
        environment = os.environ | pins
        with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=environment) as run:
            assert run.stdout is not None
            said: list[str] = []
            for line in run.stdout:
                said.append(line)
                if line.startswith("  >>> "):
                    instruction = line.removeprefix("  >>> ").strip()
                    command_line = engineer(instruction)
                    (seats if command_line.startswith("sit") else shoe).command(command_line)
            assert run.wait(60) == 0, "".join(said)
    instructions = [line for line in said if line.startswith("  >>> ")]
    assert len(instructions) == 2 + 1 + 5 + 2  # sit, sit, load, 5 draws, jam, clear
    assert f"PASSED: {path} (7 of 7 steps)" in said[-1]
