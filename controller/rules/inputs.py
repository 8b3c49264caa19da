"""What goes into the hand engine: ``Deal(card)`` (the next card out of the shoe) and
``Action`` (a player's decision or a correction; its fields as a hand script writes them:
docs/replay.md, "The hand script"), and ``IllegalInput``, raised for an input that is not
legal now, naming the reason (docs/rules.md, "Inputs, effects and refusals"). What comes
out is in ``controller.rules.effects``. Every input serializes with ``to_json()`` and
reads back with ``input_from_json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, NamedTuple, NotRequired, TypedDict

from controller.rules.cards import Card, CardError, parse_card
from luck_errors import LuckTableError


class Do(StrEnum):
    """Every decision and correction the engine accepts, in the game's own words."""

    BRING_IN = "bring_in"
    COMPLETE = "complete"
    CHECK = "check"
    CALL = "call"
    BET = "bet"
    RAISE = "raise"
    FOLD = "fold"
    BONUS = "bonus"
    SHOW = "show"
    MUCK = "muck"
    EXPOSE = "expose"
    DEALT_DOWN = "dealt_down"
    CORRECT = "correct"
    DEAD = "dead"  # a card out of the shoe taken out of play, not dealt: the stub is one fewer
    VOID = "void"


WAGERS = frozenset({Do.BRING_IN, Do.COMPLETE, Do.BET, Do.RAISE})
BETTING_DECISIONS = WAGERS | {Do.CHECK, Do.CALL, Do.FOLD}
#: The corrections that name a card of a seat (``correct`` names the card it replaces too).
CARD_CORRECTIONS = frozenset({Do.EXPOSE, Do.DEALT_DOWN, Do.CORRECT})


class Illegal(StrEnum):
    """Why the engine refuses an input, as data (the API's ``code``: docs/api.md); the
    exception's words say it for people."""

    MALFORMED = "malformed"  # not a well-formed input: a field missing, unknown or wrong
    NOT_AN_INPUT = "not_an_input"
    BAD_SEATS = "bad_seats"  # a hand's seats and stacks are not valid
    TOO_FEW_PLAYERS = "too_few_players"
    HAND_OVER = "hand_over"  # the hand is over or void
    UNKNOWN_SEAT = "unknown_seat"  # no such seat in the hand
    CARD_NOT_DUE = "card_not_due"  # the hand waits for a decision, not a card
    CARD_IN_PLAY = "card_in_play"
    SAME_CARD = "same_card"  # a correction to the card read
    NOT_DEALT = "not_dealt"  # the card was not dealt in this hand
    NOT_HOLE_CARD = "not_hole_card"  # not a face-down card of the seat
    NOT_UP_CARD = "not_up_card"  # not an up card of the seat
    BETTING_BEGUN = "betting_begun"  # too late to correct: void the hand instead
    BONUS_BOUGHT = "bonus_bought"  # the seat bought its bonus card: void the hand instead
    NO_BONUS_OFFER = "no_bonus_offer"
    OUT_OF_TURN = "out_of_turn"
    FOLDED = "folded"
    NOT_BETTING = "not_betting"  # no betting decision is due now
    NOT_SHOWDOWN = "not_showdown"
    BRING_IN_DUE = "bring_in_due"  # the bring-in player must bring in or complete
    FACING_BET = "facing_bet"  # a check facing a bet
    NOTHING_TO_CALL = "nothing_to_call"
    WRONG_WAGER = "wrong_wager"  # the round calls for another wager (bet, raise, complete)
    RAISE_CLOSED = "raise_closed"  # no raise now: capped, not reopened, no chips to call it
    NOT_LEGAL = "not_legal"  # any other decision not among the legal choices
    AMOUNT_NEEDED = "amount_needed"  # more than one size is legal: say which
    WRONG_AMOUNT = "wrong_amount"  # an amount that is not a legal size


class IllegalInput(LuckTableError, ValueError):
    """An input that is not legal in the current state; the state is unchanged.
    ``code``: why, as data (the words are the exception's)."""

    def __init__(self, message: str, code: Illegal = Illegal.MALFORMED) -> None:
        super().__init__(message)
        self.code = code


class DealJson(TypedDict):
    """A card out of the shoe as an input's record (a table's hand log) writes it."""

    deal: str


class ActionJson(TypedDict):
    """An action as a hand script and an input's record write it (docs/replay.md): ``do``
    and the fields it takes, each only when given."""

    do: str
    seat: NotRequired[int]
    to: NotRequired[int]
    accept: NotRequired[bool]
    card: NotRequired[str]
    was: NotRequired[str]
    dealt: NotRequired[int]


