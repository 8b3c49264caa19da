"""Properties of random hands under random house rules.

Every legal choice the engine offers is accepted; chips are conserved at every step and
every chip is back in a stack or in the drop box at the end (a bought bonus card's price
included: dead money in the main pot, which every player still in contests; the house's
rake and jackpot drop as the reference in ``tests.test_rake`` figures them, taken from the
pots); the state round-trips through
JSON; a card is never dealt twice unless the burns were scrambled back; a round that
reached the cap stays capped to its end and never offers a bet, completion or raise; a
fold out of turn is taken without moving the action; every hand ends. The query API
answers as the deal went: every card dealt is held by exactly the seat it went to, or is a
burn, the community card or still in the shoe; the hand is made again by ``replay`` from
its starting stacks and its inputs.
"""

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules import (
    DECK,
    Action,
    Card,
    Deal,
    Dest,
    Do,
    Effect,
    Hand,
    HandStep,
    Illegal,
    IllegalInput,
    Player,
    Rules,
    parse_card,
    replay,
    start_hand,
)
from controller.rules.inputs import WAGERS, Input
from controller.rules.state import FOUR_OF_CLUBS, Dealt, Reveal
from tests.hypothesis_profiles import examples
from tests.test_rake import contested, reference

SHORT_DECK = {"short_deck", "scramble", "community"}  # effects of seventh street's short deck
SETTINGS = {
    "variant": ["luck-of-the-irish", "seven-card-stud"],
    "max_raises": [0, 1, 3],
    "heads_up_uncapped": ["any_time", "round_start", "never"],
    "open_pair_big_bet": [True, False],
    "burn": [True, False],
    "bonus_timing": ["immediate", "end_of_street"],
    "bonus_price": [0, 5, 40],
    "wild_bring_in": ["ace", "natural"],
    "double_ace_flush": [False, True],
    "showdown": ["auto", "manual"],
    "odd_chip": ["seat_order", "high_card_suit"],
}


HOUSE = {  # the house's take: every choice of one with every choice of another is valid
    "rake_percent": [0, 0, 5, 10, 100],
    "rake_cap": [1, 3, 1000],  # in steps
    "rake_step": [1, 2, 5],
    "rake_from": ["third_street", "fourth_street"],
    "jackpot_drop": [0, 0, 1, 50],
    "jackpot_drop_at": [1, 20, 200],
    "rake_timing": ["end", "street"],
}


def random_rules(rng: random.Random) -> Rules:
    return Rules.from_mapping({name: rng.choice(values) for name, values in SETTINGS.items()})


def with_random_house(rules: Rules, rng: random.Random) -> Rules:
    house = {name: rng.choice(values) for name, values in HOUSE.items()}
    house["rake_cap"] *= house["rake_step"]
    return Rules.from_mapping(rules.to_json() | house)


def house(hand: Hand) -> int:
    """The chips the house took from the hand into the drop box (none before it is over)."""
    return hand.rake + hand.jackpot_drop


def next_card(rng: random.Random, hand: Hand, deck: list) -> object:
    if deck:
        return deck.pop()
    free = [card for card in DECK if not hand.is_out(card)]
    return rng.choice(free)


class Felt:
    """Where the deal sent each card, followed from the effects alone (not the state):
    the seat holding it (None: burned or the community card), the cards out of the shoe,
    and the burn cards the short deck scrambled back."""

    def __init__(self) -> None:
        self.holder: dict[Card, int | None] = {}
        self.out: set[Card] = set()
        self.scrambled: set[Card] = set()

    def follow(self, effects: tuple[Effect, ...]) -> None:
        for effect in effects:
            data = effect.data
            if effect.kind in ("card", "burn"):
                card = parse_card(data["card"])
                self.holder[card] = data["seat"] if data.get("to") == "seat" else None
                self.out.add(card)
            elif effect.kind == "scramble":
                burns = {parse_card(text) for text in data["burns"]}
                self.scrambled |= burns
                self.out -= burns


def check_queries(hand: Hand, felt: Felt, stacks: dict[int, int]) -> None:
    """The query API agrees with the felt and with itself."""
    for card in DECK:
        assert hand.holder(card) == felt.holder.get(card), card
        assert hand.is_out(card) is (card in felt.out), card
        if hand.holder(card) is None:
            assert hand.dealt(card) is None
    for seat in hand.seats:  # every card a player holds is held by that seat alone
        for dealt in hand.player(seat).cards:
            assert hand.holder(dealt.card) == seat and hand.dealt(dealt.card) == dealt
    assert hand.cards_out() == felt.out and len(felt.out) + hand.stub == 52
    assert hand.seats == tuple(sorted(stacks)) and hand.starting_stacks() == stacks
    in_pot = 0 if hand.over else hand.pot - house(hand)  # as the pot grows, part is taken
    assert sum(hand.stacks().values()) + in_pot + house(hand) == sum(stacks.values())
    assert sum(pot.amount for pot in hand.current_pots()) + house(hand) == hand.pot
    if hand.phase == "complete":
        assert hand.current_pots() == hand.pots
    assert set(hand.scrambled_burns) == felt.scrambled
    assert hand.expects_reload(hand.stub) is bool(felt.scrambled)
    assert not hand.expects_reload(hand.stub + 1)
    bonus = hand.bonus_seats()
    assert bonus == tuple(sorted(set(bonus))) and set(bonus) <= set(hand.seats)
    for seat in bonus:  # a bonus card is due only to the four of clubs face up
        assert hand.holder(FOUR_OF_CLUBS) == seat and hand.dealt(FOUR_OF_CLUBS).up
    waiting = hand.waiting_for
    if waiting is not None and (waiting.kind == "bonus" or waiting.destination is Dest.BONUS):
        assert waiting.seat in bonus


