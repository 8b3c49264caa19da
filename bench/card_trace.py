"""Where a card's time goes: bench/table.py (a)'s runs traced card by card.

The runs of (a) (the whole service alone, with a floor, with a floor and VIEWERS public
viewers on the console's feed; beside the driver alone on the same simulator), each card
timed at each stage of its path: the draw sent to the shoe -> the service handed the card
by its driver -> the journal commit's start and end -> the table applied -> the update at
the subscriber. Beside them, from the same run: the event loop's callbacks over 1 ms (by
name) and its time spent sending to the feed's viewers; the garbage collections (full ones
during the cards); the write-ahead log's largest size; the checkpoints at hands' ends and
the journal's rotations into segments (both in threads) and the commits beside them; the
commits in which the journal's file changed (a checkpoint of their own, or beside one);
the snapshots written at hands' ends; in the shipper's process each floor transaction and
each derivation, and the share of the cards (all, and the slowest 5 %) one was in flight
during; PostgreSQL's CPU time. The way ``resume`` is (g)'s: the cards drawn while the
shipper (in its process) catches up a journal of 300 hands that its floor does not hold.
What it adds to each stage is a probe's few microseconds; its figures are for finding
causes, bench/table.py's for the goal. Run it from two trees to compare them.

Usage: .venv/bin/python bench/card_trace.py [--cards N] [--viewers N]
[--ways alone,floor,viewed,resume] (the first three by default) [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import asyncio.events
import bisect
import contextlib
import gc
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any, TypedDict

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import table as bench  # noqa: E402  # bench/table.py
from figures_kit import Report, add_json_option  # noqa: E402

from controller.floor import shipper as shipping  # noqa: E402
from controller.floor import store as floor_store  # noqa: E402
from controller.intake import Arrival  # noqa: E402
from controller.journal import store as journal_store  # noqa: E402
from controller.service import service as table_service  # noqa: E402
from controller.table import Step  # noqa: E402
from tests.floor_scratch import scratch_database  # noqa: E402
from tests.service_kit import simulator  # noqa: E402

#: Hands of the journal the floor does not hold in the way "resume" (as bench/table.py's (g)).
RESUME = 300
now = time.perf_counter  # CLOCK_MONOTONIC: one clock for the service's and the shipper's process
#: The shipper's process writes its times here (it inherits the variable).
CHILD_LOG = "LUCK_CARD_TRACE_CHILD"
#: start, end, kind, detail: what the probe of that kind noted (of its own type: a size, a
#: generation, a name, or the values before and after)
events: list[tuple[float, float, str, Any]] = []
sending: list[float] = [0.0]  # the loop's seconds in the feed's viewers' tasks


def traced(
    owner: object, name: str, kind: str, detail: Callable[..., object] | None = None
) -> None:
    """Time ``owner.name`` (a function or coroutine function) into ``events``."""
    original = getattr(owner, name)
    if asyncio.iscoroutinefunction(original):

        async def timed_async(*args: object, **kwargs: object) -> object:
            started = now()
            events.append((started, started, kind, detail and detail(*args)))
            return await original(*args, **kwargs)

        setattr(owner, name, timed_async)
        return

    def timed(*args: object, **kwargs: object) -> object:
        before = detail(*args) if detail else None
        started = now()
        result = original(*args, **kwargs)
        events.append((started, now(), kind, detail and (before, detail(*args))))
        return result

    setattr(owner, name, timed)


def main_file(journal: journal_store.Journal) -> int:
    return os.stat(journal.path).st_mtime_ns


def cards_in(service: table_service.TableService, batch: Sequence[Arrival]) -> bool:
    return any(type(arrival.event).__name__ == "CardRead" for arrival in batch)


def applied_card(service: table_service.TableService, position: int, step: Step, at: float) -> bool:
    return any(effect.kind in ("card", "burn") for effect in step.effects)


def wal_size(journal: journal_store.Journal) -> int:
    with contextlib.suppress(OSError):
        return os.stat(f"{journal.path}-wal").st_size
    return 0


def trace_the_service() -> None:
    traced(journal_store.Journal, "append", "commit", lambda journal, _: main_file(journal))
    traced(journal_store.Journal, "_writable", "wal", wal_size)
    traced(table_service.TableService, "_arrived", "arrived", cards_in)
    traced(table_service.TableService, "_applied", "applied", applied_card)
    traced(table_service.TableService, "_snapshot", "snapshot")
    for name in ("rotate", "finish"):  # the journal's rotation into segments, in a thread
        traced(table_service, name, "rotation")
    if hasattr(journal_store.Journal, "checkpoint"):  # the service's own, at hands' ends
        traced(journal_store.Journal, "checkpoint", "checkpoint")
    run = asyncio.events.Handle._run

    def timed_run(handle: asyncio.events.Handle) -> None:
        started = now()
        run(handle)
        took = now() - started
        callback = handle._callback  # type: ignore[attr-defined]  # private: typeshed has none
        task = getattr(callback, "__self__", None)
        coroutine = task.get_coro() if isinstance(task, asyncio.Task) else None
        name = getattr(coroutine or callback, "__qualname__", type(callback).__name__)
        if "send_until_closed" in name:
            sending[0] += took
        if took > 0.001:
            events.append((started, started + took, "slow", name))

    setattr(asyncio.events.Handle, "_run", timed_run)  # noqa: B010  # patched as traced patches
    collecting = [0.0]  # when the collection under way started

    def collected(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collecting[0] = now()
        else:
            events.append((collecting[0], now(), "gc", info["generation"]))

    gc.callbacks.append(collected)


def trace_the_shipper(path: str) -> None:
    """In the shipper's process: each derivation and floor transaction, a line each."""
    log = open(path, "a", buffering=1)  # noqa: SIM115  # open for the process's life

    for name in ("derive", "ingest"):
        owner = shipping if name == "derive" else floor_store  # the store module the shipper calls
        original = getattr(owner, name)

        def timed(
            *args: object,
            _original: Callable[..., object] = original,
            _name: str = name,
            **kwargs: object,
        ) -> object:
            started = now()
            result = _original(*args, **kwargs)
            log.write(f"{_name} {started:.6f} {now():.6f}\n")
            return result

        setattr(owner, name, timed)


