"""The simulated card shoe: a loaded deck, a reader, a lid, and the faults of a real one."""

from __future__ import annotations

import random
import struct
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from drivers.protocol import (
    CardMessage,
    Deck,
    DeviceKind,
    Disposition,
    FaultCode,
    Unreadable,
)
from firmware_sim.device import DeviceError, SimulatedDevice, parse_enum

DECK_SIZE = 52
MAX_CARDS = 0xFFFF


@dataclass(frozen=True)
class Draw:
    """A card that left the shoe: which card it physically is, and what the shoe reported."""

    card: int
    message: CardMessage | Unreadable


class SimulatedShoe(SimulatedDevice):
    """A shuffler-shoe that identifies every card as it leaves.

    ``reader="rfid"`` reports a tag UID with each card, ``"optical"`` none.
    """

    KIND = DeviceKind.SHOE
    FAULT_CODES = frozenset({FaultCode.JAM, FaultCode.LID_OPEN, FaultCode.READER, FaultCode.TAMPER})

    def __init__(self, *, serial: str = "SIM-SHOE-0001", reader: str = "rfid", **kw: Any) -> None:
        if reader not in ("rfid", "optical"):
            raise DeviceError(f"reader must be 'rfid' or 'optical', not {reader!r}")
        super().__init__(serial=serial, **kw)
        self.reader = reader
        self.read_counter = 0
        self.deck_id = 0
        self._cards: deque[tuple[int, int]] = deque()  # (place in the load, card code)
        self._unreadable_next = False

    @property
    def cards_remaining(self) -> int:
        return len(self._cards)

    def upcoming(self) -> list[int]:
        """The cards still in the shoe, next first (what a test may peek at; a host cannot)."""
        return [card for _, card in self._cards]

    def _cards_remaining(self) -> int:
        return len(self._cards)

    def load(
        self,
        cards: Iterable[int] | None = None,
        *,
        decks: int = 1,
        shuffle_seed: int | None = None,
        deck_id: int | None = None,
    ) -> Deck:
        """Load the shoe, replacing what is in it, and report DECK.

        ``cards`` gives the exact order (card codes 0..51, any number of each);
        otherwise ``decks`` full decks are shuffled together from
        ``shuffle_seed`` (drawn from the device's seed when not given). The
        deck id is ``deck_id``, or the shuffle seed.
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
        self._require_room()
        self._cards = deque(enumerate(order))
        self.deck_id = ident
        message = Deck(ident, len(order), len(order))
        self._emit(message)
        return message

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
            raise DeviceError("the shoe is empty: load a deck")
        if FaultCode.JAM in self.active_faults:
            raise DeviceError("the shoe is jammed: clear the jam first")
        if FaultCode.LID_OPEN in self.active_faults:
            raise DeviceError("the shoe's lid is open: close it first")
        where = parse_enum(Disposition, disposition, "disposition")
        self._require_room()
        place, card = self._cards.popleft()
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
            message = CardMessage(card, counter, self._uid(place))
        self._emit(message)
        return Draw(card, message)

    def _uid(self, place: int) -> bytes:
        """A 7-byte ISO 14443 style tag UID: one per physical card of the load."""
        if self.reader == "optical":
            return b""
        return b"\x04" + struct.pack(">IH", self.deck_id, place)

    def jam(self) -> None:
        self.set_fault(FaultCode.JAM, True)

    def clear_jam(self) -> None:
        self.set_fault(FaultCode.JAM, False)

    def open_lid(self) -> None:
        self.set_fault(FaultCode.LID_OPEN, True)

    def close_lid(self) -> None:
        self.set_fault(FaultCode.LID_OPEN, False)
