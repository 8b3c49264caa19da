"""Side pots and splitting a pot.

``build_pots`` layers the chips every player put in (antes, bets, a bought bonus card)
at the totals of the players who are all-in. A player still in the hand with chips
behind is eligible for every pot; an all-in player only for the layers up to their own
total. A top layer that only one player can win is their uncalled bet. A layer that
nobody still in the hand can win (only folded players reached it) joins the pot below.

``split`` shares a pot among tied winners; the odd chips go one each to the winners in
the order given (the engine orders them by the ``odd_chip`` setting).
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.rules.state import Player, Pot


def build_pots(players: Sequence[Player]) -> tuple[Pot, ...]:
    totals = [p.total for p in players]
    live = [p for p in players if not p.folded]
    caps = sorted({p.total for p in live if p.stack == 0} | {max(totals)})
    pots: list[Pot] = []
    floor = 0
    for cap in caps:
        # what each player put in above the last cap, up to this one
        amount = sum([(cap if total > cap else total) - floor for total in totals if total > floor])
        eligible = tuple([p.seat for p in live if p.stack > 0 or p.total >= cap])
        floor = cap
        if amount == 0:
            continue
        if pots and (not eligible or pots[-1].eligible == eligible):
            pots[-1] = Pot(pots[-1].amount + amount, pots[-1].eligible)
        else:
            pots.append(Pot(amount, eligible))
    return tuple(pots)


def split(amount: int, winners_in_odd_chip_order: Sequence[int]) -> tuple[tuple[int, int], ...]:
    """Each winner's share as ``(seat, chips)``, in odd-chip order."""
    share, odd = divmod(amount, len(winners_in_odd_chip_order))
    return tuple(
        (seat, share + (1 if index < odd else 0))
        for index, seat in enumerate(winners_in_odd_chip_order)
    )
