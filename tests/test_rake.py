"""The house's take: the rake and the jackpot drop, checked against a reference written
from their definition (docs/rules.md, "The house's take").

Every hand script under tests/hands that ends with an award is played again with the house
taking a rake and a drop, under several settings, and compared with the same hand without
them: the take is the reference's, figured on the whole pot; it comes out of the main pot
first, then the side pots in order; the winners of each pot are the same and share what is
left (odd chips one each); every chip is in a stack or in the drop box. The scripts cover
hands ending on every street, side pots, odd chips and both variants (the test checks it).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from controller.config import parse_config
from controller.history.script import Script, play, read_script, to_json
from controller.rules import Action, Deal, Do, Phase, RakeFrom, Rules, RulesError, start_hand
from controller.rules.hand import Hand
from tests.test_config import example

HANDS = Path(__file__).parent / "hands"
SCRIPTS = sorted(path for path in HANDS.glob("*.json") if not path.name.endswith(".expected.json"))

#: House settings the scripts are played under: a usual rake; a rake from fourth street;
#: a rake in steps of 5 with a drop; the whole pot (a rake bigger than the main pot); a
#: drop that takes all the rake leaves.
HOUSE = [
    {"rake_percent": 10, "rake_cap": 4},
    {"rake_percent": 5, "rake_cap": 3, "rake_from": "fourth_street"},
    {"rake_percent": 20, "rake_cap": 50, "rake_step": 5, "jackpot_drop": 2, "jackpot_drop_at": 30},
    {"rake_percent": 100, "rake_cap": 1000},
    {"rake_percent": 50, "rake_cap": 7, "jackpot_drop": 1000, "jackpot_drop_at": 1},
    {"jackpot_drop": 1, "jackpot_drop_at": 20, "rake_from": "fourth_street"},
    {"rake_percent": 10, "rake_cap": 4, "rake_timing": "street"},
    {"rake_percent": 100, "rake_cap": 1000, "rake_from": "fourth_street", "rake_timing": "street"},
    {"rake_percent": 50, "rake_cap": 7, "jackpot_drop": 1000, "jackpot_drop_at": 1}
    | {"rake_timing": "street"},
]


def reference(house: dict[str, Any], pot: int, street: int) -> tuple[int, int]:
    """The rake and the drop, from the definition: nothing unless the hand reached the
    rake's street; the rake the largest whole number of steps not over the percent of the
    pot, at most the cap; the drop when the pot is at least its threshold, at most what
    the rake leaves."""
    reached = {"third_street": 3, "fourth_street": 4}[house.get("rake_from", "third_street")]
    if street < reached:
        return 0, 0
    share = Fraction(pot * house.get("rake_percent", 0), 100)
    step = house.get("rake_step", 1)
    rake = 0
    while rake + step <= share and rake + step <= house.get("rake_cap", 0):
        rake += step
    drop = 0
    if house.get("jackpot_drop", 0) and pot >= house["jackpot_drop_at"]:
        drop = min(house["jackpot_drop"], pot - rake)
    return rake, drop


def contested(hand: Hand) -> int:
    """The whole pot the house takes from: every chip put in, less the part of a bet that
    nobody matched, which goes back to the player still in who made it."""
    stakes = {p.seat: p.total - p.bonus_paid for p in hand.players}
    back = 0
    for player in hand.players:
        others = max(stake for seat, stake in stakes.items() if seat != player.seat)
        if not player.folded:
            back += max(0, stakes[player.seat] - others)
    return hand.pot - back


def with_house(script: Script, house: dict[str, Any]) -> Script:
    """The script with the house taking ``house`` (and nothing else of the script's own)."""
    rules = {
        name: value
        for name, value in script.rules.to_json().items()
        if not name.startswith(("rake_", "jackpot_"))
    }
    return Script(Rules.from_mapping(rules | house), script.seats, script.cards, script.actions)


def awarded_scripts() -> list[Path]:
    out = []
    for path in SCRIPTS:
        replay = play(read_script(path.read_text()))
        if replay.error is None and replay.hand.phase is Phase.COMPLETE:
            out.append(path)
    return out


AWARDED = awarded_scripts()


@pytest.mark.parametrize("house", HOUSE, ids=[json.dumps(h) for h in HOUSE])
@pytest.mark.parametrize("path", AWARDED, ids=[path.stem for path in AWARDED])
def test_every_scripted_hand_pays_the_house_as_the_definition_says(path, house):
    script = read_script(path.read_text())
    plain = play(with_house(script, {})).hand
    replay = play(with_house(script, house))
    assert replay.error is None
    hand = replay.hand
    assert hand.phase is Phase.COMPLETE and hand.street == plain.street
    rake, drop = reference(house, contested(plain), plain.street)
    assert (hand.rake, hand.jackpot_drop) == (rake, drop)
    out = to_json(replay)
    assert (out["rake"], out["jackpot_drop"]) == (rake, drop)
    # taken from the main pot first, then the side pots in order
    left = rake + drop
    assert len(hand.pots) == len(plain.pots)
    for pot, gross in zip(hand.pots, plain.pots, strict=True):
        taken = min(left, gross.amount)
        left -= taken
        assert (pot.amount, pot.taken) == (gross.amount - taken, taken)
        assert pot.eligible == gross.eligible and pot.winners == gross.winners
        shares = dict(pot.shares)
        assert sum(shares.values()) == pot.amount
        assert max(shares.values()) - min(shares.values()) <= 1  # odd chips one each
    assert left == 0
    # every chip in a stack or in the drop box
    assert sum(hand.stacks().values()) + rake + drop == sum(script.seats.values())
    told = [e for e in replay.events if e.kind == "rake"]
    assert sum(e.data["rake"] for e in told) == rake
    assert sum(e.data["jackpot_drop"] for e in told) == drop
    assert all(e.data["rake"] + e.data["jackpot_drop"] > 0 for e in told)
    if told:
        assert replay.events.index(told[-1]) < min(
            i for i, e in enumerate(replay.events) if e.kind == "award"
        ), "the dealer takes the house's chips before the pots are pushed"
    if house.get("rake_timing", "end") == "end":
        assert len(told) == (1 if rake + drop else 0)  # at the settlement, at once
    else:  # as the pot grows: each take at the end of a betting round, just before a street
        kinds = [e.kind for e in replay.events]
        for effect in told[:-1]:
            assert kinds[replay.events.index(effect) + 1] == "street"


def test_the_scripts_cover_every_street_side_pots_odd_chips_and_both_variants():
    hands = [play(with_house(read_script(path.read_text()), {})).hand for path in AWARDED]
    assert {hand.street for hand in hands} == {3, 4, 5, 6, 7}
    assert any(len(hand.pots) > 2 for hand in hands)
    assert any(
        any(len(pot.shares) > 1 and pot.amount % len(pot.shares) for pot in hand.pots)
        for hand in hands
    )
    assert {hand.rules.variant.value for hand in hands} == {"luck-of-the-irish", "seven-card-stud"}
    main_smaller = [hand for hand in hands if len(hand.pots) > 1]
    assert any(contested(hand) > 2 * hand.pots[0].amount for hand in main_smaller)


def test_a_third_street_fold_pays_no_rake_from_fourth_street_but_does_from_third():
    script = read_script((HANDS / "everyone_folds.json").read_text())
    third = play(with_house(script, {"rake_percent": 10, "rake_cap": 5})).hand
    fourth = play(
        with_house(script, {"rake_percent": 10, "rake_cap": 5, "rake_from": "fourth_street"})
    ).hand
    # antes 3, the bring-in 2 and the completion to 5: 3 of it uncalled, back to seat 1
    assert contested(third) == 7 and third.rake == 0  # 10% of 7 is less than a chip
    big = {"rake_percent": 50, "rake_cap": 5}
    assert play(with_house(script, big)).hand.rake == 3  # half of 7, in whole chips
    assert play(with_house(script, {**big, "rake_from": "fourth_street"})).hand.rake == 0
    assert fourth.rake == 0 and fourth.pots[0].amount == 10


def test_the_words_the_dealer_reads_and_a_table_without_a_rake_reads_as_before():
    script = read_script((HANDS / "three_all_ins_side_pots.json").read_text())
    house = {"rake_percent": 10, "rake_cap": 5, "jackpot_drop": 1, "jackpot_drop_at": 50}
    replay = play(with_house(script, house))
    messages = [e.message for e in replay.events]
    assert "RAKE 5, JACKPOT 1: drop 6" in messages
    assert any(m.startswith("main pot of 38 (6 to the house) to seat") for m in messages)
    plain = to_json(play(script))
    assert "rake" not in plain and "jackpot_drop" not in plain
    assert all("taken" not in pot for pot in plain["pots"])
    assert "rake" not in json.dumps(play(script).hand.to_json())


def test_the_hand_with_its_take_round_trips_through_json():
    script = read_script((HANDS / "three_all_ins_side_pots.json").read_text())
    hand = play(with_house(script, {"rake_percent": 100, "rake_cap": 60})).hand
    assert hand.pots[0].amount == 0 and hand.pots[0].taken == 44  # all of the main pot
    assert Hand.from_json(json.loads(json.dumps(hand.to_json()))) == hand


@pytest.mark.parametrize(
    ("settings", "field", "says"),
    [
        ({"rake_percent": 101, "rake_cap": 5}, "rake_percent", "0 (no rake) to 100"),
        ({"rake_percent": -1}, "rake_percent", "0 (no rake) to 100"),
        ({"rake_percent": 5}, "rake_cap", "positive number of chips with a rake set"),
        ({"rake_percent": 5, "rake_cap": 3, "rake_step": 0}, "rake_step", "positive"),
        ({"rake_cap": -3}, "rake_cap", "must not be negative"),
        ({"rake_percent": 5, "rake_cap": 3, "rake_step": 2}, "rake_cap", "whole number of steps"),
        ({"rake_from": "seventh_street"}, "rake_from", "third_street, fourth_street"),
        ({"rake_timing": "hourly"}, "rake_timing", "is not one of end, street"),
        ({"jackpot_drop": 1}, "jackpot_drop_at", "positive pot size with a jackpot drop"),
        ({"jackpot_drop": -1, "jackpot_drop_at": 5}, "jackpot_drop", "must not be negative"),
        ({"jackpot_drop": "1", "jackpot_drop_at": 5}, "jackpot_drop", "whole number"),
    ],
)
def test_bad_house_settings_are_refused_naming_the_setting(settings, field, says):
    with pytest.raises(RulesError) as caught:
        Rules.from_mapping(settings)
    assert caught.value.field == field, caught.value
    assert says in caught.value.reason


def test_the_table_s_game_section_sets_the_house_s_take(tmp_path):
    data = example()
    data["game"] = {"rake_percent": 5, "rake_cap": 4, "rake_from": "fourth_street"}
    data["game"] |= {"jackpot_drop": 1, "jackpot_drop_at": 40}
    rules = parse_config(data, tmp_path).settings.rules
    assert (rules.rake_percent, rules.rake_cap, rules.rake_step) == (5, 4, 1)
    assert rules.rake_from is RakeFrom.FOURTH_STREET
    assert (rules.jackpot_drop, rules.jackpot_drop_at) == (1, 40)
    assert Rules().to_json() == {
        name: value
        for name, value in Rules(rake_percent=0, jackpot_drop=0).to_json().items()
        if not name.startswith(("rake", "jackpot"))
    }


def test_a_void_hand_gets_back_what_the_house_took_as_the_pot_grew():
    script = read_script((HANDS / "rake_as_the_pot_grows.json").read_text())
    step = start_hand(script.rules, script.seats)
    hand, cards, actions = step.hand, list(script.cards), list(script.actions)
    while hand.street < 4 or hand.phase is not Phase.DEAL:  # to fourth street's burn
        waiting = hand.waiting_for
        item = Deal(cards.pop(0)) if waiting.kind == "card" else actions.pop(0)
        hand = hand.apply(item).hand
    assert (hand.rake, hand.jackpot_drop, hand.took) == (1, 0, (1, 0))
    assert [pot.amount for pot in hand.current_pots()] == [17]  # 18 in, 1 of it taken
    void = hand.apply(Action(Do.VOID))
    assert [e.message for e in void.effects][:1] == [
        "RETURN RAKE 1: 1 from the drop box, with the hand's chips"
    ]
    assert (void.hand.rake, void.hand.jackpot_drop) == (0, 0)
    assert void.hand.stacks() == script.seats
