"""``luck-table journal list|verify|archive|prune``: a table's closed journal segments.

``list``: each segment (positions, hands, size, where it is: here, archived, pruned).
``verify``: each segment still on this machine read whole: its SHA-256 the one sealed, its
inputs fitting the journal's hash chain; then the journal's own file (the inputs after the
last segment: all of them in a journal that never rotated), every input fitting the chain
from where the last segment ends. Without ``--segment``, both; a break is exit 1 naming
the position of the first input that does not fit. ``archive --to FOLDER`` and ``prune`` take
segments off the machine, but only those the floor holds: the journal's confirmed position
is asked of the floor store (the table's ``[floor]``, or ``--floor DSN``), and the floor's
own entry at the segment's last position must carry the segment's chain (when the floor
still holds that entry: its retention may have taken it). ``--segment NAME`` (again for
more) names the segments; without it, every segment the floor holds, oldest first, and
those it does not are named as kept.

Neither writes the journal's file, so they run while the table plays; two runs at a time
are refused (the segment folder's lock, naming the process that holds it).

Exit status: 0 done (also when nothing was to do); 1 refused, nothing changed: a segment
named that the floor does not hold, a damaged segment (its SHA-256, its chain), the floor
not reachable or holding no copy of the journal, another run in progress; 2 a command-line
or configuration error, no such journal or segment.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.cli.common import fail
from controller.config import load_config
from controller.config_file import ConfigError
from controller.journal import Journal, JournalError
from controller.journal.lock import LockHeld, WriterLock
from controller.journal.retire import archive, check, prune
from controller.journal.segments import Segment, SegmentPruned, folder_of, location, pruned

COMMAND = "journal"


@dataclass(frozen=True)
class _Floor:
    """What the floor holds of the journal: up to ``confirmed``, and its entries' chains."""

    confirmed: int
    table_id: str
    chains: dict[int, bytes | None]


def add_parser(subparsers: Any, summary: str) -> None:
    parser = subparsers.add_parser(
        COMMAND,
        help=summary,
        description="List, verify, archive or prune the closed segments of a table's journal; "
        "a segment is archived or pruned only once the floor holds it.",
    )
    parser.add_argument("action", choices=("list", "verify", "archive", "prune"))
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--config", type=Path, metavar="FILE", help="the table's configuration")
    where.add_argument("--journal", type=Path, metavar="FILE", help="the journal itself")
    parser.add_argument("--floor", metavar="DSN", help="the floor store (default: [floor] dsn)")
    parser.add_argument("--to", type=Path, metavar="FOLDER", help="archive: where to move them")
    parser.add_argument(
        "--segment", action="append", default=[], metavar="NAME", help="only this segment"
    )
    parser.set_defaults(handler=handler)


def handler(args: argparse.Namespace) -> int:
    dsn = args.floor
    if args.config is not None:
        try:
            config = load_config(args.config)
        except ConfigError as error:
            return fail(COMMAND, f"{args.config}: {error}")
        args.journal = config.journal
        if dsn is None and config.floor is not None:
            dsn = config.floor.dsn
    if args.action == "archive" and (args.to is None or not args.to.is_dir()):
        return fail(COMMAND, f"archive --to {args.to}: not a folder (make it first)")
    if args.action in ("archive", "prune") and dsn is None:
        return fail(
            COMMAND,
            f"{args.action}: the table ships to no floor ([floor] or --floor DSN): a segment "
            "leaves the table's machine only once the floor holds it",
        )
    try:
        with Journal.open_read_only(args.journal) as journal:
            closed = journal.sealed()
            unknown = set(args.segment) - {segment.name for segment in closed}
            if unknown:
                return fail(COMMAND, f"{args.journal}: no segment {', '.join(sorted(unknown))}")
            chosen = [s for s in closed if not args.segment or s.name in args.segment]
            if args.action == "list":
                _list(journal, chosen)
                return 0
            if args.action == "verify":
                return _verify(journal, chosen, live=not args.segment)
            return _retire(args, journal, chosen, dsn)
    except JournalError as error:
        return fail(COMMAND, str(error), status=1 if args.journal.is_file() else 2)


