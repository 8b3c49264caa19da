"""PC/SC benchmark: a card coming out of the shoe to the table's effect, through pcscd and
a virtual reader, against the serial path (the simulated shoe on a pseudo-terminal), in
the same run, with the same dealer, seed and hands.

- PC/SC: a private pcscd with Debian's virtual reader (vsmartcard-vpcd) at the shoe; each
  card is a virtual tag that comes into the reader's field. Measured from the tag's
  connecting to the reader to the shoe driver's event (``made``), and to the table
  service's having journaled and applied it (``table``: the driver's events acknowledged).
  The difference between ``made`` and the table is the host; ``made`` itself is what the
  reader's polling adds.
- Serial: the simulated shoe on a pty at 115200 baud, the same service: from the control
  command ``draw`` to the table's having taken the card (the simulator's events
  acknowledged), as controller.sim.service_floor measures every act.

Its checks: the same hands dealt on both (the fingerprints equal), and as many cards.

    .venv/bin/python bench/pcsc.py [--hands N] [--json FILE]

It needs root, pcscd, vsmartcard-vpcd and pyscard (docs/hardware.md); without them it says
why, writes no figures (those recorded stay) and exits with status 0.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from figures_kit import Report, add_json_option

from controller.sim.dealer import Dealer, Tally
from controller.sim.pcsc_floor import pcsc_floor
from controller.sim.service_floor import service_floor
from controller.table import TableSettings
from controller.table.settings import Protection
from drivers.protocol import Disposition
from firmware_sim import pcsc_rig

SETTINGS = TableSettings(seat_board=False, protection=Protection(tag_checks=True))
SEATS = 2
SEED = 7


def p(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def line(name: str, ms: list[float]) -> str:
    return (
        f"  {name:<34} n={len(ms):3d}  p50 {p(ms, 0.5):7.1f} ms  p99 {p(ms, 0.99):7.1f} ms  "
        f"max {max(ms):7.1f} ms  mean {statistics.fmean(ms):7.1f} ms"
    )


async def pcsc(hands: int, folder: Path) -> tuple[Tally, list[float], list[float], float]:
    tally = Tally()
    start = time.perf_counter()
    async with pcsc_floor(SETTINGS, folder / "pcsc.sqlite", tally.observe, seed=SEED) as floor:
        await Dealer(floor, tally, seats=SEATS, hands=hands, seed=SEED).run()
        cards = [t for t in floor.readers.timings if t[0] == "shoe"]  # not the cut cards
    return (
        tally,
        [made for _, made, _ in cards],
        [table for _, _, table in cards],
        time.perf_counter() - start,
    )


async def serial(hands: int, folder: Path) -> tuple[Tally, list[float], float]:
    tally = Tally()
    start = time.perf_counter()
    async with service_floor(SETTINGS, folder / "serial.sqlite", tally.observe, seed=SEED) as floor:
        samples: list[float] = []
        draw = floor.draw

        async def timed(unread: Disposition | None) -> int:
            began = time.perf_counter()
            card = await draw(unread)
            samples.append(time.perf_counter() - began)
            return card

        floor.draw = timed  # type: ignore[method-assign]  # the same call, timed
        await Dealer(floor, tally, seats=SEATS, hands=hands, seed=SEED).run()
    return tally, samples, time.perf_counter() - start


def measure(args: argparse.Namespace, report: Report) -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        on_pcsc, made, table, pcsc_seconds = asyncio.run(pcsc(args.hands, folder))
        on_serial, wire, serial_seconds = asyncio.run(serial(args.hands, folder))
    same = report.check("the same hands on both", on_pcsc.hand_digest == on_serial.hand_digest)
    cards = report.check("as many cards on both", len(made) == len(wire) == on_serial.drawn)
    made_ms = [1000 * s for s in made]
    table_ms = [1000 * s for s in table]
    host_ms = [t - m for m, t in zip(made_ms, table_ms, strict=True)]
    wire_ms = [1000 * s for s in wire]
    print(f"A card out of the shoe to the table's effect, {args.hands} hand(s) of {SEATS} players:")
    print(line("PC/SC: tag in field -> driver event", made_ms))
    print(line("PC/SC: tag in field -> table", table_ms))
    print(line("PC/SC: driver event -> table", host_ms))
    print(line("serial: draw -> table", wire_ms))
    print(f"  whole run: PC/SC {pcsc_seconds:.1f} s, serial {serial_seconds:.1f} s")
    print(f"  the same hands on both: {same}; as many cards on both: {cards}")
    for what, samples in (
        ("PC/SC: tag in field to the table", table_ms),
        ("PC/SC: tag in field to the driver's event", made_ms),
        ("PC/SC: the driver's event to the table", host_ms),
        ("serial: draw to the table", wire_ms),
    ):
        report.row(f"{what}, p50", p(samples, 0.5), "ms")
        report.row(f"{what}, p99", p(samples, 0.99), "ms")
    report.row("whole run on PC/SC", pcsc_seconds, "s")
    report.row("whole run on serial", serial_seconds, "s")
    report.figures = {
        "hands": args.hands,
        "seats": SEATS,
        "seed": SEED,
        "cards": len(made),
        "pcsc_seconds": round(pcsc_seconds, 3),
        "serial_seconds": round(serial_seconds, 3),
        "pcsc_made_ms": [round(ms, 2) for ms in made_ms],
        "pcsc_table_ms": [round(ms, 2) for ms in table_ms],
        "serial_ms": [round(ms, 2) for ms in wire_ms],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=2)
    add_json_option(parser)
    args = parser.parse_args()
    missing = pcsc_rig.missing()
    if missing is not None:
        print(f"bench/pcsc.py: skipped, no figures written: {missing}")
        return 0
    report = Report.start(__file__, args)
    measure(args, report)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
