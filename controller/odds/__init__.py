"""The odds of a hand in progress: each seat's chance to win, to tie, and its equity.

Pure: no I/O. ``odds(hand)`` takes the engine's state at any point of a hand (as a hand
script or a table's history plays it) and returns an :class:`Odds`::

    result = odds(replay.hand)                       # exact if small enough, else Monte Carlo
    result = odds(hand, method=Method.EXACT)          # or refuse (OddsError) if too large
    result = odds(hand, samples=50_000, seed=7)       # Monte Carlo, a fixed number of deals

The model, the method and their limits: docs/odds.md. The deal to come is the engine's
own (``plan.py``); the counting is in ``compute.py``; the par sheet in ``par.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Literal, NotRequired, TypedDict

import numpy as np

from controller.odds.compute import (
    Estimate,
    Tally,
    check_deals,
    estimate,
    exact,
    exact_deals,
    exact_work,
    sample,
)
from controller.odds.plan import DealModel, OddsError, Plan, Slot, deal_model
from controller.rules.cards import Card
from controller.rules.effects import Told
from controller.rules.hand import Hand
from controller.rules.waiting import Wait

#: Exact whenever the enumeration's work (``compute.exact_work``: about one enumerated
#: row's cost a unit) is at most this (``Method.AUTO``; about a tenth of a second on the
#: machine of docs/performance.md).
AUTO_EXACT_WORK = 400_000
#: ``Method.EXACT`` refuses more work than this (minutes of work, gigabytes).
MAX_EXACT_WORK = 20_000_000
#: Monte Carlo by default: batches of this many deals until every seat's equity has a
#: standard error of at most TARGET_ERROR, or MAX_SAMPLES deals.
BATCH = 10_000
TARGET_ERROR = 0.0025
MAX_SAMPLES = 1_000_000
DEFAULT_SEED = 0

__all__ = [
    "AUTO_EXACT_WORK",
    "MAX_EXACT_WORK",
    "DealModel",
    "Method",
    "Odds",
    "OddsError",
    "OddsJson",
    "Plan",
    "SeatOdds",
    "SeatOddsJson",
    "Slot",
    "deal_model",
    "odds",
]


class Method(StrEnum):
    AUTO = "auto"  # exact when the deals to come are few enough, else Monte Carlo
    EXACT = "exact"
    MONTE_CARLO = "monte-carlo"


class CardJson(TypedDict):
    card: str
    face: Literal["up", "down"]


class ErrorsJson(TypedDict):
    """A seat's standard errors (Monte Carlo)."""

    win: float | None
    tie: float | None
    equity: float | None


class SeatOddsJson(TypedDict):
    cards: list[CardJson]
    win: float
    tie: float
    equity: float
    standard_error: NotRequired[ErrorsJson]


class OddsJson(TypedDict):
    """:meth:`Odds.to_json`: the odds as ``luck-table odds --json`` prints them and the
    studio's feed carries them (docs/odds.md), in this order; ``seed`` and
    ``standard_error`` with Monte Carlo only."""

    method: str
    deals: int
    seed: NotRequired[int | None]
    standard_error: NotRequired[float | None]
    unseen: int
    seats: dict[str, SeatOddsJson]
    notes: list[str]


@dataclass(frozen=True, slots=True)
class SeatOdds:
    """One seat still in: the probability to win outright, to tie for the best hand,
    and its equity (wins plus its share of ties); with Monte Carlo, each one's standard
    error. ``cards``: its cards now, in the order dealt, and which of them are up."""

    seat: int
    cards: tuple[Card, ...]
    up: tuple[bool, ...]
    win: float
    tie: float
    equity: float
    win_error: float | None = None
    tie_error: float | None = None
    equity_error: float | None = None


@dataclass(frozen=True, slots=True)
class Odds:
    """The odds of every seat still in, and how they were computed.

    ``method`` is ``exact`` (``deals``: the ordered draws enumerated; ``fractions``: the
    exact equities) or ``monte-carlo`` (``deals`` sampled with ``seed``;
    ``standard_error``: the largest of the seats' equity errors). ``notes`` say what the
    model takes for the deal to come (bonus card, short deck), in the dealer's words.
    """

    method: Method
    deals: int
    seats: tuple[SeatOdds, ...]
    notes: tuple[str, ...]
    unseen: int
    seed: int | None = None
    standard_error: float | None = None
    fractions: Tally | None = None

    def to_json(self) -> OddsJson:
        seats: dict[str, SeatOddsJson] = {}
        for seat in self.seats:
            entry: SeatOddsJson = {
                "cards": [
                    {"card": str(card), "face": "up" if up else "down"}
                    for card, up in zip(seat.cards, seat.up, strict=True)
                ],
                "win": seat.win,
                "tie": seat.tie,
                "equity": seat.equity,
            }
            if seat.equity_error is not None:
                entry["standard_error"] = {
                    "win": seat.win_error,
                    "tie": seat.tie_error,
                    "equity": seat.equity_error,
                }
            seats[str(seat.seat)] = entry
        if self.method is Method.MONTE_CARLO:
            return {
                "method": self.method.value,
                "deals": self.deals,
                "seed": self.seed,
                "standard_error": self.standard_error,
                "unseen": self.unseen,
                "seats": seats,
                "notes": list(self.notes),
            }
        return {
            "method": self.method.value,
            "deals": self.deals,
            "unseen": self.unseen,
            "seats": seats,
            "notes": list(self.notes),
        }


