import json

import pytest

from controller.rules import (
    BonusTiming,
    HeadsUpUncapped,
    OddChip,
    Rules,
    RulesError,
    ShowdownMode,
    Variant,
    WildBringIn,
)


def test_defaults_are_the_house_rules_of_the_brief():
    rules = Rules()
    assert rules.variant is Variant.LUCK_OF_THE_IRISH
    assert (rules.ante, rules.bring_in, rules.small_bet, rules.big_bet) == (1, 2, 5, 10)
    assert rules.max_raises == 3
    assert rules.heads_up_uncapped is HeadsUpUncapped.ANY_TIME
    assert rules.open_pair_big_bet is True
    assert rules.burn is True
    assert rules.bonus_timing is BonusTiming.IMMEDIATE
    assert rules.bonus_price == 0
    assert rules.wild_bring_in is WildBringIn.ACE
    assert rules.double_ace_flush is False
    assert rules.showdown is ShowdownMode.AUTO
    assert rules.odd_chip is OddChip.SEAT_ORDER
    assert rules.wild


def test_from_mapping_coerces_enum_values_and_round_trips_json():
    rules = Rules.from_mapping(
        {"variant": "seven-card-stud", "bonus_timing": "end_of_street", "bonus_price": 5}
    )
    assert rules.variant is Variant.SEVEN_CARD_STUD
    assert not rules.wild
    assert rules.bonus_timing is BonusTiming.END_OF_STREET
    again = Rules.from_mapping(json.loads(json.dumps(rules.to_json())))
    assert again == rules


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        ({"colour": "green"}, None),  # no such setting: the words name it
        ({"variant": "razz"}, "variant"),
        ({"ante": 0}, "ante"),
        ({"big_bet": "10"}, "big_bet"),
        ({"burn": 1}, "burn"),
        ({"bonus_price": -1}, "bonus_price"),
        ({"max_raises": -2}, "max_raises"),
        ({"bring_in": 6}, "bring_in"),
        ({"small_bet": 20}, "small_bet"),
        ({"odd_chip": "dealer"}, "odd_chip"),
    ],
)
def test_bad_settings_are_refused_by_name(overrides, fragment):
    with pytest.raises(RulesError) as info:
        Rules.from_mapping(overrides)
    assert info.value.field == fragment
    named = "rules: unknown setting 'colour'" if fragment is None else f"rules.{fragment}: "
    assert str(info.value).startswith(named)  # the words name it too
