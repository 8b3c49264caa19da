"""Run a scenario: a table service process (``luck-table serve``) on the simulators (or on
real devices), each step carried out (the physical world through the simulators' control
channels or the engineer; people's inputs through the service's REST API), then the table,
as the service's surveillance view shows it, checked against the step's expectations until
they hold or the step's timeout passes."""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tomli_w

from controller.config import parse_config
from controller.config_file import ConfigError
from controller.hil import invariants
from controller.hil.scenario import (
    SUPERVISOR,
    Decision,
    Expect,
    Scenario,
    ScenarioError,
    ScenarioStep,
)
from controller.hil.service import Console, Credentials, Refusal, ServiceError, ServiceProcess
from controller.hil.world import DeviceWorld, SimulatedWorld, World, deck_of, instructions
from firmware_sim.process import SimulatorProcess

if TYPE_CHECKING:  # the console's types, not its app (loaded only when served)
    from dealer_ui.views import ViewJson

BAUD = 115200
#: How long a physical step waits for the device's event with real devices (seconds).
DEVICE_WAIT = 300.0
_SIMULATED_LINK = {"backoff_initial": 0.05, "backoff_max": 0.2}
#: The PIN of the dealer and supervisors of a service started for a scenario.
PIN = "hil-scenario"


@dataclass(frozen=True)
class Result:
    """How a scenario went: ``failed`` is the number of the failed step (None: passed)."""

    scenario: Scenario
    passed: int
    failed: int | None = None

    @property
    def ok(self) -> bool:
        return self.failed is None


def describe(step: ScenarioStep) -> str:
    """One line saying what a step does."""
    action, value, options = step.action, step.value, step.options
    if step.physical:
        lines = instructions(step)
        text = lines[0] if len(lines) == 1 else f"draw {value} cards"
        if action == "pitch":
            seats = ", ".join(str(seat) for seat in value)
            text = f"pitch a card to seats {seats} in turn, without waiting for the table"
        if action == "load":
            text = f"load a deck of {len(deck_of(step))} cards"
            if "cheat" in options:
                at = f" at place {options['at']}" if "at" in options else ""
                text += f" with a {options['cheat'].value} card{at}"
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
) -> dict[str, Any]:
    """The table's configuration (as TOML data) for this scenario on these ports: its
    console at any free port of 127.0.0.1, the dealer ``HIL`` and every supervisor the
    scenario names (default ``HIL``), all with the PIN ``PIN``."""
    settings = scenario.table

    def port(name: str) -> dict[str, Any]:
        out: dict[str, Any] = {"transport": "serial", "port": name, "baud": BAUD}
        return out | ({"link": dict(_SIMULATED_LINK)} if simulated else {})

    from dealer_ui.auth import hash_pin  # noqa: PLC0415 (FastAPI only when served)

    pin_hash = hash_pin(PIN)
    whos = {"HIL"} | {
        step.options.get("who", "HIL") for step in scenario.steps if step.action in SUPERVISOR
    }
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
        # tag checks unless the scenario's devices read no tags (docs/scenarios.md)
        "protection": {"tag_checks": scenario.tag_checks},
        "api": {"bind": "127.0.0.1", "port": 0},
        "credentials": {
            "supervisors": [{"id": who, "pin_hash": pin_hash} for who in sorted(whos)],
            "dealers": [{"id": "HIL", "pin_hash": pin_hash}],
        },
    }
    try:
        parse_config(data, journal.parent)
    except ConfigError as error:
        raise ScenarioError(scenario.path, None, f"[table] or [game]: {error}") from None
    return data


#: A request to the service's API: the path and the JSON body (the route's fields, as its
#: model takes them: each route's own).
Request = tuple[str, dict[str, Any]]


