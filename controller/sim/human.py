"""A dealer who deals as a person does (``luck-table sim --dealer human``).

The automatic dealer (``controller.sim.dealer``) waits until the table has every event of
an act before the next one. A person does not: cards are pitched at a live pace drawn from
a distribution (about 0.6 s a card, now and then a pause), one after the other, whatever
the links do. A pulled cable, a line that spoils frames or a controller that restarts does
not stop the dealing: the dealer knows the deal (down, down, up, in seat order; a bonus
card after a four of clubs face up) from the hand as the table last showed it and the
cards pitched since, and goes on. The dealer waits for the table only where a person must:
for the betting (the players' decisions go through the table, which must have the cards
first), for a new hand or a deck (the table must have both devices back), and while the
table is paused by an alert that is not a lost link (the supervisor comes over).

Mistakes (``mistakes``, a share of the cards): a card that lands at a neighbouring seat
(the dealer sees it, deals nothing more until the table says where it belongs, and moves
it there). The other mistakes people make
are named in ``MISTAKES``, each with whether this dealer makes it yet: a hole card dealt
face up and an up card dealt face down (the supervisor records where it lies with
``WrongFace`` once the table has the card; the dealer deals no further card before), half
of the mistakes; a card out of order and a wrong correction are not drawn yet.
"""

from __future__ import annotations

import random
from collections import deque

from controller.rules import Card, Deal, Hand, IllegalInput, Waiting
from controller.sim.dealer import Dealer, FaultRates, Pace, Tally
from controller.sim.floor import Floor
from controller.table import AlertKind, Device, Disposition, Table, WrongFace

#: The mistakes a person makes, and whether this dealer makes them yet (docs/sim.md).
MISTAKES = {
    "wrong_seat": True,  # the card lands at a neighbouring seat: misplaced_card, moved
    "exposed_card": True,  # a hole card dealt face up: the supervisor records it (WrongFace)
    "wrong_face": True,  # an up card dealt face down: the supervisor records it (WrongFace)
    "out_of_order": False,  # a card drawn before the betting is done: needs held-card pitching
    "wrong_correction": False,  # the supervisor corrects the wrong card: needs a re-correction
}

#: How a person's pace varies: a card takes the pace's time times a log-normal factor of
#: this spread; one card in ``PAUSE_EVERY`` is followed by a pause of 1 to 3 cards' time.
SPREAD = 0.25
PAUSE_EVERY = 20
NO_FAULTS = FaultRates()
AT_ONCE = Pace()


