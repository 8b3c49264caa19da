"""Feed benchmark: the live feeds under load while the table deals at full speed.

The table service runs on the shoe simulator (its own process, on a pty at 115200 baud)
with the console served by uvicorn on the service's loop; 8 players are seated and hands
are dealt as fast as the shoe and the service go (each card drawn as soon as the last one
is acknowledged; seats 4 to 8 fold when they may, so that one deck is enough; every other
decision a check or a call). The viewers are WebSocket clients in a
process of their own: VIEWERS on the public feed and one per seat on the players' feeds.

The public viewers connect either to the table service itself (direct) or to a broadcast
relay (``luck-table relay``, a process of its own following the service's public feed);
both are measured in the same run, beside one public viewer alone.

For each card read (the dealer's draw sent to the shoe), the latencies are: to the table
(the card's update published: journaled and applied), and to every viewer having it (the
last byte of its message in the last viewer's socket: the kernel's receive time,
SO_TIMESTAMPNS). Clocks: CLOCK_REALTIME, shared by the processes. The time at which the
viewers' one process got to each message is printed too: 208 viewers in one Python
process queue behind each other, which real viewers on their own machines do not.
Every viewer's updates are checked: none dropped, none out of order. The CPU time each
process used while the hands were dealt (as a share of one core) tells which was the bound.

Usage: .venv/bin/python bench/feeds.py [--viewers 200] [--hands 3] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import itertools
import json
import os
import platform
import re
import selectors
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol, TypedDict
from urllib.parse import urlsplit

from figures_kit import Report, add_json_option

from controller.config import load_config
from controller.rules import Do
from controller.service import TableService, Update
from controller.table import Decide, NewHand, SitDown
from dealer_ui import serve
from firmware_sim.process import SimulatorProcess

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from relay_kit import RelayProcess

ROOT = Path(__file__).resolve().parent.parent
SEATS = 8
GOAL_MS = 50  # card read to every viewer, p99 (docs/performance.md)
STAY = 3  # the seats above fold when they may: one deck of 52 is enough for the hand
SEQ = re.compile(rb'"seq": (\d+)')
SO_TIMESTAMPNS = 35  # Linux (asm-generic/socket.h); the socket module does not name it


# --- the viewers' process --------------------------------------------------------------


class Viewer:
    """One viewer: a WebSocket client on a plain socket that notes, for every message, its
    number, the moment its last byte reached the socket (the kernel's receive time,
    SO_TIMESTAMPNS, CLOCK_REALTIME: when the viewer has the update, however long this
    process then takes to get to it among the other viewers) and the moment this process
    read it."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.socket = socket.create_connection((parts.hostname, parts.port))
        self.socket.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        key = base64.b64encode(os.urandom(16)).decode()
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        self.socket.sendall(
            f"GET {target} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        self.buffer = bytearray()
        while b"\r\n\r\n" not in self.buffer:
            self._receive()
        head, _, rest = bytes(self.buffer).partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101"), head[:200]
        self.buffer = bytearray(rest)
        self.got: list[tuple[int, int, int]] = []
        self.socket.setblocking(False)
        self._frames(time.time_ns())

    def _receive(self) -> int:
        data, ancillary, _, _ = self.socket.recvmsg(1 << 20, socket.CMSG_SPACE(16))
        if not data:
            raise ConnectionError("the feed closed")
        self.buffer += data
        for level, kind, stamp in ancillary:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                seconds: int
                nanoseconds: int
                seconds, nanoseconds = struct.unpack("qq", stamp[:16])
                return seconds * 1_000_000_000 + nanoseconds
        return time.time_ns()

    def readable(self) -> None:
        self._frames(self._receive())

    def _frames(self, stamp: int) -> None:
        """Take the whole frames in the buffer (a server's frames are not masked)."""
        while len(self.buffer) >= 2:
            opcode, length, start = self.buffer[0] & 0x0F, self.buffer[1] & 0x7F, 2
            if length >= 126:
                width = 2 if length == 126 else 8
                if len(self.buffer) < 2 + width:
                    return
                length, start = int.from_bytes(self.buffer[2 : 2 + width]), 2 + width
            if len(self.buffer) < start + length:
                return
            payload = bytes(self.buffer[start : start + length])
            del self.buffer[: start + length]
            if opcode == 0x9:  # ping: pong, masked as a client's frames are
                mask = os.urandom(4)
                masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
                self.socket.sendall(bytes([0x8A, 0x80 | len(payload)]) + mask + masked)
            elif opcode in (0x1, 0x2):
                match = SEQ.search(payload, 0, 200)
                assert match is not None, payload[:200]
                self.got.append((int(match.group(1)), stamp, time.time_ns()))


def viewers(urls: list[str]) -> None:
    """Connect a viewer to each of ``urls``, say "ready", note each message's number and
    arrival until "stop" on stdin, then print what each viewer got as JSON."""
    connected = [Viewer(url) for url in urls]
    selector = selectors.DefaultSelector()
    for viewer in connected:
        selector.register(viewer.socket, selectors.EVENT_READ, viewer)
    while not all(viewer.got for viewer in connected):
        for key, _ in selector.select():
            key.data.readable()
    print("ready", flush=True)
    started = time.process_time()
    selector.register(sys.stdin, selectors.EVENT_READ, None)
    while True:
        for key, _ in selector.select():
            if key.data is None:
                cpu = time.process_time() - started
                print(json.dumps({"got": [v.got for v in connected], "cpu": cpu}), flush=True)
                return
            key.data.readable()


# --- the table ---------------------------------------------------------------------------


def write_config(folder: Path, shoe_port: str) -> Path:
    example = (ROOT / "deploy" / "table.example.toml").read_text()
    credentials = example[example.index("[[credentials.supervisors]]") :]
    path = folder / "table.toml"
    path.write_text(
        f"""
[table]
id = "T-BENCH"
name = "feed benchmark"
[stakes]
min_buy_in = 100
max_buy_in = 100000
[protection]
tag_checks = false                # the feeds are measured, not the cards' tags
[devices.shoe]
transport = "serial"
port = "{shoe_port}"
baud = 115200
[devices.seat_board]
enabled = false
[journal]
path = "table.sqlite"
[api]
# every viewer connects from this machine: one address with hundreds of feeds
max_websockets = 100000
max_connections = 100000
{credentials}"""
    )
    return path


class Shoe(Protocol):
    """What dealing asks of the shoe: its control commands (SimulatorProcess's)."""

    def command(self, line: str, /) -> Any: ...  # its reply's JSON, as SimulatorProcess's


async def settled(shoe: Shoe) -> None:
    while True:
        status = await asyncio.to_thread(shoe.command, "status")
        if status["connected"] and status["pending"] == 0:
            return
        await asyncio.sleep(0.001)


@dataclass
class Stamps:
    """When each update was published (by number) and, for the cards, when the card was
    read: the dealer's draw sent to the shoe (``drawn``: the draw not yet seen)."""

    published: dict[int, int] = field(default_factory=dict)
    read: dict[int, int] = field(default_factory=dict)
    drawn: int | None = None

    def put(self, update: Update) -> None:
        seq = len(self.published) + 1
        self.published[seq] = time.time_ns()
        if self.drawn is not None and any(e.kind in ("card", "burn") for e in update.effects):
            self.read[seq], self.drawn = self.drawn, None


async def play_hand(service: TableService, shoe: Shoe, seed: int, stamps: Stamps) -> None:
    await asyncio.to_thread(shoe.command, f"load seed={seed}")
    await settled(shoe)
    step = await service.submit(NewHand(at=0))
    assert not step.refused, step.refused
    while service.table.in_hand:
        hand = service.table.hand
        assert hand is not None and hand.waiting_for is not None
        waiting = hand.waiting_for
        if waiting.kind == "card":
            stamps.drawn = time.time_ns()
            await asyncio.to_thread(shoe.command, "draw")
            await settled(shoe)
            continue
        assert waiting.seat is not None  # a decision's wait names its seat
        legal = {choice.do: choice for choice in waiting.legal}
        if waiting.kind == "bonus":
            decision = Decide(at=0, seat=waiting.seat, do=Do.BONUS, accept=True)
        elif waiting.kind == "show":
            decision = Decide(at=0, seat=waiting.seat, do=Do.SHOW)
        elif waiting.seat > STAY and Do.FOLD in legal:
            decision = Decide(at=0, seat=waiting.seat, do=Do.FOLD)
        else:
            do = next(d for d in (Do.CHECK, Do.CALL, Do.BRING_IN, Do.COMPLETE) if d in legal)
            decision = Decide(at=0, seat=waiting.seat, do=do, to=legal[do].to)
        step = await service.submit(decision)
        assert not step.refused, step.refused


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) process ``pid`` has used so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


