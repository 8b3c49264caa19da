"""The odds of every seat still in: exact enumeration, or Monte Carlo with its standard error.

Both work on a :class:`~controller.odds.plan.DealModel` (the deal to come, read off the
engine) with NumPy, every hand valued by the engine's batch evaluator
(``evaluate_many``). For each deal, the best hand among the seats still in wins; equal
best hands tie. A seat's *equity* is its wins plus its share of ties (half of a two-way
tie, a third of a three-way one): the seats' equities sum to 1.

- **Exact**: every ordered draw of the cards that reach a hand, for every plan (where the
  four of clubs lands), each with its probability: ``1 / (n)_r`` for ``r`` cards drawn
  in order from a stub of ``n`` (and likewise from the pool after a scramble). Results
  are exact fractions. A seat whose hand takes at most three cards still to come is
  valued once per set of those cards (a table), not once per deal.
- **Monte Carlo**: deals drawn at random (NumPy's PCG64, seeded): a random order of the
  stub, the plan picked by the place of the four of clubs in it, and after a scramble a
  random order of the pool. Each estimate comes with its standard error (the standard
  deviation of the per-deal values over the square root of the number of deals).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from controller.odds.plan import DealModel, OddsError, Plan
from controller.rules.evaluator import evaluate_many
from controller.rules.state import FOUR_OF_CLUBS

TIE_UNIT = 840  # the least common multiple of 1..8: every tie share is a whole number of it
MAX_HAND = 8  # a seat's cards at the showdown, at most (its own and the community card)
_TABLE_LIMIT = 3  # a seat with more cards to come than this is valued deal by deal
_CHUNK = 1 << 18  # deals valued at a time (memory)

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class Tally:
    """Counts over deals (exact: weighted by each plan's probability, as fractions).

    ``win``: the seat alone had the best hand; ``tie``: it shared the best hand;
    ``equity``: wins plus shares of ties.
    """

    win: tuple[Fraction, ...]
    tie: tuple[Fraction, ...]
    equity: tuple[Fraction, ...]
    deals: int


@dataclass(frozen=True, slots=True)
class Estimate:
    """Monte Carlo estimates per seat, each a mean over ``deals`` with its standard error."""

    win: tuple[float, ...]
    tie: tuple[float, ...]
    equity: tuple[float, ...]
    win_error: tuple[float, ...]
    tie_error: tuple[float, ...]
    equity_error: tuple[float, ...]
    deals: int


def exact_deals(model: DealModel) -> int:
    """How many ordered draws the exact enumeration goes through."""
    return sum(_plan_deals(model, plan) for plan in model.plans)


def _plan_deals(model: DealModel, plan: Plan) -> int:
    n, drawn = len(model.stub), len(plan.before)
    count = math.perm(n - 1, drawn - 1) if plan.four_at is not None else math.perm(n, drawn)
    return count * math.perm(_pool_size(model, plan), len(plan.after))


def _pool_size(model: DealModel, plan: Plan) -> int:
    return len(model.stub) - len(plan.before) + len(model.burns)


def exact(model: DealModel) -> Tally:
    """Every deal to come, each with its probability: exact fractions."""
    seats = len(model.seats)
    win = [Fraction(0)] * seats
    tie = [Fraction(0)] * seats
    equity = [Fraction(0)] * seats
    stub = np.array(model.stub, dtype=np.int64)
    forks = [plan.four_at for plan in model.plans[1:]]
    for plan in model.plans:
        weight = Fraction(
            1,
            math.perm(len(stub), len(plan.before))
            * math.perm(_pool_size(model, plan), len(plan.after)),
        )
        wins, ties, shares = _tally_plan(model, plan, stub, forks)
        for seat in range(seats):
            win[seat] += weight * int(wins[seat])
            tie[seat] += weight * int(ties[seat])
            equity[seat] += weight * Fraction(int(shares[seat]), TIE_UNIT)
    return Tally(tuple(win), tuple(tie), tuple(equity), exact_deals(model))


def _tally_plan(
    model: DealModel, plan: Plan, stub: IntArray, forks: Sequence[int | None]
) -> tuple[IntArray, IntArray, IntArray]:
    """Wins, ties and tie shares (in TIE_UNITs) of each seat over every deal of ``plan``.

    When the plan's last card goes to a seat that gets no other card to come (seventh
    street's last card, no community card), the deals are enumerated without it: for
    each, the cards left are counted by how that seat's hand with them compares with the
    best of the others (a sorted table of its values), the cards already drawn taken out.
    """
    seats = len(model.seats)
    wins = np.zeros(seats, np.int64)
    ties = np.zeros(seats, np.int64)
    shares = np.zeros(seats, np.int64)
    last = _last_alone(model, plan, forks)
    if last is None:
        for draws in _draws(model, plan, stub, forks):
            counted = _count(_keys(model, plan, draws, range(seats)))
            wins += counted[0]
            ties += counted[1]
            shares += counted[2]
        return wins, ties, shares
    if plan.after:
        partial = replace(plan, after=plan.after[:-1])
        pool = np.array(sorted({*model.stub, *model.burns}), np.int64)
    else:
        partial = replace(plan, before=plan.before[:-1])
        pool = stub
    others = [index for index in range(seats) if index != last]
    values = np.zeros(52, np.int64)
    values[pool] = _by_hand(model, _fixed(model, last), pool.reshape(-1, 1))
    ordered = np.sort(values[pool])
    for draws in _draws(model, partial, stub, forks):
        keys = _keys(model, partial, draws, others)
        best = keys.max(axis=1)
        top = keys == best[:, None]
        count = top.sum(axis=1)
        used = values[draws]
        above = (
            len(pool) - np.searchsorted(ordered, best, "right") - (used > best[:, None]).sum(axis=1)
        )
        level = np.searchsorted(ordered, best, "right") - np.searchsorted(ordered, best, "left")
        level -= (used == best[:, None]).sum(axis=1)
        below = len(pool) - draws.shape[1] - above - level
        wins[last] += int(above.sum())
        ties[last] += int(level.sum())
        shares[last] += int((above * TIE_UNIT + level * (TIE_UNIT // (count + 1))).sum())
        alone = count == 1
        wins[others] += (top * (below * alone)[:, None]).sum(axis=0)
        ties[others] += (top * (level + below * ~alone)[:, None]).sum(axis=0)
        share = below * (TIE_UNIT // count) + level * (TIE_UNIT // (count + 1))
        shares[others] += (top * share[:, None]).sum(axis=0)
    return wins, ties, shares


def _last_alone(model: DealModel, plan: Plan, forks: Sequence[int | None]) -> int | None:
    """The index of the seat the plan's last card goes to, if that seat gets no other
    card to come, no community card is to come, at least one other seat is in, and the
    last card is not where the four of clubs would fork the deal."""
    slots = (*plan.before, *plan.after)
    if len(model.seats) < 2 or not slots or any(slot.seat is None for slot in slots):
        return None
    seat = slots[-1].seat
    if sum(slot.seat == seat for slot in slots) > 1:
        return None
    if not plan.after and plan.four_at is None and len(plan.before) - 1 in forks:
        return None
    return model.seats.index(seat)


def _draws(
    model: DealModel, plan: Plan, stub: IntArray, forks: Sequence[int | None]
) -> list[IntArray]:
    """Every ordered draw of ``plan``'s cards (rows of card codes, ``before`` then
    ``after``), in chunks; the base plan leaves out the four of clubs face up (another
    plan deals that)."""
    drawn = len(plan.before)
    if plan.four_at is None:
        before = stub[arrangements(len(stub), drawn)]
        if model.four_unseen and forks:
            columns = np.array(forks, dtype=np.intp)
            before = before[~(before[:, columns] == FOUR_OF_CLUBS).any(axis=1)]
    else:
        others = stub[stub != FOUR_OF_CLUBS]
        rest = others[arrangements(len(others), drawn - 1)]
        four = np.full((len(rest), 1), FOUR_OF_CLUBS, np.int64)
        before = np.hstack([rest[:, : plan.four_at], four, rest[:, plan.four_at :]])
    if not plan.after:
        return [before[start : start + _CHUNK] for start in range(0, len(before), _CHUNK)]
    pool = _pools(model, stub, before)
    picks = arrangements(pool.shape[1], len(plan.after))
    chunks = []
    step = max(1, _CHUNK // max(1, len(picks)))
    for start in range(0, len(before), step):
        rows = pool[start : start + step]
        after = rows[:, picks].reshape(-1, len(plan.after))
        head = np.repeat(before[start : start + step], len(picks), axis=0)
        chunks.append(np.hstack([head, after]))
    return chunks


def _pools(model: DealModel, stub: IntArray, before: IntArray) -> IntArray:
    """Per row of ``before``: the stub's cards not drawn, then the known burns."""
    if before.shape[1]:
        left = np.ones((len(before), len(stub)), bool)
        position = np.searchsorted(stub, before)
        np.put_along_axis(left, position, False, axis=1)
        rest = np.broadcast_to(stub, left.shape)[left].reshape(len(before), -1)
    else:
        rest = np.broadcast_to(stub, (len(before), len(stub)))
    burns = np.broadcast_to(np.array(model.burns, np.int64), (len(before), len(model.burns)))
    return np.hstack([rest, burns])


