"""PC/SC benchmark: a card coming out of the shoe to the table's effect, through pcscd and
a virtual reader, against the serial path (the simulated shoe on a pseudo-terminal), in
the same run, with the same dealer, seed and hands.

- PC/SC: a private pcscd with Debian's virtual reader (vsmartcard-vpcd) at the shoe; each
  card is a virtual tag that comes into the reader's field. Measured from the tag's
  connecting to the reader to the shoe driver's event (``made``), and to the table
  service's having journaled and applied it (``table``: the driver's events acknowledged).
  The difference between ``made`` and the table is the host; ``made`` itself is what the
  reader's polling adds (pcscd polls a vpcd reader every 400 ms; a USB CCID reader reports
  a card by its own interrupt, a few ms after its own field poll).
- Serial: the simulated shoe on a pty at 115200 baud, the same service: from the control
  command ``draw`` to the table's having taken the card (the simulator's events
  acknowledged), as controller.sim.service_floor measures every act.

Usage: .venv/bin/python bench/pcsc.py [--hands N] (needs root, pcscd, vsmartcard-vpcd and
pyscard: docs/hardware.md; without them it says so and exits 0).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from controller.sim.dealer import Dealer, Tally
from controller.sim.pcsc_floor import pcsc_floor
from controller.sim.service_floor import service_floor
from controller.table import TableSettings
from controller.table.settings import Protection
from firmware_sim import pcsc_rig

SETTINGS = TableSettings(seat_board=False, protection=Protection(tag_checks=True))


def p(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def line(name: str, samples: list[float]) -> str:
    ms = [s * 1000 for s in samples]
    return (
        f"  {name:<34} n={len(ms):3d}  p50 {p(ms, 0.5):7.1f} ms  p99 {p(ms, 0.99):7.1f} ms  "
        f"max {max(ms):7.1f} ms  mean {statistics.fmean(ms):7.1f} ms"
    )


async def pcsc(hands: int, folder: Path) -> tuple[list[float], list[float], float]:
    tally = Tally()
    start = time.perf_counter()
    async with pcsc_floor(SETTINGS, folder / "pcsc.sqlite", tally.observe, seed=7) as floor:
        await Dealer(floor, tally, seats=2, hands=hands, seed=7).run()
        cards = [t for t in floor.readers.timings if t[0] == "shoe"]  # not the cut cards
    return (
        [made for _, made, _ in cards],
        [table for _, _, table in cards],
        time.perf_counter() - start,
    )


async def serial(hands: int, folder: Path) -> tuple[list[float], float]:
    tally = Tally()
    start = time.perf_counter()
    async with service_floor(SETTINGS, folder / "serial.sqlite", tally.observe, seed=7) as floor:
        samples: list[float] = []
        draw = floor.draw

        async def timed(unread):  # type: ignore[no-untyped-def]
            began = time.perf_counter()
            card = await draw(unread)
            samples.append(time.perf_counter() - began)
            return card

        floor.draw = timed  # type: ignore[method-assign]
        await Dealer(floor, tally, seats=2, hands=hands, seed=7).run()
    return samples, time.perf_counter() - start


async def main(hands: int) -> None:
    missing = pcsc_rig.missing()
    if missing is not None:
        print(f"bench/pcsc.py: skipped: {missing}")
        return
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        made, table, pcsc_seconds = await pcsc(hands, folder)
        wire, serial_seconds = await serial(hands, folder)
    print(f"A card out of the shoe to the table's effect, {hands} hand(s) of 2 players:")
    print(line("PC/SC: tag in field -> driver event", made))
    print(line("PC/SC: tag in field -> table", table))
    print(line("PC/SC: driver event -> table", [t - m for m, t in zip(made, table, strict=True)]))
    print(line("serial: draw -> table", wire))
    print(f"  whole run: PC/SC {pcsc_seconds:.1f} s, serial {serial_seconds:.1f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=2)
    asyncio.run(main(parser.parse_args().hands))
