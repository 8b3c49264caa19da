"""Side pots and splitting a pot.

``build_pots`` layers the chips every player put in (antes and bets) at the totals of
the players who are all-in. A player still in the hand with chips behind is eligible for
every pot; an all-in player only for the layers up to their own total. A top layer that
only one player can win is their uncalled bet. A layer that nobody still in the hand can
win (only folded players reached it) joins the pot below. The price of a bought bonus
card is dead money in the main pot, which every player still in contests: it is not part
of the buyer's contribution for the layers, and never an uncalled bet.

``split`` shares a pot among tied winners; the odd chips go one each to the winners in
the order given (the engine orders them by the ``odd_chip`` setting).

``house_take`` figures the house's rake and jackpot drop on the whole pot (docs/rules.md,
"The house's take"); ``take_from`` takes them from the pots, the main pot first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from controller.rules.settings import Rules
from controller.rules.state import Player, Pot


def build_pots(players: Sequence[Player]) -> tuple[Pot, ...]:
    stakes = [p.total - p.bonus_paid for p in players]  # what each put in as antes and bets
    live = [p for p in players if not p.folded]
    caps = sorted({p.total - p.bonus_paid for p in live if p.stack == 0} | {max(stakes)})
    pots: list[Pot] = []
    floor = 0
    for cap in caps:
        # what each player put in above the last cap, up to this one
        amount = sum((cap if stake > cap else stake) - floor for stake in stakes if stake > floor)
        eligible = tuple(p.seat for p in live if p.stack > 0 or p.total - p.bonus_paid >= cap)
        floor = cap
        if amount == 0:
            continue
        if pots and (not eligible or pots[-1].eligible == eligible):
            pots[-1] = Pot(pots[-1].amount + amount, pots[-1].eligible)
        else:
            pots.append(Pot(amount, eligible))
    dead = sum(p.bonus_paid for p in players)
    if dead:
        main = pots[0] if pots else Pot(0, tuple(p.seat for p in live))
        pots[:1] = [Pot(main.amount + dead, main.eligible)]
    return tuple(pots)


def split(amount: int, winners_in_odd_chip_order: Sequence[int]) -> tuple[tuple[int, int], ...]:
    """Each winner's share as ``(seat, chips)``, in odd-chip order."""
    share, odd = divmod(amount, len(winners_in_odd_chip_order))
    return tuple(
        (seat, share + (1 if index < odd else 0))
        for index, seat in enumerate(winners_in_odd_chip_order)
    )


class HouseTake(NamedTuple):
    """What the house takes from a hand's pot: the ``rake`` and the ``jackpot_drop``."""

    rake: int = 0
    jackpot_drop: int = 0

    @property
    def total(self) -> int:
        return self.rake + self.jackpot_drop


def uncalled_bet(players: Sequence[Player]) -> int:
    """The chips of the largest stake that nobody matched, going back to a player still
    in: not part of the pot the house takes from (a folded player's stake is won)."""
    ordered = sorted(players, key=lambda p: p.total - p.bonus_paid, reverse=True)
    top, second = ordered[0], ordered[1]
    if top.folded:
        return 0
    return (top.total - top.bonus_paid) - (second.total - second.bonus_paid)


def house_take(rules: Rules, players: Sequence[Player], street: int) -> HouseTake:
    """The rake and the jackpot drop of a hand that ends on ``street``: figured on the
    whole pot (every pot together, less an uncalled bet), nothing before ``rake_from``.
    The rake: ``rake_percent`` of the pot, rounded down to whole ``rake_step``s, at most
    ``rake_cap``. The drop: ``jackpot_drop`` from a pot of ``jackpot_drop_at`` or more,
    at most what the rake leaves."""
    if not rules.house_takes or street < rules.rake_from.street:
        return HouseTake()
    pot = sum(p.total for p in players) - uncalled_bet(players)
    step = rules.rake_step
    rake = min(rules.rake_cap, pot * rules.rake_percent // 100 // step * step)
    drop = 0
    if rules.jackpot_drop and pot >= rules.jackpot_drop_at:
        drop = min(rules.jackpot_drop, pot - rake)
    return HouseTake(rake, drop)


def take_from(pots: Sequence[Pot], chips: int) -> tuple[Pot, ...]:
    """The pots with ``chips`` taken from them: from the main pot first, then each side
    pot in order (each pot's ``amount`` net, its ``taken`` what went to the house)."""
    out = []
    for pot in pots:
        taken = min(chips, pot.amount)
        chips -= taken
        out.append(pot._replace(amount=pot.amount - taken, taken=taken))
    assert chips == 0, "the house takes no more than the pots hold"
    return tuple(out)