def people_requests(
    step: ScenarioStep, view: ViewJson, supervisor: tuple[str, str] | None = None
) -> list[Request] | str:
    """The API requests of a people's step (docs/api.md), or what is wrong (an alert to
    resolve is not open). A supervisor's action is signed by the step's ``who`` with the
    PIN ``PIN``, or by ``supervisor`` (id, PIN) when given."""
    action, value, options = step.action, step.value, step.options
    who, pin = supervisor or (options.get("who", "HIL"), PIN)
    signed = {
        "supervisor": who,
        "pin": pin,
        "why": options.get("why", f"scenario step {step.number}"),
    }
    if action == "decide":
        return [("/api/decisions", decision_body(item)) for item in value]
    if action == "resolve":
        alert = next((alert for alert in view["alerts"] if alert["kind"] == value.value), None)
        if alert is None:
            return f"no {value} alert is open to resolve"
        body = {"alert": alert["id"], "remedy": options["remedy"].value}
        return [("/api/supervisor/resolve", signed | body)]
    single: dict[str, Callable[[], Request]] = {
        "new_hand": lambda: ("/api/hands", {}),
        "sit_down": lambda: sit_down(value, options),
        "sit_out": lambda: (f"/api/seats/{value}/sit_out", {}),
        "sit_in": lambda: (f"/api/seats/{value}/sit_in", {}),
        "cash_out": lambda: (f"/api/seats/{value}/leave", {}),
        "rebuy": lambda: (f"/api/seats/{value}/rebuy", {"chips": options["chips"]}),
        "void": lambda: ("/api/supervisor/void", signed),
        "enter_card": lambda: ("/api/supervisor/enter-card", signed | {"card": str(value)}),
        "correct_card": lambda: (
            "/api/supervisor/correct-card",
            signed | {"wrong": str(value[0]), "right": str(value[1])},
        ),
        "correct_stack": lambda: (
            "/api/supervisor/correct-stack",
            signed | {"seat": value, "stack": options["stack"]},
        ),
    }
    return [single[action]()]


def sit_down(seat: int, options: Mapping[str, Any]) -> Request:
    player = options.get("player", f"P{seat}")
    return ("/api/seats", {"seat": seat, "player": player, "buy_in": options["buy_in"]})


def decision_body(decision: Decision) -> dict[str, Any]:
    body: dict[str, Any] = {"seat": decision.seat, "do": decision.do.value}
    if decision.to is not None:
        body["to"] = decision.to
    if decision.accept is not None:
        body["accept"] = decision.accept
    return body


def mismatches(
    view: ViewJson, expect: Expect, shoe_lamps: tuple[bool, tuple[int, ...]] | None
) -> list[str]:
    """What the table shows (its surveillance view, docs/api.md) that the expectations do
    not (empty: they hold)."""
    out: list[str] = []
    in_hand = view["phase"] is not None

    def differs(what: str, actual: object, wanted: object) -> None:
        if wanted is not None and actual != wanted:
            out.append(f"{what} is {actual!r}, expected {wanted!r}")

    display = view["display"]
    differs("the display", display, expect.display)
    differs("the display's mode", view["mode"], expect.mode)
    if expect.display_has is not None and expect.display_has not in display:
        out.append(f"the display is {display!r}, expected it to say {expect.display_has!r}")
    differs("waiting", view["waiting"] or "nothing", expect.waiting)
    kinds = [alert["kind"] for alert in view["alerts"]]
    differs("the open alerts", kinds, _values(expect.alerts))
    out += [f"no {kind} alert is open" for kind in expect.raised if kind.value not in kinds]
    out += [f"the {kind} alert is still open" for kind in expect.cleared if kind.value in kinds]
    differs("paused", view["paused"], expect.paused)
    if expect.lamps is not None:
        lamps = (view["lamps"]["bonus"], tuple(view["lamps"]["seats"]))
        differs("the lamps (bonus, seats)", lamps, (expect.lamps.bonus, expect.lamps.seats))
    if expect.shoe_lamps is not None and shoe_lamps is not None:
        wanted = (expect.shoe_lamps.bonus, expect.shoe_lamps.seats)
        differs("the shoe's lamps (bonus, seats)", shoe_lamps, wanted)
    stacks = {seat["seat"]: seat["stack"] for seat in view["seats"]}
    for seat, chips in expect.stacks.items():
        differs(f"seat {seat}'s stack", stacks.get(seat), chips)
    differs("the seated players", tuple(stacks), expect.seated)
    differs("the pot", view["pot"] if in_hand else None, expect.pot)
    pots = tuple(pot["amount"] for pot in view["pots"]) if in_hand else None
    differs("the pots", pots, expect.pots)
    differs("the street", view["street"], expect.street)
    differs("the hand number", view["hand_number"], expect.hand)
    differs("in hand", view["in_hand"], expect.in_hand)
    return out


