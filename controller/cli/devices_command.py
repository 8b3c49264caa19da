"""``luck-table devices``: the PC/SC card readers pcscd sees now, one name a line, to copy
into a configuration (``[devices.shoe] reader``, ``[devices.seat_board.readers]``: a name,
or a regular expression that matches it alone). With ``--config FILE``, the reader each of
its PC/SC devices' patterns matches, or what is wrong. Exit status 0; 2 when pcscd does not
answer, pyscard is missing, or (with ``--config``) a pattern matches no reader or several.
"""

from __future__ import annotations

import argparse
from typing import Any

from controller.cli.common import fail
from controller.config import load_config
from controller.config_file import ConfigError
from drivers.errors import DriverError
from drivers.pcsc.scard import match_readers, reader_names

COMMAND = "devices"


def handler(args: argparse.Namespace) -> int:
    try:
        names = reader_names()
    except DriverError as error:
        return fail(COMMAND, str(error))
    print(f"pcscd sees {len(names)} reader(s)" + (":" if names else ""))
    for name in names:
        print(f"  {name}")
    if args.config is None:
        return 0
    try:
        config = load_config(args.config)
    except ConfigError as error:
        return fail(COMMAND, str(error))
    problems: list[str] = []
    for device, port in (("shoe", config.shoe), ("seat_board", config.seat_board)):
        if port is None or port.pcsc is None:
            continue
        found, problem = match_readers(port.pcsc.readers, names)
        for key, name in found.items():
            print(f"[devices.{device}] {key}: {name}")
        if problem:
            problems.append(f"[devices.{device}] {problem}")
    if problems:
        return fail(COMMAND, "; ".join(problems))
    return 0


def add_parser(subparsers: Any, summary: str) -> None:
    parser = subparsers.add_parser(COMMAND, help=summary, description=__doc__)
    parser.add_argument("--config", help="a table configuration: which reader each pattern matches")
    parser.set_defaults(handler=handler)
