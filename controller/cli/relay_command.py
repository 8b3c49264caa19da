"""``luck-table relay --source URL | --table-config FILE``: serve a table's public feed to
broadcast viewers from a process of its own (``dealer_ui.relay``), until stopped.

The relay follows the table service's public feed at ``--source`` (the console's address,
``http(s)://host:port``, or the one of the table configuration ``--table-config``, TLS
included) and serves the same feed at ``ws(s)://BIND:PORT/ws``, the public
page at ``/public`` and its state at ``/health``. A table that is not up yet, or goes away,
is retried for ever (new viewers get HTTP 503 meanwhile).

Exit status: 0 after SIGTERM or SIGINT (Ctrl-C); 2 for a command-line error (a bad URL, a
port out of range, an unreadable certificate: what and where); 1 when the relay cannot
listen at its address.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import ssl
from dataclasses import replace
from typing import Any

from controller.cli.common import add_log_options, fail, log_to_stderr
from controller.config import load_config
from controller.config_file import Api, ConfigError
from controller.console_address import console_url
from dealer_ui.relay import STUDIO_VIEWERS, Relay, feed_url, server_url

log = logging.getLogger("dealer_ui.relay")


async def run(
    args: argparse.Namespace, tls: ssl.SSLContext | None, source_ssl: ssl.SSLContext | None
) -> None:
    """Follow the table and serve viewers until SIGTERM or SIGINT."""
    relay = Relay(
        args.source,
        source_ssl=source_ssl,
        allowed_hosts=args.allow_host,
        allowed_origins=args.allow_origin,
        studio_viewers=args.studio_viewers,
        limits=replace(args.limits, max_websockets=args.viewers_per_address),
    )
    async with relay.serving(args.bind, args.port, tls) as server:
        stopped = asyncio.Event()
        loop = asyncio.get_running_loop()
        for number in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(number, stopped.set)
        log.info("relaying %s at %s/ws", relay.source, server_url(server, tls is not None))
        await stopped.wait()


def follow_the_table(args: argparse.Namespace, api: Api) -> None:
    """``--source`` and the TLS options from the table's ``[api]`` (its certificate is
    trusted, and served by the relay unless it has its own)."""
    args.source = console_url(api)
    args.limits = api  # what a viewer may send, and how many per address: the table's
    if api.tls_cert is not None and api.tls_key is not None:
        args.source_ca = args.source_ca or str(api.tls_cert)
        if args.tls_cert is None and args.tls_key is None:
            args.tls_cert, args.tls_key = str(api.tls_cert), str(api.tls_key)


def server_tls(args: argparse.Namespace) -> ssl.SSLContext | None:
    """The relay's own certificate (``--tls-cert`` with ``--tls-key``), or None."""
    if (args.tls_cert is None) != (args.tls_key is None):
        raise ValueError("--tls-cert and --tls-key go together")
    if args.tls_cert is None:
        return None
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(args.tls_cert, args.tls_key)
    except (OSError, ssl.SSLError) as error:
        raise ValueError(f"--tls-cert {args.tls_cert} --tls-key {args.tls_key}: {error}") from None
    return context


def source_tls(cafile: str | None) -> ssl.SSLContext | None:
    """The CAs trusted for an https:// source (``--source-ca``), or None: the system's."""
    if cafile is None:
        return None
    try:
        return ssl.create_default_context(cafile=cafile)
    except (OSError, ssl.SSLError) as error:
        raise ValueError(f"--source-ca {cafile}: {error}") from None


def handler(args: argparse.Namespace) -> int:
    log_to_stderr(args.log_level, args.log_format)
    if args.log_level != "debug":  # not a line for every viewer's connection
        logging.getLogger("websockets.server").setLevel(logging.WARNING)
    if not 0 <= args.port <= 65535:
        return fail("relay", f"--port {args.port}: a TCP port, 0..65535 (0: any free port)")
    if not 1 <= args.viewers_per_address <= 100_000:
        return fail("relay", f"--viewers-per-address {args.viewers_per_address}: 1..100000")
    if not 0 <= args.studio_viewers <= 64:
        return fail("relay", f"--studio-viewers {args.studio_viewers}: 0..64 (0: no studio feed)")
    if args.table_config is not None:
        try:
            follow_the_table(args, load_config(args.table_config).api)
        except ConfigError as error:
            return fail("relay", f"{args.table_config}: {error}")
    try:
        feed_url(args.source)
        tls = server_tls(args)
        source_ssl = source_tls(args.source_ca)
    except ValueError as error:
        return fail("relay", str(error))
    try:
        asyncio.run(run(args, tls, source_ssl))
    except OSError as error:
        return fail("relay", f"cannot listen at {args.bind}:{args.port}: {error}", status=1)
    return 0


def add_parser(subparsers: Any, summary: str) -> None:
    parser = subparsers.add_parser(
        "relay",
        help=summary,
        description="Follow a table service's public feed and serve it (the same feed, "
        "the public page, /health) to many viewers from this process, so that the table's "
        "own event loop sends each update once; and its studio feed (/studio/ws, /studio) "
        "to viewers with a studio token.",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--source",
        metavar="URL",
        help="the table service's console address, e.g. http://10.0.4.7:8080",
    )
    source.add_argument(
        "--table-config",
        metavar="FILE",
        help="the table on this machine, from its configuration: its console's address, "
        "https:// with its certificate trusted (and served by the relay too, unless "
        "--tls-cert is given) when its [api] has tls_cert",
    )
    parser.add_argument("--bind", default="127.0.0.1", metavar="ADDRESS", help="listen here")
    parser.add_argument("--port", type=int, default=8091, help="listen at this port (0: free)")
    parser.add_argument("--tls-cert", metavar="FILE", help="serve wss:// with this certificate")
    parser.add_argument("--tls-key", metavar="FILE", help="the certificate's private key")
    parser.add_argument(
        "--source-ca", metavar="FILE", help="trust these CAs for an https:// source"
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a name viewers reach the relay by (besides its address, localhost and this "
        "machine's name); repeatable",
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a web page's origin (https://host:port) whose viewers may open the feed, "
        "besides the relay's own /public page; repeatable",
    )
    parser.add_argument(
        "--viewers-per-address",
        type=int,
        default=Api.max_websockets,
        metavar="N",
        help="viewers open at a time from one address (public and studio; more are "
        f"closed with 1008; default {Api.max_websockets}); what each may send: the "
        "table's [api] with --table-config (max_message, messages_per_second, ...), "
        "else its defaults",
    )
    parser.add_argument(
        "--studio-viewers",
        type=int,
        default=STUDIO_VIEWERS,
        metavar="N",
        help="studio viewers at a time (each with a studio token, checked by the table; "
        f"each its own connection to the table; default {STUDIO_VIEWERS}, 0: none)",
    )
    add_log_options(parser)
    parser.set_defaults(handler=handler, limits=Api())  # --table-config: its [api]