def _values(kinds: tuple[Any, ...] | None) -> list[str] | None:
    return None if kinds is None else [kind.value for kind in kinds]


class Run:
    """One scenario against a table service process and a world of devices. ``process``
    None: the service was started by someone else (attached to at ``url``); else the
    scenario may stop it and start it again (a power cut of the controller), and the
    console is None while it is down."""

    def __init__(
        self,
        scenario: Scenario,
        world: World,
        say: Callable[[str], None],
        credentials: Credentials,
        *,
        process: ServiceProcess | None = None,
        url: str | None = None,
        devices: tuple[str, ...] = ("shoe", "seat_board"),
        link_timeout: float = 20.0,
    ) -> None:
        self.scenario, self.world, self.say = scenario, world, say
        self.credentials, self.process, self.url = credentials, process, url
        self.devices, self.link_timeout = devices, link_timeout
        self.console: Console | None = None
        self.last: ViewJson | None = None  # the table when the service last stopped

    async def start(self, timeout: float) -> None:
        """Start the service (or reach the one attached to), sign in, and wait for the
        devices' links."""
        url = self.url if self.process is None else await self.process.start()
        assert url is not None
        console = Console(url, self.credentials)
        await console.sign_in()
        self.console = console
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            links = (await console.view())["links"]
            missing = [device for device in self.devices if device not in links]
            if not missing:
                return
            if loop.time() > deadline:
                raise TimeoutError(f"not connected after {timeout:g} s: {', '.join(missing)}")
            await asyncio.sleep(0.05)

    async def stop(self) -> None:
        """The controller loses power: the service process is killed (SIGKILL)."""
        if self.console is not None and self.process is not None:
            self.last = await self.console.view()
            await self.process.kill()
            self.console = None

    async def now(self) -> ViewJson:
        """The table now (while the service is down: as it was when it stopped)."""
        if self.console is not None:
            return await self.console.view()
        assert self.last is not None
        return self.last

    async def submit(self, request: Request) -> Refusal | None:
        if self.console is None:
            raise TimeoutError("the table service is stopped: start_service first")
        return await self.console.submit(*request)

    async def step(self, step: ScenarioStep) -> list[str]:
        """Carry out ``step``; what went wrong (empty: it passed)."""
        refused: Refusal | None = None
        if step.action == "stop_service":
            await self.stop()
        elif step.action == "start_service":
            await self.start(step.timeout)
        elif step.physical:
            await self.world.perform(step, self.console)
            if step.action == "sit" and "buy_in" in step.options:
                refused = await self.submit(sit_down(step.value, step.options))
        elif step.action != "wait":
            signer = self.credentials.supervisor if self.process is None else None
            requests = people_requests(step, await self.now(), signer)
            if isinstance(requests, str):
                return [requests]
            for request in requests:
                if refused is not None:
                    return [f"refused before its last decision: {refused.reason}"]
                refused = await self.submit(request)
        problems = _refusal(refused, step.expect.refused)
        if problems:
            return problems
        return await self.settled(step)

    async def settled(self, step: ScenarioStep) -> list[str]:
        """Wait until the expectations hold; what still differs at the timeout."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + step.timeout
        while True:
            lamps = None
            if step.expect.shoe_lamps is not None and isinstance(self.world, SimulatedWorld):
                lamps = await self.world.shoe_lamps()
            problems = mismatches(await self.now(), step.expect, lamps)
            if not problems or loop.time() > deadline:
                return problems
            await asyncio.sleep(0.02)

    async def run(self) -> Result:
        try:
            await self.start(self.link_timeout)
            return await self.steps()
        finally:
            if self.process is not None:
                await self.process.kill()

    async def steps(self) -> Result:
        steps = self.scenario.steps
        for step in steps:
            label = f"step {step.number:>2} {step.action:<13} {describe(step)}"
            try:
                problems = await self.step(step)
            except (TimeoutError, ServiceError) as error:
                problems = [str(error)]
            if problems:
                self.say(f"FAIL {label}")
                for problem in problems:
                    self.say(f"       {problem}")
                if self.process is not None:
                    for line in self.process.tail():
                        self.say(f"       service log: {line}")
                if len(steps) > step.number:
                    self.say(f"     {len(steps) - step.number} steps not run")
                return Result(self.scenario, step.number - 1, step.number)
            self.say(f"ok   {label}")
        return Result(self.scenario, len(steps))


def _refusal(refused: Refusal | None, expected: str | None) -> list[str]:
    """What is wrong with the step's refusal (``expected``: its reason code, None: taken)."""
    if expected is None:
        return [] if refused is None else [f"refused: {refused.reason} ({refused.code})"]
    if refused is None:
        return [f"taken, expected it refused ({expected!r})"]
    if refused.code != expected:
        return [f"refused {refused.code!r} ({refused.reason}), expected {expected!r}"]
    return []


