"""``luck-table hash-pin``: print the Argon2 hash of a PIN, for a configuration's
``pin_hash`` (the table's and the floor's credentials).

At a terminal the PIN is typed twice, unseen; otherwise it is the first line of standard
input (``echo 2468 | luck-table hash-pin``). Exit status 0 with the hash on standard
output; 2 with ``luck-table hash-pin: error: ...`` saying what was wrong with which PIN
(the two typed differ, too short, none given, not UTF-8 text).
"""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import Any

from controller.cli.common import InputError, decode, fail, read_lines

COMMAND = "hash-pin"
TYPED = "the PIN typed"
STDIN = "standard input, line 1"


def _typed() -> str:
    try:
        pin = getpass.getpass("PIN: ")
        again = getpass.getpass("PIN again: ")
    except EOFError:
        raise InputError(f"{TYPED}: none (end of input)") from None
    if again != pin:
        raise InputError(f"{TYPED}: the two PINs typed differ; nothing was hashed")
    return pin


def _piped() -> str:
    line = next(read_lines("-"), None)
    if line is None:
        raise InputError("standard input is empty: no PIN to hash")
    return decode(line, STDIN).rstrip("\r\n")


def handler(_: argparse.Namespace) -> int:
    from dealer_ui.auth import PinError, hash_pin  # noqa: PLC0415 (beside the sign-in it serves)

    at_terminal = sys.stdin.isatty()
    try:
        pin = _typed() if at_terminal else _piped()
        stored = hash_pin(pin)
    except InputError as error:
        return fail(COMMAND, str(error))
    except PinError as error:  # the PIN itself is refused (too short)
        return fail(COMMAND, f"{TYPED if at_terminal else STDIN}: {error}")
    print(stored)
    return 0


def add_parser(subparsers: Any, summary: str) -> None:
    parser = subparsers.add_parser(
        COMMAND,
        help=summary,
        description="Print the Argon2 hash of a PIN for a configuration's pin_hash: typed "
        "twice at a terminal, else the first line of standard input.",
    )
    parser.set_defaults(handler=handler)
