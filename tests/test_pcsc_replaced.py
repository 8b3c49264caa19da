"""A PC/SC shoe whose reader is replaced by another (pcscd's reader events) at the table: the
driver's own handling of the reader list (``PcscDevice._readers``, with the real pattern
matching, ``drivers.pcsc.scard.match_readers``) fed by a pcscd of a few lines instead of
the watcher's thread, and its events journaled and applied as the service does
(``to_input``, ``table_inputs``, ``apply``). No pcscd needed: pcscd cannot rename a
virtual reader (tests/test_pcsc.py pulls one and plugs it back through the real stack)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import partial

import pytest

from controller.journal import to_input
from controller.records import table_inputs
from controller.sim.pcsc_floor import random_deck
from controller.table import AlertKind, NewHand, Refuse, Serials, Table, alerts
from controller.table.inputs import Remedy
from drivers import events as ev
from drivers.events import DeviceId
from drivers.pcsc import device as pcsc_device
from drivers.pcsc.device import PcscShoe
from drivers.pcsc.scard import Arrived, Readers, Seen, match_readers
from drivers.protocol import DeviceKind
from drivers.session import LinkConfig
from tests.table_driver import TableDriver

DECK = random_deck(41)
TAGS = {code: uid for uid, code in DECK.cards.items()}
FIRST = "ACS ACR1252 Dual Reader [ACR1252 Dual Reader PICC] (1.23.456) 00 00"
OTHER = "ACS ACR1252 Dual Reader [ACR1252 Dual Reader PICC] (9.87.654) 00 00"
LOOSE = r"^ACS ACR1252 Dual Reader \[ACR1252 Dual Reader PICC\]"


class Pcscd:
    """The readers pcscd has, told to the driver as its watcher tells them: the list at
    start and at each change (matched by the driver's patterns), a tag in a field."""

    def __init__(self, *names: str) -> None:
        self.names = list(names)
        self.patterns: dict[str, str] = {}
        self.report: Callable[[Seen], None] | None = None

    def watcher(
        self, patterns: Mapping[str, str], report: Callable[[Seen], None], *, retry: float
    ) -> Pcscd:
        self.patterns, self.report = dict(patterns), report
        return self

    def start(self) -> None:
        self.plug(*self.names)

    def stop(self) -> None:
        self.report = None

    def tell(self, seen: Seen) -> None:
        assert self.report is not None
        self.report(seen)

    def plug(self, *names: str) -> None:
        """pcscd's reader list is now ``names``."""
        self.names = list(names)
        found, detail = match_readers(self.patterns, self.names)
        self.tell(Readers(found, True, detail))


class ShoeTable:
    """The table the shoe's events are journaled to and applied at."""

    def __init__(self, serial: str) -> None:
        self.driver = TableDriver.make(seat_board=False)
        settings = replace(self.driver.table.settings, serials=Serials(shoe=serial))
        self.driver.table = self.driver.first = Table(settings)
        self.source: DeviceId | None = None
        self.taken: list[ev.Event] = []

    async def take(self, shoe: PcscShoe) -> list[ev.Event]:
        """The events the shoe made of what pcscd told it, applied at the table."""
        await asyncio.sleep(0)  # the watcher's reports reach the loop
        events = shoe.ready_events()
        for event in events:
            if isinstance(event, ev.LinkUp):
                self.source = event.device.id
            for item in table_inputs(to_input(event, self.source, 0.0)):
                self.driver.ok(partial(replace, item))
        self.taken += events
        return events


def kinds(events: list[ev.Event]) -> list[str]:
    return [type(event).__name__ for event in events]


@pytest.mark.parametrize("swap", ["unplugged, then the other plugged", "both in one list change"])
def test_a_shoe_reader_replaced_by_another_that_matches_raises_device_replaced(
    monkeypatch: pytest.MonkeyPatch, swap: str
) -> None:
    pcscd = Pcscd(FIRST)
    monkeypatch.setattr(pcsc_device, "Watcher", pcscd.watcher)
    table = ShoeTable(serial=FIRST)  # the configuration names the first reader

    async def scenario() -> None:
        async with PcscShoe(LOOSE, DECK, LinkConfig(handshake_timeout=1.0)) as shoe:
            assert kinds(await table.take(shoe)) == ["LinkUp"]
            pcscd.tell(Arrived(PcscShoe.KEY, DECK.cut))
            assert kinds(await table.take(shoe))[-1] == "DeckLoaded"
            driver = table.driver
            driver.seat({1: 200, 2: 200}).ok(NewHand)
            for code in (45, 20, 3):
                pcscd.tell(Arrived(PcscShoe.KEY, TAGS[code]))
            assert kinds(await table.take(shoe)) == ["CardRead"] * 3
            assert not driver.table.alerts
            hand, deck, seq = driver.table.hand, driver.table.deck, shoe.made
            # the third card's tag still lies in the field when the reader goes
            if swap.startswith("unplugged"):
                pcscd.plug()
                assert kinds(await table.take(shoe)) == ["LinkDown"]
                assert [a.kind for a in driver.table.alerts] == [AlertKind.LINK_DOWN]
            pcscd.plug(OTHER)
            # the card that lay in the first reader's field, now in the other's: no new card
            pcscd.tell(Arrived(PcscShoe.KEY, TAGS[3]))
            events = await table.take(shoe)
            up = events[-1]
            went = [] if swap.startswith("unplugged") else ["LinkDown"]  # down already, or now
            assert kinds(events) == [*went, "LinkUp"]
            assert isinstance(up, ev.LinkUp) and up.device.serial == OTHER
            assert up.next_seq == seq and not up.restarted  # nothing lost on the driver's side
            (alert,) = driver.table.alerts  # the link is back: only the reader's identity
            assert alert.facts == alerts.DeviceReplaced(DeviceKind.SHOE, OTHER, FIRST)
            assert driver.table.blocks(alert) and driver.table.paused
            assert (driver.table.hand, driver.table.deck) == (hand, deck)  # no card invented
            # the same reader pulled and plugged back: the same alert, not a second one
            pcscd.plug()
            pcscd.plug(OTHER)
            assert kinds(await table.take(shoe)) == ["LinkDown", "LinkUp"]
            assert [a.id for a in driver.table.alerts] == [alert.id]
            driver.resolve(AlertKind.DEVICE_REPLACED, Remedy.DONE)  # a supervisor accepts it
            assert driver.table.expected_serial(DeviceKind.SHOE) == OTHER
            assert not driver.table.alerts and not driver.table.paused
            pcscd.tell(Arrived(PcscShoe.KEY, TAGS[31]))  # the next card out: dealt next
            (read,) = await table.take(shoe)
            assert read == ev.CardRead(seq, 31, 4, TAGS[31])
            assert driver.table.hand is not None and driver.table.hand != hand
            assert not driver.table.alerts
        assert driver.replayed() == driver.dump()

    asyncio.run(asyncio.wait_for(scenario(), 10))


def test_a_shoe_reader_named_exactly_and_replaced_is_missing_until_the_configuration_names_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pcscd = Pcscd(FIRST)
    monkeypatch.setattr(pcsc_device, "Watcher", pcscd.watcher)
    table = ShoeTable(serial=FIRST)
    exact = f"^{re.escape(FIRST)}$"

    async def scenario() -> None:
        async with PcscShoe(exact, DECK, LinkConfig(handshake_timeout=1.0)) as shoe:
            assert kinds(await table.take(shoe)) == ["LinkUp"]
            pcscd.plug()
            pcscd.plug(OTHER)
            (down,) = await table.take(shoe)
            assert isinstance(down, ev.LinkDown) and "no reader matches" in down.detail
            assert not shoe.link_up
            (alert,) = table.driver.table.alerts
            assert alert.kind is AlertKind.LINK_DOWN and table.driver.table.blocks(alert)
            assert table.driver.refused(NewHand) is Refuse.ALERTS_OPEN

    asyncio.run(asyncio.wait_for(scenario(), 10))
