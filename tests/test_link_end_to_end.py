"""End to end: the real drivers against the simulated firmware, with faults on the wire.

10,000 cards through a real pseudo-terminal and through ``socket://``, with 1% of the bytes
corrupted, 1% of the frames dropped, 1% duplicated and 5 disconnects; the shoe driver's
consumer must see every card exactly once and in the order the shoe dealt them. The USB path
runs through the virtual pyusb backend with an unplug and replug in the middle of a deck.
Every fault comes from a seeded generator, so the faults each frame meets are reproducible
(thread timing still varies from run to run, which the link must not care about).
"""

import asyncio
import itertools
import time
from dataclasses import replace

import pytest

from drivers import events as ev
from drivers.device import SeatBoardDriver, ShoeDriver
from drivers.errors import DriverError, PortNotFoundError
from drivers.protocol import Disposition, FaultCode
from drivers.session import LinkConfig
from drivers.transport import UsbTransport
from firmware_sim.runner import PtyRunner, TcpRunner
from firmware_sim.seats import SimulatedSeatBoard
from firmware_sim.shoe import SimulatedShoe
from firmware_sim.usb_backend import VirtualUsbBackend
from tests.waiting import async_wait_until, retransmitted_twice

pytestmark = pytest.mark.slow  # thousands of cards through real links

CARDS = 10_000
DISCONNECTS = 5
WINDOW = 8  # the dealer draws while fewer than this many events are unacknowledged
WAIT = 30.0  # seconds for the next event, or for room to draw: an unplug lasts 0.5 s

# Short timers so that faults are recovered from quickly; the device heartbeat is 100 ms,
# so the host declares the link down after 300 ms of silence.
LINK = LinkConfig(
    resend_holdoff=0.01,
    reset_interval=0.1,
    handshake_timeout=5.0,
    backoff_initial=0.05,
    backoff_max=0.2,
)


