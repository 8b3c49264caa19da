"""``luck-table backup``: a consistent copy of a journal while it is written, kept for the
last N, and the restore drill of docs/operations.md: the copy checked with ``luck-table
history``, put in the journal's place, and the table recovered as it was when copied."""

from __future__ import annotations

import datetime
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli.backup_command import backup, copies
from controller.journal import Journal
from controller.journal.snapshots import Snapshots
from controller.service import recover
from controller.table import SitDown
from tests.floor_kit import JournalWriter, write_journal

pytestmark = pytest.mark.slow  # PostgreSQL

LUCK_TABLE = str(Path(sys.executable).parent / "luck-table")


def recovered_table(path: Path) -> tuple[int, str]:
    journal = Journal.open(path, create=False)
    snapshots = Snapshots(path)
    try:
        recovered = recover(journal, snapshots)
        return recovered.position, str(recovered.table.to_json())
    finally:
        snapshots.close()
        journal.close()


def luck_table(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LUCK_TABLE, *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_a_backup_taken_while_the_journal_is_written_restores_the_table_as_it_was(
    tmp_path: Path,
) -> None:
    live = write_journal(tmp_path / "T-01.sqlite", hands=3)
    folder = tmp_path / "backups"
    folder.mkdir()
    writer = JournalWriter(live)  # the table writes on meanwhile
    try:
        at_backup = recovered_table(live)
        made = luck_table("backup", "--journal", str(live), "--to", str(folder))
        assert made.returncode == 0, made.stderr
        copy = Path(made.stdout.strip())
        assert copy.parent == folder and copy.name.startswith("T-01-")
        assert not stat.S_IMODE(copy.stat().st_mode) & 0o222  # read-only
        assert sorted(p.name for p in folder.iterdir()) == [copy.name]  # one file, whole
        writer.ok(SitDown(at=0, seat=6, player="Late", buy_in=100))  # after the copy
    finally:
        writer.journal.close()
    # the drill: check the copy, stop the table, put the copy in the journal's place, start
    checked = luck_table("history", "--journal", str(copy))
    assert checked.returncode == 0, checked.stderr
    restored = tmp_path / "restored" / "T-01.sqlite"
    restored.parent.mkdir()
    shutil.copyfile(copy, restored)
    assert recovered_table(restored) == at_backup
    assert recovered_table(live)[0] == at_backup[0] + 1


def test_the_last_copies_are_kept_and_the_oldest_removed(tmp_path: Path) -> None:
    live = write_journal(tmp_path / "T-02.sqlite", hands=1)
    folder = tmp_path / "backups"
    folder.mkdir()
    (folder / "T-03-20260101T000000Z.sqlite").write_bytes(b"another table's: kept")
    start = datetime.datetime(2026, 12, 1, 3, 0, tzinfo=datetime.UTC)
    made = [backup(live, folder, 3, start + datetime.timedelta(days=day)) for day in range(5)]
    assert copies(folder, "T-02") == made[-3:]
    assert (folder / "T-03-20260101T000000Z.sqlite").exists()
    assert made[-1].name == "T-02-20261205T030000Z.sqlite"


def test_bad_backups_are_refused_and_keep_the_older_copies(tmp_path: Path) -> None:
    folder = tmp_path / "backups"
    folder.mkdir()
    absent = luck_table("backup", "--journal", str(tmp_path / "none"), "--to", str(folder))
    assert absent.returncode == 2 and "no journal at" in absent.stderr
    live = write_journal(tmp_path / "T-04.sqlite", hands=1)
    no_folder = luck_table("backup", "--journal", str(live), "--to", str(tmp_path / "x"))
    assert no_folder.returncode == 2 and "not a folder" in no_folder.stderr
    keep = luck_table("backup", "--journal", str(live), "--to", str(folder), "--keep", "0")
    assert keep.returncode == 2 and "--keep 0" in keep.stderr
    other = tmp_path / "other.sqlite"  # an SQLite file that is no journal
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (x)")
    refused = luck_table("backup", "--journal", str(other), "--to", str(folder))
    assert refused.returncode == 1 and "not a luck-table journal" in refused.stderr
    assert list(folder.iterdir()) == []  # no partial copy left
