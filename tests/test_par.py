"""The par sheet's counts: against exact seven-card counts and the exact bonus-card rate."""

from __future__ import annotations

import numpy as np
import pytest

from controller.odds.par import (
    SEVEN_CARD_COUNTS,
    SEVEN_CARD_HANDS,
    SHORT_DECK,
    Rate,
    play,
    render,
)
from controller.rules import Category, Rules, Variant

CATEGORIES = tuple(Category)


@pytest.mark.parametrize("variant", list(Variant))
def test_seven_regular_cards_match_the_exact_seven_card_counts(variant):
    """Each seat's seven regular cards are a uniformly random seven-card hand: plain
    seven-card stud against every published count, fours wild against five of a kind."""
    count = play(3, 20_000, Rules(variant=variant), np.random.default_rng(1))
    assert sum(count.seven) == 3 * 20_000
    for category, ways in SEVEN_CARD_COUNTS[variant].items():
        rate = count.rate(count.seven[CATEGORIES.index(category)], per_hand=True)
        assert abs(rate.z(ways / SEVEN_CARD_HANDS)) < 4, category


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
    for heading in ("## 2 players", "## 7 players", "## Cross-checks", "## For a game-approval"):
        assert heading in text
    assert "| `bonus_price` | `3` |" in text
    assert "a priced one is always bought here" in text
    assert "Seventh street (the short deck)" in text.split("## 7 players")[1]
    assert "Seventh street (the short deck)" not in text.split("## 7 players")[0]
