"""The odds of a hand in progress: exact against an independent brute force, Monte Carlo
against exact, the deal plans against the engine dealing real shoe orders."""

from __future__ import annotations

import ast
import itertools
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from odds_kit import FOUR, at_cards, auto, brute_force, every_deal, last_up, play_to

from controller.odds import Method, OddsError, deal_model, odds
from controller.odds.compute import _assignments, _fill, arrangements, exact_deals
from controller.rules import DECK, Rules, Variant
from controller.rules.effects import BonusEarned
from controller.rules.hand import Hand, start_hand
from controller.rules.inputs import Action, Deal, Do, IllegalInput
from controller.rules.state import Dest
from tests.hypothesis_profiles import examples

FIFTH_STREET_FOLDS = frozenset((5, seat) for seat in range(3, 9))


def assert_exact(hand: Hand) -> None:
    result = odds(hand, Method.EXACT)
    assert result.method is Method.EXACT
    assert result.fractions is not None
    win, tie, equity = brute_force(hand)
    seats = [seat.seat for seat in result.seats]
    assert seats == sorted(win)
    assert list(result.fractions.win) == [win[seat] for seat in seats]
    assert list(result.fractions.tie) == [tie[seat] for seat in seats]
    assert list(result.fractions.equity) == [equity[seat] for seat in seats]
    assert sum(result.fractions.equity) == 1


@pytest.mark.slow
def test_eight_players_after_sixth_street_community_card_from_the_scrambled_burns():
    hand = play_to(8, at_cards(51), seed=3)
    model = deal_model(hand)
    assert model.base.short_deck == "community"
    assert len(model.stub) + len(model.burns) == 4
    assert_exact(hand)


@pytest.mark.parametrize("timing", ["immediate", "end_of_street"])
def test_eight_players_the_four_of_clubs_as_the_last_up_card(timing):
    """Sixth street's last up card is the four of clubs or not: with it, the bonus card
    is the stub's last card and the community card comes from the scrambled burns."""
    hand = play_to(8, at_cards(50), seed=4, last=(FOUR,), rules=Rules(bonus_timing=timing))
    model = deal_model(hand)
    assert len(model.plans) == 2
    assert model.plans[1].bonus_seat == 8
    assert_exact(hand)


def test_heads_up_after_sixth_street_without_burns():
    assert_exact(play_to(2, at_cards(12), seed=5, rules=Rules(burn=False)))


@pytest.mark.slow
@pytest.mark.parametrize(
    "rules",
    [
        Rules(),
        Rules(burn=False),
        Rules(bonus_timing="end_of_street"),
        Rules(bonus_price=5),
        Rules(variant=Variant.SEVEN_CARD_STUD),
    ],
    ids=["default", "no-burn", "end-of-street", "priced", "stud"],
)
def test_the_four_of_clubs_unseen_with_one_up_card_to_come(rules):
    """Two players left of eight (six folded on fifth street), sixth street half dealt."""
    dealt = 44 if rules.burn else 41
    hand = play_to(8, at_cards(dealt), rules=rules, seed=6, last=(FOUR,), folds=FIFTH_STREET_FOLDS)
    model = deal_model(hand)
    assert len(model.seats) == 2
    assert len(model.plans) == (2 if rules.wild else 1)
    assert_exact(hand)


@pytest.mark.slow
def test_seven_players_short_deck_no_burn():
    """Seven players, no bonus card: the stub has 7 cards, seventh street is dealt without
    its burn (decided as the street began)."""
    hand = play_to(7, at_cards(45), seed=7)
    model = deal_model(hand)
    assert len(model.stub) == 7
    assert len(model.base.before) == 7
    assert all(waiting.destination != Dest.BURN for waiting in hand.queue)
    assert_exact(hand)


def bonus_to_come(players: int, seed: int, **options) -> Hand:
    """Sixth street's last up card is the four of clubs: its bonus card is to come."""
    return play_to(players, last_up, seed=seed, last=(FOUR,), **options).apply(Deal(FOUR)).hand


