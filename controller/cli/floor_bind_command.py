"""``luck-table floor-bind --config FILE (--renamed-from OLD | --new-journal)``: what an
operator does when the floor refuses a table's journal for good reason.

The floor binds each journal to one table id and each table id to one journal (its current
session). ``--renamed-from OLD``: the table was renamed (its ``[table] id`` is now the
configured one): the floor's table OLD becomes it, with its journals, hands, alerts and
status. ``--new-journal``: the configured journal is the table's from now on (a reset, a
replaced journal, a journal restored from a backup): a new session of the table on the
floor; a journal the floor holds already (a restored backup) first gets a new identity,
which needs the journal's lock (stop the table's service first). The floor keeps every
entry it held. The table's shipper, refused until then, ships at its next try.

Exit status: 0 done; 2 a configuration or command-line error; 1 the floor or the journal
refused (the message says why: nothing was changed).
"""

from __future__ import annotations

import argparse
import getpass
import socket
from typing import Any

import psycopg

from controller.cli.common import fail
from controller.config import Config, load_config
from controller.config_file import ConfigError
from controller.floor import facts as f
from controller.floor import store
from controller.floor.migrate import MigrationError, migrate
from controller.journal import Journal, JournalError


def add_parser(subparsers: Any, summary: str) -> None:
    parser = subparsers.add_parser(
        "floor-bind",
        help=summary,
        description="Tell the casino floor that the table of this configuration was renamed "
        "(--renamed-from OLD), or that its journal is the table's from now on "
        "(--new-journal: a reset, a replaced journal, a journal restored from a backup).",
    )
    parser.add_argument("--config", required=True, metavar="FILE", help="the table's TOML file")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--renamed-from", metavar="OLD", help="the table's id on the floor until now")
    what.add_argument(
        "--new-journal", action="store_true", help="the configured journal is the table's now"
    )
    parser.set_defaults(handler=handler)


def handler(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config)
    except ConfigError as error:
        return fail("floor-bind", f"{args.config}: {error}")
    if config.floor is None:
        return fail("floor-bind", f"{args.config}: no [floor] section: the table ships nowhere")
    who = f"{getpass.getuser()}@{socket.gethostname()}"
    try:
        with store.connect(config.floor.dsn, autocommit=True) as connection:
            migrate(connection)
            if args.renamed_from is not None:
                print(_rename(connection, config, args.renamed_from, who))
            else:
                print(_new_journal(connection, config, who))
    except (JournalError, store.FloorError, MigrationError) as error:
        return fail("floor-bind", str(error), status=1)
    except psycopg.Error as error:
        return fail("floor-bind", f"the floor: {' '.join(str(error).split())}", status=1)
    return 0


def _identity(config: Config) -> f.Journal:
    with Journal.open(config.journal, create=False) as journal:
        return store.shipped(journal, config.table_id, config.table_name)


def _rename(connection: psycopg.Connection, config: Config, old: str, who: str) -> str:
    journal = _identity(config)
    session = store.rename_table(connection, journal, old, who)
    return (
        f"table {old} is table {journal.table_id} on the floor from now on, with its "
        f"journals, hands and alerts; journal {journal.journal_id} ships as "
        f"{journal.table_id} from position {session.confirmed_position + 1}"
    )


def _new_journal(connection: psycopg.Connection, config: Config, who: str) -> str:
    with Journal.open(config.journal, create=False) as reading:
        journal_id = reading.identity()
    held = None if journal_id is None else store.held(connection, journal_id)
    note = ""
    if journal_id is None or held is not None:
        with Journal.open(config.journal) as writing:  # its writer: the service is stopped
            if held is not None:
                writing.new_identity()
                note = (
                    f" (the floor holds its earlier identity {journal_id} as table {held[0]} "
                    f"session {held[1]}, and keeps it)"
                )
    journal = _identity(config)
    session = store.bind_journal(connection, journal, who)
    return (
        f"journal {journal.journal_id} ({journal.path}) is table {journal.table_id}'s on the "
        f"floor from now on: session {session.session}{note}"
    )
