"""The dealer soak's short version: ``bench/dealer_soak.py`` with a few hands, cable pulls,
line faults and a SIGKILL of the table service while the human dealer deals: no alert but
the links' own, the chips conserved, the fingerprint of the pure core's hands; and with
the dealer's mistakes, every card where it lies."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.bench_kit import rows, run_short

CHECKS = {
    "every hand dealt": True,
    "the chips conserved": True,
    "no alert but the links' own and the mistakes'": True,
    "every card checked where it lies": True,
    "the hands the same as the core's": True,
}


@pytest.mark.slow
def test_the_dealer_soak_deals_through_pulls_faults_and_a_kill(tmp_path: Path) -> None:
    out, figures = run_short("dealer_soak", tmp_path)  # 3 hands, 6 seats, a kill, seed 2
    assert "1 SIGKILLs of the service" in out
    assert re.search(r"beyond the links' own: 0$", out, re.M), out
    assert "chips: conserved" in out and ": equal" in out
    assert figures["checks"] == CHECKS
    assert rows(figures)["SIGKILLs of the service"]["value"] == 1
    assert rows(figures)["alerts beyond the links' own"]["value"] == 0


@pytest.mark.slow
def test_the_dealer_soak_with_mistakes_leaves_every_card_where_it_lies(tmp_path: Path) -> None:
    out, figures = run_short("dealer_soak_mistakes", tmp_path)  # 4 hands, 8 seats, mistakes
    assert figures["checks"] == CHECKS
    assert figures["figures"]["mistakes"] == 0.05
    assert re.search(r"the core's run \(the mistakes' own\): [1-9]\d*, the same$", out, re.M)
    assert re.search(r"cards checked where they lie: [1-9]\d*, elsewhere: 0$", out, re.M)
    for mistake in ("a card out of order", "a wrong correction, corrected back"):
        assert f"mistake: {mistake} " in out, out
    assert "chips: conserved" in out and ": equal" in out