def arrangements(n: int, r: int) -> IntArray:
    """Every ordered choice of ``r`` distinct values of ``0..n-1``, in lexical order:
    shape ``(n!/(n-r)!, r)``."""
    out = np.zeros((1, 0), np.int64)
    for step in range(r):
        rows = len(out)
        free = np.ones((rows, n), bool)
        np.put_along_axis(free, out, False, axis=1)
        following = np.nonzero(free)[1].reshape(rows, n - step)
        out = np.hstack([np.repeat(out, n - step, axis=0), following.reshape(-1, 1)])
    return out


@dataclass(frozen=True, slots=True)
class Sample:
    """Random deals, grouped by plan: ``keys`` (one row per deal, one column per seat
    still in), ``hands`` (each seat's cards at the showdown: deals by seats by 8, -1
    padding) and ``plans`` (the index in ``model.plans`` of the plan that dealt each)."""

    keys: IntArray
    hands: IntArray
    plans: npt.NDArray[np.intp]


def sample(model: DealModel, rng: np.random.Generator, deals: int) -> Sample:
    """``deals`` random deals of the rest of the hand."""
    stub = np.array(model.stub, dtype=np.int64)
    order = rng.permuted(np.tile(stub, (deals, 1)), axis=1)
    chosen = np.zeros(deals, np.intp)
    if len(model.plans) > 1:
        where = np.argmax(order == FOUR_OF_CLUBS, axis=1)
        chosen = np.array(model.plan_by_position(), np.intp)[where]
        grouped = np.argsort(chosen, kind="stable")
        order, chosen = order[grouped], chosen[grouped]
    bounds = np.searchsorted(chosen, np.arange(len(model.plans) + 1))
    hands = np.empty((deals, len(model.seats), MAX_HAND), np.int64)
    burns = np.array(model.burns, np.int64)
    for index, plan in enumerate(model.plans):
        first, last = bounds[index], bounds[index + 1]
        if first == last:
            continue
        drawn = len(plan.before)
        draws = order[first:last, :drawn]
        if plan.after:
            rest = order[first:last, drawn:]
            pool = np.hstack([rest, np.broadcast_to(burns, (len(rest), len(burns)))])
            draws = np.hstack([draws, _some(rng, pool, len(plan.after))])
        _fill(hands[first:last], model, plan, draws)
    keys = evaluate_many(hands.reshape(-1, MAX_HAND), model.hand.rules)
    return Sample(keys.reshape(deals, len(model.seats)), hands, chosen)


