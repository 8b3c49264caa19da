"""The shuffle check (controller/table/shuffle.py): a deck dealt in the order of one of the
last decks, or keeping a slug of one, raises ``deck_not_shuffled`` for surveillance while
the hand goes on; shuffled decks never do; the false-alarm rate docs/game-protection.md
states is the exact one."""

from __future__ import annotations

import asyncio
import random
from fractions import Fraction
from itertools import pairwise, permutations
from math import comb, factorial
from pathlib import Path
from typing import Any

import pytest

from controller.sim.dealer import Dealer, Tally
from controller.sim.floor import CoreFloor
from controller.table import AlertKind, Table, TableSettings
from controller.table.alerts import Alert, DeckNotShuffled, Raised
from controller.table.settings import Protection
from controller.table.shuffle import DECKS, PAIRS, Repeated, Shuffles

DOC = Path(__file__).resolve().parent.parent / "docs" / "game-protection.md"


def shuffled(rng: random.Random) -> list[int]:
    order = list(range(52))
    rng.shuffle(order)
    return order


def deal(shuffles: Shuffles, order: list[int]) -> tuple[Shuffles, list[Repeated]]:
    """A deck loaded, then ``order`` dealt: the orders after, and what was flagged."""
    shuffles, found = shuffles.loaded(), []
    for code in order:
        shuffles, repeated = shuffles.dealt(code)
        if repeated is not None:
            found.append(repeated)
    return shuffles, found


def test_a_deck_dealt_in_the_last_deck_s_order_is_flagged_once_at_its_eleventh_card() -> None:
    order = shuffled(random.Random(1))
    shuffles, found = deal(Shuffles(), order)
    assert found == []
    shuffles, found = deal(shuffles, order)
    assert found == [Repeated(pairs=PAIRS, dealt=PAIRS + 1, decks_ago=1)]
    assert shuffles.flagged and shuffles.repeats[0] == 51
    # a deck dealt short: its first cards are all the check knows of it
    shuffles, found = deal(shuffles, order[:PAIRS])
    assert found == []  # nine repeated pairs: not yet
    assert Shuffles.from_json(shuffles.to_json()) == shuffles


def test_each_of_the_last_decks_is_compared_and_an_older_one_forgotten() -> None:
    rng = random.Random(2)
    first = shuffled(rng)
    shuffles, _ = deal(Shuffles(), first)
    for _ in range(DECKS - 1):
        shuffles, found = deal(shuffles, shuffled(rng))
        assert found == []
    _, found = deal(shuffles, first)
    assert found == [Repeated(PAIRS, PAIRS + 1, DECKS)]
    shuffles, _ = deal(shuffles, shuffled(rng))  # one more deck: the first is forgotten
    _, found = deal(shuffles, first)
    assert found == [] and len(shuffles.recent) == DECKS


def test_a_slug_kept_through_a_false_shuffle_is_flagged() -> None:
    """A false shuffle keeps 11 cards of the last deck together, in order, anywhere in a
    deck otherwise shuffled: 10 pairs repeated."""
    rng = random.Random(3)
    for _ in range(50):
        last = shuffled(rng)
        start = rng.randrange(52 - 11)
        slug = last[start : start + 11]
        rest = [card for card in shuffled(rng) if card not in slug]
        place = rng.randrange(len(rest) + 1)
        shuffles, _ = deal(Shuffles(), last)
        _, found = deal(shuffles, rest[:place] + slug + rest[place:])
        assert len(found) == 1 and found[0].pairs >= PAIRS and found[0].decks_ago == 1


@pytest.mark.slow
def test_two_thousand_shuffled_decks_dealt_whole_are_never_flagged() -> None:
    rng = random.Random(20261207)
    shuffles, most = Shuffles(), 0
    for _ in range(2000):
        shuffles, found = deal(shuffles, shuffled(rng))
        assert found == []
        most = max(most, *shuffles.repeats, 0)
    assert 3 <= most < PAIRS  # the most a shuffled deck repeated: a few pairs


