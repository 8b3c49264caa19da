"""The floor the automatic dealer works on: the table's inputs and the physical world.

``Floor`` is what the dealer needs: the table as it stands, a way to submit people's
inputs (decisions, seats, supervisor actions), and the physical acts of a dealer (load a
deck into the shoe, draw a card, place it at a seat, a player sitting down or leaving)
plus the faults the simulation injects (a cable pulled). ``CoreFloor`` is the pure table
core in this process with a modelled shoe and seat board: the dealer's tests run on it,
and it shows what each physical act becomes as a device event. ``controller.sim.service_floor`` runs
the same acts on simulator processes and the table service.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import Protocol

from controller.rules import Effect
from controller.table import (
    CardAtSeat,
    CardRead,
    CardUnreadable,
    DeckLoaded,
    Device,
    Disposition,
    LinkDown,
    LinkUp,
    SeatOccupied,
    SeatVacated,
    Table,
    TableInput,
    TableSettings,
    apply,
)

Observer = Callable[[Table, Sequence[Effect]], None]
"""Told of every step of the table: the new table and its effects."""


class FloorError(RuntimeError):
    """A physical act the floor could not carry out (a simulator refused it, a device
    event never reached the table)."""


class Floor(Protocol):
    @property
    def table(self) -> Table: ...

    def now(self) -> int:
        """The time of an input, in ms since the Unix epoch."""
        ...

    async def submit(self, item: TableInput) -> str | None:
        """A person's input (a decision, a seat, a supervisor's action); the reason the
        table refused it, or None."""
        ...

    async def load(self, cards: list[int]) -> None:
        """The shoe is loaded with ``cards`` in this order (it reports a deck of that many),
        once the table knows of it."""
        ...

    async def draw(self, unread: Disposition | None) -> int:
        """The dealer draws the next card (``unread``: it is unreadable and goes there); the
        card it physically is, once the table has the shoe's report."""
        ...

    async def place(self, seat: int, card: int, lands_at: int) -> None:
        """The dealer places ``card`` for ``seat``; it lands at ``lands_at``."""
        ...

    async def sit(self, seat: int) -> None:
        """A player sits at ``seat``: its sensor reports it."""
        ...

    async def leave(self, seat: int) -> None:
        """The player at ``seat`` stands up and goes: its sensor reports it."""
        ...

    async def unplug(self, device: Device, seconds: float) -> None:
        """The device's cable is pulled for ``seconds``; returns once the table has seen
        the device go and has it back (the dealer waits out the pause, doing nothing)."""
        ...

    async def settle(self) -> None:
        """Wait until the table changes by itself (a device's fault or link recovers)."""
        ...

    async def people(self) -> None:
        """Wait, for as long as it takes, until people change the table (at its console:
        FloorError where there is none)."""
        ...


class CoreFloor:
    """The pure table core with a modelled shoe and seat board, in this process.

    Every physical act becomes the device event the real device would report, applied at
    once; time advances 10 ms per input from ``start`` (deterministic). An unplugged
    device's link goes down and comes back at once.
    """

    def __init__(self, settings: TableSettings, observe: Observer, *, start: int = 0) -> None:
        self._table = Table(settings)
        self._observe = observe
        self._clock = start
        self._shoe: deque[int] = deque()
        for device in (Device.SHOE, Device.SEAT_BOARD):
            self._apply(LinkUp(at=self.now(), device=device))

    @property
    def table(self) -> Table:
        return self._table

    def now(self) -> int:
        self._clock += 10
        return self._clock

    def _apply(self, item: TableInput) -> str | None:
        step = apply(self._table, item)
        self._table = step.table
        self._observe(step.table, step.effects)
        return step.refused

    async def submit(self, item: TableInput) -> str | None:
        return self._apply(item)

    async def load(self, cards: list[int]) -> None:
        self._shoe = deque(cards)
        self._apply(DeckLoaded(at=self.now(), count=len(cards)))

    async def draw(self, unread: Disposition | None) -> int:
        if not self._shoe:
            raise FloorError("the shoe is empty: load a deck")
        card = self._shoe.popleft()
        if unread is None:
            self._apply(CardRead(at=self.now(), code=card))
        else:
            self._apply(CardUnreadable(at=self.now(), disposition=unread))
        return card

    async def place(self, seat: int, card: int, lands_at: int) -> None:
        self._apply(CardAtSeat(at=self.now(), seat=lands_at, code=card))

    async def sit(self, seat: int) -> None:
        self._apply(SeatOccupied(at=self.now(), seat=seat))

    async def leave(self, seat: int) -> None:
        self._apply(SeatVacated(at=self.now(), seat=seat))

    async def unplug(self, device: Device, seconds: float) -> None:
        self._apply(LinkDown(at=self.now(), device=device, reason="unplugged"))
        self._apply(LinkUp(at=self.now(), device=device))

    async def settle(self) -> None:
        raise FloorError("the table waits for nothing that will come by itself")

    async def people(self) -> None:
        raise FloorError("the table waits for people, and there is no console")
