"""``luck-table serve --config FILE``: run one table (the table service) and its dealer
console (``dealer_ui``, at the configuration's API address) until stopped.

Exit status: 0 after SIGTERM or SIGINT (Ctrl-C); 2 for a configuration error (the key, the
value and what is allowed; an ``[api]`` address the console cannot listen at included: it is
bound before the journal or a device is touched); 1 when the journal cannot be opened or
written, another process writes it (checked first: a second service of the table is named
as such, not as an address in use), or the service fails.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import socket
from typing import Any

from controller.cli.common import LOG_LEVELS, fail, log_to_stderr
from controller.config import Config, ConfigError, load_config
from controller.journal import JournalError
from controller.journal.store import check_no_writer
from controller.service import TableService

log = logging.getLogger("controller.service")


async def serve(config: Config, sock: socket.socket | None = None) -> None:
    """Run the table service and its console (on ``sock`` when given: bound at the
    configuration's address already) until SIGTERM or SIGINT."""
    # the web framework is loaded by this command only, not by every luck-table command
    from dealer_ui import serve as serve_console  # noqa: PLC0415

    async with TableService(config) as service:
        loop = asyncio.get_running_loop()
        for number in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(number, lambda: asyncio.ensure_future(service.stop()))
        console = await serve_console(service, sock=sock)
        log.info(
            "table %s (%s) is open; the console is at %s",
            config.table_id,
            config.table_name,
            console.url,
        )
        try:
            await service.run_until_stopped()
        finally:
            await console.stop()


def handler(args: argparse.Namespace) -> int:
    log_to_stderr(args.log_level)
    try:
        config = load_config(args.config)
    except ConfigError as error:
        return fail("serve", f"{args.config}: {error}")
    # the web framework is loaded by this command only, not by every luck-table command
    from dealer_ui.server import listening_socket  # noqa: PLC0415

    try:  # a second service of this table: named, before its address is found taken
        check_no_writer(config.journal)
    except JournalError as error:
        return fail("serve", str(error), status=1)
    try:
        sock = listening_socket(config.api)
    except OSError as error:
        return fail("serve", f"{args.config}: {error}")
    try:
        asyncio.run(serve(config, sock))
    except (JournalError, OSError) as error:
        return fail("serve", str(error), status=1)
    finally:
        sock.close()
    return 0


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the table service",
        description="Run one table: the shoe and seat board, the journal, the table core, "
        "and the dealer console at the configuration's API address.",
    )
    parser.add_argument("--config", required=True, metavar="FILE", help="the table's TOML file")
    parser.add_argument("--log-level", default="info", choices=LOG_LEVELS)
    parser.set_defaults(handler=handler)
