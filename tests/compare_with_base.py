"""Compare this tree's stored forms with another checkout's, byte for byte.

Run from the repository's root with the project's venv::

    .venv/bin/python tests/compare_with_base.py /path/to/other/checkout

It runs both trees with the same interpreter (``PYTHONPATH`` set to each tree), the wall
clock frozen at one moment by ``faketime`` (libfaketime; a run's journal starts at the wall
clock's time), and compares what each writes: the journal (every row of every table of the
SQLite file: the inputs, the snapshots, the hand index) of ``luck-table sim --core-only``
runs over several seeds, with cheats and with eight seats; the summary each run prints; and
``luck-table replay --json`` of every hand script under ``tests/hands``. It prints each
difference and exits 1 if there is any. Left out: a journal's random id, and the summary's
words of how long the run took and where its journal is. A change that must keep the
stored forms as they are (a refactoring) runs it against the checkout it started from.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
HANDS = HERE / "tests" / "hands"
#: The simulated runs: a name and the options of ``luck-table sim --core-only``.
RUNS: dict[str, str] = {
    "seed 1": "--seed 1 --hands 25",
    "seed 2, unreadable, misplaced": "--seed 2 --hands 25 --unreadable 0.02 --misplaced 0.02",
    "seed 7, stud": "--seed 7 --hands 15 --variant seven-card-stud",
    "seed 3, cheats": "--seed 3 --hands 25 --cheats 0.5",
    "seed 4, 8 seats": "--seed 4 --hands 25 --seats 8",
    "seed 5, 8 seats, cheats": "--seed 5 --hands 25 --seats 8 --cheats 0.4 --misplaced 0.02",
    "seed 6, human dealer": "--seed 6 --hands 15 --dealer human --mistakes 0.05",
    "seed 8, 8 seats, unplugs, unreadable": (
        "--seed 8 --hands 15 --seats 8 --unplugs 0.02 --unreadable 0.02"
    ),
}
_MAIN = "import controller.cli, sys; sys.argv[0] = 'luck-table'; sys.exit(controller.cli.main())"


#: The wall clock of every run (monotonic time runs on: the run's own waits need it).
FROZEN = "2026-06-01 12:00:00"
#: What differs between two runs of the same tree: how long it took, where its journal is.
_TIMING = re.compile(rb"in [0-9.]+ s, [0-9.]+ s a hand|journal: .*")


def luck_table(tree: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {
        "PYTHONPATH": str(tree),
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "FAKETIME_DONT_FAKE_MONOTONIC": "1",
    }
    command = ["faketime", "-f", FROZEN, sys.executable, "-c", _MAIN, *args]
    # in the tree's own folder: ``-c`` puts the working folder first on the path, before
    # PYTHONPATH (from another folder both runs would import the tree the command ran in)
    return subprocess.run(command, capture_output=True, env=env, cwd=tree, timeout=600, check=False)


def dump(path: Path) -> list[str]:
    """Every row of every table of a SQLite file, one line each, in a stable order."""
    db = sqlite3.connect(path)
    try:
        tables = [
            row[0]
            for row in db.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")
        ]
        lines = []
        for table in tables:
            for row in db.execute(f"SELECT * FROM {table} ORDER BY rowid"):
                kept = ("<id>", *row[1:]) if table == "journal_identity" else row  # a random id
                lines.append(f"{table}: {kept!r}")
        return lines
    finally:
        db.close()


def sim(tree: Path, options: str, where: Path) -> tuple[bytes, list[str]]:
    journal = where / "journal.sqlite3"
    done = luck_table(
        tree, "sim", "--core-only", "--speed", "max", *options.split(), "--journal", str(journal)
    )
    said = _TIMING.sub(b"", done.stdout + done.stderr)
    return said + f"\nexit {done.returncode}\n".encode(), dump(journal)


def differences(name: str, mine: object, base: object) -> list[str]:
    if mine == base:
        return []
    if isinstance(mine, list) and isinstance(base, list):
        for i, (a, b) in enumerate(zip(mine, base, strict=False)):
            if a != b:
                return [f"{name}: line {i} differs:\n  this: {a}\n  base: {b}"]
        return [f"{name}: {len(mine)} lines here, {len(base)} in the base"]
    return [f"{name} differs:\n  this: {mine!r:.600}\n  base: {base!r:.600}"]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__)
        return 2
    base = Path(argv[0]).resolve()
    if shutil.which("faketime") is None:
        print("faketime is missing (Debian: apt-get install faketime)")
        return 2
    found: list[str] = []
    checked = 0
    for script in sorted(HANDS.glob("*.json")):
        if script.name.endswith(".expected.json"):
            continue
        mine, theirs = (luck_table(tree, "replay", str(script), "--json") for tree in (HERE, base))
        found += differences(
            f"replay {script.name}",
            (mine.returncode, mine.stdout),
            (theirs.returncode, theirs.stdout),
        )
        checked += 1
    print(f"replay --json: {checked} hand scripts compared")
    for name, options in RUNS.items():
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
            out_mine, rows_mine = sim(HERE, options, Path(a))
            out_base, rows_base = sim(base, options, Path(b))
        found += differences(f"sim {name}: output", out_mine.decode(), out_base.decode())
        found += differences(f"sim {name}: journal", rows_mine, rows_base)
        print(f"sim {name}: {len(rows_mine)} journal rows compared")
    for line in found:
        print(line)
    print("the same, byte for byte" if not found else f"{len(found)} difference(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
