"""Run a scenario: the table service on the simulators (or on real devices), each step
carried out, then the table checked against the step's expectations until they hold or
the step's timeout passes."""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.config import Config, ConfigError, hash_pin, parse_config
from controller.hil.scenario import Expect, Scenario, ScenarioError, Step
from controller.hil.world import DeviceWorld, SimulatedWorld, World, deck_of, instructions
from controller.service import TableService
from controller.table import (
    CorrectCard,
    CorrectStack,
    Decide,
    Device,
    EnterCard,
    Leave,
    NewHand,
    Rebuy,
    ResolveAlert,
    SitDown,
    SitIn,
    SitOut,
    Table,
    TableInput,
    VoidHand,
)
from firmware_sim.process import SimulatorProcess

BAUD = 115200
#: How long a physical step waits for the device's event with real devices (seconds).
DEVICE_WAIT = 300.0
_SIMULATED_LINK = {"backoff_initial": 0.05, "backoff_max": 0.2}


@dataclass(frozen=True)
class Result:
    """How a scenario went: ``failed`` is the number of the failed step (None: passed)."""

    scenario: Scenario
    passed: int
    failed: int | None = None

    @property
    def ok(self) -> bool:
        return self.failed is None


def describe(step: Step) -> str:
    """One line saying what a step does."""
    action, value, options = step.action, step.value, step.options
    if step.physical:
        lines = instructions(step)
        text = lines[0] if len(lines) == 1 else f"draw {value} cards"
        if action == "load":
            text = f"load a deck of {len(deck_of(step))} cards"
        if action == "sit" and "buy_in" in options:
            text += f", buys in for {options['buy_in']}"
        return text
    match action:
        case "decide":
            return ", ".join(str(decision) for decision in value)
        case "wait":
            return f"wait (up to {value:g} s)"
        case "stop_service" | "start_service":
            return f"{action.split('_')[0]} the table service (the controller's power)"
        case "new_hand":
            return "new hand"
        case "void":
            return "supervisor: void the hand"
        case "enter_card":
            return f"supervisor: the unread card is {value}"
        case "correct_card":
            return f"supervisor: correct {value[0]} to {value[1]}"
        case "resolve":
            return f"supervisor: {options['remedy']} for the {value} alert"
        case "correct_stack":
            return f"supervisor: seat {value}'s stack is {options['stack']}"
        case "sit_down":
            return f"seat {value} buys in for {options['buy_in']}"
        case "rebuy":
            return f"seat {value} rebuys {options['chips']}"
    return f"seat {value}: {action.replace('_', ' ')}"


def table_config(
    scenario: Scenario, shoe: str, seats: str | None, journal: Path, simulated: bool
) -> Config:
    """The table's configuration for this scenario on these ports."""
    settings = scenario.table

    def port(name: str) -> dict[str, Any]:
        out: dict[str, Any] = {"transport": "serial", "port": name, "baud": BAUD}
        return out | ({"link": dict(_SIMULATED_LINK)} if simulated else {})

    credential = [{"id": "HIL", "pin_hash": hash_pin("hil-scenario")}]
    data = {
        "table": {
            "id": "HIL",
            "name": scenario.title,
            "player_decisions": settings.get("player_decisions", False),
        },
        "game": dict(scenario.game),
        "stakes": {
            "min_buy_in": settings.get("min_buy_in", 100),
            "max_buy_in": settings.get("max_buy_in", 1000),
        },
        "devices": {
            "shoe": port(shoe),
            "seat_board": port(seats) if seats is not None else {"enabled": False},
        },
        "journal": {"path": str(journal)},
        "credentials": {"supervisors": credential, "dealers": credential},
    }
    try:
        return parse_config(data, journal.parent)
    except ConfigError as error:
        raise ScenarioError(scenario.path, None, f"[table] or [game]: {error}") from None


def people_input(step: Step, table: Table) -> list[TableInput] | str:
    """The inputs of a people's step, or what is wrong (an alert to resolve is not open)."""
    action, value, options = step.action, step.value, step.options
    who, why = options.get("who", "HIL"), options.get("why", f"scenario step {step.number}")
    if action == "decide":
        return [
            Decide(at=0, seat=item.seat, do=item.do, to=item.to, accept=item.accept)
            for item in value
        ]
    if action == "resolve":
        alert = next((alert for alert in table.alerts if alert.kind is value), None)
        if alert is None:
            return f"no {value} alert is open to resolve"
        return [ResolveAlert(at=0, who=who, why=why, alert=alert.id, remedy=options["remedy"])]
    single: dict[str, Callable[[], TableInput]] = {
        "new_hand": lambda: NewHand(at=0),
        "sit_down": lambda: SitDown(
            at=0, seat=value, player=options.get("player", f"P{value}"), buy_in=options["buy_in"]
        ),
        "sit_out": lambda: SitOut(at=0, seat=value),
        "sit_in": lambda: SitIn(at=0, seat=value),
        "cash_out": lambda: Leave(at=0, seat=value),
        "rebuy": lambda: Rebuy(at=0, seat=value, chips=options["chips"]),
        "void": lambda: VoidHand(at=0, who=who, why=why),
        "enter_card": lambda: EnterCard(at=0, who=who, why=why, card=value),
        "correct_card": lambda: CorrectCard(at=0, who=who, why=why, wrong=value[0], right=value[1]),
        "correct_stack": lambda: CorrectStack(
            at=0, who=who, why=why, seat=value, stack=options["stack"]
        ),
    }
    return [single[action]()]


