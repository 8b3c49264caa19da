"""``luck-table hash-badge``: print the Argon2 hash of a staff badge's UID, for a
configuration's ``badge`` (``[[credentials.dealers]]``, ``[[credentials.supervisors]]``).

The UID is read from a PC/SC reader (``--reader PATTERN``: the badge shown to it once, as
``luck-table deck register`` reads a card) or given in hex on the first line of standard
input (``echo 04a1b2c3d4e5f6 | luck-table hash-badge``, as a badge printer's list gives it;
spaces and colons between the bytes allowed). The UID is never printed nor stored: only its
salted hash (docs/security.md). Exit status 0 with the hash on standard output; 2 with
``luck-table hash-badge: error: ...`` saying what was wrong.
"""

from __future__ import annotations

import argparse
import queue
import sys
from typing import Any

from controller.cli.common import InputError, decode, fail, read_lines
from drivers.errors import DriverError
from drivers.pcsc.scard import Arrived, Readers, Seen, Watcher

COMMAND = "hash-badge"
STDIN = "standard input, line 1"
#: The seconds to wait for the reader, then for a badge.
READER_TIMEOUT = 10.0
BADGE_TIMEOUT = 60.0


def uid_of(text: str) -> bytes:
    """A UID written in hex (``04a1b2...``, ``04 A1 B2 ...``, ``04:a1:b2:...``)."""
    digits = "".join(text.replace(":", " ").split())
    try:
        uid = bytes.fromhex(digits)
    except ValueError:
        raise InputError(f"{STDIN}: a badge's UID in hex (such as 04a1b2c3d4e5f6)") from None
    if not uid:
        raise InputError(f"{STDIN}: no UID")
    return uid


def _piped() -> bytes:
    line = next(read_lines("-"), None)
    if line is None:
        raise InputError("standard input is empty: no UID to hash")
    return uid_of(decode(line, STDIN))


def _shown(pattern: str) -> bytes:
    """The UID of the badge shown to the reader ``pattern`` names."""
    seen: queue.Queue[Seen] = queue.Queue()
    try:
        watcher = Watcher({"badge": pattern}, seen.put)
    except DriverError as error:
        raise InputError(str(error)) from None
    watcher.start()
    try:
        timeout, why = READER_TIMEOUT, "pcscd said nothing"
        while True:
            try:
                item = seen.get(timeout=timeout)
            except queue.Empty:
                waited = "a badge" if timeout == BADGE_TIMEOUT else f"the reader ({why})"
                raise InputError(f"no {waited} after {timeout:.0f} s") from None
            if isinstance(item, Readers):
                if "badge" in item.found:
                    print(f"reader {item.found['badge']!r}: show the badge", file=sys.stderr)
                    timeout = BADGE_TIMEOUT
                else:
                    why, timeout = item.detail or "pcscd has no such reader", READER_TIMEOUT
            elif isinstance(item, Arrived) and item.uid is not None:
                return item.uid
            elif isinstance(item, Arrived):
                print(f"the badge could not be read ({item.why}): again", file=sys.stderr)
    finally:
        watcher.stop()


def handler(args: argparse.Namespace) -> int:
    from dealer_ui.auth import BadgeError, hash_badge  # noqa: PLC0415 (beside the sign-in)

    try:
        uid = _shown(args.reader) if args.reader else _piped()
        stored = hash_badge(uid)
    except InputError as error:
        return fail(COMMAND, str(error))
    except BadgeError as error:
        return fail(COMMAND, str(error))
    print(stored)
    return 0


def add_parser(subparsers: Any, summary: str) -> None:
    parser = subparsers.add_parser(
        COMMAND,
        help=summary,
        description="Print the Argon2 hash of a staff badge's UID for a configuration's "
        "badge: read from a PC/SC reader (--reader), else the first line of standard input "
        "in hex.",
    )
    parser.add_argument(
        "--reader", metavar="PATTERN", help="the reader to show the badge to (a name pattern)"
    )
    parser.set_defaults(handler=handler)
