"""The one device intake (controller.intake) through the real shoe driver and a simulated
shoe on a pseudo-terminal: a batch is what waits, nothing is acknowledged before the batch
is journaled, a device that restarted while its batch was journaled is not acknowledged,
and an absent device is reported and waited for."""

import asyncio

from controller.config import DevicePort
from controller.intake import Arrival, Intake, Registrations
from drivers import events as ev
from drivers.errors import DriverError, PortNotFoundError
from drivers.events import DeviceId
from drivers.protocol import DeviceKind
from drivers.session import LinkConfig
from firmware_sim.runner import PtyRunner
from firmware_sim.shoe import SimulatedShoe, tag_uid
from tests.waiting import async_wait_until, retransmitted_twice

LINK = LinkConfig(resend_holdoff=0.01, reset_interval=0.1, handshake_timeout=5.0)


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
            intake = Intake(DeviceKind.SHOE, DevicePort(runner.path, link=LINK))
            stopping = asyncio.Event()
            task = asyncio.create_task(intake.run(journal, never_absent, stopping))
            await async_wait_until(
                lambda: intake.driver is not None and intake.driver.link_up, "the link up", 10
            )
            for _ in range(5):
                runner.act(lambda s: s.draw())
            await retransmitted_twice(shoe)  # none is acknowledged
            assert shoe.pending == 52 + 1 + 5  # the deck's registration, the deck, five cards
            journaled.set()
            await async_wait_until(lambda: shoe.pending == 0, "nothing pending", 10)
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
            intake = Intake(DeviceKind.SHOE, DevicePort(runner.path, link=LINK))
            stopping = asyncio.Event()

            async def journal(batch):
                arrivals.extend(batch)
                if any(isinstance(a.event, ev.CardRead) for a in batch):
                    old = batch[-1].source.boot_id
                    runner.act(lambda s: s.restart(runner.clock(), 0.2))
                    await async_wait_until(
                        lambda: intake.driver.device.boot_id != old, "the new boot", 10
                    )

            task = asyncio.create_task(intake.run(journal, never_absent, stopping))
            await async_wait_until(
                lambda: intake.driver is not None and intake.driver.link_up, "the link up", 10
            )
            runner.act(lambda s: s.draw())
            await async_wait_until(
                lambda: sum(isinstance(a.event, ev.LinkUp) for a in arrivals) == 2,
                "the second LinkUp",
                10,
            )
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
    intake = Intake(DeviceKind.SHOE, DevicePort("/dev/no-such-shoe", link=link))
    asyncio.run(asyncio.wait_for(intake.run(journal, absent, stopping), 10))
    assert [retry for _, retry in told] == [0.01, 0.02, 0.02]
    assert "/dev/no-such-shoe" in told[0][0]


def test_an_older_shoe_s_registration_is_journaled_as_the_deck_s_set_never_its_deal_order():
    """A shoe that registers each deck in the order it will deal it (firmware from before
    tag order): every deck's registration reaches the journal in tag order exactly, the
    sorted set of the cards dealt, with its sequence numbers in their order and nothing of
    it acknowledged before its deck is journaled with it."""
    shoe = SimulatedShoe(seed=23, heartbeat_ms=100, retransmit_timeout=0.2, registers_in="load")
    runner = PtyRunner(shoe)
    arrivals: list[Arrival] = []
    dealt: list[list[bytes]] = []

    async def journal(batch):
        kinds = [type(a.event) for a in batch]
        if ev.DeckCard in kinds:  # a registration is journaled whole, with its deck
            last = max(i for i, kind in enumerate(kinds) if kind is ev.DeckCard)
            assert kinds[last + 1] is ev.DeckLoaded
            assert shoe.pending >= kinds.count(ev.DeckCard) + 1  # none of it acknowledged yet
        arrivals.extend(batch)

    async def scenario():
        async with runner:
            intake = Intake(DeviceKind.SHOE, DevicePort(runner.path, link=LINK))
            stopping = asyncio.Event()
            task = asyncio.create_task(intake.run(journal, never_absent, stopping))
            await async_wait_until(
                lambda: intake.driver is not None and intake.driver.link_up, "the link up", 10
            )
            for deck in range(12):
                runner.act(lambda s, deck=deck: s.load(decks=1, shuffle_seed=deck, deck_id=9))
                draws = [runner.act(lambda s: s.draw()) for _ in range(12)]
                dealt.append([draw.message.uid for draw in draws])
                await async_wait_until(lambda: shoe.pending == 0, "nothing pending", 10)
            stopping.set()
            await intake.driver.close()
            await asyncio.wait_for(task, 10)

    asyncio.run(asyncio.wait_for(scenario(), 60))
    sent = [a.event for a in arrivals if isinstance(a.event, ev.SequencedEvent)]
    assert [e.seq for e in sent] == list(range(len(sent)))  # every seq, in order
    registrations = [
        [e for e in sent[i - 52 : i] if isinstance(e, ev.DeckCard)]
        for i, e in enumerate(sent)
        if isinstance(e, ev.DeckLoaded)
    ]
    assert len(registrations) == len(dealt) == 12
    tags = sorted(tag_uid(9, code) for code in range(52))
    for cards, deal in zip(registrations, dealt, strict=True):
        assert [c.uid for c in cards] == tags  # the set, in tag order: nothing of the deal
        assert [c.index for c in cards] == list(range(52))
        assert [c.card for c in cards] == list(range(52))
        assert deal != tags[:12] and set(deal) <= set(tags)


