"""What every ``luck-table`` subcommand shares: the error format and reading input.

Every subcommand reports an error with :func:`fail`, one line on standard error in
argparse's own format for usage errors (``luck-table eval: error: no cards given``), the
message cut to :data:`MESSAGE_LIMIT` characters so that a hostile input is never echoed
whole. Exit status 2 means the input or the command line was not acceptable.

Input files are read as bytes and decoded here, strictly as UTF-8, so that a file and
standard input behave alike whatever the locale: invalid UTF-8 is an :class:`InputError`
saying where, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import logging
import sys
import time
from collections.abc import Iterator
from typing import Any

from controller.cli import PROG, USAGE_ERROR
from controller.rules.cards import shorten
from luck_errors import LuckTableError

#: Long enough for a message that names two deep paths and says what to do; a hostile
#: input is cut to its start and end.
MESSAGE_LIMIT = 500


LOG_LEVELS = ("debug", "info", "warning", "error")
LOG_FORMATS = ("text", "json")


class JsonLines(logging.Formatter):
    """One JSON object a line: ``time`` (ISO 8601, UTC, milliseconds), ``level``,
    ``logger``, ``message`` (and ``exception`` with the traceback, when there is one)."""

    def format(self, record: logging.LogRecord) -> str:
        moment = datetime.datetime.fromtimestamp(record.created, datetime.UTC)
        line = {
            "time": moment.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def log_to_stderr(level: str, log_format: str = "text") -> None:
    """A service's log: one line per event on standard error (journald under systemd),
    each with its time: ``2026-12-02T05:10:00.123Z INFO logger: message`` (UTC), or a JSON
    object (``json``) for a log collector."""
    handler = logging.StreamHandler(sys.stderr)
    if log_format == "json":
        handler.setFormatter(JsonLines())
    else:
        text = logging.Formatter(
            "%(asctime)s.%(msecs)03dZ %(levelname)s %(name)s: %(message)s", "%Y-%m-%dT%H:%M:%S"
        )
        text.converter = time.gmtime
        handler.setFormatter(text)
    logging.basicConfig(level=getattr(logging, level.upper()), handlers=[handler])


def add_log_options(parser: argparse.ArgumentParser) -> None:
    """``--log-level`` and ``--log-format`` of a service's command."""
    parser.add_argument("--log-level", default="info", choices=LOG_LEVELS)
    parser.add_argument(
        "--log-format",
        default="text",
        choices=LOG_FORMATS,
        help="text lines with their time (default), or one JSON object a line",
    )


class InputError(LuckTableError, ValueError):
    """Input that cannot be read: the message says what and where."""


def fail(command: str, message: str, status: int = USAGE_ERROR) -> int:
    """Print ``luck-table COMMAND: error: MESSAGE`` on standard error; return ``status``."""
    print(f"{PROG} {command}: error: {shorten(message, MESSAGE_LIMIT)}", file=sys.stderr)
    return status


def read_text(path: str) -> str:
    """The whole of file ``path`` (``-``: standard input) as text."""
    try:
        if path == "-":
            data = b"".join(_standard_input())
        else:
            with open(path, "rb") as stream:
                data = stream.read()
    except OSError as error:
        raise InputError(f"cannot read {path}: {error.strerror}") from None
    return decode(data, _name(path))


def read_lines(path: str) -> Iterator[bytes]:
    """The lines of file ``path`` (``-``: standard input) as bytes, read as they are used.

    Each line is decoded by the caller (:func:`decode`), so that one bad line can be
    reported in its place.
    """
    try:
        if path == "-":
            yield from _standard_input()
            return
        with open(path, "rb") as stream:
            yield from stream
    except OSError as error:
        raise InputError(f"cannot read {path}: {error.strerror}") from None


def decode(data: bytes, where: str | None = None) -> str:
    """``data`` as UTF-8 text; :class:`InputError` naming the first bad byte otherwise."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        bad = f"not UTF-8 text: byte {data[error.start]:#04x} at offset {error.start}"
        raise InputError(bad if where is None else f"{where}: {bad}") from None


def _standard_input() -> Iterator[bytes]:
    """Standard input's lines as bytes; a text stream put in its place (by a program that
    embeds the command line, or a test) is encoded back, a lone surrogate kept as a bad byte."""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is not None:
        yield from buffer
    else:
        for line in sys.stdin:
            yield line.encode("utf-8", "surrogateescape")


def _name(path: str) -> str:
    return "standard input" if path == "-" else path


class StoreUnusable(LuckTableError):
    """A floor command cannot use the store: ``reason``, and the exit ``status`` (2 for its
    configuration, 1 for a store not at this release's schema)."""

    def __init__(self, reason: str, status: int) -> None:
        super().__init__(reason)
        self.reason, self.status = reason, status


@contextlib.contextmanager
def floor_store(args: argparse.Namespace) -> Iterator[Any]:
    """The floor store of ``--config`` or ``--dsn``, connected (autocommit) and at this
    release's schema; :class:`StoreUnusable` when it is not. A store that cannot be reached
    raises psycopg's error."""
    import psycopg  # noqa: PLC0415 (the PostgreSQL client only for floor commands)

    from controller.config_file import ConfigError  # noqa: PLC0415
    from controller.floor.migrate import schema_problem  # noqa: PLC0415

    try:
        dsn = floor_dsn(args)
    except ConfigError as error:
        raise StoreUnusable(f"{args.config or '--dsn'}: {error}", USAGE_ERROR) from None
    with psycopg.connect(dsn, autocommit=True, connect_timeout=10) as connection:
        problem = schema_problem(connection)
        if problem is not None:
            raise StoreUnusable(f"{problem}: apply this release's migrations", 1)
        yield connection


def floor_dsn(args: argparse.Namespace) -> str:
    """The floor store's DSN of a command given ``--config FILE`` (the floor service's) or
    ``--dsn``; :class:`ConfigError` saying what is wrong."""
    from controller.config_file import ConfigError, check_dsn  # noqa: PLC0415 (floor commands)
    from dealer_ui.pit.config import load_floor_config  # noqa: PLC0415 (FastAPI only if read)

    if args.dsn is not None:
        return check_dsn(args.dsn, "--dsn")
    config = load_floor_config(args.config)
    if not config.dsn:
        raise ConfigError("floor.dsn", "(missing)", "the floor store's DSN, or --dsn")
    return config.dsn
