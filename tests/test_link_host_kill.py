"""Acknowledge after commit survives a host killed at any moment.

The host is the program of docs/drivers.md (a SQLite journal, each event acknowledged after
its commit), run as its own process and killed with SIGKILL at random moments while a dealer
draws cards from a simulated shoe at 115200 baud; each time a new host starts on the same
journal. At the end the journal holds every card the shoe dealt, once, in order.
"""

import random
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from firmware_sim.process import SimulatorProcess
from tests.waiting import wait_until

pytestmark = pytest.mark.slow  # processes

ROOT = Path(__file__).resolve().parent.parent
CARDS = 400
KILLS = 8


def shoe_rows(journal_path):
    if not journal_path.exists():
        return []
    with sqlite3.connect(journal_path, timeout=10) as journal:
        try:
            return journal.execute(
                "SELECT boot_id, seq, event FROM event WHERE serial LIKE 'SIM-SHOE%' "
                "ORDER BY boot_id, seq"
            ).fetchall()
        except sqlite3.OperationalError:  # the first host has not created the table yet
            return []


@pytest.mark.slow
def test_a_host_killed_at_random_moments_loses_nothing_and_records_nothing_twice(tmp_path):
    text = (ROOT / "docs" / "drivers.md").read_text()
    [program] = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    (tmp_path / "host.py").write_text(program)
    shoe = SimulatorProcess(
        "shoe",
        "--pty",
        "--baud",
        "115200",
        "--decks",
        "8",
        "--seed",
        "6",
        "--protocol-version",
        "1",
    )
    seats = SimulatorProcess("seats", "--pty", "--seed", "7")
    dealt = []

    def deal():
        for _ in range(CARDS):
            dealt.append(shoe.command("draw")["card"])
            time.sleep(0.01)  # the scenario: a dealer's pace

    def start_host():
        return subprocess.Popen(
            [sys.executable, "host.py", shoe.port, seats.port, str(10**9)],
            cwd=tmp_path,
            env={"PYTHONPATH": str(ROOT)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )

    dealer = threading.Thread(target=deal)
    rng = random.Random(9)
    try:
        dealer.start()
        for _ in range(KILLS):
            host = start_host()
            time.sleep(rng.uniform(0.3, 0.9))  # the scenario: a kill at a random moment
            host.send_signal(signal.SIGKILL)
            host.wait(10)
        dealer.join(60)
        host = start_host()

        def caught_up() -> bool:
            assert host.poll() is None, host.stderr.read().decode()
            return len(shoe_rows(tmp_path / "events.sqlite")) >= 1 + CARDS

        wait_until(caught_up, "the journal catches up", 60, poll=0.1)
        host.send_signal(signal.SIGKILL)
        host.wait(10)
    finally:
        shoe.stop()
        seats.stop()
    rows = shoe_rows(tmp_path / "events.sqlite")
    assert len({boot for boot, _, _ in rows}) == 1
    assert [seq for _, seq, _ in rows] == list(range(1 + CARDS))  # the deck, then each card
    assert [int(re.search(r"card=(\d+)", e)[1]) for _, _, e in rows[1:]] == dealt
