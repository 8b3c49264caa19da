"""The floor's times across steps of a table's wall clock (docs/floor.md, "The floor's
clock"): the shipper stamps each batch with the table's clock and its steps since the
batch's last entry, and the floor puts every fact's time on its own clock, so that its
hourly totals and its judgement of a silent table stay right whatever the table's clock
does.

The first tests are of the arithmetic alone; then journals shipped into a real PostgreSQL;
then ``luck-table sim`` (the simulators, the service and its shipper process) under
libfaketime, its wall clock stepped an hour forward and two hours back while it deals.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest

from controller.floor import facts as f
from controller.floor import store
from controller.floor.clock import TOLERANCE, FloorTime, TableClock
from controller.floor.derive import Point, derive
from controller.floor.migrate import migrate
from controller.journal import Entry, Journal
from controller.recovery import initial_table
from controller.table import ClockStepped, SitDown
from tests.floor_kit import JournalWriter, floor_database
from tests.waiting import wait_until

HOUR = 3_600_000  # ms
#: libfaketime (Debian's ``faketime`` package): a process's wall clock stepped from a file,
#: its monotonic clock left alone, as NTP or an operator steps a machine's clock.
FAKETIME = Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1")
LUCK_TABLE = str(Path(sys.executable).parent / "luck-table")


def entry(position: int, at: float, kind: str = "new_hand", **fields: object) -> Entry:
    return Entry(position, at, "table", kind, dict(fields), None, None, None)


def batch(entries: tuple[Entry, ...], sent_at: int | None, steps_after: int = 0) -> f.Batch:
    journal = f.Journal("T-01", "table 1", 0.0, "t.sqlite3", "id")
    status = f.Status("idle", 0, "", None, None, None, 0, (), None)
    return f.Batch(journal, entries, (), status, "test", sent_at, steps_after)


def ms(at: datetime | None) -> int:
    assert at is not None
    return round(at.timestamp() * 1000)


def test_each_entry_s_time_goes_onto_the_floor_s_clock_by_the_steps_after_it() -> None:
    """Entry 2 was stamped before a step of an hour forward (entry 3), entry 4 after it;
    the batch was sent with the table's clock an hour and 10 s ahead of the floor's and a
    further step of 10 s after its last entry."""
    now = 1_800_000_000_000
    entries = (
        entry(2, 0.0),
        entry(3, 0.0, "clock_stepped", step=HOUR),
        entry(4, 0.0),
    )
    clock = FloorTime(batch(entries, now + HOUR + 10_000, 10_000), now)
    assert ms(clock.at(now - 60_000, 2)) == now - 60_000  # before both steps: as stamped
    assert ms(clock.at(now + HOUR - 30_000, 3)) == now - 30_000
    assert ms(clock.at(now + HOUR - 1_000, 4)) == now - 1_000
    assert clock.at(None, 4) is None
    # within the tolerance (a healthy table's network and batching delays): as stamped
    near = FloorTime(batch(entries[2:], now - TOLERANCE), now)
    assert ms(near.at(now - 5_000, 4)) == now - 5_000
    off = FloorTime(batch(entries[2:], now - TOLERANCE - 1), now)
    assert ms(off.at(now - 5_000, 4)) == now - 5_000 + TOLERANCE + 1
    # a batch without sent_at (made by hand): as stamped whatever the floor's clock
    assert ms(FloorTime(batch(entries, None), now).at(now + HOUR, 4)) == now + HOUR


def write(path: Path, start: int, step: int = 0, hands: int = 4) -> Path:
    """A journal of ``hands`` hands at a table of three, stamped a second apart from
    ``start`` (ms); with ``step``, the table's clock steps by it (a ``clock_stepped``
    entry) after half of them."""
    rng = random.Random(5)
    writer = JournalWriter(path, start, durable=False)
    for seat in (1, 2, 4):
        writer.ok(SitDown(at=0, seat=seat, player=f"P{seat}", buy_in=500))
    for number in range(hands):
        if step and number == hands // 2:
            writer.clock += step
            writer.ok(ClockStepped(at=0, step=step))
        writer.play_hand(rng)
    writer.close()
    return path


def test_the_table_clock_counts_the_steps_journaled_after_a_batch_and_the_one_not_yet(
    tmp_path: Path,
) -> None:
    path = write(tmp_path / "t.sqlite3", 1_800_000_000_000, step=HOUR)
    skew = [HOUR / 1000]  # the table's clock now: an hour ahead of the monotonic one's start
    with Journal.open(path, create=False) as journal:
        entries = list(journal.entries())
        stepped = next(e.position for e in entries if e.type == "clock_stepped")
        clock = TableClock(journal, wall=lambda: 1000.0 + skew[0], monotonic=lambda: 1000.0)
        before = tuple(entries[: stepped - 1])
        assert clock.stamp(before) == (round((1000.0 + skew[0]) * 1000), HOUR)
        through = tuple(entries[stepped - 1 : stepped + 3])
        assert clock.stamp(through)[1] == 0
        # a new shipper, started after the step was journaled, shipping from the start
        late = TableClock(journal, wall=lambda: 1000.0 + skew[0], monotonic=lambda: 1000.0)
        assert late.stamp(before)[1] == HOUR
        assert late.stamp(tuple(entries[stepped - 1 :]))[1] == 0
        skew[0] -= 2 * HOUR / 1000  # stepped two hours back, not journaled yet
        assert clock.stamp(tuple(entries[-3:]))[1] == -2 * HOUR
        assert late.stamp(tuple(entries[-3:]))[1] == -2 * HOUR


# --- into PostgreSQL ------------------------------------------------------------------------


def ship(dsn: str, path: Path, table_id: str, wall: Callable[[], float] | None) -> None:
    """The journal at ``path`` shipped whole as ``table_id`` in batches of 25, as the
    shipper ships it, stamped by a table clock reading ``wall`` (None: unstamped, as a
    batch made by hand)."""
    with (
        Journal.open(path, create=False) as journal,
        store.connect(dsn, autocommit=True) as connection,
    ):
        which = store.shipped(journal, table_id, table_id)
        store.register(connection, which, "test")
        point = Point(0, initial_table())
        clock = None if wall is None else TableClock(journal, wall=wall)
        while (derived := derive(journal, point, 25)).entries:
            sent_at, steps = (None, 0) if clock is None else clock.stamp(derived.entries)
            made = f.Batch(
                which, derived.entries, derived.facts, derived.status, "t", sent_at, steps
            )
            store.ingest(connection, made)
            point = derived.point


@pytest.mark.slow  # PostgreSQL
def test_a_stepped_table_s_hands_are_in_the_floor_s_hours_and_a_healthy_one_s_as_stamped(
    tmp_path: Path,
) -> None:
    """Four journals of the same hands, stamped over the last minutes: an unstamped one
    (as a batch made by hand), one of a table whose clock agrees with the floor's, one whose
    clock stepped an hour forward halfway and one whose clock stepped an hour back, each
    shipped once its clock stands where the step left it. The healthy table's times are
    stored as stamped; the stepped tables' are the healthy one's, hour for hour."""
    start = round(time.time() * 1000) - 600_000
    journals = {
        "HAND": (write(tmp_path / "a.sqlite3", start), None),
        "GOOD": (write(tmp_path / "b.sqlite3", start), time.time),
        "AHEAD": (write(tmp_path / "c.sqlite3", start, HOUR), lambda: time.time() + 3600),
        "BEHIND": (write(tmp_path / "d.sqlite3", start, -HOUR), lambda: time.time() - 3600),
    }
    with floor_database() as dsn:
        with psycopg.connect(dsn, autocommit=True) as connection:
            migrate(connection)
        for table_id, (path, wall) in journals.items():
            ship(dsn, path, table_id, wall)
        with psycopg.connect(dsn) as connection:

            def hands(table_id: str) -> list[tuple[int, datetime, datetime | None]]:
                return [
                    (h.number, h.started_at, h.ended_at) for h in store.hands(connection, table_id)
                ]

            healthy = hands("GOOD")
            assert len(healthy) == 4 and healthy == hands("HAND")
            for table_id in ("AHEAD", "BEHIND"):
                stepped = hands(table_id)
                assert [h[0] for h in stepped] == [h[0] for h in healthy]
                for (number, started, ended), (_, good_start, good_end) in zip(
                    stepped, healthy, strict=True
                ):
                    # the hands after the step: a second later (the clock_stepped entry's)
                    later = timedelta(seconds=1 if number > 2 else 0)
                    assert abs(started - good_start - later) < timedelta(seconds=0.5), table_id
                    assert ended is not None and good_end is not None
                    assert abs(ended - good_end - later) < timedelta(seconds=0.5), table_id
            hourly = {
                table_id: [(r.hour, r.hands) for r in store.hands_per_hour(connection, table_id)]
                for table_id in journals
            }
            assert hourly["AHEAD"] == hourly["BEHIND"] == hourly["GOOD"] == hourly["HAND"]
            seen = {t.table_id: t for t in store.tables(connection)}
            last = seen["GOOD"].last_entry_at
            assert last is not None
            for table_id in ("AHEAD", "BEHIND"):
                other = seen[table_id].last_entry_at
                assert other is not None and abs(other - last) < timedelta(seconds=2)


# --- a real table under a stepped clock -----------------------------------------------------


@pytest.mark.slow  # PostgreSQL and processes
@pytest.mark.skipif(
    not FAKETIME.exists(), reason="libfaketime is not installed (apt-get install -y faketime)"
)
def test_the_simulated_table_under_a_stepped_clock_keeps_the_floor_s_hours_and_silence(
    tmp_path: Path,
) -> None:
    """``luck-table sim --floor`` (the service and its shipper process) under libfaketime:
    its wall clock stepped an hour forward while it deals, then two hours back. Every hand
    lands on the floor within the run's own span by the floor's clock, the hourly totals
    count them in the run's hours, and the table is never judged silent while it deals,
    but is once it stops."""
    offset = tmp_path / "faketime"
    offset.write_text("+0\n")
    environment = {
        **os.environ,
        "LD_PRELOAD": str(FAKETIME),
        "FAKETIME_TIMESTAMP_FILE": str(offset),
        "FAKETIME_CACHE_DURATION": "1",  # the file read once a second: a step within it
        "FAKETIME_DONT_FAKE_MONOTONIC": "1",
    }
    table = "CLOCK"
    with floor_database() as dsn, psycopg.connect(dsn, autocommit=True) as connection:
        migrate(connection)

        def floor_now() -> datetime:
            row = connection.execute("SELECT now()").fetchone()
            assert row is not None
            return row[0]  # type: ignore[no-any-return]

        def ended() -> int:
            row = connection.execute(
                "SELECT count(*) FROM floor_hands WHERE table_id = %s AND ended_at IS NOT NULL",
                (table,),
            ).fetchone()
            return 0 if row is None else int(row[0])

        def steps() -> list[int]:
            rows = connection.execute(
                "SELECT (fields->>'step')::bigint FROM floor_journal_entries "
                "WHERE table_id = %s AND type = 'clock_stepped' ORDER BY position",
                (table,),
            ).fetchall()
            return [int(row[0]) for row in rows]

        def heard_from() -> None:
            (seen,) = store.tables(connection, table, silent_after=5.0)
            assert not seen.silent, seen.last_seen
            assert floor_now() - seen.last_seen < timedelta(seconds=5)

        began = floor_now()
        journal = tmp_path / "sim.sqlite3"
        command = [LUCK_TABLE, "sim", "--hands", "0", "--speed", "max", "--seats", "3"]
        command += ["--table-id", table, "--journal", str(journal), "--floor", dsn]
        with (tmp_path / "sim.out").open("wb") as out:
            process = subprocess.Popen(command, stdout=out, stderr=out, env=environment)
        try:
            wait_until(lambda: ended() >= 1, "a hand on the floor", 120)
            offset.write_text("+3600\n")  # NTP steps the table's clock an hour forward
            count = ended()
            wait_until(lambda: len(steps()) == 1 and ended() > count, "the step forward", 120)
            heard_from()
            offset.write_text("-3600\n")  # and two hours back
            count = ended()
            wait_until(lambda: len(steps()) == 2 and ended() > count, "the step back", 120)
            heard_from()
            process.send_signal(signal.SIGTERM)
            process.wait(60)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(30)
        finished = floor_now()
        assert [round(step / 60_000) for step in steps()] == [60, -120]
        # the table stopped: silent once the floor has not heard from it for a second
        wait_until(
            lambda: store.tables(connection, table, silent_after=1.0)[0].silent,
            "the stopped table judged silent",
            10,
        )
        rows = connection.execute(
            "SELECT started_at, ended_at FROM floor_hands WHERE table_id = %s "
            "AND ended_at IS NOT NULL",
            (table,),
        ).fetchall()
        margin = timedelta(seconds=TOLERANCE / 1000 + 1)
        for started_at, ended_at in rows:
            assert began - margin <= started_at <= ended_at <= finished + margin
        hours = {
            at.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
            for at in (began, finished)
        }
        hourly = store.hands_per_hour(connection, table)
        assert {row.hour.astimezone(UTC) for row in hourly} <= hours
        assert sum(row.hands for row in hourly) == len(rows) >= 3