def _successions(n: int, k: int) -> int:
    """The permutations of n cards with exactly k of them followed by the next card up
    (C(n-1, k) times those of n-k cards with none; those with none: D(m) + D(m-1))."""

    def derangements(m: int) -> int:
        d = [1, 0]
        for i in range(2, m + 1):
            d.append((i - 1) * (d[-1] + d[-2]))
        return d[m]

    m = n - k
    none = 1 if m == 0 else derangements(m) + derangements(m - 1)
    return comb(n - 1, k) * none


def test_the_false_alarm_rate_the_documents_state_is_the_exact_one() -> None:
    """Repeated pairs of a shuffled deck with one earlier deck are the successions of a
    random permutation (relabel the earlier deck 0..51). The count is checked against
    every permutation of up to 7 cards; the tail for 52 is what the documents say."""
    for n in range(1, 8):
        counts = [0] * n
        for order in permutations(range(n)):
            counts[sum(b == a + 1 for a, b in pairwise(order))] += 1
        assert counts == [_successions(n, k) for k in range(n)]
    tail = Fraction(sum(_successions(52, k) for k in range(PAIRS, 52)), factorial(52))
    assert f"{float(tail):.1e}" == "9.2e-08"
    assert f"{float(DECKS * tail):.1e}" == "7.4e-07" and round(1 / (DECKS * tail), -4) == 1360000
    text = DOC.read_text()
    assert "= 9.2e-8" in text and "= 7.4e-7" in text and "1.36 million" in text


class Unshuffled(random.Random):
    """The dealer's hands: every deck after the first loaded in the first one's order."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.first: list[Any] | None = None

    def shuffle(self, x: list[Any]) -> None:  # type: ignore[override]
        if self.first is not None and len(x) != len(self.first):
            super().shuffle(x)  # not a deck: a scramble of the stub with the burns
            return
        if self.first is None:
            super().shuffle(x)
            self.first = list(x)
        x[:] = self.first


def play(
    protection: Protection, hands: int, seats: int, *, unshuffled: bool = False
) -> tuple[Tally, Table, list[Alert]]:
    raised: list[Alert] = []
    tally = Tally()

    def observe(table: Table, effects: Any) -> None:
        tally.observe(table, effects)
        raised.extend(effect.alert for effect in effects if isinstance(effect, Raised))

    floor = CoreFloor(TableSettings(protection=protection), observe, start=1_700_000_000_000)
    dealer = Dealer(floor, tally, seats=seats, hands=hands, seed=5)
    if unshuffled:
        dealer.decks = Unshuffled(5)
    asyncio.run(dealer.run())
    return tally, floor.table, raised


def test_an_unshuffled_deck_is_flagged_for_surveillance_and_the_hands_go_on() -> None:
    tally, table, raised = play(Protection(shuffle_check=True), 6, 8, unshuffled=True)
    flagged = [alert for alert in raised if alert.kind is AlertKind.DECK_NOT_SHUFFLED]
    assert len(flagged) == tally.decks - 1 == 5  # every deck after the first
    assert tally.hands == 6 and tally.void_hands == 0
    alert = flagged[0]
    assert isinstance(alert.facts, DeckNotShuffled) and alert.facts.decks_ago == 1
    assert alert.facts.dealt == PAIRS + 1 and not alert.rule.blocking
    assert alert.message == (
        f"the deck was not shuffled: {PAIRS} pairs of its first {PAIRS + 1} cards came out in "
        "the same order as from the last deck (a shuffled deck repeats about one)"
    )
    assert "surveillance reviews the last shuffle" in alert.remedy
    assert sum(tally.resolved["deck_not_shuffled"].values()) == 5  # resolved (done)
    assert Table.from_json(table.to_json()) == table
    off, _, raised = play(Protection(), 6, 8, unshuffled=True)  # the check turned off
    assert off.hands == 6 and not any(a.kind is AlertKind.DECK_NOT_SHUFFLED for a in raised)


@pytest.mark.slow
def test_shuffled_decks_over_many_hands_raise_nothing() -> None:
    tally, table, raised = play(Protection(shuffle_check=True), 300, 8)
    assert tally.hands == 300 and tally.decks >= 300
    assert not any(alert.kind is AlertKind.DECK_NOT_SHUFFLED for alert in raised)
    assert len(table.shuffles.recent) == DECKS