@pytest.mark.slow
@pytest.mark.parametrize(
    ("folds", "live", "scramble"),
    [
        (frozenset({(3, 1), (3, 2)}), 6, False),
        (frozenset({(4, 1), (4, 2), (4, 3)}), 5, False),
        (frozenset({(5, 1), (5, 2), (5, 3)}), 5, True),
    ],
    ids=["6-live", "5-live", "5-live-scrambled"],
)
def test_the_bonus_card_to_come_after_sixth_street(folds, live, scramble):
    """The bonus seat has two cards to come (the bonus card, seventh street), the others
    one each: counted, not enumerated. Eight seats with folds leave a stub small enough for
    the brute force (at 5 to 7 seats still in the full stub is beyond it)."""
    hand = bonus_to_come(8, 1, folds=folds)
    model = deal_model(hand)
    assert len(model.seats) == live
    assert model.base.bonus_seat == 8
    assert model.base.scramble is scramble
    assert_exact(hand)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("players", "point"),
    [
        (5, "bonus card to come"),
        (6, "bonus card to come"),
        (7, "bonus card to come"),
        (7, "last up card to come"),
    ],
)
def test_full_stubs_against_every_deal_valued(players, point):
    """The benchmark's spots with every seat in: the counted odds equal those of every
    ordered draw of every plan, each hand valued (the brute force would take hours)."""
    hand = play_to(players, last_up, seed=players, last=(FOUR,))
    if point == "bonus card to come":
        hand = hand.apply(Deal(FOUR)).hand
    model = deal_model(hand)
    tally = odds(hand).fractions
    assert tally is not None
    assert (list(tally.win), list(tally.tie), list(tally.equity)) == every_deal(model)


@pytest.mark.parametrize(
    ("seed", "folded", "point"),
    [
        (258, (1, 3, 4, 6, 7), "bonus card to come"),
        (254, (1, 2, 7, 8), "seventh street half dealt"),
    ],
)
def test_ties_as_the_brute_force_counts_them(seed, folded, point):
    """Hands (found by a search over seeds) where seats tie for the best hand: three seats
    with the bonus card to come; four seats, one of them with its seventh-street card
    already (its value known in every deal)."""
    folds = frozenset((5, seat) for seat in folded)
    if point == "bonus card to come":
        hand = bonus_to_come(8, seed, folds=folds)
    else:
        hand = play_to(8, at_cards(47), seed=seed, folds=folds)
        assert any(len(player.own_cards) == 7 for player in hand.players)
    tally = odds(hand, Method.EXACT).fractions
    assert tally is not None and any(tally.tie)
    assert_exact(hand)


@pytest.mark.parametrize("timing", ["immediate", "end_of_street"])
@pytest.mark.parametrize("players", range(2, 9))
def test_the_odds_are_exact_when_sixth_street_is_dealt_or_its_bonus_card_to_come(players, timing):
    rules = Rules(bonus_timing=timing)
    dealt = play_to(players, lambda hand, _dealt: hand.street == 7, seed=players, rules=rules)
    for hand in (dealt, bonus_to_come(players, players, rules=rules)):
        exact = odds(hand, Method.EXACT)
        assert odds(hand) == exact
        assert exact.fractions is not None and sum(exact.fractions.equity) == 1


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seats=st.permutations(range(1, 9)),
    staying=st.integers(2, 4),
    burn=st.booleans(),
    timing=st.sampled_from(["immediate", "end_of_street"]),
    price=st.sampled_from([0, 3]),
    point=st.sampled_from(["bonus card to come", "last up card to come", "anywhere"]),
    dealt=st.integers(36, 52),
    seed=st.integers(0, 10**6),
)
def test_exact_equals_the_brute_force_on_small_stubs(
    seats, staying, burn, timing, price, point, dealt, seed
):
    """Random late points of eight-seat hands, all but two to four seats folding on fifth
    street (small stubs), against the brute force: the counted cards (one per seat, and
    the bonus seat's two cards), or the community card to come."""
    rules = Rules(burn=burn, bonus_timing=timing, bonus_price=price)
    folds = frozenset((5, seat) for seat in seats[staying:])
    options = {"rules": rules, "seed": seed, "folds": folds}
    if point == "anywhere":
        hand = play_to(8, at_cards(dealt), **options)
    else:
        hand = play_to(8, last_up, last=(FOUR,), **options)
        if point == "bonus card to come" and not hand.over:
            try:
                hand = hand.apply(Deal(FOUR)).hand
            except IllegalInput:  # sixth street was not reached
                return
    if hand.over:
        return
    model = deal_model(hand)
    if exact_deals(model) > 600:
        return
    community = any(slot.seat is None for slot in (*model.base.before, *model.base.after))
    event(f"{point}: {len(model.seats)} seats in, {len(model.plans)} plans, {community=}")
    assert_exact(hand)


