"""The simulated seat-sensor board: who sits where, and which seat a dealt card landed at."""

from __future__ import annotations

from typing import Any

from drivers.protocol import DeviceKind, FaultCode, SeatCard, SeatOccupied
from firmware_sim.device import DeviceError, SimulatedDevice

MAX_SEATS = 8


class SimulatedSeatBoard(SimulatedDevice):
    """Seats 1..``seats``, each with an occupancy sensor and a card area.

    With ``card_reader`` each card area identifies the card placed in it.
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
            raise DeviceError(f"seat {seat} is already {'occupied' if occupied else 'vacant'}")
        self._require_room()
        if occupied:
            self.occupied.add(seat)
        else:
            self.occupied.discard(seat)
        message = SeatOccupied(seat, occupied)
        self._emit(message)
        return message

    def place(
        self, seat: int, card: int | None = None, *, lands_at: int | None = None
    ) -> SeatCard | None:
        """The dealer places ``card`` (None: a card the test does not name) at ``seat``.

        The card lands at ``lands_at`` when given (a misdeal), else at a
        neighbouring seat with probability ``faults.misplace_rate``, else at
        ``seat``. The seat reports SEAT_CARD with the card code when its reader
        identifies it (a reader is fitted and not faulty). While the seat
        sensors are faulty, nothing is reported and None is returned.
        """
        seat = self._seat(seat)
        if card is not None and (
            isinstance(card, bool) or not isinstance(card, int) or not 0 <= card <= 51
        ):
            raise DeviceError(f"card code must be 0..51, not {card!r}")
        actual = seat if lands_at is None else self._seat(lands_at, "lands_at")
        if FaultCode.SENSOR in self.active_faults:
            return None
        self._require_room()
        neighbours = [s for s in (seat - 1, seat + 1) if s in self.seats]
        if lands_at is None and neighbours and self.faults.chance(self.faults.misplace_rate):
            actual = self.faults.rng.choice(neighbours)
        readable = self.card_reader and FaultCode.READER not in self.active_faults
        message = SeatCard(actual, card if readable else None)
        self._emit(message)
        return message
