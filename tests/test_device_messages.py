"""Every device message of the protocol's golden vectors, from the wire to the table core and
back to the journal, byte for byte.

A vector's frame is decoded (``drivers.protocol``) and made the driver's event
(``drivers.session.device_event``), journaled as the service journals it (a real SQLite
journal), read back as the table core's input (``controller.records.table_inputs``, what
the service applies and recovery replays), and that input made the journal's record again
(``DeviceMessage.event_fields``, given the fields the table does not act on): the record
must be the one journaled, its stored fields byte for byte.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.journal import DeviceId, Input, Journal, to_input
from controller.journal.chain import stored
from controller.journal.device_events import EVENT_TYPES, build_event
from controller.records import DEVICE_MESSAGES, MESSAGE_OF_INPUT, table_inputs
from drivers import events as ev
from drivers.protocol import decode_frame, from_dict
from drivers.session import device_event
from tests.protocol_vectors import FILES

#: Every vector of a sequenced device message, in both versions' files.
MESSAGES = [
    pytest.param(version, vector, id=f"v{version}-{vector['name']}")
    for version, (vectors, _, _) in FILES.items()
    for vector in vectors["frames"]
    if from_dict(vector["message"]).SEQUENCED
]
KIND = {"shoe": ("shoe", "SHOE-7"), "seat_board": ("seat_board", "SEATS-7")}


def _device(event: ev.Event) -> DeviceId:
    board = isinstance(event, ev.SeatOccupied | ev.SeatVacated | ev.CardAtSeat)
    kind, serial = KIND["seat_board" if board else "shoe"]
    return DeviceId(kind, serial, 4242)


def test_the_vectors_hold_every_device_message():
    """The round trip below covers each device event the drivers report."""
    reported = {type(_event(version, vector)) for version, vector in (p.values for p in MESSAGES)}
    sequenced = {cls for cls in EVENT_TYPES.values() if issubclass(cls, ev.SequencedEvent)}
    assert reported == sequenced
    assert {message.event for message in DEVICE_MESSAGES.values()} == sequenced


def _event(version: int, vector: dict) -> ev.DeviceEvent:
    frame = decode_frame(bytes.fromhex(vector["wire"]))
    assert frame.version == version
    assert frame.seq == vector["seq"]
    return device_event(frame.seq, frame.message, ev.Origin(None, "vector", 4242), frame.version)


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
    message = MESSAGE_OF_INPUT[type(item)]
    assert message is DEVICE_MESSAGES[entry.type]
    assert item.at == 1_765_000_000_125
    seq = item.seq  # every device message's input has one
    assert seq == vector["seq"]

    # Back: the table's input and what the device said beside it give the record again.
    beside = {name: entry.fields[name] for name in message.device_only}
    if message.taken is not None:  # a field the table did not take (an unregistered deck's id)
        taken = message.taken(entry.fields)
        beside |= {name: value for name, value in entry.fields.items() if name not in taken}
    fields = message.event_fields(item, beside)
    again = build_event(message.event, fields, seq, entry.type)
    assert again == event
    rewritten = to_input(again, device, entry.recorded_at)
    assert (rewritten.source, rewritten.type, rewritten.seq, rewritten.device) == (
        entry.source,
        entry.type,
        entry.seq,
        entry.device,
    )
    assert stored(rewritten.fields) == stored(entry.fields)
    assert stored(rewritten.fields) == stored(written.fields)


def test_the_table_does_not_take_a_device_field_it_is_not_given():
    """Going back needs every field the table does not carry: none is invented."""
    item = table_inputs(
        Input(
            1.0,
            "device",
            "CardRead",
            {"card": 5, "read_counter": 9, "uid": "04"},
            DeviceId("shoe", "S", 1),
            3,
        ),
    )[0]
    message = MESSAGE_OF_INPUT[type(item)]
    with pytest.raises(ValueError, match="read_counter"):
        message.event_fields(item, {})
    assert message.event_fields(item, {"read_counter": 9}) == {
        "card": 5,
        "read_counter": 9,
        "uid": "04",
    }
