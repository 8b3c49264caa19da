"""Running a benchmark of ``bench/`` in its short version, as a test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"


def run_bench(script: str, *args: str, timeout: float = 600) -> str:
    """Run ``bench/<script>`` with ``args`` in this interpreter: its standard output, once
    it exited with status 0 (else the test fails with its output's end)."""
    done = subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    return done.stdout
