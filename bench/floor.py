"""Floor benchmark (issue 12): how many tables one floor store and one floor service keep up with.

A real journal is dealt first (``luck-table sim --speed max``: the simulators, the table
service, cards unread and misplaced). Its facts are derived at the table's side once
(``controller.floor.derive``, the shipper's own path), then each simulated table ships
that journal under its own table id, each from a thread with its own connection (as
each table's shipper has its own), into a database of the machine's PostgreSQL made for
the run and dropped after it.

1. Ingest capacity: N tables shipping as fast as the store takes it, one entry per batch
   (a caught-up shipper ships each commit alone) and 500 per batch (catching up): journal
   entries and hands per second, against 1 table measured in the same run.
2. Live lag: N tables shipping at a live table's pace (``Pace.real(1)``: 0.6 s a card,
   0.9 s a decision, 2 s between hands, so many entries a second as the journal has per
   hand over the hand's live time), each entry committed at its due time: p50/p99 from the
   entry's due time (its commit at the table) to the floor's commit, and to the pit view
   (a ``luck-table floor`` process, followed on its WebSocket): looking at each NOTIFY
   (the default), and with the poll alone (every second, as on a read replica).
3. Catch-up after a 10-minute outage: the journal a table writes in 10 live minutes (made
   here by dealing that many hands at full speed: the entries are the same, only the clock
   differs) shipped from position 0 by the table's own journal shipper
   (``controller.floor.shipper.Shipper``, started on it as a table service starts it when
   the floor is back), beside the 10 minutes it took to write.

Usage: .venv/bin/python bench/floor.py [--tables 8,32] [--hands 12] [--seconds 20]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import psycopg
from websockets.sync.client import connect as ws_connect

from controller.config import FloorSettings
from controller.floor import facts, store
from controller.floor.derive import Point, derive
from controller.floor.migrate import migrate
from controller.floor.scratch import scratch_database
from controller.floor.shipper import Shipper
from controller.floor.store import shipped
from controller.history.recovery import initial_table
from controller.journal import Journal
from controller.sim.dealer import Pace
from dealer_ui.auth import hash_pin

LUCK_TABLE = Path(sys.executable).with_name("luck-table")


def deal(folder: Path, hands: int, seed: int = 5) -> Path:
    path = folder / f"journal-{hands}-{seed}.sqlite3"
    subprocess.run(
        [
            *(str(LUCK_TABLE), "sim", "--hands", str(hands), "--speed", "max"),
            *("--seed", str(seed), "--unreadable", "0.02", "--misplaced", "0.02"),
            *("--journal", str(path)),
        ],
        check=True,
        capture_output=True,
    )
    return path


def batches(path: Path, size: int) -> list[tuple[tuple, tuple, facts.Status]]:
    """The journal's entries, facts and status in batches of ``size``, derived once."""
    journal = Journal.open(path, create=False)
    point, out = Point(0, initial_table()), []
    while True:
        derived = derive(journal, point, size)
        if not derived.entries:
            journal.close()
            return out
        out.append((derived.entries, derived.facts, derived.status))
        point = derived.point


def live_seconds(path: Path) -> tuple[float, int, int]:
    """The journal's live time at ``Pace.real(1)``, its entries, its hands."""
    journal = Journal.open(path, create=False)
    kinds = Counter(entry.type for entry in journal.entries())
    journal.close()
    pace = Pace.real(1)
    cards = kinds["CardRead"] + kinds["CardUnreadable"]
    seconds = cards * pace.card + kinds["decide"] * pace.decision + kinds["new_hand"] * pace.hand
    return seconds, sum(kinds.values()), kinds["new_hand"]


@contextlib.contextmanager
def database() -> Iterator[str]:
    """A floor store of its own, its schema applied."""
    with scratch_database("luck_floor_bench") as dsn:
        with psycopg.connect(dsn) as connection:
            migrate(connection)
        yield dsn


