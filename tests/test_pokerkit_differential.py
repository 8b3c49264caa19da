"""Differential test against pokerkit: plain fixed-limit seven-card stud, random hands.

The engine is set to pokerkit's conventions (completion plus three raises, the cap kept
heads-up, no open-pair option, burns before 4th-7th street). Both are fed the same cards
and the same random legal decisions; at every decision they must agree on who acts and
on the legal choices and amounts, and at the end on the pots and the final stacks.

Hands are kept out of the cases where pokerkit departs from the rules of the brief
(docs/rules.md): no stack can post a short bring-in, no player makes an all-in wager
short of the full amount (short all-in calls are fine), nobody folds with nothing to call
(a binding fold here, refused by pokerkit), and a hand whose seventh street begins on a
short deck (no burn, the burns scrambled back, or the community card) stops being compared
there (it is not counted).
"""

import random

import pytest

pokerkit = pytest.importorskip("pokerkit")

from controller.rules import DECK, Action, Choice, Deal, Dest, Do, start_hand  # noqa: E402
from controller.rules.pots import build_pots  # noqa: E402
from tests.pokerkit_table import POKERKIT_RULES as RULES  # noqa: E402
from tests.pokerkit_table import pokerkit_state  # noqa: E402

pytestmark = pytest.mark.slow  # a thousand hands against pokerkit

HANDS = 1000


def random_stacks(rng: random.Random, count: int) -> list[int]:
    """Deep, medium and short stacks; never one that would post a short bring-in."""
    stacks = []
    for _ in range(count):
        kind = rng.random()
        if kind < 0.1:
            stacks.append(RULES.ante)  # all-in for the ante
        elif kind < 0.45:
            stacks.append(rng.randint(RULES.ante + RULES.bring_in, 40))
        else:
            stacks.append(rng.randint(41, 300))
    return stacks


def pokerkit_legal(state) -> list[tuple[str, int | None]]:
    index = state.actor_index
    legal = []
    if state.can_post_bring_in():
        legal.append(("bring_in", state.effective_bring_in_amount))
    if state.can_check_or_call():
        amount = state.checking_or_calling_amount
        legal.append(("check", None) if amount == 0 else ("call", state.bets[index] + amount))
    if state.can_complete_bet_or_raise_to():
        low = state.min_completion_betting_or_raising_to_amount
        assert low == state.max_completion_betting_or_raising_to_amount
        # pokerkit also offers a bring-in player whose stack is the bring-in an all-in
        # "completion" for that same amount; the engine offers it once, as the bring-in
        if ("bring_in", low) not in legal:
            legal.append(("wager", low))
    if state.can_fold():
        legal.append(("fold", None))
    return sorted(legal, key=str)


def comparable(hand):
    """The engine's legal choices but a fold with nothing to call (a binding fold here;
    pokerkit refuses it)."""
    legal = hand.waiting_for.legal
    if Choice(Do.CHECK) in legal:
        return [choice for choice in legal if choice.do is not Do.FOLD]
    return list(legal)


def ours_legal(hand) -> list[tuple[str, int | None]]:
    legal = []
    for choice in comparable(hand):
        word = "wager" if choice.do in (Do.COMPLETE, Do.BET, Do.RAISE) else choice.do.value
        legal.append((word, choice.to))
    return sorted(legal, key=str)


def is_short_all_in_wager(hand, choice) -> bool:
    if choice.do not in (Do.COMPLETE, Do.BET, Do.RAISE):
        return False
    player = hand.players[hand.actor]
    return choice.to - player.bet == player.stack and choice.to < hand.full_level + hand.size


def pick(rng: random.Random, hand):
    choices = [c for c in comparable(hand) if not is_short_all_in_wager(hand, c)]
    weights = []
    for choice in choices:
        if choice.do is Do.FOLD:
            weights.append(2 + sum(not p.folded for p in hand.players))
        elif choice.do in (Do.COMPLETE, Do.BET, Do.RAISE):
            weights.append(4)
        else:
            weights.append(8)
    return rng.choices(choices, weights)[0]


def apply_pokerkit(state, choice) -> None:
    if choice.do is Do.BRING_IN:
        state.post_bring_in()
    elif choice.do in (Do.CHECK, Do.CALL):
        state.check_or_call()
    elif choice.do is Do.FOLD:
        state.fold()
    else:
        state.complete_bet_or_raise_to(choice.to)


def short_deck(step) -> bool:
    """Whether seventh street begins on a short deck: no burn, the burns scrambled back,
    or the community card (pokerkit has no short-deck procedure)."""
    return any(effect.kind in ("short_deck", "scramble", "community") for effect in step.effects)


def play_one(rng: random.Random):
    """Play one random hand through both engines: the final state, or None if it reached
    a short deck at seventh street."""
    count = rng.randint(2, 8)
    seats = sorted(rng.sample(range(1, 9), count))
    stacks = random_stacks(rng, count)
    hand = start_hand(RULES, dict(zip(seats, stacks, strict=True))).hand
    state = pokerkit_state(stacks)
    deck = list(DECK)
    rng.shuffle(deck)
    cards = iter(deck)
    index_of = {seat: i for i, seat in enumerate(seats)}
    history: list = []
    while (waiting := hand.waiting_for) is not None:
        if waiting.kind == "card":
            card = next(cards)
            if waiting.destination is Dest.BURN:
                state.burn_card(str(card))
            else:
                assert state.hole_dealee_index == index_of[waiting.seat], history
                state.deal_hole(str(card))
            step = hand.apply(Deal(card))
            if short_deck(step):
                return None
            hand = step.hand
            history.append(str(card))
            continue
        assert state.actor_index == index_of[waiting.seat], history
        assert ours_legal(hand) == pokerkit_legal(state), history
        if not any(p.bet for p in hand.players) and not hand.bring_in_due:
            assert pots_of(hand, seats) == pokerkit_pots(state), history
        choice = pick(rng, hand)
        history.append((waiting.seat, choice.do.value, choice.to))
        apply_pokerkit(state, choice)
        step = hand.apply(Action(choice.do, waiting.seat, choice.to))
        if short_deck(step):
            return None
        hand = step.hand
    assert not state.status, history
    assert [p.stack for p in hand.players] == list(state.stacks), history
    return hand


def pots_of(hand, seats) -> list[tuple[int, tuple[int, ...]]]:
    """The engine's pots as pokerkit reports them: player indices, no uncalled layer."""
    index_of = {seat: i for i, seat in enumerate(seats)}
    return [
        (pot.amount, tuple(index_of[seat] for seat in pot.eligible))
        for pot in build_pots(hand.players)
    ]


def pokerkit_pots(state) -> list[tuple[int, tuple[int, ...]]]:
    return [(pot.amount, tuple(pot.player_indices)) for pot in state.pots]


def test_one_thousand_random_hands_agree_with_pokerkit():
    rng = random.Random(20260530)
    finals = []
    played = 0
    while len(finals) < HANDS:
        played += 1
        final = play_one(rng)
        if final is not None:
            finals.append(final)
    assert played < 2 * HANDS
    # the random hands cover the cases that matter
    showdowns = [h for h in finals if sum(not p.folded for p in h.players) > 1]
    assert len(showdowns) > HANDS // 10
    assert sum(len(h.pots) > 1 for h in showdowns) > HANDS // 20
    assert sum(any(p.stack == 0 for p in h.players) for h in finals) > HANDS // 10
    assert sum(len(h.players) == 8 for h in finals) > HANDS // 20
