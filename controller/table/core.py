"""The table core's transitions: ``apply(table, input) -> Step(table, effects, signals)``.

``apply`` never raises for a well-formed input: an input that cannot be taken now (a
decision the engine refuses, a buy-in over the limit, a new hand while a hand is in
progress) leaves the table unchanged and returns one ``refused`` effect with the reason
(the engine's own words for a refused decision). Every other input returns the new table
and the effects people must be told of, in order; the display and the lamps are reported
(``display``, ``lamps`` effects) whenever they change.

A loop over inputs goes on from its last step, ``step = step.then(input)`` (from
``Step.of(table)``): each step carries what its table shows, so each table's display and
lamps are computed once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, NamedTuple, assert_never

from controller.rules import (
    Action,
    Card,
    Deal,
    Do,
    Effect,
    Hand,
    IllegalInput,
    Phase,
    Wait,
    replay,
    start_hand,
)
from controller.rules.effects import DeadCard, Scramble
from controller.rules.inputs import BETTING_DECISIONS
from controller.rules.inputs import Input as EngineInput
from controller.table import alerts, corrections, protection
from controller.table import effects as told
from controller.table import inputs as ti
from controller.table.alerts import (
    ALERT_RULES,
    Alert,
    AlertKind,
    Busy,
    Clearance,
    Cleared,
    Named,
    NotDue,
    Tamper,
)
from controller.table.inputs import Remedy, TableInput
from controller.table.protection import Deck, DeckRegistered, Registration
from controller.table.state import SEATS, Placement, Seat, Signals, Table
from controller.table.streams import Stream, Streams, card_at_seat, over
from drivers import events as ev
from drivers.protocol import DeviceKind, Disposition, FaultCode
from luck_errors import LuckTableError

_PLAYER_DECISIONS = BETTING_DECISIONS | {Do.BONUS, Do.SHOW, Do.MUCK}


class Step(NamedTuple):
    """A table after an input: the ``table``, the ``effects`` people must be told of, and
    the ``signals`` the table shows (its display and lamps, computed once)."""

    table: Table
    effects: tuple[Effect, ...]
    signals: Signals

    @classmethod
    def of(cls, table: Table) -> Step:
        """``table`` as it stands, no input applied: the step a loop over inputs starts from."""
        return cls(table, (), table.signals)

    def then(self, item: TableInput) -> Step:
        """``item`` applied to this step's table (see :func:`apply`)."""
        return _apply(self.table, self.signals, item)

    @property
    def refused(self) -> str | None:
        """The reason the input was refused, in words, or None when it was taken."""
        refusal = self.refusal
        return None if refusal is None else refusal.message

    @property
    def refusal(self) -> told.Refusal | None:
        """The refusal (its ``code`` and words), or None when the input was taken."""
        if len(self.effects) == 1 and isinstance(self.effects[0], told.Refusal):
            return self.effects[0]
        return None


class Refused(LuckTableError):
    """Raised inside a transition: the input is not taken (``code``: why, as data), and
    nothing changes."""

    def __init__(self, code: told.Why, message: str) -> None:
        super().__init__(message)
        self.code = code


_Handler = Callable[[Table, Any, list[Effect]], Table]


def apply(table: Table, item: TableInput) -> Step:
    """Apply one input to ``table``: the new table, its effects and its signals (see the
    module)."""
    return Step.of(table).then(item)


def _apply(table: Table, before: Signals, item: TableInput) -> Step:
    """:func:`apply`, ``before`` being what ``table`` shows."""
    handler = _HANDLERS.get(type(item))
    fx: list[Effect] = []
    try:
        if handler is None:
            raise Refused(told.Refuse.NOT_AN_INPUT, f"not a table input: {item!r}")
        new = _feed_held(handler(_track(table, item), item, fx), item.at, fx)
        new = _shoe_empty(_reconcile(new, item, fx), item.at, fx)
    except Refused as refusal:
        words = told.Words.of(str(refusal))
        refused = told.Refusal(words, getattr(item, "tag", None), refusal.code)
        return Step(table, (refused,), before)
    after = new.signals
    if after.display != before.display:
        fx.append(told.DisplayChanged(new))
    if after.lamps != before.lamps:
        fx.append(told.LampsChanged(after.lamps))
    return Step(new, tuple(fx), after)


# Alerts ---------------------------------------------------------------------------------


def _raise(table: Table, facts: alerts.AlertFacts, fx: list[Effect], *, at: int) -> Table:
    alert = Alert(table.next_alert, facts, at)
    fx.append(alerts.Raised(alert))
    return table._replace(alerts=(*table.alerts, alert), next_alert=table.next_alert + 1)


def _clear(table: Table, gone: list[Alert], by: Clearance, fx: list[Effect], **how: Any) -> Table:
    """Close the alerts ``gone``, ``by`` what (``how``: its seat, device or supervisor)."""
    if not gone:
        return table
    for alert in gone:
        fx.append(Cleared(alert.id, by, **how))
    ids = {alert.id for alert in gone}
    return table._replace(alerts=tuple(a for a in table.alerts if a.id not in ids))


def _open(table: Table, kind: AlertKind, **facts: Any) -> list[Alert]:
    return [
        alert
        for alert in table.alerts
        if alert.kind is kind and all(getattr(alert, k) == v for k, v in facts.items())
    ]


# The deal -------------------------------------------------------------------------------


def _bit(card: Card) -> int:
    return 1 << card


def _known(table: Table, card: Card) -> bool:
    """The card is already out of the shoe: in the hand, or spent from this deck."""
    if table.spent & _bit(card):
        return True
    return table.in_hand and table.hand.is_out(card)  # type: ignore[union-attr]  # checked in a hand just before


def _not_due(table: Table) -> NotDue | None:
    """Why a card out of the shoe cannot go to the hand now (None: it can)."""
    if not table.in_hand:
        return NotDue(Busy.NO_HAND)
    if table.paused:
        return NotDue(Busy.PAUSED)
    waiting = table.hand.waiting_for  # type: ignore[union-attr]  # checked in a hand just before
    assert waiting is not None
    return None if waiting.kind == Wait.CARD else NotDue.of(waiting)


def _engine(table: Table, item: EngineInput, at: int, fx: list[Effect]) -> Table:
    hand = table.hand
    assert hand is not None
    try:
        step = hand.apply(item)
    except IllegalInput as error:
        raise Refused(error.code, str(error)) from None
    fx.extend(step.effects)
    table = table._replace(hand=step.hand, hand_log=(*table.hand_log, item))
    if any(isinstance(effect, Scramble) for effect in step.effects):
        table = table._replace(scramble_due=True)  # until the shoe reports them loaded
    return _settle(table, at, fx) if step.hand.over else table


def _shoe_empty(table: Table, at: int, fx: list[Effect]) -> Table:
    """The hand waits for a card the shoe cannot hold (its count is 0: cards taken out of
    play undealt, the burns back in it already, or none burned): a blocking alert, for the
    supervisor to void the hand, rather than a wait for a card that will not come."""
    hand = table.hand
    if hand is None or not table.in_hand or table.scramble_due or table.held or hand.stub > 0:
        return table
    waiting = hand.waiting_for
    if waiting is None or waiting.kind != Wait.CARD or _open(table, AlertKind.SHOE_EMPTY):
        return table
    assert waiting.destination is not None
    facts = alerts.ShoeEmpty(waiting.destination, waiting.street, waiting.seat, hand.gone)
    return _raise(table, facts, fx, at=at)


def _deal(table: Table, card: Card, at: int, fx: list[Effect], confirmed: bool = False) -> Table:
    """Give the hand its next card; a card to a seat awaits the seat board's report."""
    waiting = table.hand.waiting_for  # type: ignore[union-attr]  # checked in a hand just before
    assert waiting is not None and waiting.kind == Wait.CARD
    table = _engine(table, Deal(card), at, fx)
    if table.settings.seat_board and not confirmed and waiting.seat is not None and table.in_hand:
        table = table._replace(unconfirmed=(*table.unconfirmed, Placement(waiting.seat, card)))
    return table


def _give(table: Table, card: Card, at: int, fx: list[Effect], confirmed: bool) -> Table:
    """A card identified late (unread) that was the card due: dealt now, or held first
    in line while the table is paused."""
    if _not_due(table) is None:
        return _deal(table, card, at, fx, confirmed)
    return table._replace(held=(card, *table.held), spent=table.spent | _bit(card))