class HumanDealer(Dealer):
    """Deals ``hands`` hands at ``seats`` seats as a person does (see the module)."""

    def __init__(
        self,
        floor: Floor,
        tally: Tally,
        *,
        seats: int,
        hands: int,
        seed: int,
        faults: FaultRates = NO_FAULTS,
        pace: Pace = AT_ONCE,
        mistakes: float = 0.0,
    ) -> None:
        super().__init__(
            floor, tally, seats=seats, hands=hands, seed=seed, faults=faults, pace=pace
        )
        if not 0.0 <= mistakes <= 1.0:
            raise ValueError(f"the mistake rate must be 0..1, not {mistakes}")
        self.mistakes = mistakes
        self.tempo = random.Random(seed * 100 + 17)  # the pace: apart from the hands' sources
        self.slips = random.Random(seed * 100 + 19)  # the mistakes
        self.pitched: list[int] = []  # cards pitched that the table's hand does not hold yet
        self.unseen: deque[int] = deque()  # cards dealt unread to no seat: for the supervisor
        self.faced: list[tuple[int, int, str]] = []  # (seat, card, what): the wrong face
        self.slipped = False  # a card pitched to the wrong seat: the dealer saw it

    async def move(self) -> bool:
        table = self.floor.table
        self.to_seat -= {seat.seat for seat in table.seats}
        empty = min(self.to_seat, default=None)
        alert = next((a for a in table.alerts if a.kind is not AlertKind.LINK_DOWN), None)
        if empty is not None:
            await self._sit_down(empty)
        elif alert is not None and not self._behind(table):
            if alert.kind is AlertKind.UNREAD_CARD and alert.id not in self.unread and self.unseen:
                self.unread[alert.id] = self.unseen.popleft()  # the card it physically is
            await self._resolve(alert)
        elif not table.in_hand:
            if self.pitched or self._behind(table) or _links_down(table):
                await self.floor.wait()  # the table has not had everything yet
            elif self.hands and table.hand_number - self.first_hand >= self.hands:
                return False
            else:
                await self.floor.quiet()  # the cards collected: every report is in
                if self.floor.table is table:  # nothing came meanwhile
                    await self._between_hands(table)
        else:
            await self._in_hand(table)
        return True

    def _behind(self, table: Table) -> bool:
        """The table does not have every card pitched yet, or a seat report waits."""
        self.pitched = [card for card in self.pitched if not _out(table, card)]
        return bool(self.pitched) or bool(table.streams.waiting)

    async def _in_hand(self, table: Table) -> None:
        hand = self._dealt(table)
        waiting = hand.waiting_for
        assert waiting is not None
        scramble = bool(hand.scrambled_burns) and self.scrambled != table.hand_number
        if self.slipped and self._behind(table):  # the dealer saw it land: nothing more dealt
            await self.floor.wait()  # until the table says where it belongs
            return
        self.slipped = False
        if self.faced:  # the dealer calls the supervisor over at once
            await self._face(table)
        elif waiting.kind == "card" and not scramble and not _not_links(table):
            await self._pitch(waiting)
        elif self._behind(table) or _not_links(table):
            await self.floor.wait()  # the betting and the scramble need the table's cards
        elif scramble:
            await self._scramble(list(hand.scrambled_burns), table.hand_number)
        else:
            await self._decide(waiting)

    def _dealt(self, table: Table) -> Hand:
        """The hand as the dealer knows it: the table's, and the cards pitched since."""
        hand = table.hand
        assert hand is not None
        self._behind(table)
        for card in self.pitched:
            waiting = hand.waiting_for
            if waiting is None or waiting.kind != "card":
                break
            try:
                hand = hand.apply(Deal(Card(card))).hand
            except IllegalInput:
                break
        return hand

    async def _face(self, table: Table) -> None:
        """A card dealt with the wrong face: once the table has it, the supervisor records
        where it lies (``WrongFace``), and the engine says what follows."""
        seat, card, what = self.faced[0]
        player = table.hand.player(seat) if table.in_play(seat) else None  # type: ignore[union-attr]
        if player is None or not any(dealt.card == card for dealt in player.cards):
            await self.floor.wait()  # the table has not had it yet
            return
        self.faced.pop(0)
        refused = await self.floor.submit(WrongFace(seat=seat, card=Card(card), **self._signed()))
        self.tally.injected[f"mistake: {what}"] += 1
        if refused is not None:
            self.tally.injected[f"mistake: {what}, not taken ({refused})"] += 1

    async def _pitch(self, waiting: Waiting) -> None:
        seat = waiting.seat
        await self._pause(self._card_time())
        if self.chance.random() < self.faults.unplug:
            device = self.chance.choice((Device.SHOE, Device.SEAT_BOARD))
            self.tally.injected[f"{device.value.replace('_', ' ')} unplugged"] += 1
            await self.floor.pull(device, 1.0 + self.chance.random())
        unread = self.chance.random() < self.faults.unreadable
        card = await self.floor.pitch(Disposition.DEALT_UNREAD if unread else None)
        if self.shoe:
            expected = self.shoe.popleft()
            if card != expected:
                raise RuntimeError(f"the shoe gave card {card}; the dealer loaded {expected} next")
        self.tally.drawn += 1
        self.pitched.append(card)
        placed = seat is not None and self.floor.table.settings.seat_board
        if unread:
            self.tally.injected["unreadable card"] += 1
            if not placed:
                self.unseen.append(card)
        if seat is None or not placed:
            return
        lands_at = seat
        mistake = self.slips.random() < self.mistakes and not unread
        face = "an exposed card" if not waiting.up else "an up card dealt face down"
        if mistake and self.slips.random() < 0.5:
            self.faced.append((seat, card, face))  # it lands where it belongs, face wrong
        elif mistake:
            lands_at = self.slips.choice([s for s in (seat - 1, seat + 1) if 1 <= s <= 8])
            self.tally.injected["mistake: a card to the wrong seat"] += 1
            self.slipped = True
        elif not unread and self.chance.random() < self.faults.misplaced:
            lands_at = self.chance.choice([s for s in (seat - 1, seat + 1) if 1 <= s <= 8])
            self.tally.injected["misplaced card"] += 1
        await self.floor.land(card, lands_at)

    def _card_time(self) -> float:
        """A card's time at this dealer's pace: log-normal about the pace, and a pause now
        and then (nothing at ``--speed max``)."""
        if not self.pace.card:
            return 0.0
        seconds = self.pace.card * self.tempo.lognormvariate(0.0, SPREAD)
        if self.tempo.randrange(PAUSE_EVERY) == 0:
            seconds += self.pace.card * self.tempo.uniform(1.0, 3.0)
        return seconds


def _out(table: Table, card: int) -> bool:
    """The table has had ``card`` from the shoe (in the hand, or spent)."""
    if table.spent >> card & 1:
        return True
    return table.hand is not None and table.hand.is_out(Card(card))


def _links_down(table: Table) -> bool:
    return any(alert.kind is AlertKind.LINK_DOWN for alert in table.alerts)


def _not_links(table: Table) -> bool:
    """An alert other than a lost link is open: the supervisor has something to do."""
    return any(alert.kind is not AlertKind.LINK_DOWN for alert in table.alerts)