def play(seed: int, seen: set[str] | None = None, folds: bool = True) -> Hand:
    """Play one random hand; ``seen`` collects the rare cases it went through. Without
    ``folds``, nobody folds and eight players are seated half the time (the short deck)."""
    seen = set() if seen is None else seen
    rng = random.Random(seed)
    rules = with_random_house(random_rules(rng), random.Random(f"house {seed}"))
    count = rng.randint(2, 8) if folds or rng.random() < 0.5 else 8
    seats = rng.sample(range(1, 9), count)
    stacks = {
        seat: rng.choice([1, 2, 3, rng.randint(4, 60), rng.randint(61, 400)]) for seat in seats
    }
    total = sum(stacks.values())
    first = start_hand(rules, stacks)
    hand = first.hand
    felt = Felt()
    inputs: list[Input] = []
    effects = list(first.effects)
    deck = list(DECK)
    rng.shuffle(deck)
    in_play: set[int] = set()
    steps = 0

    def take(hand: Hand, item: Input) -> HandStep:
        step = hand.apply(item)
        inputs.append(item)
        effects.extend(step.effects)
        felt.follow(step.effects)
        return step

    while (waiting := hand.waiting_for) is not None:
        steps += 1
        assert steps < 400
        if waiting.kind == "card":
            card = next_card(rng, hand, deck)
            assert card not in in_play or hand.scrambled
            step = take(hand, Deal(card))
            in_play.add(card)
        elif waiting.kind == "bonus":
            step = take(hand, Action(Do.BONUS, waiting.seat, accept=rng.random() < 0.5))
        else:
            if hand.capped:
                seen.add("capped")
                assert not any(choice.do in WAGERS for choice in waiting.legal)
            legal = waiting.legal if folds else [c for c in waiting.legal if c.do is not Do.FOLD]
            choice = rng.choice(legal)
            wrong = next(p.seat for p in hand.players if p.seat != waiting.seat)
            others = [p.seat for p in hand.players if p.seat != waiting.seat and not p.folded]
            if choice.do is not Do.FOLD:  # a fold out of turn is binding: taken, below
                try:
                    hand.apply(Action(choice.do, wrong, choice.to))
                except IllegalInput as error:
                    assert error.code in (Illegal.OUT_OF_TURN, Illegal.FOLDED), error
                else:
                    raise AssertionError("a decision out of turn was accepted")
            if (
                folds and waiting.kind == "action" and rng.random() < 0.03
            ):  # binding: the action stays
                seen.add("fold out of turn")
                step = take(hand, Action(Do.FOLD, rng.choice(others)))
                assert step.effects[0].data.get("out_of_turn") is True
                assert step.hand.over or step.hand.actor == hand.actor
            else:
                step = take(hand, Action(choice.do, waiting.seat, choice.to))
        if hand.capped and step.hand.street == hand.street:
            assert step.hand.capped or step.hand.phase != "betting"
        seen.update(e.kind for e in step.effects if e.kind in SHORT_DECK)
        hand = step.hand
        # once awarded, the pot is back in the stacks; the house's take is in the drop box
        in_pot = 0 if hand.over else hand.pot - house(hand)
        assert sum(p.stack for p in hand.players) + in_pot + house(hand) == total
        if rules.rake_timing == "end" and not hand.over:
            assert house(hand) == 0
        assert all(p.stack >= 0 for p in hand.players)
        check_queries(hand, felt, stacks)
        if rng.random() < 0.1:
            assert Hand.from_json(json.loads(json.dumps(hand.to_json()))) == hand
    assert sum(p.stack for p in hand.players) + house(hand) == total
    told = [0, 0]  # the rake and drop as told, taken (and given back by a void hand)
    for effect in effects:
        if effect.kind == "rake":
            sign = -1 if effect.data.get("returned") else 1
            told = [
                told[0] + sign * effect.data["rake"],
                told[1] + sign * effect.data["jackpot_drop"],
            ]
    assert tuple(told) == (hand.rake, hand.jackpot_drop)
    if hand.phase == "void":
        assert house(hand) == 0
    again = replay(rules, hand.starting_stacks(), inputs)
    assert again.hand == hand
    assert [e.to_json() for e in again.effects] == [e.to_json() for e in effects]
    if hand.community is not None:  # seven players never see a community card
        assert len(hand.players) == 8
    if hand.phase == "complete":
        taken = reference(rules.to_json(), contested(hand), hand.street)
        assert (hand.rake, hand.jackpot_drop) == taken
        assert sum(pot.amount for pot in hand.pots) + house(hand) == hand.pot
        assert sum(pot.taken for pot in hand.pots) == house(hand)
        emptied = [pot.amount == 0 for pot in hand.pots if pot.taken]
        assert all(emptied[:-1]), "a side pot is taken from only once those before are empty"
        assert all(sum(chips for _, chips in pot.shares) == pot.amount for pot in hand.pots)
        still_in = tuple(p.seat for p in hand.players if not p.folded)
        paid = sum(p.bonus_paid for p in hand.players)
        if paid and len(still_in) > 1:
            assert hand.pots[0].eligible == still_in
            assert hand.pots[0].amount + hand.pots[0].taken > paid
    return hand


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_random_hands_keep_every_chip_and_end(seed):
    play(seed)