def _feed_held(table: Table, at: int, fx: list[Effect]) -> Table:
    """Deal the held cards, in order, while the hand waits for a card."""
    while table.held and _not_due(table) is None:
        card = table.held[0]
        waiting = table.hand.waiting_for  # type: ignore[union-attr]  # checked in a hand just before
        assert waiting is not None
        fx.append(told.HeldDealt(card, waiting))
        table = table._replace(held=table.held[1:], spent=table.spent & ~_bit(card))
        table = _deal(table, card, at, fx)
    return table


def _settle(table: Table, at: int, fx: list[Effect]) -> Table:
    """The hand is over: stacks back to the seats (net of the house's take, which goes to
    the table's drop-box ledger), its cards spent, its placements done."""
    hand = table.hand
    assert hand is not None
    stacks = hand.stacks()
    seats = tuple(seat._replace(stack=stacks.get(seat.seat, seat.stack)) for seat in table.seats)
    void = hand.phase is Phase.VOID
    fx.append(told.HandOver(table.hand_number, void, at, tuple(stacks.items())))
    if table.held:
        fx.append(told.HeldSetAside(table.held))
    table = table._replace(
        seats=seats,
        raked=table.raked + hand.rake,
        jackpot_dropped=table.jackpot_dropped + hand.jackpot_drop,
        spent=table.spent | sum(map(_bit, hand.cards_out())),
        held=(),
        unconfirmed=(),
        scramble_due=False,
    )
    away = _open(table, AlertKind.PLAYER_AWAY)
    return _deck_life(_clear(table, away, Clearance.HAND_OVER, fx), at, fx)


def _card_out(
    table: Table, card: Card, at: int, fx: list[Effect], *, own_tag: bool = False
) -> Table:
    """A card identified out of the shoe: to the hand if it is due, else an alert.
    ``own_tag``: the shoe read the deck's own tag of it, out for the first time."""
    if _known(table, card):
        return _raise(table, alerts.CardInPlay(card, own_tag), fx, at=at)
    why = _not_due(table)
    if why is None:
        return _deal(table, card, at, fx)
    return _out_of_turn(table, card, why, at, fx)


def _out_of_turn(table: Table, card: Card, why: NotDue, at: int, fx: list[Effect]) -> Table:
    table = table._replace(spent=table.spent | _bit(card))
    return _raise(table, alerts.CardOutOfTurn(card, why), fx, at=at)


# Device events --------------------------------------------------------------------------


def _from_device(table: Table, item: ti.FromDevice, fx: list[Effect]) -> Table:
    """A device's event, handled by its type (the drivers' own, one type per message)."""
    at, event = item.at, item.event
    match event:
        case ev.CardRead():
            return _read_in_order(table, event, at, fx)
        case ev.CardUnreadable():
            return _card_unreadable(table, event, at, fx)
        case ev.CardAtSeat():
            return _card_at_seat(table, item, fx)
        case ev.SeatOccupied():
            return _seat_occupied(table, event, fx)
        case ev.SeatVacated():
            return _seat_vacated(table, event, at, fx)
        case ev.DeckCard():
            return _deck_card(table, event, fx)
        case ev.DeckLoaded():
            return _deck_in(table, event, at, fx)
        case ev.DeviceFault():
            return _device_fault(table, item.device, event.code, at, fx)
        case ev.DeviceFaultCleared():
            return _device_fault_cleared(table, item.device, event.code, fx)
    assert_never(event)


def _card_read(table: Table, event: ev.CardRead, at: int, fx: list[Effect]) -> Table:
    if not 0 <= event.card < 52:
        return _raise(table, _no_card(table, event), fx, at=at)
    card, deck, uid = Card(event.card), _checked(table), event.uid.hex()
    if deck is not None:
        tamper = deck.check(card, uid)
        if tamper is not None:
            facts = alerts.ForeignCard(tamper, card, uid, None, deck.registered(uid))
            return _raise(table, facts, fx, at=at)
        table = table._replace(deck=deck._replace(dealt=(*deck.dealt, uid)))
    return _card_out(table, card, at, fx, own_tag=deck is not None)


def _no_card(table: Table, event: ev.CardRead) -> alerts.AlertFacts:
    """A read as no card of a deck. With its tag not of the deck checked, a foreign card, as
    a wire shoe's read of another deck's card is (a reader that knows a card only by its tag
    reads another deck's card as no card: the table tells the two shoes apart no more);
    else a card code no deck has."""
    deck = _checked(table)
    if deck is not None and event.uid and deck.registered(event.uid.hex()) is None:
        return alerts.ForeignCard(Tamper.FOREIGN, None, event.uid.hex())
    return alerts.CardNotInDeck(event.card)


def _read_in_order(table: Table, event: ev.CardRead, at: int, fx: list[Effect]) -> Table:
    """A card read out of the shoe, then its place in the order the deck is dealt in: an
    order too close to an earlier deck's is a deck not shuffled (controller/table/shuffle.py)."""
    table = _card_read(table, event, at, fx)
    if not table.settings.protection.shuffle_check or not 0 <= event.card < 52:
        return table
    shuffles, repeated = table.shuffles.dealt(event.card)
    table = table._replace(shuffles=shuffles)
    if repeated is None:
        return table
    return _raise(table, alerts.DeckNotShuffled(*repeated), fx, at=at)


def _deck_in(table: Table, event: ev.DeckLoaded, at: int, fx: list[Effect]) -> Table:
    """A deck loaded between hands begins a new order (a reload during a hand, of the stub
    and the burns, goes on with it)."""
    if not table.in_hand:
        table = table._replace(shuffles=table.shuffles.loaded())
    return _deck_loaded(table, event, at, fx)


# Game protection (controller/table/protection.py) -------------------------------------


def _checked(table: Table) -> Deck | None:
    """The deck every card is checked against: registered with its tags, at a table with
    tag checks; None: no card is checked."""
    deck = table.deck
    if deck is None or not deck.checked or not table.settings.protection.tag_checks:
        return None
    return deck


def _tampered(
    table: Table, report: ev.CardAtSeat, card: Card, *, there: bool
) -> alerts.ForeignCard | None:
    """The card a seat's reader reports during a hand (``card``, its tag ``report.uid``)
    when its tag never came out of the shoe: switched for a card the shoe dealt to that
    seat (``there``), else a card never dealt. None: its tag came out of the shoe; or it
    is the deck's own tag of a card of that seat that left the shoe unread (the shoe has
    no read of it to compare); or no tag is checked (no tag read, no deck checked, or
    between hands, when the last hand's cards may be reported after the next deck's
    registration)."""
    deck, uid = _checked(table), report.uid.hex()
    if deck is None or not table.in_hand or not uid or uid in deck.dealt:
        return None
    own = deck.tags[card]
    if there and uid == own and own not in deck.dealt:
        return None
    tamper = Tamper.SWITCHED if there else Tamper.NOT_DEALT
    return alerts.ForeignCard(tamper, card, uid, report.seat, deck.registered(uid))


def _tamper_at_seat(table: Table, facts: alerts.ForeignCard, fx: list[Effect], *, at: int) -> Table:
    """A switched or never-dealt card at a seat (once per seat and tag)."""
    if any(alert.facts == facts for alert in _open(table, AlertKind.FOREIGN_CARD)):
        return table
    return _raise(table, facts, fx, at=at)


def _deck_card(table: Table, event: ev.DeckCard, fx: list[Effect]) -> Table:
    """One card of the deck the shoe registers (a card of another deck starts again)."""
    registering = table.registering
    if registering is None or registering.deck != event.deck_id:
        registering = Registration(event.deck_id)
    if len(registering.cards) >= _MOST_REGISTERED:
        return table  # a flood: the deck's count tells it is not a deck
    cards = (*registering.cards, (event.card, event.uid.hex()))
    return table._replace(registering=registering._replace(cards=cards))


#: The most cards of one registration kept: twice a deck (any more are a flood).
_MOST_REGISTERED = 2 * protection.DECK_SIZE


def _next_deck(table: Table, deck: int | None, tags: tuple[str, ...], at: int) -> Deck:
    """The deck accepted: the same deck loaded again (the same tags, or none to tell) goes
    on with its life; another starts one."""
    old = table.deck
    if old is not None and old.tags == tags:
        return old._replace(deck=deck, dealt=())
    return Deck(deck, tags, at)


