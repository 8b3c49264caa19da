"""The cheat soak's short version: ``bench/cheat_soak.py`` with a few hands through the
simulators and the service, 8-handed, cheats at random places: every cheat caught at its
card, the same as on the core; and how it reads the summary."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.cheat_soak import at_the_card, caught
from tests.bench_kit import rows, run_short


@pytest.mark.slow
def test_the_cheat_soak_catches_every_cheat_through_the_service_as_the_core_does(
    tmp_path: Path,
) -> None:
    """8-handed, a cheat at every deck, at random places: the seed's include the bonus card
    and a sixth-street card, each caught at its card, through the service as on the core."""
    out, figures = run_short("cheat_soak", tmp_path)  # 12 hands, 1.0 cheats a deck, seed 16
    assert out.rstrip().endswith("PASS")
    assert "12 hands at 8 seats" in out
    assert ", 0 missed;" in out and "the same as the core's: True" in out
    assert "each caught at its card: True" in out
    places = next(line for line in out.splitlines() if "cheats dealt at:" in line)
    assert "bonus card 1" in places and "street 6" in places, places
    assert "cards dealt after a cheat before its alert: 0 for 12; most 0" in out
    assert figures["checks"] == {
        "both runs ended with status 0": True,
        "every cheat injected caught, at least one injected": True,
        "the cheats and the hands the same as the core's": True,
        "each cheat caught at its card (no card dealt after it before its alert)": True,
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


def test_the_summary_is_read_kind_by_kind() -> None:
    output = "cheats: 3 injected, 2 caught (cloned 1/1, foreign 1/2); 1 missed\n"
    assert caught(output) == {"cloned": (1, 1), "foreign": (1, 2)}
    assert caught("cheats: none\n") == {}