#: p50, p99 and max, in ms.
Latencies = tuple[float, float, float]


def percentiles(latencies: list[int]) -> Latencies:
    """p50, p99 and max, in ms, of ``latencies`` in ns."""
    p99 = statistics.quantiles(latencies, n=100, method="inclusive")[98]
    return statistics.median(latencies) / 1e6, p99 / 1e6, max(latencies) / 1e6


class Viewed(TypedDict):
    """What the viewers' process reports (``viewers``): each viewer's messages (number,
    received and read, in ns) and its own CPU seconds."""

    got: list[list[list[int]]]
    cpu: float


class Way(TypedDict):
    """A way's run (``measure``): its latencies (p50, p99 and max in ms) from a card read to
    the table, to every viewer and to the viewers' process; its losses; its CPU (% of a
    core: the service's, the relay's, the viewers')."""

    viewers: int
    how: str
    cards: int
    complete: int
    table: Latencies
    viewer: Latencies
    process: Latencies
    dropped: int
    out_of_order: int
    cpu: tuple[float, float, float]


async def measure(
    service: TableService,
    shoe: SimulatorProcess,
    urls: list[str],
    hands: int,
    stamps: Stamps,
    relay: RelayProcess | None = None,
) -> Way:
    """Deal ``hands`` hands with a viewer on each of ``urls`` (in a process of their own)."""
    client = await asyncio.create_subprocess_exec(
        sys.executable,
        __file__,
        "--viewers-of",
        *urls,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        limit=1 << 28,  # the viewers' report is one long line
    )
    assert client.stdin is not None and client.stdout is not None
    line = await asyncio.wait_for(client.stdout.readline(), 300)
    assert line.strip() == b"ready", line
    first = len(stamps.published) + 1
    relay_pid = None if relay is None or relay.process is None else relay.process.pid
    relay_cpu = 0.0 if relay_pid is None else cpu_seconds(relay_pid)
    started, cpu = time.monotonic(), time.process_time()
    for hand in range(hands):
        await play_hand(service, shoe, 100 + hand, stamps)
    await asyncio.sleep(1.0)  # the last updates on their way
    client.stdin.write(b"stop\n")
    await client.stdin.drain()
    report: Viewed = json.loads(await asyncio.wait_for(client.stdout.readline(), 300))
    wall, cpu = time.monotonic() - started, time.process_time() - cpu
    relay_cpu = 0.0 if relay_pid is None else cpu_seconds(relay_pid) - relay_cpu
    await client.wait()
    arrivals: dict[int, list[int]] = {}
    taken: dict[int, list[int]] = {}
    dropped = out_of_order = 0
    last = len(stamps.published)
    for got in report["got"]:
        numbers = [seq for seq, _, _ in got]
        out_of_order += sum(b <= a for a, b in itertools.pairwise(numbers))
        dropped += len(set(range(numbers[0], last + 1)) - set(numbers))
        for seq, arrived, read in got:
            arrivals.setdefault(seq, []).append(arrived)
            taken.setdefault(seq, []).append(read)
    cards = [seq for seq in stamps.read if seq >= first]
    to_table = [stamps.published[seq] - stamps.read[seq] for seq in cards]
    complete = [seq for seq in cards if len(arrivals.get(seq, ())) == len(urls)]
    to_viewers = [max(arrivals[seq]) - stamps.read[seq] for seq in complete]
    to_process = [max(taken[seq]) - stamps.read[seq] for seq in complete]
    return {
        "viewers": len(urls),
        "how": "direct" if relay is None else "relay",
        "cards": len(cards),
        "complete": len(complete),
        "table": percentiles(to_table),
        "viewer": percentiles(to_viewers),
        "process": percentiles(to_process),
        "dropped": dropped,
        "out_of_order": out_of_order,
        "cpu": (100 * cpu / wall, 100 * relay_cpu / wall, 100 * report["cpu"] / wall),
    }


