"""``luck-table replay FILE|- [--json]``: play a hand script through the engine.

FILE may also hold one hand of ``luck-table history --hand N --json`` (an audit): its
script is played and the outcome checked against the one recorded (status 1 if not). The
scripts and their replay are :mod:`controller.history.script`.

Exit status: 0 when the hand completes or waits for more input; 1 when the engine
refuses an action or one is left over (``error.action`` is its index); 2 when the
script itself is not valid: bad JSON, a key given twice in an object, unknown field or
value, a seat outside 1-8 (in ``seats`` or an action), fewer than 2 seats, or a card
given twice or left over (``error.card`` is its index).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from controller.cli.common import MESSAGE_LIMIT, InputError, fail, read_text
from controller.history.script import (
    Script,
    ScriptError,
    audit,
    history,
    play,
    read_record,
    read_script,
    to_json,
)
from controller.rules.cards import shorten

COMMAND = "replay"


def handler(args: argparse.Namespace) -> int:
    try:
        script, record = read_hand(args.file)
    except (InputError, ScriptError) as error:
        if args.json:
            message = shorten(str(error), MESSAGE_LIMIT)
            print(json.dumps({"status": "error", "error": {"message": message}}, indent=2))
        return fail(COMMAND, str(error))
    replay = play(script)
    if args.json:
        print(json.dumps(to_json(replay), indent=2))
    else:
        print(history(replay))
    if record is not None:
        line, ok = audit(replay, record)
        print(line, file=sys.stderr if args.json else sys.stdout)
        if not ok:
            return 1
    if replay.error is None:
        return 0
    return 2 if "card" in replay.error else 1


def read_hand(file: str) -> tuple[Script, dict[str, Any] | None]:
    """The hand script in ``file`` (- for standard input) and, for a hand of ``luck-table
    history --json``, the outcome it recorded (None: a script alone). Raises
    :class:`InputError` or :class:`ScriptError`."""
    text = read_text(file)
    found = read_record(text)
    return (read_script(text), None) if found is None else found


def add_hand_file(parser: argparse.ArgumentParser) -> None:
    """The FILE of a command that plays one hand (``read_hand`` reads it)."""
    parser.add_argument(
        "file",
        metavar="FILE",
        help="hand script, or a hand of 'history --json'; - for standard input",
    )


def add_parser(subparsers: Any, summary: str) -> None:
    parser = subparsers.add_parser(
        COMMAND,
        help=summary,
        description="Play a hand script (JSON) through the rules engine and print the hand "
        "history, or the outcome as JSON with --json. FILE may hold one hand of 'luck-table "
        "history --hand N --json' instead: its script is played and its outcome checked "
        "against the recorded one (exit status 1 if it differs).",
    )
    add_hand_file(parser)
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON")
    parser.set_defaults(handler=handler)
