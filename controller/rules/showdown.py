"""Showdown and the pot award: who shows first, who may muck, each pot to its best hand and
the odd chips. The rules, with their sources: docs/rules.md ("Showdown and the pot award").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from controller.rules.betting import next_seat_from, with_player
from controller.rules.cards import Card
from controller.rules.effects import (
    AwardData,
    CardName,
    Effect,
    HouseTook,
    ManualShowdown,
    Mucks,
    SeatData,
    Told,
)
from controller.rules.evaluator import HandValue, evaluate
from controller.rules.pots import HouseTake, build_pots, house_take, split, take_from
from controller.rules.settings import OddChip, ShowdownMode
from controller.rules.state import HandState, Phase, Player, Pot, Reveal

H = TypeVar("H", bound=HandState)


def hand_value(hand: HandState, player: Player) -> HandValue:
    cards = player.own_cards
    if hand.community is not None:
        cards = (*cards, hand.community)
    return evaluate(cards, hand.rules)


def begin_showdown(hand: H, fx: list[Effect]) -> H:
    if hand.rules.showdown is ShowdownMode.AUTO:
        show = Reveal.SHOW
        players = tuple([p if p.folded else p.revealed(show) for p in hand.players])
        for player in players:
            if not player.folded:
                fx.append(Shows(hand, player))
        return award(hand._replace(players=players), fx)
    fx.append(ManualShowdown())
    return next_to_show(hand._replace(phase=Phase.SHOWDOWN), fx)


def showdown_start(hand: HandState) -> int:
    """Index of the player who shows first: the last aggressor, else the first to act."""
    if hand.aggressor is not None:
        return hand.aggressor
    assert hand.first is not None
    return hand.first


def may_muck(hand: HandState, index: int) -> bool:
    seat = hand.players[index].seat
    reveals = {p.seat: p.reveal for p in hand.players}
    return all(
        any(other != seat and reveals[other] is not Reveal.MUCK for other in pot.eligible)
        for pot in build_pots(hand.players)
        if seat in pot.eligible
    )


def next_to_show(hand: H, fx: list[Effect]) -> H:
    """Ask the next player in showdown order, tabling hands that cannot be mucked."""
    start = showdown_start(hand)
    while True:
        index = next_seat_from(hand.players, start, lambda p: not p.folded and p.reveal is None)
        if index is None:
            return award(hand._replace(actor=None), fx)
        if may_muck(hand, index):
            return hand._replace(actor=index)
        player = hand.players[index].revealed(Reveal.SHOW)
        hand = with_player(hand, index, player)
        fx.append(Shows(hand, player, last_contender=True))


def reveal(hand: H, index: int, choice: Reveal, fx: list[Effect]) -> H:
    player = hand.players[index].revealed(choice)
    hand = with_player(hand, index, player)
    if choice is Reveal.SHOW:
        fx.append(Shows(hand, player))
    else:
        fx.append(Mucks(player.seat))
    return next_to_show(hand, fx)


def award(hand: H, fx: list[Effect]) -> H:
    """Award every pot to the best hand among its contenders; the hand is complete."""
    players = list(hand.players)
    index_of = {p.seat: i for i, p in enumerate(players)}
    values = {
        p.seat: hand_value(hand, p) for p in players if not p.folded and p.reveal is not Reveal.MUCK
    }
    awarded: list[Pot] = []
    hand, pots = take_house(hand, build_pots(players), fx)
    for number, pot in enumerate(pots):
        contenders = [seat for seat in pot.eligible if seat in values]
        best = max(values[seat].key for seat in contenders)
        winners = [seat for seat in contenders if values[seat].key == best]
        if hand.rules.odd_chip is OddChip.HIGH_CARD_SUIT:
            winners.sort(key=lambda seat: max(players[index_of[seat]].own_cards), reverse=True)
        shares = split(pot.amount, winners)
        for seat, chips in shares:
            index = index_of[seat]
            players[index] = players[index].wins(chips)
        awarded.append(pot._replace(winners=tuple(sorted(winners)), shares=shares))
        side = None if len(pots) == 1 else number
        value = values[winners[0]]
        fx.append(Awarded(side, pot.amount, shares, value, len(contenders) > 1, pot.taken))
    return hand._replace(
        players=tuple(players), pots=tuple(awarded), phase=Phase.COMPLETE, actor=None
    )


def take_house(hand: H, pots: tuple[Pot, ...], fx: list[Effect]) -> tuple[H, tuple[Pot, ...]]:
    """The house's rake and jackpot drop taken from ``pots`` as the hand is settled (what
    it did not take yet told to the dealer first, to drop in the box before the pots are
    pushed): the hand with them, and the pots net of them."""
    take = house_take(hand.rules, hand.players, hand.street)
    hand = take_owed(hand, take, fx)
    return hand, take_from(pots, take.total) if take.total else pots


def take_owed(hand: H, owed: HouseTake, fx: list[Effect]) -> H:
    """The house takes what it is ``owed`` beyond what it took from this hand already
    (the pot only grows, so it never owes less); ``took``: what it takes now."""
    rake, drop = owed.rake - hand.rake, owed.jackpot_drop - hand.jackpot_drop
    assert rake >= 0 and drop >= 0, "the house never owes less than it took"
    if rake or drop:
        fx.append(HouseTook(rake, drop))
    return hand._replace(rake=owed.rake, jackpot_drop=owed.jackpot_drop, took=(rake, drop))


@dataclass(frozen=True, slots=True)
class Awarded(Effect):
    """A pot awarded at the showdown (``side``: None for the only pot, 0 for the main pot,
    N for side pot N) to the winners in ``shares``, with the winning ``value`` (named only
    when the pot was ``contested``); ``amount`` net of the house's take ``taken`` from it."""

    side: int | None
    amount: int
    shares: tuple[tuple[int, int], ...]
    value: HandValue
    contested: bool
    taken: int = 0

    kind = Told.AWARD

    def say(self, name: CardName = str) -> str:
        reason = self.value.description if self.contested else "no other contender"
        side = self.side
        pot = "pot" if side is None else "main pot" if side == 0 else f"side pot {side}"
        pot += f" of {self.amount}" + (f" ({self.taken} to the house)" if self.taken else "")
        shares = self.shares
        if len(shares) == 1:
            return f"{pot} to seat {shares[0][0]}: {reason}"
        parts = ", ".join(f"seat {seat} {chips}" for seat, chips in shares)
        return f"{pot} split: {parts}: {reason}"

    @property
    def data(self) -> AwardData:
        data: AwardData = {
            "amount": self.amount,
            "winners": [seat for seat, _ in self.shares],
            "shares": {str(seat): chips for seat, chips in self.shares},
        }
        if self.taken:
            data["taken"] = self.taken
        return data


class ShownData(SeatData):
    """The data of a hand tabled: the seat's own cards."""

    cards: list[str]


@dataclass(frozen=True, slots=True)
class Shows(Effect):
    """A hand tabled at the showdown (``last_contender``: without asking, the last
    contender for a pot); evaluated when worded, so that the hand is evaluated only once
    for the award."""

    hand: HandState
    player: Player
    last_contender: bool = False

    kind = Told.SHOW

    @property
    def cards(self) -> tuple[Card, ...]:
        community = self.hand.community
        return (*self.player.own_cards, *(() if community is None else (community,)))

    def say(self, name: CardName = str) -> str:
        hand, player = self.hand, self.player
        value = hand_value(hand, player)
        cards = " ".join(name(card) for card in player.own_cards)
        if hand.community is not None:
            cards += f" (community {name(hand.community)})"
        note = " (last contender: the hand is tabled)" if self.last_contender else ""
        return f"seat {player.seat} shows {cards}: {value.description}{note}"

    @property
    def data(self) -> ShownData:
        player = self.player
        return {"seat": player.seat, "cards": [str(card) for card in player.own_cards]}