def sitting(service: TableService, seat: int) -> int:
    """The sitting of the player at ``seat`` (a player's token is bound to it)."""
    place = service.table.seat(seat)
    assert place is not None, f"seat {seat} is empty"
    return place.sitting


async def bench(public_viewers: int, hands: int) -> list[Way]:
    with (
        tempfile.TemporaryDirectory() as folder,
        SimulatorProcess("shoe", "--pty", "--baud", "115200", "--heartbeat-ms", "200") as shoe,
    ):
        config = load_config(write_config(Path(folder), shoe.port), example_pins=True)
        config = replace(config, api=replace(config.api, port=0))
        async with TableService(config) as service:
            await settled(shoe)
            for seat in range(1, SEATS + 1):
                await service.submit(SitDown(at=0, seat=seat, player=f"P{seat}", buy_in=50000))
            stamps = Stamps()
            updates = service.updates()
            put = updates.put

            def stamped(update: Update | None) -> None:  # the moment the update is published
                if update is not None:
                    stamps.put(update)
                put(update)

            updates.put = stamped  # type: ignore[method-assign]  # the same call, stamped
            served = await serve(service, port=0)  # its feed starts numbering here
            public = served.url.replace("http", "ws", 1) + "/ws"
            auth = served.app.state.auth
            players = [
                f"{public}?token={auth.player_session(seat, sitting(service, seat)).token}"
                for seat in range(1, SEATS + 1)
            ]
            rows = [await measure(service, shoe, [public], 1, stamps)]
            direct = [public] * public_viewers + players
            rows.append(await measure(service, shoe, direct, hands, stamps))
            with RelayProcess(served.url, "--viewers-per-address", "100000") as relay:
                relayed = [relay.url + "/ws"] * public_viewers + players
                rows.append(await measure(service, shoe, relayed, hands, stamps, relay))
            await served.stop()
            updates.close()
    return rows


