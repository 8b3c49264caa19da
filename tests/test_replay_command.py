"""``luck-table replay``: script validation, exit statuses, output shapes, the history."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import main
from controller.rules import Illegal

HANDS = Path(__file__).parent / "hands"


def run(capsys, script, *extra):
    if isinstance(script, (dict, list)):
        script = json.dumps(script)
    sys_stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(script.encode()))
    try:
        status = main(["replay", "-", *extra])
    finally:
        sys.stdin = sys_stdin
    captured = capsys.readouterr()
    return status, captured.out, captured.err


TWO = {"1": 100, "2": 100}


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("{not json", "invalid JSON"),
        ("[]", "a hand script is a JSON object"),
        ({"seats": TWO, "colour": 1}, "unknown field 'colour'"),
        ({"seats": TWO, "rules": {"speed": 3}}, "unknown setting 'speed'"),
        ({"seats": TWO, "rules": {"burn": "yes"}}, "rules.burn"),
        ({"seats": {"1": 100, "9": 100}}, "'9' is not a seat"),
        ({"seats": {"0": 100, "1": 100}}, "'0' is not a seat"),
        ({"seats": {"1": 100}}, "at least 2 seats"),
        ({"seats": {"1": 100, "2": 0}}, "stack 0 is not a positive"),
        ({"seats": TWO, "cards": ["Kd", "Zz"]}, "cards[1]"),
        ({"seats": TWO, "actions": [{"seat": 1, "do": "dance"}]}, "actions[0]: 'do': 'dance'"),
        ({"seats": TWO, "actions": [{"seat": 1, "do": "call", "size": 3}]}, "unknown field 'size'"),
    ],
)
def test_invalid_scripts_are_errors_naming_the_problem_with_exit_status_2(capsys, script, message):
    status, out, _ = run(capsys, script, "--json")
    assert status == 2
    result = json.loads(out)
    assert result["status"] == "error"
    assert message in result["error"]["message"]


def given_twice(outcome: dict) -> int:
    """The index of the card an outcome refuses as given twice (its words say why too)."""
    error = outcome["error"]
    assert error["code"] == Illegal.CARD_IN_PLAY and error["message"], error
    return error["card"]


def test_a_card_given_twice_is_named_by_its_index(capsys):
    status, out, _ = run(capsys, {"seats": TWO, "cards": ["Kd", "7c", "Kd"]}, "--json")
    assert status == 2
    result = json.loads(out)
    assert given_twice(result) == 2


def test_a_card_given_twice_beyond_what_the_engine_asked_for_is_still_refused(capsys):
    cards = ["Kd", "7c", "As", "Qh", "8d", "9s", "2c", "Kd"]
    status, out, _ = run(capsys, {"seats": TWO, "cards": cards}, "--json")
    assert status == 2
    assert given_twice(json.loads(out)) == 7


def eight_players_through_a_scramble(actions: int) -> dict:
    """Eight players reach seventh street with one card in the stub: the three burns
    (9c before fourth street, 6h before fifth, 3s before sixth) are scrambled back and the
    community card comes from them: 9c, burned first, comes out a second time."""
    script = json.loads((HANDS / "stub_too_short.json").read_text())
    assert script["cards"].count("9c") == 2
    script["actions"] = script["actions"][:actions]
    return script


def test_a_burned_card_that_comes_again_after_the_scramble_is_legal_before_it_is_reached(
    capsys,
):
    # Only third street's first actions: the engine stops long before the scramble.
    for actions in (0, 3, 8, 16):
        status, out, _ = run(capsys, eight_players_through_a_scramble(actions), "--json")
        assert status == 0, out
        assert json.loads(out)["status"] == "waiting"
    status, out, _ = run(capsys, eight_players_through_a_scramble(40), "--json")
    assert status == 0
    assert json.loads(out)["community"] == ["9c"]


def test_beyond_the_engine_a_card_in_play_is_still_refused_with_eight_players(capsys):
    script = eight_players_through_a_scramble(3)
    script["cards"][51] = "As"  # dealt to seat 2 on third street: never comes out again
    status, out, _ = run(capsys, script, "--json")
    assert status == 2
    assert given_twice(json.loads(out)) == 51


def test_beyond_the_engine_no_card_comes_out_three_times(capsys):
    script = eight_players_through_a_scramble(3)
    script["cards"][50] = "9c"  # burned, scrambled back and dealt: a third time is too many
    status, out, _ = run(capsys, script, "--json")
    assert status == 2
    assert given_twice(json.loads(out)) == 51


def test_beyond_the_engine_a_burn_cannot_come_again_when_no_scramble_can_happen(capsys):
    # Six players need at most 6 x 7 cards, a bonus card and 4 burns: 47, no scramble.
    six = {str(seat): 100 for seat in range(1, 7)}
    cards = json.loads((HANDS / "stub_too_short.json").read_text())["cards"]
    cards = [*cards[:18], "2c", *cards[19:26], "2c"]  # 2c burned before fourth, then again
    status, out, _ = run(capsys, {"seats": six, "cards": cards}, "--json")
    assert status == 2
    assert given_twice(json.loads(out)) == 26
    script = eight_players_through_a_scramble(3)
    script["rules"] = {"burn": False}
    status, out, _ = run(capsys, script, "--json")
    assert status == 2
    assert given_twice(json.loads(out)) == 51


def test_a_decision_before_the_engine_wants_it_is_an_error(capsys):
    script = {"seats": TWO, "cards": ["Kd", "7c"], "actions": [{"seat": 1, "do": "call"}]}
    status, out, _ = run(capsys, script, "--json")
    assert status == 1
    result = json.loads(out)
    assert (result["error"]["action"], result["error"]["code"]) == (0, Illegal.NOT_BETTING)
    assert "waiting_for" not in result


def test_waiting_for_a_card_names_its_destination(capsys):
    status, out, _ = run(capsys, {"seats": TWO, "cards": ["Kd"]}, "--json")
    assert status == 0
    result = json.loads(out)
    assert result["status"] == "waiting"
    assert result["waiting_for"] == {
        "kind": "card",
        "destination": "seat",
        "seat": 2,
        "face": "down",
        "street": 3,
    }
    assert result["pots"] == [{"amount": 2, "eligible": [1, 2], "winners": [], "shares": {}}]
    assert "error" not in result


def test_output_has_every_field_of_the_contract(capsys):
    status, out, _ = run(capsys, (HANDS / "article4_worked_example.json").read_text(), "--json")
    result = json.loads(out)
    assert status == 0
    assert set(result) == {"status", "seats", "community", "burns", "pots", "events"}
    seat = result["seats"]["1"]
    assert set(seat) == {"cards", "folded", "stack", "best"}
    assert set(seat["best"]) == {"category", "ranks"}
    assert result["burns"] == ["3c", "3d", "3h", "3s"]
    assert all({"kind", "message"} <= set(event) for event in result["events"])


def test_human_history_goes_street_by_street(capsys):
    status, out, _ = run(capsys, (HANDS / "article4_worked_example.json").read_text())
    assert status == 0
    headers = [line for line in out.splitlines() if line.startswith("***")]
    assert headers == [
        "*** THIRD STREET ***",
        "*** FOURTH STREET ***",
        "*** FIFTH STREET ***",
        "*** SIXTH STREET ***",
        "*** SEVENTH STREET ***",
    ]
    assert "  seat 1: Js down (bonus card)" in out
    assert "pot of 106 to seat 1: King-high straight flush" in out
    assert out.rstrip().endswith("stacks: seat 1 253, seat 2 147")


def test_human_output_reports_script_errors_on_stderr(capsys):
    status, out, err = run(capsys, "{")
    assert status == 2
    assert out == ""
    assert err.startswith("luck-table replay: error: invalid JSON")


def test_missing_file_is_a_script_error(capsys, tmp_path):
    status = main(["replay", str(tmp_path / "nope.json"), "--json"])
    assert status == 2
    assert "cannot read" in json.loads(capsys.readouterr().out)["error"]["message"]


def test_the_installed_command_runs():
    command = Path(sys.executable).parent / "luck-table"
    result = subprocess.run(
        [str(command), "replay", str(HANDS / "void.json"), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0
    assert json.loads(result.stdout)["status"] == "complete"
