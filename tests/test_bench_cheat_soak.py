"""The cheat soak's short version: ``bench/cheat_soak.py`` with a few hands through the
simulators and the service, 8-handed, cheats at random places: every cheat caught at its
card (a clone dealt before its original when the original comes out), the same as on the
core; and how it reads the summary."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.cheat_soak import at_the_card, caught, counted
from tests.bench_kit import rows, run_short


@pytest.mark.slow
def test_the_cheat_soak_catches_every_cheat_through_the_service_as_the_core_does(
    tmp_path: Path,
) -> None:
    """8-handed, a cheat at every deck, at random places: the seed's include a card dealt
    after the short deck's scramble and every cheat at a seat (a switch, a card passed, one
    from the muck, a holdout), each caught at its card, and clones of the 4c caught when
    the 4c comes out, through the service as on the core."""
    out, figures = run_short("cheat_soak", tmp_path)  # 12 hands, 1.0 cheats a deck, seed 5
    assert out.rstrip().endswith("PASS")
    assert "12 hands at 8 seats" in out
    assert ", 0 missed, 0 the table cannot catch;" in out and "core's: True" in out
    assert "(a clone dealt before its original: when the original comes out): True" in out
    places = next(line for line in out.splitlines() if "cheats dealt at:" in line)
    assert "street 7 after the scramble 1" in places, places
    assert "caught after their card: cloned_4c 2 (most " in out
    for kind in ("switched 2/2", "passed 1/1", "mucked 1/1", "holdout 1/1", "cloned_4c 2/2"):
        assert kind in out, kind
    assert figures["checks"] == {
        "both runs ended with status 0": True,
        "every cheat injected caught but those the table cannot catch, at least one injected": (
            True
        ),
        "the cheats and the hands the same as the core's": True,
        "each cheat caught at its card (no card dealt after it before its alert), "
        "a clone dealt before its original when the original comes out": True,
    }
    kinds = figures["figures"]["kinds"]
    assert (
        sum(kind["injected"] for kind in kinds.values())
        == rows(figures)["cheats injected"]["value"]
    )
    assert all(kind["caught"] == kind["injected"] for kind in kinds.values())


def test_a_cheat_caught_after_its_card_fails_the_soak() -> None:
    assert at_the_card("cards dealt after a cheat before its alert: 0 for 12; most 0\n")
    late = "cards dealt after a cheat before its alert: 0 for 11, 3 for 1; most 3\n"
    assert not at_the_card(late)
    assert not at_the_card("cheats: none\n")
    # only a clone dealt before its original may be caught after its card
    assert at_the_card(late + "caught after their card: cloned_undealt 1 (most 3)\n")
    assert at_the_card(late + "caught after their card: none\n")
    assert not at_the_card(late + "caught after their card: passed 1 (most 3)\n")


def test_the_cheats_the_table_cannot_catch_are_read_apart_from_those_missed() -> None:
    output = (
        "cheats: 5 injected, 3 caught (cloned_undealt 1/2, foreign 2/3); 1 the table cannot "
        "catch (a clone dealt before its original, which stayed in the shoe: cloned_undealt "
        "1); 1 missed\n"
    )
    assert caught(output) == {"cloned_undealt": (1, 2), "foreign": (2, 3)}
    assert (counted(output, "missed"), counted(output, "the table cannot catch")) == (1, 1)


def test_the_summary_is_read_kind_by_kind() -> None:
    output = "cheats: 3 injected, 2 caught (cloned 1/1, foreign 1/2); 1 missed\n"
    assert caught(output) == {"cloned": (1, 1), "foreign": (1, 2)}
    assert caught("cheats: none\n") == {}