def _deck_life(table: Table, at: int, fx: list[Effect]) -> Table:
    """At a hand's end: the deck past its life (hands or hours) is due for replacement
    (one alert in its life)."""
    deck, limits = table.deck, table.settings.protection
    if deck is None or deck.due:
        return table
    most = limits.deck_ms
    hands = limits.deck_hands is not None and deck.hands >= limits.deck_hands
    if not hands and (most is None or at - deck.since < most):
        return table
    due = alerts.DeckDue(deck.hands, deck.age(at), limits.deck_hands, limits.deck_hours)
    return _raise(table._replace(deck=deck._replace(due=True)), due, fx, at=at)


def _replace_deck(table: Table, at: int, fx: list[Effect]) -> Table:
    """The supervisor takes the deck out of play: the hand in progress is void, and the
    next hand waits for a new deck (its life ends now: no ``deck_due`` at the void)."""
    table = table._replace(deck=None, deck_ready=False)
    if table.in_hand:
        table = _void(table, at, fx)
    fx.append(told.DeckOut())
    return table._replace(held=())


def _card_unreadable(table: Table, event: ev.CardUnreadable, at: int, fx: list[Effect]) -> Table:
    if event.disposition is Disposition.REJECT_TRAY:
        fx.append(told.Rejected())
        return table
    why = _not_due(table)
    if why is not None:
        return _raise(table, alerts.UnreadCard(why), fx, at=at)
    waiting = table.hand.waiting_for  # type: ignore[union-attr]  # checked in a hand just before
    assert waiting is not None
    seat_reader = table.settings.seat_board and waiting.seat is not None
    unread = alerts.UnreadCard(None, waiting.destination, waiting.seat, waiting.up, seat_reader)
    return _raise(table, unread, fx, at=at)


def _card_at_seat(
    table: Table, item: ti.FromDevice, fx: list[Effect], *, final: bool = False
) -> Table:
    """The seat board's report of a card at a seat (``item``, of an ``ev.CardAtSeat``). One
    the table cannot match yet (a card the shoe has not reported) waits for the shoe's
    report unless ``final``."""
    report = card_at_seat(item)
    seat, at = _seat_number(report.seat), item.at
    if not table.settings.seat_board:
        fx.append(told.SeatBoardUnused(seat))
        return table
    code = report.card
    card = Card(code) if code is not None and 0 <= code < 52 else None  # else: as if unread
    pending = table.unconfirmed
    if card is None:  # cards at one seat land in deal order: the seat's oldest card
        mine = next((p for p in pending if p.seat == seat), None)
    else:
        mine = next((p for p in pending if p.card == card), None)
    if mine is not None:
        tampered = _tampered(table, report, mine.card, there=mine.seat == seat)
        if tampered is not None:  # the card the shoe dealt there is not the card there
            kept = tuple(p for p in pending if p != mine or mine.seat != seat)
            return _tamper_at_seat(table._replace(unconfirmed=kept), tampered, fx, at=at)
        if mine.seat == seat and _unverified(table, report):
            table = _confirm(table, mine, fx, verified=False)
            return _unverified_read(table, mine, fx, at=at)
        if mine.seat == seat:
            return _confirm(table, mine, fx)
        return _stray(table, seat, card, mine.seat, fx, at=at)
    unread = next(
        (a for a in _open(table, AlertKind.UNREAD_CARD, due=True) if a.belongs == seat), None
    )
    if unread is not None:
        if card is None:
            fx.append(told.SeatUnread(seat))
            return table
        if _known(table, card):  # already in play: that alert is the unread card's now
            # (one card: taken out of play, it leaves the shoe's count once, not twice)
            table = _clear(table, [unread], Clearance.READER_IDENTIFIED, fx, seat=seat)
            return _card_out(table, card, at, fx)
        deck, uid = _checked(table), report.uid.hex()
        if deck is not None and uid:  # the seat's reader has the tag the shoe missed
            tamper = deck.check(card, uid)
            if tamper is not None:
                facts = alerts.ForeignCard(tamper, card, uid, seat, deck.registered(uid))
                return _tamper_at_seat(table, facts, fx, at=at)
            table = table._replace(deck=deck._replace(dealt=(*deck.dealt, uid)))
        table = _clear(table, [unread], Clearance.READER_IDENTIFIED, fx, seat=seat)
        table = _give(table, card, at, fx, confirmed=True)
        if _unverified(table, report):  # named by its face alone: no tag says it is that card
            return _unverified_read(table, Placement(seat, card), fx, at=at)
        return table
    if not final and _awaits_shoe(table, seat, card):
        return _wait(table, item, fx)
    if card is None:
        return _stray(table, seat, None, None, fx, at=at)
    holder = _holder(table, card)
    misread = None if holder is not None else corrections.misread(table, seat, card)
    tampered = _tampered(table, report, card, there=holder == seat or misread is not None)
    if tampered is not None:  # the card the shoe dealt there, if awaited, is gone
        kept = tuple(p for p in table.unconfirmed if p != misread)
        return _tamper_at_seat(table._replace(unconfirmed=kept), tampered, fx, at=at)
    if holder == seat:
        return _clear(table, _strays(table, card), Clearance.SEEN_AT_SEAT, fx, seat=seat)
    if table.in_hand and _known(table, card):  # the table has it elsewhere, awaited nowhere
        return _card_moved(table, seat, card, holder, fx, at=at)
    if holder is not None:
        return _stray(table, seat, card, holder, fx, at=at)
    if misread is not None:
        return _mismatch(table, misread, card, fx, at=at)
    return _raise(table, alerts.CardNotDealt(seat, card), fx, at=at)


def _card_moved(
    table: Table, seat: int, card: Card, holder: int | None, fx: list[Effect], *, at: int
) -> Table:
    """A card the table has elsewhere (a player's, confirmed or no longer awaited; a burn;
    the community card; a card out of play) is at ``seat``: it moved after it was dealt
    (once per seat and card)."""
    if _open(table, AlertKind.CARD_MOVED, seat=seat, card=card):
        return table
    hand = table.hand
    assert hand is not None
    if holder is not None:
        lay = alerts.Lay.FOLDED if hand.player(holder).folded else alerts.Lay.SEAT
    elif hand.community == card:
        lay = alerts.Lay.COMMUNITY
    elif card in hand.burns and hand.is_out(card):
        lay = alerts.Lay.BURN
    else:
        lay = alerts.Lay.OUT_OF_PLAY
    return _raise(table, alerts.CardMoved(seat, card, lay, holder), fx, at=at)


def _mismatch(table: Table, read: Placement, card: Card, fx: list[Effect], *, at: int) -> Table:
    """The seat's reader sees ``card`` where the shoe read ``read.card``: a misread by one
    of the two readers (once per seat and card)."""
    seat = read.seat
    if _open(table, AlertKind.CARD_MISMATCH, seat=seat, card=card):
        return table
    return _raise(table, alerts.CardMismatch(seat, read.card, card), fx, at=at)


# The two devices' streams (controller/table/streams.py) ------------------------------

#: The shoe's events that tell where its cards stand (a fault tells nothing of them).
_SHOE_EVENTS = (ev.CardRead, ev.CardUnreadable, ev.DeckCard, ev.DeckLoaded)


def _track(table: Table, item: TableInput) -> Table:
    """Keep where each device's events stand: its HELLO (``LinkUp``: the backlog it
    announced) and the sequence number of each of its events."""
    streams = table.streams
    if isinstance(item, ti.LinkUp):
        device = item.device
        stream = _stream(streams, device).linked(item.boot, item.next_seq, item.pending)
    elif isinstance(item, ti.FromDevice):
        device = item.device
        stream = _stream(streams, device).saw(item.seq)
    else:
        return table
    if device is DeviceKind.SHOE:
        return table._replace(streams=streams._replace(shoe=stream))
    return table._replace(streams=streams._replace(seat_board=stream))


def _stream(streams: Streams, device: DeviceKind) -> Stream:
    return streams.shoe if device is DeviceKind.SHOE else streams.seat_board


def _shoe_owes(table: Table) -> bool:
    """The shoe may still report cards the table has not had: its link is down, or the
    backlog it announced is not all in."""
    return DeviceKind.SHOE not in table.links or not table.streams.shoe.complete


