"""Feed benchmark (issue 11): the live feeds under load while the table deals at full speed.

The table service runs on the shoe simulator (its own process, on a pty at 115200 baud)
with the console served by uvicorn on the service's loop; 8 players are seated and hands
are dealt as fast as the shoe and the service go (each card drawn as soon as the last one
is acknowledged; seats 4 to 8 fold when they may, so that one deck is enough; every other
decision a check or a call). The viewers are WebSocket clients in a
process of their own: VIEWERS on the public feed and one per seat on the players' feeds.

For each card read, the latency is from the service applying it (its update published) to
the last viewer having that update (clocks: CLOCK_MONOTONIC, shared by the processes);
p50/p99 over the cards, beside the same figures with one public viewer (measured in the
same run). Every viewer's updates are checked: none dropped, none out of order. The CPU
time each process used while the hands were dealt (as a share of one core) tells whether
the service or the viewers' own process was the bound.

Usage: .venv/bin/python bench/feeds.py [--viewers 200] [--hands 3]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from controller.config import load_config
from controller.rules import Do
from controller.service import TableService, Update
from controller.table import Decide, NewHand, SitDown
from dealer_ui import serve
from firmware_sim.process import SimulatorProcess

ROOT = Path(__file__).resolve().parent.parent
SEATS = 8
STAY = 3  # the seats above fold when they may: one deck of 52 is enough for the hand
SEQ = re.compile(rb'"seq": (\d+)')


# --- the viewers' process --------------------------------------------------------------


async def viewers(url: str, tokens: list[str | None]) -> None:
    """Connect every viewer, say "ready", record each message's number and arrival until
    "stop" on stdin, then print what each viewer got as JSON."""
    import websockets  # noqa: PLC0415 (the viewers' process only)

    got: list[list[tuple[int, int]]] = [[] for _ in tokens]
    ready = [asyncio.Event() for _ in tokens]

    async def follow(index: int, token: str | None) -> None:
        query = "" if token is None else f"?token={token}"
        async with websockets.connect(url + query, max_size=None) as socket:
            async for text in socket:
                raw = text.encode() if isinstance(text, str) else text
                match = SEQ.search(raw)
                assert match is not None
                got[index].append((int(match.group(1)), time.monotonic_ns()))
                ready[index].set()

    tasks = [asyncio.create_task(follow(i, token)) for i, token in enumerate(tokens)]
    await asyncio.gather(*(event.wait() for event in ready))
    print("ready", flush=True)
    started = time.process_time()
    await asyncio.to_thread(sys.stdin.readline)
    cpu = time.process_time() - started
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(json.dumps({"got": got, "cpu": cpu}), flush=True)


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
[devices.shoe]
transport = "serial"
port = "{shoe_port}"
baud = 115200
[devices.seat_board]
enabled = false
[journal]
path = "table.sqlite"
{credentials}"""
    )
    return path


async def settled(shoe: SimulatorProcess) -> None:
    while True:
        status = await asyncio.to_thread(shoe.command, "status")
        if status["connected"] and status["pending"] == 0:
            return
        await asyncio.sleep(0.001)


async def play_hand(service: TableService, shoe: SimulatorProcess, seed: int) -> None:
    await asyncio.to_thread(shoe.command, f"load seed={seed}")
    await settled(shoe)
    step = await service.submit(NewHand(at=0))
    assert not step.refused, step.refused
    while service.table.in_hand:
        hand = service.table.hand
        assert hand is not None and hand.waiting_for is not None
        waiting = hand.waiting_for
        if waiting.kind == "card":
            await asyncio.to_thread(shoe.command, "draw")
            await settled(shoe)
            continue
        legal = {choice.do: choice for choice in waiting.legal}
        if waiting.kind == "bonus":
            decision = Decide(at=0, seat=waiting.seat, do=Do.BONUS, accept=True)
        elif waiting.kind == "show":
            decision = Decide(at=0, seat=waiting.seat, do=Do.SHOW)
        elif waiting.seat is not None and waiting.seat > STAY and Do.FOLD in legal:
            decision = Decide(at=0, seat=waiting.seat, do=Do.FOLD)
        else:
            do = next(d for d in (Do.CHECK, Do.CALL, Do.BRING_IN, Do.COMPLETE) if d in legal)
            decision = Decide(at=0, seat=waiting.seat, do=do, to=legal[do].to)
        step = await service.submit(decision)
        assert not step.refused, step.refused


