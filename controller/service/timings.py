"""How long the table service takes where it counts, as Prometheus histograms (the
``prometheus_client`` library's registry of this process; ``GET /metrics`` serves them):
each journal commit (the write and its fsync), and each card from the moment the driver
delivered it to the moment the table has applied it (journaled first)."""

from __future__ import annotations

from prometheus_client import Histogram

#: Seconds: from 0.5 ms to 2.5 s (a card is due within the wire time plus 10 ms).
BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)

COMMIT_SECONDS = Histogram(
    "luck_table_journal_commit_seconds",
    "Time to write and sync one journal transaction",
    buckets=BUCKETS,
)
CARD_SECONDS = Histogram(
    "luck_table_card_seconds",
    "Time from a card read by the shoe's driver to the table having it (journaled, applied)",
    buckets=BUCKETS,
)
