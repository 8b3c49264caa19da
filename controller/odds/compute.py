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
  valued once per set of those cards (a table), not once per deal. Without a community
  card to come, one card per seat of the last stage is counted, not enumerated
  (``_tally_plan``).
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

from controller.odds.plan import DealModel, OddsError, Plan, Slot
from controller.rules.evaluator import evaluate_many
from controller.rules.state import FOUR_OF_CLUBS

TIE_UNIT = 840  # the least common multiple of 1..8: every tie share is a whole number of it
MAX_HAND = 8  # a seat's cards at the showdown, at most (its own and the community card)
_TABLE_LIMIT = 3  # a seat with more cards to come than this is valued deal by deal
_CHUNK = 1 << 18  # deals valued at a time (memory)
_COUNT_CELLS = 1 << 21  # counting cards: contests times sets of seats, or times seats and
# cards, at a time (memory)
_CELLS_PER_ROW = 64  # counting cards: the cells whose cost is about a row's (exact_work)

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


def _forks(model: DealModel) -> list[int]:
    """Where the four of clubs forks the deal: the places in the base plan's ``before``
    of the face-up cards whose plans follow it."""
    return [plan.four_at for plan in model.plans[1:] if plan.four_at is not None]


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
    forks = _forks(model)
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
    model: DealModel, plan: Plan, stub: IntArray, forks: Sequence[int]
) -> tuple[IntArray, IntArray, IntArray]:
    """Wins, ties and tie shares (in TIE_UNITs) of each seat over every deal of ``plan``.

    Without a community card to come, one card of the plan's last stage per seat (its
    *counted* card, ``_counted``) is not enumerated: for each draw of the other cards (a
    row), the ways to give the counted cards out of the cards left are counted
    (``_count_rows``). The cards of one stage (before or after a scramble) are a uniformly
    random ordered draw, so which of them are left to the end does not matter.
    """
    seats = len(model.seats)
    wins = np.zeros(seats, np.int64)
    ties = np.zeros(seats, np.int64)
    shares = np.zeros(seats, np.int64)
    counted = _counted(model, plan, forks)
    if not counted:
        for draws in _draws(model, plan, stub, forks):
            part = _count(_keys(model, plan, draws, range(seats)))
            wins += part[0]
            ties += part[1]
            shares += part[2]
        return wins, ties, shares
    partial, partial_forks = _uncounted(plan, counted, forks)
    stage = plan.after or plan.before
    players = [model.seats.index(stage[position].seat) for position in counted]
    pool = np.array(sorted({*model.stub, *model.burns}) if plan.after else model.stub, np.int64)
    contests = len(players) * len(pool) + 1  # a row's, about: its values (and its best)
    step = max(1, _COUNT_CELLS // (contests * max(1 << len(players), contests)))
    for draws in _draws(model, partial, stub, partial_forks):
        for first in range(0, len(draws), step):
            part = _count_rows(model, partial, draws[first : first + step], players, pool)
            wins += part[0]
            ties += part[1]
            shares += part[2]
    return wins, ties, shares


def _counted(model: DealModel, plan: Plan, forks: Sequence[int]) -> tuple[int, ...]:
    """The counted cards of ``plan``: for each seat that gets a card in the plan's last
    stage (``after`` if a scramble is to come, else ``before``), the place in the stage of
    its last card there that is not where the four of clubs forks the deal; none with a
    community card to come or a single seat in."""
    slots = (*plan.before, *plan.after)
    if len(model.seats) < 2 or any(slot.seat is None for slot in slots):
        return ()
    stage = plan.after or plan.before
    fixed = set() if plan.after else {*forks, plan.four_at}
    last: dict[int | None, int] = {}
    for position, slot in enumerate(stage):
        if position not in fixed:
            last[slot.seat] = position
    return tuple(sorted(last.values()))


def _uncounted(plan: Plan, counted: Sequence[int], forks: Sequence[int]) -> tuple[Plan, list[int]]:
    """The plan without its counted cards, and the four of clubs' forks in it."""
    if plan.after:
        return replace(plan, after=_without(plan.after, counted)), [*forks]

    def moved(position: int) -> int:
        return position - sum(place < position for place in counted)

    four_at = None if plan.four_at is None else moved(plan.four_at)
    partial = replace(plan, before=_without(plan.before, counted), four_at=four_at)
    return partial, [moved(fork) for fork in forks]


def _count_rows(
    model: DealModel, partial: Plan, rows: IntArray, players: Sequence[int], pool: IntArray
) -> tuple[IntArray, IntArray, IntArray]:
    """Wins, ties and tie shares of each seat over the deals of ``rows`` (draws of the
    plan without its counted cards), the counted cards to the seats ``players`` (indices
    into ``model.seats``, one card each) given out in every way from the cards of
    ``pool`` not in the row.

    A *contest* is a row, a value ``t`` and a set ``T`` of the counted seats: the counted
    seats in ``T`` make exactly ``t``, the others less. Its deals are the one-to-one
    assignments of cards left to seats, each seat's card among those allowed to it: they
    are counted card by card, the state being the set of seats served so far. Every deal
    is in exactly one contest (``t`` its best value, or the best of the seats with no
    counted card when no counted card beats it, ``T`` empty), which says who wins or ties.
    """
    seats, count = len(model.seats), len(players)
    slots = (*partial.before, *partial.after)
    taken = np.ones((len(rows), 52), bool)
    taken[:, pool] = False
    np.put_along_axis(taken, rows, True, axis=1)
    cards = np.nonzero(~taken)[1].reshape(len(rows), -1)  # the cards left, per row
    size = cards.shape[1]
    values = np.empty((len(rows), count, size), np.int64)
    for out, index in enumerate(players):
        columns = [column for column, slot in enumerate(slots) if slot.seat == model.seats[index]]
        drawn = np.hstack([np.repeat(rows[:, columns], size, axis=0), cards.reshape(-1, 1)])
        values[:, out] = _seat_values(model, index, drawn).reshape(len(rows), size)
    others = [index for index in range(seats) if index not in players]
    fixed = _keys(model, partial, rows, others)
    # -1: below every hand's value, when every seat has a counted card
    best = fixed.max(axis=1) if others else np.full(len(rows), -1, np.int64)
    row, target, within = _contests(values, best, bool(others))
    tied = target == best[row]  # the contest ties the seats with no counted card, if any
    own = values[row]
    allowed = np.where(
        within[:, :, None], own == target[:, None, None], own < target[:, None, None]
    )
    deals = _assignments(allowed.astype(np.int64))
    level = (fixed == best[:, None]).sum(axis=1)
    top = within.sum(axis=1) + tied * level[row]
    share = deals * (TIE_UNIT // top)
    alone = deals * (top == 1)
    shared = deals - alone
    wins = np.zeros(seats, np.int64)
    ties = np.zeros(seats, np.int64)
    shares = np.zeros(seats, np.int64)
    at_best = tied[:, None] & (fixed[row] == best[row, None])
    for group, where in ((players, within), (others, at_best)):
        wins[group] += alone @ where
        ties[group] += shared @ where
        shares[group] += share @ where
    return wins, ties, shares


def _contests(
    values: IntArray, best: IntArray, fixed: bool
) -> tuple[IntArray, IntArray, npt.NDArray[np.bool_]]:
    """The contests of ``_count_rows``: each row's distinct values of its counted seats
    (``values``: rows by seats by cards left) above its ``best`` value of the seats with
    no counted card, and that best value itself if there are such seats (``fixed``); each
    with every set of counted seats that can make it (none only for the best value
    itself). Returns each contest's row, value and set (contests by seats)."""
    rows, count, _ = values.shape
    flat = np.sort(values.reshape(rows, -1), axis=1)
    fresh = np.ones(flat.shape, bool)
    fresh[:, 1:] = flat[:, 1:] != flat[:, :-1]
    row, column = np.nonzero(fresh & (flat > best[:, None]))
    target = flat[row, column]
    if fixed:
        row = np.concatenate([row, np.arange(rows)])
        target = np.concatenate([target, best])
    makes = (values[row] == target[:, None, None]).any(axis=2)
    can = makes.astype(np.int64) @ (1 << np.arange(count))  # as a set of seats
    sets = np.arange(1 << count)
    subset = (sets[None, :] & ~can[:, None]) == 0
    contest, chosen = np.nonzero(subset & ((sets[None, :] > 0) | (target == best[row])[:, None]))
    within = (chosen[:, None] >> np.arange(count)) & 1 == 1
    return row[contest], target[contest], within


def _assignments(allowed: IntArray) -> IntArray:
    """For each contest, how many one-to-one assignments of cards to seats give each seat
    a card allowed to it (``allowed``: contests by seats by cards, 0 or 1): the cards are
    taken one by one, each to no seat or to a seat not served yet."""
    contests, count, size = allowed.shape
    sets = np.arange(1 << count)
    ways = np.zeros((contests, 1 << count), np.int64)
    ways[:, 0] = 1
    without = [sets[(sets >> seat) & 1 == 0] for seat in range(count)]
    for card in range(size):
        before = ways.copy()
        for seat in range(count):
            lacking = without[seat]
            ways[:, lacking | 1 << seat] += before[:, lacking] * allowed[:, seat, card, None]
    return ways[:, -1]


def exact_work(model: DealModel) -> int:
    """What the exact enumeration's time grows with: the rows it goes through, and where
    cards are counted rather than enumerated (``_tally_plan``), the hands valued and the
    cells of the counting for each row, in units of a row's cost."""
    forks = _forks(model)
    work = 0
    for plan in model.plans:
        counted = _counted(model, plan, forks)
        if not counted:
            work += _plan_deals(model, plan)
            continue
        rows = _plan_deals(model, _uncounted(plan, counted, forks)[0])
        count = len(counted)
        size = (_pool_size(model, plan) if plan.after else len(model.stub)) - (
            len(plan.after or plan.before) - count
        )
        contests = count * size + 1
        cells = contests * size * count << (count - 1)
        work += rows * (1 + count * size + cells // _CELLS_PER_ROW)
    return work


def _without(slots: tuple[Slot, ...], positions: Sequence[int]) -> tuple[Slot, ...]:
    return tuple(slot for place, slot in enumerate(slots) if place not in positions)


def _draws(model: DealModel, plan: Plan, stub: IntArray, forks: Sequence[int]) -> list[IntArray]:
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
    return known, np.array(seats, np.intp), np.array(places, np.intp), np.array(columns, np.intp)


def estimate(keys: IntArray) -> Estimate:
    """Win, tie and equity per seat, with standard errors, from sampled hand values."""
    best = keys.max(axis=1, keepdims=True)
    top = keys == best
    count = top.sum(axis=1, keepdims=True)
    values = (top & (count == 1), top & (count > 1), top / count)
    deals = len(keys)
    win, tie, equity = (tuple(float(v) for v in value.mean(axis=0)) for value in values)
    win_error, tie_error, equity_error = (
        tuple(float(v) for v in value.std(axis=0, ddof=1) / math.sqrt(deals))
        if deals > 1
        else (math.inf,) * keys.shape[1]
        for value in values
    )
    return Estimate(win, tie, equity, win_error, tie_error, equity_error, deals)


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
    held = [int(card) for card in model.held[index]]
    return held if model.community is None else [*held, int(model.community)]


def _keys(model: DealModel, plan: Plan, draws: IntArray, which: Sequence[int] | range) -> IntArray:
    """The hand values of the seats ``which`` (indices into ``model.seats``) for each row
    of ``draws`` (the plan's cards, in order). A seat with at most three cards to come is
    valued once per set of them (a table), when that is fewer hands."""
    slots = (*plan.before, *plan.after)
    keys = np.empty((len(which), len(draws)), np.int64).T  # each seat's values contiguous
    for out, index in enumerate(which):
        seat = model.seats[index]
        columns = [column for column, slot in enumerate(slots) if slot.seat in (seat, None)]
        keys[:, out] = _seat_values(model, index, draws[:, columns])
    return keys


def _seat_values(model: DealModel, index: int, drawn: IntArray) -> IntArray:
    """The values of ``model.seats[index]``'s hand with each row of ``drawn`` (its cards
    to come), by a table when that is fewer hands."""
    fixed = _fixed(model, index)
    if drawn.shape[1] <= _TABLE_LIMIT and len(drawn) > 52 ** drawn.shape[1] // 8:
        return _by_table(model, fixed, drawn)
    return _by_hand(model, fixed, drawn)


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


def check_deals(deals: int, work: int, limit: int) -> None:
    """Refuse an exact enumeration whose work (``exact_work``) is more than ``limit``,
    saying how many deals."""
    if work > limit:
        raise OddsError(
            f"exact odds need {deals:,} deals here (work {work:,}, more than {limit:,}): "
            "use Monte Carlo"
        )
