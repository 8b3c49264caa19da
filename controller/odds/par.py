"""The par sheet: the exact category tables, whole hands played to the showdown,
counted, with confidence intervals, checked against the exact tables; the house's take.

Pure (no I/O): :func:`play` deals ``hands`` whole hands for a number of players with the
odds model's sampler (the engine's deal plans from the first card, nobody folding) and
counts what a broadcast director and a gaming regulator ask about; :func:`checks` compares
every category with the exact tables (:mod:`controller.odds.exact_counts`) and
:func:`verdict` judges them under Šidák's family-wise rule at :data:`ALPHA`; :func:`render`
writes the figures as Markdown (``luck-table par`` writes docs/par-sheet.md), with the
house's take (:class:`HouseTake`) the command measured.

What the exact tables check: each seat's seven regular cards (its own, less a bonus card,
the community card in place of a seventh-street card) are a uniformly random seven-card
hand; with the fours wild, a seat's whole hand is a uniformly random hand of its kind (7
of the 51 cards other than the four of clubs; the four of clubs and 6 of them; the four of
clubs and 7, its bonus card come); and with a free bonus card the four of clubs lands on
one of the 4 x players face-up cards with probability 4 x players / 52 exactly.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

from controller.odds.compute import Sample, bonus_place, sample
from controller.odds.exact_counts import BONUS, FOUR_DOWN, NO_FOUR, SEVEN, ExactTable, tables
from controller.odds.plan import DealModel, Seventh, deal_model
from controller.rules.evaluator import Category, evaluate_many
from controller.rules.hand import start_hand
from controller.rules.hand_tables import CATEGORY_SHIFT
from controller.rules.settings import Rules, Variant
from controller.rules.state import FOUR_OF_CLUBS

#: The groups of hands checked against the exact tables, in order: each seat's seven
#: regular cards; with the fours wild, each seat's whole hand by whether it holds the four
#: of clubs and whether its bonus card came.
GROUPS = (SEVEN, NO_FOUR, FOUR_DOWN, BONUS)
#: A seat's whole hand is of each kind in these shares of the hands, exactly (a bonus card
#: always taken): the four of clubs lies at one of 52 places, 4 of them the seat's face-up
#: cards of third to sixth street, 3 its face-down cards (or the community card).
KIND_SHARES = {NO_FOUR: 45 / 52, FOUR_DOWN: 3 / 52, BONUS: 4 / 52}
#: The family-wise error rate of the cross-checks: the chance that an honest deal and a
#: right evaluator fail any of them.
ALPHA = 0.001
SHORT_DECK = tuple(Seventh)
_CATEGORIES = tuple(Category)
_BATCH = 50_000
_Z = 1.959963984540054  # the 97.5th percentile of the normal distribution: 95% intervals
STACK = 1_000  # every player's stack: enough to buy a priced bonus card


@dataclass(frozen=True, slots=True)
class Rate:
    """``count`` of ``total``, with its 95% Wilson score interval."""

    count: int
    total: int

    @property
    def value(self) -> float:
        return self.count / self.total if self.total else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        n, p = self.total, self.value
        if not n:
            return 0.0, 1.0
        centre = (p + _Z**2 / (2 * n)) / (1 + _Z**2 / n)
        half = _Z * math.sqrt(p * (1 - p) / n + _Z**2 / (4 * n * n)) / (1 + _Z**2 / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    def z(self, expected: float) -> float:
        """How many standard errors ``value`` is from ``expected`` (0 when exact)."""
        spread = math.sqrt(expected * (1 - expected) / self.total) if self.total else 0.0
        return (self.value - expected) / spread if spread else 0.0


@dataclass(frozen=True, slots=True)
class GroupCount:
    """The hands of one group (:data:`GROUPS`) by category over ``deals`` deals: ``counts``
    (x: a deal's hands of the category), ``squares`` (the sum of x squared), ``cross`` (of x
    times n, a deal's hands of the group); ``hands`` (the sum of n) and ``hand_squares``
    (of n squared)."""

    name: str
    counts: tuple[int, ...]
    squares: tuple[int, ...]
    cross: tuple[int, ...]
    hands: int
    hand_squares: int

    def z(self, index: int, expected: float) -> float:
        """How many standard errors the share of category ``index`` is from ``expected``:
        the larger of the binomial standard error (hands independent) and the one measured
        between deals (a deal's hands share one deck, at 8 players the community card)."""
        return z_score(
            self.counts[index],
            self.hands,
            expected,
            squares=self.squares[index],
            cross=self.cross[index],
            total_squares=self.hand_squares,
        )


def z_score(
    count: int, total: int, expected: float, *, squares: int, cross: int, total_squares: int
) -> float:
    """``count`` of ``total`` against ``expected``, in standard errors: the larger of the
    binomial one and the cluster one (sum over deals of (x - expected n)^2, over total^2)."""
    if not total:
        return 0.0
    binomial = expected * (1 - expected) / total
    between = (squares - 2 * expected * cross + expected**2 * total_squares) / total**2
    spread = math.sqrt(max(binomial, between))
    difference = count / total - expected
    if spread:
        return difference / spread
    return 0.0 if not difference else math.copysign(math.inf, difference)


@dataclass(frozen=True, slots=True)
class TableCount:
    """What ``hands`` whole hands at ``players`` seats gave.

    ``wins``: deals by the winning hand's category (a split pot once); ``occurs``: the
    hands at the showdown by category (players x hands); ``groups``: the hands of each of
    :data:`GROUPS` counted by category (with the fours wild; only the seven regular cards
    without), with what a standard error between deals needs; ``bonus``: deals with a
    bonus card; ``five``: deals with at least one five of a kind; ``split``: deals with a
    split pot; ``short_deck``: deals by how seventh street was dealt (``""`` as usual);
    ``seat_share``: each seat's equity summed over the deals, with ``seat_square`` (sums
    of squares) for its interval.
    """

    players: int
    hands: int
    wins: tuple[int, ...]
    occurs: tuple[int, ...]
    groups: tuple[GroupCount, ...]
    bonus: int
    five: int
    split: int
    short_deck: tuple[int, ...]
    seat_share: tuple[float, ...]
    seat_square: tuple[float, ...]

    @property
    def seven(self) -> tuple[int, ...]:
        """Each seat's seven regular cards by category."""
        return self.groups[0].counts

    def rate(self, count: int, per_hand: bool = False) -> Rate:
        return Rate(count, self.hands * (self.players if per_hand else 1))

    def seat_interval(self, index: int) -> tuple[float, float, float]:
        """A seat's mean equity and its 95% interval."""
        mean = self.seat_share[index] / self.hands
        variance = max(0.0, self.seat_square[index] / self.hands - mean * mean)
        half = _Z * math.sqrt(variance / max(1, self.hands - 1))
        return mean, mean - half, mean + half


def play(players: int, hands: int, rules: Rules, rng: np.random.Generator) -> TableCount:
    """Deal ``hands`` whole hands at ``players`` seats (seats 1 to ``players``), nobody
    folding, a priced bonus card always bought."""
    hand = start_hand(rules, dict.fromkeys(range(1, players + 1), STACK)).hand
    model = deal_model(hand)
    size = len(_CATEGORIES)
    groups = len(GROUPS) if rules.wild else 1
    wins, occurs = np.zeros(size, np.int64), np.zeros(size, np.int64)
    counts, squares, cross = (np.zeros((groups, size), np.int64) for _ in range(3))
    seats, seat_squares = np.zeros(groups, np.int64), np.zeros(groups, np.int64)
    deck_ways = np.zeros(len(SHORT_DECK), np.int64)
    share, square = np.zeros(players), np.zeros(players)
    bonus = five = split = 0
    plan_bonus = np.array([plan.bonus_seat is not None for plan in model.plans])
    plan_deck = np.array([SHORT_DECK.index(plan.short_deck) for plan in model.plans])
    for start in range(0, hands, _BATCH):
        dealt = sample(model, rng, min(_BATCH, hands - start))
        categories = dealt.keys >> CATEGORY_SHIFT
        best = dealt.keys.max(axis=1)
        top = dealt.keys == best[:, None]
        count = top.sum(axis=1)
        wins += np.bincount(best >> CATEGORY_SHIFT, minlength=size)
        occurs += np.bincount(categories.ravel(), minlength=size)
        group = np.zeros(categories.shape, np.int64)
        category = _regular_seven(model, dealt, rules)
        if rules.wild:  # the whole hands too, each in its group by the four of clubs
            held = (dealt.hands == FOUR_OF_CLUBS).any(axis=2)
            eight = dealt.hands[:, :, -1] >= 0
            whole = np.where(held, np.where(eight, 3, 2), 1)
            group = np.concatenate([group, whole], axis=1)
            category = np.concatenate([category, categories], axis=1)
        per_deal = _per_deal(group * size + category, groups * size).reshape(-1, groups, size)
        in_group = per_deal.sum(axis=2)
        counts += per_deal.sum(axis=0)
        squares += (per_deal * per_deal).sum(axis=0)
        cross += (per_deal * in_group[:, :, None]).sum(axis=0)
        seats += in_group.sum(axis=0)
        seat_squares += (in_group * in_group).sum(axis=0)
        bonus += int(plan_bonus[dealt.plans].sum())
        deck_ways += np.bincount(plan_deck[dealt.plans], minlength=len(SHORT_DECK))
        five += int((categories == _CATEGORIES.index(Category.FIVE_OF_A_KIND)).any(axis=1).sum())
        split += int((count > 1).sum())
        equity = top / count[:, None]
        share += equity.sum(axis=0)
        square += (equity * equity).sum(axis=0)
    return TableCount(
        players,
        hands,
        tuple(int(v) for v in wins),
        tuple(int(v) for v in occurs),
        tuple(
            GroupCount(
                GROUPS[index],
                tuple(int(v) for v in counts[index]),
                tuple(int(v) for v in squares[index]),
                tuple(int(v) for v in cross[index]),
                int(seats[index]),
                int(seat_squares[index]),
            )
            for index in range(groups)
        ),
        bonus,
        five,
        split,
        tuple(int(v) for v in deck_ways),
        tuple(float(v) for v in share),
        tuple(float(v) for v in square),
    )


def _per_deal(codes: npt.NDArray[np.int64], width: int) -> npt.NDArray[np.int64]:
    """How many of each code (0 to ``width`` - 1) each row of ``codes`` holds."""
    rows = np.arange(len(codes))[:, None] * width
    flat = np.bincount((rows + codes).ravel(), minlength=len(codes) * width)
    return flat.reshape(len(codes), width)


def _regular_seven(model: DealModel, dealt: Sample, rules: Rules) -> npt.NDArray[np.int64]:
    """The category of each seat's seven regular cards (its hand less the bonus card)."""
    hands = dealt.hands.copy()
    for index, plan in enumerate(model.plans):
        where = bonus_place(model, plan)
        if where is not None:
            seat, place = where
            rows = dealt.plans == index
            hands[rows, seat, place:-1] = hands[rows, seat, place + 1 :]
            hands[rows, seat, -1] = -1
    keys = evaluate_many(hands.reshape(-1, hands.shape[2]), rules)
    return (keys >> CATEGORY_SHIFT).reshape(dealt.keys.shape)


def _percent(value: float) -> str:
    return f"{100 * value:.3f}%"


def _with_interval(rate: Rate) -> str:
    low, high = rate.interval
    return f"{_percent(rate.value)} ({_percent(low)} to {_percent(high)})"


@dataclass(frozen=True, slots=True)
class HouseTake:
    """The house's take, hand by hand: each finished hand's ``rakes`` and ``drops`` (the
    jackpot drop), over ``hours`` of play; ``source`` says where they come from and how the
    hours were had."""

    source: str
    rakes: tuple[int, ...]
    drops: tuple[int, ...]
    hours: float

    @property
    def hands(self) -> int:
        return len(self.rakes)

    def per_hand(self, values: Sequence[int]) -> tuple[float, float, float]:
        """The mean per hand and its 95% interval (normal, from the hands' spread)."""
        if not values:
            return 0.0, 0.0, 0.0
        mean = sum(values) / len(values)
        variance = sum((value - mean) ** 2 for value in values) / max(1, len(values) - 1)
        half = _Z * math.sqrt(variance / len(values))
        return mean, mean - half, mean + half

    def per_hour(self, values: Sequence[int]) -> float:
        return sum(values) / self.hours if self.hours > 0 else 0.0


def _house_section(takes: Sequence[HouseTake]) -> list[str]:
    lines = [
        "",
        "## The house's take",
        "",
        "The game is played player against player: the house's revenue is what it takes "
        "from the pots, the rake and the jackpot drop (docs/rules.md), hand by hand. Per "
        "hand: the mean over every finished hand (a hand that pays none counts as 0), with "
        "its 95% interval; per hour: the chips over the hours of play. From a journal, "
        "the hours from the first hand's start to the last hand's end, breaks included; "
        "from the simulated table (`luck-table sim`'s table core and seeded players at "
        "these settings, who fold, bet and raise), the hours a live dealer would take, at "
        "`luck-table sim`'s live pace (0.6 s a card, 0.9 s a decision, 2 s between hands).",
        "",
        "| source | hands | raked | rake per hand | drop per hand | hands per hour "
        "| rake per hour | drop per hour |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for take in takes:
        raked = sum(1 for rake in take.rakes if rake)
        rake, rake_low, rake_high = take.per_hand(take.rakes)
        drop, drop_low, drop_high = take.per_hand(take.drops)
        hands_per_hour = take.hands / take.hours if take.hours > 0 else 0.0
        lines.append(
            f"| {take.source} | {take.hands:,} | {raked:,} "
            f"({_percent(raked / max(1, take.hands))}) "
            f"| {rake:.2f} ({rake_low:.2f} to {rake_high:.2f}) "
            f"| {drop:.2f} ({drop_low:.2f} to {drop_high:.2f}) | {hands_per_hour:,.1f} "
            f"| {take.per_hour(take.rakes):,.1f} | {take.per_hour(take.drops):,.1f} |"
        )
    return lines


def render(
    counts: Sequence[TableCount],
    rules: Rules,
    seed: int,
    command: str,
    version: str,
    *,
    house: Sequence[HouseTake] = (),
) -> str:
    """The par sheet as Markdown; ``house``: the house's take, measured or simulated."""
    variant = rules.variant
    lines = [
        "# Par sheet",
        "",
        f"Generated by `{command}` (luck-table {version}); the same command gives the "
        "same figures. Written by `luck-table par`: do not edit by hand.",
        "",
        "The exact tables come first: counts over every hand, no sampling. Every other "
        "figure is a count over whole hands dealt by the engine's own deal "
        "(docs/odds.md: the deal to come is read off the hand engine), from a uniformly "
        "random order of one 52-card deck, with every player staying to the showdown "
        "(no folds) and a priced bonus card always bought; the cross-checks compare "
        "these with the exact tables. Intervals are 95% Wilson score intervals.",
        "",
        "## The game and its settings",
        "",
        "| setting | value |",
        "| --- | --- |",
    ]
    lines += [
        f"| `{name}` | `{value if isinstance(value, str) else json.dumps(value)}` |"
        for name, value in rules.to_json().items()
    ]
    lines += _exact_section(rules)
    lines += [
        "",
        "## Summary",
        "",
        f"Random numbers: NumPy's PCG64, seed {seed} (one stream for all player counts, in order).",
        "",
        "| players | hands | bonus card dealt | five of a kind (a deal) | split pot |",
        "| --- | --- | --- | --- | --- |",
    ]
    for count in counts:
        lines.append(
            f"| {count.players} | {count.hands:,} | {_with_interval(count.rate(count.bonus))} "
            f"| {_with_interval(count.rate(count.five))} "
            f"| {_with_interval(count.rate(count.split))} |"
        )
    for count in counts:
        lines += _players_section(count, variant, whole_shares(rules))
    lines += _cross_checks(counts, rules)
    if house:
        lines += _house_section(house)
    lines += _approval(counts, rules)
    return "\n".join(lines) + "\n"


def _players_section(count: TableCount, variant: Variant, exact: Sequence[float]) -> list[str]:
    lines = [
        "",
        f"## {count.players} players",
        "",
        f"{count.hands:,} hands. The winning hand is the best hand at the showdown (a split "
        "pot counts once); a hand at the showdown is every player's (players x hands), "
        "whose exact share is the exact tables' (a whole hand).",
        "",
        "| category | wins | occurs | occurs, exact |",
        "| --- | --- | --- | --- |",
    ]
    for index in reversed(range(len(_CATEGORIES))):
        category = _CATEGORIES[index]
        if variant is Variant.SEVEN_CARD_STUD and category is Category.FIVE_OF_A_KIND:
            continue
        wins = count.rate(count.wins[index])
        occurs = count.rate(count.occurs[index], per_hand=True)
        name = category.value.replace("_", " ")
        lines.append(
            f"| {name} | {_with_interval(wins)} | {_with_interval(occurs)} "
            f"| {_percent(exact[index])} |"
        )
    lines += [
        "",
        f"Bonus card dealt: {_with_interval(count.rate(count.bonus))}. "
        f"Five of a kind: in {_with_interval(count.rate(count.five))} of the deals.",
    ]
    if count.players >= 7:
        ways = dict(zip(SHORT_DECK, count.short_deck, strict=True))
        lines += [
            "",
            "Seventh street (the short deck): "
            f"as usual {_with_interval(count.rate(ways[Seventh.USUAL]))}; "
            f"no burn {_with_interval(count.rate(ways[Seventh.NO_BURN]))}; "
            f"the burns scrambled back {_with_interval(count.rate(ways[Seventh.SCRAMBLE]))}; "
            f"a community card {_with_interval(count.rate(ways[Seventh.COMMUNITY]))}.",
        ]
    lines += ["", "Each seat's share of the pots (equity), fair if all are equal:", ""]
    lines += ["| seat | share |", "| --- | --- |"]
    for index in range(count.players):
        mean, low, high = count.seat_interval(index)
        lines.append(f"| {index + 1} | {_percent(mean)} ({_percent(low)} to {_percent(high)}) |")
    return lines


@dataclass(frozen=True, slots=True)
class Check:
    """One comparison of the simulation with an exact figure: ``count`` of ``total`` in
    ``what`` (a group of :data:`GROUPS` and a category, or ``bonus`` per deal, or
    ``four_down`` per seat) against ``expected``, ``z`` standard errors away. An expected
    share of 0 is exact: one such hand seen fails it whatever the threshold."""

    players: int
    what: str
    category: Category | None
    count: int
    total: int
    expected: float
    z: float

    @property
    def impossible(self) -> bool:
        return self.expected == 0.0

    def passes(self, threshold: float) -> bool:
        return self.count == 0 if self.impossible else abs(self.z) <= threshold


def checks(counts: Sequence[TableCount], rules: Rules) -> list[Check]:
    """Every comparison of ``counts`` with the exact tables and rates."""
    exact = tables(rules.wild)
    found = []
    for count in counts:
        for group in count.groups:
            table = exact[group.name]
            for index, category in enumerate(_CATEGORIES):
                expected = table.counts[index] / table.total
                found.append(
                    Check(
                        count.players,
                        group.name,
                        category,
                        group.counts[index],
                        group.hands,
                        expected,
                        group.z(index, expected),
                    )
                )
        if rules.wild:
            expected = 4 * count.players / 52
            found.append(
                Check(
                    count.players,
                    "bonus",
                    None,
                    count.bonus,
                    count.hands,
                    expected,
                    count.rate(count.bonus).z(expected),
                )
            )
            down = count.groups[GROUPS.index(FOUR_DOWN)]
            seats = count.players * count.hands
            share = KIND_SHARES[FOUR_DOWN]
            z = z_score(
                down.hands,
                seats,
                share,
                squares=down.hand_squares,
                cross=count.players * down.hands,
                total_squares=count.hands * count.players**2,
            )
            found.append(Check(count.players, "four_down", None, down.hands, seats, share, z))
    return found


def threshold(comparisons: int, alpha: float = ALPHA) -> float:
    """Šidák's threshold: |z| above it fails one of ``comparisons`` two-sided tests with
    chance 1 - (1 - alpha) ** (1 / comparisons), so that an honest run fails any of them
    with chance at most ``alpha``."""
    each = -math.expm1(math.log1p(-alpha) / max(1, comparisons))
    return NormalDist().inv_cdf(1 - each / 2)


def verdict(found: Sequence[Check], alpha: float = ALPHA) -> tuple[float, int, list[Check]]:
    """The threshold, the number of statistical comparisons and the checks that fail."""
    comparisons = sum(not check.impossible for check in found)
    limit = threshold(comparisons, alpha)
    return limit, comparisons, [check for check in found if not check.passes(limit)]


_GROUP_NAMES = {
    SEVEN: "seven cards of 52",
    NO_FOUR: "whole hand: 7 of the 51 other cards",
    FOUR_DOWN: "whole hand: the 4c and 6 others",
    BONUS: "whole hand: the 4c and 7 others (the bonus card)",
}


def _name(category: Category) -> str:
    return category.value.replace("_", " ")


def _count_percent(count: int, total: int) -> str:
    return f"{count:,} | {100 * count / total:.4f}%"


def _exact_section(rules: Rules) -> list[str]:
    exact = tables(rules.wild)
    seven = exact[SEVEN]
    lines = [
        "",
        "## Exact tables",
        "",
        "Counted exactly, by enumerating rank counts and suits (`controller/odds/exact_counts.py`: "
        "from the definitions of the categories, not with the evaluator the simulation uses): "
        "each hand counts in its best category, its best five cards of the seven or eight. "
        f"Seven cards of 52: {seven.total:,} hands (C(52,7)).",
        "",
    ]
    if not rules.wild:
        lines += ["| category | hands | share |", "| --- | --- | --- |"]
        for index in reversed(range(len(_CATEGORIES) - 1)):
            held = _count_percent(seven.counts[index], seven.total)
            lines.append(f"| {_name(_CATEGORIES[index])} | {held} |")
        return lines + _inversions("seven cards of 52", _shares(seven), seven.counts)
    kinds = [exact[name] for name in (NO_FOUR, FOUR_DOWN, BONUS)]
    lines += [
        "A player's whole hand is seven cards, eight with a bonus card; the four of clubs is "
        "in it as the seat's face-down card (or the community card), 3 in 52 of the hands, "
        "or face up, 4 in 52, when it earns the bonus card. So a whole hand is of one of "
        f"three kinds: 7 of the 51 cards other than the 4c (C(51,7) = {kinds[0].total:,}, "
        f"45 in 52), the 4c and 6 of the 51 (C(51,6) = {kinds[1].total:,}, 3 in 52), the 4c "
        f"and 7 of the 51 ({kinds[2].total:,}, 4 in 52). The last column weighs them so: "
        "a seat's whole hand at the showdown, every player in and the bonus card taken.",
        "",
        "| category | seven cards of 52 | share | 7 of the 51 other cards | share "
        "| the 4c and 6 | share | the 4c and 7 | share | a whole hand |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    whole = whole_shares(rules)
    for index in reversed(range(len(_CATEGORIES))):
        cells = [_count_percent(table.counts[index], table.total) for table in (seven, *kinds)]
        lines.append(
            f"| {_name(_CATEGORIES[index])} | {' | '.join(cells)} | {_percent(whole[index])} |"
        )
    return (
        lines
        + _inversions("seven cards of 52", _shares(seven), seven.counts)
        + _inversions("a whole hand (the last column)", whole, None)
    )


def whole_shares(rules: Rules) -> list[float]:
    """The exact share of each category (by code) of a seat's whole hand at the showdown,
    every player in and a bonus card taken: with the fours wild the three kinds weighed by
    :data:`KIND_SHARES`, else seven cards of 52."""
    exact = tables(rules.wild)
    if not rules.wild:
        return _shares(exact[SEVEN])
    return [
        sum(
            share * exact[name].counts[index] / exact[name].total
            for name, share in KIND_SHARES.items()
        )
        for index in range(len(_CATEGORIES))
    ]


def _shares(table: ExactTable) -> list[float]:
    return [count / table.total for count in table.counts]


def inversions(shares: Sequence[float]) -> list[tuple[int, list[int]]]:
    """Each category code with the codes below it in rank that are rarer (by share)."""
    found = []
    for high in reversed(range(len(shares))):
        rarer = [low for low in reversed(range(high)) if shares[low] < shares[high]]
        if rarer:
            found.append((high, rarer))
    return found


def _inversions(what: str, shares: Sequence[float], counts: Sequence[int] | None) -> list[str]:
    def shown(code: int) -> str:
        held = f"{counts[code]:,}, " if counts is not None else ""
        return f"{_name(_CATEGORIES[code])} ({held}{_percent(shares[code])})"

    lines = [
        "",
        f"Ranking inversions, {what}: each category here ranks above the ones it is listed "
        "with, yet more hands make it (hands rank in the usual order, not by how rare "
        "they are):",
        "",
    ]
    for high, rarer in inversions(shares):
        lines.append(f"- {shown(high)} is more common than {_listed(list(map(shown, rarer)))}")
    return lines


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _cross_checks(counts: Sequence[TableCount], rules: Rules) -> list[str]:
    found = checks(counts, rules)
    limit, comparisons, failed = verdict(found)
    groups = GROUPS if rules.wild else GROUPS[:1]
    lines = [
        "",
        "## Cross-checks against the exact tables",
        "",
        "Each seat's seven regular cards (its own, less a bonus card; the community card in "
        "place of a seventh-street card) are a uniformly random seven-card hand"
        + (
            "; each seat's whole hand, of each kind, is a uniformly random hand of that kind"
            if rules.wild
            else ""
        )
        + ". So their categories must match the exact tables. Each cell: the simulated "
        "share, and `z`, its distance from the exact share in standard errors (the larger "
        "of the binomial one and the one measured between deals, whose seats share a deck).",
        "",
        f"The test: Šidák's family-wise rule at alpha = {ALPHA:g}. With {comparisons} "
        f"comparisons, each passes when |z| is at most {limit:.2f}, so that an honest deal "
        f"and a right evaluator fail any of them with a chance of at most {ALPHA:g}; a "
        "category the exact table says is impossible must never be seen.",
        "",
    ]
    if failed:
        lines.append(f"**Result: FAIL**: {len(failed)} of {len(found)} checks fail:")
        lines += [""] + [
            f"- {check.players} players, {_GROUP_NAMES.get(check.what, check.what)}"
            + (f", {_name(check.category)}" if check.category else "")
            + f": {check.count:,} of {check.total:,}, z = {check.z:+.2f}"
            for check in failed
        ]
    else:
        worst = max((check for check in found if not check.impossible), key=lambda c: abs(c.z))
        lines.append(
            f"**Result: PASS**: every check holds; the largest |z| is {abs(worst.z):.2f} "
            f"({worst.players} players, {_GROUP_NAMES.get(worst.what, worst.what)}"
            + (f", {_name(worst.category)}" if worst.category else "")
            + ")."
        )
    lines += [
        "",
        "| players | category | " + " | ".join(_GROUP_NAMES[name] for name in groups) + " |",
        "| --- | --- | " + " | ".join("---" for _ in groups) + " |",
    ]
    by_key = {(check.players, check.what, check.category): check for check in found}
    for count in counts:
        for category in reversed(_CATEGORIES):
            if not rules.wild and category is Category.FIVE_OF_A_KIND:
                continue
            cells = []
            for name in groups:
                check = by_key[count.players, name, category]
                if check.impossible:
                    cells.append("never" if not check.count else f"**{check.count:,} seen**")
                else:
                    cells.append(f"{_percent(check.count / max(1, check.total))} ({check.z:+.2f})")
            lines.append(f"| {count.players} | {_name(category)} | {' | '.join(cells)} |")
    if rules.wild:
        lines += [
            "",
            "The four of clubs lies at a uniformly random place of the deck; it earns a bonus "
            "card on any of the 4 x players face-up cards (third to sixth street), so a bonus "
            "card is dealt in exactly players / 13 of the hands"
            + (" (a priced one is always bought here)" if rules.bonus_price else "")
            + "; it is a seat's face-down card (or the community card) in 3 / 52 of the "
            "seats' hands:",
            "",
            "| players | bonus card: exact | dealt | z | 4c face down: exact | dealt | z |",
            "| --- | --- | --- | --- | --- | --- | --- |",
        ]
        for count in counts:
            bonus = by_key[count.players, "bonus", None]
            down = by_key[count.players, "four_down", None]
            lines.append(
                f"| {count.players} | {_percent(bonus.expected)} "
                f"| {_with_interval(count.rate(bonus.count))} | {bonus.z:+.2f} "
                f"| {_percent(down.expected)} | {_percent(down.count / down.total)} "
                f"| {down.z:+.2f} |"
            )
    return lines


def _approval(counts: Sequence[TableCount], rules: Rules) -> list[str]:
    hands = sum(count.hands for count in counts)
    rarest = min(
        (
            (count.rate(count.occurs[index], per_hand=True), count.players, _CATEGORIES[index])
            for count in counts
            for index in range(len(_CATEGORIES))
            if count.occurs[index]
        ),
        key=lambda item: item[0].value,
    )
    rate, players, category = rarest
    return [
        "",
        "## For a game-approval submission",
        "",
        "- The game: seven-card stud, "
        + (
            "all fours wild, a four of clubs dealt face up earning one extra card face down "
            "(the bonus card)"
            if rules.wild
            else "no wild cards"
        )
        + "; 2 to 8 players; high hand only; the settings above.",
        "- Randomness: one standard 52-card deck, shuffled by the table's shoe; the figures "
        "here assume every order of the deck equally likely.",
        "- Players play against each other: the house takes no part in the pot and has no "
        "edge in it (its revenue is the rake, the jackpot drop or a time charge, set by the "
        "house, not by this game"
        + ("; measured in the house's take above" if rules.house_takes else "")
        + "). The return to the players as a whole is 100% of the pot less that charge.",
        "- Method: the category tables are exact (every hand counted); the other figures "
        f"come from a simulation of {hands:,} whole hands in all, every player to the "
        "showdown, each with its 95% interval; the cross-checks above compare the "
        "simulation with the exact tables under a stated family-wise rule.",
        f"- The rarest showdown category seen: {category.value.replace('_', ' ')} at "
        f"{players} players, {_with_interval(rate)} of the hands "
        f"(about 1 in {1 / rate.value:,.0f}).",
        "- Fairness between seats: each seat's share of the pots is listed per number of "
        "players; every seat's interval should hold 1 / players.",
    ]
