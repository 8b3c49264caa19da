"""The dealer soak's short version: ``bench/dealer_soak.py`` with a few hands, cable pulls,
line faults and a SIGKILL of the table service while the human dealer deals: no alert but
the links' own, the chips conserved, the fingerprint of the pure core's hands."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "dealer_soak.py"


@pytest.mark.slow
def test_the_dealer_soak_deals_through_pulls_faults_and_a_kill() -> None:
    args = ("--hands", "3", "--seats", "6", "--unplugs", "0.05", "--kills", "1", "--seed", "2")
    done = subprocess.run(
        [sys.executable, str(BENCH), *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert "1 SIGKILLs of the service" in done.stdout
    assert re.search(r"beyond the links' own: 0$", done.stdout, re.M), done.stdout
    assert "chips: conserved" in done.stdout and ": equal" in done.stdout
