"""The rest of a hand's deal, as the engine deals it: the deal plans of the odds model.

The model (docs/odds.md): every card out of the shoe so far is known and out of the deck
(the engine's ``Hand.out``: cards in hands, folded and mucked ones included, the community
card, burns, dead cards); the cards still to come are a uniformly random order of the rest
(the *stub*); every player still in goes to the showdown (no folds predicted: the betting
to come is checks, and calls of what is already bet; a priced bonus card is bought when the
player can pay).

The deal to come is not modelled a second time here: it is read off the engine itself,
driven to the end of the deal with stand-in cards. What the engine deals depends on the
cards themselves only through the four of clubs: dealt face up to a seat on fourth to
sixth street it earns a bonus card, which also shortens the deck for seventh street (no
burn, the burns scrambled back, a community card). So the deal has one plan for each
face-up card to come before any scramble (the four of clubs as that card) and one for the
four of clubs anywhere else (``Plan.four_at`` None); plans agree card for card up to the
four of clubs, so the card's place in the shoe picks the plan.

A plan lists only the cards that reach a hand (a seat's card, the bonus card, the
community card), in the order they leave the shoe. Burns are left out: a burned card is a
uniformly random card of the stub removed unseen, so the cards after it are still a
uniformly random order of the rest; and when the burns are scrambled back, every burn
returns, the known ones (already read) and the ones still to come alike. Before a scramble
the plan's cards are the first cards of a random order of the stub (``Plan.before``); after
it (``Plan.after``) they come from a random order of what is left of the stub plus the
burns known now (``DealModel.burns``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import NamedTuple

from controller.rules.cards import Card
from controller.rules.effects import Effect, ShortDeck, Told
from controller.rules.hand import Hand
from controller.rules.inputs import Action, Deal, Do, IllegalInput
from controller.rules.state import FOUR_OF_CLUBS, Dest, Phase, Reveal
from controller.rules.waiting import Wait
from luck_errors import LuckTableError

#: The engine's notices the odds report (the deal to come, as the model takes it).
REPORTED_NOTICES = frozenset({Told.BONUS, Told.SHORT_DECK, Told.COMMUNITY, Told.SCRAMBLE})


class Seventh(StrEnum):
    """How seventh street is dealt in a plan (docs/rules.md, the short deck)."""

    USUAL = ""  # a burn, then a card to every player
    NO_BURN = "no_burn"
    SCRAMBLE = "scramble"  # no burn, the burn cards scrambled back into the stub
    COMMUNITY = "community"  # one community card


_STAND_IN_ORDER = tuple(Card(code) for code in range(52) if code != FOUR_OF_CLUBS)
_AUTO_DECISIONS = (Do.CHECK, Do.CALL, Do.BRING_IN)
_MAX_INPUTS = 1000  # a whole hand is about a hundred inputs: more is an engine fault


class OddsError(LuckTableError, ValueError):
    """A hand whose odds cannot be computed (void, or refused by the engine)."""


class Slot(NamedTuple):
    """A card of the deal to come that reaches a hand: to ``seat`` (face ``up`` or down,
    ``bonus`` for the bonus card), or the community card (``seat`` None)."""

    seat: int | None
    up: bool
    bonus: bool
    street: int


@dataclass(frozen=True, slots=True)
class Plan:
    """The rest of the deal when the four of clubs is the ``four_at``-th card of
    ``before`` (a card face up to a seat), or (``four_at`` None) anywhere else.

    ``before``: the cards from the stub, in order; ``after``: the cards from the burns
    scrambled back with the rest of the stub, if a scramble is to come. ``bonus_seat``:
    the seat that gets a bonus card in this plan. ``notices``: what the engine said of
    the bonus card and the short deck on the way, in order.
    """

    four_at: int | None
    before: tuple[Slot, ...]
    after: tuple[Slot, ...]
    scramble: bool
    bonus_seat: int | None
    notices: tuple[Effect, ...]
    short_deck: Seventh


@dataclass(frozen=True, slots=True)
class DealModel:
    """What is known of a hand, and every plan of the deal to come.

    ``seats``: the seats still in, in seat order; ``held``: each one's cards now (in the
    order dealt); ``community``: the community card if already dealt; ``stub``: the cards
    not yet seen (uniformly random order); ``burns``: the burn cards known now that a
    scramble would return to the stub; ``plans``: the plan with ``four_at`` None first,
    then one per face-up card to come (the four of clubs there), in deal order.
    """

    hand: Hand
    seats: tuple[int, ...]
    held: tuple[tuple[Card, ...], ...]
    community: Card | None
    stub: tuple[Card, ...]
    burns: tuple[Card, ...]
    plans: tuple[Plan, ...]

    @property
    def base(self) -> Plan:
        return self.plans[0]

    @property
    def four_unseen(self) -> bool:
        return FOUR_OF_CLUBS in self.stub

    def plan_by_position(self) -> list[int]:
        """For each place of the four of clubs in the stub's random order (0 first), the
        index in ``plans`` of the plan that deals the hand then."""
        chosen = [0] * len(self.stub)
        for index, plan in enumerate(self.plans[1:], start=1):
            assert plan.four_at is not None
            chosen[plan.four_at] = index
        return chosen


def deal_model(hand: Hand) -> DealModel:
    """The deal to come of ``hand`` (any point of a hand not void), from the engine."""
    if hand.phase is Phase.VOID:
        raise OddsError("the hand is void: every chip went back and there is nothing to win")
    live = [p for p in hand.players if not p.folded and p.reveal is not Reveal.MUCK]
    stub = tuple(Card(code) for code in range(52) if not hand.out >> code & 1)
    burns = () if hand.scrambled else hand.burns
    divide = hand.rules.wild and FOUR_OF_CLUBS in stub
    base, forks = _drive(hand, _Trace(hand), None, divide)
    plans = [base]
    for four_at, snapshot, trace in forks:
        plan, _ = _drive(snapshot, trace, four_at, False)
        plans.append(plan)
    return DealModel(
        hand=hand,
        seats=tuple(p.seat for p in live),
        held=tuple(p.own_cards for p in live),
        community=hand.community,
        stub=stub,
        burns=tuple(burns),
        plans=tuple(plans),
    )


@dataclass(frozen=True, slots=True)
class _Trace:
    """What a drive of the engine has recorded so far (immutable: forks share it)."""

    start: Hand
    before: tuple[Slot, ...] = ()
    after: tuple[Slot, ...] = ()
    notices: tuple[Effect, ...] = ()
    short_deck: Seventh = Seventh.USUAL
    bonus_seat: int | None = None

    def slot(self, hand: Hand, slot: Slot) -> _Trace:
        if hand.scrambled and not self.start.scrambled:
            return replace(self, after=(*self.after, slot))
        return replace(self, before=(*self.before, slot))

    def told(self, effects: tuple[Effect, ...]) -> _Trace:
        trace = self
        for effect in effects:
            if effect.kind not in REPORTED_NOTICES:
                continue
            trace = replace(trace, notices=(*trace.notices, effect))
            if isinstance(effect, ShortDeck):
                seventh = Seventh.SCRAMBLE if effect.scramble else Seventh.NO_BURN
                trace = replace(trace, short_deck=seventh)
            elif effect.kind == Told.COMMUNITY:
                trace = replace(trace, short_deck=Seventh.COMMUNITY)
        return trace


def _drive(
    hand: Hand, trace: _Trace, four_at: int | None, divide: bool
) -> tuple[Plan, list[tuple[int, Hand, _Trace]]]:
    """Drive the engine to the end of the deal with stand-in cards (the four of clubs as
    the ``four_at``-th card of the plan), recording the plan. With ``divide``, also
    return, for each face-up card to a seat before any scramble, the state and the trace
    just before it: where a plan with the four of clubs there begins."""
    forks: list[tuple[int, Hand, _Trace]] = []
    for _ in range(_MAX_INPUTS):
        waiting = hand.waiting_for
        dealt = hand.street == 7 and not hand.queue  # no card comes after seventh street's
        if waiting is None or dealt:
            return _plan(trace, four_at), forks
        if waiting.kind == Wait.CARD:
            if waiting.destination is Dest.BURN:
                card = _stand_in(hand, four=False)
            else:
                slot = Slot(
                    waiting.seat,
                    waiting.up,
                    waiting.destination is Dest.BONUS,
                    waiting.street,
                )
                position = len(trace.before)
                pre_scramble = not (hand.scrambled and not trace.start.scrambled)
                face_up = waiting.destination is Dest.SEAT and waiting.up and pre_scramble
                if divide and face_up:
                    forks.append((position, hand, trace))
                trace = trace.slot(hand, slot)
                card = _stand_in(hand, four=pre_scramble and position == four_at)
                if slot.bonus:
                    trace = replace(trace, bonus_seat=slot.seat)
            step = _apply(hand, Deal(card))
        elif waiting.kind == Wait.BONUS:
            step = _apply(hand, Action(Do.BONUS, seat=waiting.seat, accept=True))
        else:
            legal = {choice.do for choice in waiting.legal}
            do = next(do for do in _AUTO_DECISIONS if do in legal)
            step = _apply(hand, Action(do, seat=waiting.seat))
        hand = step.hand
        trace = trace.told(step.effects)
    raise AssertionError("the engine did not finish the deal")


def _apply(hand: Hand, item: Deal | Action) -> _Step:
    try:
        step = hand.apply(item)
    except IllegalInput as error:  # the engine refusing its own legal choice is a fault
        raise AssertionError(f"the engine refused {item}: {error}") from error
    return _Step(step.hand, step.effects)


class _Step(NamedTuple):
    hand: Hand
    effects: tuple[Effect, ...]


def _stand_in(hand: Hand, *, four: bool) -> Card:
    """A card the engine can take now: the four of clubs if ``four``, else the first other
    card not out (the four of clubs only when no other card is left)."""
    if four and not hand.out >> FOUR_OF_CLUBS & 1:
        return FOUR_OF_CLUBS
    for card in _available(hand):
        return card
    return FOUR_OF_CLUBS


def _available(hand: Hand) -> Iterator[Card]:
    return (card for card in _STAND_IN_ORDER if not hand.out >> card & 1)


def _plan(trace: _Trace, four_at: int | None) -> Plan:
    return Plan(
        four_at=four_at,
        before=trace.before,
        after=trace.after,
        scramble=bool(trace.after),
        bonus_seat=trace.bonus_seat,
        notices=trace.notices,
        short_deck=trace.short_deck,
    )