@pytest.mark.slow
def test_random_hands_reach_the_rare_cases():
    seen: set[str] = set()
    finals = [play(seed, seen) for seed in range(400)]
    assert {"capped", "fold out of turn"} <= seen
    assert any(len(h.pots) > 2 for h in finals)
    assert any(any(d.bonus for p in h.players for d in p.cards) for h in finals)
    assert any(any(p.bonus_paid for p in h.players) and len(h.pots) > 1 for h in finals)
    assert any(h.rake for h in finals) and any(h.jackpot_drop for h in finals)
    assert any(sum(1 for pot in h.pots if pot.taken) > 1 for h in finals)  # past the main pot


@pytest.mark.slow
def test_random_hands_without_folds_reach_every_short_deck_procedure():
    seen: set[str] = set()
    finals = [play(seed, seen, folds=False) for seed in range(150)]
    assert seen >= SHORT_DECK
    assert any(h.community is not None for h in finals)


def test_every_input_leaves_the_old_state_valid_and_unchanged():
    """States are values: applying an input (or refusing one) changes nothing in the old
    state, what it waits for stays the same, and applying the same input again to it gives
    an equal state with the same effects."""
    for seed in range(40):
        rng = random.Random(seed)
        rules = random_rules(rng)
        stacks = {seat: rng.randint(1, 200) for seat in rng.sample(range(1, 9), rng.randint(2, 8))}
        hand = start_hand(rules, stacks).hand
        deck = list(DECK)
        rng.shuffle(deck)
        history = []
        while (waiting := hand.waiting_for) is not None:
            if waiting.kind == "card":
                item = Deal(next_card(rng, hand, deck))
            elif waiting.kind == "bonus":
                item = Action(Do.BONUS, waiting.seat, accept=rng.random() < 0.5)
            else:
                choice = rng.choice(waiting.legal)
                item = Action(choice.do, waiting.seat, choice.to)
            step = hand.apply(item)
            history.append((hand, hand.to_json(), waiting.to_json(), item, step))
            hand = step.hand
        for old, as_json, waiting_json, item, step in history:
            assert old.to_json() == as_json
            assert old.waiting_for is not None and old.waiting_for.to_json() == waiting_json
            fresh = Hand.from_json(json.loads(json.dumps(as_json)))
            assert fresh == old
            assert fresh.waiting_for is not None and fresh.waiting_for.to_json() == waiting_json
            again = old.apply(item)
            assert again.hand == step.hand
            assert [e.to_json() for e in again.effects] == [e.to_json() for e in step.effects]


def test_a_copy_with_changes_does_not_keep_what_the_old_state_waited_for():
    hand = start_hand(Rules(), {1: 100, 2: 100, 3: 100}).hand
    for code in (0, 5, 10, 15, 20, 25, 30, 35, 40):  # third street: two down, one up each
        hand = hand.apply(Deal(DECK[code])).hand
    waiting = hand.waiting_for
    assert waiting is not None and waiting.kind == "action"
    assert hand.actor is not None
    moved = hand._replace(actor=(hand.actor + 1) % 3)
    assert moved.waiting_for is not None
    assert moved.waiting_for.seat == moved.players[moved.actor].seat != waiting.seat
    assert hand.waiting_for == waiting


def test_each_change_of_a_player_is_the_change_it_names():
    hole = Dealt(DECK[1], False, 3)
    player = Player(3, 100, 90, (hole,), total=10, bet=5, acted=True, bonus_paid=5)
    dealt = Dealt(DECK[7], True, 4)

    def changed(**fields):
        return Player(**{**player._asdict(), **fields})

    assert player.given(dealt) == changed(cards=(hole, dealt))
    assert player.puts_in(15) == changed(stack=80, total=20, bet=15)
    assert player.passes(True) == changed(folded=True)
    assert player.passes(False) == player
    assert player.new_round() == changed(bet=0, acted=False)
    assert player.reopened() == changed(acted=False)
    assert player.wins(7) == changed(stack=97)
    assert player.revealed(Reveal.MUCK) == changed(reveal=Reveal.MUCK)
    assert player == Player(3, 100, 90, (hole,), total=10, bet=5, acted=True, bonus_paid=5)
