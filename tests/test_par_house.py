"""``luck-table par``: the house's take from a table's journal and from the simulated table,
and the exit status of a failed cross-check."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

import controller.odds.compute
import controller.odds.par
from controller.cli import main
from controller.cli.par_command import journal_take, simulated_take
from controller.odds.par import HouseTake
from controller.rules import Rules
from tests.test_par import _no_wheel

RAKE = {"rake_percent": 10, "rake_cap": 3, "rake_step": 1}
RAKE_AND_DROP = RAKE | {"jackpot_drop": 1, "jackpot_drop_at": 40}


def _time(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


@pytest.mark.slow
def test_the_house_take_of_a_journal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A raked run's journal: per hand, the rake and drop its history records carry; per
    hour, over the time from the first hand's start to the last one's end."""
    journal = tmp_path / "table.sqlite3"
    run = ["sim", "--core-only", "--journal", str(journal), "--hands", "6", "--seats", "3"]
    assert main([*run, "--speed", "max", "--rules", json.dumps(RAKE_AND_DROP)]) == 0
    capsys.readouterr()
    assert main(["history", "--journal", str(journal), "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    rakes = [record["outcome"]["rake"] for record in records]
    drops = [record["outcome"]["jackpot_drop"] for record in records]
    assert len(records) == 6 and sum(rakes) > 0 and all(0 <= rake <= 3 for rake in rakes)
    hours = (_time(records[-1]["ended"]) - _time(records[0]["started"])) / 3600

    take = journal_take(journal)
    assert take.rakes == tuple(rakes) and take.drops == tuple(drops)
    assert take.hours == pytest.approx(hours, abs=1e-6)
    assert take.per_hand(take.rakes)[0] == pytest.approx(sum(rakes) / 6)
    assert take.per_hour(take.rakes) == pytest.approx(sum(rakes) / hours, rel=1e-6)

    sheet = tmp_path / "par.md"
    par = ["par", "--players", "2", "--hands", "500", "--journal", str(journal)]
    assert main([*par, "--output", str(sheet)]) == 0
    text = sheet.read_text()
    assert "## The house's take" in text
    row = next(line for line in text.splitlines() if line.startswith("| journal table.sqlite3"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[0] == "journal table.sqlite3, hands 1 to 6"
    assert cells[1] == "6"
    assert cells[2].startswith(f"{sum(1 for rake in rakes if rake)} (")
    assert cells[3].startswith(f"{sum(rakes) / 6:.2f} (")
    assert cells[6] == f"{sum(rakes) / hours:,.1f}"
    assert f"--journal {journal}" in text  # the command that made it


def test_a_journal_par_cannot_read_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nothing.sqlite3"
    assert main(["par", "--players", "2", "--hands", "10", "--journal", str(missing)]) == 2
    assert str(missing) in capsys.readouterr().err


def test_the_simulated_table_at_the_house_settings() -> None:
    """The table core and seeded players at a rake of 10% capped at 3 and a drop of 1 from
    40: every hand pays at most the cap, and the drop only from pots that reach 40."""
    rules = Rules.from_mapping(RAKE_AND_DROP)
    take = simulated_take(rules, 4, 12, seed=3)
    assert take.hands == 12
    assert all(0 <= rake <= 3 for rake in take.rakes) and sum(take.rakes) > 0
    assert set(take.drops) <= {0, 1}
    assert take.hours > 0
    # a live pace: about a minute or two a hand
    assert 20 < take.hands / take.hours < 200


def test_par_with_a_rake_reports_the_simulated_take(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet = tmp_path / "par.md"
    command = ["par", "--players", "2,5", "--hands", "400", "--rules", json.dumps(RAKE)]
    assert main([*command, "--rake-hands", "5", "--output", str(sheet)]) == 0
    text = sheet.read_text()
    assert re.search(r"^\| simulated, 2 players \| 5 \|", text, re.M)
    assert re.search(r"^\| simulated, 5 players \| 5 \|", text, re.M)
    assert "--rake-hands 5" in text
    without = tmp_path / "plain.md"
    assert main(["par", "--players", "2", "--hands", "400", "--output", str(without)]) == 0
    assert "## The house's take" not in without.read_text()


def test_a_failed_cross_check_exits_1_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(controller.odds.compute, "evaluate_many", _no_wheel)
    monkeypatch.setattr(controller.odds.par, "evaluate_many", _no_wheel)
    sheet = tmp_path / "par.md"
    assert main(["par", "--players", "3", "--hands", "20000", "--output", str(sheet)]) == 1
    assert "cross-checks fail" in capsys.readouterr().err
    assert "**Result: FAIL**" in sheet.read_text()


def test_house_take_figures() -> None:
    take = HouseTake("x", (0, 2, 4), (1, 1, 1), 0.5)
    mean, low, high = take.per_hand(take.rakes)
    assert mean == 2 and low < 2 < high
    assert take.per_hand(take.drops) == (1, 1, 1)
    assert take.per_hour(take.rakes) == 12
    assert np.isclose(high - mean, 1.959963984540054 * 2 / np.sqrt(3))
