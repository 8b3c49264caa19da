"""``luck-table backup --journal FILE | --config FILE --to FOLDER [--keep N]``: a consistent
copy of a table's journal (given, or the configuration's) while the table plays, with
SQLite's online backup API (what is still in the write-ahead log included), then the oldest
copies beyond the last ``N`` removed.

The copy is written as ``FOLDER/NAME-YYYYMMDDTHHMMSSZ.sqlite`` (NAME: the journal's file
name without its suffix; UTC), first under a temporary name, checked (SQLite's integrity
check, a luck-table journal) and then renamed, so that a copy in the folder is always
whole. Copies are read-only. A journal that has rotated gets its closed segments
beside the copy, in ``FOLDER/NAME-YYYYMMDDTHHMMSSZ.sqlite.segments/`` (where a reader of the
copy finds them, as for the journal): each segment the copy's catalogue names and this
machine still has, copied and checked against its SHA-256, or, when the previous copy has
it already, hard-linked to that one (a segment never changes: a month of segments is stored
once however many nightly copies keep it); an archived segment is copied from its archive,
a pruned one is named by its note.
Prints the copy's path. Exit status: 0; 1 when the copy cannot be made or checked (the
message says why; older copies are kept); 2 for a bad option or no journal at FILE. The
deploy folder's ``luck-table-backup.timer`` runs it nightly; the restore drill is in
docs/operations.md.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from controller.cli.common import fail
from controller.config import load_config
from controller.config_file import ConfigError
from controller.journal import Journal, JournalError
from controller.journal.segments import (
    PARTIAL,
    SegmentPruned,
    folder_of,
    location,
    moved_note,
    verify,
)
from controller.journal.store import APPLICATION_ID

STAMP = "%Y%m%dT%H%M%SZ"


def copies(folder: Path, name: str) -> list[Path]:
    """The backups of journal ``name`` in ``folder``, oldest first."""
    pattern = re.compile(rf"{re.escape(name)}-\d{{8}}T\d{{6}}Z\.sqlite")
    return sorted(path for path in folder.iterdir() if pattern.fullmatch(path.name))


def backup(journal: Path, folder: Path, keep: int, now: datetime.datetime) -> Path:
    """Copy ``journal`` into ``folder`` (checked), then keep its last ``keep`` copies; the
    copy's path. JournalError or OSError when it cannot be done."""
    name = journal.stem
    target = folder / f"{name}-{now.strftime(STAMP)}.sqlite"
    partial = folder / f".{target.name}.partial"
    source = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        with contextlib.closing(sqlite3.connect(partial)) as copy:
            source.backup(copy)
            copy.execute("PRAGMA journal_mode=DELETE")  # one file, no -wal beside it
            (verdict,) = copy.execute("PRAGMA integrity_check").fetchone()
            (application,) = copy.execute("PRAGMA application_id").fetchone()
        if application != APPLICATION_ID:
            raise JournalError(f"{journal} is not a luck-table journal")
        if verdict != "ok":
            raise JournalError(f"the copy of {journal} fails SQLite's integrity check: {verdict}")
        earlier = copies(folder, name)
        _segments(journal, partial, folder_of(target), earlier[-1] if earlier else None)
        partial.chmod(0o440)
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    finally:
        source.close()
    for old in copies(folder, name)[:-keep]:
        old.unlink()
        shutil.rmtree(folder_of(old), ignore_errors=True)
    return target


def _segments(journal: Path, copy: Path, into: Path, earlier: Path | None) -> None:
    """The segments the ``copy``'s catalogue names, from the ``journal``'s folder (or where
    they were archived) into the folder ``into``, checked (linked to the ``earlier`` copy's
    when it has them), with their notes; nothing when the journal never rotated."""
    with Journal.open_read_only(copy) as reading:
        closed = reading.sealed()
    if not closed:
        return
    making = into.with_name(into.name + PARTIAL)
    shutil.rmtree(making, ignore_errors=True)
    making.mkdir()
    try:
        for segment in closed:
            try:
                source = location(journal, segment)
            except SegmentPruned:  # the note says so to a reader of the copy
                note = moved_note(journal, segment)
                shutil.copyfile(note, making / note.name)
                continue
            made = making / segment.name
            linked = None if earlier is None else folder_of(earlier) / segment.name
            if linked is not None and linked.is_file() and linked.stat().st_size == segment.size:
                os.link(linked, made)
                continue
            shutil.copyfile(source, made)
            verify(made, segment)
            made.chmod(0o440)
        shutil.rmtree(into, ignore_errors=True)
        os.replace(making, into)
    except BaseException:
        shutil.rmtree(making, ignore_errors=True)
        raise


def handler(args: argparse.Namespace) -> int:
    if args.config is not None:
        try:
            args.journal = load_config(args.config).journal
        except ConfigError as error:
            return fail("backup", f"{args.config}: {error}")
    if args.keep < 1:
        return fail("backup", f"--keep {args.keep}: keep at least the copy just made (1)")
    if not args.journal.is_file():
        return fail("backup", f"no journal at {args.journal} (no such file)")
    if not args.to.is_dir():
        return fail("backup", f"--to {args.to}: not a folder (make it first)")
    now = datetime.datetime.now(datetime.UTC)
    try:
        made = backup(args.journal, args.to, args.keep, now)
    except (JournalError, OSError, sqlite3.Error) as error:
        return fail("backup", f"{args.journal} to {args.to}: {error}", status=1)
    print(made)
    return 0


def add_parser(subparsers: Any, summary: str) -> None:
    parser = subparsers.add_parser(
        "backup",
        help=summary,
        description="A consistent copy of the journal with SQLite's online backup, checked, "
        "into FOLDER as NAME-YYYYMMDDTHHMMSSZ.sqlite; the oldest copies beyond --keep are "
        "removed.",
    )
    journal = parser.add_mutually_exclusive_group(required=True)
    journal.add_argument("--journal", type=Path, metavar="FILE", help="the journal to copy")
    journal.add_argument(
        "--config", type=Path, metavar="FILE", help="the table's configuration: its journal"
    )
    parser.add_argument("--to", required=True, type=Path, metavar="FOLDER")
    parser.add_argument(
        "--keep", type=int, default=30, metavar="N", help="copies to keep (default 30)"
    )
    parser.set_defaults(handler=handler)
