"""Property: whatever the faults, the host session delivers every event exactly once, in order.

The host session and the simulated shoe are both sans-IO, so here they are wired together
in virtual time (1 ms steps, no threads): hypothesis chooses the seed, the fault rates in
both directions and when the cable is pulled.
"""

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from drivers import events as ev
from drivers.protocol import DeviceKind
from drivers.session import HostSession, LinkConfig
from firmware_sim.shoe import SimulatedShoe
from tests.hypothesis_profiles import examples

CARDS = 150
STEP = 0.001
TIME_LIMIT = 120.0  # virtual seconds; a run that needs more has stalled

LINK = LinkConfig(resend_holdoff=0.01, reset_interval=0.1)


def corrupt(data, rate, rng):
    out = bytearray(data)
    for i in range(len(out)):
        if rng.random() < rate:
            out[i] ^= rng.randrange(1, 256)
    return bytes(out)


@settings(max_examples=examples(50), deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    corrupt_rate=st.sampled_from([0.0, 0.005, 0.02]),
    drop_rate=st.sampled_from([0.0, 0.05, 0.2]),
    duplicate_rate=st.sampled_from([0.0, 0.05, 0.2]),
    host_corrupt_rate=st.sampled_from([0.0, 0.01, 0.05]),
    window=st.integers(1, 40),
    unplug_after=st.lists(st.integers(0, CARDS - 1), max_size=3, unique=True),
    # or across the wrap, in the deck's registration or among the cards
    first_seq=st.one_of(st.just(0), st.integers(0x10000 - 3 * 52 - 1 - CARDS, 0xFFFF)),
)
def test_every_card_once_and_in_order_whatever_the_faults(
    seed,
    corrupt_rate,
    drop_rate,
    duplicate_rate,
    host_corrupt_rate,
    window,
    unplug_after,
    first_seq,
):
    shoe = SimulatedShoe(seed=seed, heartbeat_ms=100, retransmit_timeout=0.1, first_seq=first_seq)
    shoe.load(decks=3, shuffle_seed=seed)
    dealt = shoe.upcoming()[:CARDS]
    shoe.faults.update(
        corrupt_rate=corrupt_rate, drop_rate=drop_rate, duplicate_rate=duplicate_rate
    )
    host = HostSession("virtual", DeviceKind.SHOE, LINK)
    rng = random.Random(seed)
    now = 0.0
    shoe.connect(now)
    host.connection_made(now)
    drawn, events = 0, []
    while sum(isinstance(e, ev.CardRead) for e in events) < CARDS:
        assert now < TIME_LIMIT, f"stalled: {host.stats}"
        now += STEP
        if drawn < CARDS and shoe.pending < window:
            shoe.draw()
            drawn += 1
            if drawn - 1 in unplug_after:
                shoe.unplug(now, 0.4)
        host.receive(shoe.transmit(now), now)
        deadline = host.next_deadline()
        if deadline is not None and now >= deadline:
            host.poll(now)
        shoe.receive(corrupt(host.take_output(), host_corrupt_rate, rng), now)
        events += host.take_events()
    reads = [e for e in events if isinstance(e, ev.CardRead)]
    assert [r.card for r in reads] == dealt
    # the deck's registration (a DECK_CARD for each of its 156 cards) took first_seq on,
    # then the DECK event; sequence numbers wrap from 65535 to 0
    registration = [e for e in events if isinstance(e, ev.DeckCard)]
    assert len(registration) == 3 * 52
    after = first_seq + len(registration)
    assert [r.seq for r in reads] == [(after + i) % 0x10000 for i in range(1, CARDS + 1)]
    assert isinstance(events[0], ev.LinkUp)
    links = [e for e in events if isinstance(e, ev.LinkUp | ev.LinkDown)]
    assert all(type(a) is not type(b) for a, b in itertools.pairwise(links))