def postgres_cpu() -> float:
    """CPU seconds PostgreSQL's processes have used."""
    ticks = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            stat = Path(f"/proc/{pid}/stat").read_text()
            if stat[stat.index("(") + 1 : stat.rindex(")")].startswith("postgres"):
                fields = stat[stat.rindex(")") + 2 :].split()
                ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def quantiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    if not ordered:
        return "none"
    p90 = ordered[round(0.9 * (len(ordered) - 1))]
    p99 = ordered[round(0.99 * (len(ordered) - 1))]
    return f"p50 {statistics.median(ordered):6.2f}  p90 {p90:6.2f}  p99 {p99:6.2f} ms"


def in_figures(samples: list[float]) -> dict[str, float | None]:
    """``quantiles`` as JSON: p50, p90, p99 in ms (None without samples)."""
    ordered = sorted(samples)
    if not ordered:
        return {"p50_ms": None, "p90_ms": None, "p99_ms": None}
    p90 = ordered[round(0.9 * (len(ordered) - 1))]
    p99 = ordered[round(0.99 * (len(ordered) - 1))]
    return {
        "p50_ms": round(statistics.median(ordered), 3),
        "p90_ms": round(p90, 3),
        "p99_ms": round(p99, 3),
    }


class Traced(TypedDict):
    """The stages' figures of a way's cards (``report``)."""

    stages: dict[str, dict[str, float | None]]  # each stage's ``in_figures``
    commits: int
    wal_max_bytes: int
    full_collections_ms: list[float]


