"""Table service benchmark: card latency, recovery, journal size, kills, past hands, attacks.

(a) Card latency through the whole service: the simulated shoe (a simulator process on a
    pseudo-terminal paced at 115200 baud) -> driver -> journal commit (WAL,
    synchronous=FULL) -> table core -> the update with its effects published (lamps sent),
    p50/p99 over CARDS cards dealt in real hands, from the moment the dealer's draw is sent
    to the simulator (so the figure includes the control channel's hop into it). Beside
    it, in the same run: the driver alone on the same simulator (no journal, no table), the
    whole service again shipping its journal to a floor store (a PostgreSQL database of its
    own, as the floor's tests make one; skipped without a server), the same with VIEWERS
    public viewers (200; ``--viewers 0`` skips it) on the console's feed (a process of
    their own), one SQLite commit (WAL, synchronous=FULL) on the same disk, and the CARD
    frame's wire time. Goals: the service's own share at p99 (its p99 minus the driver's
    alone, in the same run) at most one commit's p99 + 1 ms; p99 <= wire time + 10 ms.
(b) Recovery time for a journal of HANDS hands (written the way the service writes it:
    device events, people's inputs, a snapshot at each hand's end): opening the journal
    and rebuilding the table from the latest snapshot, beside replaying the whole journal
    from its start (what recovery would cost without snapshots). Goal: < 2 s for 10,000.
(c) Journal size per hand (bytes of the SQLite file after a checkpoint, per hand).
(d) ``--kills N``: the recovery test killing the service N times (50 by default; 0 skips).
(e) ``--history N``: card latency as in (a), with the console served, on a service whose
    journal already holds N hands (1,000 by default; written as in (b)): the CARDS cards
    (500 with ``--cards 0``, which skips (a)) dealt just before surveillance's first
    ``GET /api/history`` (no request), beside the cards drawn while that request is served
    (the whole journal replayed), and how long it took.
(f) ``--attacks N``: card latency as in (a), with the console served, while the console is
    under attack (docs/security.md): CARDS cards (500 with ``--cards 0``) with no request,
    then the cards drawn during a burst of N (100 by default) wrong sign-ins sent at once
    (the address is locked after 5: the rest are refused unchecked), during a burst of N
    that are all checked, one after the other (as N addresses would have them checked: the
    lockout and the number of attempts waiting for the checker raised for the run), and
    while 20 MiB request bodies are sent, one after the other, for ``--attack-seconds`` (10);
    then, each for as long: floods of tiny (10-byte) and of big (15 MiB) text frames on the
    public feed from 8 addresses of 127.0.0.0/8 (each feed closed is opened again), a
    player's phone sending decisions at a table where the dealer decides (refused), and a
    sweep of the dealer's PIN from 32 addresses at once (the sign-in's limits as
    configured). The attacks are sent by a process of their own, at nice 19: an attacker's
    machine takes none of the table's CPU, and on this one the attacker's process should
    not either (its requests are the service's to handle, its own work is not). A card's
    time runs from its draw's sending to its update (paired by the card: a draw refused, or
    a card the table does not deal, pairs with none). ``--attack-cards N``: the
    quiet cards (``--cards`` by default). Printed for
    each: its cards' p50 and p99 beside the quiet baseline of the same run, what it was
    answered, and the service's memory (RSS) before and after. Goals: p99 within the goal
    of (a) in each; the service's memory within 32 MiB of where it started.

(g) ``--resume N``: card latency as in (a) on a service whose journal holds N hands (300
    by default; written as in (b)) that its floor does not hold: the cards drawn while the
    shipper catches up (a restarted table far ahead of its floor, the heaviest resume: the
    floor holds nothing), then CARDS cards after; with the shipper in a thread of the
    service's process (as before) and in a process of its own (as now). Goal: p99 within
    the goal of (a) while it catches up.
(h) ``--rotations N``: card latency as in (a) while the journal rotates into segments
    (``[journal] segment_hands``, docs/operations.md): the service starts on a journal of
    200 hands (the default segment's; written as in (b)) with ``segment_hands = N`` (5 by
    default), so that its first rotation seals a segment of the default size and the next
    ones one every N hands, at a hand's end, in a thread of the service's process, while
    the next hand is dealt. Deals until ROTATED rotations have ended and CARDS / SESSIONS
    cards are in; prints each rotation's duration (and its steps: the segment written and
    checked, recorded, the journal's file let go of it), then the p99 of the cards drawn during a
    rotation, of the first 10 cards after each, and of the cards drawn away from any (more
    than 1 s from each); in SESSIONS services (``--sessions``, 3 by default; each on a new
    journal), the rotating thread following the segment's hash chain without a pause (as
    before) and with (as now), in turns. Goal: p99 within the goal of (a) during and after a
    rotation.

Usage: .venv/bin/python bench/table.py [--cards N] [--hands N] [--kills N] [--history N]
[--attacks N] [--attack-cards N] [--attack-seconds S] [--json FILE] [--viewers N]
[--resume N] [--rotations N] [--sessions N] (0 skips a part). ``--json FILE``: every part's
figures as JSON (bench/figures_kit.py), under ``figures`` by part: ``latency``,
``recovery``, ``kills``, ``history``, ``attacks`` (each attack's cards, p50, p99, answers
and memory), ``resume``, ``rotations``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import platform
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any, NotRequired, TypedDict

import httpx
import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from figures_kit import LoadAverage, Report, add_json_option  # noqa: E402

from controller.journal import Input, Journal, rotation  # noqa: E402
from controller.journal.device_events import to_input  # noqa: E402
from controller.journal.segments import Segment  # noqa: E402
from controller.journal.snapshots import Snapshots  # noqa: E402
from controller.records import record_of, table_inputs  # noqa: E402
from controller.rules import Do  # noqa: E402
from controller.rules.hand import CardOut  # noqa: E402
from controller.service import Recovered, TableService, recover, steps  # noqa: E402
from controller.service import service as service_module  # noqa: E402
from controller.sim.dealer import Dealer, Tally  # noqa: E402
from controller.sim.service_floor import ServiceFloor  # noqa: E402
from controller.table import (  # noqa: E402
    Configure,
    Decide,
    NewHand,
    Rebuy,
    SitDown,
    Table,
    TableSettings,
    apply,
)
from dealer_ui import serve  # noqa: E402
from drivers.device import ShoeDriver  # noqa: E402
from drivers.events import (  # noqa: E402
    CardRead,
    DeviceId,
    DeviceInfo,
    LinkUp,
)
from drivers.protocol import (  # noqa: E402
    CardMessage,
    DeviceKind,
    encode_frame,
)
from drivers.session import LinkConfig  # noqa: E402
from firmware_sim.process import AsyncControl as Control  # noqa: E402
from firmware_sim.process import Control as SyncControl  # noqa: E402
from tests.floor_scratch import scratch_database  # noqa: E402
from tests.service_kit import BAUD, DEALER, SUPERVISOR, config, simulator  # noqa: E402
from tests.ws_kit import TEXT, RawFeed, frame  # noqa: E402

BITS_PER_BYTE = 10
BATCH = 50  # hands per transaction when writing a journal for (b)
REPLAY_SAMPLE = 20_000  # inputs replayed from the start to time a replay without snapshots
ROTATED = 4  # rotations (h) waits for in a session: the first of 200 hands, then every N
SESSIONS = 3  # services (h) starts for each way (--sessions)


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return statistics.median(ordered), p99


def wire_ms() -> float:
    """The wire time of a CARD frame at BAUD, in ms: (a)'s goal is p99 within it + 10 ms."""
    return len(encode_frame(0, CardMessage(51, 1, bytes(7)))) * BITS_PER_BYTE / BAUD * 1000


