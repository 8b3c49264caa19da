"""The simulated card shoe: a loaded deck, a reader, a lid, and the faults of a real one.

Every physical card carries an RFID tag: its UID (:func:`tag_uid`) is fixed by the deck it
belongs to, which copy of the card it is in a load of several decks, and its code, so a
deck loaded again (shuffled anew) has the same 52 tags and two decks share none. A shoe of
protocol version 2 registers each deck it loads, card by card (DECK_CARD) in tag order (the
deck as a set, never the order it will deal), before its DECK.
Cheats (:class:`Cheat`) put into a load what game protection must catch: a card from
another deck, a re-tagged card, a cloned tag, a missing or an extra card.
"""

from __future__ import annotations

import random
import struct
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

from drivers.protocol import (
    CardMessage,
    Deck,
    DeckCardMessage,
    DeviceKind,
    Disposition,
    FaultCode,
    Unreadable,
    tag_order,
)
from firmware_sim.device import (
    Cannot,
    DeviceError,
    SimulatedDevice,
    parse_enum,
    parse_enum_text,
)

DECK_SIZE = 52
MAX_CARDS = 0xFFFF
FOREIGN_DECK = 0xF0E1_D2C3  # the deck a foreign card comes from (no table's deck)


def tag_uid(deck_id: int, code: int, copy: int = 0) -> bytes:
    """The 7-byte ISO 14443 style tag UID of card ``code`` of deck ``deck_id`` (``copy``:
    which deck of a load of several): one per physical card, the same at every load."""
    return b"\x04" + struct.pack(">IBB", deck_id, copy, code)


class Cheat(StrEnum):
    """What a cheat did to the deck being loaded (docs/simulator.md)."""

    FOREIGN = "foreign"  # after registration, a card is swapped for one of another deck
    RETAGGED = "retagged"  # after registration, a card's tag is rewritten to say another card
    CLONED = "cloned"  # after registration, a card is swapped for one with a copy of a tag
    MISSING = "missing"  # a card was taken out before the deck was loaded
    EXTRA = "extra"  # a card of another deck was added before the deck was loaded


@dataclass(frozen=True)
class Tagged:
    """A physical card in the shoe: the card it is (``card``), and what its tag says: its
    ``code`` (the card's own, unless re-tagged) and ``uid``."""

    card: int
    code: int
    uid: bytes


@dataclass(frozen=True)
class Draw:
    """A card that left the shoe: which card it physically is, what the shoe reported, and
    the card with its tag (what a seat's reader reads of it)."""

    card: int
    message: CardMessage | Unreadable
    tagged: Tagged


def tagged_deck(deck_id: int, order: Iterable[int]) -> list[Tagged]:
    """The physical cards of a load of deck ``deck_id`` in ``order``, each with its tag (a
    card in the load twice: two copies, two tags)."""
    copies: dict[int, int] = {}
    cards = []
    for code in order:
        copy = copies[code] = copies.get(code, -1) + 1
        cards.append(Tagged(code, code, tag_uid(deck_id, code, copy & 0xFF)))
    return cards


class Tampered(NamedTuple):
    """A load after a cheat: what the shoe registers, what is then in it, and the cheat done
    and its place in the load (None: no cheat)."""

    registered: list[Tagged]
    in_shoe: list[Tagged]
    cheat: tuple[Cheat, int] | None


