"""The facts of an alert saved before alerts kept them: read from its words.

Snapshots taken by earlier releases hold each open alert as its words (``message``,
``remedy``) and a few flat fields (``seat``, ``belongs``, ``card``, ``device``, ``fault``,
``due``). The facts those fields lack are in the words, which those releases wrote with
the fixed patterns below (they never change: they are what those releases wrote).
:func:`facts_json` gives the facts as ``AlertFacts.to_json`` writes them
(``controller.table.alerts``). Words that fit none raise ``ValueError``: recovery then
replays the journal from its start instead of that snapshot
(``controller.recovery.from_snapshot``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the module reads alerts for controller.table.alerts, which imports it
    from controller.table.alerts import FactsJson, NotDueJson

_WHY = {  # why a card was not due, and its ``Busy`` value
    r"with no hand in progress": "no_hand",
    r"while the table is paused": "paused",
    r"while seat (\d+) decides on the bonus card": "bonus",
    r"while seat (\d+) is to show or muck": "show",
    r"while seat (\d+) is to act": "act",
    r"unread": "unread",
}
_OUT_OF_TURN = "a card came out of the shoe "
_UNREAD = "a card left the shoe unread "
_UNREAD_DUE = "a card left the shoe unread: it is "
_WHERE = re.compile(
    r"the (burn|community) card|(the bonus card|a card) for seat \d+, face (up|down)"
)
_MISMATCH = re.compile(r"^the shoe read (\S+) for seat \d+; ")
_CODE = re.compile(r"^the shoe read card code (-?\d+),")
_COUNT = re.compile(r"^a deck of (-?\d+) cards was loaded")
_HAND = re.compile(r" during hand (\d+)$")
_REASON = re.compile(r" is not connected \((.*)\)$", re.DOTALL)
_LOST = re.compile(r" restarted and lost (\d+) events?: ")
_ATTACK = re.compile(
    r"sign-in attack: (\d+) wrong PINs for (\S+) (.+) within (\d+) s, from (.+)", re.DOTALL
)


def facts_json(kind: str, data: Mapping[str, Any]) -> FactsJson:
    """The facts of an alert of ``kind`` as an earlier release wrote it (``data``): its
    kind's own fields, as ``AlertFacts.to_json`` writes them."""
    message: str = data["message"]
    card, seat, device = data["card"], data["seat"], data["device"]
    match kind:
        case "card_out_of_turn":
            return {"card": card, "why": _not_due(message, _OUT_OF_TURN)}
        case "card_in_play":
            return {"card": card}
        case "card_not_in_deck":
            return {"code": int(_group(_CODE, message))}
        case "bad_deck":
            return {"count": int(_group(_COUNT, message))}
        case "deck_during_hand":
            return {"count": int(_group(_COUNT, message)), "hand": int(_group(_HAND, message))}
        case "unread_card" if data["due"]:
            return _unread_due(message, data["belongs"], data["remedy"])
        case "unread_card":
            why = _not_due(message, _UNREAD)
            return {"why": why, "to": None, "belongs": None, "up": False, "seat_board": False}
        case "misplaced_card" | "card_at_empty_seat":
            return {"seat": seat, "card": card, "belongs": data["belongs"]}
        case "card_not_dealt" | "dead_card":
            return {"seat": seat, "card": card}
        case "card_mismatch":
            return {"seat": seat, "read": _group(_MISMATCH, message), "card": card}
        case "device_fault":
            return {"device": device, "fault": data["fault"]}
        case "link_down":
            found = _REASON.search(message)
            return {"device": device, "reason": "" if found is None else found.group(1)}
        case "events_lost":
            found = _LOST.search(message)
            return {"device": device, "lost": None if found is None else int(found.group(1))}
        case "player_away":
            return {"seat": seat, "hand": int(_group(_HAND, message))}
        case "sign_in_attack":
            found = _ATTACK.fullmatch(message)
            if found is None:
                raise _unknown(message)
            failures, role, who, window, clients = found.groups()
            return {
                "failures": int(failures),
                "role": role,
                "who": who,
                "window": int(window),
                "clients": clients,
            }
    raise ValueError(f"an alert of kind {kind!r} that no release wrote")


def _not_due(message: str, opening: str) -> NotDueJson:
    if message.startswith(opening):
        words = message.removeprefix(opening)
        for pattern, busy in _WHY.items():
            found = re.fullmatch(pattern, words)
            if found is not None:
                return {"busy": busy, "seat": int(found.group(1)) if found.groups() else None}
    raise _unknown(message)


def _unread_due(message: str, belongs: int | None, remedy: str) -> FactsJson:
    """The facts of an unread card that was due (``UnreadCard``'s fields)."""
    found = _WHERE.fullmatch(message.removeprefix(_UNREAD_DUE))
    if not message.startswith(_UNREAD_DUE) or found is None:
        raise _unknown(message)
    burn_or_community, what, face = found.groups()
    to = burn_or_community or ("bonus" if what == "the bonus card" else "seat")
    return {
        "why": None,
        "to": to,
        "belongs": belongs,
        "up": face == "up" or to == "community",
        "seat_board": remedy.startswith("deal it to seat"),
    }


def _group(pattern: re.Pattern[str], message: str) -> str:
    found = pattern.search(message)
    if found is None:
        raise _unknown(message)
    return found.group(1)


def _unknown(message: str) -> ValueError:
    return ValueError(f"an alert's words that no release wrote: {message!r}")
