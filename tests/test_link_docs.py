"""The program in docs/drivers.md runs as written, against two simulators in processes of
their own: it prints the events, journals them in SQLite and acknowledges after commit."""

import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_sim.process import SimulatorProcess

pytestmark = pytest.mark.slow  # processes

ROOT = Path(__file__).resolve().parent.parent


def test_the_drivers_example_runs_as_written(tmp_path):
    text = (ROOT / "docs" / "drivers.md").read_text()
    [program] = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    (tmp_path / "example.py").write_text(program)
    shoe = SimulatorProcess("shoe", "--pty", "--decks", "1", "--seed", "2")
    seats = SimulatorProcess("seats", "--pty", "--seed", "3")
    try:
        seats.command("sit 3")
        dealt = [shoe.command("draw")["card"] for _ in range(3)]  # kept until the host asks
        # 57 device events: the deck's registration (52) and the deck, 3 cards from the shoe,
        # a player sitting down
        done = subprocess.run(
            [sys.executable, "example.py", shoe.port, seats.port, "57"],
            check=False,
            cwd=tmp_path,
            env={"PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=60,
        )
        left = (shoe.command("status")["pending"], seats.command("status")["pending"])
    finally:
        shoe.stop()
        seats.stop()
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("up: HELLO from") == 2
    journal = sqlite3.connect(tmp_path / "events.sqlite")
    rows = journal.execute("SELECT serial, seq, event FROM event ORDER BY serial, seq").fetchall()
    cards = [int(re.search(r"card=(\d+)", event)[1]) for _, _, event in rows if "CardRead" in event]
    assert cards == dealt
    assert [(serial, seq) for serial, seq, _ in rows if serial.startswith("SIM-SEATS")] == [
        ("SIM-SEATS-0001", 0)
    ]
    assert left == (0, 0)  # every event journaled was acknowledged after its commit
