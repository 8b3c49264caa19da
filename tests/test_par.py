"""The par sheet's counts: against exact seven-card counts and the exact bonus-card rate."""

from __future__ import annotations

import numpy as np
import pytest

import controller.odds.compute
import controller.odds.par
from controller.odds.exact_counts import BONUS, FOUR_DOWN, NO_FOUR, SEVEN
from controller.odds.par import (
    GROUPS,
    SHORT_DECK,
    Rate,
    checks,
    play,
    render,
    threshold,
    verdict,
)
from controller.rules import Category, Rules, Variant
from controller.rules.evaluator import evaluate_many
from controller.rules.hand_tables import CATEGORY_SHIFT, STRAIGHT

CATEGORIES = tuple(Category)


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(Variant))
def test_every_category_matches_the_exact_tables(variant):
    """Each seat's seven regular cards against the exact seven-card table, and with the
    fours wild each seat's whole hand of each kind against its own: every check passes."""
    rules = Rules(variant=variant)
    count = play(3, 20_000, rules, np.random.default_rng(1))
    assert [group.name for group in count.groups] == (
        list(GROUPS) if variant is Variant.LUCK_OF_THE_IRISH else [SEVEN]
    )
    assert sum(count.seven) == 3 * 20_000
    if variant is Variant.LUCK_OF_THE_IRISH:
        whole = {group.name: group.hands for group in count.groups[1:]}
        assert sum(whole.values()) == 3 * 20_000
        assert whole[BONUS] == count.bonus
        assert whole[NO_FOUR] > whole[BONUS] > whole[FOUR_DOWN] > 0
    found = checks([count], rules)
    _, comparisons, failed = verdict(found)
    assert failed == []
    assert comparisons == (38 if variant is Variant.LUCK_OF_THE_IRISH else 9)


def test_the_family_wise_threshold():
    """Šidák: one comparison at 0.001 is the usual two-sided 3.29; more raise it."""
    assert threshold(1) == pytest.approx(3.2905, abs=1e-4)
    assert threshold(266) == pytest.approx(4.62, abs=0.01)
    assert threshold(266, alpha=0.05) < threshold(266)


@pytest.mark.slow
def test_an_honest_run_beyond_three_standard_errors_passes():
    """Seed 1 from 2 players (the stream of ``--seed 1 --players 2..8``): one of its checks
    is beyond |z| = 3 with nothing wrong, which the old rule would have failed; the
    family-wise rule passes it. Seed 1 at 7 players passes too."""
    rules = Rules()
    two = checks([play(2, 200_000, rules, np.random.default_rng(1))], rules)
    assert max(abs(check.z) for check in two) > 3
    assert verdict(two)[2] == []
    seven = checks([play(7, 200_000, rules, np.random.default_rng(1))], rules)
    assert verdict(seven)[2] == []


def _no_wheel(codes, rules, **kwargs):
    """A planted bug: the wheel (5-4-3-2-A) is not a straight (scored as high card)."""
    keys = evaluate_many(codes, rules, **kwargs)
    wheel = (keys >> CATEGORY_SHIFT == STRAIGHT) & ((keys >> 16) & 15 == 5)
    return np.where(wheel, keys & ((1 << CATEGORY_SHIFT) - 1), keys)


@pytest.mark.slow  # seconds of work
@pytest.mark.parametrize("variant", list(Variant))
def test_a_wrong_evaluator_fails(monkeypatch, variant):
    monkeypatch.setattr(controller.odds.compute, "evaluate_many", _no_wheel)
    monkeypatch.setattr(controller.odds.par, "evaluate_many", _no_wheel)
    rules = Rules(variant=variant)
    count = play(3, 20_000, rules, np.random.default_rng(1))
    _, _, failed = verdict(checks([count], rules))
    # the wheels scored as high card: too many high cards (and with a wild card, where no
    # hand can be high card, impossible ones)
    assert (SEVEN, Category.HIGH_CARD) in {(check.what, check.category) for check in failed}
    if variant is Variant.LUCK_OF_THE_IRISH:
        assert {(check.what, check.category) for check in failed if check.impossible} == {
            (FOUR_DOWN, Category.HIGH_CARD),
            (BONUS, Category.HIGH_CARD),
        }
    text = render([count], rules, 1, "luck-table par", "0.1.0")
    assert "**Result: FAIL**" in text


