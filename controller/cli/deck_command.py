"""``luck-table deck register``: register a tagged deck by reading it once, in a known
order, with the shoe's PC/SC reader, and write its deck file (docs/hardware.md).

The cards are shown to the reader one at a time in code order, ``2c 2d 2h 2s 3c .. As``
(at a terminal each card to show is named), then the cut card (unless ``--no-cut``). A tag
shown twice is refused and the same card asked for again; a tag that does not answer its
UID too. The file is written readable by its owner only: it says which card every tag is.
The table journals the registration when the cut card is shown at the shoe (the deck's
``DeckCard`` events and its ``DeckLoaded``), as a shoe's registration is journaled.

``--config FILE`` takes the reader and the deck file from its ``[devices.shoe]``
(``transport = "pcsc"``); else ``--reader PATTERN`` and ``--out FILE``. Exit status 0 with the
file written; 2 when pcscd or the reader is missing, or the file cannot be written.
"""

from __future__ import annotations

import argparse
import queue
import sys
from pathlib import Path
from typing import Any

from controller.cli.common import fail
from controller.config import load_config
from controller.config_file import ConfigError
from drivers.errors import DriverError
from drivers.pcsc.deck import DECK_SIZE, card_name, deck_in_order, write_deck
from drivers.pcsc.scard import Arrived, Readers, Seen, Watcher

COMMAND = "deck"
#: Seconds to wait for each card (a deck is read at a person's pace).
CARD_TIMEOUT = 300.0
#: Seconds to wait for pcscd and the reader.
READER_TIMEOUT = 10.0


def _where(args: argparse.Namespace) -> tuple[str, Path]:
    if args.config is None:
        if args.reader is None or args.out is None:
            raise ConfigError("--reader/--out", None, "both, or --config FILE")
        return args.reader, Path(args.out)
    port = load_config(args.config).shoe
    if port.pcsc is None:
        raise ConfigError("devices.shoe.transport", "not pcsc", "pcsc, to register a deck")
    return port.pcsc.readers["shoe"], port.pcsc.deck


def _next_tag(seen: queue.Queue[Seen], taken: set[bytes], say: Any) -> bytes:
    while True:
        item = seen.get(timeout=CARD_TIMEOUT)
        if isinstance(item, Readers) and item.detail:
            say(f"  (reader: {item.detail})")
        if not isinstance(item, Arrived):
            continue
        if item.uid is None:
            say(f"  that tag did not answer ({item.why}): show it again")
        elif item.uid in taken:
            say(f"  tag {item.uid.hex()} was read already: show the next card")
        else:
            return item.uid


def _reader(seen: queue.Queue[Seen]) -> tuple[str] | str:
    """The shoe's reader once pcscd has it, or what is wrong after ``READER_TIMEOUT``."""
    why = "pcscd said nothing"
    try:
        while True:
            item = seen.get(timeout=READER_TIMEOUT)
            if isinstance(item, Readers) and "shoe" in item.found:
                return (item.found["shoe"],)
            if isinstance(item, Readers):
                why = item.detail or "pcscd is not running"
    except queue.Empty:
        return f"no reader for the deck after {READER_TIMEOUT:.0f} s: {why}"


def register(args: argparse.Namespace) -> int:
    try:
        reader, out = _where(args)
    except ConfigError as error:
        return fail(COMMAND, str(error))
    at_terminal = sys.stdin.isatty()

    def say(line: str) -> None:
        print(line, flush=True)

    seen: queue.Queue[Seen] = queue.Queue()
    try:
        watcher = Watcher({"shoe": reader}, seen.put)
    except DriverError as error:
        return fail(COMMAND, str(error))
    watcher.start()
    uids: list[bytes] = []
    cut = None
    try:
        found = _reader(seen)
        if isinstance(found, str):
            return fail(COMMAND, found)
        say(f"reader {found[0]!r}: show the cards one at a time, 2c 2d 2h 2s 3c .. As")
        for code in range(DECK_SIZE):
            if at_terminal:
                say(f"show {card_name(code)}")
            uids.append(_next_tag(seen, set(uids), say))
            say(f"{card_name(code)} {uids[-1].hex()}")
        if not args.no_cut:
            if at_terminal:
                say("show the cut card")
            cut = _next_tag(seen, set(uids), say)
            say(f"cut {cut.hex()}")
    except queue.Empty:
        return fail(COMMAND, f"no card shown for {CARD_TIMEOUT:.0f} s: nothing written")
    finally:
        watcher.stop()
    deck = deck_in_order(uids, cut)
    try:
        write_deck(out, deck)
    except OSError as error:
        return fail(COMMAND, f"{out}: {error.strerror or error}")
    say(f"deck {deck.deck_id} written to {out}")
    return 0


def add_parser(subparsers: Any, summary: str) -> None:
    parser = subparsers.add_parser(COMMAND, help=summary, description=__doc__)
    actions = parser.add_subparsers(dest="action", required=True)
    reg = actions.add_parser("register", help="read a deck once in code order; write its file")
    reg.add_argument("--config", help="the table's configuration: its shoe's reader and deck")
    reg.add_argument("--reader", help="the shoe reader's name pattern (without --config)")
    reg.add_argument("--out", help="the deck file to write (without --config)")
    reg.add_argument("--no-cut", action="store_true", help="the deck has no cut card")
    reg.set_defaults(handler=register)
