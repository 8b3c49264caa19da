"""The simulated table on PC/SC card readers: a private ``pcscd`` with virtual readers at
the shoe and each seat (``firmware_sim.pcsc_rig``), a virtual tag on every card of a deck
registered by its deck file, and the table service on them (``transport = "pcsc"``).

The dealer's physical acts are tags coming into the readers' fields: the cut card at the
shoe's reader once a deck is loaded (the deck's registration, then "deck loaded"), each
card's tag at the shoe's reader as it is drawn and at its seat's reader as it lands. After
each act the floor waits until the reader's driver made its events and the table service
acknowledged them (journaled and applied), as ``ServiceFloor`` waits for a simulator's. A
pulled cable is pcscd restarted without the reader, then with it.

What a reader cannot do is refused (``PhysicalActError``): a card to the reject tray, a
deck loaded with a cheat, a player's sitting down (a reader senses no one).
"""

from __future__ import annotations

import contextlib
import random
import shutil
import tempfile
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from controller.config import DevicePort, PcscReaders
from controller.service import TableService
from controller.sim.floor import Observer
from controller.sim.service_floor import (
    LINK,
    ServiceFloor,
    SignIns,
    fresh_journal,
    on_duty,
    sim_config,
)
from controller.table import TableSettings, device_words
from drivers.pcsc.deck import TagDeck, write_deck
from drivers.protocol import DeviceKind
from firmware_sim.device import Cannot
from firmware_sim.pcsc_rig import PcscRig
from firmware_sim.process import ControlReplyError
from firmware_sim.vtag import VirtualTag

#: Seconds a reader's driver may take to see a tag (pcscd polls vpcd every 400 ms).
SEE_TIMEOUT = 10.0


def random_deck(seed: int) -> TagDeck:
    """A deck of 7-byte NXP-style tags (``04`` first) and a cut card, from ``seed``."""
    chance = random.Random(seed)
    uids: list[bytes] = []
    while len(uids) < 53:
        uid = b"\x04" + chance.randbytes(6)
        if uid not in uids:
            uids.append(uid)
    return TagDeck({uid: code for code, uid in enumerate(uids[:52])}, uids[52])


