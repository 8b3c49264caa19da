"""Simulated table-hardware firmware: a card shoe and a seat-sensor board.

They speak the real wire protocol (docs/protocol.md) through ``drivers.protocol``
and nothing else of the project. The core is sans-IO; the same device object
runs in-process under a test's own clock, or as its own process on a
pseudo-terminal or TCP (``python -m firmware_sim``, see docs/simulator.md).

In-process API::

    shoe = SimulatedShoe(seed=7)            # also: serial, firmware, heartbeat_ms,
                                            # retransmit_timeout, buffer_size, first_seq,
                                            # boot_id, protocol_version, reader,
                                            # registers_in="tag" | "load" (older shoe)
    shoe.connect(now)                       # HELLO, then every unacknowledged event
    shoe.load(decks=6)                      # or load([51, 8, ...]); registers each card
                                            # (DECK_CARD, version 2, in tag order), then
                                            # reports DECK;
                                            # cheat="foreign" | "retagged" | "cloned" |
                                            # "missing" | "extra", at=PLACE
    shoe.draw()                             # -> Draw(card, CardMessage | Unreadable, tagged)
    shoe.jam(); shoe.clear_jam(); shoe.open_lid(); shoe.close_lid()
    shoe.set_fault("reader" | "tamper", active)
    shoe.faults.update(corrupt_rate=0.01, drop_rate=0.01, duplicate_rate=0.01, delay=0.002)
    shoe.unplug(now, duration); shoe.disconnect()
    shoe.receive(data_from_host, now)
    data_to_host = shoe.transmit(now)       # call again at shoe.next_deadline()

    seats = SimulatedSeatBoard(seed=7)
    seats.sit(3); seats.leave(3); seats.place(3, card=51, lands_at=4, uid=b"...")
    seats.switch(3, 51)                     # a player switches the card at seat 3

Control actions that the device cannot perform raise ``DeviceError`` (``code``: why, a
``Cannot``) and change nothing. Everything random comes from ``seed``.
``firmware_sim.runner`` runs a device on a pty or TCP under the real clock (``PtyRunner``,
``TcpRunner``, ``ControlServer``); ``firmware_sim.control`` is the text control channel.
"""

from firmware_sim.device import Cannot, DeviceError, DeviceStats, SimulatedDevice
from firmware_sim.faults import FaultInjector, FaultSettingError
from firmware_sim.seats import SimulatedSeatBoard
from firmware_sim.shoe import Draw, SimulatedShoe

__all__ = [
    "Cannot",
    "DeviceError",
    "DeviceStats",
    "Draw",
    "FaultInjector",
    "FaultSettingError",
    "SimulatedDevice",
    "SimulatedSeatBoard",
    "SimulatedShoe",
]
