"""A closed segment taken off the table's machine once the floor holds it: archived (moved
to another folder, the copy checked before the segment is removed) or pruned (removed).

Neither writes the journal's file (its writer, the table service, may be running): the
segment's note (``NAME.moved`` beside where it was, :mod:`.segments`) says where it went,
written (synced) before the segment is removed, so that a cut at any point leaves the
segment readable where the note says, or still where it was; running the command again
finishes what a cut left. Two runs at a time are refused: each holds the segment folder's
lock (:mod:`.lock`) while it works.
"""

from __future__ import annotations

import datetime
import json
import os
import shutil
from pathlib import Path

from controller.journal.base import JournalError
from controller.journal.segments import (
    PARTIAL,
    Moved,
    MovedNote,
    Segment,
    SegmentDamaged,
    folder_of,
    location,
    moved,
    moved_note,
    sync_file,
    sync_folder,
    verify,
)
from controller.journal.store import Journal, chain_of


def check(journal: Journal, segment: Segment) -> Path:
    """Where the segment is, checked: its bytes are the ones sealed (SHA-256) and its inputs
    fit the journal's hash chain from the segment before it to its recorded end. Raises
    :class:`~.segments.SegmentDamaged` (or another :class:`JournalError`) naming it."""
    path = location(journal.path, segment)
    verify(path, segment)
    with journal.segments.opened(segment) as connection:
        (before,) = connection.execute("SELECT chain_before FROM segment").fetchone()
        end = chain_of(connection, None if before is None else bytes(before), segment.words())
    if end != segment.chain:
        raise JournalError(
            f"{segment.words()}: its chain does not end where the journal's record says"
        )
    return path


def _note(journal: Journal, segment: Segment, fields: Moved) -> None:
    now = datetime.datetime.now(datetime.UTC)
    note = moved_note(journal.path, segment)
    written: MovedNote = {
        **fields,
        "segment": segment.name,
        "sha256": segment.sha256,
        "at": now.timestamp(),
        "at_iso": now.isoformat(timespec="seconds"),
    }
    text = json.dumps(written, indent=2)
    partial = note.with_name(note.name + PARTIAL)
    partial.write_text(text + "\n")
    sync_file(partial)
    os.replace(partial, note)
    sync_folder(note.parent)


def _remove(path: Path) -> None:
    path.chmod(0o640)
    path.unlink(missing_ok=True)
    sync_folder(path.parent)


def archive(journal: Journal, segment: Segment, to: Path, confirmed: int) -> Path:
    """Move the segment (checked) to the folder ``to``: copied, synced, the copy checked,
    the note written, the segment removed; the copy's path. ``confirmed``: the position the
    floor holds the journal up to (the segment's last at least: the caller checked)."""
    note = moved(journal.path, segment)
    at_home = folder_of(journal.path) / segment.name
    if note is not None:  # archived before (or pruned): a cut may have left the segment
        copy = location(journal.path, segment)
        verify(copy, segment)
        if at_home.exists():
            _remove(at_home)
        return copy
    check(journal, segment)
    target = to.absolute() / segment.name
    if target.exists():  # a copy a cut left: the same bytes, or refused
        try:
            verify(target, segment)
        except SegmentDamaged:
            raise JournalError(
                f"{target} is there already and is not {segment.words()} of journal "
                f"{journal.path} (another table's? archive each table into a folder of its own)"
            ) from None
    else:
        partial = target.with_name(target.name + PARTIAL)
        shutil.copyfile(at_home, partial)
        sync_file(partial)
        verify(partial, segment)
        partial.chmod(0o440)
        os.replace(partial, target)
        sync_folder(to)
    _note(journal, segment, {"archived_to": str(to.absolute()), "confirmed": confirmed})
    _remove(at_home)
    return target


def prune(journal: Journal, segment: Segment, confirmed: int) -> None:
    """Remove the segment (checked first) for good: the note says so, then it goes."""
    note = moved(journal.path, segment)
    at_home = folder_of(journal.path) / segment.name
    if note is None:
        check(journal, segment)
        _note(journal, segment, {"pruned": True, "confirmed": confirmed})
    elif not note.get("pruned"):
        raise JournalError(
            f"{segment.words()} was archived to {note.get('archived_to')}: remove it there"
        )
    if at_home.exists():
        _remove(at_home)
