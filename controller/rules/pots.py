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
"""

from __future__ import annotations

from collections.abc import Sequence

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