def faulty_shoe(seed):
    """A shoe loaded with enough decks, its first CARDS cards, and 1% faults of each kind."""
    shoe = SimulatedShoe(protocol_version=1, seed=seed, heartbeat_ms=100, retransmit_timeout=0.1)
    shoe.load(decks=CARDS // 52 + 1, shuffle_seed=seed)
    shoe.faults.update(corrupt_rate=0.01, drop_rate=0.01, duplicate_rate=0.01)
    return shoe, shoe.upcoming()[:CARDS]


class Consumer:
    """Collects the driver's events until ``cards`` CardRead events have arrived."""

    def __init__(self, driver, cards):
        self.driver = driver
        self.cards = cards
        self.events = []
        self.reads = []

    async def run(self):
        while len(self.reads) < self.cards:
            event = await asyncio.wait_for(self.driver.next_event(), WAIT)
            self.events.append(event)
            if isinstance(event, ev.CardRead):
                self.reads.append(event)

    def of(self, kind):
        return [e for e in self.events if isinstance(e, kind)]


async def deal(act, cards, disconnect_at, disconnect):
    """The dealer: draw ``cards`` cards, pacing on the device's unacknowledged events."""
    for i in range(cards):
        await async_wait_until(
            lambda: act(lambda shoe: shoe.pending) < WINDOW,
            f"card {i}: the shoe's events taken, room to draw",
            WAIT,
            poll=0.0005,
        )
        act(lambda shoe: shoe.draw())
        if i in disconnect_at:
            disconnect()


async def deal_and_consume(driver, act, disconnect_at, disconnect, cards=CARDS):
    consumer = Consumer(driver, cards)
    async with driver:
        await asyncio.gather(deal(act, cards, disconnect_at, disconnect), consumer.run())
    return consumer


def unplug(runner, seconds):
    """Pull the simulated cable for ``seconds`` (it plugs itself back in)."""
    runner.act(lambda device: device.unplug(runner.clock(), seconds))


def socket_url(runner):
    host, port = runner.address
    return f"socket://{host}:{port}"


def check_every_card_once_in_order(consumer, dealt):
    reads = consumer.reads
    assert [r.card for r in reads] == dealt
    assert [r.read_counter for r in reads] == list(range(len(dealt)))
    seqs = [r.seq for r in reads]
    assert seqs == list(range(seqs[0], seqs[0] + len(dealt)))
    assert len(consumer.of(ev.DeckLoaded)) == 1


def spread(n, total):
    return {total * (k + 1) // (n + 1) for k in range(n)}


@pytest.mark.slow
def test_ten_thousand_cards_through_a_pty_with_faults_and_disconnects():
    shoe, dealt = faulty_shoe(seed=11)
    runner = PtyRunner(shoe)
    driver = ShoeDriver.from_url(runner.path, LINK, baudrate=115200)

    async def scenario():
        async with runner:
            return await deal_and_consume(
                driver, runner.act, spread(DISCONNECTS, CARDS), lambda: unplug(runner, 0.5)
            )

    consumer = asyncio.run(scenario())
    check_every_card_once_in_order(consumer, dealt)
    downs = consumer.of(ev.LinkDown)
    assert sum(d.reason is ev.LinkDownReason.SILENCE for d in downs) >= DISCONNECTS
    assert len(consumer.of(ev.LinkUp)) == len(downs) + 1  # ups and downs alternate
    stats = driver.stats
    assert stats.duplicates > 0 and stats.gaps > 0 and sum(stats.decode_errors.values()) > 0


@pytest.mark.slow
def test_ten_thousand_cards_through_a_socket_url_with_faults_and_disconnects():
    shoe, dealt = faulty_shoe(seed=23)
    runner = TcpRunner(shoe)

    async def scenario():
        async with runner:
            driver = ShoeDriver.from_url(socket_url(runner), LINK)
            return await deal_and_consume(
                driver, runner.act, spread(DISCONNECTS, CARDS), lambda: unplug(runner, 0.2)
            )

    consumer = asyncio.run(scenario())
    check_every_card_once_in_order(consumer, dealt)
    lost = [d for d in consumer.of(ev.LinkDown) if d.reason is ev.LinkDownReason.CONNECTION_LOST]
    assert len(lost) == DISCONNECTS  # the TCP connection closed: the cable was pulled
    assert all(socket_url(runner) in d.detail for d in lost)
    assert len(consumer.of(ev.LinkUp)) == DISCONNECTS + 1


def test_usb_unplug_and_replug_mid_deck_loses_nothing():
    shoe = SimulatedShoe(protocol_version=1, seed=5, heartbeat_ms=100, retransmit_timeout=0.1)
    shoe.load(decks=2, shuffle_seed=5)
    dealt = shoe.upcoming()
    backend = VirtualUsbBackend()
    port = backend.plug(shoe, vendor_id=0x1209, product_id=0xC0DE, serial="SIM-SHOE-0001")
    transport = UsbTransport(0x1209, 0xC0DE, serial_number="SIM-SHOE-0001", backend=backend)
    driver = ShoeDriver(transport, LINK)

    def unplug_for_a_while():
        port.unplug()
        asyncio.get_running_loop().call_later(0.3, port.replug)

    consumer = asyncio.run(
        deal_and_consume(driver, port.act, {40, 41, 70}, unplug_for_a_while, cards=len(dealt))
    )
    check_every_card_once_in_order(consumer, dealt)
    lost = [d for d in consumer.of(ev.LinkDown) if d.reason is ev.LinkDownReason.CONNECTION_LOST]
    assert len(lost) >= 2
    assert all("usb 1209:c0de serial SIM-SHOE-0001" in d.detail for d in lost)
    assert driver.last_error is not None  # it did retry while the shoe was unplugged


class CountingUsbTransport(UsbTransport):
    """A UsbTransport that notes when each open was tried."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.attempts = []

    def open(self):
        self.attempts.append(time.monotonic())
        super().open()


def test_reconnect_backs_off_exponentially_up_to_the_limit():
    backend = VirtualUsbBackend()
    shoe = SimulatedShoe(protocol_version=1, seed=8, heartbeat_ms=100)
    port = backend.plug(shoe, vendor_id=0x1209, product_id=1, serial="S-8")
    transport = CountingUsbTransport(0x1209, 1, backend=backend)
    driver = ShoeDriver(transport, replace(LINK, backoff_initial=0.05, backoff_max=0.2))

    async def scenario():
        async with driver:
            assert isinstance(await driver.next_event(), ev.LinkUp)
            port.unplug()
            down = await driver.next_event()
            # unplugged while the driver retries, backing off to its limit and retrying there
            await async_wait_until(lambda: len(transport.attempts) >= 7, "6 retries", 10)
            port.replug()
            return down, await driver.next_event()

    down, up = asyncio.run(asyncio.wait_for(scenario(), 10))
    assert down.reason is ev.LinkDownReason.CONNECTION_LOST and isinstance(up, ev.LinkUp)
    retries = [b - a for a, b in itertools.pairwise(transport.attempts[1:])]
    early = 0.01  # the event loop may wake this much before a timer
    assert retries[0] >= 0.1 - early  # 0.05, then doubled ...
    assert all(gap >= 0.2 - early for gap in retries[1:])  # ... up to backoff_max
    assert max(retries) < 0.5  # and no further
    assert 5 <= len(transport.attempts) <= 9


class BrokenOnReopen(UsbTransport):
    """Opens once; reopening fails with an error that is no TransportError (a bug, say)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.opened = 0

    def open(self):
        self.opened += 1
        if self.opened > 1:
            raise RuntimeError("backend crashed")
        super().open()


def test_an_unexpected_error_while_reopening_stops_the_driver_with_it():
    backend = VirtualUsbBackend()
    port = backend.plug(
        SimulatedShoe(protocol_version=1, seed=2), vendor_id=0x1209, product_id=2, serial="S-2"
    )
    driver = ShoeDriver(BrokenOnReopen(0x1209, 2, backend=backend), LINK)

    async def scenario():
        async with driver:
            assert isinstance(await driver.next_event(), ev.LinkUp)
            port.unplug()
            lost = await driver.next_event()
            with pytest.raises(DriverError, match="reopening failed: RuntimeError"):
                await driver.next_event()
            return lost

    lost = asyncio.run(asyncio.wait_for(scenario(), 10))
    assert lost.reason is ev.LinkDownReason.CONNECTION_LOST
    assert not driver.transport.is_open


def test_seat_board_events_and_a_misplaced_card_over_a_pty():
    board = SimulatedSeatBoard(seed=3, heartbeat_ms=100, retransmit_timeout=0.1)
    runner = PtyRunner(board)
    driver = SeatBoardDriver.from_url(runner.path, LINK)

    async def scenario():
        async with runner, driver:
            assert isinstance(await driver.next_event(), ev.LinkUp)
            runner.act(lambda b: b.sit(3))
            runner.act(lambda b: b.place(3, card=51, lands_at=4))
            runner.act(lambda b: b.leave(3))
            return [await driver.next_event() for _ in range(3)]

    sat, card, left = asyncio.run(asyncio.wait_for(scenario(), 10))
    assert isinstance(sat, ev.SeatOccupied) and sat.seat == 3
    assert isinstance(card, ev.CardAtSeat) and (card.seat, card.card) == (4, 51)
    assert isinstance(left, ev.SeatVacated) and left.seat == 3


def test_close_while_reconnecting_ends_cleanly():
    runner = TcpRunner(SimulatedShoe(protocol_version=1, seed=9, heartbeat_ms=100))

    async def scenario():
        await runner.start()
        driver = ShoeDriver.from_url(socket_url(runner), LINK)
        await driver.open()
        await runner.stop()  # the device goes away for good: reconnect attempts are refused
        events = [await driver.next_event(), await driver.next_event()]
        await async_wait_until(lambda: driver.last_error is not None, "an error", 10)
        await driver.close()  # the link is down already: no second LinkDown
        with pytest.raises(StopAsyncIteration):
            await driver.next_event()
        return driver, events

    driver, (up, lost) = asyncio.run(asyncio.wait_for(scenario(), 10))
    assert isinstance(up, ev.LinkUp)
    assert lost.reason is ev.LinkDownReason.CONNECTION_LOST
    assert isinstance(driver.last_error, PortNotFoundError)  # nothing listens there
    assert not driver.transport.is_open


def test_shoe_faults_unreadable_cards_and_lamps_over_a_pty():
    shoe = SimulatedShoe(protocol_version=1, seed=4, heartbeat_ms=100)
    shoe.load([51, 0, 12], deck_id=77)
    runner = PtyRunner(shoe)
    driver = ShoeDriver.from_url(runner.path, LINK)

    async def scenario():
        async with runner, driver:
            events = [await driver.next_event() for _ in range(2)]  # LinkUp, DeckLoaded
            runner.act(lambda s: s.draw())
            runner.act(lambda s: s.draw(unreadable=True, disposition="dealt_unread"))
            runner.act(lambda s: s.jam())
            runner.act(lambda s: s.clear_jam())
            events += [await driver.next_event() for _ in range(4)]
            driver.set_indicator(bonus_lamp=True, seat_lamps={2, 7})
            await async_wait_until(
                lambda: driver.status is not None and driver.status.bonus_lamp,
                "a status with the bonus lamp on",
                10,
            )
            return events

    up, deck, read, unread, fault, cleared = asyncio.run(asyncio.wait_for(scenario(), 10))
    assert up.device.serial == "SIM-SHOE-0001" and up.pending == 1
    assert deck == ev.DeckLoaded(0, 77, 3, 3)
    assert (read.card, read.read_counter) == (51, 0)
    assert unread == ev.CardUnreadable(2, 1, Disposition.DEALT_UNREAD)
    assert fault == ev.DeviceFault(3, FaultCode.JAM)
    assert cleared == ev.DeviceFaultCleared(4, FaultCode.JAM)
    assert (shoe.bonus_lamp, shoe.seat_lamps) == (True, frozenset({2, 7}))
    assert driver.status.seat_lamps == frozenset({2, 7})


def test_a_slow_consumer_leaves_events_with_the_shoe_and_loses_none():
    shoe = SimulatedShoe(protocol_version=1, seed=6, heartbeat_ms=100, retransmit_timeout=0.1)
    shoe.load(decks=1, shuffle_seed=6)
    dealt = shoe.upcoming()[:30]
    runner = PtyRunner(shoe)
    driver = ShoeDriver.from_url(runner.path, replace(LINK, queue_limit=4))

    async def scenario():
        async with runner, driver:
            for _ in dealt:
                runner.act(lambda s: s.draw())
            # nobody consumes yet
            await async_wait_until(lambda: driver.stats.held > 0, "an event held back", 10)
            await retransmitted_twice(shoe)  # and held back again
            held_back = shoe.pending
            consumer = Consumer(driver, len(dealt))
            await consumer.run()
            return held_back, consumer

    held_back, consumer = asyncio.run(asyncio.wait_for(scenario(), 20))
    assert held_back == 1 + len(dealt) - 4  # acknowledged: the 4 events the queue took
    check_every_card_once_in_order(consumer, dealt)


def test_a_device_restart_over_tcp_says_which_events_were_lost():
    old = SimulatedShoe(protocol_version=1, seed=30, heartbeat_ms=100, retransmit_timeout=0.1)
    old.load(decks=1, shuffle_seed=30)
    first = TcpRunner(old)
    # back-pressure keeps events 2..5 with the device (numbered, seen, not delivered)
    driver_config = replace(LINK, queue_limit=2)

    async def scenario():
        await first.start()
        url = socket_url(first)
        driver = ShoeDriver.from_url(url, driver_config)
        async with driver:
            for _ in range(5):
                first.act(lambda s: s.draw())
            await async_wait_until(lambda: driver.stats.held >= 4, "4 events held back", 10)
            await first.stop()  # the shoe loses power ...
            new = SimulatedShoe(
                protocol_version=1, seed=31, heartbeat_ms=100
            )  # ... and comes back, a new boot
            second = TcpRunner(new, *first.address)
            await second.start()
            try:
                return old.boot_id, new.boot_id, [await driver.next_event() for _ in range(5)]
            finally:
                await second.stop()

    old_boot, new_boot, events = asyncio.run(asyncio.wait_for(scenario(), 20))
    _, deck, card, down, up = events
    assert isinstance(deck, ev.DeckLoaded) and isinstance(card, ev.CardRead)
    assert down.reason is ev.LinkDownReason.CONNECTION_LOST
    assert up.restarted and up.previous_boot_id == old_boot and up.device.boot_id == new_boot
    assert up.lost == (ev.LostEvents(old_boot, 2, 4),)  # seq 2..5