def _awaits_shoe(table: Table, seat: int, card: Card | None) -> bool:
    """A seat report the table cannot match may be of a card the shoe has not reported yet
    (its link down, its backlog not in, a frame sent again): it waits, once the table knows
    the shoe's sequence numbers (a journal written before has none: decided at once). A card
    at a seat with no player in the hand, or a card already out of the shoe, needs no wait."""
    if table.streams.shoe.announced is None:
        return False
    if card is None:
        return table.in_play(seat)
    return not _known(table, card)


def _wait(table: Table, report: ti.FromDevice, fx: list[Effect]) -> Table:
    fx.append(told.ReportWaits(report))
    streams = table.streams
    return table._replace(streams=streams._replace(waiting=(*streams.waiting, report)))


def _matches(table: Table, item: ti.FromDevice) -> bool:
    """The shoe has now reported the card of the seat report ``item`` (or, for a card its
    reader did not know, a card is awaited at its seat)."""
    report = card_at_seat(item)
    if report.card is None:
        return any(p.seat == report.seat for p in table.unconfirmed) or any(
            a.belongs == report.seat for a in _open(table, AlertKind.UNREAD_CARD, due=True)
        )
    if not 0 <= report.card < 52:
        return False
    card = Card(report.card)
    return _known(table, card) or any(
        a.belongs == report.seat for a in _open(table, AlertKind.UNREAD_CARD, due=True)
    )


def _reconcile(table: Table, item: TableInput, fx: list[Effect]) -> Table:
    """Decide the waiting seat reports that can be: each one whose card the shoe has now
    reported, in order; and, on the shoe's own word or the clock's (its event or HELLO, a
    ``Tick``), once the shoe owes nothing, each one that has waited long enough: a card the
    shoe did not deal. Any other input says nothing of the shoe (after a restart the
    service's first inputs are the links it lost, the shoe's perhaps after the seat board's)."""
    waiting = table.streams.waiting
    if not waiting:
        return table
    told = (
        isinstance(item, ti.Tick)
        or (isinstance(item, ti.FromDevice) and isinstance(item.event, _SHOE_EVENTS))
        or (isinstance(item, ti.LinkUp) and item.device is DeviceKind.SHOE)
    )
    owes = not told or _shoe_owes(table)
    at = item.at
    kept: list[ti.FromDevice] = []
    due: list[ti.FromDevice] = []
    for report in waiting:
        if _matches(table, report) or (not owes and over(report, at)):
            due.append(report)
        else:
            kept.append(report)
    if not due:
        return table
    table = table._replace(streams=table.streams._replace(waiting=tuple(kept)))
    for report in due:
        table = _card_at_seat(table, report, fx, final=True)
    return table


def _holder(table: Table, card: Card) -> int | None:
    """The seat whose hand holds ``card``: the hand in progress, or the last one, over (the
    seat board may report a hand's last cards after it ended); None: no player holds it."""
    return None if table.hand is None else table.hand.holder(card)


def _strays(table: Table, card: Card) -> list[Alert]:
    """The open alerts of ``card`` landing where it does not belong."""
    return [
        alert
        for alert in table.alerts
        if alert.kind in (AlertKind.MISPLACED_CARD, AlertKind.CARD_AT_EMPTY_SEAT)
        and alert.card == card
    ]


def _confirm(
    table: Table, placement: Placement, fx: list[Effect], *, verified: bool = True
) -> Table:
    """The card dealt to a seat landed there (``verified``: its tag says it is the card;
    else only that a card landed there: no longer awaited, not confirmed)."""
    index = table.unconfirmed.index(placement)
    table = table._replace(unconfirmed=table.unconfirmed[:index] + table.unconfirmed[index + 1 :])
    if not verified:
        return table
    strays = _strays(table, placement.card)
    return _clear(table, strays, Clearance.CONFIRMED_AT_SEAT, fx, seat=placement.seat)


def _unverified(table: Table, report: ev.CardAtSeat) -> bool:
    """The seat's report of a card dealt there has no readable tag, at a table that checks
    every card's tag during a hand: it does not confirm the card (a shielded or dead tag
    hides a switch)."""
    return not report.uid and table.in_hand and _checked(table) is not None


def _unverified_read(table: Table, placement: Placement, fx: list[Effect], *, at: int) -> Table:
    """An alert for surveillance, and the seat's count of reads without a tag."""
    seat = placement.seat
    counts = table.unverified
    counts = (*counts[: seat - 1], counts[seat - 1] + 1, *counts[seat:])
    table = table._replace(unverified=counts)
    return _raise(table, alerts.UnverifiedRead(seat, placement.card, counts[seat - 1]), fx, at=at)


def _stray(
    table: Table, seat: int, card: Card | None, belongs: int | None, fx: list[Effect], *, at: int
) -> Table:
    """A card landed where it does not belong (once per card and seat)."""
    if card is not None and any(alert.seat == seat for alert in _strays(table, card)):
        return table
    if table.in_play(seat) and not table.hand.player(seat).folded:  # type: ignore[union-attr]  # checked in a hand just before
        stray: alerts.AlertFacts = alerts.MisplacedCard(seat, card, belongs)
    else:
        stray = alerts.CardAtEmptySeat(seat, card, belongs)
    return _raise(table, stray, fx, at=at)


def _seat_occupied(table: Table, event: ev.SeatOccupied, fx: list[Effect]) -> Table:
    seat = _seat_number(event.seat)
    table = table._replace(occupied=tuple(sorted({*table.occupied, seat})))
    if table.seat(seat) is None:
        fx.append(told.SomeoneSat(seat))
    away = _open(table, AlertKind.PLAYER_AWAY, seat=seat)
    return _clear(table, away, Clearance.PLAYER_BACK, fx, seat=seat)


def _seat_vacated(table: Table, event: ev.SeatVacated, at: int, fx: list[Effect]) -> Table:
    seat = _seat_number(event.seat)
    table = table._replace(occupied=tuple(s for s in table.occupied if s != seat))
    if not table.in_play(seat) or table.hand.player(seat).folded:  # type: ignore[union-attr]  # checked in a hand just before
        return table
    return _raise(table, alerts.PlayerAway(seat, table.hand_number), fx, at=at)


def _deck_loaded(table: Table, event: ev.DeckLoaded, at: int, fx: list[Effect]) -> Table:
    """A deck loaded: between hands, a new deck, accepted by its registration (or by the
    shoe's count, at a table without tag checks whose shoe registers none: its deck's id
    is not the table's); during a hand, the stub and the burn cards the engine scrambled,
    or a deck that has no place there."""
    deck_id, count = (event.deck_id if event.registered else None), event.cards_loaded
    registration, table = table.registering, table._replace(registering=None)
    hand = table.hand
    if table.in_hand and hand is not None and _burns_reloaded(table, hand, count):
        fx.append(told.DeckIn(count, reloaded=True))
        return table._replace(scramble_due=False, deck=_burns_back(table.deck, hand))
    if table.in_hand:
        during = alerts.DeckDuringHand(count, table.hand_number)
        return _raise(table, during, fx, at=at)
    checks = table.settings.protection.tag_checks
    tags: tuple[str, ...] = ()
    if deck_id is not None:
        examined = protection.examine(registration, deck_id, count, checks)
        if isinstance(examined, alerts.DeckRejected):
            return _raise(table._replace(deck_ready=False), examined, fx, at=at)
        tags = examined
    elif checks:
        rejected = alerts.DeckRejected(None, count)
        return _raise(table._replace(deck_ready=False), rejected, fx, at=at)
    elif count != 52:
        table = table._replace(deck_ready=False)
        return _raise(table, alerts.BadDeck(count), fx, at=at)
    fx.append(told.DeckIn(52))
    old, deck = table.deck, _next_deck(table, deck_id, tags, at)
    if deck_id is not None and tags:
        fx.append(DeckRegistered(deck_id, tags, at))
    table = table._replace(deck_ready=True, spent=0, deck=deck)
    bad = _open(table, AlertKind.BAD_DECK) + _open(table, AlertKind.DECK_REJECTED)
    table = _clear(table, bad, Clearance.FULL_DECK, fx)
    if old is not None and old.since == deck.since:  # the same deck: its life goes on
        return table
    return _clear(table, _open(table, AlertKind.DECK_DUE), Clearance.NEW_DECK, fx)


