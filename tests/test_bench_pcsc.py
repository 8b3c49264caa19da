"""The PC/SC benchmark's short version: ``bench/pcsc.py`` with 1 hand deals the same hand
through a private pcscd with a virtual reader at the shoe and through the simulated shoe on
a pseudo-terminal, and writes its figures as JSON. Skipped, with the reason, where pcscd,
vpcd, pyscard or the rights for a private mount namespace are missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_sim import pcsc_rig
from tests.bench_kit import rows, run_short

pytestmark = [  # a pcscd of its own
    pytest.mark.skipif(pcsc_rig.missing() is not None, reason=str(pcsc_rig.missing())),
    pytest.mark.slow,
]


def test_pcsc_and_serial_deal_the_same_hand_and_each_card_is_timed(tmp_path: Path) -> None:
    out, figures = run_short("pcsc", tmp_path)
    assert figures["checks"] == {"the same hands on both": True, "as many cards on both": True}
    measured = figures["figures"]
    cards = measured["cards"]
    assert measured["hands"] == 1 and cards > 2 * 5
    assert len(measured["pcsc_made_ms"]) == len(measured["pcsc_table_ms"]) == cards
    assert len(measured["serial_ms"]) == cards
    # the table takes a card after its driver made it, never before
    assert all(
        made <= table
        for made, table in zip(measured["pcsc_made_ms"], measured["pcsc_table_ms"], strict=True)
    )
    by_what = rows(figures)
    assert by_what["PC/SC: tag in field to the table, p99"]["unit"] == "ms"
    assert by_what["serial: draw to the table, p50"]["value"] > 0
    assert "PC/SC: tag in field -> table" in out