def show(rows: list[Way], public_viewers: int) -> None:
    print(f"feeds: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs,")
    print(f"load average {os.getloadavg()[0]:.1f}; latencies from a card read, in ms")
    print()
    print(
        "                     card read -> table  -> every viewer         -> viewers' process"
        "                           CPU (% of a core)"
    )
    print(
        "viewers public  cards    p50    p99      p50    p99    max        p50    p99"
        "   dropped  out of order   service relay viewers"
    )
    for row in rows:
        table, viewer, process, cpu = row["table"], row["viewer"], row["process"], row["cpu"]
        print(
            f"{row['viewers']:>7} {row['how']:>6} {row['complete']:>3}/{row['cards']:<3}"
            f" {table[0]:>6.1f} {table[1]:>6.1f}   {viewer[0]:>6.1f} {viewer[1]:>6.1f}"
            f" {viewer[2]:>6.1f}     {process[0]:>6.1f} {process[1]:>6.1f}"
            f"   {row['dropped']:>7}  {row['out_of_order']:>12}"
            f"   {cpu[0]:>7.0f} {cpu[1]:>5.0f} {cpu[2]:>7.0f}"
        )
    print()
    print("public: the public viewers connect to the table service (direct) or to a relay")
    print("process following its public feed (relay); the players' feeds are the service's.")
    print("card read: the dealer's draw sent to the shoe; table: the card's update published")
    print("(journaled, applied); every viewer: its last byte in the last viewer's socket")
    print("(kernel receive time); viewers' process: when the one process of all the viewers")
    print("got to it (its own queue: what the viewers' machines would not share).")
    print(
        f"goal: p99 <= {GOAL_MS} ms with {public_viewers} public + {SEATS} player feeds, 0 dropped"
    )


def figures(rows: list[Way], public_viewers: int, report: Report) -> None:
    """The rows as JSON: each way's latencies (p50, p99, max) and losses; the goal."""
    for row in rows:
        way = f"{row['viewers']} viewers, {row['how']}"
        if row["viewers"] > 1:
            p99 = row["viewer"][1]
            met = p99 <= GOAL_MS and row["dropped"] == 0
            report.row(f"card read to every viewer, {way}, p99", p99, "ms", f"<= {GOAL_MS} ms", met)
        report.check(f"{way}: every card reached every viewer", row["complete"] == row["cards"] > 0)
        report.check(
            f"{way}: none dropped, none out of order", row["dropped"] == row["out_of_order"] == 0
        )
    ways = []
    for row in rows:
        entry: dict[str, object] = {
            "viewers": row["viewers"],
            "how": row["how"],
            "cards": row["cards"],
            "complete": row["complete"],
        }
        for key, (p50, p99, most) in (
            ("table", row["table"]),
            ("viewer", row["viewer"]),
            ("process", row["process"]),
        ):
            entry[key] = {
                "p50_ms": round(p50, 2),
                "p99_ms": round(p99, 2),
                "max_ms": round(most, 2),
            }
        entry |= {"dropped": row["dropped"], "out_of_order": row["out_of_order"]}
        service, relay, viewers = row["cpu"]
        entry["cpu_percent"] = {"service": service, "relay": relay, "viewers": viewers}
        ways.append(entry)
    report.figures = {"public_viewers": public_viewers, "player_feeds": SEATS, "ways": ways}


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--viewers-of":
        viewers(sys.argv[2:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--viewers", type=int, default=200, help="public viewers")
    parser.add_argument("--hands", type=int, default=3)
    add_json_option(parser)
    args = parser.parse_args()
    report = Report.start(__file__, args)
    rows = asyncio.run(bench(args.viewers, args.hands))
    show(rows, args.viewers)
    figures(rows, args.viewers, report)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
