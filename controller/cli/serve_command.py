"""``luck-table serve --config FILE``: run one table (the table service) and its dealer
console (``dealer_ui``, at the configuration's API address) until stopped.

Exit status: 0 after SIGTERM or SIGINT (Ctrl-C); 2 for a configuration error (the key, the
value and what is allowed; an ``[api]`` address the console cannot listen at included: it is
bound before the journal or a device is touched); 1 when the journal cannot be opened (not
a journal, another version, no permission, its folder missing), another process writes it
(checked first: a second service of the table is named as such, not as an address in
use), or the service fails. A journal whose disk is full is waited for, not a failure: at
the start (its console's address answering 503 with why meanwhile) as while the table
deals (docs/operations.md).

``luck-table serve --check --config FILE`` checks the configuration and stops: it touches
neither the journal nor the devices, nor starts anything. Each problem is a line on
standard error naming the setting and what is wrong: every wrong value of the file its
checks can find (each check goes on past a wrong value), then the journal's folder and
the console's address, each unless its own value is wrong (an address in use is not a
problem, the table's own service may hold it); exit 0 with ``FILE: ok`` on standard
output, or 1.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import logging
import os
import signal
import socket
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from controller.cli.common import add_log_options, fail, log_to_stderr
from controller.config import Config, config_problems, load_config
from controller.config_file import ConfigError
from controller.console_address import console_url
from controller.journal import JournalError
from controller.journal.store import check_no_writer
from controller.service import TableService
from controller.service.systemd import Notifier
from dealer_ui import serve as serve_console
from dealer_ui.server import Served, listening_socket, start, waiting_app

log = logging.getLogger("controller.service")
#: The file in the runtime folder that holds the console's URL.
CONSOLE_URL_FILE = "console.url"


async def serve(config: Config, sock: socket.socket | None = None) -> None:
    """Run the table service and its console (on ``sock`` when given: bound at the
    configuration's address already) until SIGTERM or SIGINT. While the start waits for
    the journal's disk, the console's address answers 503 with why."""
    notifier = Notifier()
    interim: list[asyncio.Task[Served]] = []
    why = [""]

    def waiting(reason: str, seconds: float) -> None:
        notifier.waiting(reason, seconds)
        why[0] = reason
        if sock is not None and not interim:
            app = waiting_app(lambda: why[0])
            interim.append(asyncio.ensure_future(start(app, config.api, sock=sock.dup())))

    try:
        async with TableService(config, waiting=waiting) as service:
            await _stop(interim)
            await _serve(service, config, notifier, sock)
    finally:
        await _stop(interim)


async def _stop(interim: list[asyncio.Task[Served]]) -> None:
    """Stop the console that answered 503 while the start waited, if any."""
    if interim:
        served = await interim.pop()
        await served.stop()


async def _serve(
    service: TableService, config: Config, notifier: Notifier, sock: socket.socket | None
) -> None:
    """The console of the started ``service``, until the service stops."""
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
    _tell_the_kiosk(console_url(config.api, port=urlsplit(console.url).port))
    notifier.ready(f"table {config.table_id} open at position {service.position}")
    watchdog = asyncio.create_task(notifier.keep_alive())
    try:
        await service.run_until_stopped()
    finally:
        notifier.stopping()
        watchdog.cancel()
        await console.stop()


def _tell_the_kiosk(url: str) -> None:
    """Under systemd (``RuntimeDirectory=luck-table``): the console's URL in
    ``/run/luck-table/console.url``, once it answers, for the kiosk (whose browser opens
    it: the port and the TLS setting as configured); gone when the service stops."""
    folder = os.environ.get("RUNTIME_DIRECTORY")
    if folder:
        (Path(folder.split(":")[0]) / CONSOLE_URL_FILE).write_text(url + "/\n", encoding="utf-8")


def check(path: Path) -> list[str]:
    """The problems of the configuration file at ``path``, in words (none: it is good),
    the journal and the devices untouched: every wrong value the file's checks find, then
    the journal's folder and the console's address, each unless its own value is wrong."""
    config, found = config_problems(path)
    problems = [str(error) for error in found]
    if config is None:
        return problems
    wrong = {error.key for error in found}
    folder = config.journal.parent
    if not wrong & {"journal", "journal.path"} and not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        problems.append(
            f"journal.path = '{config.journal}': its folder {what} (the service makes no "
            "folders: make it, or let systemd's StateDirectory= make it)"
        )
    if not any(key == "api" or key.startswith("api.") for key in wrong):
        try:
            listening_socket(config.api).close()
        except OSError as error:
            if error.errno != errno.EADDRINUSE:  # in use: by this table's service, maybe
                problems.append(str(error))
    return problems


def handler(args: argparse.Namespace) -> int:
    log_to_stderr(args.log_level, args.log_format)
    if args.check:
        problems = check(args.config)
        for problem in problems:
            fail("serve", f"{args.config}: {problem}")
        if not problems:
            print(f"{args.config}: ok")
        return 1 if problems else 0
    try:
        config = load_config(args.config)
    except ConfigError as error:
        return fail("serve", f"{args.config}: {error}")
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


def add_parser(subparsers: Any, summary: str) -> None:
    parser = subparsers.add_parser(
        "serve",
        help=summary,
        description="Run one table: the shoe and seat board, the journal, the table core, "
        "and the dealer console at the configuration's API address.",
    )
    parser.add_argument("--config", required=True, metavar="FILE", help="the table's TOML file")
    parser.add_argument(
        "--check",
        action="store_true",
        help="check the configuration only (the journal and the devices untouched): exit 0, "
        "or 1 naming each problem",
    )
    add_log_options(parser)
    parser.set_defaults(handler=handler)