def _where(journal: Journal, segment: Segment) -> str:
    try:
        return str(location(journal.path, segment))
    except SegmentPruned:
        return "pruned"


def _list(journal: Journal, chosen: list[Segment]) -> None:
    if not chosen:
        print(f"{journal.path}: no closed segments")
    for segment in chosen:
        print(
            f"{segment.name}  positions {segment.first}-{segment.last}  hands "
            f"{segment.first_hand}-{segment.last_hand}  {segment.size} bytes  "
            f"{_where(journal, segment)}"
        )


def _verify(journal: Journal, chosen: list[Segment], live: bool) -> int:
    """The segments ``chosen``, then the journal's own file when ``live``."""
    if not chosen:
        print(f"{journal.path}: no closed segments to verify")
    for segment in chosen:
        if pruned(journal.path, segment):
            print(f"{segment.name}: pruned")
            continue
        check(journal, segment)
        print(f"{segment.name}: ok ({_where(journal, segment)})")
    if live:
        first, last = journal.check_chain()
        span = f"positions {first}-{last}" if last else "no inputs"
        print(f"{journal.path}: ok ({span}: the hash chain followed)")
    return 0


def _retire(args: argparse.Namespace, journal: Journal, chosen: list[Segment], dsn: str) -> int:
    try:
        lock = WriterLock.take(folder_of(journal.path))
    except LockHeld as held:
        return fail(
            COMMAND,
            f"{journal.path}: its segments are being archived or pruned by {held.holder}; "
            "one run at a time",
            status=1,
        )
    try:
        pending = [s for s in chosen if not pruned(journal.path, s)]
        floor = _floor(journal, pending, dsn)
        confirmed: list[Segment] = []
        kept: list[tuple[Segment, str]] = []
        for segment in pending:
            why = _not_held(floor, segment)
            if why is None:
                confirmed.append(segment)
            else:
                kept.append((segment, why))
        if kept and args.segment:
            segment, why = kept[0]
            return fail(COMMAND, f"{segment.words()} is not {args.action}d: {why}", status=1)
        for segment in confirmed:
            check(journal, segment)  # all of them first: a damaged one changes nothing
        for segment in confirmed:
            if args.action == "archive":
                copy = archive(journal, segment, args.to, floor.confirmed)
                print(f"{segment.name}: archived to {copy}")
            else:
                prune(journal, segment, floor.confirmed)
                print(f"{segment.name}: pruned")
        for segment, why in kept:
            print(f"{segment.name}: kept ({why})")
        return 0
    finally:
        lock.release()


def _not_held(floor: _Floor, segment: Segment) -> str | None:
    """Why the floor does not hold ``segment`` (None: it does)."""
    if segment.last > floor.confirmed:
        return (
            f"the floor holds the journal up to position {floor.confirmed} only, not yet "
            f"the segment's last input (position {segment.last})"
        )
    chain = floor.chains.get(segment.last)
    if segment.last in floor.chains and chain != segment.chain:
        return (
            f"the floor's entry at position {segment.last} is not this journal's (another "
            "timeline: a journal restored from a backup?)"
        )
    return None


def _floor(journal: Journal, segments: list[Segment], dsn: str) -> _Floor:
    """Ask the floor what it holds of the journal. Raises JournalError when it cannot be
    asked or holds no copy of it."""
    # imported here: only archive and prune load the floor's PostgreSQL client
    import psycopg  # noqa: PLC0415

    from controller.floor import store  # noqa: PLC0415

    identity = journal.identity()
    try:
        with store.connect(dsn, autocommit=True) as connection:
            bound = None if identity is None else store.held(connection, identity)
            if bound is None:
                raise JournalError(
                    f"the floor holds no copy of journal {identity} ({journal.path}): nothing "
                    "of it is confirmed"
                )
            table_id, session = bound
            confirmed = store.confirmed_position(connection, table_id, session)
            chains: dict[int, bytes | None] = {}
            for segment in segments:
                for entry in store.entries(connection, table_id, session, segment.last - 1, 1):
                    if entry.position == segment.last:
                        chains[segment.last] = entry.chain
    except psycopg.Error as error:
        raise JournalError(f"cannot ask the floor what it holds: {error}") from None
    return _Floor(confirmed, table_id, chains)
