"""``luck-table floor-retention --config FILE --keep DAYS [--archive DIR]``: keep the floor
store to the days it is meant to hold (docs/floor.md, "Retention").

Makes the partitions of the coming ``--ahead`` days (so that the ingest finds them made),
then takes off the floor every partition of journal entries older than ``--keep`` days and
of hands older than ``--keep-hands`` days (by default ``--keep``): each is detached while
the floor ingests and answers on, archived into ``--archive DIR`` as a gzipped CSV file
when given (else dropped with its rows), then dropped. ``--dry-run`` says what it would
take off and changes nothing. Meant to run daily (a systemd timer or cron); a run cut short
is finished by the next.

Exit status: 0 done; 2 a configuration or command-line error; 1 the floor database
unreachable, without this release's schema, or refusing (the message says why; the
partitions retired until then are listed).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import psycopg

from controller.cli.common import StoreUnusable, fail, floor_store
from controller.floor import retention

COMMAND = "floor-retention"


def add_parser(subparsers: Any, summary: str) -> None:
    parser = subparsers.add_parser(
        COMMAND,
        help=summary,
        description="Make the floor store's coming partitions and take its old ones off the "
        "floor: journal entries older than --keep days and hands older than --keep-hands "
        "days, archived into --archive DIR or dropped.",
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--config", metavar="FILE", help="the floor service's TOML file")
    where.add_argument("--dsn", help="the floor store's PostgreSQL DSN")
    parser.add_argument(
        "--keep", type=int, required=True, metavar="DAYS", help="days of journal entries kept"
    )
    parser.add_argument(
        "--keep-hands", type=int, metavar="DAYS", help="days of hands kept (default: --keep)"
    )
    parser.add_argument(
        "--archive", type=Path, metavar="DIR", help="archive each partition here before its drop"
    )
    parser.add_argument(
        "--ahead", type=int, default=7, metavar="DAYS", help="days of partitions made ahead (7)"
    )
    parser.add_argument("--dry-run", action="store_true", help="say what, change nothing")
    parser.set_defaults(handler=handler)


def handler(args: argparse.Namespace) -> int:
    keep_hands = args.keep if args.keep_hands is None else args.keep_hands
    if min(args.keep, keep_hands) < 1:
        return fail(COMMAND, f"--keep {args.keep}, --keep-hands {keep_hands}: 1 day or more")
    if args.ahead < 0:
        return fail(COMMAND, f"--ahead {args.ahead}: 0 days or more")
    try:
        with floor_store(args) as connection:
            old = retention.expired(connection, args.keep, keep_hands)
            if args.dry_run:
                for partition in old:
                    print(f"would retire {partition.name} (up to {partition.until:%Y-%m-%d})")
                return 0
            for name in retention.make_ahead(connection, args.ahead):
                print(f"partition {name} ready")
            for partition in old:
                done = retention.retire(connection, partition, args.archive)
                where = f"archived to {done.archive}" if done.archive else "dropped"
                print(f"retired {partition.name}: {done.rows} rows {where}")
    except StoreUnusable as error:
        return fail(COMMAND, error.reason, status=error.status)
    except retention.RetentionError as error:
        return fail(COMMAND, str(error), status=1)
    except (psycopg.Error, OSError) as error:
        return fail(COMMAND, str(error).strip().splitlines()[0], status=1)
    return 0