def _some(rng: np.random.Generator, pool: IntArray, count: int) -> IntArray:
    """``count`` cards drawn in order from each row of ``pool``, uniformly at random (the
    first steps of a Fisher-Yates shuffle)."""
    pool = pool.copy()
    rows = np.arange(len(pool))
    for step in range(count):
        pick = step + (rng.random(len(pool)) * (pool.shape[1] - step)).astype(np.intp)
        chosen = pool[rows, pick]
        pool[rows, pick] = pool[:, step]
        pool[:, step] = chosen
    return pool[:, :count]


def _fill(hands: IntArray, model: DealModel, plan: Plan, draws: IntArray) -> None:
    """Every seat's cards at the showdown for each row of ``draws`` (the plan's cards, in
    order), into ``hands`` (rows, seats, 8; -1 pads a hand of fewer cards)."""
    known, seat, place, column = _layout(model, plan)
    hands[:] = known
    hands[:, seat, place] = draws[:, column]


def bonus_place(model: DealModel, plan: Plan) -> tuple[int, int] | None:
    """Where ``plan``'s bonus card (if it deals one) lies in the hands ``sample`` gives:
    the seat's index and the card's place in its hand."""
    _, seats, places, columns = _layout(model, plan)
    slots = (*plan.before, *plan.after)
    for seat, place, column in zip(seats, places, columns, strict=True):
        if slots[column].bonus:
            return int(seat), int(place)
    return None


