"""The simulated table on real parts: the firmware simulators as their own processes over
pseudo-terminals, and the table service (drivers, journal, table core) on them.

The dealer's physical acts go to the simulators' control channels (``load``, ``draw``,
``place``, ``sit``, ``leave``, ``unplug``). After each act the floor waits until the device is
connected and holds no event the service has not acknowledged: the service acknowledges
an event only once it is journaled and applied, so the table then shows what the act did.
A pulled cable is waited out: the act is done once the table has the device back.
One act at a time, each waited for: the table sees the events in the same order on every
run, and the same seed deals the same hands.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple, Protocol, TypeVar

from controller.config import Config, DevicePort, FloorSettings
from controller.config_file import MIN_PIN, Api, Credential
from controller.journal.store import writer_lock
from controller.service import Paused, TableService
from controller.sim.floor import Observer, PhysicalActError
from controller.table import (
    AlertKind,
    Refusal,
    Refuse,
    Table,
    TableInput,
    TableSettings,
    device_words,
)
from controller.table.effects import Words
from drivers.protocol import DeviceKind, Disposition
from drivers.session import LinkConfig
from firmware_sim.device import Cannot
from firmware_sim.process import ControlReplyError, SimulatorProcess
from firmware_sim.shoe import Cheat

BAUD = 115200
HEARTBEAT_MS = 250  # a pulled cable is noticed after three silent heartbeats
SETTLE_TIMEOUT = 30.0  # seconds a device may take to deliver an act's events
LINK = LinkConfig(backoff_initial=0.05, backoff_max=0.5)


class SignIns(NamedTuple):
    """Who may sign in at the simulated table's console: its dealer's and its supervisor's
    id and PIN, random for each run (printed with the console's address)."""

    dealer: str
    dealer_pin: str
    supervisor: str
    supervisor_pin: str

    @classmethod
    def random(cls) -> SignIns:
        """The dealer ``DEALER`` and the supervisor ``PIT`` (capitals, as the console's on-screen
        keys type an id), each with a random 6-digit PIN."""
        return cls("DEALER", _random_pin(), "PIT", _random_pin())

    def __str__(self) -> str:
        return (
            f"dealer {self.dealer}/{self.dealer_pin}, "
            f"supervisor {self.supervisor}/{self.supervisor_pin}"
        )


def _random_pin() -> str:
    return f"{secrets.randbelow(10**MIN_PIN):0{MIN_PIN}d}"


def sim_config(
    settings: TableSettings,
    shoe: str,
    seats: str,
    journal: Path,
    *,
    sign_ins: SignIns,
    table_id: str = "SIM",
    floor: FloorSettings | None = None,
    base: Config | None = None,
) -> Config:
    """The configuration of the simulated table on these device ports, with ``sign_ins``
    (shipping its journal to ``floor`` when given): a table's own configuration ``base``
    (``sim --config``) on the simulators, with this journal and these sign-ins, when given."""
    from dealer_ui.auth import hash_pin  # noqa: PLC0415 (FastAPI only when served)

    if base is not None:
        return replace(
            base,
            settings=settings,
            shoe=DevicePort(shoe, BAUD, LINK),
            seat_board=DevicePort(seats, BAUD, LINK) if settings.seat_board else None,
            journal=journal,
            supervisors=(Credential(sign_ins.supervisor, hash_pin(sign_ins.supervisor_pin)),),
            dealers=(Credential(sign_ins.dealer, hash_pin(sign_ins.dealer_pin)),),
            floor=floor,
        )
    return Config(
        table_id=table_id,
        table_name=f"Simulated table {table_id}",
        settings=settings,
        shoe=DevicePort(shoe, BAUD, LINK),
        seat_board=DevicePort(seats, BAUD, LINK) if settings.seat_board else None,
        journal=journal,
        api=Api(),
        supervisors=(Credential(sign_ins.supervisor, hash_pin(sign_ins.supervisor_pin)),),
        dealers=(Credential(sign_ins.dealer, hash_pin(sign_ins.dealer_pin)),),
        floor=floor,
    )


def _link_down(table: Table, device: DeviceKind) -> bool:
    return any(a.kind is AlertKind.LINK_DOWN and a.device is device for a in table.alerts)


def fresh_journal(path: Path) -> None:
    """Remove a previous run's journal at ``path`` (with its WAL files), unless a process
    writes it (:class:`JournalLocked` names it)."""
    lock = writer_lock(str(path))
    try:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                Path(f"{path}{suffix}").unlink()
    finally:
        lock.release()


class Controlled(Protocol):
    """A simulator's control channel: a ``SimulatorProcess``, or a ``Control`` of one that
    another process started."""

    def command(self, line: str) -> Any: ...

    def settled(self, within: float) -> Any: ...


class ServiceFloor:
    """The dealer's floor on simulators (their control channels) and a running
    ``TableService`` on them."""

    def __init__(
        self,
        service: TableService,
        shoe: Controlled,
        seats: Controlled | None,
        observe: Observer,
        *,
        deck_id: int = 1,
    ) -> None:
        self.service = service
        self.deck_id = deck_id  # the shoe's deck, loaded again each hand: the same tags
        self._tags: dict[int, tuple[int, str]] = {}  # each card drawn: its tag's code and UID
        self.devices = {DeviceKind.SHOE: shoe}
        if seats is not None:
            self.devices[DeviceKind.SEAT_BOARD] = seats
        self._observe = observe
        self.senses_seats = True  # the simulated seat board's sensors
        self.console_url: str | None = None
        self.sign_ins: SignIns | None = None  # who signs in at the console, when served
        self._changed = asyncio.Event()
        self._updates = service.updates()
        self._watcher = asyncio.create_task(self._watch())

    async def _watch(self) -> None:
        async for update in self._updates:
            self._observe(update.table, update.effects)
            self._changed.set()

    async def close(self) -> None:
        """Stop following the table (every update so far has been observed)."""
        self._updates.put(None)
        await self._watcher

    def describe(self) -> str:
        """Where the table runs: the simulators' ports and the journal."""
        config = self.service.config
        ports = ", ".join(
            f"{device_words(device)} {port.url}"
            for device, port in (
                (DeviceKind.SHOE, config.shoe),
                (DeviceKind.SEAT_BOARD, config.seat_board),
            )
            if port is not None and device in self.devices
        )
        where = f"simulated {ports}; journal {self.service.config.journal}"
        if self.console_url is None:
            return where
        return f"{where}\nconsole {self.console_url} ({self.sign_ins})"

    @property
    def table(self) -> Table:
        return self.service.table

    def now(self) -> int:
        return 0  # the service stamps people's inputs with its own clock

    async def submit(self, item: TableInput) -> Refusal | None:
        try:
            return (await self.service.submit(item)).refusal
        except Paused as paused:  # the table paused meanwhile: the decision is not journaled
            return Refusal(Words(str(paused)), item.tag, Refuse.PAUSED)

    async def _command(self, device: DeviceKind, line: str) -> Any:
        return await self._control(device, lambda simulator: simulator.command(line))

    async def _control(self, device: DeviceKind, call: Callable[[Controlled], Any]) -> Any:
        """``call`` on ``device``'s simulator, in a thread; its errors as a PhysicalActError."""
        try:
            return await asyncio.to_thread(call, self.devices[device])
        except ControlReplyError as error:
            if error.code is Cannot.NOT_SETTLED:
                raise PhysicalActError(
                    f"the {device.value}'s events did not reach the table in "
                    f"{SETTLE_TIMEOUT:.0f} s ({error})"
                ) from None
            raise PhysicalActError(f"the simulated {device.value}: {error}") from None
        except OSError as error:
            raise PhysicalActError(f"the simulated {device.value}: {error}") from None

    async def _act(self, device: DeviceKind, line: str) -> Any:
        """A physical act, once the table has its events (the device has them all
        acknowledged)."""

        def act(simulator: Controlled) -> Any:
            reply = simulator.command(line)
            simulator.settled(SETTLE_TIMEOUT)
            return reply

        return await self._control(device, act)

    async def ready(self) -> None:
        """Wait until every device is connected and the table knows it."""
        for device in self.devices:
            await self._act(device, "status")
        await self._until(
            lambda: set(self.devices) <= set(self.table.links), "the devices did not connect"
        )

    async def load(
        self,
        cards: list[int],
        cheat: Cheat | None = None,
        at: int | None = None,
        of: int | None = None,
    ) -> list[int]:
        order = ",".join(str(card) for card in cards)
        line = f"load cards={order} deck_id={self.deck_id}"
        if cheat is not None:
            line += f" cheat={cheat.value}" + ("" if at is None else f" at={at}")
            line += "" if of is None else f" of={of}"
        reply = await self._act(DeviceKind.SHOE, line)
        shoe = list(cards)
        if cheat is not None:  # the card the cheat put at its place (none: one taken out)
            done = reply["cheat"]
            if done["card"] is None:
                del shoe[done["at"]]
            elif cheat is Cheat.EXTRA:
                shoe.insert(done["at"], done["card"])
            else:
                shoe[done["at"]] = done["card"]
        return shoe

    async def switch(self, seat: int, card: int) -> None:
        if DeviceKind.SEAT_BOARD in self.devices:
            await self._act(DeviceKind.SEAT_BOARD, f"switch {seat} {card}")

    async def shielded(self, seat: int) -> None:
        if DeviceKind.SEAT_BOARD in self.devices:  # a card named by no tag: no card, no UID
            await self._act(DeviceKind.SEAT_BOARD, f"place {seat}")

    def new_deck(self) -> None:
        self.deck_id = (self.deck_id + 1) & 0xFFFF_FFFF

    async def draw(self, unread: Disposition | None) -> int:
        line = "draw" if unread is None else f"draw unreadable disposition={unread.value}"
        return self._drawn(await self._act(DeviceKind.SHOE, line))

    def _drawn(self, reply: Any) -> int:
        """The card a draw's reply says came out; its tag kept for the seat's reader."""
        card: int = reply["card"]
        self._tags[card] = (reply["tag"]["code"], reply["tag"]["uid"])
        return card

    def _seen(self, card: int, reads: int | None = None) -> str:
        """What a seat's reader reads of ``card`` (its tag, or ``reads`` misread), as the
        ``place`` command's card and UID."""
        code, uid = self._tags.get(card, (card, ""))
        return f"{code if reads is None else reads} uid={uid}"

    async def place(self, seat: int, card: int, lands_at: int) -> None:
        await self._act(
            DeviceKind.SEAT_BOARD, f"place {seat} {self._seen(card)} lands_at={lands_at}"
        )

    async def sit(self, seat: int) -> None:
        if DeviceKind.SEAT_BOARD in self.devices:
            await self._act(DeviceKind.SEAT_BOARD, f"sit {seat}")

    async def leave(self, seat: int) -> None:
        if DeviceKind.SEAT_BOARD in self.devices:
            await self._act(DeviceKind.SEAT_BOARD, f"leave {seat}")

    async def unplug(self, device: DeviceKind, seconds: float) -> None:
        """The cable is out for ``seconds``; back once the table has the device again and
        has cleared its lost link (the dealer waits out the pause, as the table asks)."""
        if device not in self.devices:
            return
        await self._command(device, f"unplug {seconds:.2f}")
        await asyncio.sleep(seconds)
        await self._act(device, "status")
        await self._until(
            lambda: device in self.table.links and not _link_down(self.table, device),
            f"the table did not have the {device.value} back",
        )

    async def pitch(self, unread: Disposition | None) -> int:
        line = "draw" if unread is None else f"draw unreadable disposition={unread.value}"
        return self._drawn(await self._command(DeviceKind.SHOE, line))

    async def land(self, card: int, lands_at: int, reads: int | None = None) -> None:
        if DeviceKind.SEAT_BOARD in self.devices:  # the simulator reports the card it is told
            await self._command(
                DeviceKind.SEAT_BOARD, f"place {lands_at} {self._seen(card, reads)}"
            )

    async def pull(self, device: DeviceKind, seconds: float) -> None:
        if device in self.devices:
            await self._command(device, f"unplug {seconds:.2f}")

    async def wait(self) -> None:
        await asyncio.sleep(0.02)

    async def quiet(self) -> None:
        for device in self.devices:
            await self._act(device, "status")

    async def _until(self, holds: Callable[[], bool], what: str) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + SETTLE_TIMEOUT
        while not holds():
            if loop.time() > deadline:
                raise PhysicalActError(f"{what} in {SETTLE_TIMEOUT:.0f} s")
            await asyncio.sleep(0.01)

    async def settle(self) -> None:
        self._changed.clear()
        try:
            await asyncio.wait_for(self._changed.wait(), SETTLE_TIMEOUT)
        except TimeoutError:
            raise PhysicalActError(f"the table did not change in {SETTLE_TIMEOUT:.0f} s") from None

    async def people(self) -> None:
        """Wait until the table changes (people at the console), however long it takes."""
        self._changed.clear()
        await self._changed.wait()

    async def set_line_faults(self, rate: float) -> None:
        """Frames dropped or corrupted on both lines at ``rate`` (the link recovers them)."""
        for device in self.devices:
            await self._command(device, f"set drop_rate={rate} corrupt_frame_rate={rate}")


@contextlib.asynccontextmanager
async def service_floor(
    settings: TableSettings,
    journal: Path,
    observe: Observer,
    *,
    seed: int,
    console: tuple[str, int] | None = None,
    table_id: str = "SIM",
    floor: FloorSettings | None = None,
    base: Config | None = None,
) -> AsyncIterator[ServiceFloor]:
    """Simulator processes for the shoe and the seat board, a fresh journal at ``journal``,
    and the table service on them (with its dealer console at ``console``, host and port,
    when given; shipping its journal to the casino floor ``floor`` as table ``table_id``,
    when given; on a table's own configuration ``base`` when given): the dealer's floor,
    until the block ends."""
    common = ("--pty", "--baud", str(BAUD), "--heartbeat-ms", str(HEARTBEAT_MS))
    processes: list[SimulatorProcess] = []
    try:
        shoe = await asyncio.to_thread(SimulatorProcess, "shoe", *common, "--seed", str(seed))
        processes.append(shoe)
        seats = None
        if settings.seat_board:
            seats = await asyncio.to_thread(
                SimulatorProcess, "seats", *common, "--seed", str(seed + 1)
            )
            processes.append(seats)
        fresh_journal(journal)
        sign_ins = SignIns.random()
        config = sim_config(
            settings,
            shoe.port,
            seats.port if seats else "",
            journal,
            sign_ins=sign_ins,
            table_id=table_id,
            floor=floor,
            base=base,
        )
        async with TableService(config, new_floor_journal=True) as service:
            deck_id = (seed + 1) & 0xFFFF_FFFF  # a deck of its own, by the seed
            dealer_floor = ServiceFloor(service, shoe, seats, observe, deck_id=deck_id)
            async with on_duty(dealer_floor, console, sign_ins) as running:
                yield running
    finally:  # every simulator is stopped, also when stopping another fails
        stopped = await asyncio.gather(
            *(asyncio.to_thread(_stop, process) for process in processes), return_exceptions=True
        )
        failed = [error for error in stopped if isinstance(error, BaseException)]
        if failed:
            raise failed[0]


#: A floor on a running table service: the simulators', or the PC/SC readers'.
AnyFloor = TypeVar("AnyFloor", bound=ServiceFloor)


@contextlib.asynccontextmanager
async def on_duty(
    running: AnyFloor, console: tuple[str, int] | None, sign_ins: SignIns
) -> AsyncIterator[AnyFloor]:
    """``running`` (a floor on its running table service) ready for the dealer's acts, with
    the dealer console served at ``console`` (host and port; ``sign_ins`` sign in there) when
    given, until the block ends; then the floor is closed and its console stopped. The
    simulators' floor and the PC/SC readers' floor each end with this."""
    served = None
    try:
        if console is not None:
            from dealer_ui import serve  # noqa: PLC0415 (FastAPI only when served)

            served = await serve(running.service, host=console[0], port=console[1])
            running.console_url = served.url
            running.sign_ins = sign_ins
        await running.ready()
        yield running
    finally:
        await running.close()
        if served is not None:
            await served.stop()


def _stop(process: SimulatorProcess) -> None:
    """Stop a simulator, also when it already stopped (a signal sent to it by someone
    else)."""
    try:
        process.stop()
    except ControlReplyError:  # it stopped before it could reply to quit
        process.process.wait(10)
        process.process.stdout.close()  # type: ignore[union-attr]  # started with stdout=PIPE