def _burns_back(deck: Deck | None, hand: Hand) -> Deck | None:
    """The burn cards scrambled back into the stub are dealt again: their tags are in the
    shoe once more."""
    if deck is None or not deck.checked:
        return deck
    back = {deck.tags[card] for card in hand.burns}
    return deck._replace(dealt=tuple(uid for uid in deck.dealt if uid not in back))


def _burns_reloaded(table: Table, hand: Hand, count: int) -> bool:
    """The engine scrambled the burn cards back into the stub and the shoe now reports
    exactly that many cards: the dealer put the stub and the burns back, as told."""
    return not table.held and hand.expects_reload(count)


def _device_fault(
    table: Table, device: DeviceKind, fault: FaultCode, at: int, fx: list[Effect]
) -> Table:
    if _open(table, AlertKind.DEVICE_FAULT, device=device, fault=fault):
        return table
    return _raise(table, alerts.DeviceFault(device, fault), fx, at=at)


def _device_fault_cleared(
    table: Table, device: DeviceKind, fault: FaultCode, fx: list[Effect]
) -> Table:
    gone = _open(table, AlertKind.DEVICE_FAULT, device=device, fault=fault)
    return _clear(table, gone, Clearance.FAULT_CLEARED, fx, device=device)


def _link_up(table: Table, item: ti.LinkUp, fx: list[Effect]) -> Table:
    fx.append(told.Link(item.device, up=True))
    table = table._replace(links=tuple(sorted({*table.links, item.device})))
    gone = _open(table, AlertKind.LINK_DOWN, device=item.device)
    table = _clear(table, gone, Clearance.LINK_BACK, fx, device=item.device)
    return _identify(table, item, fx)


def _identify(table: Table, item: ti.LinkUp, fx: list[Effect]) -> Table:
    """The device's serial checked against the one the table expects: another raises
    ``device_replaced`` (one open per device and serial); the expected one back clears the
    device's. A HELLO whose serial is not known (an older journal's), or a table that
    names none, checks nothing."""
    expected = table.expected_serial(item.device)
    if item.serial is None or expected is None:
        return table
    device = item.device
    stale = _open(table, AlertKind.DEVICE_REPLACED, device=device)
    if item.serial == expected:
        return _clear(table, stale, Clearance.SERIAL_EXPECTED, fx, device=device)
    if any(getattr(alert.facts, "serial", None) == item.serial for alert in stale):
        return table
    facts = alerts.DeviceReplaced(device, item.serial, expected)
    return _raise(table, facts, fx, at=item.at)


def _link_down(table: Table, item: ti.LinkDown, fx: list[Effect]) -> Table:
    table = table._replace(links=tuple(d for d in table.links if d is not item.device))
    if item.device is DeviceKind.SEAT_BOARD and not table.settings.seat_board:
        fx.append(told.Link(item.device, up=False))
        return table
    if _open(table, AlertKind.LINK_DOWN, device=item.device):
        return table
    return _raise(table, alerts.LinkDown(item.device, item.reason), fx, at=item.at)


def _device_restarted(table: Table, item: ti.DeviceRestarted, fx: list[Effect]) -> Table:
    lost = item.lost
    if lost is not None and lost < 0:
        raise Refused(told.Refuse.MALFORMED, f"device_restarted: lost {lost} is not 0 or more")
    if lost == 0:
        fx.append(told.Restarted(item.device))
        return table
    return _raise(table, alerts.EventsLost(item.device, lost), fx, at=item.at)


# Decisions and the hand -----------------------------------------------------------------


def paused_refusal(table: Table, item: TableInput) -> str | None:
    """Why ``table`` takes no ``item`` now because it is paused: a player's decision while
    a blocking alert is open (the action is suspended until the supervisor resolves the
    irregularity: docs/rules.md, "A pause stops the action"). None: the pause does not
    stop ``item`` (no pause, or not a decision: the remedies, a void, the devices' events
    go on). The service asks it before journaling a decision; the core refuses it in
    :func:`apply` too, in a replay as live."""
    if not isinstance(item, ti.Decide):
        return None
    blocking = next((alert for alert in table.alerts if table.blocks(alert)), None)
    if blocking is None:
        return None
    return (
        f"the table is paused ({blocking.message}): no decision is taken until the "
        f"supervisor resolves alert {blocking.id}"
    )


def _decide(table: Table, item: ti.Decide, fx: list[Effect]) -> Table:
    if not table.in_hand:
        raise Refused(told.Refuse.NO_HAND, "no hand in progress")
    paused = paused_refusal(table, item)
    if paused is not None:
        raise Refused(told.Refuse.PAUSED, paused)
    if item.do not in _PLAYER_DECISIONS:
        raise Refused(told.Refuse.NOT_A_DECISION, f"'{item.do}' is not a player's decision")
    if item.by is ti.By.PLAYER and not table.settings.player_decisions:
        raise Refused(
            told.Refuse.DEALER_DECIDES,
            "players do not enter their own decisions at this table: the dealer does",
        )
    action = Action(item.do, item.seat, item.to, item.accept)
    return _engine(table, action, item.at, fx)


def _new_hand(table: Table, item: ti.NewHand, fx: list[Effect]) -> Table:
    if table.in_hand:
        raise Refused(told.Refuse.HAND_IN_PROGRESS, f"hand {table.hand_number} is in progress")
    blocking = [alert for alert in table.alerts if table.blocks(alert)]
    if blocking:
        raise Refused(
            told.Refuse.ALERTS_OPEN, f"resolve the open alerts first: {blocking[0].message}"
        )
    if not table.deck_ready:
        raise Refused(told.Refuse.NO_DECK, "load a full deck of 52 first")
    if table.settings.seat_board and _open(
        table, AlertKind.LINK_DOWN, device=DeviceKind.SEAT_BOARD
    ):
        raise Refused(
            told.Refuse.SEAT_BOARD_DOWN,
            "the seat board is not connected: the next hand waits for it",
        )
    if table.streams.waiting:
        raise Refused(told.Refuse.REPORT_WAITS, "a card at a seat waits for the shoe's report")
    table = _collect_time(table, item.at, fx)
    players = table.eligible
    if len(players) < 2:
        raise Refused(
            told.Refuse.TOO_FEW_PLAYERS,
            f"a hand needs 2 players with chips sitting in (there are {len(players)})",
        )
    number = table.hand_number + 1
    stacks = {seat.seat: seat.stack for seat in players}
    step = start_hand(table.settings.rules, stacks)
    # the dealer pushed in; without a push, the signed-in dealer who started the hand
    dealer = table.dealer if table.dealer is not None else item.dealer
    fx.append(told.HandStarted(number, item.at, tuple(sorted(stacks)), dealer))
    fx.extend(step.effects)
    deck = None if table.deck is None else table.deck._replace(hands=table.deck.hands + 1)
    return table._replace(
        hand_number=number,
        hand=step.hand,
        hand_dealer=dealer,
        hand_log=(),
        deck_ready=False,
        unconfirmed=(),
        deck=deck,
    )


def _dealer_in(table: Table, item: ti.DealerIn, fx: list[Effect]) -> Table:
    """A dealer push: ``who`` deals from the next hand on; the hand in progress keeps the
    dealer it began with (its record names one dealer)."""
    if not item.who.strip():
        raise Refused(told.Refuse.WHO_NEEDED, "dealer_in: the dealer's id is needed")
    if item.who == table.dealer:
        raise Refused(
            told.Refuse.ALREADY_DEALER, f"dealer {item.who} is already the table's dealer"
        )
    fx.append(told.DealerIn(told.Words.of(item.who), table.dealer, table.in_hand))
    return table._replace(dealer=item.who)


# Seats ----------------------------------------------------------------------------------


def _seat_number(seat: int) -> int:
    if seat not in SEATS:
        raise Refused(told.Refuse.UNKNOWN_SEAT, f"seat {seat}: unknown seat (seats are 1 to 8)")
    return seat


def _seated(table: Table, number: int) -> Seat:
    seat = table.seat(_seat_number(number))
    if seat is None:
        raise Refused(told.Refuse.SEAT_EMPTY, f"seat {number}: no player is seated")
    return seat


def _not_in_hand(table: Table, seat: int, what: str) -> None:
    if table.in_play(seat):
        raise Refused(
            told.Refuse.SEAT_IN_HAND,
            f"seat {seat} is in hand {table.hand_number}: {what} after the hand",
        )