class Cards(TypedDict):
    """A run's cards, p50 and p99 (ms; None without cards), as JSON."""

    cards: int
    p50_ms: float | None
    p99_ms: float | None
    own_share_ms: NotRequired[float]  # (a)'s: its p99 less the driver's alone


def in_figures(samples: list[float]) -> Cards:
    """A run's cards, p50 and p99 (ms), as JSON."""
    if not samples:
        return {"cards": 0, "p50_ms": None, "p99_ms": None}
    p50, p99 = percentiles(samples)
    return {"cards": len(samples), "p50_ms": round(p50, 3), "p99_ms": round(p99, 3)}


def goal_row(out: Report, what: str, samples: list[float]) -> None:
    """A run's p99 against (a)'s goal, p99 <= the wire time + 10 ms."""
    if samples:
        p99 = percentiles(samples)[1]
        goal = wire_ms() + 10
        out.row(f"{what}, p99", p99, "ms", f"<= wire + 10 ms = {goal:.2f} ms", p99 <= goal)


class TimedControl(SyncControl):
    """The shoe's control channel, noting when the draw of each card was sent (by the card:
    a draw refused brings no card, and a card read may bring no card to the table, as while
    it is paused; pairing draws and updates in turn would then measure each card from the
    draw before it, the gap between two hands included)."""

    sent: dict[int, float]  # card code: when its draw was sent (until its update is in)

    def command(self, line: str, waits: float = 0.0) -> Any:
        started = time.perf_counter()
        reply = super().command(line, waits)
        if line == "draw":
            self.sent[reply["card"]] = started
        return reply


async def driver_alone(port: str, control_address: str, cards: int) -> list[float]:
    control = await Control.connect(control_address)
    samples = []
    async with ShoeDriver.from_url(port, LinkConfig(), baudrate=BAUD) as shoe:
        for number in range(cards):
            if number % 416 == 0:
                await control.command("load decks=8")
            start = time.perf_counter()
            await control.command("draw")
            while not isinstance(await shoe.next_event(), CardRead):
                pass
            samples.append((time.perf_counter() - start) * 1000)
    await control.close()
    return samples


class Dealing:
    """Hands dealt on a service by the automatic dealer (6 players) as fast as it goes:
    for each card, when its draw was sent and the ms until its update was published."""

    def __init__(self) -> None:
        self.cards: list[tuple[float, float]] = []
        self.tasks: list[asyncio.Task[None]] = []

    async def until(self, count: int) -> None:
        """Wait until ``count`` cards are in (raise the dealer's failure, if it fails)."""
        while len(self.cards) < count:
            for task in self.tasks:
                if task.done():
                    task.result()
                    raise RuntimeError("the dealing stopped")
            await asyncio.sleep(0.01)

    def ms(self, sent_from: float = 0.0, sent_to: float = float("inf")) -> list[float]:
        """The latencies of the cards whose draw was sent between these times."""
        return [ms for sent, ms in self.cards if sent_from <= sent <= sent_to]


@contextlib.asynccontextmanager
async def dealing(service: TableService, control_address: str) -> AsyncIterator[Dealing]:
    updates = service.updates()
    shoe = TimedControl(control_address)
    shoe.sent = {}
    tally = Tally()
    floor = ServiceFloor(service, shoe, None, tally.observe)
    await floor.ready()
    dealt = Dealing()

    async def collect() -> None:
        async for update in updates:  # a card read gives an update with the card out
            for effect in update.effects:
                if isinstance(effect, CardOut):
                    sent = shoe.sent.pop(effect.card, None)
                    if sent is not None:
                        dealt.cards.append((sent, (time.perf_counter() - sent) * 1000))

    dealer = Dealer(floor, tally, seats=6, hands=0, seed=1)
    dealt.tasks = [asyncio.create_task(dealer.run()), asyncio.create_task(collect())]
    try:
        yield dealt
    finally:
        for task in dealt.tasks:
            task.cancel()
        for outcome in await asyncio.gather(*dealt.tasks, return_exceptions=True):
            if not isinstance(outcome, asyncio.CancelledError):
                raise RuntimeError("the dealing stopped") from outcome
        await floor.close()
        shoe.close()


async def whole_service(
    folder: Path, port: str, control_address: str, cards: int, floor: str = "", viewers: int = 0
) -> list[float]:
    """Card latency through the service (shipping its journal to the floor at DSN
    ``floor``, when given; with ``viewers`` public viewers on its console's feed, from a
    process of their own, when given)."""
    folder.mkdir(exist_ok=True)
    floor_lines = f"dsn = {json.dumps(floor)}" if floor else ""
    settings = config(folder, port, floor=floor_lines, table_id=f"T-{folder.name}")
    # every viewer connects from this machine: one address with hundreds of feeds
    api = replace(settings.api, port=0, max_websockets=100_000, max_connections=100_000)
    settings = replace(settings, api=api)
    async with TableService(settings) as service, contextlib.AsyncExitStack() as stack:
        if viewers:
            served = await serve(service)
            stack.push_async_callback(served.stop)
            feed = served.url.replace("http", "ws", 1) + "/ws"
            await stack.enter_async_context(watched(feed, viewers))
        async with dealing(service, control_address) as dealt:
            await dealt.until(cards)
        hands = service.table.hand_number
        if service.shipper is not None:
            await shipped(service)
    size = journal_size(settings.journal)
    print(
        f"    journal of the live run: {size / max(hands, 1):,.0f} bytes per hand ({hands} hands)"
    )
    return dealt.ms()[:cards]


