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
(the dealer sees it, deals nothing more until the table has it where it belongs, and moves
it there), half of them; a hole card dealt face up and an up card dealt face down (the
supervisor records where it lies with ``WrongFace`` once the table has the card; the
dealer deals no further card before), the other half. At the same rate per betting
decision, a card drawn out of order (kept aside, held by the supervisor, placed where the
table deals it). At half the rate per card, a wrong correction: the seat's reader misreads
the card, the supervisor believes it and corrects the shoe's card, then sees the table
disagree with the felt and corrects it back. The mistakes people make are named in
``MISTAKES``, each with whether this dealer makes it. The dealer knows where each card
lies (``lies``) and, once a hand is over, checks each card the table has at a seat against
it (``astray``).
"""

from __future__ import annotations

import random
from collections import deque

from controller.rules import Card, Deal, Hand, IllegalInput, Waiting
from controller.rules.state import FOUR_OF_CLUBS
from controller.sim.dealer import Dealer, FaultRates, Injected, Pace, Tally
from controller.sim.floor import Floor
from controller.table import (
    Alert,
    AlertKind,
    CorrectCard,
    Remedy,
    ResolveAlert,
    Table,
    WrongFace,
)
from drivers.protocol import DeviceKind, Disposition

#: The mistakes a person makes, and whether this dealer makes them yet (docs/sim.md).
MISTAKES = {
    "wrong_seat": True,  # the card lands at a neighbouring seat: misplaced_card, moved
    "exposed_card": True,  # a hole card dealt face up: the supervisor records it (WrongFace)
    "wrong_face": True,  # an up card dealt face down: the supervisor records it (WrongFace)
    "out_of_order": True,  # a card drawn before the betting is done: held, dealt in its turn
    "wrong_correction": True,  # after a seat's misread the supervisor corrects, then back
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
        dealer_push: int = 0,
    ) -> None:
        super().__init__(
            floor,
            tally,
            seats=seats,
            hands=hands,
            seed=seed,
            faults=faults,
            pace=pace,
            dealer_push=dealer_push,
        )
        if not 0.0 <= mistakes <= 1.0:
            raise ValueError(f"the mistake rate must be 0..1, not {mistakes}")
        self.mistakes = mistakes
        self.tempo = random.Random(seed * 100 + 17)  # the pace: apart from the hands' sources
        self.slips = random.Random(seed * 100 + 19)  # the mistakes
        self.pitched: list[int] = []  # cards pitched that the table's hand does not hold yet
        self.unseen: deque[int] = deque()  # cards dealt unread to no seat: for the supervisor
        self.faced: list[tuple[int, int, Injected]] = []  # (seat, card, what): the wrong face
        self.slipped: int | None = None  # a card pitched to the wrong seat: the dealer saw it
        self.haste = random.Random(seed * 100 + 23)  # a card drawn before the betting is done
        self.early: int | None = None  # that card, face down aside until the table deals it
        self.doubt = random.Random(seed * 100 + 29)  # a seat's misread: a wrong correction
        self.misread: tuple[int, int, int] | None = None  # (seat, card, read as) till resolved
        self.recorrect: tuple[int, int] | None = None  # (card, corrected to): to correct back
        self.lies: dict[int, int] = {}  # the world: each card at a seat -> that seat
        self.felt_checked = 0  # the last hand whose cards were checked against the world
        self.cards_checked = 0  # cards the table has at a seat, checked against the world
        self.astray: list[str] = []  # cards the table has elsewhere than where they lie

    async def move(self) -> bool:
        table = self.floor.table
        self.to_seat -= {seat.seat for seat in table.seats}
        empty = min(self.to_seat, default=None)
        alert = next((a for a in table.alerts if a.kind is not AlertKind.LINK_DOWN), None)
        behind = self._behind(table)  # first: the last card pitched may have ended the hand
        if empty is not None:
            await self._sit_down(empty)
        elif alert is not None and not behind:
            if alert.kind is AlertKind.UNREAD_CARD and alert.id not in self.unread and self.unseen:
                self.unread[alert.id] = self.unseen.popleft()  # the card it physically is
            await self._resolve(alert)
        elif not table.in_hand and (behind or _links_down(table)):
            await self.floor.wait()  # the table has not had everything yet
        elif not table.in_hand:
            self._check_felt(table)
            if self.hands and table.hand_number - self.first_hand >= self.hands:
                return False
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
        if waiting is None:  # the last card pitched ends the hand: the table has yet to see it
            await self.floor.wait()
            return
        scramble = bool(hand.scrambled_burns) and self.scrambled != table.hand_number
        if self.slipped is not None and self._slip_unseen(table):
            await self.floor.wait()  # the dealer saw it land: nothing more dealt until the
            return  # table says where it belongs (and it is moved there)
        self.slipped = None
        if self.recorrect is not None:
            await self._correct_back(table)
            return
        if self.misread is not None:
            await self.floor.wait()  # the dealer sees the seat's display disagree: nothing
            return  # more dealt until the supervisor came over
        if self.early is not None and not self._behind(table):
            placed = await self._place_early(table)
            if placed:
                return
        if self.faced:  # the dealer calls the supervisor over at once
            await self._face(table)
        elif waiting.kind == "card" and not scramble and not _not_links(table):
            await self._pitch(waiting)
        elif self._behind(table) or _not_links(table):
            await self.floor.wait()  # the betting and the scramble need the table's cards
        elif scramble:
            await self._scramble(list(hand.scrambled_burns), table.hand_number)
        elif self._hasty(hand, waiting):
            await self._draw_early()
        else:
            await self._decide(waiting)

    def _dealt(self, table: Table) -> Hand:
        """The hand as the dealer knows it: the table's, the cards it holds (dealt as the
        next cards due once it may deal: a lost link pauses it) and the cards pitched since."""
        hand = table.hand
        assert hand is not None
        self._behind(table)
        for card in (*table.held, *self.pitched):
            waiting = hand.waiting_for
            if waiting is None or waiting.kind != "card":
                break
            try:
                hand = hand.apply(Deal(Card(card))).hand
            except IllegalInput:
                break
        return hand

    def _slip_unseen(self, table: Table) -> bool:
        """The card pitched to the wrong seat is not yet where it belongs in the table's
        eyes: the shoe's or the seat board's report of it is still to come (a pulled cable
        holds it), or it awaits the seat board at the seat it belongs to."""
        return self._behind(table) or any(p.card == self.slipped for p in table.unconfirmed)

    def _hasty(self, hand: Hand, waiting: Waiting) -> bool:
        """The dealer draws the next card before the betting is done (a mistake): only on a
        street another follows, with the shoe well short of running out, one at a time."""
        if not self.mistakes or waiting.kind != "action" or self.early is not None:
            return False
        live = sum(not hand.player(seat).folded for seat in hand.seats)
        if hand.street >= 7 or len(self.shoe) <= 2 * live + 2 or self.faced:
            return False
        return self.haste.random() < self.mistakes

    async def _draw_early(self) -> None:
        """The card comes out of the shoe while a player is to act: the dealer keeps it face
        down aside; the table raises a card out of turn, and the supervisor holds it (it is
        dealt as the next card due, where the dealer then places it)."""
        card = await self.floor.pitch(None)
        if self.shoe and self.shoe.popleft() != card:
            raise RuntimeError(f"the shoe gave card {card} out of the order the dealer loaded")
        self.tally.drawn += 1
        self.tally.injected[Injected.EARLY] += 1
        self.pitched.append(card)
        self.early = card

    async def _place_early(self, table: Table) -> bool:
        """Where the card drawn early goes, once the table dealt it: placed at the seat the
        table says (True), or nothing to place (a burn, taken out of play, still held)."""
        card = Card(self.early)  # type: ignore[arg-type]  # set while a card is held early
        if card in table.held or any(alert.card == card for alert in table.alerts):
            return False  # still aside: the betting goes on, or the supervisor comes over
        self.early = None
        hand = table.hand
        assert hand is not None
        seat = hand.holder(card)
        if seat is None:
            return False  # the burn card, or out of play: no seat
        self.lies[int(card)] = seat
        await self.floor.land(int(card), seat)
        return True

    def _misread(self, seat: int, card: int) -> int | None:
        """The occasion of a wrong correction (at half the mistakes' rate): the seat's reader
        misreads the card as one still in the shoe (not the four of clubs); None: read."""
        if not self.shoe or self.misread is not None or self.doubt.random() >= self.mistakes / 2:
            return None
        reads = self.doubt.choice([code for code in self.shoe if code != FOUR_OF_CLUBS])
        self.misread = (seat, card, reads)
        return reads

    async def _wrong_correction(self, alert: Alert) -> bool:
        """The seat's misread: the supervisor believes the seat's reader and corrects the
        shoe's card to it (the mistake: the shoe was right); True once taken."""
        assert self.misread is not None
        seat, card, reads = self.misread
        self.misread = None
        if alert.kind is not AlertKind.CARD_MISMATCH or alert.seat != seat:
            return False
        if not await self._pause(self.pace.hand):
            self.misread = (seat, card, reads)  # someone changed the table: look again
            return True
        correct = CorrectCard(wrong=Card(card), right=Card(reads), **self._signed())
        if await self.floor.submit(correct) is not None:
            self.tally.injected[Injected.WRONG_CORRECTION_NOT_TAKEN] += 1
            return False
        if any(a.kind is AlertKind.WRONG_CARD_NAMED for a in self.floor.table.alerts):
            # a table that checks tags: the card named is still in the shoe, not applied
            self.tally.injected[Injected.WRONG_CORRECTION_STOPPED] += 1
            return True
        self.tally.injected[Injected.WRONG_CORRECTION] += 1
        self.recorrect = (card, reads)
        return True

    async def _correct_back(self, table: Table) -> None:
        """The supervisor sees the table show another card than the one at the seat, and
        corrects it back: the card is where it lies, as the shoe read it."""
        assert self.recorrect is not None
        card, wrong = self.recorrect
        self.recorrect = None
        back = CorrectCard(wrong=Card(wrong), right=Card(card), **self._signed())
        refused = await self.floor.submit(back)
        back_or_not = Injected.CORRECTED_BACK if refused is None else Injected.NOT_CORRECTED_BACK
        self.tally.injected[back_or_not] += 1

    async def _resolve(self, alert: Alert) -> None:
        """The card the dealer drew early: the supervisor holds it (the remedy that keeps
        the deal in order); a seat's misread: the supervisor's wrong correction; any other
        alert as the automatic dealer's supervisor does."""
        misread = self.misread is not None and alert.card == Card(self.misread[2])
        if misread and await self._wrong_correction(alert):
            return
        early = self.early is not None and alert.card == Card(self.early)
        if (
            alert.kind is not AlertKind.CARD_OUT_OF_TURN
            or not early
            or not self.floor.table.in_hand
        ):
            await super()._resolve(alert)
            return
        if not await self._pause(self.pace.hand):  # a supervisor takes a moment to come over
            return
        self.tally.remedied[alert.id] = Remedy.HOLD
        await self._submit(ResolveAlert(alert=alert.id, remedy=Remedy.HOLD, **self._signed()))

    async def _move_card(self, card: int, seat: int) -> None:
        self.lies[card] = seat
        await super()._move_card(card, seat)

    def _check_felt(self, table: Table) -> None:
        """Once a hand is over and its remedies applied: every card the table has at a seat
        lies at that seat in the world (where the dealer pitched or moved it)."""
        hand = table.hand
        if hand is None or self.felt_checked == table.hand_number:
            return
        self.felt_checked = table.hand_number
        self.early = None  # a held card not dealt was set aside with the hand
        self.misread = self.recorrect = None
        for player in map(hand.player, hand.seats):
            for dealt in player.cards:
                self.cards_checked += 1
                lies = self.lies.get(int(dealt.card))
                if lies != player.seat:
                    self.astray.append(
                        f"hand {table.hand_number}: the table has {dealt.card} at seat "
                        f"{player.seat}; it lies {'nowhere' if lies is None else f'at seat {lies}'}"
                    )
        self.lies.clear()  # the cards collected

    async def _face(self, table: Table) -> None:
        """A card dealt with the wrong face: once the table has it, the supervisor records
        where it lies (``WrongFace``), and the engine says what follows."""
        seat, card, what = self.faced[0]
        player = table.hand.player(seat) if table.in_play(seat) else None  # type: ignore[union-attr]  # in_play: a hand is in progress
        if player is None or not any(dealt.card == card for dealt in player.cards):
            await self.floor.wait()  # the table has not had it yet
            return
        self.faced.pop(0)
        refused = await self.floor.submit(WrongFace(seat=seat, card=Card(card), **self._signed()))
        self.tally.injected[what] += 1
        if refused is not None:
            self.tally.injected[Injected.WRONG_FACE_NOT_TAKEN] += 1

    async def _pitch(self, waiting: Waiting) -> None:
        seat = waiting.seat
        await self._pause(self._card_time())
        if self.chance.random() < self.faults.unplug:
            device = self.chance.choice((DeviceKind.SHOE, DeviceKind.SEAT_BOARD))
            self.tally.injected[Injected.unplugged(device)] += 1
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
            self.tally.injected[Injected.UNREADABLE] += 1
            if not placed:
                self.unseen.append(card)
        if seat is None or not placed:
            return
        lands_at = seat
        mistake = self.slips.random() < self.mistakes and not unread
        face = Injected.EXPOSED if not waiting.up else Injected.DEALT_DOWN
        if mistake and self.slips.random() < 0.5:
            self.faced.append((seat, card, face))  # it lands where it belongs, face wrong
        elif mistake:
            lands_at = self.slips.choice([s for s in (seat - 1, seat + 1) if 1 <= s <= 8])
            self.tally.injected[Injected.WRONG_SEAT] += 1
            self.slipped = card
        elif not unread and self.chance.random() < self.faults.misplaced:
            lands_at = self.chance.choice([s for s in (seat - 1, seat + 1) if 1 <= s <= 8])
            self.tally.injected[Injected.MISPLACED] += 1
        reads = None
        if lands_at == seat and not mistake and not unread and card != FOUR_OF_CLUBS:
            reads = self._misread(seat, card)
        self.lies[card] = lands_at
        await self.floor.land(card, lands_at, reads)

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