def _with_seat(table: Table, seat: Seat) -> Table:
    others = [s for s in table.seats if s.seat != seat.seat]
    return table._replace(seats=tuple(sorted([*others, seat])))


def _collect_time(table: Table, at: int, fx: list[Effect]) -> Table:
    """The time charge, at the first hand after each period boundary (``at``: the hand's
    input's time, ms): each player sitting in with chips who has not paid for the period
    ``at`` falls in pays ``time_charge`` from the stack into the drop box; a player whose
    stack is less sits out. Periods run from the Unix epoch, ``time_period`` minutes each
    (30: on the hour and the half hour, UTC)."""
    charge = table.settings.time_charge
    if not charge:
        return table
    period = at // (table.settings.time_period * 60_000)
    seats: list[Seat] = []
    collected = 0
    for seat in table.seats:
        due = not seat.sitting_out and seat.stack > 0
        if not due or (seat.paid_period is not None and seat.paid_period >= period):
            seats.append(seat)
        elif seat.stack < charge:
            fx.extend((told.TimeUnpaid(seat.seat, charge), told.SatOut(seat.seat)))
            seats.append(seat._replace(sitting_out=True))
        else:
            fx.append(told.TimeCharged(seat.seat, charge))
            seats.append(seat._replace(stack=seat.stack - charge, paid_period=period))
            collected += charge
    return table._replace(seats=tuple(seats), time_collected=table.time_collected + collected)


def _sit_down(table: Table, item: ti.SitDown, fx: list[Effect]) -> Table:
    seat = _seat_number(item.seat)
    if table.seat(seat) is not None:
        raise Refused(told.Refuse.SEAT_TAKEN, f"seat {seat} is taken")
    if not item.player.strip():
        raise Refused(told.Refuse.WHO_NEEDED, "sit down: the player needs a name")
    low, high = table.settings.min_buy_in, table.settings.max_buy_in
    if not low <= item.buy_in <= high:
        raise Refused(
            told.Refuse.BUY_IN_LIMIT,
            f"seat {seat}: a buy-in of {item.buy_in} is not within {low} to {high}",
        )
    fx.append(told.SatDown(seat, told.Words.of(item.player), item.buy_in))
    sitting = table.sittings + 1
    table = table._replace(bought_in=table.bought_in + item.buy_in, sittings=sitting)
    return _with_seat(
        table,
        Seat(
            seat,
            item.player,
            item.buy_in,
            sitting=sitting,
            since_hand=table.hand_number,
            player_id=item.player_id,
        ),
    )


def _sit_out(table: Table, item: ti.SitOut, fx: list[Effect]) -> Table:
    seat = _seated(table, item.seat)
    fx.append(told.SatOut(seat.seat))
    return _with_seat(table, seat._replace(sitting_out=True))


def _sit_in(table: Table, item: ti.SitIn, fx: list[Effect]) -> Table:
    seat = _seated(table, item.seat)
    fx.append(told.SatIn(seat.seat))
    return _with_seat(table, seat._replace(sitting_out=False))


def _leave(table: Table, item: ti.Leave, fx: list[Effect]) -> Table:
    seat = _seated(table, item.seat)
    _not_in_hand(table, seat.seat, "cash out")
    fx.append(told.CashedOut(seat.seat, told.Words.of(seat.player), seat.stack))
    return table._replace(
        seats=tuple(s for s in table.seats if s.seat != seat.seat),
        cashed_out=table.cashed_out + seat.stack,
    )


def _change_seat(table: Table, item: ti.ChangeSeat, fx: list[Effect]) -> Table:
    seat = _seated(table, item.seat)
    to = _seat_number(item.to)
    _not_in_hand(table, seat.seat, "change seats")
    if to == seat.seat:
        raise Refused(
            told.Refuse.SAME_SEAT, f"seat {seat.seat}: the player is at seat {to} already"
        )
    if table.seat(to) is not None:
        raise Refused(told.Refuse.SEAT_TAKEN, f"seat {to} is taken")
    fx.append(told.ChangedSeat(seat.seat, told.Words.of(seat.player), seat.stack, to))
    others = tuple(s for s in table.seats if s.seat != seat.seat)
    return _with_seat(table._replace(seats=others), seat._replace(seat=to))


def _rebuy(table: Table, item: ti.Rebuy, fx: list[Effect]) -> Table:
    seat = _seated(table, item.seat)
    _not_in_hand(table, seat.seat, "rebuy")
    high = table.settings.max_buy_in
    if item.chips <= 0:
        raise Refused(
            told.Refuse.BAD_AMOUNT,
            f"seat {seat.seat}: a rebuy of {item.chips} is not a positive number",
        )
    if seat.stack + item.chips > high:
        raise Refused(
            told.Refuse.BUY_IN_LIMIT,
            f"seat {seat.seat}: a rebuy of {item.chips} would make the stack "
            f"{seat.stack + item.chips}, over the maximum buy-in of {high}",
        )
    fx.append(told.Rebought(seat.seat, item.chips))
    table = table._replace(bought_in=table.bought_in + item.chips)
    return _with_seat(table, seat._replace(stack=seat.stack + item.chips))


def _acknowledge_alert(table: Table, item: ti.AcknowledgeAlert, fx: list[Effect]) -> Table:
    alert = table.alert(item.alert)
    if alert is None:
        raise Refused(told.Refuse.NO_ALERT, f"no open alert {item.alert}")
    if not item.who.strip():
        raise Refused(told.Refuse.WHO_NEEDED, "acknowledge_alert: who acknowledges is needed")
    if alert.acknowledged_by is not None:
        raise Refused(
            told.Refuse.ALREADY_ACKNOWLEDGED,
            f"alert {alert.id} is already acknowledged by {alert.acknowledged_by}",
        )
    fx.append(told.Acknowledged(alert.id, told.Words.of(item.who), table.blocks(alert)))
    seen = alert._replace(acknowledged_by=item.who, acknowledged_at=item.at)
    return table._replace(alerts=tuple(seen if a.id == alert.id else a for a in table.alerts))


def _sign_in_attack(table: Table, item: ti.SignInAttack, fx: list[Effect]) -> Table:
    """A sign-in attack, or an id locked (``SignInLocked``, blocking)."""
    if not item.who.strip() or not item.role.strip() or not item.clients.strip():
        raise Refused(
            told.Refuse.MALFORMED, f"{item.tag}: the role, the id and the addresses are needed"
        )
    if item.failures < 1 or item.window < 1:
        raise Refused(told.Refuse.MALFORMED, f"{item.tag}: failures and window are 1 or more")
    facts = alerts.SignInLocked if isinstance(item, ti.SignInLocked) else alerts.SignInAttack
    attack = facts(item.failures, item.role, item.who, item.window, item.clients)
    return _raise(table, attack, fx, at=item.at)


def _clock_stepped(table: Table, item: ti.ClockStepped, fx: list[Effect]) -> Table:
    """The journal's times jump by ``item.step`` from here: what the table times by them
    (the deck's life, the seat reports' wait) moves with them, so that no age jumps."""
    if item.step == 0:
        raise Refused(told.Refuse.MALFORMED, "clock_stepped: a step of 0 ms")
    deck, streams = table.deck, table.streams
    if deck is not None:
        table = table._replace(deck=deck._replace(since=deck.since + item.step))
    waiting = tuple(replace(report, at=report.at + item.step) for report in streams.waiting)
    table = table._replace(streams=streams._replace(waiting=waiting))
    return _raise(table, alerts.ClockStepped(item.step), fx, at=item.at)


def _configure(table: Table, item: ti.Configure, fx: list[Effect]) -> Table:
    if table.in_hand:
        raise Refused(
            told.Refuse.HAND_IN_PROGRESS,
            f"hand {table.hand_number} is in progress: configure between hands",
        )
    fx.append(told.Configured(item.settings))
    was, now = table.settings.serials, item.settings.serials
    kept = tuple(  # a serial accepted holds until the configuration names another
        (device, serial) for device, serial in table.accepted if now.of(device) == was.of(device)
    )
    return table._replace(settings=item.settings, accepted=kept)


# Supervisor actions ---------------------------------------------------------------------