def odds(
    hand: Hand,
    method: Method = Method.AUTO,
    *,
    samples: int | None = None,
    seed: int = DEFAULT_SEED,
) -> Odds:
    """The odds of every seat still in ``hand`` (see the module's docstring).

    ``samples`` fixes the number of Monte Carlo deals (and implies Monte Carlo);
    without it, Monte Carlo deals until every equity's standard error is at most
    0.25 percentage points. Raises :class:`OddsError` for a void hand, or an exact
    enumeration too large to do.
    """
    if samples is not None and (samples < 2 or method is Method.EXACT):
        raise OddsError(
            "samples: at least 2 Monte Carlo deals"
            if samples < 2
            else "samples: the exact odds take no samples"
        )
    model = deal_model(hand)
    if len(model.seats) == 1:  # all others folded: nothing is left to chance
        one = (Fraction(1),)
        tally = Tally(one, (Fraction(0),), one, 1)
        seats = _seats(model, tally.win, tally.tie, tally.equity)
        return Odds(Method.EXACT, 1, seats, notes(model), len(model.stub), fractions=tally)
    deals, work = exact_deals(model), exact_work(model)
    if method is Method.EXACT or (
        method is Method.AUTO and samples is None and work <= AUTO_EXACT_WORK
    ):
        check_deals(deals, work, MAX_EXACT_WORK)
        tally = exact(model)
        seats = _seats(model, tally.win, tally.tie, tally.equity)
        return Odds(Method.EXACT, deals, seats, notes(model), len(model.stub), fractions=tally)
    rng = np.random.default_rng(seed)
    if samples is not None:
        result = estimate(sample(model, rng, samples).keys)
    else:
        result = _until_precise(model, rng)
    seats = _seats(model, result.win, result.tie, result.equity, result)
    error = max(result.equity_error)
    return Odds(Method.MONTE_CARLO, result.deals, seats, notes(model), len(model.stub), seed, error)


def _until_precise(model: DealModel, rng: np.random.Generator) -> Estimate:
    """Deal BATCH deals, then as many more as the standard errors seen say are needed
    (and again if still short), up to MAX_SAMPLES: the same seed gives the same deals."""
    batches = [sample(model, rng, BATCH).keys]
    result = estimate(batches[0])
    while max(result.equity_error) > TARGET_ERROR and result.deals < MAX_SAMPLES:
        wanted = result.deals * (max(result.equity_error) / TARGET_ERROR) ** 2 * 1.05
        more = min(
            MAX_SAMPLES - result.deals, max(1000, -(-int(wanted - result.deals) // 1000) * 1000)
        )
        batches.append(sample(model, rng, more).keys)
        result = estimate(np.vstack(batches))
    return result


def _seats(
    model: DealModel,
    win: tuple[float, ...] | tuple[Fraction, ...],
    tie: tuple[float, ...] | tuple[Fraction, ...],
    equity: tuple[float, ...] | tuple[Fraction, ...],
    errors: Estimate | None = None,
) -> tuple[SeatOdds, ...]:
    players = {player.seat: player for player in model.hand.players}
    out = []
    for index, seat in enumerate(model.seats):
        dealt = players[seat].cards
        out.append(
            SeatOdds(
                seat,
                tuple(d.card for d in dealt),
                tuple(d.up or d.exposed for d in dealt),
                float(win[index]),
                float(tie[index]),
                float(equity[index]),
                None if errors is None else errors.win_error[index],
                None if errors is None else errors.tie_error[index],
                None if errors is None else errors.equity_error[index],
            )
        )
    return tuple(out)


def notes(model: DealModel) -> tuple[str, ...]:
    """What the model takes for the rest of the hand, in words (the output says it)."""
    rules = model.hand.rules
    players = len(model.seats)
    said = [
        f"{len(model.stub)} cards unseen; every card out of the shoe is out of the deck",
        f"no folds: the {players} players still in go to the showdown"
        if players > 1
        else "one player is still in: the pot is theirs",
    ]
    if len(model.plans) > 1:
        said.append(
            "the four of clubs is unseen: dealt face up to a seat still in, it earns a bonus "
            "card face down"
            + (
                f" (price {rules.bonus_price}: the player is taken to buy it when they can pay)"
                if rules.bonus_price
                else ""
            )
        )
    base = model.base
    waiting = model.hand.waiting_for
    if waiting is not None and waiting.kind == Wait.BONUS:
        said.append(
            f"seat {waiting.seat} is taken to buy the bonus card on offer (price {waiting.price})"
        )
    elif base.bonus_seat is not None:
        said.append(f"seat {base.bonus_seat}'s bonus card is still to come")
    for notice in base.notices:
        said.append(f"the deal to come: {notice.message}")
    seen = set(base.notices)
    for plan in model.plans[1:]:
        for notice in plan.notices:  # what a bonus card does to the deal, not the bonus itself
            if notice not in seen and notice.kind != Told.BONUS:
                seen.add(notice)
                said.append(f"with a bonus card: {notice.message}")
    return tuple(said)
