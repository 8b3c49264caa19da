"""Dealer soak: a human dealer (``controller.sim.human``) deals through cable pulls, line
faults and SIGKILLs of the table service, and the table ends as if none had happened.

The shoe and the seat board are firmware simulator processes on pseudo-terminals, with
``line_faults`` of their frames dropped or corrupted; the table service is a ``luck-table
serve`` process of its own on them (its journal in a temporary folder), killed with SIGKILL
``kills`` times at random cards and started again on the same journal while the dealer
keeps pitching. The dealer pitches cards as a person does (no waiting for acknowledgements),
pulls a device's cable for 1-2 s at ``unplugs`` per card, reads the table as the service
holds it (a copy kept by reading the journal the service writes, through the same table
core), and enters people's inputs through the service's REST API (docs/api.md), waiting
while the service is down. The same seed is dealt by the same dealer on the pure core in this
process with no fault (``--core-only``'s hands).

With ``--mistakes RATE`` the dealer makes a person's mistakes (docs/sim.md), the same on
the core, and the simulated supervisor applies the remedy each alert offers; once each hand
is over the dealer checks every card the table has at a seat against where it lies in the
simulated world (where the dealer pitched it or moved it).

Printed: hands, cards, the faults injected, the kills, every alert kind raised, the chips
check, the cards checked against the world, and both fingerprints. It passes (exit status
0) with the chips conserved, the alerts beyond the links' own those of the core's run (none
without mistakes), every card where it lies, and the fingerprint equal to the core's.

Usage: .venv/bin/python bench/dealer_soak.py [--hands 1000] [--seats 8] [--unplugs 0.02]
       [--line-faults 0.01] [--kills 10] [--mistakes 0] [--seed 1] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import shutil
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import tomli_w
from figures_kit import Report, add_json_option

from controller.hil.service import Console, Credentials, ServiceProcess
from controller.hil.service import Refusal as Answered
from controller.journal import Journal
from controller.records import table_inputs
from controller.rules import Effect, Illegal
from controller.sim.dealer import FaultRates, Injected, Pace, Tally, how_words
from controller.sim.floor import CoreFloor, PhysicalActError
from controller.sim.human import HumanDealer
from controller.table import (
    AlertKind,
    CorrectCard,
    Decide,
    EnterCard,
    NewHand,
    Rebuy,
    Refusal,
    Refuse,
    ResolveAlert,
    SitDown,
    Table,
    TableInput,
    TableSettings,
    WrongFace,
    apply,
)
from controller.table.effects import Words
from dealer_ui.auth import hash_pin
from drivers.protocol import DeviceKind, Disposition
from firmware_sim.process import SimulatorProcess
from firmware_sim.shoe import Cheat

BAUD = 115200
PIN = "soak-1234"
ACT_TIMEOUT = 120.0  # seconds a device may take to deliver an act's events (restarts included)


class ApiFloor:
    """The dealer's floor on simulator processes and a ``luck-table serve`` process: people's
    inputs through its API, the table as its journal says, the service killed and started."""

    def __init__(self, shoe: SimulatorProcess, seats: SimulatorProcess, journal: Path) -> None:
        self.senses_seats = True  # the simulated seat board's sensors
        self.devices = {DeviceKind.SHOE: shoe, DeviceKind.SEAT_BOARD: seats}
        self.path = journal
        self.tally = Tally()
        self._table = Table(TableSettings())
        self._position = 0
        self._journal: Journal | None = None
        self.console: Console | None = None
        self.process: ServiceProcess | None = None
        self.down_since: float | None = None
        self.downtime = 0.0
        self.busy = asyncio.Lock()

    # the table, read from the journal ---------------------------------------------------

    @property
    def table(self) -> Table:
        if self._journal is None and self.path.exists():
            self._journal = Journal.open(self.path, create=False)
        if self._journal is not None:
            for entry in self._journal.entries(self._position):
                for item in table_inputs(entry, f"input {entry.position}"):
                    step = apply(self._table, item)
                    self._table = step.table
                    self.tally.observe(step.table, step.effects)
                self._position = entry.position
        return self._table

    def now(self) -> int:
        return 0

    # the service ------------------------------------------------------------------------

    async def start(self, config: Path, log: Path) -> None:
        self.process = ServiceProcess(config, log)
        url = await self.process.start()
        console = Console(url, Credentials(("SOAK", PIN), ("SOAK", PIN)))
        await console.sign_in()
        self.console = console
        if self.down_since is not None:
            self.downtime += time.monotonic() - self.down_since
            self.down_since = None

    async def kill(self) -> None:
        assert self.process is not None
        async with self.busy:
            self.console = None
        self.down_since = time.monotonic()
        await self.process.kill()

    async def submit(self, item: TableInput) -> Refusal | None:
        """A people's input through the API, once the service is up; the service answers
        once it is journaled. A new hand refused because a device is not back yet after a
        restart is asked again (the dealer saw the table before the kill). No kill lands
        while a request is under way (``busy``): an input taken and its answer cut off
        would be entered twice."""
        path, body = _request(item)
        deadline = time.monotonic() + ACT_TIMEOUT
        while time.monotonic() < deadline:
            if self.console is not None:
                async with self.busy:
                    refused = (
                        None if self.console is None else await self.console.submit(path, body)
                    )
                refusal = None if refused is None else _refusal(item, refused)
                if not (isinstance(item, NewHand) and refusal and self._not_back(refusal)):
                    return refusal
            await asyncio.sleep(0.05)
        raise PhysicalActError(f"{item.tag}: the service did not take it in {ACT_TIMEOUT} s")

    def _not_back(self, refusal: Refusal) -> bool:
        """A new hand refused because a device is not back yet (after a restart): the seat
        board is down, a seat's report waits for the shoe's, or a link is down."""
        if refusal.code in (Refuse.SEAT_BOARD_DOWN, Refuse.REPORT_WAITS):
            return True
        down = any(alert.kind is AlertKind.LINK_DOWN for alert in self.table.alerts)
        return refusal.code is Refuse.ALERTS_OPEN and down

    # the devices ------------------------------------------------------------------------

    async def _command(self, device: DeviceKind, line: str) -> Any:
        return await asyncio.to_thread(self.devices[device].command, line)

    async def _act(self, device: DeviceKind, line: str) -> Any:
        reply = await self._command(device, line)
        deadline = time.monotonic() + ACT_TIMEOUT
        while True:
            status = await self._command(device, "status")
            if status["connected"] and status["pending"] == 0 and self.console is not None:
                return reply  # acknowledged: journaled
            if time.monotonic() > deadline:
                raise PhysicalActError(f"{device.value}: {line!r} not taken in {ACT_TIMEOUT} s")
            await asyncio.sleep(0.005)

    async def load(
        self,
        cards: list[int],
        cheat: Cheat | None = None,
        at: int | None = None,
        of: int | None = None,
    ) -> list[int]:
        if cheat is not None:
            raise PhysicalActError("the dealer soak loads no cheat (bench/cheat_soak.py does)")
        await self._act(DeviceKind.SHOE, "load cards=" + ",".join(map(str, cards)))
        return cards

    async def switch(self, seat: int, card: int) -> None:
        raise PhysicalActError("the dealer soak switches no card (bench/cheat_soak.py does)")

    async def shielded(self, seat: int) -> None:
        raise PhysicalActError("the dealer soak shields no tag (bench/cheat_soak.py does)")

    def new_deck(self) -> None:
        raise PhysicalActError("the dealer soak keeps its deck (bench/cheat_soak.py does not)")

    async def draw(self, unread: Disposition | None) -> int:
        raise PhysicalActError("the human dealer pitches: draw is the automatic dealer's")

    async def place(self, seat: int, card: int, lands_at: int) -> None:
        await self._act(DeviceKind.SEAT_BOARD, f"place {seat} {card} lands_at={lands_at}")

    async def sit(self, seat: int) -> None:
        await self._act(DeviceKind.SEAT_BOARD, f"sit {seat}")

    async def leave(self, seat: int) -> None:
        await self._act(DeviceKind.SEAT_BOARD, f"leave {seat}")

    async def people(self) -> None:
        raise PhysicalActError("no one works the soak's table at a console")

    async def unplug(self, device: DeviceKind, seconds: float) -> None:
        raise PhysicalActError("the human dealer pulls a cable and deals on")

    async def settle(self) -> None:
        await asyncio.sleep(0.05)

    async def pitch(self, unread: Disposition | None) -> int:
        line = "draw" if unread is None else f"draw unreadable disposition={unread.value}"
        card: int = (await self._command(DeviceKind.SHOE, line))["card"]
        return card

    async def land(self, card: int, lands_at: int, reads: int | None = None) -> None:
        seen = card if reads is None else reads  # the simulator reports the card it is told
        await self._command(DeviceKind.SEAT_BOARD, f"place {lands_at} {seen}")

    async def pull(self, device: DeviceKind, seconds: float) -> None:
        await self._command(device, f"unplug {seconds:.2f}")

    async def wait(self) -> None:
        await asyncio.sleep(0.02)

    async def quiet(self) -> None:
        for device in self.devices:
            await self._act(device, "status")


#: The table core's reason codes (the rest are the engine's).
REFUSE_CODES = frozenset(code.value for code in Refuse)


def _refusal(item: TableInput, refused: Answered) -> Refusal:
    """The table's refusal of ``item`` as the API answered it: its code and words."""
    code = refused.code
    why = Refuse(code) if code in REFUSE_CODES else Illegal(code)
    return Refusal(Words(refused.reason), item.tag, why)


