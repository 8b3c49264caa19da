"""Hands in progress for the odds tests, and an independent brute force.

``play_to`` deals a shoe order through the engine (every player checking or calling,
folding only where told) and stops where asked. ``brute_force`` enumerates every card
the engine would take at every card it waits for (burns included: each card left in the
shoe is equally likely), lets the engine deal it, and values every hand still in with
``evaluate`` at the end: it shares nothing with ``controller.odds`` but the engine.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from controller.odds.compute import MAX_HAND, TIE_UNIT, _draws, _fill
from controller.odds.plan import DealModel
from controller.rules import DECK, Rules, evaluate
from controller.rules.cards import Card
from controller.rules.evaluator import evaluate_many
from controller.rules.hand import Hand, start_hand
from controller.rules.inputs import Action, Deal, Do
from controller.rules.state import FOUR_OF_CLUBS, Reveal

Stop = Callable[[Hand, int], bool]  # the hand and the number of cards out so far


def auto(hand: Hand, folds: frozenset[tuple[int, int]] = frozenset()) -> Action:
    """Check or call (fold where ``folds`` has (street, seat)); bring in; buy a bonus."""
    waiting = hand.waiting_for
    assert waiting is not None
    if waiting.kind == "bonus":
        return Action(Do.BONUS, seat=waiting.seat, accept=True)
    legal = {choice.do for choice in waiting.legal}
    if (hand.street, waiting.seat) in folds and Do.FOLD in legal:
        return Action(Do.FOLD, seat=waiting.seat)
    do = next(do for do in (Do.CHECK, Do.CALL, Do.BRING_IN) if do in legal)
    return Action(do, seat=waiting.seat)


def play_to(
    players: int,
    stop: Stop,
    *,
    rules: Rules | None = None,
    seed: int = 0,
    last: tuple[Card, ...] = (),
    four_at: int | None = None,
    folds: frozenset[tuple[int, int]] = frozenset(),
) -> Hand:
    """Deal a shuffled shoe (``last``: cards put at its end; ``four_at``: the four of
    clubs put at that place) until ``stop`` says so at a card the engine waits for."""
    placed = (*last, FOUR_OF_CLUBS) if four_at is not None else last
    deck = [card for card in DECK if card not in placed]
    random.Random(seed).shuffle(deck)
    deck += last
    if four_at is not None:
        deck.insert(four_at, FOUR_OF_CLUBS)
    hand = start_hand(rules or Rules(), {seat: 100 for seat in range(1, players + 1)}).hand
    dealt = 0
    while (waiting := hand.waiting_for) is not None and waiting.kind != "show":
        if waiting.kind == "card":
            if stop(hand, dealt):
                return hand
            card = next(card for card in deck if not hand.out >> card & 1)
            deck.remove(card)
            hand = hand.apply(Deal(card)).hand
            dealt += 1
        else:
            hand = hand.apply(auto(hand, folds)).hand
    return hand


def at_cards(count: int) -> Stop:
    return lambda _hand, dealt: dealt >= count


def last_up(hand: Hand, _dealt: int) -> bool:
    """Sixth street's last card to a seat, face up, is the next card out of the shoe."""
    queue = hand.queue
    return hand.street == 6 and len(queue) == 1 and queue[0].up


def brute_force(hand: Hand) -> tuple[dict[int, Fraction], dict[int, Fraction], dict[int, Fraction]]:
    """Win, tie and equity of every seat still in, over every shoe order (exact)."""
    live = [p.seat for p in hand.players if not p.folded and p.reveal is not Reveal.MUCK]
    win = dict.fromkeys(live, Fraction(0))
    tie = dict.fromkeys(live, Fraction(0))
    equity = dict.fromkeys(live, Fraction(0))

    def walk(hand: Hand, weight: Fraction) -> None:
        while (waiting := hand.waiting_for) is not None and waiting.kind not in ("card", "show"):
            hand = hand.apply(auto(hand)).hand
        if waiting is None or waiting.kind == "show":
            keys = {}
            for player in hand.players:
                if player.seat in win:
                    cards = player.own_cards + (() if hand.community is None else (hand.community,))
                    keys[player.seat] = evaluate(cards, hand.rules).key
            best = max(keys.values())
            top = [seat for seat, key in keys.items() if key == best]
            for seat in top:
                if len(top) == 1:
                    win[seat] += weight
                else:
                    tie[seat] += weight
                equity[seat] += weight / len(top)
            return
        left = [card for card in DECK if not hand.out >> card & 1]
        for card in left:
            walk(hand.apply(Deal(card)).hand, weight / len(left))

    walk(hand, Fraction(1))
    return win, tie, equity


FOUR = FOUR_OF_CLUBS


def every_deal(model: DealModel) -> tuple[list[Fraction], list[Fraction], list[Fraction]]:
    """Win, tie and equity of every seat still in, every ordered draw of every plan dealt
    and every hand valued (``evaluate_many``): nothing counted, only enumerated."""
    seats = len(model.seats)
    totals = [[Fraction(0)] * seats for _ in range(3)]
    stub = np.array(model.stub, np.int64)
    forks = [plan.four_at for plan in model.plans[1:] if plan.four_at is not None]
    for plan in model.plans:
        counts = np.zeros((3, seats), np.int64)
        for draws in _draws(model, plan, stub, forks):
            hands = np.empty((len(draws), seats, MAX_HAND), np.int64)
            _fill(hands, model, plan, draws)
            keys = evaluate_many(hands.reshape(-1, MAX_HAND), model.hand.rules).reshape(-1, seats)
            top = keys == keys.max(axis=1, keepdims=True)
            many = top.sum(axis=1, keepdims=True)
            counts[0] += (top & (many == 1)).sum(axis=0)  # alone with the best hand
            counts[1] += (top & (many > 1)).sum(axis=0)  # sharing it
            counts[2] += (top * (TIE_UNIT // many)).sum(axis=0)  # shares, in TIE_UNITs
        pool = len(model.stub) - len(plan.before) + len(model.burns)
        weight = Fraction(
            1, math.perm(len(model.stub), len(plan.before)) * math.perm(pool, len(plan.after))
        )
        for which, unit in enumerate((1, 1, TIE_UNIT)):
            for seat in range(seats):
                totals[which][seat] += weight * Fraction(int(counts[which, seat]), unit)
    win, tie, equity = totals
    return win, tie, equity
