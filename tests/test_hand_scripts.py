"""Scenario hand scripts (tests/hands/NAME.json) replay to their expected outcomes.

``NAME.expected.json`` holds what must be found in ``luck-table replay NAME.json --json``:
objects match as subsets (every key given must match), lists match element by element
and must have the same length. Two extra keys: ``messages``, substrings that must appear
in the event messages in that order, and ``exit``, the exit status (0 unless given); and
``worked``, the expected outcome worked out by hand, line by line, for people to check
(not compared).
"""

import contextlib
import io
import json
from pathlib import Path

import pytest

from controller.cli import main

HANDS = Path(__file__).parent / "hands"
SCRIPTS = sorted(path for path in HANDS.glob("*.json") if not path.name.endswith(".expected.json"))


def assert_matches(actual, expected, where="output"):
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: expected an object, got {actual!r}"
        for key, value in expected.items():
            assert key in actual, f"{where}: missing {key!r}"
            assert_matches(actual[key], value, f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list), f"{where}: expected a list, got {actual!r}"
        assert len(actual) == len(expected), f"{where}: {len(actual)} items, not {len(expected)}"
        for index, (got, want) in enumerate(zip(actual, expected, strict=True)):
            assert_matches(got, want, f"{where}[{index}]")
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


def replay_json(path: Path) -> tuple[int, dict]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["replay", str(path), "--json"])
    return status, json.loads(out.getvalue())


def test_there_is_a_script_for_every_required_scenario():
    names = {path.stem for path in SCRIPTS}
    assert len(names) >= 20
    for path in SCRIPTS:
        assert (HANDS / f"{path.stem}.expected.json").exists(), path.name


@pytest.mark.parametrize("script", SCRIPTS, ids=[path.stem for path in SCRIPTS])
def test_scenario_replays_to_its_expected_outcome(script):
    expected = json.loads((HANDS / f"{script.stem}.expected.json").read_text())
    expected.pop("worked", None)
    messages = expected.pop("messages", [])
    exit_status = expected.pop("exit", 0)
    status, output = replay_json(script)
    assert status == exit_status, output.get("error")
    assert_matches(output, expected)
    events = iter(event["message"] for event in output["events"])
    for wanted in messages:
        assert any(wanted in message for message in events), f"no event {wanted!r} (in order)"
    if output["status"] == "complete":
        start = json.loads(script.read_text())["seats"]
        stacks = sum(seat["stack"] for seat in output["seats"].values())
        house = output.get("rake", 0) + output.get("jackpot_drop", 0)  # into the drop box
        assert stacks + house == sum(start.values())