def report(cards: list[tuple[float, float]], child: list[tuple[str, float, float]]) -> Traced:
    """The stages of each card, and what ran beside them; the stages' figures."""
    first, last = cards[0][0], cards[-1][0] + cards[-1][1] / 1000
    during = [e for e in events if first <= e[0] <= last]
    arrived = [e[0] for e in during if e[2] == "arrived" and e[3]]
    commits = [e for e in during if e[2] == "commit"]
    applied = [e[0] for e in during if e[2] == "applied" and e[3][0]]
    stages: dict[str, list[float]] = {
        "card": [],
        "to the service": [],
        "its commit": [],
        "the table": [],
        "published": [],
    }
    starts = [c[0] for c in commits]
    for sent, ms in cards:
        got = arrived[bisect.bisect_left(arrived, sent) :][:1]
        committed = commits[bisect.bisect_left(starts, got[0]) :][:1] if got else []
        table = applied[bisect.bisect_left(applied, committed[0][1]) :][:1] if committed else []
        if not table:
            continue
        stages["card"].append(ms)
        stages["to the service"].append((got[0] - sent) * 1000)
        stages["its commit"].append((committed[0][1] - committed[0][0]) * 1000)
        stages["the table"].append((table[0] - committed[0][1]) * 1000)
        stages["published"].append((sent + ms / 1000 - table[0]) * 1000)
    for name, samples in stages.items():
        print(f"      {name:16s} {quantiles(samples)}")
    sizes = [e[3][0] for e in during if e[2] == "wal"]
    print(
        f"      commits {len(commits)}: {quantiles([(c[1] - c[0]) * 1000 for c in commits])}; "
        f"write-ahead log at most {max(sizes, default=0) / 1e6:.1f} MB"
    )
    beside: dict[str, list[float]] = {"nothing": [], "checkpoint": [], "rotation": []}
    changed = []  # commits in which the journal's main file changed
    for commit in commits:
        ms = (commit[1] - commit[0]) * 1000
        kinds = [
            e[2]
            for e in during
            if e[2] in ("checkpoint", "rotation") and e[0] < commit[1] and e[1] > commit[0]
        ]
        beside[kinds[0] if kinds else "nothing"].append(ms)
        if commit[3][0] != commit[3][1]:
            changed.append(f"{ms:.1f}{'' if kinds else ' (its own checkpoint)'}")
    for kind in ("checkpoint", "rotation"):
        lengths = [(e[1] - e[0]) * 1000 for e in during if e[2] == kind]
        print(
            f"      {kind}s: {len(lengths)}, {quantiles(lengths)}; the commits beside one: "
            f"{len(beside[kind])}, {quantiles(beside[kind])}"
        )
    print(f"      commits that changed the journal's file: [{', '.join(changed)}] ms")
    full = [f"{(e[1] - e[0]) * 1000:.0f}" for e in during if e[2] == "gc" and e[3] == 2]
    young = [(e[1] - e[0]) * 1000 for e in during if e[2] == "gc" and e[3] < 2]
    snapshots = [(e[1] - e[0]) * 1000 for e in during if e[2] == "snapshot"]
    print(
        f"      full collections: [{', '.join(full)}] ms; younger: {len(young)}, "
        f"{quantiles(young)}; snapshots: {len(snapshots)}, {quantiles(snapshots)}"
    )
    slow = Counter(e[3] for e in during if e[2] == "slow")
    print(f"      loop callbacks over 1 ms: {dict(slow.most_common(6))}")
    slowest = sorted(cards, key=lambda card: -card[1])[: max(1, len(cards) // 20)]
    for kind in ("ingest", "derive"):
        spans = [(start, end) for name, start, end in child if name == kind]
        if not spans:
            continue

        def share(of: list[tuple[float, float]], spans: list[tuple[float, float]] = spans) -> str:
            beside = sum(
                1 for sent, ms in of if any(a < sent + ms / 1000 and b > sent for a, b in spans)
            )
            return f"{beside / len(of):.0%}"

        print(
            f"      shipper's {kind}: {len([s for s in spans if first <= s[0] <= last])} during "
            f"the cards, in flight under {share(cards)} of them ({share(slowest)} of the "
            "slowest 5 %)"
        )
    return {
        "stages": {name: in_figures(samples) for name, samples in stages.items()},
        "commits": len(commits),
        "wal_max_bytes": max(sizes, default=0),
        "full_collections_ms": [float(ms) for ms in full],
    }


def run(
    way: str, folder: Path, port: str, control: str, cards: int, viewers: int, out: Report
) -> None:
    child = folder / f"{way}.shipper"
    os.environ[CHILD_LOG] = str(child)
    dealt: list[tuple[float, float]] = []
    dealing = bench.dealing
    cpu = [0.0, 0.0]  # PostgreSQL's CPU seconds, and the dealing's, while the cards were dealt

    @contextlib.asynccontextmanager
    async def kept(
        service: table_service.TableService, control_address: str
    ) -> AsyncIterator[bench.Dealing]:
        used, started = postgres_cpu(), now()
        async with dealing(service, control_address) as cards_dealt:
            yield cards_dealt
        cpu[:] = [postgres_cpu() - used, now() - started]  # its backends still there
        dealt.extend(cards_dealt.cards)

    bench.dealing = kept
    events.clear()
    sending[0] = 0.0
    catching_up = 0  # the cards drawn while the floor caught up (way "resume")
    with contextlib.ExitStack() as stack:
        dsn = "" if way == "alone" else stack.enter_context(scratch_database("luck_card_trace"))
        if way == "resume":
            (folder / way).mkdir()
            bench.write_journal(folder / way / "table.sqlite", RESUME, seed=5, in_progress=False)
            events.clear()
            during, _, took = asyncio.run(
                bench.while_the_floor_catches_up(folder / way, port, control, dsn, cards)
            )
            catching_up = len(during)
            print(f"    resume: the floor caught up {RESUME} hands in {took:.1f} s")
        else:
            asyncio.run(
                bench.whole_service(
                    folder / way, port, control, cards, dsn, viewers if way == "viewed" else 0
                )
            )
    bench.dealing = dealing
    lines = child.read_text().split() if child.exists() else []
    spans = [(lines[i], float(lines[i + 1]), float(lines[i + 2])) for i in range(0, len(lines), 3)]
    print(
        f"    {way}: {len(dealt)} cards; PostgreSQL's CPU {cpu[0]:.2f} s in {cpu[1]:.1f} s; "
        f"the loop's time sending to viewers {sending[0]:.2f} s"
    )
    traced = dealt[:catching_up] if catching_up else dealt[:cards]
    figures = report(traced, spans)
    out.check("every way dealt its cards", len(dealt) >= cards > 0 or way == "resume")
    out.check("every way's cards traced at every stage", len(figures["stages"]) > 0)
    out.figures[way] = {"cards": len(traced), "postgres_cpu_s": round(cpu[0], 3), **figures}
    out.row(f"{way}: a card, p99", figures["stages"]["card"]["p99_ms"] or 0.0, "ms")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cards", type=int, default=500)
    parser.add_argument("--viewers", type=int, default=200)
    parser.add_argument("--ways", default="alone,floor,viewed")
    add_json_option(parser)
    args = parser.parse_args()
    out = Report.start(__file__, args)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # a TextIOWrapper
    print("load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    trace_the_service()
    with tempfile.TemporaryDirectory() as folder, simulator("shoe", seed=3) as shoe:
        control = shoe.announced["control"]
        alone = asyncio.run(bench.driver_alone(shoe.port, control, args.cards))
        print(f"    driver alone: {quantiles(alone)}")
        out.figures["driver alone"] = in_figures(alone)
        for way in args.ways.split(","):
            run(way, Path(folder), shoe.port, control, args.cards, args.viewers, out)
    print("load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    return out.finish()


if __name__ == "__main__":
    sys.exit(main())
elif CHILD_LOG in os.environ:  # the shipper's process (spawned: this file is its __mp_main__)
    trace_the_shipper(os.environ[CHILD_LOG])
