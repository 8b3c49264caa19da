"""Long run: thousands of hands at full speed through the table service with its console
served and public viewers on its feed, the service's memory followed hand by hand.

``luck-table sim --speed max --console 127.0.0.1:0 --progress --json FILE`` (the firmware
simulator processes, the table service with its journal and its console, the automatic
dealer, supervisor and players, in the sim's process) deals HANDS hands, telling the
console's address and each hand's end as JSON lines (``--progress``); VIEWERS public
viewers (a process of their own) follow the console's feed ``/ws`` the whole time, each
reading every message. The sim's resident memory (RSS, from /proc) is read at the end of
every hand. Printed: the hands and their pace, the memory at hand WARM (1,000 by default:
the journal's caches, the evaluator's tables and the feeds' backlogs have grown to their
size by then), its highest after, and at the end, the messages the viewers read, and the
chips check of the sim's summary (its ``--json``). Goal (docs/performance.md): the memory
after hand WARM grows by at most 10%. Checks: the sim ends with status 0, every viewer
still connected at the end, the chips conserved (``--json FILE``: bench/figures_kit.py's
JSON, the figures under ``figures``).

Usage: .venv/bin/python bench/long_run.py [--hands 10000] [--viewers 50] [--warm 1000]
       [--seats 6] [--seed 1] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TypedDict

import websockets
from figures_kit import Report, add_json_option

from controller.sim.summary import Summary
from controller.sim.view import ConsoleServed, Event, HandOver

LUCK_TABLE = str(Path(sys.executable).with_name("luck-table"))
GROWTH_GOAL = 0.10  # the memory after the warm-up grows by at most this share
PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_bytes(pid: int) -> int:
    """The resident memory of process ``pid`` (bytes)."""
    with open(f"/proc/{pid}/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * PAGE


#: Viewers a loopback address at most: the console takes a few feeds an address
#: (``[api] max_websockets``, 8), so the viewers come from addresses of 127.0.0.0/8 as
#: viewers on a casino's network come from their own.
PER_ADDRESS = 7


async def follow(url: str, counts: list[int], index: int) -> None:
    """One public viewer: read every message of the feed until cancelled."""
    address = f"127.0.0.{10 + index // PER_ADDRESS}"
    async with websockets.connect(url, max_size=None, local_addr=(address, 0)) as feed:
        async for _ in feed:
            counts[index] += 1


async def viewers(url: str, many: int) -> None:
    """``many`` viewers on ``url`` until a line comes on stdin; then print what each read
    (JSON: ``{"messages": [...], "closed": N}``, closed: viewers whose feed ended early)."""
    counts = [0] * many
    tasks = [asyncio.create_task(follow(url, counts, i)) for i in range(many)]
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    closed = sum(task.done() for task in tasks)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(json.dumps({"messages": counts, "closed": closed}), flush=True)


class Read(TypedDict):
    """What the viewers read (``viewers``' JSON): each one's messages, and how many of their
    feeds ended early."""

    messages: list[int]
    closed: int


class LongRun(TypedDict):
    """The run's figures (``run``)."""

    hands: int
    status: int
    seconds: float
    hands_per_second: float
    viewers: int
    viewers_closed_early: int
    messages_per_viewer_min: int
    rss_first_mib: float
    rss_at_warm_mib: float
    rss_highest_after_warm_mib: float
    rss_last_mib: float
    growth_after_warm: float
    chips_conserved: bool
    met: bool


def stop(watchers: subprocess.Popen[str]) -> Read:
    """Stop the viewers' process: what each viewer read, and how many feeds had ended."""
    assert watchers.stdin is not None and watchers.stdout is not None
    watchers.stdin.write("stop\n")
    watchers.stdin.flush()
    report: Read = json.loads(watchers.stdout.readline())
    watchers.wait(timeout=60)
    return report


def run(hands: int, many: int, warm: int, seats: int, seed: int) -> LongRun:
    """Deal the run and follow its memory; the figures."""
    folder = Path(tempfile.mkdtemp(prefix="long-run-"))
    summary = folder / "summary.json"
    sim = subprocess.Popen(
        [
            *(LUCK_TABLE, "sim", "--hands", str(hands), "--speed", "max", "--seats", str(seats)),
            *("--seed", str(seed), "--console", "127.0.0.1:0", "--journal", str(folder / "j.db")),
            *("--progress", "--json", str(summary)),
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=folder,
    )
    assert sim.stdout is not None
    watchers = None
    report: Read = {"messages": [], "closed": many}
    memory: dict[int, int] = {}
    started = time.monotonic()
    try:
        for line in sim.stdout:  # --progress: one JSON object a line (docs/sim.md)
            event: ConsoleServed | HandOver = json.loads(line)
            if event["event"] == Event.CONSOLE and watchers is None:
                url = event["url"].replace("http", "ws", 1) + "/ws"
                watchers = subprocess.Popen(
                    [sys.executable, __file__, "--viewers-of", url, str(many)],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                )
                assert watchers.stdout is not None
                assert watchers.stdout.readline().strip() == "ready"
            elif event["event"] == Event.HAND_OVER:
                hand = event["hand"]
                memory[hand] = rss_bytes(sim.pid)
                if len(memory) % 500 == 0:
                    print(f"  hand {hand}: {memory[hand] >> 20} MiB")
                if hand == hands - 1 and watchers is not None:
                    report = stop(watchers)  # with a hand to go: the console still serves
        status = sim.wait(timeout=120)
    finally:
        if sim.poll() is None:
            sim.kill()
        if watchers is not None and watchers.poll() is None:
            watchers.kill()
    wall = time.monotonic() - started
    made: Summary | None = json.loads(summary.read_text()) if summary.exists() else None
    conserved = made is not None and made["chips"]["conserved"]
    at_warm = memory.get(warm) or (memory[max(memory)] if memory else 0)
    after = [rss for hand, rss in memory.items() if hand > warm] or [at_warm]
    growth = (max(after) - at_warm) / at_warm if at_warm else 0.0
    return {
        "hands": len(memory),
        "status": status,
        "seconds": round(wall, 1),
        "hands_per_second": round(len(memory) / wall, 2) if wall else 0.0,
        "viewers": many,
        "viewers_closed_early": report["closed"],
        "messages_per_viewer_min": min(report["messages"], default=0),
        "rss_first_mib": round(memory[min(memory)] / 2**20, 1) if memory else 0.0,
        "rss_at_warm_mib": round(at_warm / 2**20, 1),
        "rss_highest_after_warm_mib": round(max(after) / 2**20, 1),
        "rss_last_mib": round(memory[max(memory)] / 2**20, 1) if memory else 0.0,
        "growth_after_warm": round(growth, 4),
        "chips_conserved": conserved,
        "met": status == 0 and growth <= GROWTH_GOAL and report["closed"] == 0 and conserved,
    }


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--viewers-of":
        asyncio.run(viewers(sys.argv[2], int(sys.argv[3])))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--viewers", type=int, default=50)
    parser.add_argument("--warm", type=int, default=1000, help="the hand memory is judged from")
    parser.add_argument("--seats", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    add_json_option(parser)
    args = parser.parse_args()
    report = Report.start(__file__, args)
    warm = min(args.warm, max(args.hands // 2, 1))
    figures = run(args.hands, args.viewers, warm, args.seats, args.seed)
    print(
        f"{figures['hands']} hands in {figures['seconds']} s "
        f"({figures['hands_per_second']} hands/s) with the console and {args.viewers} viewers"
    )
    print(
        f"memory (RSS): {figures['rss_first_mib']} MiB after hand 1, "
        f"{figures['rss_at_warm_mib']} MiB after hand {warm}, highest after "
        f"{figures['rss_highest_after_warm_mib']} MiB, last {figures['rss_last_mib']} MiB: "
        f"{figures['growth_after_warm']:+.1%} (goal <= +{GROWTH_GOAL:.0%})"
    )
    print(
        f"viewers: {figures['viewers_closed_early']} closed early, each read at least "
        f"{figures['messages_per_viewer_min']} messages; chips conserved: "
        f"{figures['chips_conserved']}"
    )
    print("met" if figures["met"] else "NOT met")
    growth = figures["growth_after_warm"]
    report.row(
        f"memory growth after hand {warm}",
        100 * growth,
        "%",
        f"<= {GROWTH_GOAL:.0%}",
        growth <= GROWTH_GOAL,
    )
    report.row("memory after hand 1", figures["rss_first_mib"], "MiB")
    report.row("pace with the console and viewers", figures["hands_per_second"], "hands/s")
    report.check("the sim ended with status 0", figures["status"] == 0)
    report.check("every viewer kept its feed", figures["viewers_closed_early"] == 0)
    report.check("the chips conserved", figures["chips_conserved"])
    report.figures = {**figures, "warm": warm}
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
