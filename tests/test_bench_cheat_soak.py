"""The cheat soak's short version: ``bench/cheat_soak.py`` with a few hands through the
simulators and the service, 8-handed, cheats at random places: every cheat caught at its
card (a clone dealt before its original when the original comes out), the same as on the
core; and how it reads the sim's summary (its ``--json``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench.cheat_soak import at_the_card, caught, late
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
    assert figures["checks"] == {
        "both runs ended with status 0": True,
        "every cheat injected caught but those the table cannot catch, at least one injected": (
            True
        ),
        "the cheats and the hands the same as the core's": True,
        "each cheat caught at its card (no card dealt after it before its alert), "
        "a clone dealt before its original when the original comes out": True,
    }
    measured = figures["figures"]
    assert measured["dealt_at"]["street 7 after the scramble"] == 1, measured["dealt_at"]
    late = [after for after in measured["caught_after"] if after["cards"]]
    assert {after["kind"] for after in late} == {"cloned_4c"}
    assert sum(after["cheats"] for after in late) == 2
    kinds = measured["kinds"]
    for kind, count in (("switched", 2), ("passed", 1), ("mucked", 1), ("holdout", 1)):
        assert kinds[kind] == {"caught": count, "injected": count}, kind
    assert kinds["cloned_4c"] == {"caught": 2, "injected": 2}
    assert (
        sum(kind["injected"] for kind in kinds.values())
        == rows(figures)["cheats injected"]["value"]
    )
    assert all(kind["caught"] == kind["injected"] for kind in kinds.values())
    assert measured["chips_conserved"]


def caught_after(*after: tuple[str, int, int]) -> dict[str, Any]:
    """A summary's cheats (``luck-table sim --json``) with these kinds caught after cards."""
    return {"caught_after": [{"kind": k, "cards": c, "cheats": n} for k, c, n in after]}


def test_a_cheat_caught_after_its_card_fails_the_soak() -> None:
    assert at_the_card(caught_after(("foreign", 0, 12)))
    assert not at_the_card(caught_after(("foreign", 0, 11), ("foreign", 3, 1)))
    assert at_the_card(caught_after())
    # only a clone dealt before its original may be caught after its card
    assert at_the_card(caught_after(("foreign", 0, 11), ("cloned_undealt", 3, 1)))
    assert not at_the_card(caught_after(("cloned_undealt", 3, 1), ("passed", 3, 1)))


def test_the_summary_is_read_kind_by_kind() -> None:
    cheats = {"injected": {"cloned": 1, "foreign": 2}, "caught": {"cloned": 1}}
    assert caught(cheats) == {"cloned": (1, 1), "foreign": (0, 2)}
    assert caught({"injected": {}, "caught": {}}) == {}
    assert late(caught_after(("foreign", 0, 11), ("cloned_4c", 3, 1), ("passed", 0, 1))) == (
        "0 for 12, 3 for 1; most 3"
    )
