"""The link benchmark's short version: ``bench/link.py`` with 50 cards over a paced pty and
5,000 frames decodes, delivers every card and reads the whole socket stream (``--json``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench_kit import rows, run_short

pytestmark = pytest.mark.slow  # a benchmark's process


def test_the_link_benchmark_delivers_every_card(tmp_path: Path) -> None:
    _, figures = run_short("link", tmp_path)
    assert figures["checks"] == {
        "every card drawn reached the consumer": True,
        "TcpTransport (drivers) read the whole stream": True,
        "pyserial socket:// handler read the whole stream": True,
    }
    latency = figures["figures"]["latency"]
    assert latency["cards"] == 50 and latency["wire_ms"] > 2
    assert latency["end_to_end"]["p50_ms"] > latency["wire_ms"]  # the wire is the floor
    assert rows(figures)["a 115200-baud line carries"]["value"] == 480
