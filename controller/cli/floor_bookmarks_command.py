"""``luck-table floor-bookmarks (--config FILE | --dsn DSN) [--since T] [--until T]
[--table ID] [--every] [--format csv|json]``: the protection and security alerts of the
floor as bookmarks for the surveillance video (docs/game-protection.md, "Bookmarks for the
video"), on standard output: the file a video system imports.

The same as the floor service's ``GET /api/bookmarks``, read straight from the floor store
(a surveillance workstation with the store's read-only DSN needs no pit session). ``T`` is
an ISO 8601 time (``2027-01-15T20:00:00Z``; without a zone, UTC).

Exit status: 0 done; 2 a configuration or command-line error; 1 the floor database
unreachable or without this release's schema.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from datetime import UTC, datetime
from typing import Any

import psycopg

from controller.cli.common import StoreUnusable, fail, floor_store
from controller.floor import store, surveillance

COMMAND = "floor-bookmarks"


def _time(text: str) -> datetime:
    """An ISO 8601 time (UTC when it names no zone)."""
    try:
        at = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: an ISO 8601 time such as 2027-01-15T20:00:00Z"
        ) from None
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def add_parser(subparsers: Any, summary: str) -> None:
    parser = subparsers.add_parser(
        COMMAND,
        help=summary,
        description="Print the floor's protection and security alerts as bookmarks for the "
        "surveillance video (table, seat, UTC time in ms, kind), as CSV or JSON.",
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--config", metavar="FILE", help="the floor service's TOML file")
    where.add_argument("--dsn", help="the floor store's PostgreSQL DSN")
    parser.add_argument("--since", type=_time, metavar="TIME", help="raised at or after (ISO 8601)")
    parser.add_argument("--until", type=_time, metavar="TIME", help="raised before (ISO 8601)")
    parser.add_argument("--table", metavar="ID", help="one table's only")
    parser.add_argument("--every", action="store_true", help="every alert, not only protection's")
    parser.add_argument("--format", choices=("csv", "json"), default="csv", help="(csv)")
    parser.add_argument(
        "--limit", type=int, default=100_000, metavar="N", help="at most N (100000)"
    )
    parser.set_defaults(handler=handler)


def handler(args: argparse.Namespace) -> int:
    if args.limit < 1:
        return fail(COMMAND, f"--limit {args.limit}: 1 or more")
    try:
        with floor_store(args) as connection:
            marks = store.bookmarks(
                connection,
                since=args.since,
                until=args.until,
                table_id=args.table,
                kinds=None if args.every else surveillance.BOOKMARKED,
                limit=args.limit,
            )
    except StoreUnusable as error:
        return fail(COMMAND, error.reason, status=error.status)
    except psycopg.Error as error:
        return fail(COMMAND, str(error).strip().splitlines()[0], status=1)
    if args.format == "csv":
        sys.stdout.write(surveillance.bookmarks_csv(marks))
    else:
        print(json.dumps([dataclasses.asdict(mark) for mark in marks], indent=1))
    return 0
