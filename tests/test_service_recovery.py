"""Recovery: the table service killed with SIGKILL at random moments during simulated play,
restarted on the same journal each time.

No hand is lost, no card is dealt twice (every card that left the shoe is journaled exactly
once), every hand of the journal replays through ``luck-table replay`` to its recorded
outcome, and the state after each restart equals the replay of the journal up to the
position it recovered, which is the journal's last position when the process died.
``LUCK_KILLS`` sets the number of kills (10 here; bench/table.py runs 50).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.history.hands import recorded_hands
from controller.journal import Journal
from controller.journal.device_events import DEVICE
from controller.service import steps
from tests.service_kit import simulator, write_config

pytestmark = pytest.mark.slow  # processes

KILLS = int(os.environ.get("LUCK_KILLS", "10"))
LUCK_TABLE = str(Path(sys.executable).parent / "luck-table")


def start_play(config: Path, shoe: str, seats: str, hands: int, seed: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            *(sys.executable, "-m", "tests.service_play", str(config)),
            *("--shoe-control", shoe, "--seats-control", seats),
            *("--hands", str(hands), "--seed", str(seed)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def recovered_line(process: subprocess.Popen[str]) -> dict[str, object]:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line, f"the player process ended with status {process.wait()}"
    return json.loads(line)


def last_position(journal_path: Path) -> int:
    with Journal.open(journal_path, create=False) as journal:
        return max((entry.position for entry in journal.entries()), default=0)


def kill_and_restart(tmp_path: Path, kills: int, seed: int) -> None:
    rng = random.Random(seed)
    with simulator("shoe", seed=seed) as shoe, simulator("seats", seed=seed) as seats:
        config = write_config(tmp_path, shoe.port, seats.port)
        journal_path = tmp_path / "table.sqlite"
        controls = (shoe.announced["control"], seats.announced["control"])
        restarts: list[tuple[int, str]] = []
        positions_at_kill = [0]
        for kill in range(kills):
            process = start_play(config, *controls, hands=10_000, seed=kill)
            line = recovered_line(process)
            restarts.append((int(line["recovered"]), str(line["state"])))  # type: ignore[call-overload]
            time.sleep(rng.uniform(0.2, 1.5))  # the scenario: a kill at a random moment
            process.send_signal(signal.SIGKILL)
            process.wait()
            assert process.stdout is not None
            process.stdout.close()
            positions_at_kill.append(last_position(journal_path))
        with Journal.open(journal_path, create=False) as journal:
            hands_now = max(hand.number for hand in recorded_hands(journal))
        process = start_play(config, *controls, hands=hands_now + 2, seed=kills)
        line = recovered_line(process)
        restarts.append((int(line["recovered"]), str(line["state"])))  # type: ignore[call-overload]
        assert process.wait(timeout=120) == 0
        assert process.stdout is not None
        process.stdout.close()
        drawn = shoe.command("status")["read_counter"]

    # the state after each restart is the journal replayed to the position it recovered,
    # and that is where the journal ended when the process died
    assert [position for position, _ in restarts] == positions_at_kill
    wanted = dict(restarts)
    states: dict[int, str] = {0: wanted[0]} if 0 in wanted else {}
    cards_journaled = 0
    with Journal.open(journal_path, create=False) as journal:
        for entry, step in steps(journal):
            if entry.position in wanted:
                states[entry.position] = json.dumps(step.table.to_json())
            if entry.source == DEVICE and entry.type in ("CardRead", "CardUnreadable"):
                cards_journaled += 1
        hands = list(recorded_hands(journal))
    assert states == wanted
    # every card that left the shoe is in the journal exactly once
    assert cards_journaled == drawn
    # no hand lost: numbered from 1 without a gap, every one over, each replays to its outcome
    assert [hand.number for hand in hands] == list(range(1, len(hands) + 1))
    assert len(hands) >= kills // 3 and all(hand.ended is not None for hand in hands)
    for hand in hands:
        cards = hand.script.cards
        assert len(set(cards)) == len(cards)
        replay = subprocess.run(
            [LUCK_TABLE, "replay", "-", "--json"],
            input=json.dumps(hand.script_json()),
            capture_output=True,
            text=True,
            check=True,
        )
        outcome = json.loads(replay.stdout)
        assert outcome["status"] == "complete"
        recorded = {str(p.seat): p.stack for p in hand.hand.players}
        assert {seat: entry["stack"] for seat, entry in outcome["seats"].items()} == recorded
        assert hand.matches(hand.replay())


@pytest.mark.slow
def test_the_service_killed_at_random_moments_loses_nothing(tmp_path: Path) -> None:
    kill_and_restart(tmp_path, KILLS, seed=7)
