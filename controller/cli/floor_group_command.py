"""``luck-table floor-group ACTION``: a group of casinos, each floor store replicated to the
group's central database (docs/floor.md, "A group of casinos"; :mod:`controller.floor.group`).

- ``publish (--config FILE | --dsn DSN)``, on a floor: its publication of what the group
  gathers (made, or set to this release's tables after an upgrade);
- ``subscribe (--config FILE | --dsn DSN) --central DSN --name NAME [--connection DSN]
  [--ahead DAYS]``: the central database, given the floor's schema (applied when it lacks
  it) and the partitions of hands the floor holds and the coming ``--ahead`` days',
  subscribes to the floor as ``NAME`` (one per casino: ``casino_dublin``), through the
  floor's replication slot of that name. ``--connection`` is the floor as the central's
  server reaches it (by default the floor's DSN here); it is kept in the central's catalog,
  so a password belongs in the server's password file, not in it;
- ``prepare (--config FILE | --dsn DSN) --central DSN [--ahead DAYS]``: the partitions of
  the months the floor holds made at the central again (a subscription stopped at a hand
  of a month the central had no partition for goes on);
- ``refresh --central DSN --name NAME``: the subscription takes the tables its floor
  published since (after ``publish`` on a floor of a newer release);
- ``unsubscribe (--config FILE | --dsn DSN) --central DSN --name NAME``: the subscription
  dropped, and its slot on the floor (which would otherwise keep the floor's WAL);
- ``status --central DSN``: each subscription of the central, how it is doing.

Exit status: 0 done; 2 a configuration or command-line error; 1 a database unreachable,
a floor without this release's schema or publishing nothing, or PostgreSQL refusing (the
message says why).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from datetime import UTC
from typing import Any

import psycopg

from controller.cli.common import StoreUnusable, fail, floor_dsn, floor_store
from controller.config_file import ConfigError, check_dsn
from controller.floor import group
from controller.floor.migrate import MigrationError, migrate

COMMAND = "floor-group"
#: A subscription's name is also its slot's on the floor: PostgreSQL takes lower-case
#: letters, digits and underscores, at most 63.
NAME = re.compile(r"[a-z0-9_]{1,63}")
#: Days of partitions made ahead at the central, as ``floor-retention --ahead``.
AHEAD = 7


def _name(text: str) -> str:
    if NAME.fullmatch(text) is None:
        raise argparse.ArgumentTypeError(
            f"{text[:80]!r}: lower-case letters, digits and _, at most 63 (casino_dublin)"
        )
    return text


def _days(text: str) -> int:
    try:
        days = int(text)
    except ValueError:
        days = -1
    if days < 0:
        raise argparse.ArgumentTypeError(f"{text[:20]!r}: a number of days, 0 or more")
    return days


def add_parser(subparsers: Any, summary: str) -> None:
    parser = subparsers.add_parser(
        COMMAND,
        help=summary,
        description="Replicate each casino's floor store to the group's central database "
        "(PostgreSQL's logical replication): publish on a floor, subscribe the central to "
        "it, and keep the subscriptions going.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    def action(name: str, help_text: str, run: Callable[[argparse.Namespace], int]) -> Any:
        sub = actions.add_parser(name, help=help_text, description=help_text + ".")
        sub.set_defaults(handler=lambda args: _run(run, args))
        return sub

    def the_floor(sub: Any) -> None:
        where = sub.add_mutually_exclusive_group(required=True)
        where.add_argument("--config", metavar="FILE", help="the floor service's TOML file")
        where.add_argument("--dsn", help="the floor store's PostgreSQL DSN")

    def the_central(sub: Any) -> None:
        sub.add_argument(
            "--central", required=True, metavar="DSN", help="the central database's PostgreSQL DSN"
        )

    def the_name(sub: Any) -> None:
        sub.add_argument(
            "--name",
            required=True,
            type=_name,
            help="the subscription's name, one per casino (casino_dublin)",
        )

    def ahead(sub: Any) -> None:
        sub.add_argument(
            "--ahead", type=_days, default=AHEAD, metavar="DAYS", help="days made ahead (7)"
        )

    sub = action("publish", "publish on a floor what the group gathers", _publish)
    the_floor(sub)
    sub = action("subscribe", "subscribe the central database to a floor", _subscribe)
    the_floor(sub)
    the_central(sub)
    the_name(sub)
    sub.add_argument(
        "--connection",
        metavar="DSN",
        help="the floor as the central's server reaches it (default: the floor's DSN)",
    )
    ahead(sub)
    sub = action("prepare", "make at the central the months of hands a floor holds", _prepare)
    the_floor(sub)
    the_central(sub)
    ahead(sub)
    sub = action("refresh", "take the tables a floor published since", _refresh)
    the_central(sub)
    the_name(sub)
    sub = action("unsubscribe", "drop a subscription and its slot on the floor", _unsubscribe)
    the_floor(sub)
    the_central(sub)
    the_name(sub)
    the_central(action("status", "how each subscription of the central is doing", _status))


def _run(run: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """``run(args)``, its failures reported as one line each."""
    try:
        return run(args)
    except StoreUnusable as error:
        return fail(COMMAND, error.reason, status=error.status)
    except ConfigError as error:
        return fail(COMMAND, str(error))
    except (psycopg.Error, MigrationError, TimeoutError) as error:
        return fail(COMMAND, str(error).strip().splitlines()[0], status=1)


def _central(args: argparse.Namespace) -> psycopg.Connection:
    """The central database, connected in autocommit mode (a subscription is no
    transaction's)."""
    return psycopg.connect(
        check_dsn(args.central, "--central"), autocommit=True, connect_timeout=10
    )


def _published_by(floor: psycopg.Connection) -> list[str]:
    """The tables the floor publishes to the group; StoreUnusable when it publishes none."""
    tables = group.published(floor)
    if not tables:
        raise StoreUnusable(
            f"the floor publishes nothing: run `luck-table {COMMAND} publish` on it first", 1
        )
    return tables


def _made_ready(central: psycopg.Connection, floor: psycopg.Connection, ahead: int) -> None:
    """The central at this release's schema, with the floor's months and the coming days'."""
    applied = migrate(central)
    if applied:
        print(f"central schema: applied {', '.join(map(str, applied))}")
    group.prepare_central(central, floor, ahead)


def _publish(args: argparse.Namespace) -> int:
    with floor_store(args) as floor:
        group.publish(floor)
        print(f"{group.PUBLICATION} publishes {', '.join(group.published(floor))}")
    return 0


def _subscribe(args: argparse.Namespace) -> int:
    connection = check_dsn(args.connection, "--connection") if args.connection else None
    with floor_store(args) as floor, _central(args) as central:
        tables = _published_by(floor)
        _made_ready(central, floor, args.ahead)
        group.subscribe(central, floor, args.name, connection or floor_dsn(args))
        print(f"{args.name} subscribed to {len(tables)} tables: {', '.join(tables)}")
    return 0


def _prepare(args: argparse.Namespace) -> int:
    with floor_store(args) as floor, _central(args) as central:
        _made_ready(central, floor, args.ahead)
        print("the central holds a partition for every month the floor holds hands of")
    return 0


def _refresh(args: argparse.Namespace) -> int:
    with _central(args) as central:
        group.refresh(central, args.name)
        print(f"{args.name} refreshed")
    return 0


def _unsubscribe(args: argparse.Namespace) -> int:
    with floor_store(args) as floor, _central(args) as central:
        group.unsubscribe(central, floor, args.name)
        print(f"{args.name} dropped, and its slot on the floor")
    return 0


def _status(args: argparse.Namespace) -> int:
    with _central(args) as central:
        found = group.subscriptions(central)
    if not found:
        print("no subscriptions")
    for sub in found:
        last = sub.last_message
        heard = "never" if last is None else f"{last.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}"
        print(
            f"{sub.name}: {'enabled' if sub.enabled else 'disabled'}, "
            f"{'running' if sub.running else 'not running'}, "
            f"{sub.ready} of {sub.tables} tables ready, {sub.apply_errors} apply errors, "
            f"{sub.sync_errors} first-copy errors, last heard {heard}"
        )
    return 0