@contextlib.asynccontextmanager
async def watched(feed: str, viewers: int) -> AsyncIterator[None]:
    """``viewers`` public viewers on ``feed``, in a process of their own (bench/feeds.py's),
    each reading every update until the block ends."""
    client = await asyncio.create_subprocess_exec(
        sys.executable,
        str(ROOT / "bench" / "feeds.py"),
        "--viewers-of",
        *([feed] * viewers),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        limit=1 << 28,  # the viewers' report is one long line
    )
    assert client.stdin is not None and client.stdout is not None
    try:
        line = await asyncio.wait_for(client.stdout.readline(), 300)
        if line.strip() != b"ready":
            raise RuntimeError(f"the viewers did not connect: {line!r}")
        yield
        client.stdin.write(b"stop\n")
        await client.stdin.drain()
        report = json.loads(await asyncio.wait_for(client.stdout.readline(), 300))
        got = [len(each) for each in report["got"]]
        print(f"    {viewers} viewers on the feed got {min(got)} to {max(got)} updates each")
    finally:
        if client.returncode is None:
            client.kill()
        await client.wait()


def commit_times(folder: Path, commits: int = 500) -> list[float]:
    """ms of one SQLite commit (WAL, synchronous=FULL) of a row the size of a journal
    entry, on the journal's disk: the floor under the service's own share of a card."""
    db = sqlite3.connect(folder / "commits.sqlite3", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE t (n INTEGER PRIMARY KEY, body BLOB)")
    samples = []
    for number in range(commits):
        start = time.perf_counter()
        db.execute("BEGIN")
        db.execute("INSERT INTO t VALUES (?, ?)", (number, bytes(160)))
        db.execute("COMMIT")
        samples.append((time.perf_counter() - start) * 1000)
    db.close()
    return samples


async def shipped(service: TableService) -> None:
    """Wait until the floor holds the whole journal; say how long the catch-up took."""
    shipper = service.shipper
    assert shipper is not None
    started = time.perf_counter()
    while shipper.confirmed < service.position:
        if time.perf_counter() - started > 60:
            raise RuntimeError(f"the floor is at {shipper.confirmed} of {service.position}")
        await asyncio.sleep(0.01)
    print(
        f"    the floor held all {service.position} entries "
        f"{(time.perf_counter() - started) * 1000:.0f} ms after the last card"
    )


def journal_size(path: Path) -> int:
    """The journal file's size once its write-ahead log is checkpointed into it."""
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return path.stat().st_size


def latency(cards: int, viewers: int, out: Report) -> None:
    print(f"(a) card latency at {BAUD} baud over a pty, {cards} cards")
    frame = len(encode_frame(0, CardMessage(51, 1, bytes(7))))
    wire = wire_ms()
    runs: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as folder, simulator("shoe", seed=3) as shoe:
        control = shoe.announced["control"]
        runs["driver alone"] = asyncio.run(driver_alone(shoe.port, control, cards))
        runs["whole service"] = asyncio.run(
            whole_service(Path(folder) / "alone", shoe.port, control, cards)
        )
        with contextlib.ExitStack() as stack:
            try:
                dsn = stack.enter_context(scratch_database("luck_floor_bench"))
            except psycopg.OperationalError as error:
                print(f"    (no floor run: no PostgreSQL for it: {error})")
            else:
                runs["with a floor"] = asyncio.run(
                    whole_service(Path(folder) / "floor", shoe.port, control, cards, dsn)
                )
                if viewers:
                    name = f"floor+{viewers} viewers"
                    runs[name] = asyncio.run(
                        whole_service(
                            Path(folder) / "viewed", shoe.port, control, cards, dsn, viewers
                        )
                    )
        runs["one commit"] = commit_times(Path(folder))
    commit_p99 = percentiles(runs["one commit"])[1]
    driver_p99 = percentiles(runs["driver alone"])[1]
    for name, samples in runs.items():
        p50, p99 = percentiles(samples)
        share = ""
        if name not in ("driver alone", "one commit"):
            own = p99 - driver_p99
            verdict = "met" if own <= commit_p99 + 1 else "NOT met"
            share = f"   service's own share {own:6.3f} ms: {verdict}"
        print(f"    {name:22s} p50 {p50:7.3f} ms   p99 {p99:7.3f} ms{share}")
    print(f"    wire time of a {frame}-byte CARD frame: {wire:.3f} ms")
    latencies: dict[str, float | Cards] = {"wire_ms": round(wire, 3)}
    for name, samples in runs.items():
        latencies[name] = run = in_figures(samples)
        if name in ("driver alone", "one commit"):
            continue
        out.check(f"(a) {name}: every card dealt", len(samples) == cards)
        goal_row(out, f"(a) {name}", samples)
        own = percentiles(samples)[1] - driver_p99
        run["own_share_ms"] = round(own, 3)
        goal = f"<= one commit's p99 + 1 ms = {commit_p99 + 1:.2f} ms"
        out.row(f"(a) {name}: the service's own share", own, "ms", goal, own <= commit_p99 + 1)
    out.figures["latency"] = latencies
    print(
        f"    goals: the service's own share at p99 (its p99 minus the driver's alone) <= one "
        f"commit's p99 + 1 ms = {commit_p99 + 1:.3f} ms; p99 <= wire + 10 ms = {wire + 10:.3f} ms"
    )


def write_journal(path: Path, hands: int, seed: int, in_progress: bool = True) -> None:
    """A journal of ``hands`` hands, written as the service writes one (device events with
    their serial, boot and seq; people's inputs as table records; snapshots), and one more
    in progress (``in_progress``)."""
    rng = random.Random(seed)
    journal = Journal.open(path)
    snapshots = Snapshots(path)
    shoe = DeviceId(DeviceKind.SHOE, "BENCH-SHOE", 1)
    settings = TableSettings()
    table = Table(settings)
    clock = 1_700_000_000_000
    seq = 0
    batch: list[Input] = []  # written BATCH hands at a time (the service writes each input)
    written = 0

    def feed(records: list[Input]) -> None:
        nonlocal table, written
        batch.extend(records)
        for record in records:
            for item in table_inputs(record):
                table = apply(table, item).table
        if table.hand is not None and table.hand.over and table.hand_number % BATCH == 0:
            written += len(batch)
            assert journal.append(batch)[-1] == written
            batch.clear()
            state = Recovered(table, written, {DeviceKind.SHOE: shoe}).state()
            snapshots.save(written, table.hand_number, state)

    def device(kind: str, **fields: object) -> Input:
        nonlocal seq, clock
        clock += 300
        record = Input(clock / 1000, "device", kind, dict(fields), shoe, seq % 65536)
        seq += 1
        return record

    info = DeviceInfo(DeviceKind.SHOE, shoe.serial, shoe.boot_id, "bench", (1, 0, 0), 1)
    link = to_input(LinkUp(info, "bench"), None, clock / 1000)
    feed([link, record_of(Configure(at=clock, settings=settings))])
    feed([record_of(SitDown(at=clock, seat=s, player=f"P{s}", buy_in=500)) for s in range(1, 7)])
    for number in range(hands + in_progress):  # one in progress: recovery replays it
        records = [
            record_of(Rebuy(at=clock, seat=s.seat, chips=500 - s.stack))
            for s in table.seats
            if s.stack < 100
        ]
        deck = list(range(52))
        rng.shuffle(deck)
        records.append(device("DeckLoaded", deck_id=1, cards_loaded=52, cards_remaining=52))
        clock += 300
        records.append(record_of(NewHand(at=clock)))
        feed(records)
        while table.in_hand:
            assert table.hand is not None  # in a hand
            waiting = table.hand.waiting_for
            assert waiting is not None
            if number == hands and len(table.hand_log) >= 30:
                break
            if waiting.kind == "card":
                feed([device("CardRead", card=deck.pop(), read_counter=seq, uid="")])
                continue
            assert waiting.seat is not None  # a decision's wait names its seat
            clock += 300
            if waiting.kind == "action":
                legal = [c for c in waiting.legal if c.do is not Do.FOLD] or list(waiting.legal)
                choice = rng.choice(legal)
                item = Decide(at=clock, seat=waiting.seat, do=choice.do, to=choice.to)
            elif waiting.kind == "bonus":
                item = Decide(at=clock, seat=waiting.seat, do=Do.BONUS, accept=True)
            else:
                item = Decide(at=clock, seat=waiting.seat, do=Do.SHOW)
            feed([record_of(item)])
    journal.append(batch)
    snapshots.close()
    journal.close()


def recovery(hands: int, out: Report) -> None:
    print(f"(b) recovery of a journal of {hands:,} hands")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "table.sqlite"
        started = time.perf_counter()
        write_journal(path, hands, seed=5)
        print(f"    written in {time.perf_counter() - started:.1f} s")
        size = journal_size(path)
        started = time.perf_counter()
        with Journal.open(path, create=False) as journal:
            recovered = recover(journal, Snapshots(path))
        fast = time.perf_counter() - started
        with Journal.open(path, create=False) as journal:
            count = sum(1 for _ in journal.entries())
            started = time.perf_counter()
            for n, _ in enumerate(steps(journal)):
                if n >= REPLAY_SAMPLE:
                    break
        rate = REPLAY_SAMPLE / (time.perf_counter() - started)
        print(
            f"    from the latest snapshot: {fast:.3f} s ({recovered.replayed} inputs after it; "
            f"{count:,} inputs in all); without snapshots: {rate:,.0f} inputs/s replayed, "
            f"{count / rate:.0f} s for the whole journal"
        )
        verdict = "met" if fast < 2 else "NOT met"
        print(f"    goal: recovery < 2 s: {verdict}")
        print(f"(c) journal size: {size / hands:,.0f} bytes per hand ({size / 1e6:.1f} MB)")
    out.row(f"(b) recovery of {hands:,} hands", fast, "s", "< 2 s", fast < 2)
    out.row("(c) journal size", round(size / hands), "bytes a hand")
    out.check("(b) recovered to the journal's last input", recovered.position == count)
    out.figures["recovery"] = {
        "hands": hands,
        "from_snapshot_s": round(fast, 4),
        "inputs": count,
        "replay_inputs_per_s": round(rate),
        "bytes_a_hand": round(size / hands),
    }


def kills(count: int, out: Report) -> None:
    print(f"(d) the recovery test with {count} kills")
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "tests/test_service_recovery.py"],
        check=False,
        cwd=ROOT,
        env={**os.environ, "LUCK_KILLS": str(count)},
        capture_output=True,
        text=True,
    )
    last = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else result.stderr
    took = time.perf_counter() - started
    print(f"    {last} ({took:.0f} s)")
    out.check(f"(d) the recovery test with {count} kills passed", result.returncode == 0)
    out.row(f"(d) the recovery test with {count} kills", took, "s")
    out.figures["kills"] = {"kills": count, "seconds": round(took, 1), "result": last}