def mismatches(
    table: Table, expect: Expect, shoe_lamps: tuple[bool, tuple[int, ...]] | None
) -> list[str]:
    """What the table shows that the expectations do not (empty: they hold)."""
    out: list[str] = []
    signals, hand = table.signals, table.hand

    def differs(what: str, actual: object, wanted: object) -> None:
        if wanted is not None and actual != wanted:
            out.append(f"{what} is {actual!r}, expected {wanted!r}")

    differs("the display", signals.display, expect.display)
    if expect.display_has is not None and expect.display_has not in signals.display:
        out.append(f"the display is {signals.display!r}, expected it to say {expect.display_has!r}")
    waiting = hand.waiting_for if hand is not None else None
    differs("waiting", "nothing" if waiting is None else waiting.describe(), expect.waiting)
    kinds = tuple(alert.kind for alert in table.alerts)
    differs("the open alerts", [kind.value for kind in kinds], _values(expect.alerts))
    out += [f"no {kind} alert is open" for kind in expect.raised if kind not in kinds]
    out += [f"the {kind} alert is still open" for kind in expect.cleared if kind in kinds]
    differs("paused", table.paused, expect.paused)
    if expect.lamps is not None:
        lamps = (signals.lamps.bonus, signals.lamps.seats)
        differs("the lamps (bonus, seats)", lamps, (expect.lamps.bonus, expect.lamps.seats))
    if expect.shoe_lamps is not None and shoe_lamps is not None:
        wanted = (expect.shoe_lamps.bonus, expect.shoe_lamps.seats)
        differs("the shoe's lamps (bonus, seats)", shoe_lamps, wanted)
    for seat, chips in expect.stacks.items():
        differs(f"seat {seat}'s stack", stack(table, seat), chips)
    differs("the seated players", tuple(seat.seat for seat in table.seats), expect.seated)
    differs("the pot", None if hand is None else hand.pot, expect.pot)
    pots = None if hand is None else tuple(pot.amount for pot in hand.pots)
    differs("the pots", pots, expect.pots)
    differs("the street", None if hand is None else hand.street, expect.street)
    differs("the hand number", table.hand_number, expect.hand)
    differs("in hand", table.in_hand, expect.in_hand)
    return out


def _values(kinds: tuple[Any, ...] | None) -> list[str] | None:
    return None if kinds is None else [kind.value for kind in kinds]


def stack(table: Table, seat: int) -> int | None:
    """The chips in front of ``seat`` now: the hand's live stack while it plays."""
    if table.in_hand and table.hand is not None:
        for player in table.hand.players:
            if player.seat == seat:
                return player.stack
    found = table.seat(seat)
    return None if found is None else found.stack


