"""``luck-table serve --config FILE``: run one table (the table service) until stopped.

Exit status: 0 after SIGTERM or SIGINT (Ctrl-C); 2 for a configuration error (the key, the
value and what is allowed); 1 when the journal cannot be opened or the service fails.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from typing import Any

from controller.cli.common import fail
from controller.config import Config, ConfigError, load_config
from controller.journal import JournalError
from controller.service import TableService

log = logging.getLogger("controller.service")


async def serve(config: Config) -> None:
    """Run the table service until SIGTERM or SIGINT."""
    async with TableService(config) as service:
        loop = asyncio.get_running_loop()
        for number in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(number, lambda: asyncio.ensure_future(service.stop()))
        log.info("table %s (%s) is open", config.table_id, config.table_name)
        await service.run_until_stopped()


def handler(args: argparse.Namespace) -> int:
    logging.basicConfig(
        level=getattr(logging, args.log_level.upper()),
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    try:
        config = load_config(args.config)
    except ConfigError as error:
        return fail("serve", f"{args.config}: {error}")
    try:
        asyncio.run(serve(config))
    except JournalError as error:
        return fail("serve", str(error), status=1)
    return 0


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the table service",
        description="Run one table: the shoe and seat board, the journal, the table core.",
    )
    parser.add_argument("--config", required=True, metavar="FILE", help="the table's TOML file")
    parser.add_argument(
        "--log-level", default="info", choices=("debug", "info", "warning", "error")
    )
    parser.set_defaults(handler=handler)