def _signed(table: Table, item: ti.SupervisorInput, fx: list[Effect], **known: Any) -> None:
    """The supervisor's action, said with who and why (``known``: what the table knew of
    it, ``effects.Supervised``)."""
    _sign(table, item)
    fx.append(told.Supervised.of(item, **known))


def _sign(table: Table, item: ti.SupervisorInput) -> None:
    """A supervisor's action says who and why, and, where the house's two-person control
    covers it, the second supervisor who approved it (another than ``who``), or it is
    refused."""
    if not item.who.strip() or not item.why.strip():
        raise Refused(told.Refuse.WHO_NEEDED, f"{item.tag}: a supervisor action needs who and why")
    covered = second_needed(table, item)
    if covered is None:
        return
    if item.second is None or not item.second.strip():
        raise Refused(
            told.Refuse.SECOND_NEEDED,
            f"{covered.words} needs a second supervisor's approval (two-person control)",
        )
    if item.second == item.who:
        raise Refused(
            told.Refuse.SECOND_SAME,
            f"{covered.words} needs a second supervisor other than {item.who} (two-person control)",
        )


def second_needed(table: Table, item: ti.SupervisorInput) -> ti.Covered | None:
    """What of ``item`` the house's two-person control (``[protection] two_person``)
    covers; None: one supervisor is enough. It covers a void (the hand's, or an alert's
    remedy that voids the hand in progress), a card corrected to or from a wild card or a
    wild card entered (a four, where fours are wild: the four of clubs earns a bonus card)
    and a stack correction."""
    if not table.settings.protection.two_person:
        return None
    wild = table.settings.rules.wild
    match item:
        case ti.VoidHand():
            return ti.Covered.VOID
        case ti.ResolveAlert(remedy=Remedy.VOID | Remedy.REPLACE_DECK) if table.in_hand:
            return ti.Covered.VOID
        case ti.CorrectCard(wrong=wrong, right=right) if wild and 4 in (wrong.rank, right.rank):
            return ti.Covered.WILD_CORRECTION
        case ti.EnterCard(card=card) if wild and card.rank == 4:
            return ti.Covered.WILD_ENTERED
        case ti.CorrectStack():
            return ti.Covered.STACK_CORRECTION
    return None


def _void_hand(table: Table, item: ti.VoidHand, fx: list[Effect]) -> Table:
    if not table.in_hand:
        raise Refused(told.Refuse.NO_HAND, "no hand in progress to void")
    _signed(table, item, fx, hand=table.hand_number)
    return _void(table, item.at, fx)


def _void(table: Table, at: int, fx: list[Effect]) -> Table:
    """The hand in progress is void: every chip back, the hand's alerts closed."""
    table = _engine(table, Action(Do.VOID), at, fx)
    of_hand = [alert for alert in table.alerts if alert.rule.of_hand]
    return _clear(table, of_hand, Clearance.HAND_VOID, fx)


def _named(table: Table, card: Card, was: Card | None = None) -> Named | None:
    """Why ``card``, named by a supervisor (for the card in play as ``was``, correcting
    it), cannot be the card (None: it can): it is already in play; or the card corrected
    came out of the shoe with its own tag and the deck's tag of ``card`` has not come out.
    A card that left the shoe unread has no tag read to check: an entered card, or one
    whose own tag came out later (``card_in_play``: the card in play was another)."""
    if _known(table, card):
        return Named.IN_PLAY
    deck = _checked(table)
    if deck is None or was is None or deck.tags[was] not in deck.dealt:
        return None
    if _open(table, AlertKind.CARD_IN_PLAY, card=was):
        return None
    return None if deck.tags[card] in deck.dealt else Named.IN_SHOE


def _enter_card(table: Table, item: ti.EnterCard, fx: list[Effect]) -> Table:
    unread = _open(table, AlertKind.UNREAD_CARD)
    if not unread:
        raise Refused(told.Refuse.NO_UNREAD_CARD, "no unread card to enter")
    alert = unread[0]
    _sign(table, item)
    named = _named(table, item.card)
    if named is not None:  # not applied: the unread card's alert stays open
        return _raise(table, alerts.WrongCardNamed(item.card, named, item.who), fx, at=item.at)
    _signed(table, item, fx, alert=alert.id)
    table = _clear(table, [alert], Clearance.ENTERED, fx)
    if alert.due:
        return _give(table, item.card, item.at, fx, confirmed=False)
    return _out_of_turn(table, item.card, NotDue(Busy.UNREAD), item.at, fx)


def _correct_card(table: Table, item: ti.CorrectCard, fx: list[Effect]) -> Table:
    if not table.in_hand:
        raise Refused(told.Refuse.NO_HAND, "no hand in progress")
    log = table.hand_log
    dealt = corrections.dealt_at(log, item.wrong)
    if dealt is None:
        raise Refused(told.Refuse.NOT_DEALT, f"{item.wrong} was not dealt in this hand")
    if corrections.decided_after(log, dealt):
        raise Refused(
            told.Refuse.ACTED_ON, f"{item.wrong} has been acted on: void the hand instead"
        )
    if item.right == item.wrong:
        raise Refused(told.Refuse.SAME_CARD, f"{item.right} is the card read: nothing to correct")
    _sign(table, item)
    named = _named(table, item.right, item.wrong)
    if named is not None:  # not applied: every card stays as the table has it
        facts = alerts.WrongCardNamed(item.right, named, item.who, item.wrong)
        return _raise(table, facts, fx, at=item.at)
    _signed(table, item, fx)
    action = corrections.correction(Do.CORRECT, log, item.right, was=item.wrong)
    unconfirmed = tuple(
        Placement(p.seat, item.right) if p.card == item.wrong else p for p in table.unconfirmed
    )
    table = _corrected(table._replace(unconfirmed=unconfirmed), action, item.at, fx)
    seen = [  # the seat's reader saw the right card; or the supervisor named the shoe's card
        alert
        for alert in _open(table, AlertKind.CARD_MISMATCH)
        if item.right == alert.card or item.wrong == getattr(alert.facts, "read", None)
    ]
    confirmed = {Placement(alert.seat, item.right) for alert in seen}  # type: ignore[arg-type]  # a card_mismatch alert names its seat
    table = table._replace(unconfirmed=tuple(p for p in table.unconfirmed if p not in confirmed))
    table = _clear(table, seen, Clearance.CORRECTED, fx)
    copy = _open(table, AlertKind.CARD_IN_PLAY, card=item.wrong)[:1]
    if not copy:
        return table
    # the card read as a second copy of the misread card is that card: out of the shoe now
    table = _clear(table, copy, Clearance.NO_LONGER_IN_PLAY, fx)
    return _card_out(table, item.wrong, item.at, fx)


def _wrong_face(table: Table, item: ti.WrongFace, fx: list[Effect]) -> Table:
    if not table.in_hand:
        raise Refused(told.Refuse.NO_HAND, "no hand in progress")
    seat = _seat_number(item.seat)
    if not table.in_play(seat):
        raise Refused(told.Refuse.NOT_IN_HAND, f"seat {seat} is not in hand {table.hand_number}")
    hand = table.hand
    assert hand is not None
    dealt = hand.dealt(item.card)
    if dealt is None or hand.holder(item.card) != seat:
        raise Refused(told.Refuse.NOT_SEATS_CARD, f"{item.card} is not a card of seat {seat}")
    face_down = dealt.up and not dealt.exposed
    do = Do.DEALT_DOWN if face_down else Do.EXPOSE
    _signed(table, item, fx, face_down=face_down)
    action = corrections.correction(do, table.hand_log, item.card, seat=seat)
    return _corrected(table, action, item.at, fx)


def _corrected(table: Table, action: Action, at: int, fx: list[Effect]) -> Table:
    """The engine takes a correction: a bonus card it finds unearned is a dead card the
    dealer takes away (the table pauses until the supervisor says it is done); a misdeal
    clears the hand's alerts."""
    start = len(fx)
    table = _engine(table, action, at, fx)
    for effect in fx[start:]:
        if isinstance(effect, DeadCard):
            seat, card = effect.seat, effect.card
            gone = tuple(p for p in table.unconfirmed if p.card != card)
            table = _raise(table._replace(unconfirmed=gone), alerts.DeadCard(seat, card), fx, at=at)
    if table.hand is not None and table.hand.phase is Phase.VOID:
        of_hand = [alert for alert in table.alerts if alert.rule.of_hand]
        table = _clear(table, of_hand, Clearance.HAND_VOID, fx)
    return table