def tamper(
    cards: list[Tagged],
    cheat: Cheat | str | None,
    at: int | None,
    rng: random.Random,
    of: int | None = None,
) -> Tampered:
    """The load ``cards`` after ``cheat`` at place ``at`` (drawn from ``rng`` when None).
    Before the registration, a card is taken out (``missing``) or one of another deck put in
    (``extra``): the shoe registers what it holds. After it, the card at ``at`` is swapped
    for one of another deck (``foreign``), for a card with a copy of another card's tag
    (``cloned``: of the card at place ``of``, or of an earlier card drawn from ``rng``; a
    copy of a later card comes out before its original), or has its tag rewritten to say
    another card (``retagged``). DeviceError for a cheat or place that cannot be."""
    if cheat is None:
        if at is not None or of is not None:
            raise DeviceError("at= and of= place a cheat: give cheat= too")
        return Tampered(cards, cards, None)
    kind = parse_enum_text(Cheat, cheat, "cheat")
    if of is not None and kind is not Cheat.CLONED:
        raise DeviceError(f"of= names the card a clone copies: not for a {kind} cheat")
    least = 2 if kind is Cheat.CLONED else 1  # a clone copies another card
    if len(cards) < least:
        raise DeviceError(f"a {kind} cheat needs at least {least} cards in the load")
    if of is not None and (
        isinstance(of, bool) or not isinstance(of, int) or not 0 <= of < len(cards)
    ):
        raise DeviceError(f"of must be 0..{len(cards) - 1} for this load, not {of!r}")
    low = 1 if kind is Cheat.CLONED and of is None else 0
    high = len(cards) if kind is Cheat.EXTRA else len(cards) - 1  # an extra card may go last
    place = rng.randint(low, high) if at is None else at
    if isinstance(place, bool) or not isinstance(place, int) or not low <= place <= high:
        raise DeviceError(f"at must be {low}..{high} for this load, not {at!r}")
    if place == of:
        raise DeviceError(f"a clone copies another card than its own: at and of are both {of}")
    done = (kind, place)
    victim = cards[min(place, len(cards) - 1)]
    stranger = Tagged(victim.card, victim.card, tag_uid(FOREIGN_DECK, victim.card))
    match kind:
        case Cheat.MISSING:
            return Tampered(shoe := cards[:place] + cards[place + 1 :], shoe, done)
        case Cheat.EXTRA:
            return Tampered(shoe := [*cards[:place], stranger, *cards[place:]], shoe, done)
        case Cheat.FOREIGN:
            swapped = stranger
        case Cheat.RETAGGED:
            other = (victim.card + 1 + rng.randrange(DECK_SIZE - 1)) % DECK_SIZE
            swapped = Tagged(victim.card, other, victim.uid)
        case Cheat.CLONED:
            swapped = cards[rng.randrange(place) if of is None else of]
    return Tampered(cards, [*cards[:place], swapped, *cards[place + 1 :]], done)


