"""Every device message of the protocol's golden vectors, from the wire to the table core and
back to the journal, byte for byte.

A vector's frame is decoded (``drivers.protocol``) and made the driver's event
(``drivers.session.device_event``), journaled as the service journals it (a real SQLite
journal), read back as the table core's input (``controller.records.table_inputs``, what
the service applies and recovery replays: ``FromDevice``, the driver's event itself), and
that input made the journal's record again: the record must be the one journaled, its
stored fields byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import get_args

import pytest

from controller.journal import Journal, to_input
from controller.journal.chain import stored
from controller.journal.device_events import EVENT_TYPES
from controller.records import table_inputs
from controller.table import FromDevice, input_from_json
from controller.table.inputs import CODEC, form_of
from drivers import events as ev
from drivers.events import DeviceId
from drivers.protocol import DeviceKind, decode_frame, from_dict
from drivers.session import device_event
from tests.protocol_vectors import FILES

#: Every vector of a sequenced device message, in both versions' files.
MESSAGES = [
    pytest.param(version, vector, id=f"v{version}-{vector['name']}")
    for version, (vectors, _, _) in FILES.items()
    for vector in vectors["frames"]
    if from_dict(vector["message"]).SEQUENCED
]
SERIAL = {DeviceKind.SHOE: "SHOE-7", DeviceKind.SEAT_BOARD: "SEATS-7"}


def _device(event: ev.Event) -> DeviceId:
    board = isinstance(event, ev.SeatOccupied | ev.SeatVacated | ev.CardAtSeat)
    kind = DeviceKind.SEAT_BOARD if board else DeviceKind.SHOE
    return DeviceId(kind, SERIAL[kind], 4242)


def test_the_vectors_hold_every_device_message():
    """The round trip below covers each device event the drivers report, and each is a
    device's input of the table core."""
    reported = {type(_event(version, vector)) for version, vector in (p.values for p in MESSAGES)}
    sequenced = {cls for cls in EVENT_TYPES.values() if issubclass(cls, ev.SequencedEvent)}
    assert reported == sequenced
    assert set(get_args(ev.DeviceEvent)) == sequenced


def _event(version: int, vector: dict) -> ev.DeviceEvent:
    frame = decode_frame(bytes.fromhex(vector["wire"]))
    assert frame.version == version
    assert frame.seq == vector["seq"]
    origin = ev.Origin(None, ev.DeviceId(DeviceKind.SHOE, "vector", 4242))
    return device_event(frame.seq, frame.message, origin, frame.version)


@pytest.mark.parametrize(("version", "vector"), MESSAGES)
def test_a_device_message_goes_from_the_wire_to_the_table_and_back_byte_for_byte(
    tmp_path: Path, version: int, vector: dict
):
    event = _event(version, vector)
    device = _device(event)
    written = to_input(event, device, 1_765_000_000.125)
    with Journal.open(tmp_path / "table.journal") as journal:
        journal.append([written])
        (entry,) = journal.entries()

    items = table_inputs(entry, "the vector's record")
    assert len(items) == 1
    (item,) = items
    assert isinstance(item, FromDevice)
    assert item.event == event  # the driver's own event, no field copied by hand
    assert item.at == 1_765_000_000_125
    assert item.seq == item.event.seq == vector["seq"]
    assert item.device is DeviceKind(device.kind)

    # Back: the table's input is the record again.
    rewritten = to_input(item.event, device, entry.recorded_at)
    assert (rewritten.source, rewritten.type, rewritten.seq, rewritten.device) == (
        entry.source,
        entry.type,
        entry.seq,
        entry.device,
    )
    assert stored(rewritten.fields) == stored(entry.fields)
    assert stored(rewritten.fields) == stored(written.fields)

    # Among the table's own records (a snapshot's waiting report, an input given to the
    # service) the input is in its table form, which reads back to the same form.
    form = item.to_json()
    assert input_from_json(form).to_json() == form


@dataclass(frozen=True)
class ChipTrayCounted(ev.SequencedEvent):
    """A device message the protocol does not have: what a new one looks like."""

    chips: int
    tray: bytes


def test_a_new_message_needs_no_table_form_of_its_own():
    """A message declared with no table form is written as the codec writes its event,
    under its class's name, with its device, and reads back as the same input."""
    form = form_of(ChipTrayCounted)  # not a member of DeviceEvent
    assert (form.tag, form.names) == ("chip_tray_counted", (("chips", "chips"), ("tray", "tray")))
    event = ChipTrayCounted(9, 250, b"\x01\x02")
    item = FromDevice(at=5, device=DeviceKind.SHOE, seq=9, event=event)
    data = {"type": "chip_tray_counted", "at": 5, "device": "shoe", "chips": 250, "tray": "0102"}
    assert item.to_json() == {**data, "seq": 9}
    assert form.read({k: v for k, v in item.to_json().items() if k != "type"}, CODEC) == item