def test_a_registration_held_is_handed_on_in_tag_order_when_another_deck_or_boot_comes():
    """Held until its deck; a card of another deck or a new boot of the shoe (which cannot
    send it again) hands it on as it is, in tag order; an event after a held card is
    journaled but not acknowledged (acknowledging it would acknowledge the held cards)."""
    boot, other = DeviceId(DeviceKind.SHOE, "S", 1), DeviceId(DeviceKind.SHOE, "S", 2)
    up = ev.LinkUp(ev.DeviceInfo(ev.DeviceKind.SHOE, "S", 2, "pty", (1, 0, 0), 2), "reset", 1)

    def card(seq, deck, code):
        return Arrival(
            ev.DeckCard(seq, deck, seq, code, bytes([4, code])), DeviceKind.SHOE, boot, 0
        )

    fault = Arrival(ev.DeviceFault(3, ev.FaultCode.LID_OPEN), DeviceKind.SHOE, boot, 0)
    hold = Registrations()
    ready, last = hold.take([card(0, 1, 30), card(1, 1, 7), card(2, 1, 12), fault])
    assert (ready, last) == ([fault], None)
    ready, last = hold.take([card(4, 2, 5)])  # another deck's card
    assert [(a.event.seq, a.event.index, a.event.card) for a in ready] == [
        (0, 0, 7),
        (1, 1, 12),
        (2, 2, 30),
    ]
    assert last is None  # deck 2's card is held
    ready, last = hold.take([Arrival(up, DeviceKind.SHOE, other, 0)])  # the shoe restarted
    assert [a.event for a in ready] == [ev.DeckCard(4, 2, 0, 5, b"\x04\x05"), up]
    assert last is None
    loaded = Arrival(ev.DeckLoaded(0, 3, 52, 52, registered=True), DeviceKind.SHOE, other, 0)
    assert hold.take([loaded]) == ([loaded], loaded)


def test_no_more_of_a_registration_is_held_than_a_deck_or_the_link_s_queue_allows():
    """A flood of registered cards (or a link whose queue limit is smaller than a deck) is
    handed on in tag order in parts: the intake never holds the device's whole queue
    unacknowledged and waits for ever."""
    boot = DeviceId(DeviceKind.SHOE, "S", 1)
    hold = Registrations(3)
    cards = [
        Arrival(ev.DeckCard(seq, 1, seq, code, bytes([4, code])), DeviceKind.SHOE, boot, 0)
        for seq, code in enumerate([9, 4, 7, 1, 0])
    ]
    assert hold.take(cards[:3]) == ([], None)
    ready, last = hold.take(cards[3:])
    assert [(a.event.seq, a.event.card) for a in ready] == [(0, 4), (1, 7), (2, 9)]
    assert last is None  # the last two are held
    assert Registrations().take(cards) == ([], None)  # a deck's worth is held