class SimulatedShoe(SimulatedDevice):
    """A shuffler-shoe that identifies every card as it leaves.

    ``reader="rfid"`` reports a tag UID with each card, ``"optical"`` none.
    ``registers_in="tag"`` sends a deck's registration in tag order; ``"load"`` in the order
    loaded, which is the order it deals (an older shoe's firmware, for the host's tests).
    """

    KIND = DeviceKind.SHOE
    FAULT_CODES = frozenset({FaultCode.JAM, FaultCode.LID_OPEN, FaultCode.READER, FaultCode.TAMPER})

    def __init__(
        self,
        *,
        serial: str = "SIM-SHOE-0001",
        reader: str = "rfid",
        registers_in: str = "tag",
        **kw: Any,
    ) -> None:
        if reader not in ("rfid", "optical"):
            raise DeviceError(f"reader must be 'rfid' or 'optical', not {reader!r}")
        if registers_in not in ("tag", "load"):
            raise DeviceError(f"registers_in must be 'tag' or 'load', not {registers_in!r}")
        super().__init__(serial=serial, **kw)
        self.reader = reader
        self.registers_in = registers_in
        self.read_counter = 0
        self.deck_id = 0
        self._cards: deque[Tagged] = deque()
        self._unreadable_next = False
        self.cheat: tuple[Cheat, int] | None = None  # of the last load: what, at which place

    @property
    def cards_remaining(self) -> int:
        return len(self._cards)

    @property
    def registers(self) -> bool:
        """Whether this shoe registers the decks it loads (protocol version 2 on)."""
        return self.protocol_version >= DeckCardMessage.SINCE

    def upcoming(self) -> list[int]:
        """The cards still in the shoe, next first (what a test may peek at; a host cannot)."""
        return [card.card for card in self._cards]

    def upcoming_tags(self) -> list[Tagged]:
        """The cards still in the shoe with what their tags say, next first."""
        return list(self._cards)

    def _cards_remaining(self) -> int:
        return len(self._cards)

    def load(
        self,
        cards: Iterable[int] | None = None,
        *,
        decks: int = 1,
        shuffle_seed: int | None = None,
        deck_id: int | None = None,
        cheat: Cheat | str | None = None,
        at: int | None = None,
        of: int | None = None,
    ) -> Deck:
        """Load the shoe, replacing what is in it: register the deck card by card (a shoe
        of version 2: DECK_CARD for every card, in tag order) and report DECK.

        ``cards`` gives the exact order (card codes 0..51, any number of each);
        otherwise ``decks`` full decks are shuffled together from
        ``shuffle_seed`` (drawn from the device's seed when not given). The
        deck id is ``deck_id``, or the shuffle seed. ``cheat`` tampers with the load at
        place ``at`` (from 0; drawn from the device's seed when not given; a clone copies the
        card at place ``of`` when given): see :func:`tamper`.
        """
        if cards is not None:
            order = list(cards)
            bad: list[object] = [c for c in order if isinstance(c, bool) or not isinstance(c, int)]
            bad += [c for c in order if isinstance(c, int) and not 0 <= c < DECK_SIZE]
            if bad:
                raise DeviceError(f"card codes must be 0..51, got {bad[:5]!r}")
        elif isinstance(decks, bool) or not isinstance(decks, int) or decks < 1:
            raise DeviceError(f"decks must be a whole number >= 1, not {decks!r}")
        seed = self.rng.getrandbits(32) if shuffle_seed is None else shuffle_seed
        if cards is None:
            order = [code for _ in range(decks) for code in range(DECK_SIZE)]
            random.Random(seed).shuffle(order)
        if not 1 <= len(order) <= MAX_CARDS:
            raise DeviceError(f"a shoe holds 1..{MAX_CARDS} cards, not {len(order)}")
        ident = seed if deck_id is None else deck_id
        if isinstance(ident, bool) or not isinstance(ident, int) or not 0 <= ident <= 0xFFFF_FFFF:
            raise DeviceError(f"deck_id must be 0..4294967295, not {ident!r}")
        registered, in_shoe, done = tamper(tagged_deck(ident, order), cheat, at, self.rng, of)
        self._require_room(len(registered) + 1 if self.registers else 1)
        self._cards = deque(in_shoe)
        self.deck_id = ident
        self.cheat = done
        if self.registers:
            reads = [(self._read_uid(card), card.code) for card in registered]
            if self.registers_in == "tag":
                reads.sort(key=lambda read: tag_order(*read))
            for index, (uid, code) in enumerate(reads):
                self._emit(DeckCardMessage(ident, index, code, uid))
        message = Deck(ident, len(in_shoe), len(in_shoe))
        self._emit(message)
        return message

    def _read_uid(self, card: Tagged) -> bytes:
        """The UID the reader reads off ``card``'s tag: none from an optical reader."""
        return b"" if self.reader == "optical" else card.uid

    def unreadable_next(self) -> None:
        """Make the next card drawn unreadable (a damaged tag or a smudged index)."""
        self._unreadable_next = True

    def draw(
        self, *, unreadable: bool = False, disposition: Disposition | str = Disposition.REJECT_TRAY
    ) -> Draw:
        """The dealer pulls the next card: the shoe reports CARD, or UNREADABLE.

        A card is unreadable when asked (``unreadable`` or ``unreadable_next``),
        by chance (``faults.unreadable_rate``), or while the reader is faulty;
        ``disposition`` says whether it went to the reject tray or out unread.
        """
        if not self._cards:
            raise DeviceError("the shoe is empty: load a deck", Cannot.EMPTY)
        if FaultCode.JAM in self.active_faults:
            raise DeviceError("the shoe is jammed: clear the jam first", Cannot.JAMMED)
        if FaultCode.LID_OPEN in self.active_faults:
            raise DeviceError("the shoe's lid is open: close it first", Cannot.LID_OPEN)
        where = parse_enum(Disposition, disposition, "disposition")
        self._require_room()
        card = self._cards.popleft()
        counter = self.read_counter
        self.read_counter = (counter + 1) & 0xFFFF_FFFF
        unread = (
            unreadable
            or self._unreadable_next
            or FaultCode.READER in self.active_faults
            or self.faults.chance(self.faults.unreadable_rate)
        )
        self._unreadable_next = False
        message: CardMessage | Unreadable
        if unread:
            message = Unreadable(counter, where)
        else:
            message = CardMessage(card.code, counter, self._read_uid(card))
        self._emit(message)
        return Draw(card.card, message, card)

    def jam(self) -> None:
        self.set_fault(FaultCode.JAM, True)

    def clear_jam(self) -> None:
        self.set_fault(FaultCode.JAM, False)

    def open_lid(self) -> None:
        self.set_fault(FaultCode.LID_OPEN, True)

    def close_lid(self) -> None:
        self.set_fault(FaultCode.LID_OPEN, False)
