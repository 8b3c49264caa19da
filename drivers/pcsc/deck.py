"""A deck's tags: which card each tag UID is on, and the cut card's tag.

A reader reads a tag's UID and nothing else: the card a UID is on comes from the deck's
registration, a deck file. The card maker ships one with a tagged deck, or the table writes
one by reading the deck once in a known order (``luck-table deck register``). One line a
tag, ``UID,card``: the UID in hex (4, 7 or 10 bytes), the card as a rank and a suit
(``2c`` .. ``As``, ``T`` or ``10`` for ten), or ``cut`` for the cut card's tag: the dealer
shows the cut card to the shoe's reader once the shuffled deck is in the shoe, which is
how a shoe of readers says "deck loaded". Blank lines and lines from ``#`` are skipped.

The file maps tags to cards: it is as secret as the deck (whoever holds it reads the cards'
backs with any phone); the table reads it, never writes it in a log, and
``write_deck`` makes it readable by its owner only.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from drivers.errors import DriverError

RANKS = "23456789TJQKA"
SUITS = "cdhs"
CUT = "cut"
DECK_SIZE = 52
#: The most bytes a deck file may have (a deck, a cut card and comments fit in far less).
MOST_BYTES = 64 * 1024


class DeckFileError(DriverError):
    """A deck file that cannot be read or is not a deck: names the file and the line."""


def card_code(name: str) -> int:
    """The card code (``(rank - 2) * 4 + suit``) of a card name such as ``Qh`` or ``10d``."""
    text = name.strip()
    rank, suit = text[:-1].upper().replace("10", "T"), text[-1:].lower()
    if len(rank) != 1 or rank not in RANKS or not suit or suit not in SUITS:
        raise ValueError(f"{name!r} is not a card (a rank 2..9, T, J, Q, K, A and a suit c d h s)")
    return RANKS.index(rank) * 4 + SUITS.index(suit)


def card_name(code: int) -> str:
    return RANKS[code // 4] + SUITS[code % 4]


@dataclass(frozen=True)
class TagDeck:
    """A registered deck: ``cards``, the card code of each tag UID; ``cut``, the cut card's
    tag (None: this deck has none, and the shoe's reader cannot say a deck is loaded)."""

    cards: Mapping[bytes, int]
    cut: bytes | None = None

    def __post_init__(self) -> None:
        codes = sorted(self.cards.values())
        if codes != list(range(DECK_SIZE)):
            missing = sorted(set(range(DECK_SIZE)) - set(codes))
            twice = sorted({code for code in codes if codes.count(code) > 1})
            raise DeckFileError(
                f"not a deck of {DECK_SIZE}: {len(codes)} tags"
                + (f", missing {' '.join(map(card_name, missing))}" if missing else "")
                + (f", twice {' '.join(map(card_name, twice))}" if twice else "")
            )
        if self.cut is not None and self.cut in self.cards:
            raise DeckFileError(f"the cut card's tag {self.cut.hex()} is a card's tag too")

    @property
    def deck_id(self) -> int:
        """The deck's id (32 bits) from its tags: the same tags, the same id."""
        digest = hashlib.sha256(b"".join(sorted(self.cards))).digest()
        return int.from_bytes(digest[:4], "big")

    def card(self, uid: bytes) -> int | None:
        """The card tag ``uid`` is on (None: not one of this deck's)."""
        return self.cards.get(uid)

    def in_code_order(self) -> list[tuple[int, bytes]]:
        """Every card with its tag, by card code."""
        return sorted((code, uid) for uid, code in self.cards.items())


def parse_deck(text: str, source: str = "deck file") -> TagDeck:
    """A deck from a deck file's text (raises DeckFileError naming ``source`` and the line)."""
    cards: dict[bytes, int] = {}
    cut: bytes | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{source}, line {number}"
        uid_text, sep, card = (part.strip() for part in line.partition(","))
        if not sep:
            raise DeckFileError(f"{where}: expected UID,card")
        try:
            uid = bytes.fromhex(uid_text)
        except ValueError:
            raise DeckFileError(f"{where}: {uid_text!r} is not a UID in hex") from None
        if len(uid) not in (4, 7, 10):
            raise DeckFileError(f"{where}: a tag UID is 4, 7 or 10 bytes, not {len(uid)}")
        if uid in cards or uid == cut:
            raise DeckFileError(f"{where}: tag {uid.hex()} is on two lines")
        if card.lower() == CUT:
            if cut is not None:
                raise DeckFileError(f"{where}: a second cut card")
            cut = uid
            continue
        try:
            cards[uid] = card_code(card)
        except ValueError as error:
            raise DeckFileError(f"{where}: {error}") from None
    try:
        return TagDeck(cards, cut)
    except DeckFileError as error:
        raise DeckFileError(f"{source}: {error}") from None


def read_deck(path: Path) -> TagDeck:
    try:
        with path.open("rb") as file:
            data = file.read(MOST_BYTES + 1)
    except OSError as error:
        raise DeckFileError(f"deck file {path}: {error.strerror or error}") from None
    if len(data) > MOST_BYTES:
        raise DeckFileError(f"deck file {path}: larger than {MOST_BYTES} bytes: not a deck file")
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        raise DeckFileError(f"deck file {path}: not ASCII text") from None
    return parse_deck(text, f"deck file {path}")


def deck_text(deck: TagDeck) -> str:
    lines = ["# UID,card: this file reads every card of the deck; keep it as you keep the deck"]
    lines += [f"{uid.hex()},{card_name(code)}" for code, uid in deck.in_code_order()]
    if deck.cut is not None:
        lines.append(f"{deck.cut.hex()},{CUT}")
    return "\n".join(lines) + "\n"


def write_deck(path: Path, deck: TagDeck) -> None:
    """Write ``deck`` to ``path``, readable and writable by its owner only."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="ascii") as file:
        file.write(deck_text(deck))
    os.chmod(path, 0o600)


def deck_in_order(uids: Iterable[bytes], cut: bytes | None = None) -> TagDeck:
    """The deck read once in code order (``2c 2d 2h 2s 3c .. As``): the n-th tag is card n."""
    tags = list(uids)
    if len(tags) != DECK_SIZE or len(set(tags)) != DECK_SIZE:
        raise DeckFileError(f"a deck is {DECK_SIZE} different tags, not {len(set(tags))}")
    return TagDeck({uid: code for code, uid in enumerate(tags)}, cut)