class Run:
    """One scenario against the table service on ``config`` and a world of devices. The
    service may be stopped and started again by the scenario (a power cut of the
    controller): ``service`` is None while it is down."""

    def __init__(
        self,
        scenario: Scenario,
        config: Config,
        world: World,
        say: Callable[[str], None],
        link_timeout: float,
    ) -> None:
        self.scenario, self.config, self.world, self.say = scenario, config, world, say
        self.link_timeout = link_timeout
        self.service: TableService | None = None
        self.table: Table | None = None  # the table when the service last stopped

    async def start(self, timeout: float) -> None:
        """Start the service on the journal and wait for the devices' links."""
        service = TableService(self.config)
        await service.start()
        self.service = service
        devices = (Device.SHOE, Device.SEAT_BOARD) if self.scenario.seat_board else (Device.SHOE,)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not all(device in service.table.links for device in devices):
            if loop.time() > deadline:
                missing = [device.value for device in devices if device not in service.table.links]
                raise TimeoutError(f"not connected after {timeout:g} s: {', '.join(missing)}")
            await asyncio.sleep(0.02)

    async def stop(self) -> None:
        if self.service is not None:
            await self.service.stop()
            self.table, self.service = self.service.table, None

    def now(self) -> Table:
        """The table now (while the service is down: as it was when it stopped)."""
        table = self.service.table if self.service is not None else self.table
        assert table is not None
        return table

    async def submit(self, item: TableInput) -> str | None:
        if self.service is None:
            raise TimeoutError("the table service is stopped: start_service first")
        return (await self.service.submit(item)).refused

    async def step(self, step: Step) -> list[str]:
        """Carry out ``step``; what went wrong (empty: it passed)."""
        refused: str | None = None
        if step.action == "stop_service":
            await self.stop()
        elif step.action == "start_service":
            await self.start(step.timeout)
        elif step.physical:
            await self.world.perform(step, self.service)
            if step.action == "sit" and "buy_in" in step.options:
                player = step.options.get("player", f"P{step.value}")
                sit = SitDown(at=0, seat=step.value, player=player, buy_in=step.options["buy_in"])
                refused = await self.submit(sit)
        elif step.action != "wait":
            inputs = people_input(step, self.now())
            if isinstance(inputs, str):
                return [inputs]
            for item in inputs:
                if refused is not None:
                    return [f"refused before its last decision: {refused}"]
                refused = await self.submit(item)
        problems = _refusal(refused, step.expect.refused)
        if problems:
            return problems
        return await self.settled(step)

    async def settled(self, step: Step) -> list[str]:
        """Wait until the expectations hold; what still differs at the timeout."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + step.timeout
        while True:
            lamps = None
            if step.expect.shoe_lamps is not None and isinstance(self.world, SimulatedWorld):
                lamps = await self.world.shoe_lamps()
            problems = mismatches(self.now(), step.expect, lamps)
            if not problems or loop.time() > deadline:
                return problems
            await asyncio.sleep(0.02)

    async def run(self) -> Result:
        try:
            await self.start(self.link_timeout)
            return await self.steps()
        finally:
            await self.stop()

    async def steps(self) -> Result:
        steps = self.scenario.steps
        for step in steps:
            label = f"step {step.number:>2} {step.action:<13} {describe(step)}"
            try:
                problems = await self.step(step)
            except TimeoutError as error:
                problems = [str(error)]
            if problems:
                self.say(f"FAIL {label}")
                for problem in problems:
                    self.say(f"       {problem}")
                if len(steps) > step.number:
                    self.say(f"     {len(steps) - step.number} steps not run")
                return Result(self.scenario, step.number - 1, step.number)
            self.say(f"ok   {label}")
        return Result(self.scenario, len(steps))


def _refusal(refused: str | None, expected: str | None) -> list[str]:
    if expected is None:
        return [] if refused is None else [f"refused: {refused}"]
    if refused is None:
        return [f"taken, expected it refused ({expected!r})"]
    if expected not in refused:
        return [f"refused with {refused!r}, expected it to say {expected!r}"]
    return []


@contextlib.asynccontextmanager
async def _simulators(scenario: Scenario) -> AsyncIterator[SimulatedWorld]:
    """The shoe's (and the seat board's) simulator processes, started side by side."""
    args = ("--pty", "--baud", str(BAUD), "--seed", "1", "--heartbeat-ms", "200")
    devices: list[tuple[str, ...]] = [("shoe",)]
    if scenario.seat_board:
        devices.append(("seats", "--seats", "8"))
    started = await asyncio.gather(
        *(asyncio.to_thread(SimulatorProcess, *device, *args) for device in devices),
        return_exceptions=True,
    )
    processes = [item for item in started if isinstance(item, SimulatorProcess)]
    try:
        for item in started:
            if isinstance(item, BaseException):
                raise item
        yield SimulatedWorld(processes[0], processes[1] if len(processes) > 1 else None)
    finally:
        await asyncio.gather(*(asyncio.to_thread(process.stop) for process in processes))


async def run_scenario(
    scenario: Scenario,
    say: Callable[[str], None] = print,
    *,
    shoe: str | None = None,
    seats: str | None = None,
    journal: Path | None = None,
    wait: float = DEVICE_WAIT,
) -> Result:
    """Run ``scenario``: on simulator processes, or with ``shoe`` (and ``seats``) on real
    devices. The journal is a temporary file unless ``journal`` is given."""
    with tempfile.TemporaryDirectory(prefix="luck-hil-") as folder:
        path = journal if journal is not None else Path(folder) / "table.sqlite"
        if shoe is not None:
            seat_port = seats if scenario.seat_board else None
            config = table_config(scenario, shoe, seat_port, path, False)
            world: World = DeviceWorld(say, wait)
            say("waiting for the devices to connect")
            return await Run(scenario, config, world, say, wait).run()
        async with _simulators(scenario) as simulated:
            seat_port = None if simulated.seats is None else simulated.seats.port
            config = table_config(scenario, simulated.shoe.port, seat_port, path, True)
            return await Run(scenario, config, simulated, say, 20.0).run()