def _layout(
    model: DealModel, plan: Plan
) -> tuple[IntArray, npt.NDArray[np.intp], npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Where each seat's cards come from: the cards known now (seats by 8, -1 padding),
    and for each card still to come, its seat, its place in the hand and its column in
    the plan's draws."""
    slots = (*plan.before, *plan.after)
    known = np.full((len(model.seats), MAX_HAND), -1, np.int64)
    seats: list[int] = []
    places: list[int] = []
    columns: list[int] = []
    for index, (seat, held) in enumerate(zip(model.seats, model.held, strict=True)):
        cards = [*held] if model.community is None else [*held, model.community]
        known[index, : len(cards)] = cards
        drawn = [column for column, slot in enumerate(slots) if slot.seat in (seat, None)]
        seats += [index] * len(drawn)
        places += range(len(cards), len(cards) + len(drawn))
        columns += drawn
    return known, *(np.array(values, np.intp) for values in (seats, places, columns))


def estimate(keys: IntArray) -> Estimate:
    """Win, tie and equity per seat, with standard errors, from sampled hand values."""
    best = keys.max(axis=1, keepdims=True)
    top = keys == best
    count = top.sum(axis=1, keepdims=True)
    values = (top & (count == 1), top & (count > 1), top / count)
    deals = len(keys)
    means = [tuple(float(v) for v in value.mean(axis=0)) for value in values]
    errors = [
        tuple(float(v) for v in value.std(axis=0, ddof=1) / math.sqrt(deals))
        if deals > 1
        else (math.inf,) * keys.shape[1]
        for value in values
    ]
    return Estimate(*means, *errors, deals=deals)


def _count(keys: IntArray) -> tuple[IntArray, IntArray, IntArray]:
    best = keys.max(axis=1, keepdims=True)
    top = keys == best
    count = top.sum(axis=1, keepdims=True)
    wins = (top & (count == 1)).sum(axis=0)
    ties = (top & (count > 1)).sum(axis=0)
    shares = (top * (TIE_UNIT // count)).sum(axis=0)
    return wins, ties, shares


def _fixed(model: DealModel, index: int) -> list[int]:
    """The cards of ``model.seats[index]`` known now, the community card included."""
    held = list(model.held[index])
    return held if model.community is None else [*held, model.community]


def _keys(model: DealModel, plan: Plan, draws: IntArray, which: Sequence[int] | range) -> IntArray:
    """The hand values of the seats ``which`` (indices into ``model.seats``) for each row
    of ``draws`` (the plan's cards, in order). A seat with at most three cards to come is
    valued once per set of them (a table), when that is fewer hands."""
    slots = (*plan.before, *plan.after)
    keys = np.empty((len(draws), len(which)), np.int64)
    for out, index in enumerate(which):
        seat = model.seats[index]
        columns = [column for column, slot in enumerate(slots) if slot.seat in (seat, None)]
        fixed = _fixed(model, index)
        if len(columns) <= _TABLE_LIMIT and len(draws) > 52 ** len(columns) // 8:
            keys[:, out] = _by_table(model, fixed, draws[:, columns])
        else:
            keys[:, out] = _by_hand(model, fixed, draws[:, columns])
    return keys


def _by_hand(model: DealModel, fixed: list[int], drawn: IntArray) -> IntArray:
    hands = np.full((len(drawn), MAX_HAND), -1, np.int64)
    hands[:, : len(fixed)] = fixed
    hands[:, len(fixed) : len(fixed) + drawn.shape[1]] = drawn
    return evaluate_many(hands, model.hand.rules)


def _by_table(model: DealModel, fixed: list[int], drawn: IntArray) -> IntArray:
    """Values of ``fixed`` plus each row of ``drawn``, valued once per set of cards: a
    table indexed by the drawn cards' codes."""
    width = drawn.shape[1]
    if width == 0:
        return np.full(len(drawn), _by_hand(model, fixed, drawn[:1])[0], np.int64)
    candidates = np.array(sorted({*model.stub, *model.burns}), np.int64)
    combos = candidates[arrangements(len(candidates), width)]
    table = np.zeros(52**width, np.int64)
    table[_table_index(combos)] = _by_hand(model, fixed, combos)
    return table[_table_index(drawn)]


def _table_index(cards: IntArray) -> IntArray:
    index = np.zeros(len(cards), np.int64)
    for column in range(cards.shape[1]):
        index = index * 52 + cards[:, column]
    return index


def check_deals(model: DealModel, deals: int, limit: int) -> None:
    """Refuse an exact enumeration beyond ``limit`` deals, saying how many it needs."""
    if deals > limit:
        raise OddsError(
            f"exact odds need {deals:,} deals here (more than {limit:,}): use Monte Carlo"
        )
    if not model.seats:
        raise OddsError("no seat is still in")
