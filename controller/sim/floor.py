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

import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Protocol

from controller.rules import Effect
from controller.sim.core_journal import CoreJournal
from controller.sim.core_records import core_serial
from controller.table import (
    Configure,
    FromDevice,
    LinkDown,
    LinkUp,
    Refusal,
    Step,
    Table,
    TableInput,
    TableSettings,
    Tick,
)
from controller.table.streams import WAIT_MS
from drivers import events as ev
from drivers.protocol import DeviceKind, Disposition, tag_order
from firmware_sim.device import DeviceError
from firmware_sim.shoe import FOREIGN_DECK, Cheat, Tagged, tag_uid, tagged_deck, tamper
from luck_errors import LuckTableError

#: The id of the deck a core floor's shoe registers (its tags: ``firmware_sim.shoe``).
DECK_ID = 1

Observer = Callable[[Table, Sequence[Effect]], None]
"""Told of every step of the table: the new table and its effects."""


class PhysicalActError(LuckTableError, RuntimeError):
    """A physical act the floor could not carry out (a simulator refused it, a device
    event never reached the table)."""


class Floor(Protocol):
    @property
    def table(self) -> Table: ...

    #: Whether the seat board senses who sits (PC/SC seat readers see cards only: the
    #: console seats the players).
    senses_seats: bool

    def now(self) -> int:
        """The time of an input, in ms since the Unix epoch."""
        ...

    async def submit(self, item: TableInput) -> Refusal | None:
        """A person's input (a decision, a seat, a supervisor's action); the table's
        refusal of it (its code and words), or None."""
        ...

    async def load(
        self,
        cards: list[int],
        cheat: Cheat | None = None,
        at: int | None = None,
        of: int | None = None,
    ) -> list[int]:
        """The shoe is loaded with ``cards`` in this order (it registers them and reports a
        deck of that many), once the table knows of it; with a ``cheat`` at place ``at`` of
        the load (a clone: of the card at place ``of``; ``firmware_sim.shoe.tamper``). The
        cards then in the shoe, next first."""
        ...

    async def switch(self, seat: int, card: int) -> None:
        """A player switches the card at ``seat`` for ``card`` of another deck: the seat's
        reader reports it, once the table knows of it."""
        ...

    async def shielded(self, seat: int) -> None:
        """A card whose tag is shielded lands at ``seat`` (a player's holdout, switched in
        for the card dealt there as it lands): the seat's reader reports a card and no tag,
        once the table knows of it."""
        ...

    def new_deck(self) -> None:
        """Another deck (other tags) for the loads to come: a deck taken out of play."""
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

    async def unplug(self, device: DeviceKind, seconds: float) -> None:
        """The device's cable is pulled for ``seconds``; returns once the table has seen
        the device go and has it back (the dealer waits out the pause, doing nothing)."""
        ...

    async def settle(self) -> None:
        """Wait until the table changes by itself (a device's fault or link recovers)."""
        ...

    async def people(self) -> None:
        """Wait, for as long as it takes, until people change the table (at its console:
        PhysicalActError where there is none)."""
        ...

    # A person's acts: done at once, whatever the links (controller.sim.human) ------------

    async def pitch(self, unread: Disposition | None) -> int:
        """The dealer draws the next card and pitches it; the card it physically is. The
        shoe reports it when its link lets it: the dealer does not wait for the table."""
        ...

    async def land(self, card: int, lands_at: int, reads: int | None = None) -> None:
        """``card`` lands at seat ``lands_at``; the seat board reports it when it can (as
        ``reads`` where the seat's reader misreads it)."""
        ...

    async def pull(self, device: DeviceKind, seconds: float) -> None:
        """The device's cable is out for ``seconds`` (it goes back by itself); at once."""
        ...

    async def wait(self) -> None:
        """The dealer waits a moment for the table (its links deliver what they hold)."""
        ...

    async def quiet(self) -> None:
        """Between hands: wait until each device is connected and has delivered every event
        (the cards collected, the last reports in)."""
        ...