async def while_history_is_read(
    folder: Path, port: str, control_address: str, cards: int, out: Report
) -> None:
    """Deal on the service of the journal in ``folder``; once ``cards`` cards are in (and
    a few more before them, warming up), surveillance's first history request."""
    settings = config(folder, port)
    settings = replace(settings, api=replace(settings.api, port=0))
    async with TableService(settings) as service:
        served = await serve(service)
        async with (
            dealing(service, control_address) as dealt,
            httpx.AsyncClient(base_url=served.url, timeout=600) as http,
        ):
            sign_in = {"role": "surveillance", "id": SUPERVISOR["supervisor"]}
            sign_in["pin"] = SUPERVISOR["pin"]
            session = (await http.post("/api/sessions", json=sign_in)).json()
            watcher = {"Authorization": f"Bearer {session['token']}"}
            await dealt.until(cards + 50)
            asked = time.perf_counter()
            response = await http.get("/api/history", headers=watcher)
            answered = time.perf_counter()
            response.raise_for_status()
            again = await http.get("/api/history", headers=watcher)
            read_on = time.perf_counter() - answered
        await served.stop()
        inputs = service.position
    hands = len(response.json())
    print(
        f"    first GET /api/history: {answered - asked:.2f} s for {hands:,} hands "
        f"({inputs:,} inputs); the next one {read_on * 1000:.0f} ms "
        f"({len(again.json()) - hands} more)"
    )
    runs = {
        "no request": dealt.ms(sent_to=asked)[-cards:],
        "while it is read": dealt.ms(asked, answered),
    }
    for name, run in runs.items():
        p50, p99 = percentiles(run)
        print(f"    {name:16s} {len(run):4d} cards   p50 {p50:7.3f} ms   p99 {p99:7.3f} ms")
    goal_row(out, "(e) cards while the past hands are read", runs["while it is read"])
    out.check("(e) the first page of the history held the past hands", hands > 0)
    out.figures["history"] = {
        "hands": hands,
        "first_request_s": round(answered - asked, 3),
        **{name: in_figures(run) for name, run in runs.items()},
    }