def test_an_impossible_category_seen_fails_whatever_its_z():
    rules = Rules()
    count = play(2, 2_000, rules, np.random.default_rng(3))
    down = GROUPS.index(FOUR_DOWN)
    group = count.groups[down]
    high = CATEGORIES.index(Category.HIGH_CARD)
    seen = type(group)(
        group.name,
        tuple(1 if i == high else c for i, c in enumerate(group.counts)),
        group.squares,
        group.cross,
        group.hands,
        group.hand_squares,
    )
    planted = type(count)(
        **{name: getattr(count, name) for name in count.__dataclass_fields__ if name != "groups"},
        groups=(*count.groups[:down], seen, *count.groups[down + 1 :]),
    )
    _, _, failed = verdict(checks([planted], rules))
    assert [(check.what, check.category, check.count) for check in failed] == [
        (FOUR_DOWN, Category.HIGH_CARD, 1)
    ]


@pytest.mark.parametrize("players", [2, 8])
def test_a_free_bonus_card_comes_in_players_thirteenths_of_the_hands(players):
    count = play(players, 20_000, Rules(), np.random.default_rng(2))
    assert abs(count.rate(count.bonus).z(players / 13)) < 4
    assert sum(count.wins) == 20_000
    assert sum(count.occurs) == players * 20_000
    assert sum(count.seat_share) == pytest.approx(20_000)


def test_no_bonus_card_in_seven_card_stud_and_no_five_of_a_kind():
    count = play(4, 5_000, Rules(variant=Variant.SEVEN_CARD_STUD), np.random.default_rng(3))
    assert count.bonus == 0
    assert count.five == 0


def test_the_short_deck_follows_the_bonus_card():
    """Seven players with burns: seventh street without its burn when no bonus card came,
    with the burns scrambled back when one did; eight players: always a community card."""
    seven = play(7, 5_000, Rules(), np.random.default_rng(4))
    ways = dict(zip(SHORT_DECK, seven.short_deck, strict=True))
    assert ways == {"": 0, "no_burn": 5_000 - seven.bonus, "scramble": seven.bonus, "community": 0}
    eight = play(8, 2_000, Rules(), np.random.default_rng(5))
    assert dict(zip(SHORT_DECK, eight.short_deck, strict=True))["community"] == 2_000
    no_burns = play(7, 2_000, Rules(burn=False), np.random.default_rng(6))
    assert dict(zip(SHORT_DECK, no_burns.short_deck, strict=True))[""] == 2_000


def test_wilson_interval():
    low, high = Rate(50, 100).interval
    assert low == pytest.approx(0.4038, abs=1e-4)
    assert high == pytest.approx(0.5962, abs=1e-4)
    assert Rate(0, 100).interval[0] == pytest.approx(0.0, abs=1e-12)
    assert Rate(100, 100).interval[1] == pytest.approx(1.0, abs=1e-12)


def test_render_names_its_command_and_every_section():
    rules = Rules(bonus_price=3)
    counts = [play(players, 1_000, rules, np.random.default_rng(7)) for players in (2, 7)]
    text = render(counts, rules, 7, "luck-table par --players 2,7 --hands 1000", "0.1.0")
    assert "`luck-table par --players 2,7 --hands 1000`" in text
    for heading in (
        "## Exact tables",
        "## 2 players",
        "## 7 players",
        "## Cross-checks",
        "## For a game-approval",
    ):
        assert heading in text
    assert "| five of a kind | 609,760 | 0.4558% |" in text
    assert "- full house (9,427,008, 7.046%) is more common than flush (8,135,936, 6.081%)" in text
    assert "three of a kind (21,149,160, 15.808%) is more common than two pair" in text
    assert "Šidák's family-wise rule at alpha = 0.001" in text
    assert "**Result: PASS**" in text
    assert "| `bonus_price` | `3` |" in text
    assert "a priced one is always bought here" in text
    assert "Seventh street (the short deck)" in text.split("## 7 players")[1]
    assert "Seventh street (the short deck)" not in text.split("## 7 players")[0]