async def measure(
    service: TableService,
    shoe: SimulatorProcess,
    url: str,
    tokens: list[str | None],
    hands: int,
    applied: dict[int, int],
    cards: list[int],
    seed: int,
) -> dict[str, Any]:
    client = await asyncio.create_subprocess_exec(
        sys.executable,
        __file__,
        "--viewers-of",
        url,
        *["-" if token is None else token for token in tokens],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        limit=1 << 28,  # the viewers' report is one long line
    )
    assert client.stdin is not None and client.stdout is not None
    line = await asyncio.wait_for(client.stdout.readline(), 300)
    assert line.strip() == b"ready", line
    first_card = len(cards)
    started, cpu = time.monotonic(), time.process_time()
    for hand in range(hands):
        await play_hand(service, shoe, seed + hand)
    await asyncio.sleep(1.0)  # the last updates on their way
    client.stdin.write(b"stop\n")
    await client.stdin.drain()
    report = json.loads(await asyncio.wait_for(client.stdout.readline(), 300))
    wall, cpu = time.monotonic() - started, time.process_time() - cpu
    await client.wait()
    got = report["got"]
    measured = cards[first_card:]
    last = max(measured)
    latencies = []
    for seq in measured:
        arrivals = [t for viewer in got for s, t in viewer if s == seq]
        if len(arrivals) == len(tokens):
            latencies.append((max(arrivals) - applied[seq]) / 1e6)
    dropped = out_of_order = 0
    for viewer in got:
        numbers = [s for s, _ in viewer]
        out_of_order += sum(b <= a for a, b in itertools.pairwise(numbers))
        wanted = set(range(numbers[0], last + 1))
        dropped += len(wanted - set(numbers))
    return {
        "viewers": len(tokens),
        "cards": len(measured),
        "complete": len(latencies),
        "p50": statistics.median(latencies),
        "p99": statistics.quantiles(latencies, n=100, method="inclusive")[98],
        "max": max(latencies),
        "dropped": dropped,
        "out_of_order": out_of_order,
        "service_cpu": 100 * cpu / wall,
        "viewers_cpu": 100 * report["cpu"] / wall,
    }


async def bench(public_viewers: int, hands: int) -> None:
    with (
        tempfile.TemporaryDirectory() as folder,
        SimulatorProcess("shoe", "--pty", "--baud", "115200", "--heartbeat-ms", "200") as shoe,
    ):
        config = load_config(write_config(Path(folder), shoe.port))
        config = replace(config, api=replace(config.api, port=0))
        async with TableService(config) as service:
            await settled(shoe)
            for seat in range(1, SEATS + 1):
                await service.submit(SitDown(at=0, seat=seat, player=f"P{seat}", buy_in=50000))
            applied: dict[int, int] = {}
            cards: list[int] = []
            updates = service.updates()
            put = updates.put

            def stamped(update: Update | None) -> None:  # the moment the update is published
                if update is not None:
                    seq = len(applied) + 1
                    applied[seq] = time.monotonic_ns()
                    if any(effect.kind in ("card", "burn") for effect in update.effects):
                        cards.append(seq)
                put(update)

            updates.put = stamped  # type: ignore[method-assign]
            served = await serve(service, port=0)  # its feed starts numbering here
            url = served.url.replace("http", "ws", 1) + "/ws"
            auth = served.app.state.auth
            players = [auth.player_session(seat, f"P{seat}").token for seat in range(1, SEATS + 1)]
            one = await measure(service, shoe, url, [None], 1, applied, cards, 1)
            many_tokens: list[str | None] = [None] * public_viewers + players
            many = await measure(service, shoe, url, many_tokens, hands, applied, cards, 100)
            await served.stop()
            updates.close()

    print(f"feeds: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs,")
    print(f"load average {os.getloadavg()[0]:.1f}; latency from a card applied to every viewer")
    print()
    print(
        "viewers   cards   p50 ms   p99 ms   max ms   dropped   out of order"
        "   service CPU   viewers CPU"
    )
    for row in (one, many):
        print(
            f"{row['viewers']:>7} {row['complete']:>4}/{row['cards']:<3}"
            f" {row['p50']:>7.1f}  {row['p99']:>7.1f}  {row['max']:>7.1f}"
            f"   {row['dropped']:>7}   {row['out_of_order']:>12}"
            f"   {row['service_cpu']:>10.0f} %   {row['viewers_cpu']:>9.0f} %"
        )
    print()
    print("CPU: of one core, over the hands dealt (the service's process: service, console,")
    print("the deal loop; the viewers' process: every viewer's WebSocket client)")
    print(f"goal: p99 <= 50 ms with {public_viewers} public + {SEATS} player feeds, 0 dropped")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--viewers-of":
        tokens = [None if token == "-" else token for token in sys.argv[3:]]
        asyncio.run(viewers(sys.argv[2], tokens))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--viewers", type=int, default=200, help="public viewers")
    parser.add_argument("--hands", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(bench(args.viewers, args.hands))


if __name__ == "__main__":
    main()
