"""Playing cards: notation, codes and parsing.

A card's code is ``(rank - 2) * 4 + suit`` with suits ordered clubs, diamonds,
hearts, spades (0..3), so codes run 0 (``2c``) to 51 (``As``). The same order
breaks bring-in ties by suit.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from enum import IntEnum
from typing import SupportsIndex

from luck_errors import LuckTableError

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
_SUIT_SYMBOLS = {"♣": "c", "♦": "d", "♥": "h", "♠": "s"}

RANK_NAMES = {
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
    10: "ten",
    11: "jack",
    12: "queen",
    13: "king",
    14: "ace",
}
RANK_PLURALS = {rank: name + ("es" if name == "six" else "s") for rank, name in RANK_NAMES.items()}


class Suit(IntEnum):
    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def char(self) -> str:
        return SUIT_CHARS[self]


class CardError(LuckTableError, ValueError):
    """A card token that cannot be read, or a card set that is not acceptable.

    ``token`` is the offending input as given, so messages can point at it; the
    message shows it cut to a readable length (a hostile megabyte is not echoed).
    """

    def __init__(self, token: object, reason: str) -> None:
        super().__init__(f"{shown(token)}: {reason}" if token is not None else reason)
        self.token = token
        self.reason = reason


def shorten(text: str, limit: int = 60) -> str:
    """``text``, or its start and end with how much was cut between them if it is longer."""
    if len(text) <= limit:
        return text
    keep = limit // 2
    return f"{text[:keep]}...[{len(text) - 2 * keep:,} characters cut]...{text[-keep:]}"


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun`` in agreement: ``1 deck``, ``2 decks`` (``plural`` when it is
    not ``noun + "s"``)."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def shown(value: object) -> str:
    """A value as a message shows it: its ``repr``, cut to a readable length."""
    if isinstance(value, int) and value.bit_length() > 200:  # too long to show, or to convert
        return f"<a whole number of {value.bit_length():,} bits>"
    return shorten(repr(value))


class Card(int):
    """A card, as its code 0..51. Being an ``int``, it is cheap to hash and sort."""

    __slots__ = ()

    def __new__(cls, code: SupportsIndex) -> Card:
        value = code if code.__class__ is int else _whole_number(code)
        if not 0 <= value <= 51:
            raise CardError(code, "card code must be 0..51")
        return super().__new__(cls, value)

    @classmethod
    def of(cls, rank: int, suit: int) -> Card:
        if not 2 <= rank <= 14:
            raise CardError(rank, "rank must be 2..14")
        if not 0 <= suit <= 3:
            raise CardError(suit, "suit must be 0..3")
        return cls((rank - 2) * 4 + suit)

    @property
    def rank(self) -> int:
        """2..14, ace high."""
        return (self >> 2) + 2

    @property
    def suit(self) -> Suit:
        return Suit(self & 3)

    @property
    def code(self) -> int:
        return int(self)

    def __str__(self) -> str:
        return RANK_CHARS[self >> 2] + SUIT_CHARS[self & 3]

    def __repr__(self) -> str:
        return f"Card('{self}')"


DECK: tuple[Card, ...] = tuple(Card(code) for code in range(52))


def parse_card(token: str) -> Card:
    """Read one card: ``Ks``, ``td``, ``10h``, ``Q♠``. Case-insensitive."""
    try:
        return _BY_SPELLING[token]
    except (KeyError, TypeError):  # not a plain spelling, or not even hashable
        return _read_card(token)


def _read_card(token: object) -> Card:
    """Read one card the careful way, naming what is wrong with it."""
    if not isinstance(token, str):
        raise CardError(token, "a card is written as rank and suit, such as 'Ks'")
    text = token.strip()
    if len(text) < 2:
        raise CardError(token, "unknown card: expected rank and suit, such as 'Ks'")
    rank_text, suit_text = text[:-1].upper(), text[-1]
    suit_char = _SUIT_SYMBOLS.get(suit_text, suit_text.lower())
    if rank_text == "10":
        rank_text = "T"
    if len(rank_text) != 1 or rank_text not in RANK_CHARS:
        raise CardError(token, "unknown card: rank must be one of 2-9, T (or 10), J, Q, K, A")
    if suit_char not in SUIT_CHARS:
        raise CardError(token, "unknown card: suit must be one of c, d, h, s (or ♣ ♦ ♥ ♠)")
    return Card(RANK_CHARS.index(rank_text) * 4 + SUIT_CHARS.index(suit_char))


# Every plain spelling of every card (no spaces), looked up before reading a token.
_BY_SPELLING = {
    rank + suit: card
    for card in DECK
    for rank in {str(card)[0], str(card)[0].lower(), *(["10"] if card.rank == 10 else [])}
    for suit in (str(card)[1], str(card)[1].upper(), "♣♦♥♠"[card.suit])
}


def parse_cards(cards: str | Iterable[object]) -> tuple[Card, ...]:
    """Read several distinct cards.

    Accepts one string (cards separated by spaces or commas, or run together
    such as ``"AsKd"``), or an iterable of tokens and card codes (``int``, or any
    integer type such as NumPy's; not ``bool`` nor ``float``). A duplicate card is
    an error naming the second occurrence.
    """
    try:
        tokens = _split(cards) if isinstance(cards, str) else list(cards)
    except TypeError:
        reason = f"cards are a sequence of cards or one string of them, not {type(cards).__name__}"
        raise CardError(None, reason) from None
    parsed: list[Card] = []
    seen: set[int] = set()
    for token in tokens:
        card = _to_card(token)
        if card in seen:
            raise CardError(token, "duplicate card")
        seen.add(card)
        parsed.append(card)
    return tuple(parsed)


def _to_card(token: object) -> Card:
    if isinstance(token, Card):
        return token
    if isinstance(token, str):
        return parse_card(token)
    return Card(token)  # type: ignore[arg-type]  # any value: Card refuses what is no code


def _whole_number(code: object) -> int:
    """A card code given as another integer type (NumPy's): refuses what is not a whole number."""
    if isinstance(code, bool):
        raise CardError(code, "true or false is not a card (a card code is a whole number 0..51)")
    try:
        return operator.index(code)  # type: ignore[arg-type]  # any value: Card refuses what is no code
    except TypeError:
        raise CardError(
            code,
            "a card is written as rank and suit, such as 'Ks', or as its code 0..51 "
            f"(a whole number, not {type(code).__name__})",
        ) from None


def _split(text: str) -> list[str]:
    tokens: list[str] = []
    for word in text.replace(",", " ").split():
        tokens.extend(_split_run(word))
    return tokens


def _split_run(word: str) -> list[str]:
    """Split ``"AsKd10h"`` into ``["As", "Kd", "10h"]``; leave anything odd whole."""
    pieces: list[str] = []
    rest = word
    while rest:
        size = 3 if rest[:2] == "10" else 2
        piece = rest[:size]
        if len(piece) < size or _SUIT_SYMBOLS.get(piece[-1], piece[-1].lower()) not in SUIT_CHARS:
            return [word]
        pieces.append(piece)
        rest = rest[size:]
    return pieces
