"""Acknowledge after commit (link setting ``ack_on="commit"``) through the real shoe driver
and a simulated shoe on a pseudo-terminal: the device keeps every event the application has
not acknowledged, and a host that starts again gets them again after its RESET."""

import asyncio
from dataclasses import replace

import pytest

from drivers import events as ev
from drivers.device import ShoeDriver
from drivers.errors import DriverError
from drivers.session import LinkConfig
from firmware_sim.runner import PtyRunner
from firmware_sim.shoe import SimulatedShoe
from tests.waiting import async_wait_until, retransmitted_twice

LINK = LinkConfig(resend_holdoff=0.01, reset_interval=0.1, handshake_timeout=5.0, ack_on="commit")


def test_the_device_keeps_what_is_not_acknowledged_and_a_new_host_gets_it_again():
    shoe = SimulatedShoe(protocol_version=1, seed=12, heartbeat_ms=100, retransmit_timeout=0.2)
    shoe.load(decks=1, shuffle_seed=12)
    dealt = shoe.upcoming()[:6]
    runner = PtyRunner(shoe)

    async def first_host():
        async with ShoeDriver.from_url(runner.path, LINK) as driver:
            up = await driver.next_event()
            for _ in dealt:
                runner.act(lambda s: s.draw())
            events = [await driver.next_event() for _ in range(1 + len(dealt))]
            await retransmitted_twice(shoe)  # none is acknowledged
            assert shoe.pending == 1 + len(dealt)
            driver.acknowledge(events[3])  # deck and the first three cards are durable
            await async_wait_until(lambda: shoe.pending == len(dealt) - 3, "3 left pending", 10)
            return up, events

    async def second_host():
        async with ShoeDriver.from_url(runner.path, LINK) as driver:
            up = await driver.next_event()
            again = [await driver.next_event() for _ in range(len(dealt) - 3)]
            driver.acknowledge(again[-1])
            await async_wait_until(lambda: shoe.pending == 0, "nothing pending", 10)
            return up, again

    async def scenario():
        async with runner:
            return await first_host(), await second_host()

    (up, events), (up2, again) = asyncio.run(asyncio.wait_for(scenario(), 30))
    deck, *cards = events
    assert isinstance(deck, ev.DeckLoaded) and [c.card for c in cards] == dealt
    assert up2.device.boot_id == up.device.boot_id and up2.device.serial == up.device.serial
    assert again == cards[3:]  # the same (serial, boot_id, seq) and the same cards
    assert not up2.restarted and up2.lost == ()


def test_acknowledging_through_the_driver_checks_the_event():
    shoe = SimulatedShoe(protocol_version=1, seed=13, heartbeat_ms=100)
    shoe.load([51, 8], deck_id=3)
    runner = PtyRunner(shoe)

    async def scenario():
        async with runner, ShoeDriver.from_url(runner.path, LINK) as driver:
            await driver.next_event()
            deck = await driver.next_event()
            with pytest.raises(DriverError, match="did not deliver it"):
                driver.acknowledge(replace(deck, origin=None))
            driver.acknowledge(deck)
            await async_wait_until(lambda: shoe.pending == 0, "nothing pending", 10)

    asyncio.run(asyncio.wait_for(scenario(), 20))


def test_back_pressure_holds_in_commit_mode():
    shoe = SimulatedShoe(protocol_version=1, seed=14, heartbeat_ms=100, retransmit_timeout=0.1)
    shoe.load(decks=1, shuffle_seed=14)
    dealt = shoe.upcoming()[:20]
    runner = PtyRunner(shoe)
    config = replace(LINK, queue_limit=4)

    async def scenario():
        async with runner, ShoeDriver.from_url(runner.path, config) as driver:
            await driver.next_event()
            for _ in dealt:
                runner.act(lambda s: s.draw())
            taken = [await driver.next_event() for _ in range(4)]
            await async_wait_until(lambda: driver.stats.held > 0, "an event held back", 10)
            await retransmitted_twice(shoe)
            assert driver.waiting == 4  # taken, not acknowledged: still waiting
            assert shoe.pending == 1 + len(dealt)
            cards = [e for e in taken if isinstance(e, ev.CardRead)]
            driver.acknowledge(taken[-1])
            while len(cards) < len(dealt):
                event = await driver.next_event()
                driver.acknowledge(event)
                cards.append(event)
            await async_wait_until(lambda: shoe.pending == 0, "nothing pending", 10)
            return cards

    cards = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert [c.card for c in cards] == dealt
