"""``luck-table history --journal FILE [--hand N] [--json]``: the hands of a table's journal.

Without ``--json``: each hand's history as ``luck-table replay`` prints it. With
``--json``: each hand as ``{"hand", "started", "ended", "dealer", "script", "outcome",
"recorded"}`` (``dealer``: who dealt it, null where the journal names no dealer) where
``script`` is a hand script in the replay contract (docs/replay.md) and ``outcome`` what
``luck-table replay --json`` prints for it; ``recorded`` is true when that outcome is the
one the table recorded. Exit status: 0; 1 when a hand does not replay to its recorded
outcome; 2 when the journal cannot be read (an absent file, no permission to read it
included: the message names the path) or hand N is not in it. The journal is opened for
reading only: a backup on read-only media reads as well as the live file. A journal
without hands says so (``FILE: the journal holds no hands``; ``[]`` with ``--json``), with
status 0. ``--hand N`` replays the journal from the latest snapshot before hand N through
its end, as the journal's index of hands places it (docs/operations.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from controller.cli.common import fail
from controller.history.hands import RecordedHand, iso_time, recorded_hands
from controller.history.index import readable_from, recorded_hand
from controller.history.script import history
from controller.journal import Journal, JournalError


def _as_text(hand: RecordedHand) -> tuple[str, bool]:
    replay = hand.replay()
    ok = hand.matches(replay)
    head = f"=== hand {hand.number}: {iso_time(hand.started)} to {iso_time(hand.ended)}"
    head += ("" if hand.dealer is None else f", dealer {hand.dealer}") + " ==="
    text = f"{head}\n{history(replay)}"
    if not ok:
        text += "\nNOT THE RECORDED OUTCOME: the journal and the engine disagree"
    return text, ok


def handler(args: argparse.Namespace) -> int:
    try:
        with Journal.open_read_only(args.journal) as journal:
            if args.hand is None:  # the hands still on this machine
                start, pruned = readable_from(journal)
                if pruned is not None:
                    print(
                        f"{args.journal}: the hands up to hand {pruned.last_hand} were pruned "
                        "(the floor has them): from the next one on",
                        file=sys.stderr,
                    )
                hands = list(recorded_hands(journal, start.position, start.table))
            else:  # from the latest snapshot before it (the journal's index of hands)
                found = recorded_hand(journal, args.hand).hand
                hands = [] if found is None else [found]
    except JournalError as error:
        return fail("history", str(error))
    if args.hand is not None and not hands:
        return fail("history", f"hand {args.hand} is not in {args.journal}")
    all_ok = True
    if args.json:
        items = []
        for hand in hands:
            item = hand.history_json()
            items.append(item)
            all_ok &= item["recorded"]
        print(json.dumps(items[0] if args.hand is not None else items, indent=2))
    elif not hands:
        print(f"{args.journal}: the journal holds no hands")
    else:
        texts = []
        for hand in hands:
            text, ok = _as_text(hand)
            texts.append(text)
            all_ok &= ok
        print("\n\n".join(texts))
    return 0 if all_ok else 1


def add_parser(subparsers: Any, summary: str) -> None:
    parser = subparsers.add_parser(
        "history",
        help=summary,
        description="Print every hand of a table's journal as a hand history, or with --json "
        "as hand scripts that luck-table replay plays to the recorded outcome.",
    )
    parser.add_argument("--journal", required=True, metavar="FILE", help="the table's journal")
    parser.add_argument("--hand", type=int, metavar="N", help="only hand N")
    parser.add_argument("--json", action="store_true", help="hand scripts and outcomes as JSON")
    parser.set_defaults(handler=handler)