@settings(max_examples=examples(60), deadline=None)
@given(
    st.integers(1, 4).flatmap(
        lambda seats: st.integers(seats, 6).flatmap(
            lambda cards: st.lists(
                st.lists(
                    st.lists(st.booleans(), min_size=cards, max_size=cards),
                    min_size=seats,
                    max_size=seats,
                ),
                min_size=1,
                max_size=3,
            )
        )
    )
)
def test_assignments_count_every_one_to_one_deal(allowed):
    """Cards given one to a seat, each among those allowed to it: counted as listed."""
    matrix = np.array(allowed, np.int64)
    contests, seats, cards = matrix.shape
    expected = [
        sum(
            all(matrix[contest, seat, card] for seat, card in enumerate(chosen))
            for chosen in itertools.permutations(range(cards), seats)
        )
        for contest in range(contests)
    ]
    assert list(_assignments(matrix)) == expected


def test_a_bonus_card_the_player_cannot_pay_is_not_dealt():
    """Price 5 and a seat with 4 chips left: the four of clubs earns nothing there."""
    rules = Rules(bonus_price=5, ante=1, bring_in=2, small_bet=5)
    step = start_hand(rules, {1: 100, 2: 3})
    hand = step.hand
    model = deal_model(hand)
    short = [plan for plan in model.plans[1:] if any(slot.seat == 2 for slot in plan.before)]
    unpaid = [n for plan in model.plans for n in plan.notices if isinstance(n, BonusEarned)]
    assert any(notice.seat == 2 and not notice.offered for notice in unpaid)
    for plan in model.plans[1:]:
        assert plan.bonus_seat in (1, None)
        if plan.bonus_seat is None:
            assert plan.before[plan.four_at].seat == 2
    assert short


def test_monte_carlo_agrees_with_exact_within_its_standard_error():
    hand = play_to(8, at_cards(44), seed=8, last=(FOUR,), folds=FIFTH_STREET_FOLDS)
    exact = odds(hand, Method.EXACT)
    sampled = odds(hand, samples=20_000, seed=11)
    assert sampled.method is Method.MONTE_CARLO
    assert sampled.deals == 20_000
    for mc, ex in zip(sampled.seats, exact.seats, strict=True):
        assert mc.equity_error is not None
        assert mc.win_error is not None
        assert abs(mc.equity - ex.equity) <= 4.5 * mc.equity_error
        assert abs(mc.win - ex.win) <= 4.5 * mc.win_error
    assert sum(seat.equity for seat in sampled.seats) == pytest.approx(1)


def test_monte_carlo_on_third_street_reaches_its_target_error_and_repeats_with_its_seed():
    hand = play_to(8, at_cards(24), seed=9)
    first = odds(hand)
    assert first.method is Method.MONTE_CARLO
    assert first.standard_error is not None and first.standard_error <= 0.0025
    assert sum(seat.equity for seat in first.seats) == pytest.approx(1)
    assert odds(hand) == first
    assert odds(hand, seed=1) != first


def test_auto_is_exact_when_small_and_says_how_many_deals():
    hand = play_to(2, at_cards(12), seed=5, rules=Rules(burn=False))
    result = odds(hand)
    assert result.method is Method.EXACT
    assert result.deals == exact_deals(deal_model(hand)) == 40 * 39


def test_refusals():
    with pytest.raises(OddsError, match="use Monte Carlo"):
        odds(play_to(8, at_cards(24)), Method.EXACT)
    with pytest.raises(OddsError, match="at least 2"):
        odds(play_to(2, at_cards(6)), samples=1)
    void = play_to(2, at_cards(3)).apply(Action(Do.VOID)).hand
    with pytest.raises(OddsError, match="void"):
        odds(void)