def _resolve_alert(table: Table, item: ti.ResolveAlert, fx: list[Effect]) -> Table:
    alert = table.alert(item.alert)
    if alert is None:
        raise Refused(told.Refuse.NO_ALERT, f"no open alert {item.alert}")
    remedies = ALERT_RULES[alert.kind].remedies
    if item.remedy not in remedies:
        if not remedies:
            raise Refused(
                told.Refuse.DEVICE_CLEARS,
                f"alert {alert.id} clears only when the device reports it",
            )
        allowed = ", ".join(remedy.value for remedy in remedies)
        raise Refused(
            told.Refuse.WRONG_REMEDY, f"alert {alert.id} ({alert.kind.value}) takes: {allowed}"
        )
    if item.remedy is Remedy.HOLD and alert.kind is AlertKind.CARD_MOVED:
        pass  # every card stays where the table has it: surveillance reviews
    elif item.remedy is Remedy.HOLD:
        if not table.in_hand:
            raise Refused(
                told.Refuse.NO_HAND,
                "no hand in progress to hold the card for: take it out of play",
            )
        assert alert.card is not None
        table = table._replace(held=(*table.held, alert.card))
    elif item.remedy is Remedy.DONE and alert.kind is AlertKind.DECK_DUE:
        table = _new_life(table, alert, item.at)
    elif item.remedy is Remedy.DONE and isinstance(alert.facts, alerts.DeviceReplaced):
        table = _accept(table, alert.facts)
    elif item.remedy is Remedy.DONE:
        table = _seen_in_place(table, alert)
    elif item.remedy is Remedy.VOID and not table.in_hand:
        raise Refused(told.Refuse.NO_HAND, "no hand in progress to void")
    _signed(table, item, fx)
    if item.remedy is Remedy.DEAD and table.in_hand and _left_shoe(alert):
        dead = Action(Do.DEAD, dealt=corrections.cards_dealt(table.hand_log))
        table = _engine(table, dead, item.at, fx)
    table = _clear(table, [alert], Clearance.RESOLVED, fx, who=item.who)
    if item.remedy is Remedy.REPLACE_DECK:
        return _replace_deck(table, item.at, fx)
    if item.remedy is Remedy.VOID:
        return _void(table, item.at, fx)
    return table


#: The alerts of a card that came out of the shoe and was not dealt to the hand.
_UNDEALT = frozenset(
    {
        AlertKind.CARD_OUT_OF_TURN,
        AlertKind.CARD_IN_PLAY,
        AlertKind.CARD_NOT_IN_DECK,
        AlertKind.UNREAD_CARD,
    }
)


def _left_shoe(alert: Alert) -> bool:
    """The alert is of a card out of the shoe that the hand was not dealt (a foreign card
    the shoe read, too): taken out of play (dead), it leaves the shoe one card short of what
    the hand counts, which the hand must know for a short deck on seventh street."""
    return alert.kind in _UNDEALT or (alert.kind is AlertKind.FOREIGN_CARD and alert.seat is None)


def _seen_in_place(table: Table, alert: Alert) -> Table:
    """The supervisor resolved an alert of a card at a seat (``done``): the card the shoe
    dealt there is where it belongs, as if the seat board had seen it there. A misplaced
    card was moved to its seat; where the seat's reader saw another card, the shoe was
    right. Any other card awaited is still awaited."""
    facts = alert.facts
    seen: Placement | None
    if isinstance(facts, alerts.CardMismatch):
        seen = Placement(facts.seat, facts.read)
    elif alert.kind in (AlertKind.MISPLACED_CARD, AlertKind.CARD_AT_EMPTY_SEAT):
        seen = next((p for p in table.unconfirmed if p.card == alert.card), None)
    else:
        return table
    return table._replace(unconfirmed=tuple(p for p in table.unconfirmed if p != seen))


def _accept(table: Table, facts: alerts.DeviceReplaced) -> Table:
    """The supervisor checked the device and accepts it: its serial is the one the table
    expects of that device from now on (until the configuration names another)."""
    others = tuple(pair for pair in table.accepted if pair[0] is not facts.device)
    return table._replace(accepted=tuple(sorted((*others, (facts.device, facts.serial)))))


def _new_life(table: Table, alert: Alert, at: int) -> Table:
    """The supervisor says a new deck is in (a ``deck_due`` alert resolved): at a table
    whose shoe registers tagged decks the table knows better, and waits for it."""
    deck = table.deck
    if deck is not None and deck.checked:
        raise Refused(
            told.Refuse.DECK_TAGGED,
            f"alert {alert.id} clears when the shoe registers a new deck: this table knows "
            "its decks by their tags",
        )
    if deck is None:
        return table
    return table._replace(deck=deck._replace(since=at, hands=0, due=False))


def _correct_stack(table: Table, item: ti.CorrectStack, fx: list[Effect]) -> Table:
    seat = _seated(table, item.seat)
    _not_in_hand(table, seat.seat, "correct the stack")
    if item.stack < 0:
        raise Refused(
            told.Refuse.BAD_AMOUNT, f"seat {seat.seat}: a stack of {item.stack} is not 0 or more"
        )
    _signed(table, item, fx, was=seat.stack)
    table = table._replace(corrected=table.corrected + item.stack - seat.stack)
    return _with_seat(table, seat._replace(stack=item.stack))


def _undo_decision(table: Table, item: ti.UndoDecision, fx: list[Effect]) -> Table:
    """The hand as it was before its last input, that decision: replayed from its start
    without it (docs/rules.md, "Undoing a decision")."""
    hand = table.hand
    if hand is None or not table.in_hand:
        raise Refused(
            told.Refuse.NO_HAND, "no hand in progress: a decision that ended the hand stands"
        )
    log = table.hand_log
    if not any(isinstance(entry, Action) and entry.do in corrections.DECISIONS for entry in log):
        raise Refused(told.Refuse.NOTHING_TO_UNDO, "no decision of this hand to undo")
    last = log[-1]
    if isinstance(last, Deal):
        raise Refused(
            told.Refuse.DECISION_STANDS,
            "a card has been dealt since the last decision: the decision stands",
        )
    if last.do not in corrections.DECISIONS:
        raise Refused(
            told.Refuse.DECISION_STANDS,
            f"the hand's last input is a {last.do.value}, not a decision: it stands",
        )
    if (last.seat, last.do) != (item.seat, item.do):
        raise Refused(
            told.Refuse.NOT_LAST_DECISION,
            f"the last decision is seat {last.seat}'s {last.do.value}, not seat "
            f"{item.seat}'s {item.do.value}",
        )
    if table.held or table.scramble_due:
        raise Refused(
            told.Refuse.DECISION_STANDS,
            "cards wait to be dealt or reloaded since the decision: it stands",
        )
    _signed(table, item, fx)
    before = replay(hand.rules, hand.starting_stacks(), log[:-1]).hand
    return table._replace(hand=before, hand_log=log[:-1])


def _tick(table: Table, item: ti.Tick, fx: list[Effect]) -> Table:
    return table  # time passed: what waits on it is decided after every input


_HANDLERS: dict[type[TableInput], _Handler] = {
    ti.FromDevice: _from_device,
    ti.LinkUp: _link_up,
    ti.LinkDown: _link_down,
    ti.DeviceRestarted: _device_restarted,
    ti.Tick: _tick,
    ti.Decide: _decide,
    ti.NewHand: _new_hand,
    ti.DealerIn: _dealer_in,
    ti.SitDown: _sit_down,
    ti.SitOut: _sit_out,
    ti.SitIn: _sit_in,
    ti.Leave: _leave,
    ti.ChangeSeat: _change_seat,
    ti.Rebuy: _rebuy,
    ti.AcknowledgeAlert: _acknowledge_alert,
    ti.SignInAttack: _sign_in_attack,
    ti.SignInLocked: _sign_in_attack,
    ti.ClockStepped: _clock_stepped,
    ti.Configure: _configure,
    ti.VoidHand: _void_hand,
    ti.EnterCard: _enter_card,
    ti.CorrectCard: _correct_card,
    ti.WrongFace: _wrong_face,
    ti.ResolveAlert: _resolve_alert,
    ti.CorrectStack: _correct_stack,
    ti.UndoDecision: _undo_decision,
}