class CoreFloor:
    """The pure table core with a modelled shoe and seat board, in this process.

    Every physical act becomes the device event the real device would report, numbered as
    the device numbers it, applied at once; time advances 10 ms per input from ``start``
    (deterministic). An unplugged device's link goes down and comes back at once; a cable
    ``pull`` (a person's dealing) holds the device's events in it until the dealer
    ``wait``s: then the device says HELLO and sends its backlog, as a real one does.
    With a ``journal`` every input is journaled as the table service journals it
    (:mod:`controller.sim.core_journal`), the table starting as a new journal does.
    The shoe registers each deck it loads card by card, and it and the seat board read each
    card's tag, as devices of protocol version 2 do; with ``registers`` False they are of
    version 1: no registration, no tag UIDs.
    """

    def __init__(
        self,
        settings: TableSettings,
        observe: Observer,
        *,
        start: int = 0,
        journal: CoreJournal | None = None,
        registers: bool = True,
    ) -> None:
        self.senses_seats = True
        self._observe = observe
        self._registers = registers
        self._deck_id = DECK_ID
        self._clock = start
        self._shoe: deque[Tagged] = deque()
        self._out: dict[int, Tagged] = {}  # each card dealt, with its tag, by the card it is
        self._seqs = dict.fromkeys(DeviceKind, 0)
        self._reads = 0  # the shoe's read counter (32-bit, wrapping)
        self._unregistered = 0  # the decks loaded without a registration (the last's id)
        self._held: dict[DeviceKind, list[TableInput]] = {}  # a pulled cable's events
        self._journal = journal
        if journal is None:
            self._last = Step.of(Table(settings))
        else:  # as the service starts a journal: from the default table, then its settings
            self._last = Step.of(Table(TableSettings()))
            if settings != self.table.settings:
                self._apply(Configure(at=self.now(), settings=settings))
        for device in (DeviceKind.SHOE, DeviceKind.SEAT_BOARD):
            self._hello(device, 0)

    @property
    def table(self) -> Table:
        return self._last.table

    def now(self) -> int:
        self._clock += 10
        return self._clock

    def _apply(self, item: TableInput) -> Refusal | None:
        """Apply ``item`` (given to the journal first, when there is one: the table takes
        the inputs it returns, those the item's record stands for); the table's refusal of
        it, or None."""
        items = (item,) if self._journal is None else self._journal.record(item)
        refusal = None
        for each in items:
            step = self._last = self._last.then(each)
            if self._journal is not None:
                self._journal.applied(step)
            self._observe(step.table, step.effects)
            refusal = refusal or step.refusal
        return refusal

    async def submit(self, item: TableInput) -> Refusal | None:
        return self._apply(item)

    def _hello(self, device: DeviceKind, pending: int) -> None:
        next_seq = self._seqs[device]
        serial = core_serial(device)
        up = LinkUp(
            at=self.now(), device=device, boot=1, next_seq=next_seq, pending=pending, serial=serial
        )
        self._apply(up)

    def _seq(self, device: DeviceKind) -> int:
        """The sequence number of ``device``'s next event (it numbers each event it sends)."""
        seq = self._seqs[device] % 65536
        self._seqs[device] += 1
        return seq

    def _event(self, device: DeviceKind, event: ev.DeviceEvent) -> None:
        """A device's event (numbered by :meth:`_seq`); held in the device while its cable
        is out."""
        item = FromDevice(at=self.now(), device=device, seq=event.seq, event=event)
        if device in self._held:
            self._held[device].append(item)
        else:
            self._apply(item)

    async def load(
        self,
        cards: list[int],
        cheat: Cheat | None = None,
        at: int | None = None,
        of: int | None = None,
    ) -> list[int]:
        """The shoe registers the deck card by card in tag order (the tags of its deck:
        ``DECK_ID``, then the next id at each ``new_deck``), then reports it loaded; a shoe
        of version 1 only reports it loaded."""
        if not self._registers:
            if cheat is not None:
                raise PhysicalActError("a shoe that registers no deck shows no cheat")
            self._shoe = deque(Tagged(card, card, b"") for card in cards)
            self._unregistered += 1  # a shoe that registers no deck: one id a load
            count = len(cards)
            loaded = ev.DeckLoaded(self._seq(DeviceKind.SHOE), self._unregistered, count, count)
            self._event(DeviceKind.SHOE, loaded)
            return list(cards)
        deck = tagged_deck(self._deck_id, cards)
        try:  # ``at`` given: nothing random
            registered, in_shoe, _ = tamper(deck, cheat, at, random.Random(self._deck_id), of)
        except DeviceError as error:
            raise PhysicalActError(f"the shoe cannot be loaded so: {error}") from None
        self._shoe = deque(in_shoe)
        order = sorted(registered, key=lambda card: tag_order(card.uid, card.code))
        for index, card in enumerate(order):
            seq = self._seq(DeviceKind.SHOE)
            self._event(
                DeviceKind.SHOE, ev.DeckCard(seq, self._deck_id, index, card.code, card.uid)
            )
        count, seq = len(in_shoe), self._seq(DeviceKind.SHOE)
        loaded = ev.DeckLoaded(seq, self._deck_id, count, count, registered=True)
        self._event(DeviceKind.SHOE, loaded)
        return [card.card for card in in_shoe]

    async def switch(self, seat: int, card: int) -> None:
        uid = tag_uid(FOREIGN_DECK, card) if self._registers else b""
        self._event(
            DeviceKind.SEAT_BOARD, ev.CardAtSeat(self._seq(DeviceKind.SEAT_BOARD), seat, card, uid)
        )

    async def shielded(self, seat: int) -> None:
        self._event(
            DeviceKind.SEAT_BOARD, ev.CardAtSeat(self._seq(DeviceKind.SEAT_BOARD), seat, None)
        )

    def new_deck(self) -> None:
        self._deck_id += 1

    async def draw(self, unread: Disposition | None) -> int:
        return await self.pitch(unread)

    async def pitch(self, unread: Disposition | None) -> int:
        if not self._shoe:
            raise PhysicalActError("the shoe is empty: load a deck")
        card = self._shoe.popleft()
        self._out[card.card] = card
        self._reads = (self._reads + 1) & 0xFFFF_FFFF  # it read, or failed to read, a card
        seq = self._seq(DeviceKind.SHOE)
        if unread is None:
            self._event(DeviceKind.SHOE, ev.CardRead(seq, card.code, self._reads, card.uid))
        else:
            self._event(DeviceKind.SHOE, ev.CardUnreadable(seq, self._reads, unread))
        return card.card

    async def place(self, seat: int, card: int, lands_at: int) -> None:
        await self.land(card, lands_at)

    async def land(self, card: int, lands_at: int, reads: int | None = None) -> None:
        """The seat's reader reads the card's tag: its code (or ``reads``) and UID."""
        tagged = self._out.get(card, Tagged(card, card, b""))
        code = tagged.code if reads is None else reads
        seen = ev.CardAtSeat(self._seq(DeviceKind.SEAT_BOARD), lands_at, code, tagged.uid)
        self._event(DeviceKind.SEAT_BOARD, seen)

    async def sit(self, seat: int) -> None:
        self._event(DeviceKind.SEAT_BOARD, ev.SeatOccupied(self._seq(DeviceKind.SEAT_BOARD), seat))

    async def leave(self, seat: int) -> None:
        self._event(DeviceKind.SEAT_BOARD, ev.SeatVacated(self._seq(DeviceKind.SEAT_BOARD), seat))

    async def unplug(self, device: DeviceKind, seconds: float) -> None:
        self._apply(LinkDown(at=self.now(), device=device, reason="unplugged"))
        self._hello(device, 0)

    async def pull(self, device: DeviceKind, seconds: float) -> None:
        if device not in self._held:
            self._apply(LinkDown(at=self.now(), device=device, reason="unplugged"))
            self._held[device] = []

    async def wait(self) -> None:
        """Time passes: each pulled cable is back (its HELLO, then its backlog), and what
        waits on the clock gets a ``Tick`` once it may have waited long enough."""
        for device, held in list(self._held.items()):
            del self._held[device]
            self._hello(device, len(held))
            for item in held:
                self._apply(replace(item, at=self.now()))
        if self.table.streams.waiting:
            self._clock += WAIT_MS
            self._apply(Tick(at=self.now()))

    async def quiet(self) -> None:
        await self.wait()

    async def settle(self) -> None:
        raise PhysicalActError("the table waits for nothing that will come by itself")

    async def people(self) -> None:
        raise PhysicalActError("the table waits for people, and there is no console")