def test_a_hand_over_is_decided():
    hand = play_to(3, at_cards(99), seed=2)
    assert hand.over
    result = odds(hand)
    assert result.method is Method.EXACT and result.deals == 1
    assert sorted(seat.equity for seat in result.seats)[-1] >= 0.5
    folded = play_to(3, at_cards(99), folds=frozenset({(3, 1), (3, 2), (3, 3)}))
    (alone,) = odds(folded).seats
    assert alone.equity == 1


def test_arrangements():
    rows = arrangements(5, 3)
    assert rows.shape == (60, 3)
    assert len({tuple(row) for row in rows}) == 60
    assert all(len(set(row)) == 3 for row in rows)
    assert arrangements(4, 0).shape == (1, 0)


# The deal plans against the engine dealing whole shoes --------------------------------


def engine_deal(hand: Hand, rng: random.Random) -> tuple[Hand, list, list]:
    """Deal the rest of ``hand`` from a random shoe order (a random order of what is left
    at a scramble), recording the cards that reach a hand before and after a scramble."""
    left = [card for card in DECK if not hand.out >> card & 1]
    rng.shuffle(left)
    before, after = [], []
    scrambled, fresh = hand.scrambled, False
    while (waiting := hand.waiting_for) is not None and waiting.kind != "show":
        if waiting.kind != "card":
            hand = hand.apply(auto(hand)).hand
            continue
        if hand.scrambled and not scrambled and not fresh:
            fresh = True
            left = [card for card in DECK if not hand.out >> card & 1]
            rng.shuffle(left)
        card = left.pop()
        if waiting.destination is not Dest.BURN:
            slot = (waiting.seat, waiting.up, waiting.destination is Dest.BONUS, waiting.street)
            (after if fresh else before).append((slot, card))
        hand = hand.apply(Deal(card)).hand
    return hand, before, after


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(2, 8),
    burn=st.booleans(),
    timing=st.sampled_from(["immediate", "end_of_street"]),
    price=st.sampled_from([0, 3]),
    dealt=st.integers(0, 52),
    seed=st.integers(0, 10**6),
)
def test_plans_deal_as_the_engine_deals(players, burn, timing, price, dealt, seed):
    rules = Rules(burn=burn, bonus_timing=timing, bonus_price=price)
    hand = play_to(players, at_cards(dealt), rules=rules, seed=seed)
    if hand.over:
        return
    model = deal_model(hand)
    end, before, after = engine_deal(hand, random.Random(seed + 1))
    cards_before = [card for _, card in before]
    position = cards_before.index(FOUR) if FOUR in cards_before else None
    plan = model.plans[0 if position is None else model.plan_by_position()[position]]
    assert [tuple(slot) for slot in plan.before] == [slot for slot, _ in before]
    assert [tuple(slot) for slot in plan.after] == [slot for slot, _ in after]
    pool = (set(model.stub) - set(cards_before)) | set(model.burns)
    assert {card for _, card in after} <= pool
    draws = np.array([[card for _, card in before + after]], np.int64).reshape(1, -1)
    hands = np.empty((1, len(model.seats), 8), np.int64)
    _fill(hands, model, plan, draws)
    for index, seat in enumerate(model.seats):
        player = end.player(seat)
        expected = sorted(player.own_cards + (() if end.community is None else (end.community,)))
        assert sorted(int(card) for card in hands[0, index] if card >= 0) == expected


def test_the_odds_package_is_pure():
    """controller/odds imports only the engine and the error root of the project, and nothing
    that does I/O."""
    folder = Path(__file__).resolve().parent.parent / "controller" / "odds"
    allowed = ("controller.rules", "controller.odds", "luck_errors", "numpy", "__future__")
    standard = {"collections", "dataclasses", "enum", "fractions", "functools", "itertools"}
    standard |= {"json", "math", "statistics", "typing"}  # pure: no I/O
    for path in sorted(folder.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                ok = name.startswith(allowed) or name.split(".")[0] in standard
                assert ok, f"{path.name} imports {name}"