def ship_table(
    dsn: str,
    table_id: str,
    prepared: list,
    path: Path,
    due: list[float] | None = None,
    done: list[float] | None = None,
) -> None:
    """Ship ``prepared`` batches as table ``table_id``; with ``due``, batch i not before
    ``due[i]`` (monotonic), and its commit time appended to ``done``."""
    identity = facts.Journal(table_id, table_id, time.time(), str(path), f"bench-{table_id}")
    with store.connect(dsn) as connection:
        for number, (entries, found, status) in enumerate(prepared):
            if due is not None:
                wait = due[number] - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
            store.ingest(connection, facts.Batch(identity, entries, found, status, "bench"))
            if done is not None:
                done.append(time.monotonic())


def capacity(dsn: str, prepared: list, path: Path, tables: int, prefix: str) -> float:
    """Seconds for ``tables`` tables to ship ``prepared`` each, all at once."""
    threads = [
        threading.Thread(target=ship_table, args=(dsn, f"{prefix}-{n}", prepared, path))
        for n in range(tables)
    ]
    start = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.monotonic() - start


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


class PitWatcher(threading.Thread):
    """Follows the pit view's feed: when each table's last position was first seen."""

    def __init__(self, url: str, token: str) -> None:
        super().__init__(daemon=True)
        self.url, self.token = url, token
        self.seen: dict[tuple[str, int], float] = {}
        self.stop = False

    def run(self) -> None:
        with ws_connect(self.url.replace("http", "ws", 1) + f"/ws?token={self.token}") as ws:
            while not self.stop:
                try:
                    message = json.loads(ws.recv(timeout=1))
                except TimeoutError:
                    continue
                now = time.monotonic()
                for table in message.get("tables", ()):
                    self.seen.setdefault((table["table_id"], table["last_position"]), now)


def start_floor(folder: Path, dsn: str, listen: bool) -> tuple[subprocess.Popen, str, str]:
    config = folder / "floor.toml"
    config.write_text(
        f"[floor]\nlisten = {str(listen).lower()}\n"
        '[api]\nbind = "127.0.0.1"\n[[credentials.supervisors]]\nid = "pit"\n'
        f'pin_hash = "{hash_pin("9999")}"\n',
        encoding="utf-8",
    )
    log = folder / "floor.log"
    process = subprocess.Popen(
        [str(LUCK_TABLE), "floor", "--config", str(config), "--dsn", dsn, "--port", "0"],
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )
    while "is at " not in log.read_text():
        if process.poll() is not None:
            raise SystemExit(log.read_text())
        time.sleep(0.05)
    url = log.read_text().split("is at ", 1)[1].split()[0]
    import httpx  # noqa: PLC0415

    token = httpx.post(f"{url}/api/sessions", json={"id": "pit", "pin": "9999"}).json()["token"]
    return process, url, token