def history(hands: int, cards: int, out: Report) -> None:
    print(f"(e) card latency on a journal of {hands:,} hands, while its history is read")
    print("    load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    with tempfile.TemporaryDirectory() as folder, simulator("shoe", seed=3) as shoe:
        started = time.perf_counter()
        write_journal(Path(folder) / "table.sqlite", hands, seed=5, in_progress=False)
        print(f"    journal written in {time.perf_counter() - started:.1f} s")
        control = shoe.announced["control"]
        asyncio.run(while_history_is_read(Path(folder), shoe.port, control, cards, out))
    print("    load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


async def while_the_floor_catches_up(
    folder: Path, port: str, control_address: str, dsn: str, cards: int
) -> tuple[list[float], list[float], float]:
    """Deal on the service of the journal in ``folder``, shipping to a floor that holds none
    of it: the card latencies while the floor is behind, after it caught up (``cards``),
    and how long the catch-up took."""
    settings = config(folder, port, floor=f"dsn = {json.dumps(dsn)}", table_id=f"T-{folder.name}")
    async with TableService(settings) as service:
        behind = service.position
        shipper = service.shipper
        assert shipper is not None
        async with dealing(service, control_address) as dealt:
            started = time.perf_counter()
            while shipper.confirmed < behind:
                if time.perf_counter() - started > 600:
                    raise RuntimeError(f"the floor is at {shipper.confirmed} of {behind}")
                await asyncio.sleep(0.01)
            caught_up = time.perf_counter()
            await dealt.until(len(dealt.cards) + cards)
        await shipped(service)
    return dealt.ms(started, caught_up), dealt.ms(caught_up)[-cards:], caught_up - started


def resume(hands: int, cards: int, out: Report) -> None:
    """(g): the card latency while a table's shipper catches up a journal of ``hands``
    hands the floor does not hold, the shipper in a thread of the service's process (as
    before) and in a process of its own."""
    from controller.floor import shipper_process  # noqa: PLC0415
    from controller.floor.shipper import Shipper  # noqa: PLC0415

    print(f"(g) card latency while the floor catches up a journal of {hands:,} hands")
    print("    load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    resumed: dict[str, object] = {}  # each way's
    out.figures["resume"] = resumed
    with (
        tempfile.TemporaryDirectory() as folder,
        simulator("shoe", seed=3) as shoe,
        scratch_database("luck_floor_bench") as dsn,
    ):
        control = shoe.announced["control"]
        for how in ("thread", "process"):
            table = Path(folder) / how
            table.mkdir()
            write_journal(table / "table.sqlite", hands, seed=5, in_progress=False)
            original = shipper_process.ShipperProcess
            if how == "thread":  # the service's shipper as it was: a thread of its process
                shipper_process.ShipperProcess = Shipper  # type: ignore[misc, assignment]  # the same calls and state
            try:
                during, after, took = asyncio.run(
                    while_the_floor_catches_up(table, shoe.port, control, dsn, cards)
                )
            finally:
                shipper_process.ShipperProcess = original  # type: ignore[misc]  # put back
            for name, run in ((f"{how}, catching up", during), (f"{how}, caught up", after)):
                p50, p99 = percentiles(run)
                print(f"    {name:22s} {len(run):5d} cards   p50 {p50:7.3f} ms   p99 {p99:7.3f} ms")
            print(f"    {how}: the floor caught up in {took:.1f} s")
            if how == "process":  # as the service ships now
                goal_row(out, f"(g) cards while the floor catches up {hands} hands", during)
            resumed[how] = {
                "hands": hands,
                "caught_up_s": round(took, 2),
                "catching_up": in_figures(during),
                "caught_up": in_figures(after),
            }
    print("    load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


class Rotations:
    """The journal's rotations in this process, timed (in the rotating thread): for each,
    when it started and ended, its steps' seconds, and the segment it sealed."""

    STEPS = ("_write", "_record", "_finish")

    def __init__(self) -> None:
        self.done: list[tuple[float, float, dict[str, float], Segment | None]] = []
        self._steps: dict[str, float] = {}

    @contextlib.contextmanager
    def timed(self) -> Iterator[None]:
        """Time the service's calls of ``rotate`` and of its steps while the block runs."""
        rotate = rotation.rotate  # the service's (its module imported this one)
        steps = {name: getattr(rotation, name) for name in self.STEPS}

        def timed_rotate(path: str | Path, through: int, **options: bool) -> Segment | None:
            self._steps = dict.fromkeys(self.STEPS, 0.0)
            started = time.perf_counter()
            segment = rotate(path, through, **options)
            self.done.append((started, time.perf_counter(), self._steps, segment))
            return segment

        def timed_step(name: str) -> Callable[..., object]:
            def step(*args: object, **options: object) -> object:
                started = time.perf_counter()
                try:
                    return steps[name](*args, **options)
                finally:  # (the service's start finishes a cut rotation: not timed)
                    if name in self._steps:
                        self._steps[name] += time.perf_counter() - started

            return step

        setattr(service_module, "rotate", timed_rotate)  # noqa: B010  # the same call, timed
        for name in self.STEPS:
            setattr(rotation, name, timed_step(name))
        try:
            yield
        finally:
            setattr(service_module, "rotate", rotate)  # noqa: B010  # put back
            for name, step in steps.items():
                setattr(rotation, name, step)


async def while_it_rotates(
    folder: Path, port: str, control_address: str, every: int, count: int, cards: int
) -> tuple[Rotations, Dealing]:
    """Deal on the service of the journal in ``folder`` (rotating every ``every`` hands)
    until ``count`` rotations have ended and ``cards`` cards are in."""
    settings = config(folder, port, journal_lines=f"segment_hands = {every}")
    rotations = Rotations()
    with rotations.timed():
        async with TableService(settings) as service, dealing(service, control_address) as dealt:
            started = time.perf_counter()
            while len(rotations.done) < count or len(dealt.cards) < cards:
                if time.perf_counter() - started > 900:
                    raise RuntimeError(f"{len(rotations.done)} rotations in 900 s")
                await dealt.until(len(dealt.cards) + 1)
    return rotations, dealt


def rotating(every: int, cards: int, out: Report, services: int = SESSIONS) -> None:
    """(h): the card latency while the journal rotates into segments, every ``every``
    hands after a first one of 200 hands (the default segment's), in SESSIONS services for
    each way (in turns): the rotating thread following the segment's hash chain without a
    pause (as before) and pausing every ``CHAIN_STEP`` inputs (as now)."""
    print(f"(h) card latency while the journal rotates (segment_hands = {every})")
    print("    load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    ways = {"no pauses": 0, "pauses": rotation.CHAIN_STEP}
    sessions: dict[str, list[tuple[Rotations, Dealing]]] = {how: [] for how in ways}
    with tempfile.TemporaryDirectory() as folder, simulator("shoe", seed=3) as shoe:
        control = shoe.announced["control"]
        for number in range(services):
            for how, step in ways.items():
                table = Path(folder) / f"{how.replace(' ', '-')}-{number}"
                table.mkdir()
                write_journal(table / "table.sqlite", 200, seed=5, in_progress=False)
                original, rotation.CHAIN_STEP = rotation.CHAIN_STEP, step
                try:
                    sessions[how].append(
                        asyncio.run(
                            while_it_rotates(
                                table, shoe.port, control, every, ROTATED, cards // services
                            )
                        )
                    )
                finally:
                    rotation.CHAIN_STEP = original
    rotated_by: dict[str, object] = {}  # each way's
    out.figures["rotations"] = rotated_by
    for how, each in sessions.items():
        print(f"    {how}:")
        runs = rotated(each)
        if how == "pauses":  # as the journal rotates now
            goal_row(out, "(h) cards during a rotation", runs["during a rotation"])
            goal_row(out, "(h) the 10 cards after each rotation", runs["the 10 after each"])
        rotations = [
            ended - started for rotations, _ in each for started, ended, *_ in rotations.done
        ]
        rotated_by[how] = {
            "segment_hands": every,
            "rotation_s": [round(took, 3) for took in rotations],
            **{name: in_figures(run) for name, run in runs.items()},
        }
    print("    load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


def rotated(sessions: list[tuple[Rotations, Dealing]]) -> dict[str, list[float]]:
    """Each rotation's duration, and the card latencies during, after and away from them."""
    runs: dict[str, list[float]] = {"during a rotation": [], "the 10 after each": []}
    runs["away from any"] = []
    for rotations, dealt in sessions:
        for started, ended, taken, segment in rotations.done:
            what = (
                "nothing"
                if segment is None
                else f"hands {segment.first_hand}-{segment.last_hand}, "
                f"{segment.last - segment.first + 1:,} inputs, {segment.size / 1e6:.1f} MB"
            )
            parts = ", ".join(f"{name.strip('_')} {seconds:.3f}" for name, seconds in taken.items())
            print(f"      rotation {ended - started:6.3f} s ({parts}): {what}")
            runs["during a rotation"] += dealt.ms(started, ended)
            runs["the 10 after each"] += dealt.ms(ended)[:10]
        runs["away from any"] += [
            ms
            for sent, ms in dealt.cards
            if all(not started - 1 <= sent <= ended + 1 for started, ended, *_ in rotations.done)
        ]
    for name, run in runs.items():
        p50, p99 = percentiles(run) if run else (float("nan"), float("nan"))
        print(f"      {name:18s} {len(run):5d} cards   p50 {p50:7.3f} ms   p99 {p99:7.3f} ms")
    return runs


def resident() -> int:
    """This process's resident memory in bytes (the service's: it runs in this process)."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class Attacked(TypedDict):
    """One attack's figures (``summary``), and the quiet baseline's."""

    cards: int
    p50_ms: float
    p99_ms: float
    rss_before_mib: int
    rss_after_mib: int
    answers: dict[str, int]  # how many of each answer (an HTTP status or what befell it)
    seconds: NotRequired[float]  # an attack's (the baseline has none of these three)
    service_cpu_s: NotRequired[float]
    attacker_cpu_s: NotRequired[float]


class UnderAttack(TypedDict):
    """(f)'s figures."""

    quiet_cards: int
    attacks: dict[str, Attacked]
    rss_growth_mib: float
    load_average: NotRequired[LoadAverage]  # the machine's, before and after


async def under_attack(
    folder: Path, port: str, control_address: str, cards: int, attempts: int, seconds: float
) -> UnderAttack:
    """Deal with the console served; sign-in bursts, big bodies, feed floods, decision
    floods and a PIN sweep meanwhile, sent by a process of their own (as an attacker's
    machine would: not on the table's loop), one after the other. Each attack's figures
    (the cards drawn during it, the service's memory before and after, what it was
    answered, the CPU time the service's process and the attacker's used) beside the quiet
    baseline of the same run."""
    folder.mkdir(exist_ok=True)
    settings = config(folder, port)
    settings = replace(settings, api=replace(settings.api, port=0))
    loop = asyncio.get_running_loop()
    figures: dict[str, Attacked] = {}
    async with TableService(settings) as service:
        served = await serve(service)
        with ProcessPoolExecutor(
            1, mp_context=multiprocessing.get_context("spawn"), initializer=os.nice, initargs=(19,)
        ) as attacker:
            await loop.run_in_executor(attacker, time.sleep, 0)  # the process is up
            async with dealing(service, control_address) as dealt:
                await dealt.until(cards + 50)
                quiet = dealt.ms()[-cards:]
                started_rss = resident()
                figures["no request"] = summary(quiet, started_rss, started_rss, {})
                auth = served.app.state.auth
                defaults = auth.max_failures, auth.max_waiting, auth.check_wait
                auth.check_wait = 3600.0  # the attempts wait as long as the checks take
                token = await player_token(served.url)

                async def attack(name: str, send: Attack, *args: object) -> None:
                    before, started, cpu = resident(), time.perf_counter(), cpu_seconds()
                    answers, its_cpu = await loop.run_in_executor(attacker, attacking, send, *args)
                    ended = time.perf_counter()
                    figures[name] = summary(dealt.ms(started, ended), before, resident(), answers)
                    figures[name]["seconds"] = round(ended - started, 1)
                    figures[name]["service_cpu_s"] = round(cpu_seconds() - cpu, 2)
                    figures[name]["attacker_cpu_s"] = round(its_cpu, 2)
                    print(f"    {name}: {ended - started:.1f} s, answers {answers}")

                for how, most in (("locked", 5), ("checked", 10 * attempts)):
                    auth.max_failures = auth.max_waiting = most
                    await attack(f"{attempts} sign-ins, {how}", sign_in_burst, served.url, attempts)
                auth.max_failures, auth.max_waiting, auth.check_wait = defaults
                await attack("20 MiB bodies", big_bodies, served.url, seconds)
                await attack("tiny-frame flood", frame_flood, served.url, seconds, False)
                await attack("big-frame flood", frame_flood, served.url, seconds, True)
                await attack("decision flood", decision_flood, served.url, token, seconds)
                await attack("PIN sweep", pin_sweep, served.url, seconds)
                # the growth once the sweep's last checks (64 MiB of Argon2 each) are over
                settled = time.perf_counter() + auth.check_wait + 10
                while auth._checking and time.perf_counter() < settled:
                    await asyncio.sleep(0.1)
            total = (resident() - started_rss) / 2**20
        await served.stop()
    for name, run in figures.items():
        grown = run["rss_after_mib"] - run["rss_before_mib"]
        print(
            f"    {name:22s} {run['cards']:4d} cards   p50 {run['p50_ms']:7.3f} ms   "
            f"p99 {run['p99_ms']:7.3f} ms   memory {run['rss_before_mib']} -> "
            f"{run['rss_after_mib']} MiB ({grown:+d}), CPU {run.get('service_cpu_s', 0):.1f} s "
            f"(the attacker's {run.get('attacker_cpu_s', 0):.1f} s)"
        )
    print(
        f"    the service's memory grew {total:+.0f} MiB over the attacks, its PIN checks over "
        "(goal: within 32 MiB)"
    )
    return {"quiet_cards": cards, "attacks": figures, "rss_growth_mib": round(total, 1)}


#: An attack, run in the attacker's process: what it was answered (how many of each).
Attack = Callable[..., dict[str, int]]


def attacking(send: Attack, *args: object) -> tuple[dict[str, int], float]:
    """``send(*args)`` in the attacker's process: what it was answered, and the CPU time the
    attacker used (on a machine of its own it would take none of the table's)."""
    cpu = cpu_seconds()
    answers = send(*args)
    return answers, cpu_seconds() - cpu


def cpu_seconds() -> float:
    """The CPU time this process has used (the benchmark's: the service, its threads and the
    automatic dealer; the attacker's, in the attacker's)."""
    times = os.times()
    return times.user + times.system


def summary(run: list[float], before: int, after: int, answers: dict[str, int]) -> Attacked:
    """One attack's figures: its cards, their p50 and p99, memory before and after (MiB)."""
    p50, p99 = percentiles(run) if run else (float("nan"), float("nan"))
    return {
        "cards": len(run),
        "p50_ms": round(p50, 3),
        "p99_ms": round(p99, 3),
        "rss_before_mib": before // 2**20,
        "rss_after_mib": after // 2**20,
        "answers": answers,
    }


async def player_token(url: str) -> str:
    """A player's token for seat 1 (the automatic dealer's first player), minted by the
    dealer: the phone of the decision flood."""
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        signed = await http.post("/api/sessions", json={"role": "dealer", **DEALER})
        dealer = {"Authorization": f"Bearer {signed.raise_for_status().json()['token']}"}
        minted = await http.post("/api/player-tokens", json={"seat": 1}, headers=dealer)
        return str(minted.raise_for_status().json()["token"])


def sign_in_burst(url: str, attempts: int) -> dict[str, int]:
    """``attempts`` wrong sign-ins sent at once (16 connections, under [api]
    max_connections); how many of each status were answered."""
    wrong = {"role": "dealer", "id": DEALER["id"], "pin": "0000"}

    async def burst() -> list[int]:
        limits = httpx.Limits(max_connections=16)
        async with httpx.AsyncClient(base_url=url, timeout=600, limits=limits) as http:
            answers = await asyncio.gather(
                *(http.post("/api/sessions", json=wrong) for _ in range(attempts))
            )
        return [answer.status_code for answer in answers]

    return tally(asyncio.run(burst()))


def big_bodies(url: str, seconds: float) -> dict[str, int]:
    """Send 20 MiB bodies to ``POST /api/sessions``, one after the other, for ``seconds``;
    how many were answered 413 (each is sent until the answer comes)."""
    parts = httpx.URL(url)
    size = 20 * 1024 * 1024
    head = (
        f"POST /api/sessions HTTP/1.1\r\nHost: {parts.host}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {size}\r\n\r\n"
    ).encode()
    chunk = b"0," * 32768

    async def one() -> bool:
        reader, writer = await asyncio.open_connection(parts.host, parts.port)
        answer = asyncio.create_task(reader.read(100))
        try:
            writer.write(head)
            for _ in range(size // len(chunk)):
                if answer.done():
                    break
                writer.write(chunk)
                await writer.drain()
        except OSError:  # refused before the rest was read: the connection is closed
            pass
        try:
            return (await answer).startswith(b"HTTP/1.1 413")
        except OSError:
            return False
        finally:
            writer.close()

    async def send_all() -> dict[str, int]:
        answers = {"413": 0, "other": 0}
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            answers["413" if await one() else "other"] += 1
        return answers

    return asyncio.run(send_all())


def tally(statuses: Sequence[int | str]) -> dict[str, int]:
    """How many of each answer (in order)."""
    return {str(answer): statuses.count(answer) for answer in sorted(set(statuses), key=str)}


FLOODERS = 8  # feeds (and addresses) of a frame flood
SWEEPERS = 32  # addresses of the PIN sweep
TINY_FRAMES = 500  # written at once, of 10 bytes each
TINY = b"".join(frame(TEXT, b"0123456789") for _ in range(TINY_FRAMES))


def frame_flood(url: str, seconds: float, big: bool) -> dict[str, int]:
    """For ``seconds``, FLOODERS feeds on ``/ws``, each from an address of its own
    (127.0.2.N, big: 127.0.4.N; every one gets the per-address budget), sending 10-byte
    text frames as fast as they go, or (``big``) frames whose header says 15 MiB, their
    payload after in 1 MiB writes; a feed closed is opened again. What was answered: the
    close codes, the handshakes refused (by status), and the frames written."""
    chunk = b"x" * (1 << 20)

    async def flood(address: str, deadline: float, answers: Counter[str]) -> None:
        while (left := deadline - time.perf_counter()) > 0:
            status, feed = await RawFeed.open(url, "/ws", address)
            if status != 101:
                answers[f"handshake {status}"] += 1
                await feed.close()
                await asyncio.sleep(0.05)
                continue
            closing = asyncio.create_task(feed.closing())
            with contextlib.suppress(ConnectionError, TimeoutError):
                while not closing.done() and (left := deadline - time.perf_counter()) > 0:
                    if big:
                        feed.writer.write(frame(TEXT, b"", length=15 << 20))
                        answers["frames written"] += 1
                        for _ in range(15):
                            if closing.done():
                                break
                            feed.writer.write(chunk)
                            await asyncio.wait_for(feed.writer.drain(), left)
                    else:
                        feed.writer.write(TINY)
                        answers["frames written"] += TINY_FRAMES
                        await asyncio.wait_for(feed.writer.drain(), left)
            try:  # a feed still open at the end: given a second to be closed
                answers[f"closed {await asyncio.wait_for(closing, max(left, 0) + 1)}"] += 1
            except TimeoutError:
                answers["open at the end"] += 1
            await feed.close()

    async def floods() -> dict[str, int]:
        answers: Counter[str] = Counter()
        deadline = time.perf_counter() + seconds
        network = "127.0.4" if big else "127.0.2"  # the tiny flood's addresses stay penalized
        addresses = [f"{network}.{n}" for n in range(1, FLOODERS + 1)]
        await asyncio.gather(*(flood(address, deadline, answers) for address in addresses))
        return dict(sorted(answers.items()))

    return asyncio.run(floods())


def decision_flood(url: str, token: str, seconds: float) -> dict[str, int]:
    """For ``seconds``, a player's phone (``token``) sends decisions as fast as it goes (8
    at a time) at a table where the dealer decides: every one refused. The statuses."""
    phone = {"Authorization": f"Bearer {token}"}

    async def flood() -> list[int | str]:
        statuses: list[int | str] = []
        deadline = time.perf_counter() + seconds
        async with httpx.AsyncClient(base_url=url, timeout=60, headers=phone) as http:

            async def one() -> None:
                while time.perf_counter() < deadline:
                    decision = {"seat": 1, "do": "fold"}
                    statuses.append((await http.post("/api/decisions", json=decision)).status_code)

            await asyncio.gather(*(one() for _ in range(8)))
        return statuses

    return tally(asyncio.run(flood()))


def pin_sweep(url: str, seconds: float) -> dict[str, int]:
    """For ``seconds``, the dealer's PIN guessed from SWEEPERS addresses at once
    (127.0.3.N, as many machines of the casino's network would: each address its own
    lockout budget), each address one guess after the other, every guess a different PIN;
    the sign-in's limits as configured. The statuses (401: a guess checked and wrong)."""

    async def sweep() -> list[int | str]:
        statuses: list[int | str] = []
        deadline = time.perf_counter() + seconds
        guesses = iter(range(10**6))

        async def one(address: str) -> None:
            transport = httpx.AsyncHTTPTransport(local_address=address)
            async with httpx.AsyncClient(base_url=url, timeout=60, transport=transport) as http:
                while (left := deadline - time.perf_counter()) > 0:
                    guess = {"role": "dealer", "id": DEALER["id"], "pin": f"{next(guesses):06d}"}
                    try:  # a guess still waiting for its check at the end: given up
                        answer = await http.post("/api/sessions", json=guess, timeout=left + 1)
                        statuses.append(answer.status_code)
                    except httpx.TimeoutException:
                        statuses.append("given up")

        await asyncio.gather(*(one(f"127.0.3.{n}") for n in range(1, SWEEPERS + 1)))
        return statuses

    return tally(asyncio.run(sweep()))


def attacks(attempts: int, cards: int, seconds: float, out: Report) -> None:
    print("(f) card latency with the console served, while it is under attack")
    load_before = os.getloadavg()
    print("    load average {:.2f} {:.2f} {:.2f}".format(*load_before))
    with tempfile.TemporaryDirectory() as folder, simulator("shoe", seed=3) as shoe:
        control = shoe.announced["control"]
        figures = asyncio.run(
            under_attack(Path(folder), shoe.port, control, cards, attempts, seconds)
        )
    load_after = os.getloadavg()
    print("    load average {:.2f} {:.2f} {:.2f}".format(*load_after))
    figures["load_average"] = {"before": list(load_before), "after": list(load_after)}
    for name, run in figures["attacks"].items():
        p99 = run["p99_ms"]
        goal = wire_ms() + 10
        met = None if p99 is None else p99 <= goal
        out.row(f"(f) {name}, p99", p99, "ms", f"<= wire + 10 ms = {goal:.2f} ms", met)
        out.check("(f) no attack answered with a 500", "500" not in run["answers"])
    growth = figures["rss_growth_mib"]
    out.row("(f) the service's memory over the attacks", growth, "MiB", "<= 32 MiB", growth <= 32)
    out.figures["attacks"] = figures


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cards", type=int, default=500)
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--history", type=int, default=1000)
    parser.add_argument("--attacks", type=int, default=100)
    parser.add_argument(
        "--attack-cards", type=int, default=0, help="(f)'s quiet cards (default: --cards)"
    )
    parser.add_argument("--attack-seconds", type=float, default=10.0, help="(f)'s floods")
    add_json_option(parser)
    parser.add_argument("--viewers", type=int, default=200, help="(a)'s viewers on the feed")
    parser.add_argument("--resume", type=int, default=300, help="(g)'s hands behind the floor")
    parser.add_argument("--rotations", type=int, default=5, help="(h)'s segment_hands")
    parser.add_argument("--sessions", type=int, default=SESSIONS, help="(h)'s services a way")
    args = parser.parse_args()
    out = Report.start(__file__, args)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # a TextIOWrapper
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}"
    )
    if args.cards:
        latency(args.cards, args.viewers, out)
    if args.hands:
        recovery(args.hands, out)
    if args.kills:
        kills(args.kills, out)
    if args.history:
        history(args.history, args.cards or 500, out)
    if args.attacks:
        quiet = args.attack_cards or args.cards or 500
        attacks(args.attacks, quiet, args.attack_seconds, out)
    if args.resume:
        resume(args.resume, args.cards or 500, out)
    if args.rotations:
        rotating(args.rotations, args.cards or 500, out, args.sessions)
    return out.finish()


if __name__ == "__main__":
    sys.exit(main())
