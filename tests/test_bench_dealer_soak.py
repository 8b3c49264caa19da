"""The dealer soak's short version: ``bench/dealer_soak.py`` with a few hands, cable pulls,
line faults and a SIGKILL of the table service while the human dealer deals: no alert but
the links' own, the chips conserved, the fingerprint of the pure core's hands; and with
the dealer's mistakes, every card where it lies."""

from __future__ import annotations

import re

import pytest

from tests.bench_kit import run_bench


@pytest.mark.slow
def test_the_dealer_soak_deals_through_pulls_faults_and_a_kill() -> None:
    args = ("--hands", "3", "--seats", "6", "--unplugs", "0.05", "--kills", "1", "--seed", "2")
    out = run_bench("dealer_soak.py", *args)
    assert "1 SIGKILLs of the service" in out
    assert re.search(r"beyond the links' own: 0$", out, re.M), out
    assert "chips: conserved" in out and ": equal" in out


@pytest.mark.slow
def test_the_dealer_soak_with_mistakes_leaves_every_card_where_it_lies() -> None:
    args = ("--hands", "4", "--seats", "8", "--unplugs", "0.05", "--kills", "1", "--seed", "2")
    out = run_bench("dealer_soak.py", *args, "--mistakes", "0.05")
    assert re.search(r"the core's run \(the mistakes' own\): [1-9]\d*, the same$", out, re.M)
    assert re.search(r"cards checked where they lie: [1-9]\d*, elsewhere: 0$", out, re.M)
    for mistake in ("a card out of order", "a wrong correction, corrected back"):
        assert f"mistake: {mistake} " in out, out
    assert "chips: conserved" in out and ": equal" in out
