"""The physical world of a scenario: simulators driven through their control channels, or
real devices worked by an engineer who follows printed instructions."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, Protocol

from controller.hil.invariants import Felt
from controller.hil.scenario import ScenarioStep
from controller.hil.service import Console, next_update
from controller.rules import DECK, Card
from controller.table import device_words
from drivers.protocol import DeviceKind, Disposition
from firmware_sim.process import SimulatorProcess
from firmware_sim.shoe import Cheat

SETTLE_TIMEOUT = 20.0
PACE = 0.6  # seconds a card, a person's pace (the ``pitch`` step)
DECK_ID = 1  # the simulated shoe's deck: the same tags at every load
#: What an engineer does to the deck for each cheat (docs/simulator.md).
CHEAT_WORDS = {
    Cheat.FOREIGN: "after the shoe has read the deck, swap card {at} for the same card of "
    "another deck",
    Cheat.RETAGGED: "after the shoe has read the deck, rewrite the tag of card {at} to say "
    "another card",
    Cheat.CLONED: "after the shoe has read the deck, swap card {at} for a card with a copy "
    "of an earlier card's tag",
    Cheat.MISSING: "take card {at} out before the shoe reads the deck",
    Cheat.EXTRA: "put a card of another deck in at place {at} before the shoe reads the deck",
}


def deck_of(step: ScenarioStep) -> list[Card]:
    """The cards a ``load`` step puts in the shoe, top first: the named cards (a card named
    twice is in the shoe twice), then the rest of the deck in order, ``deck`` cards in all
    (default 52)."""
    named: tuple[Card, ...] = step.value
    rest = [card for card in DECK if card not in named]
    return [*named, *rest][: step.options.get("deck", len(DECK))]


def instructions(step: ScenarioStep) -> list[str]:
    """What an engineer does for a physical step, one line per event the run waits for."""
    action, value, options = step.action, step.value, step.options
    if action == "load":
        cards = deck_of(step)
        order = " ".join(str(card) for card in cards)
        line = f"load a deck of {len(cards)} cards, top first: {order}"
        if "cheat" in options:  # the places counted from 1 for a person
            line += "; " + CHEAT_WORDS[options["cheat"]].format(at=options.get("at", 0) + 1)
        return [line]
    if action == "draw":
        how = {
            None: "draw a card",
            Disposition.REJECT_TRAY: "draw a card the shoe cannot read (to the reject tray)",
            Disposition.DEALT_UNREAD: "draw a card the shoe cannot read onto the table",
        }[options.get("unreadable")]
        if value == 1:
            return [how]
        return [f"{how} ({number} of {value})" for number in range(1, value + 1)]
    if action == "pitch":
        return [f"pitch the next card to seat {seat}, without waiting" for seat in value]
    if action == "place":
        what = str(options["card"]) if "card" in options else "the card"
        lands = options.get("lands_at", value)
        if lands == value:
            return [f"place {what} at seat {value}"]
        return [f"place {what} for seat {value} so that it lands at seat {lands}"]
    if action == "switch":
        return [f"a player at seat {value} switches a card for {options['card']} of another deck"]
    if action == "sit":
        return [f"a player sits down at seat {value}"]
    if action == "leave":
        return [f"the player at seat {value} gets up"]
    if action == "unplug":
        return [f"unplug the {device_words(value)}'s cable for {options.get('seconds', 2.0):g} s"]
    if action == "restart":
        return [f"switch the {device_words(value)} off and on again"]
    device = device_words(options["device"])
    if action == "fault":
        return [f"make a {value.value} fault on the {device}"]
    return [f"clear the {value.value} fault on the {device}"]


class World(Protocol):
    async def perform(self, step: ScenarioStep, console: Console | None) -> None:
        """Carry out a physical step; return when the service (at ``console``) has taken
        its events (with no service running, when the devices hold them)."""


class SimulatedWorld:
    """Simulator processes: each physical step is a control command; the step is done when
    the device has every event acknowledged (journaled and applied by the service)."""

    def __init__(self, shoe: SimulatorProcess, seats: SimulatorProcess | None) -> None:
        self.shoe, self.seats = shoe, seats
        self.live = True
        self.felt = Felt()  # where the world put each card (controller.hil.invariants)
        self.tags: dict[Card, tuple[int, str]] = {}  # each card drawn: its tag's code and UID

    def _drawn(self, reply: Any) -> Card:
        """The card a draw's reply says came out; its tag kept for the seat's reader."""
        card = Card(reply["card"])
        self.tags[card] = (reply["tag"]["code"], reply["tag"]["uid"])
        self.felt.draw(card)
        return card

    def _seen(self, card: Card) -> str:
        """What a seat's reader reads of ``card``: its tag's code and UID (the card's own
        code, and no UID, for a card that did not come out of the shoe)."""
        code, uid = self.tags.get(card, (int(card), ""))
        return f"{Card(code)} uid={uid}" if uid else str(Card(code))

    def device(self, device: DeviceKind) -> SimulatorProcess:
        if device is DeviceKind.SHOE:
            return self.shoe
        if self.seats is None:
            raise RuntimeError("this scenario's table has no seat board")
        return self.seats

    async def command(self, device: DeviceKind, line: str) -> Any:
        return await asyncio.to_thread(self.device(device).command, line)

    async def settle(self, device: DeviceKind) -> None:
        """Wait until the device's events are all acknowledged (at once if it is unplugged:
        they wait on the device for the link; not at all when no service runs)."""
        if not self.live:
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + SETTLE_TIMEOUT
        while True:
            status = await self.command(device, "status")
            if not status["connected"] or status["pending"] == 0:
                return
            if loop.time() > deadline:
                raise TimeoutError(f"the {device_words(device)} did not settle: {status}")
            await asyncio.sleep(0.005)

    async def shoe_lamps(self) -> tuple[bool, tuple[int, ...]]:
        status = await self.command(DeviceKind.SHOE, "status")
        return status["bonus_lamp"], tuple(status["seat_lamps"])

    async def perform(self, step: ScenarioStep, console: Console | None) -> None:
        self.live = console is not None
        action, value, options = step.action, step.value, step.options
        if action == "load":
            cards = ",".join(str(card) for card in deck_of(step))
            line = f"load cards={cards} deck_id={DECK_ID}"
            if "cheat" in options:
                line += f" cheat={options['cheat'].value}"
                line += f" at={options['at']}" if "at" in options else ""
            await self.command(DeviceKind.SHOE, line)
        elif action == "draw":
            disposition = options.get("unreadable")
            line = "draw" if disposition is None else f"draw unreadable disposition={disposition}"
            for _ in range(value):
                self._drawn(await self.command(DeviceKind.SHOE, line))
                await self.settle(DeviceKind.SHOE)
            return
        elif action == "pitch":  # a person's dealing: nothing waited for, the pace kept
            for seat in value:
                card = self._drawn(await self.command(DeviceKind.SHOE, "draw"))
                self.felt.place(time.time(), card, seat)
                await self.command(DeviceKind.SEAT_BOARD, f"place {seat} {self._seen(card)}")
                await asyncio.sleep(options.get("pace", PACE))
            return  # the expectations wait for the table to have them
        elif action == "place":
            named = f" {self._seen(options['card'])}" if "card" in options else ""
            lands = f" lands_at={options['lands_at']}" if "lands_at" in options else ""
            if "card" in options:
                self.felt.place(time.time(), options["card"], options.get("lands_at", value))
            await self.command(DeviceKind.SEAT_BOARD, f"place {value}{named}{lands}")
        elif action == "switch":  # the card brought in is no card the felt knows
            await self.command(DeviceKind.SEAT_BOARD, f"switch {value} {options['card']}")
        elif action in ("sit", "leave"):
            await self.command(DeviceKind.SEAT_BOARD, f"{action} {value}")
        elif action in ("unplug", "restart"):
            await self.command(value, f"{action} {options.get('seconds', 2.0)}")
            return  # the events come when the link is back: the expectations wait for them
        else:
            command = "raise" if action == "fault" else "clear"
            await self.command(options["device"], f"{command} {value.value}")
        seat_board = action in ("place", "switch", "sit", "leave")
        await self.settle(DeviceKind.SEAT_BOARD if seat_board else _of(step))


def _of(step: ScenarioStep) -> DeviceKind:
    device: DeviceKind = step.options.get("device", DeviceKind.SHOE)
    return device


class DeviceWorld:
    """Real devices: each physical step is printed as an instruction for the engineer, and
    the run waits (up to ``wait`` seconds) for the table to take the device's event."""

    def __init__(self, say: Callable[[str], None], wait: float) -> None:
        self.say, self.wait = say, wait

    async def perform(self, step: ScenarioStep, console: Console | None) -> None:
        for line in instructions(step):
            if console is None:  # no table to hear the device: the engineer says when done
                self.say(f"  >>> {line}, then press Enter")
                await asyncio.to_thread(input)
                continue
            async with console.feed() as feed:
                self.say(f"  >>> {line}")
                try:  # a deck's load: its registration, card by card, then the deck
                    await next_update(feed, self.wait, telling=step.action == "load")
                except TimeoutError:
                    why = f"no event from the devices within {self.wait:g} s"
                    raise TimeoutError(why) from None