def _request(item: TableInput) -> tuple[str, dict[str, Any]]:
    """The API request of a people's input the dealer makes (docs/api.md)."""
    signed = {"supervisor": "SOAK", "pin": PIN}
    if isinstance(item, SitDown):
        return "/api/seats", {"seat": item.seat, "player": item.player, "buy_in": item.buy_in}
    if isinstance(item, Rebuy):
        return f"/api/seats/{item.seat}/rebuy", {"chips": item.chips}
    if isinstance(item, NewHand):
        return "/api/hands", {}
    if isinstance(item, Decide):
        body: dict[str, Any] = {"seat": item.seat, "do": item.do.value}
        if item.to is not None:
            body["to"] = item.to
        if item.accept is not None:
            body["accept"] = item.accept
        return "/api/decisions", body
    if isinstance(item, ResolveAlert):
        body = {"alert": item.alert, "remedy": item.remedy.value, "why": item.why}
        return "/api/supervisor/resolve", signed | body
    if isinstance(item, EnterCard):
        return "/api/supervisor/enter-card", signed | {"card": str(item.card), "why": item.why}
    if isinstance(item, CorrectCard):
        cards = {"wrong": str(item.wrong), "right": str(item.right), "why": item.why}
        return "/api/supervisor/correct-card", signed | cards
    if isinstance(item, WrongFace):
        where = {"seat": item.seat, "card": str(item.card), "why": item.why}
        return "/api/supervisor/wrong-face", signed | where
    raise PhysicalActError(f"the soak's dealer does not enter {item.tag}")


