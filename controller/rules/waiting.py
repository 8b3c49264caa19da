"""What the hand waits for (:class:`Waiting`), and the one place that words it
(:func:`say_waiting`, in each of the forms people read it: :class:`Form`)."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, NamedTuple, NotRequired, TypedDict

from controller.rules.betting import Choice, ChoiceJson
from controller.rules.state import STREET_NAMES, Dest


class Wait(StrEnum):
    """What kind of thing the hand waits for."""

    CARD = "card"  # the next card out of the shoe, to ``destination``
    ACTION = "action"  # a betting decision
    BONUS = "bonus"  # accept or decline a priced bonus card
    SHOW = "show"  # show or muck at a manual showdown


class WaitingJson(TypedDict):
    """What the hand waits for as the views and the hand's records send it (the API's
    ``next``): a card (``destination``, its ``seat`` if any, ``face`` but for a burn, and
    ``street``), or a seat's decision (``seat``, ``legal``; the bonus card's ``price``)."""

    kind: str
    destination: NotRequired[str]
    seat: NotRequired[int | None]
    face: NotRequired[str]  # up or down
    street: NotRequired[int]
    price: NotRequired[int]
    legal: NotRequired[list[ChoiceJson]]


class Waiting(NamedTuple):
    """What the engine waits for.

    ``kind`` is ``card`` (with ``destination``: seat, burn, bonus or community, and
    ``up`` for the face), ``action`` (a betting decision on ``street``; ``legal`` lists
    the exact choices), ``bonus`` (accept or decline a priced bonus card at ``price``) or
    ``show``. The deal queue (``Hand.queue``) holds the ``card`` and ``bonus`` entries to
    come.
    """

    kind: Wait
    seat: int | None = None
    destination: Dest | None = None
    up: bool = False
    street: int = 0
    legal: tuple[Choice, ...] = ()
    price: int = 0

    @classmethod
    def card(
        cls, destination: Dest, street: int, seat: int | None = None, up: bool = False
    ) -> Waiting:
        up = up or destination is Dest.COMMUNITY
        return cls(Wait.CARD, seat, destination, up, street)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Waiting:
        """Read back a deal-queue entry (a card or a bonus-card offer) written by ``to_json``."""
        if data["kind"] == Wait.BONUS:
            return cls(Wait.BONUS, data["seat"], price=data["price"])
        destination = Dest(data["destination"])
        return cls.card(destination, data["street"], data.get("seat"), data.get("face") == "up")

    def to_json(self) -> WaitingJson:
        out: WaitingJson = {"kind": Wait(self.kind).value}
        if self.kind == Wait.CARD:
            assert self.destination is not None
            out["destination"] = self.destination.value
            if self.seat is not None:
                out["seat"] = self.seat
            if self.destination is not Dest.BURN:
                out["face"] = "up" if self.up else "down"
            out["street"] = self.street
            return out
        out["seat"] = self.seat
        if self.kind == Wait.BONUS:
            out["price"] = self.price
            out["legal"] = [{"do": "bonus", "accept": True}, {"do": "bonus", "accept": False}]
        else:
            out["legal"] = [choice.to_json() for choice in self.legal]
        return out

    def describe(self) -> str:
        """``say_waiting(self, Form.WAITING)``: "waiting for seat 3 to act"."""
        return say_waiting(self, Form.WAITING)


class Form(StrEnum):
    """The forms in which people read what the hand waits for."""

    WAITING = "waiting"  # "waiting for seat 3 to act": a refusal's reason, the views
    WHILE = "while"  # "while seat 3 is to act": why a card out of the shoe is not due
    WHERE = "where"  # "a card for seat 3, face up": the card due (cards only)
    DISPLAY = "display"  # "DEAL: seat 3, face up": the dealer's display
    BROADCAST = "broadcast"  # "Third street: seat 3 to act": the public's and players' line
    DEALT = "dealt"  # "seat 3 gets Kd face up": the card due, given (cards only)


#: The decisions the hand waits for, in each form (``{seat}``, ``{price}``, ``{street}``).
_DECISIONS: dict[Wait, dict[Form, str]] = {
    Wait.ACTION: {
        Form.WAITING: "waiting for seat {seat} to act",
        Form.WHILE: "while seat {seat} is to act",
        Form.DISPLAY: "BETTING: seat {seat} to act",
        Form.BROADCAST: "{street}: seat {seat} to act",
    },
    Wait.BONUS: {
        Form.WAITING: "waiting for seat {seat} to accept or decline the bonus card",
        Form.WHILE: "while seat {seat} decides on the bonus card",
        Form.DISPLAY: "BONUS CARD: seat {seat}, accept or decline for {price}",
        Form.BROADCAST: "Seat {seat}: bonus card, accept or decline",
    },
    Wait.SHOW: {
        Form.WAITING: "waiting for seat {seat} to show or muck",
        Form.WHILE: "while seat {seat} is to show or muck",
        Form.DISPLAY: "SHOWDOWN: seat {seat} to show or muck",
        Form.BROADCAST: "Showdown: seat {seat} to show or muck",
    },
}

#: The cards the hand waits for, by where they go, in each form (``{what}``: the card, as
#: the form names it; ``{face}``: up or down).
_CARDS: dict[Dest, dict[Form, str]] = {
    Dest.BURN: {
        Form.WAITING: "waiting for the burn card",
        Form.WHERE: "the burn card",
        Form.DISPLAY: "BURN",
        Form.BROADCAST: "{street}: dealing",
        Form.DEALT: "burn card",
    },
    Dest.COMMUNITY: {
        Form.WAITING: "waiting for the community card",
        Form.WHERE: "the community card",
        Form.DISPLAY: "COMMUNITY CARD",
        Form.BROADCAST: "{street}: the community card",
        Form.DEALT: "community card {card}",
    },
    Dest.BONUS: {
        Form.WAITING: "waiting for the bonus card face {face} to seat {seat}",
        Form.WHERE: "the bonus card for seat {seat}, face {face}",
        Form.DISPLAY: "BONUS CARD: seat {seat}, face {face}",
        Form.BROADCAST: "Bonus card to seat {seat}",
        Form.DEALT: "seat {seat} gets the bonus card face {face}",
    },
    Dest.SEAT: {
        Form.WAITING: "waiting for a card face {face} to seat {seat}",
        Form.WHERE: "a card for seat {seat}, face {face}",
        Form.DISPLAY: "DEAL: seat {seat}, face {face}",
        Form.BROADCAST: "{street}: dealing",
        Form.DEALT: "seat {seat} gets {card} face {face}",
    },
}


def say_waiting(waiting: Waiting, form: Form, card: str = "a card") -> str:
    """What the hand waits for, in ``form``. ``card``: the name of the card given (the
    ``DEALT`` form), as its reader may see it; only the community card and an up card
    are named (a hole card is "a card", the bonus card "the bonus card")."""
    if waiting.kind == Wait.CARD:
        assert waiting.destination is not None
        words = _CARDS[waiting.destination].get(form)
        named = waiting.up or waiting.destination is Dest.COMMUNITY
        card = card if named else "a card"
    else:
        words = _DECISIONS[waiting.kind].get(form)
    if words is None:
        raise ValueError(f"{form.value}: not a form of {waiting.kind.value}")
    street = f"{STREET_NAMES[waiting.street].capitalize()} street" if "{street}" in words else ""
    face = "up" if waiting.up else "down"
    return words.format(seat=waiting.seat, price=waiting.price, street=street, face=face, card=card)
