"""The table service on simulator processes over pseudo-terminals, with a real journal."""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from controller.config import load_config
from controller.journal import Journal
from controller.journal.snapshots import Snapshots
from controller.rules import DECK, Do
from controller.service import TableService, Update, recover, steps
from controller.sim.dealer import Dealer, Tally
from controller.sim.service_floor import ServiceFloor
from controller.table import AlertKind, Decide, Mode, NewHand, SitDown, Table
from drivers.protocol import DeviceKind
from firmware_sim.process import AsyncControl as Control
from firmware_sim.shoe import SimulatedShoe
from firmware_sim.usb_backend import VirtualUsbBackend
from tests.service_kit import BAUD, config, simulator, write_config
from tests.waiting import async_wait_until, wait_until

pytestmark = pytest.mark.slow  # processes

LUCK_TABLE = [str(Path(sys.executable).parent / "luck-table")]


async def until(check: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    await async_wait_until(check, what, timeout, poll=0.01)


def run(scenario: Callable[[], Awaitable[None]], timeout: float = 90) -> None:
    asyncio.run(asyncio.wait_for(scenario(), timeout))


def replayed(journal_path: Path) -> Table:
    """The table from replaying the whole journal from its start (no snapshot)."""
    with Journal.open(journal_path, create=False) as journal:
        table = None
        for _, step in steps(journal):
            table = step.table
    assert table is not None
    return table


def dumps(table: Table) -> str:
    return json.dumps(table.to_json())


def test_hands_from_the_shoe_to_the_pot_journaled_and_recovered(tmp_path: Path) -> None:
    with simulator("shoe") as shoe, simulator("seats") as seats:
        settings = config(tmp_path, shoe.port, seats.port)

        async def scenario() -> None:
            async with TableService(settings) as service:
                updates = service.updates()
                tally = Tally()
                floor = ServiceFloor(service, shoe, seats, tally.observe)
                await floor.ready()
                await Dealer(floor, tally, seats=4, hands=3, seed=1).run()
                await floor.close()
                table = service.table
                assert (table.hand_number, table.in_hand, table.alerts) == (3, False, ())
                assert sum(seat.stack for seat in table.seats) == table.chips == table.bought_in
                seen: list[Update] = [await asyncio.wait_for(anext(updates), 5)]
                while seen[-1].position < service.position:
                    seen.append(await asyncio.wait_for(anext(updates), 5))
                positions = sorted({update.position for update in seen})
                assert positions == list(range(positions[0], service.position + 1))
                assert [update.position for update in seen] == sorted(positions)
                assert seen[-1].table is table
                lamps = await asyncio.to_thread(shoe.command, "status")
                assert (lamps["bonus_lamp"], lamps["seat_lamps"]) == (False, [])
                final = dumps(table)
            assert dumps(replayed(settings.journal)) == final
            with Journal.open(settings.journal) as journal:
                recovered = recover(journal, Snapshots(settings.journal))
            assert recovered.snapshot > 0 and dumps(recovered.table) == final

        run(scenario)
    history = subprocess.run(
        [*LUCK_TABLE, "history", "--journal", str(settings.journal), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    hands = json.loads(history.stdout)
    assert [hand["hand"] for hand in hands] == [1, 2, 3]
    for hand in hands:
        assert hand["recorded"] and hand["outcome"]["status"] == "complete"
        replay = subprocess.run(
            [*LUCK_TABLE, "replay", "-", "--json"],
            input=json.dumps(hand["script"]),
            capture_output=True,
            text=True,
            check=True,
        )
        assert json.loads(replay.stdout) == hand["outcome"]


def test_the_bonus_card_lights_the_shoe_lamps_and_a_refused_decision_changes_nothing(
    tmp_path: Path,
) -> None:
    with simulator("shoe") as shoe:
        settings = config(tmp_path, shoe.port)

        async def scenario() -> None:
            async with TableService(settings) as service:
                control = await Control.connect(shoe.announced["control"])
                await until(lambda: DeviceKind.SHOE in service.table.links, "the shoe's link")
                for seat in (1, 2):
                    step = await service.submit(
                        SitDown(at=0, seat=seat, player=f"P{seat}", buy_in=200)
                    )
                    assert step.refused is None
                # third street, two players: down, down, down, down, up (seat 1), up (seat 2)
                first = ["Kd", "7c", "2s", "9h", "4c", "Qs"]
                rest = [str(card) for card in DECK if str(card) not in first]
                await control.command(f"load cards={','.join(first + rest)}")
                await control.settled()
                assert (await service.submit(NewHand(at=0))).refused is None
                for _ in range(5):
                    await control.command("draw")
                    await control.settled()
                signals = service.table.signals
                assert signals.display == "BONUS CARD: seat 1, face down"
                assert (signals.lamps.bonus, signals.lamps.seats) == (True, (1,))

                async def lamps() -> tuple[bool, list[int]]:
                    status = await control.command("status")
                    return status["bonus_lamp"], status["seat_lamps"]

                async def lit() -> bool:
                    return await lamps() == (True, [1])

                await async_wait_until(lit, "the bonus lamp and seat 1's lamp lit", 5)
                before, position = service.table, service.position
                step = await service.submit(Decide(at=0, seat=2, do=Do.CALL))
                assert step.refused is not None and "seat 2" in step.refused
                assert service.table is before and service.position == position + 1
                final = dumps(service.table)
            assert dumps(replayed(settings.journal)) == final  # the refusal replays as one

        run(scenario)


def test_an_absent_shoe_shows_not_connected_until_it_is_plugged(tmp_path: Path) -> None:
    plug = tmp_path / "shoe"  # the udev name: absent until the shoe is plugged in
    settings = config(tmp_path, str(plug))

    async def scenario() -> None:
        async with TableService(settings) as service:

            def link_alerts() -> list[DeviceKind | None]:
                return [a.device for a in service.table.alerts if a.kind is AlertKind.LINK_DOWN]

            await until(lambda: bool(link_alerts()), "the link alert")
            assert link_alerts()[0] is DeviceKind.SHOE
            assert service.table.signals.mode is Mode.PAUSED
            with simulator("shoe") as shoe:
                plug.symlink_to(shoe.port)
                await until(lambda: DeviceKind.SHOE in service.table.links, "the shoe's link")
                assert link_alerts() == []
                await asyncio.to_thread(shoe.command, "load")
                await until(lambda: service.table.deck_ready, "the deck")

    run(scenario)


@pytest.mark.parametrize("seat_board", [False, True])
def test_the_service_starts_on_a_journal_of_another_configuration(
    tmp_path: Path, seat_board: bool
) -> None:
    """The settings are journaled: a changed configuration is journaled again between hands,
    and replaying never reads the configuration file."""
    plug = str(tmp_path / "absent")

    async def scenario() -> None:
        first = config(tmp_path, plug, game="ante = 2")
        async with TableService(first) as service:
            assert service.table.settings.rules.ante == 2
        second = config(tmp_path, plug, plug if seat_board else None, game="ante = 3")
        async with TableService(second) as service:
            assert service.table.settings == second.settings
        assert replayed(second.journal).settings == second.settings

    run(scenario)


def test_a_shoe_restarted_with_events_unsent_raises_events_lost(tmp_path: Path) -> None:
    with simulator("shoe") as shoe:
        settings = config(tmp_path, shoe.port)

        async def scenario() -> None:
            async with TableService(settings) as service:
                await until(lambda: DeviceKind.SHOE in service.table.links, "the shoe's link")
                control = await Control.connect(shoe.announced["control"])
                await control.command("set drop_rate=1")  # the line loses everything now
                await control.command("load")
                restart = await control.command("restart 0.2")
                await control.command("set drop_rate=0")
                assert restart["lost"]

                def lost() -> list[str]:
                    kinds = (AlertKind.EVENTS_LOST,)
                    return [a.message for a in service.table.alerts if a.kind in kinds]

                await until(lambda: bool(lost()), "the events-lost alert")
                await until(lambda: DeviceKind.SHOE in service.table.links, "the link again")
                assert not service.table.deck_ready  # the deck never reached the table
                final = dumps(service.table)
            assert dumps(replayed(settings.journal)) == final

        run(scenario)


CRASH_AFTER_DECK = """
import asyncio, os, sys
from controller import intake
from controller.config import load_config
from controller.service import TableService
from drivers.events import DeckLoaded

acknowledge = intake.Intake._acknowledge

def crash_at_the_ack(driver, last):
    if isinstance(last.event, DeckLoaded):
        os._exit(3)  # journaled and applied, the acknowledgement not sent: a crash
    acknowledge(driver, last)

intake.Intake._acknowledge = staticmethod(crash_at_the_ack)

async def main():
    async with TableService(load_config(sys.argv[1])) as service:
        print("ready", flush=True)
        await asyncio.Event().wait()

asyncio.run(main())
"""


def test_an_event_journaled_but_not_acknowledged_comes_again_and_is_dropped(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with simulator("shoe") as shoe:
        path = write_config(tmp_path, shoe.port)
        crashing = subprocess.Popen(
            [sys.executable, "-c", CRASH_AFTER_DECK, str(path)], stdout=subprocess.PIPE, text=True
        )
        assert crashing.stdout is not None and crashing.stdout.readline() == "ready\n"
        wait_until(lambda: shoe.command("status")["connected"], "the crashing service connects", 30)
        shoe.command("load")
        assert crashing.wait(timeout=30) == 3
        crashing.stdout.close()
        assert shoe.command("status")["pending"] >= 1  # the shoe still holds the deck event
        settings = config(tmp_path, shoe.port)

        async def scenario() -> None:
            async with TableService(settings) as service:
                assert service.table.deck_ready  # recovered from the journal
                control = await Control.connect(shoe.announced["control"])
                await control.settled()  # sent again, and acknowledged this time
                assert service.table.deck_ready

        with caplog.at_level(logging.INFO, logger="controller.service"):
            run(scenario)
    assert any("DeckLoaded" in r.message and "dropped" in r.message for r in caplog.records)
    with Journal.open(settings.journal, create=False) as journal:
        decks = [entry for entry in journal.entries() if entry.type == "DeckLoaded"]
    assert len(decks) == 1


def test_a_usb_shoe_through_the_virtual_backend_unplugged_and_plugged_again(
    tmp_path: Path,
) -> None:
    shoe = SimulatedShoe(seed=5, heartbeat_ms=100, retransmit_timeout=0.1)
    backend = VirtualUsbBackend()
    port = backend.plug(shoe, vendor_id=0x1209, product_id=0xC0DE, serial="USB-SHOE-7")
    path = write_config(tmp_path, "USB")
    serial = f'transport = "serial"\nport = "USB"\nbaud = {BAUD}'
    usb = 'transport = "usb"\nvendor_id = 0x1209\nproduct_id = 0xC0DE\nserial_number = "USB-SHOE-7"'
    path.write_text(path.read_text().replace(serial, usb))
    settings = load_config(path)

    async def scenario() -> None:
        async with TableService(settings, usb_backend=backend) as service:
            await until(lambda: DeviceKind.SHOE in service.table.links, "the shoe's link")
            port.act(lambda device: device.load())
            await until(lambda: service.table.deck_ready, "the deck")
            port.unplug()
            await until(lambda: DeviceKind.SHOE not in service.table.links, "the unplug")
            assert service.table.paused
            port.replug()
            await until(lambda: DeviceKind.SHOE in service.table.links, "the shoe again")
            assert not service.table.paused

    run(scenario)