def live(
    dsn: str, folder: Path, path: Path, tables: int, seconds: float, rate: float, listen: bool
) -> dict:
    """``tables`` tables committing one entry every 1/rate s for ``seconds``: lag figures."""
    single = batches(path, 1)
    count = min(len(single), int(seconds * rate))
    process, url, token = start_floor(folder, dsn, listen)
    watcher = PitWatcher(url, token)
    watcher.start()
    time.sleep(1.5)
    start = time.monotonic() + 0.5
    offsets = [number / rate for number in range(count)]
    runs = []
    for n in range(tables):
        shift = (n / tables) / rate  # the tables' commits spread over each interval
        due = [start + shift + offset for offset in offsets]
        runs.append((f"L{tables}{'n' if listen else 'p'}-{n}", due, []))
    threads = [
        threading.Thread(target=ship_table, args=(dsn, t, single[:count], path, due, done))
        for t, due, done in runs
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    time.sleep(2.5)
    watcher.stop = True
    watcher.join()
    process.terminate()
    process.wait()
    floor_lag = [done[i] - due[i] for _, due, done in runs for i in range(count)]
    # the pit shows the latest position at each look: the lag of an entry is until a look
    # shows it or a later one
    pit_lag = []
    for table_id, due, _ in runs:
        shown = sorted((p, at) for (t, p), at in watcher.seen.items() if t == table_id)
        for i in range(count):
            later = [at for p, at in shown if p >= i + 1]
            if later:
                pit_lag.append(min(later) - due[i])
    return {
        "tables": tables,
        "entries": count * tables,
        "floor_p50": statistics.median(floor_lag),
        "floor_p99": percentile(floor_lag, 0.99),
        "pit_p50": statistics.median(pit_lag),
        "pit_p99": percentile(pit_lag, 0.99),
    }


def catch_up(dsn: str, path: Path) -> float:
    """Seconds for the table's shipper, started on the journal at ``path`` that the floor
    has none of, until the floor confirms its last entry."""
    journal = Journal.open(path, create=False)
    identity = shipped(journal, "OUTAGE", "outage")
    last = max(entry.position for entry in journal.entries())
    journal.close()
    shipper = Shipper(FloorSettings(dsn), identity)
    start = time.monotonic()
    shipper.start()
    while shipper.confirmed < last:
        time.sleep(0.005)
    took = time.monotonic() - start
    shipper.stop()
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="8,32", help="table counts to compare with 1")
    parser.add_argument("--hands", type=int, default=12, help="hands in the dealt journal")
    parser.add_argument("--seconds", type=float, default=20.0, help="live run length")
    args = parser.parse_args()
    counts = [int(n) for n in args.tables.split(",")]
    print(f"machine: {platform.node()}, {os.cpu_count()} cores, {platform.python_version()}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as folder_name, database() as dsn:
        folder = Path(folder_name)
        path = deal(folder, args.hands)
        seconds, entries, hands = live_seconds(path)
        rate = entries / seconds
        print(
            f"journal: {hands} hands, {entries} entries; at a live pace {seconds / hands:.0f} s "
            f"a hand = {3600 * hands / seconds:.0f} hands/h, {rate:.2f} entries/s a table"
        )
        for size in (1, 500):
            prepared = batches(path, size)
            print(f"\ningest capacity, {size} entr{'y' if size == 1 else 'ies'} per batch:")
            for tables in [1, *counts]:
                took = capacity(dsn, prepared, path, tables, f"C{size}-{tables}")
                per_second = tables * entries / took
                print(
                    f"  {tables:3d} tables: {per_second:8.0f} entries/s, "
                    f"{tables * hands / took:6.1f} hands/s = {per_second / rate:6.0f} live "
                    f"tables' production ({took:.1f} s)"
                )
        print(f"\nlive lag, each table at a live pace ({rate:.2f} entries/s), {args.seconds:g} s:")
        runs = [(tables, True) for tables in [1, *counts]] + [(max(counts), False)]
        for tables, listen in runs:
            figures = live(dsn, folder, path, tables, args.seconds, rate, listen)
            how = "NOTIFY + poll" if listen else "poll alone   "
            floor_p50 = figures["floor_p50"] * 1000
            print(
                f"  {tables:3d} tables, {how}: table->floor p50 {floor_p50:6.1f} ms "
                f"p99 {figures['floor_p99'] * 1000:6.1f} ms; table->pit view p50 "
                f"{figures['pit_p50'] * 1000:6.0f} ms p99 {figures['pit_p99'] * 1000:6.0f} ms "
                f"({figures['entries']} entries)"
            )
        outage_hands = math.ceil(hands * 600 / seconds)
        outage = deal(folder, outage_hands, seed=7)
        outage_seconds, outage_entries, _ = live_seconds(outage)
        took = catch_up(dsn, outage)
        print(
            f"\ncatch-up after a 10-minute outage: {outage_entries} entries ({outage_hands} "
            f"hands, {outage_seconds / 60:.1f} live minutes) shipped by the table's shipper in "
            f"{took:.2f} s: {outage_seconds / took:.0f}x the pace the table wrote them"
        )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
