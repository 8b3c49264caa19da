"""The one device intake (controller.intake) through the real shoe driver and a simulated
shoe on a pseudo-terminal: a batch is what waits, nothing is acknowledged before the batch
is journaled, a device that restarted while its batch was journaled is not acknowledged,
and an absent device is reported and waited for."""

import asyncio

from controller.config import DevicePort
from controller.intake import Arrival, Intake
from controller.table import Device
from drivers import events as ev
from drivers.errors import DriverError, PortNotFoundError
from drivers.session import LinkConfig
from firmware_sim.runner import PtyRunner
from firmware_sim.shoe import SimulatedShoe

LINK = LinkConfig(resend_holdoff=0.01, reset_interval=0.1, handshake_timeout=5.0)


async def until(condition, timeout=10.0):
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.005)


def shoe_with(cards: int, seed: int) -> tuple[SimulatedShoe, PtyRunner]:
    shoe = SimulatedShoe(seed=seed, heartbeat_ms=100, retransmit_timeout=0.2)
    shoe.load(decks=1, shuffle_seed=seed)
    runner = PtyRunner(shoe)
    return shoe, runner


async def never_absent(error: DriverError, retry: float | None) -> None:
    raise error


def test_nothing_is_acknowledged_before_its_batch_is_journaled_and_batches_take_what_waits():
    shoe, runner = shoe_with(6, 21)
    batches: list[list[Arrival]] = []
    journaled = asyncio.Event()

    async def journal(batch):
        assert shoe.pending >= sum(isinstance(a.event, ev.SequencedEvent) for a in batch)
        await journaled.wait()  # the journal is slow: the device still holds the batch
        batches.append(list(batch))

    async def scenario():
        async with runner:
            intake = Intake(Device.SHOE, DevicePort(runner.path, link=LINK))
            stopping = asyncio.Event()
            task = asyncio.create_task(intake.run(journal, never_absent, stopping))
            await until(lambda: intake.driver is not None and intake.driver.link_up)
            for _ in range(5):
                runner.act(lambda s: s.draw())
            await asyncio.sleep(0.5)  # retransmissions come and go: none is acknowledged
            assert shoe.pending == 52 + 1 + 5  # the deck's registration, the deck, five cards
            journaled.set()
            await until(lambda: shoe.pending == 0)
            stopping.set()
            await intake.driver.close()
            await asyncio.wait_for(task, 10)

    asyncio.run(asyncio.wait_for(scenario(), 30))
    arrivals = [a for batch in batches for a in batch]
    assert isinstance(arrivals[0].event, ev.LinkUp)
    sent = [type(a.event) for a in arrivals if isinstance(a.event, ev.SequencedEvent)]
    assert sent == [ev.DeckCard] * 52 + [ev.DeckLoaded] + [ev.CardRead] * 5
    assert len(batches) < len(arrivals)  # what waited went in one batch
    assert {a.source.serial for a in arrivals if a.source} == {shoe.serial}


def test_a_device_that_restarted_while_its_batch_was_journaled_is_not_acknowledged():
    # Acknowledging an event of a boot the device has left raises in the driver (it no longer
    # holds it); the intake must not try: the batch after is the new boot's LinkUp.
    _, runner = shoe_with(2, 22)
    arrivals: list[Arrival] = []

    async def scenario():
        async with runner:
            intake = Intake(Device.SHOE, DevicePort(runner.path, link=LINK))
            stopping = asyncio.Event()

            async def journal(batch):
                arrivals.extend(batch)
                if any(isinstance(a.event, ev.CardRead) for a in batch):
                    old = batch[-1].source.boot_id
                    runner.act(lambda s: s.restart(runner.clock(), 0.2))
                    await until(lambda: intake.driver.device.boot_id != old)

            task = asyncio.create_task(intake.run(journal, never_absent, stopping))
            await until(lambda: intake.driver is not None and intake.driver.link_up)
            runner.act(lambda s: s.draw())
            await until(lambda: sum(isinstance(a.event, ev.LinkUp) for a in arrivals) == 2)
            assert not task.done()  # no DriverError from acknowledging the old boot
            stopping.set()
            await intake.driver.close()
            await asyncio.wait_for(task, 10)

    asyncio.run(asyncio.wait_for(scenario(), 30))
    first, second = (a for a in arrivals if isinstance(a.event, ev.LinkUp))
    assert second.event.device.boot_id != first.event.device.boot_id


def test_an_absent_device_is_reported_with_the_backoff_and_waited_for():
    told: list[tuple[str, float | None]] = []

    async def absent(error, retry):
        assert isinstance(error, PortNotFoundError)
        told.append((str(error), retry))
        if len(told) == 3:
            stopping.set()

    async def journal(batch):
        raise AssertionError("no device, no events")

    stopping = asyncio.Event()
    link = LinkConfig(backoff_initial=0.01, backoff_max=0.02)
    intake = Intake(Device.SHOE, DevicePort("/dev/no-such-shoe", link=link))
    asyncio.run(asyncio.wait_for(intake.run(journal, absent, stopping), 10))
    assert [retry for _, retry in told] == [0.01, 0.02, 0.02]
    assert "/dev/no-such-shoe" in told[0][0]