@contextlib.asynccontextmanager
async def _simulators(scenario: Scenario) -> AsyncIterator[SimulatedWorld]:
    """The shoe's (and the seat board's) simulator processes, started side by side."""
    args: tuple[str, ...] = ("--pty", "--baud", str(BAUD), "--seed", "1", "--heartbeat-ms", "200")
    if not scenario.tag_checks:  # devices that register no deck and read no tag
        args += ("--protocol-version", "1")
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
    attach: tuple[str, Credentials] | None = None,
) -> Result:
    """Run ``scenario`` against a ``luck-table serve`` process started for it: on simulator
    processes, or with ``shoe`` (and ``seats``) on real devices. The journal is a temporary
    file unless ``journal`` is given. With ``attach`` (the console's URL and who signs in)
    it runs against that service, already running on real devices, instead."""
    devices = ("shoe", "seat_board") if scenario.seat_board else ("shoe",)
    if attach is not None:
        url, credentials = attach
        world: World = DeviceWorld(say, wait)
        say("waiting for the devices to connect")
        return await Run(
            scenario, world, say, credentials, url=url, devices=devices, link_timeout=wait
        ).run()
    credentials = Credentials(("HIL", PIN), ("HIL", PIN))
    with tempfile.TemporaryDirectory(prefix="luck-hil-") as folder:
        path = (journal if journal is not None else Path(folder) / "table.sqlite").resolve()

        def service(shoe: str, seats: str | None, simulated: bool) -> ServiceProcess:
            config = Path(folder) / "table.toml"
            data = table_config(scenario, shoe, seats, path, simulated)
            config.write_text(tomli_w.dumps(data))
            return ServiceProcess(config, Path(folder) / "service.log")

        if shoe is not None:
            process = service(shoe, seats if scenario.seat_board else None, False)
            say("waiting for the devices to connect")
            world = DeviceWorld(say, wait)
            return await Run(
                scenario,
                world,
                say,
                credentials,
                process=process,
                devices=devices,
                link_timeout=wait,
            ).run()
        async with _simulators(scenario) as simulated:
            seat_port = None if simulated.seats is None else simulated.seats.port
            process = service(simulated.shoe.port, seat_port, True)
            result = await Run(
                scenario, simulated, say, credentials, process=process, devices=devices
            ).run()
        if not result.ok:
            return result
        table, raised = await asyncio.to_thread(invariants.replay, path)
        wrong = invariants.problems(table, raised, simulated.felt)
        for problem in wrong:
            say(f"FAIL invariant: {problem}")
        return result if not wrong else Result(scenario, result.passed, result.passed + 1)
