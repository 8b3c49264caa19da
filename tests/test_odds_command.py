"""``luck-table odds`` and ``luck-table par``: inputs, outputs, refusals."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from controller.cli import main

HANDS = Path(__file__).parent / "hands"
ARTICLE4 = json.loads((HANDS / "article4_worked_example.json").read_text())


def run(capsys, argv, stdin=None):
    saved = sys.stdin
    if stdin is not None:
        text = stdin if isinstance(stdin, str) else json.dumps(stdin)
        sys.stdin = io.TextIOWrapper(io.BytesIO(text.encode()))
    try:
        status = main(argv)
    finally:
        sys.stdin = saved
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def cut(cards, actions):
    return {
        **ARTICLE4,
        "cards": ARTICLE4["cards"][:cards],
        "actions": ARTICLE4["actions"][:actions],
    }


def test_sixth_street_is_exact_and_sums_to_one(capsys):
    status, out, _ = run(capsys, ["odds", "-", "--json"], cut(16, 9))
    assert status == 0
    result = json.loads(out)
    assert result["method"] == "exact"
    assert result["point"] == "seventh street, dealing"
    assert set(result["seats"]) == {"1", "2"}
    assert sum(seat["equity"] for seat in result["seats"].values()) == pytest.approx(1)
    assert "standard_error" not in result


def test_third_street_is_monte_carlo_with_its_seed_and_error(capsys):
    status, out, _ = run(capsys, ["odds", "-", "--json", "--seed", "5"], cut(6, 0))
    assert status == 0
    result = json.loads(out)
    assert result["method"] == "monte-carlo"
    assert result["seed"] == 5
    assert result["standard_error"] <= 0.0025
    for seat in result["seats"].values():
        assert seat["standard_error"]["equity"] <= 0.0025
    again = json.loads(run(capsys, ["odds", "-", "--json", "--seed", "5"], cut(6, 0))[1])
    assert again == result


def test_the_table_shows_cards_odds_and_the_model(capsys):
    status, out, _ = run(capsys, ["odds", "-", "--samples", "2000"], cut(9, 2))
    assert status == 0
    assert "monte-carlo: 2,000 deals (seed 0)" in out
    assert "[4d Ks] 4c [Js] 9h" in out  # the bonus card is a down card
    assert "no folds: the 2 players still in go to the showdown" in out
    assert "±" in out


def test_a_priced_bonus_card_says_the_player_buys_it(capsys):
    script = {"rules": {"bonus_price": 5}, "seats": {"1": 100, "2": 100}, "cards": ["Kd", "7c"]}
    status, out, _ = run(capsys, ["odds", "-", "--samples", "1000"], script)
    assert status == 0
    assert "price 5: the player is taken to buy it when they can pay" in out


def test_a_history_record_is_read_as_replay_reads_it(capsys):
    script = cut(16, 9)
    _, outcome, _ = run(capsys, ["replay", "-", "--json"], script)
    record = {
        "hand": 4,
        "started": "2026-12-01T10:00:00Z",
        "ended": "in progress",
        "script": script,
        "outcome": json.loads(outcome),
        "recorded": True,
    }
    status, out, _ = run(capsys, ["odds", "-", "--json"], record)
    assert status == 0
    assert json.loads(out) == json.loads(run(capsys, ["odds", "-", "--json"], script)[1])


@pytest.mark.parametrize(
    ("argv", "stdin", "status", "message"),
    [
        (["odds", "-"], "{not json", 2, "invalid JSON"),
        (["odds", "-", "--exact"], cut(6, 0), 2, "use Monte Carlo"),
        (["odds", "-"], {**cut(0, 0), "actions": [{"do": "void"}]}, 2, "the hand is void"),
        (["odds", "-"], {**cut(9, 2), "actions": [{"seat": 2, "do": "raise"}]}, 1, "action 0"),
        (["odds", "-"], {**cut(6, 0), "cards": ["Kd", "Kd"]}, 2, "card 1"),
    ],
    ids=["bad-json", "exact-too-large", "void", "action-refused", "card-twice"],
)
def test_refusals_say_what_and_where(capsys, argv, stdin, status, message):
    got, _, err = run(capsys, argv, stdin)
    assert got == status
    assert err.startswith("luck-table odds: error: ")
    assert message in err


@pytest.mark.parametrize(
    "argv",
    [
        ["odds", "-", "--samples", "1"],
        ["odds", "-", "--samples", "lots"],
        ["odds", "-", "--seed", "-1"],
        ["odds", "-", "--exact", "--samples", "100"],
        ["par", "--players", "1..3"],
        ["par", "--players", "nine"],
        ["par", "--hands", "0"],
        ["par", "--rake-hands", "0"],
    ],
)
def test_bad_command_lines_exit_2(capsys, argv):
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    capsys.readouterr()


@pytest.mark.slow
def test_par_writes_the_sheet(capsys, tmp_path):
    output = tmp_path / "par.md"
    argv = ["par", "--players", "7..8", "--hands", "2000", "--seed", "3", "--output", str(output)]
    status, _, err = run(capsys, argv)
    assert status == 0
    assert "par sheet written" in err
    text = output.read_text()
    assert "`luck-table par --players 7..8 --hands 2000 --seed 3`" in text
    assert "## 7 players" in text and "## 8 players" in text
    assert "a community card 100.000%" in text  # eight players, burns: always
    assert "## For a game-approval submission" in text
    run(capsys, [*argv[:-1], str(tmp_path / "again.md")])
    assert (tmp_path / "again.md").read_text() == text


def test_par_refuses_bad_rules(capsys):
    status, _, err = run(capsys, ["par", "--rules", '{"burn": "no"}', "--output", "-"])
    assert status == 2
    assert "--rules" in err


def test_a_bonus_card_on_offer_or_due_is_said(capsys):
    offer = {
        "rules": {"bonus_price": 5},
        "seats": {"1": 100, "2": 100},
        "cards": ["Kd", "7c", "Qs", "8h", "4c"],
    }
    status, out, _ = run(capsys, ["odds", "-", "--samples", "1000"], offer)
    assert status == 0
    assert "seat 1 is taken to buy the bonus card on offer (price 5)" in out
    due = {**offer, "rules": {}}
    status, out, _ = run(capsys, ["odds", "-", "--samples", "1000"], due)
    assert "seat 1's bonus card is still to come" in out