def config(shoe: str, seats: str, journal: Path) -> dict[str, object]:
    pin_hash = hash_pin(PIN)
    link = {"backoff_initial": 0.05, "backoff_max": 0.2}
    return {
        "table": {"id": "SOAK", "name": "Dealer soak"},
        "game": {},
        "stakes": {"min_buy_in": 100, "max_buy_in": 1000},
        "protection": {"tag_checks": False},  # the soak is of the dealing, not the cards' tags
        "devices": {
            "shoe": {"transport": "serial", "port": shoe, "baud": BAUD, "link": link},
            "seat_board": {"transport": "serial", "port": seats, "baud": BAUD, "link": link},
        },
        "journal": {"path": str(journal)},
        "api": {  # the soak's dealer enters inputs as fast as the table takes them
            "bind": "127.0.0.1",
            "port": 0,
            "writes_per_second": 100_000,
            "write_burst": 100_000,
            "address_writes_per_second": 100_000,
            "address_write_burst": 100_000,
        },
        "credentials": {
            "supervisors": [{"id": "SOAK", "pin_hash": pin_hash}],
            "dealers": [{"id": "SOAK", "pin_hash": pin_hash}],
        },
    }


@contextlib.asynccontextmanager
async def simulators(seed: int) -> AsyncIterator[tuple[SimulatorProcess, SimulatorProcess]]:
    common = ("--pty", "--baud", str(BAUD), "--heartbeat-ms", "250")
    shoe = await asyncio.to_thread(SimulatorProcess, "shoe", *common, "--seed", str(seed))
    try:
        seats = await asyncio.to_thread(
            SimulatorProcess, "seats", *common, "--seats", "8", "--seed", str(seed + 1)
        )
        try:
            yield shoe, seats
        finally:
            await asyncio.to_thread(seats.stop)
    finally:
        await asyncio.to_thread(shoe.stop)


