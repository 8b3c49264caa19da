"""The simulated seat-sensor board: who sits where, and which seat a dealt card landed at."""

from __future__ import annotations

from typing import Any

from drivers.protocol import UID_MAX, DeviceKind, FaultCode, SeatCard, SeatOccupied
from firmware_sim.device import Cannot, DeviceError, SimulatedDevice
from firmware_sim.shoe import FOREIGN_DECK, tag_uid

MAX_SEATS = 8


class SimulatedSeatBoard(SimulatedDevice):
    """Seats 1..``seats``, each with an occupancy sensor and a card area.

    With ``card_reader`` each card area identifies the card placed in it and, from protocol
    version 2 on, reads its tag's UID.
    """

    KIND = DeviceKind.SEAT_BOARD
    FAULT_CODES = frozenset({FaultCode.READER, FaultCode.TAMPER, FaultCode.SENSOR})

    def __init__(
        self,
        *,
        serial: str = "SIM-SEATS-0001",
        seats: int = MAX_SEATS,
        card_reader: bool = True,
        **kw: Any,
    ) -> None:
        if isinstance(seats, bool) or not isinstance(seats, int) or not 1 <= seats <= MAX_SEATS:
            raise DeviceError(f"a seat board has 1..{MAX_SEATS} seats, not {seats!r}")
        super().__init__(serial=serial, **kw)
        self.seats = range(1, seats + 1)
        self.card_reader = card_reader
        self.occupied: set[int] = set()

    def _occupied(self) -> frozenset[int]:
        return frozenset(self.occupied)

    def _seat(self, seat: object, what: str = "seat") -> int:
        if isinstance(seat, bool) or not isinstance(seat, int) or seat not in self.seats:
            raise DeviceError(f"{what} must be {self.seats[0]}..{self.seats[-1]}, not {seat!r}")
        return seat

    def sit(self, seat: int) -> SeatOccupied:
        """A player sits down."""
        return self._occupancy(seat, True)

    def leave(self, seat: int) -> SeatOccupied:
        """A player leaves."""
        return self._occupancy(seat, False)

    def _occupancy(self, seat: int, occupied: bool) -> SeatOccupied:
        seat = self._seat(seat)
        if (seat in self.occupied) == occupied:
            why = Cannot.ALREADY_OCCUPIED if occupied else Cannot.ALREADY_VACANT
            raise DeviceError(f"seat {seat} is already {'occupied' if occupied else 'vacant'}", why)
        self._require_room()
        if occupied:
            self.occupied.add(seat)
        else:
            self.occupied.discard(seat)
        message = SeatOccupied(seat, occupied)
        self._emit(message)
        return message

    def place(
        self,
        seat: int,
        card: int | None = None,
        *,
        lands_at: int | None = None,
        uid: bytes | str = b"",
    ) -> SeatCard | None:
        """The dealer places ``card`` (None: a card the test does not name) at ``seat``;
        ``uid``: its tag's UID (b'': a card without one, or one the test does not name).

        The card lands at ``lands_at`` when given (a misdeal), else at a
        neighbouring seat with probability ``faults.misplace_rate``, else at
        ``seat``. The seat reports SEAT_CARD with the card code (and, from version 2 on, the
        UID) when its reader identifies it (a reader is fitted and not faulty). While the
        seat sensors are faulty, nothing is reported and None is returned.
        """
        seat = self._seat(seat)
        self._card(card)
        tag = self._uid(uid)
        actual = seat if lands_at is None else self._seat(lands_at, "lands_at")
        if FaultCode.SENSOR in self.active_faults:
            return None
        self._require_room()
        neighbours = [s for s in (seat - 1, seat + 1) if s in self.seats]
        if lands_at is None and neighbours and self.faults.chance(self.faults.misplace_rate):
            actual = self.faults.rng.choice(neighbours)
        return self._read(actual, card, tag)

    def switch(self, seat: int, card: int, uid: bytes | str | None = None) -> SeatCard | None:
        """A player switches the card at ``seat`` for ``card`` brought in (its tag ``uid``;
        by default a tag of another deck): the seat's reader reports the card it now sees.
        None while the seat sensors are faulty (nothing reported)."""
        seat = self._seat(seat)
        self._card(card)
        tag = tag_uid(FOREIGN_DECK, card) if uid is None else self._uid(uid)
        if FaultCode.SENSOR in self.active_faults:
            return None
        self._require_room()
        return self._read(seat, card, tag)

    def _read(self, seat: int, card: int | None, uid: bytes) -> SeatCard:
        """What the seat's reader reports of ``card`` at ``seat``."""
        readable = self.card_reader and FaultCode.READER not in self.active_faults
        tag = uid if readable and self.protocol_version >= 2 else b""
        message = SeatCard(seat, card if readable else None, tag)
        self._emit(message)
        return message

    @staticmethod
    def _card(card: int | None) -> None:
        if card is not None and (
            isinstance(card, bool) or not isinstance(card, int) or not 0 <= card <= 51
        ):
            raise DeviceError(f"card code must be 0..51, not {card!r}")

    @staticmethod
    def _uid(uid: bytes | str) -> bytes:
        try:
            tag = bytes.fromhex(uid) if isinstance(uid, str) else bytes(uid)
        except ValueError:
            raise DeviceError(f"uid must be hexadecimal, not {uid!r}") from None
        if len(tag) > UID_MAX:
            raise DeviceError(f"a tag UID has 0..{UID_MAX} bytes, not {len(tag)}")
        return tag
