"""``luck-table floor --config FILE``: serve the pit view of the floor store (the floor
service, ``dealer_ui.pit``) until stopped.

The DSN, address and port of the configuration may be overridden on the command line.
Before serving, the floor database is reached once and its schema checked.

Exit status: 0 after SIGTERM or SIGINT (Ctrl-C); 2 for a configuration or command-line
error (a bad DSN: the key and why; an address it cannot listen at, bound first) and for a
floor schema of another version than this
release reads (a restart cannot mend it: apply the migrations, or run the matching release);
1 when the floor database cannot be reached or has no floor schema at start.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import signal
import socket
from typing import Any

import psycopg

from controller.cli.common import add_log_options, fail, log_to_stderr
from controller.config_file import ConfigError, check_dsn, describe_dsn
from controller.floor.migrate import NO_SCHEMA, schema_problem
from dealer_ui.pit import create_app
from dealer_ui.pit.config import load_floor_config
from dealer_ui.pit.live import connect, unreachable
from dealer_ui.server import listening_socket, start
from luck_errors import LuckTableError

log = logging.getLogger("dealer_ui.pit")


class FloorUnavailable(LuckTableError):
    """The floor database cannot serve the pit: the message says why."""


class FloorSchemaMismatch(LuckTableError):
    """The floor schema is not one this release reads: the message says which and why."""


def check_floor(dsn: str, statement_timeout: float = 5.0) -> None:
    """Reach the floor database once and find there the floor schema this release reads."""
    where = describe_dsn(dsn)
    try:
        with connect(dsn, timeout=5, statement_timeout=statement_timeout) as connection:
            problem = schema_problem(connection)
    except psycopg.Error as error:
        raise FloorUnavailable(f"{where}: {unreachable(error)}") from None
    if problem == NO_SCHEMA:
        raise FloorUnavailable(
            f"{where}: {problem}: apply it with `python -m controller.floor.migrate DSN`"
        )
    if problem is not None:
        raise FloorSchemaMismatch(
            f"{where}: {problem}: apply this release's migrations "
            "(`python -m controller.floor.migrate DSN`) or run the floor service of the "
            "release that made it"
        )


async def serve(config: Any, sock: socket.socket) -> None:
    """Serve the pit view on ``sock`` (bound at its address) until SIGTERM or SIGINT."""
    served = await start(create_app(config), config.api, what="the floor service", sock=sock)
    stopped = asyncio.Event()
    loop = asyncio.get_running_loop()
    for number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(number, stopped.set)
    log.info("the pit view of the floor %s is at %s", describe_dsn(config.dsn), served.url)
    await stopped.wait()
    await served.stop()


def handler(args: argparse.Namespace) -> int:
    log_to_stderr(args.log_level, args.log_format)
    try:
        config = load_floor_config(args.config)
    except ConfigError as error:
        return fail("floor", f"{args.config}: {error}")
    try:
        dsn = check_dsn(args.dsn, "--dsn") if args.dsn is not None else config.dsn
    except ConfigError as error:
        return fail("floor", str(error))
    if not dsn:
        missing = "floor.dsn = (missing): the floor store's DSN, or --dsn"
        return fail("floor", f"{args.config}: {missing}")
    if args.port is not None and not 0 <= args.port <= 65535:
        return fail("floor", f"--port {args.port}: a TCP port, 0..65535 (0: any free port)")
    config = dataclasses.replace(config, dsn=dsn)
    try:
        sock = listening_socket(config.api, args.bind, args.port)
    except OSError as error:
        return fail("floor", f"{args.config}: {error}")
    try:
        check_floor(dsn, config.statement_timeout)
        asyncio.run(serve(config, sock))
    except FloorSchemaMismatch as error:
        return fail("floor", str(error))
    except (FloorUnavailable, OSError) as error:
        return fail("floor", str(error), status=1)
    finally:
        sock.close()
    return 0


def add_parser(subparsers: Any, summary: str) -> None:
    parser = subparsers.add_parser(
        "floor",
        help=summary,
        description="Serve the floor service: the pit view (every table live, alerts "
        "across the floor, each table's surveillance view) and its REST API, from the "
        "floor store on PostgreSQL.",
    )
    parser.add_argument(
        "--config", required=True, metavar="FILE", help="the floor service's TOML file"
    )
    parser.add_argument("--dsn", help="the floor store's PostgreSQL DSN (instead of floor.dsn)")
    parser.add_argument("--bind", metavar="ADDRESS", help="listen here (instead of api.bind)")
    parser.add_argument(
        "--port", type=int, help="listen at this port (instead of api.port; 0: any free port)"
    )
    add_log_options(parser)
    parser.set_defaults(handler=handler)