class Deal(NamedTuple):
    """The next card out of the shoe."""

    card: Card

    def to_json(self) -> DealJson:
        return {"deal": str(self.card)}


class Action(NamedTuple):
    """A decision by a player, or a correction by the dealer or supervisor."""

    do: Do
    seat: int | None = None
    to: int | None = None
    accept: bool | None = None
    card: Card | None = None
    was: Card | None = None
    dealt: int | None = None

    def to_json(self) -> ActionJson:
        out: ActionJson = {"do": self.do.value}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.to is not None:
            out["to"] = self.to
        if self.accept is not None:
            out["accept"] = self.accept
        if self.card is not None:
            out["card"] = str(self.card)
        if self.was is not None:
            out["was"] = str(self.was)
        if self.dealt is not None:
            out["dealt"] = self.dealt
        return out


Input = Deal | Action

_ACTION_FIELDS = frozenset({"do", "seat", "to", "accept", "card", "was", "dealt"})


def action_from_json(data: Mapping[str, Any]) -> Action:
    """Read an action as written in a hand script; names what is wrong if it cannot."""
    if not isinstance(data, Mapping):
        raise IllegalInput(f"an action must be an object, not {data!r}")
    unknown = sorted(set(data) - _ACTION_FIELDS)
    if unknown:
        raise IllegalInput(f"unknown field {unknown[0]!r}")
    if "do" not in data:
        raise IllegalInput("missing field 'do'")
    try:
        do = Do(data["do"])
    except ValueError:
        choices = ", ".join(member.value for member in Do)
        raise IllegalInput(f"'do': {data['do']!r} is not one of {choices}") from None
    seat = _whole(data, "seat")
    to = _whole(data, "to")
    accept = data.get("accept")
    if accept is not None and not isinstance(accept, bool):
        raise IllegalInput(f"'accept': {accept!r} is not true or false")
    card, was = _card(data, "card"), _card(data, "was")
    dealt = _whole(data, "dealt")
    if do in (Do.VOID, Do.CORRECT, Do.DEAD):
        if seat is not None:
            raise IllegalInput(f"'{do}' takes no seat")
    elif seat is None:
        raise IllegalInput(f"'{do}' needs a seat")
    if do is Do.BONUS and accept is None:
        raise IllegalInput("'bonus' needs 'accept': true or false")
    if do is not Do.BONUS and accept is not None:
        raise IllegalInput(f"'accept' goes with 'bonus', not with '{do}'")
    if do is Do.EXPOSE and card is None:
        raise IllegalInput("'expose' needs the exposed 'card'")
    if do in CARD_CORRECTIONS and card is None:
        raise IllegalInput(f"'{do}' needs the 'card'")
    if do not in CARD_CORRECTIONS and card is not None:
        raise IllegalInput(f"'card' goes with 'expose', 'dealt_down' or 'correct', not with '{do}'")
    if do is Do.CORRECT and was is None:
        raise IllegalInput("'correct' needs 'was', the card read")
    if do is not Do.CORRECT and was is not None:
        raise IllegalInput(f"'was' goes with 'correct', not with '{do}'")
    if dealt is not None and (do not in {*CARD_CORRECTIONS, Do.DEAD} or dealt < 0):
        raise IllegalInput(
            "'dealt' is a count of cards (0 or more) that goes with a correction or 'dead'"
        )
    if to is not None and do not in WAGERS and do is not Do.CALL:
        raise IllegalInput(f"'to' goes with a bet, raise, completion or call, not with '{do}'")
    return Action(do, seat, to, accept, card, was, dealt)


def _card(data: Mapping[str, Any], name: str) -> Card | None:
    if name not in data:
        return None
    try:
        return parse_card(data[name])
    except CardError as error:
        raise IllegalInput(f"{name!r}: {error}") from None


def input_from_json(data: Mapping[str, Any]) -> Input:
    """Read an input written by ``to_json`` (a journal line)."""
    if isinstance(data, Mapping) and set(data) == {"deal"}:
        try:
            return Deal(parse_card(data["deal"]))
        except CardError as error:
            raise IllegalInput(f"'deal': {error}") from None
    return action_from_json(data)


def _whole(data: Mapping[str, Any], name: str) -> int | None:
    value = data.get(name)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        raise IllegalInput(f"{name!r}: {value!r} is not a whole number")
    return value
