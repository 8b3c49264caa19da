"""The simulated table's pace at full speed: hands and cards per second through the whole
table (simulator processes on pseudo-terminals, drivers, journal, table service), against
the same hands dealt to the table core in this process, in one run.

The same seed deals the same hands on both (the fingerprints are checked equal). Every
physical act on the devices waits until the service has journaled and applied its events
(``controller.sim.service_floor``), so the table's rate is bound by a round trip per card:
simulator, line at 115200 baud, driver, journal commit (WAL, synchronous=FULL), table core,
acknowledgement. Wall-clock time: the table's processes and the disk are part of it.

    .venv/bin/python bench/sim.py [--hands N] [--seats S] [--seed S] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

from figures_kit import Report, add_json_option

from controller.sim.dealer import Dealer, Tally
from controller.sim.floor import CoreFloor, Floor
from controller.sim.service_floor import service_floor
from controller.table import TableSettings


async def deal(floor: Floor, tally: Tally, args: argparse.Namespace) -> None:
    await Dealer(floor, tally, seats=args.seats, hands=args.hands, seed=args.seed).run()


async def on_service(args: argparse.Namespace, journal: Path) -> tuple[Tally, float]:
    tally = Tally()
    async with service_floor(TableSettings(), journal, tally.observe, seed=args.seed) as floor:
        started = time.perf_counter()
        await deal(floor, tally, args)
        seconds = time.perf_counter() - started
    return tally, seconds


async def on_core(args: argparse.Namespace) -> tuple[Tally, float]:
    tally = Tally()
    started = time.perf_counter()
    await deal(CoreFloor(TableSettings(), tally.observe), tally, args)
    return tally, time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--seats", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    add_json_option(parser)
    args = parser.parse_args()
    report = Report.start(__file__, args)
    with tempfile.TemporaryDirectory() as folder:
        journal = Path(folder) / "table.sqlite3"
        service, service_seconds = asyncio.run(on_service(args, journal))
        size = journal.stat().st_size  # closed: the WAL is checkpointed into it
    core, core_seconds = asyncio.run(on_core(args))
    same = report.check("the same hands on both", service.hand_digest == core.hand_digest)
    print(f"{args.hands} hands, {args.seats} seats, seed {args.seed}: {core.cards} cards")
    for name, tally, seconds in (
        ("table service on simulators", service, service_seconds),
        ("table core in process", core, core_seconds),
    ):
        print(
            f"  {name:<28} {tally.hands / seconds:8.1f} hands/s {tally.cards / seconds:9.1f} "
            f"cards/s {1000 * seconds / tally.cards:7.2f} ms a card"
        )
    print(f"  service / core time: {service_seconds / core_seconds:.1f}x")
    print(f"  journal: {size / 1024:.0f} KiB, {size / args.hands / 1024:.1f} KiB a hand")
    print(f"  the same hands on both: {same}")
    report.row(
        "a card through the service on simulators", 1000 * service_seconds / service.cards, "ms"
    )
    report.row("a card on the table core", 1000 * core_seconds / core.cards, "ms")
    report.row("journal a hand", size / args.hands / 1024, "KiB")
    report.figures = {
        "hands": args.hands,
        "seats": args.seats,
        "seed": args.seed,
        "cards": core.cards,
        "service_seconds": round(service_seconds, 4),
        "core_seconds": round(core_seconds, 4),
        "journal_bytes": size,
    }
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
