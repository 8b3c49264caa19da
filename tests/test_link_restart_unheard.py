"""A shoe power-cycled for less than the silence timeout, whose HELLO after the restart is
lost: the host session must still find the new boot and take its cards.

The host session and the simulated shoe are both sans-IO, wired here in virtual time (1 ms
steps) as in the link soak (bench/soak.py): 115200 baud, 200 ms heartbeats, the host
acknowledging each event as it takes it. The dealer draws right after the restart, so that
the new boot's events wait in the shoe behind its HELLO. Before the fix the host stayed up,
took the new boot's events for duplicates of the old boot's and acknowledged them again,
for ever: the shoe's buffer never drained and the soak's dealer waited ("no event for 60 s:
the link stalled").
"""

import pytest

from drivers import events as ev
from drivers.protocol import DeviceKind, FrameDecoder, Hello
from drivers.session import HostSession, LinkConfig
from firmware_sim.shoe import SimulatedShoe

STEP = 0.001
TIME_LIMIT = 30.0  # virtual seconds; a run that needs more has stalled
BAUD = 115200


class HelloLost:
    """The wire from the shoe, which loses the first HELLO after ``armed`` is set."""

    def __init__(self) -> None:
        self.armed = False
        self._partial = b""

    def carry(self, data: bytes) -> bytes:
        self._partial += data
        out = b""
        while b"\0" in self._partial:  # every frame ends with its delimiter
            end = self._partial.index(b"\0") + 1
            frame, self._partial = self._partial[:end], self._partial[end:]
            if self.armed and frame != b"\0":
                [item] = FrameDecoder().feed(frame)
                if isinstance(item.message, Hello):
                    self.armed = False
                    continue
            out += frame
        return out


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (20, 8),  # the shoe idles between its rounds: its STATUS numbers behind
        (300, 260),  # rounds back to back (over 0.5 s each): no STATUS, only duplicates
    ],
)
def test_a_restart_whose_hello_is_lost_is_found_and_its_cards_delivered(before, after):
    shoe = SimulatedShoe(seed=1, heartbeat_ms=200, baud=BAUD, protocol_version=1)
    shoe.load(decks=12, shuffle_seed=1)
    config = LinkConfig(reset_interval=0.1, ack_on="commit")
    host = HostSession("virtual", DeviceKind.SHOE, config, baudrate=BAUD)
    wire = HelloLost()
    now, drawn, restarted = 0.0, [], False
    events: list[ev.Event] = []
    shoe.connect(now)
    host.connection_made(now)
    while sum(isinstance(e, ev.CardRead) for e in events) < before + after:
        assert now < TIME_LIMIT, f"stalled: {host.state(now)}"
        now += STEP
        if not restarted and len(drawn) == before and shoe.pending == 0:
            assert shoe.restart(now, 0.3) == 0  # shorter than the silence timeout (0.6 s)
            wire.armed = restarted = True
        if len(drawn) < before or (restarted and len(drawn) < before + after):
            drawn.append(shoe.draw().card)
        host.receive(wire.carry(shoe.transmit(now)), now)
        deadline = host.next_deadline()
        if deadline is not None and now >= deadline:
            host.poll(now)
        for event in host.take_events():
            events.append(event)
            if not isinstance(event, ev.LinkUp | ev.LinkDown):
                host.acknowledge(event, now)
        shoe.receive(host.take_output(), now)
    assert not wire.armed  # the new boot's HELLO was lost
    reads = [e for e in events if isinstance(e, ev.CardRead)]
    assert [r.card for r in reads] == drawn
    [restart] = [e for e in events if isinstance(e, ev.LinkUp) and e.restarted]
    assert restart.lost == ()
    assert [r.origin.device.boot_id for r in reads[before:]] == [shoe.boot_id] * after
