"""The drivers against the simulator running as its own process (python -m firmware_sim).

The simulator prints its pty path or TCP address and its control channel; the test deals
through the control channel and reads the events through the real shoe driver.
"""

import asyncio
import os

import pytest

from drivers import events as ev
from drivers.device import SeatBoardDriver, ShoeDriver
from drivers.errors import ProtocolVersionError
from drivers.session import LinkConfig
from firmware_sim.process import SimulatorProcess

pytestmark = pytest.mark.slow  # the simulator's processes

LINK = LinkConfig(handshake_timeout=5.0, reset_interval=0.1, backoff_initial=0.05)


HEARTBEAT = ("--heartbeat-ms", "200")


@pytest.fixture(params=["--pty", "--tcp"])
def shoe_process(request):
    link = ["--pty"] if request.param == "--pty" else ["--tcp", "127.0.0.1:0"]
    simulator = SimulatorProcess("shoe", *link, "--seed", "3", *HEARTBEAT)
    yield simulator
    simulator.stop()


def test_shoe_process_deals_through_the_driver(shoe_process):
    sim = shoe_process
    sim.command("load cards=As,4c,Kd deck_id=5")

    async def scenario():
        async with ShoeDriver.from_url(sim.port, LINK) as shoe:
            events = [await shoe.next_event() for _ in range(5)]  # with the registration
            for _ in range(3):
                await asyncio.to_thread(sim.command, "draw")
            events += [await shoe.next_event() for _ in range(3)]
            await asyncio.to_thread(sim.command, "unplug 0.8")
            events += [await shoe.next_event() for _ in range(2)]
            await asyncio.to_thread(sim.command, "jam")
            events.append(await shoe.next_event())
            return events

    up, *events = asyncio.run(asyncio.wait_for(scenario(), 20))
    registration, deck, cards, (down, again, jam) = events[:3], events[3], events[4:7], events[7:]
    assert isinstance(up, ev.LinkUp) and up.device.serial.startswith("SIM-SHOE")
    assert [(c.seq, c.deck_id, c.index, c.card) for c in registration] == [
        (0, 5, 0, 8),  # in tag order, not the order dealt
        (1, 5, 1, 45),
        (2, 5, 2, 51),
    ]
    assert deck == ev.DeckLoaded(3, 5, 3, 3, registered=True)
    assert [c.card for c in cards] == [51, 8, 45]  # As, 4c, Kd
    assert sorted(c.uid for c in cards) == [c.uid for c in registration]
    assert isinstance(down, ev.LinkDown) and isinstance(again, ev.LinkUp)
    assert isinstance(jam, ev.DeviceFault) and jam.seq == 7


def test_seat_board_process_over_a_pty():
    sim = SimulatorProcess("seats", "--pty", "--seed", "4", *HEARTBEAT)
    try:
        sim.command("sit 5")

        async def scenario():
            async with SeatBoardDriver.from_url(sim.port, LINK) as seats:
                await asyncio.to_thread(sim.command, "place 5 Qh uid=04c0ffee")
                return [await seats.next_event() for _ in range(3)]

        up, sat, card = asyncio.run(asyncio.wait_for(scenario(), 20))
    finally:
        sim.stop()
    assert isinstance(up, ev.LinkUp)
    assert sat == ev.SeatOccupied(0, 5)
    assert card == ev.CardAtSeat(1, 5, 42, bytes.fromhex("04c0ffee"))  # Qh = (12 - 2) * 4 + 2


def test_a_simulator_speaking_another_protocol_version_is_refused():
    sim = SimulatorProcess("shoe", "--pty", "--protocol-version", "3", *HEARTBEAT)
    try:
        driver = ShoeDriver.from_url(sim.port, LINK)
        with pytest.raises(ProtocolVersionError) as caught:
            asyncio.run(asyncio.wait_for(driver.open(), 20))
    finally:
        sim.stop()
    assert str(caught.value) == (
        f"device on {sim.port} speaks protocol version 3; this host speaks versions 1, 2"
    )
    assert not driver.transport.is_open


def test_a_simulator_runs_in_a_process_group_of_its_own():
    """A terminal's Ctrl-C signals its whole foreground group: it must reach the simulator's
    owner only, which stops the simulator itself (and can still talk to it meanwhile)."""
    with SimulatorProcess("shoe", "--pty", *HEARTBEAT) as sim:
        assert os.getpgid(sim.process.pid) == sim.process.pid != os.getpgrp()