class Readers:
    """The physical side of the virtual readers: tags shown to them, for the
    ``ServiceFloor``'s control lines (``load``, ``draw``, ``place``, ``status``, ``unplug``).
    Called in a worker thread; the drivers are read, never changed."""

    def __init__(self, rig: PcscRig, service: TableService, deck: TagDeck) -> None:
        self.rig = rig
        self.service = service
        self.deck = deck
        self.tags = {code: uid for uid, code in deck.cards.items()}
        self.shoe: deque[int] = deque()
        self._lock = threading.Lock()
        #: Each tag shown: its reader's role (``shoe: a deck``: the cut card), the seconds
        #: from its coming into the field to its driver's event, and to the table's having
        #: taken it (journaled and applied).
        self.timings: list[tuple[str, float, float]] = []

    def device(self, role: str) -> DeviceKind:
        return DeviceKind.SHOE if role == "shoe" else DeviceKind.SEAT_BOARD

    def show(self, role: str, uid: bytes, events: int = 1, *, mute: bool = False) -> None:
        """A tag comes into ``role``'s field and goes, once its driver made ``events``."""
        with self._lock:
            device = self.device(role)
            key = "shoe" if role == "shoe" else role.split()[1]
            driver = self._driver(device)
            self._until(lambda: key not in driver.held, f"the {role}'s field to be empty")
            before = driver.made
            tag = VirtualTag(uid, mute=mute)
            entered = time.perf_counter()
            self.rig.enter(role, tag)
            try:
                self._until(lambda: driver.made >= before + events, f"the {role} to see a tag")
                made = time.perf_counter()
                self._until(lambda: driver.pending == 0, f"the table to take the {role}'s events")
                label = role if events == 1 else f"{role}: a deck"
                self.timings.append((label, made - entered, time.perf_counter() - entered))
            finally:
                tag.leave()

    def _driver(self, device: DeviceKind) -> Any:
        driver = self.service.driver(device)
        if driver is None:
            raise ControlReplyError(f"the {device_words(device)} is not connected")
        return driver

    @staticmethod
    def _until(holds: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + SEE_TIMEOUT
        while not holds():
            if time.monotonic() > deadline:
                raise ControlReplyError(f"timed out waiting for {what}")
            time.sleep(0.005)

    def status(self, device: DeviceKind) -> dict[str, Any]:
        driver = self.service.driver(device)
        up = driver is not None and driver.link_up
        return {"connected": up, "pending": getattr(driver, "pending", 0) if up else 0}

    def unplug(self, role: str, seconds: float) -> dict[str, Any]:
        self.rig.restart(without={role})
        time.sleep(seconds)
        self.rig.restart()
        return {}


class _Control:
    """One device's control channel over :class:`Readers` (the simulators' command lines)."""

    def __init__(self, readers: Readers, device: DeviceKind) -> None:
        self.readers = readers
        self.device_kind = device

    def settled(self, within: float) -> Any:
        """The status once the device's link is up and holds nothing unacknowledged (polled:
        a PC/SC reader's driver has no channel to wait on); ControlReplyError (code
        ``not_settled``) after ``within`` seconds."""
        deadline = time.monotonic() + within
        while (
            not (status := self.readers.status(self.device_kind))["connected"]
            or (status["pending"])
        ):
            if time.monotonic() > deadline:
                raise ControlReplyError(f"settled: not within {within:g} s", Cannot.NOT_SETTLED)
            time.sleep(0.002)
        return status

    def command(self, line: str) -> Any:
        word, *args = line.split()
        options = dict(arg.split("=", 1) for arg in args if "=" in arg)
        positional = [arg for arg in args if "=" not in arg]
        readers = self.readers
        match word:
            case "status":
                return readers.status(self.device_kind)
            case "unplug":
                role = "shoe" if self.device_kind is DeviceKind.SHOE else "seat 1"
                return readers.unplug(role, float(positional[0]))
            case "load" if "cheat" not in options:
                readers.shoe = deque(int(card) for card in options["cards"].split(","))
                assert readers.deck.cut is not None
                readers.show("shoe", readers.deck.cut, len(readers.deck.cards) + 1)
                return {}
            case "draw":
                card = readers.shoe.popleft()
                unread = positional == ["unreadable"]
                if unread and options.get("disposition") != "dealt_unread":
                    raise ControlReplyError("a reader cannot send a card to a reject tray")
                readers.show("shoe", readers.tags[card], mute=unread)
                return {"card": card, "tag": {"code": card, "uid": readers.tags[card].hex()}}
            case "place":
                uid = bytes.fromhex(options.get("uid", ""))
                seat = int(options.get("lands_at", positional[0]))
                readers.show(f"seat {seat}", uid)
                return {}
            case "sit" | "leave":
                return {}  # a reader senses no one: the console seats the players
        raise ControlReplyError(f"a PC/SC reader cannot do {line!r}")


class PcscFloor(ServiceFloor):
    """The dealer's floor on virtual PC/SC readers and a running ``TableService``."""

    def __init__(
        self, service: TableService, readers: Readers, observe: Observer, *, seats: bool
    ) -> None:
        super().__init__(
            service,
            _Control(readers, DeviceKind.SHOE),
            _Control(readers, DeviceKind.SEAT_BOARD) if seats else None,
            observe,
            deck_id=readers.deck.deck_id,
        )
        self.readers = readers
        self.senses_seats = False  # a reader sees cards, not people

    def describe(self) -> str:
        """The readers (as pcscd names them), the journal, and the console when served."""
        seats = range(1, 9) if DeviceKind.SEAT_BOARD in self.devices else range(0)
        roles = ["shoe", *(f"seat {seat}" for seat in seats)]
        names = ", ".join(f"{role} {self.readers.rig.reader(role)!r}" for role in roles)
        where = f"pcscd's virtual readers: {names}; journal {self.service.config.journal}"
        console = super().describe().partition("\n")[2]
        return f"{where}\n{console}" if console else where

    def new_deck(self) -> None:
        """A reader's deck is its deck file: the same tags come again."""


@contextlib.asynccontextmanager
async def pcsc_floor(
    settings: TableSettings,
    journal: Path,
    observe: Observer,
    *,
    seed: int,
    console: tuple[str, int] | None = None,
    table_id: str = "SIM",
) -> AsyncIterator[PcscFloor]:
    """A private pcscd with virtual readers at the shoe and (with a seat board) each seat,
    a deck file for a random deck, a fresh journal, and the table service on them."""
    folder = Path(tempfile.mkdtemp(prefix="luck-table-pcsc-"))
    rig = PcscRig(folder)
    rig.start()
    try:
        deck = random_deck(seed)
        deck_file = folder / "deck.csv"
        write_deck(deck_file, deck)
        fresh_journal(journal)
        sign_ins = SignIns.random()
        config = sim_config(settings, "", "", journal, sign_ins=sign_ins, table_id=table_id)
        shoe = PcscReaders({"shoe": rig.pattern("shoe")}, deck_file)
        seat_readers = {str(seat): rig.pattern(f"seat {seat}") for seat in range(1, 9)}
        seats = PcscReaders(seat_readers, deck_file)
        config = replace(
            config,
            shoe=DevicePort(shoe.url, link=LINK, pcsc=shoe),
            seat_board=DevicePort(seats.url, link=LINK, pcsc=seats)
            if settings.seat_board
            else None,
        )
        async with TableService(config, new_floor_journal=True) as service:
            readers = Readers(rig, service, deck)
            dealer_floor = PcscFloor(service, readers, observe, seats=settings.seat_board)
            async with on_duty(dealer_floor, console, sign_ins) as running:
                yield running
    finally:
        rig.stop()
        shutil.rmtree(folder, ignore_errors=True)