async def core_run(args: argparse.Namespace) -> HumanDealer:
    """The hands of the same seed and mistakes on the pure core, no fault: ``--core-only``'s."""
    tally = Tally()

    def observe(table: Table, effects: Sequence[Effect]) -> None:
        tally.observe(table, effects)

    floor = CoreFloor(TableSettings(), observe)
    dealer = HumanDealer(
        floor, tally, seats=args.seats, hands=args.hands, seed=args.seed, mistakes=args.mistakes
    )
    await dealer.run()
    return dealer


async def soak(args: argparse.Namespace) -> int:
    report = Report.start(__file__, args)
    core = await core_run(args)
    expected = core.tally.hand_digest
    rng = random.Random(args.seed * 7 + 3)
    folder = tempfile.mkdtemp(prefix="luck-dealer-soak-")  # kept when the run fails
    journal = Path(folder) / "table.sqlite3"
    async with simulators(args.seed) as (shoe, seats):
        if args.line_faults:
            for device in (shoe, seats):
                rate = args.line_faults
                await asyncio.to_thread(
                    device.command, f"set drop_rate={rate} corrupt_frame_rate={rate}"
                )
        config_path = Path(folder) / "table.toml"
        config_path.write_text(tomli_w.dumps(config(shoe.port, seats.port, journal)))
        log = Path(folder) / "service.log"
        floor = ApiFloor(shoe, seats, journal)
        await floor.start(config_path, log)
        faults = FaultRates(unplug=args.unplugs, line=args.line_faults)
        dealer = HumanDealer(
            floor,
            floor.tally,
            seats=args.seats,
            hands=args.hands,
            seed=args.seed,
            faults=faults,
            pace=Pace(),
            mistakes=args.mistakes,
        )
        cards = args.hands * 7 * args.seats // 2  # about: half the players see 7th street
        kill_at = sorted(rng.sample(range(20, max(cards, args.kills + 21)), args.kills))
        started = time.monotonic()
        dealing = asyncio.create_task(dealer.run())
        kills = shown = 0
        try:
            while not dealing.done():
                if floor.tally.hands >= shown + 100:  # a line now and then on a long run
                    shown = floor.tally.hands
                    raised = sum(floor.tally.raised.values())
                    print(f"  ... {shown} hands, {kills} kills, {raised} alerts", flush=True)
                if kill_at and dealer.tally.drawn >= kill_at[0]:
                    kill_at.pop(0)
                    await floor.kill()
                    kills += 1
                    await asyncio.sleep(rng.uniform(0.2, 1.5))  # the dealer deals on
                    await floor.start(config_path, log)
                await asyncio.sleep(0.01)
            await dealing
        except Exception:
            print(f"FAILED: the journal and the service's log are in {folder}", flush=True)
            raise
        finally:
            if not dealing.done():
                dealing.cancel()
            if floor.process is not None:
                await floor.process.kill()
        seconds = time.monotonic() - started
        table = floor.table
    tally = floor.tally
    others = {kind: count for kind, count in tally.raised.items() if kind != "link_down"}
    mistakes = {kind: count for kind, count in core.tally.raised.items() if kind != "link_down"}
    conserved = tally.conserved(table)
    print(
        f"dealer soak: {args.hands} hands at {args.seats} seats, seed {args.seed}, unplugs "
        f"{args.unplugs}, line faults {args.line_faults}, mistakes {args.mistakes}, "
        f"{kills} SIGKILLs of the service"
    )
    print(
        f"  {tally.hands} hands ({tally.void_hands} void), {tally.cards} cards, "
        f"{dealer.tally.drawn} pitched, in {seconds:.0f} s "
        f"(the service down {floor.downtime:.1f} s)"
    )
    injected = ", ".join(sorted(f"{what.words} {count}" for what, count in tally.injected.items()))
    print(f"  faults injected: {injected or 'none'}")
    alerts = ", ".join(f"{kind} {count}" for kind, count in sorted(tally.raised.items()))
    print(f"  alerts raised: {alerts or 'none'}; beyond the links' own: {sum(others.values())}")
    if args.mistakes:
        same_alerts = "the same" if others == mistakes else "NOT the same"
        print(f"  the core's run (the mistakes' own): {sum(mistakes.values())}, {same_alerts}")
        for kind, remedies in sorted(tally.resolved.items()):
            if kind != "link_down":
                hows = ", ".join(f"{how_words(how)} {n}" for how, n in remedies.items())
                print(f"    {kind}: {hows}")
    astray = [*dealer.astray, *core.astray]
    print(f"  cards checked where they lie: {dealer.cards_checked}, elsewhere: {len(astray)}")
    for line in astray[:10]:
        print(f"    {line}")
    print(f"  chips: {'conserved' if conserved else 'NOT conserved'}")
    same = tally.hand_digest == expected
    print(
        f"  fingerprint {tally.hand_digest}, the core's {expected}: {'equal' if same else 'DIFFER'}"
    )
    ok = conserved and others == mistakes and not astray and same and tally.hands == args.hands
    print("PASSED" if ok else f"FAILED (the journal and the service's log: {folder})")
    if ok:
        shutil.rmtree(folder)
    report.row("hands dealt", tally.hands)
    report.row("cards", tally.cards)
    report.row("SIGKILLs of the service", kills)
    pulls = tally.injected[Injected.SHOE_UNPLUGGED] + tally.injected[Injected.SEAT_BOARD_UNPLUGGED]
    report.row("cable pulls", pulls)
    beyond = sum(others.values())
    report.row("alerts beyond the links' own", beyond, "", "the core's run's", others == mistakes)
    report.row("cards where they lie", dealer.cards_checked)
    report.row("cards elsewhere", len(astray), "", "0", not astray)
    report.row("wall time", seconds, "s")
    report.check("every hand dealt", tally.hands == args.hands)
    report.check("the chips conserved", conserved)
    report.check("no alert but the links' own and the mistakes'", others == mistakes)
    report.check("every card checked where it lies", not astray)
    report.check("the hands the same as the core's", same)
    report.figures = {
        "hands": args.hands,
        "seats": args.seats,
        "seed": args.seed,
        "unplugs": args.unplugs,
        "line_faults": args.line_faults,
        "mistakes": args.mistakes,
        "kills": kills,
        "void_hands": tally.void_hands,
        "pitched": dealer.tally.drawn,
        "service_down_s": round(floor.downtime, 2),
        "faults_injected": {what.value: count for what, count in sorted(tally.injected.items())},
        "alerts_raised": dict(sorted(tally.raised.items())),
        "hands_fingerprint": tally.hand_digest,
    }
    return report.finish()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--seats", type=int, default=8)
    parser.add_argument("--unplugs", type=float, default=0.02)
    parser.add_argument("--line-faults", type=float, default=0.01)
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--mistakes", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=1)
    add_json_option(parser)
    return asyncio.run(soak(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
