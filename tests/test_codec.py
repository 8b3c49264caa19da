"""The one codec between dataclasses and JSON (controller.codec): every table input and every
device event round-trips, the stored forms stay those journals already hold, and a value that
does not fit is refused naming where it was."""

import json
from dataclasses import dataclass
from enum import Enum, StrEnum

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.codec import Codec, CodecError
from controller.journal import event_of, to_input
from controller.journal.store import Entry
from controller.rules import parse_card
from controller.table import CorrectCard, input_from_json
from controller.table.inputs import INPUT_TYPES
from drivers import events as ev
from drivers.events import DeviceId
from drivers.protocol import DeviceKind, Disposition, FaultCode


class Colour(StrEnum):
    GREEN = "green"


class Size(Enum):
    SMALL = 1
    LARGE = 2


@dataclass(frozen=True)
class Inner:
    size: Size
    blob: bytes


@dataclass(frozen=True)
class Outer:
    colour: Colour
    inner: Inner
    pair: tuple[int, str]
    many: tuple[Inner, ...] = ()
    note: str | None = None


CODEC = Codec()


def test_a_nested_value_round_trips_in_the_documented_form():
    value = Outer(Colour.GREEN, Inner(Size.LARGE, b"\x01\xff"), (3, "x"), (Inner(Size.SMALL, b""),))
    data = CODEC.encode(value)
    assert data == {
        "colour": "green",
        "inner": {"size": "large", "blob": "01ff"},
        "pair": [3, "x"],
        "many": [{"size": "small", "blob": ""}],
        "note": None,
    }
    assert CODEC.build(Outer, json.loads(json.dumps(data)), "outer") == value


@pytest.mark.parametrize(
    ("data", "where"),
    [
        ({"colour": "red"}, "outer.colour"),
        ({"inner": {"size": "huge", "blob": ""}}, "outer.inner.size"),
        ({"inner": {"size": "small", "blob": "xyz"}}, "outer.inner.blob"),
        ({"pair": [1]}, "outer.pair"),
        ({"pair": ["1", "x"]}, "outer.pair[0]"),
        ({"pair": [True, "x"]}, "outer.pair[0]"),
        ({"extra": 1}, "outer"),  # an unknown field: the words name it
    ],
)
def test_a_value_that_does_not_fit_is_named_where_it_is(data, where):
    good = {"colour": "green", "inner": {"size": "small", "blob": ""}, "pair": [1, "x"]}
    with pytest.raises(CodecError) as refused:
        CODEC.build(Outer, {**good, **data}, "outer")
    assert refused.value.where == where and str(refused.value).startswith(f"{where}: ")


def test_a_missing_field_without_a_default_is_refused_and_one_with_a_default_is_not():
    with pytest.raises(CodecError, match="outer: missing field 'pair'"):
        CODEC.build(Outer, {"colour": "green", "inner": {"size": "small", "blob": ""}}, "outer")
    read = CODEC.build(
        Outer, {"colour": "green", "inner": {"size": "small", "blob": ""}, "pair": [1, "x"]}, "o"
    )
    assert read.many == () and read.note is None


def test_table_inputs_keep_their_stored_form():
    item = CorrectCard(
        at=5, wrong=parse_card("4d"), right=parse_card("4c"), who="S1", why="misread"
    )
    data = item.to_json()
    assert data == {
        "type": "correct_card",
        "at": 5,
        "wrong": "4d",
        "right": "4c",
        "who": "S1",
        "why": "misread",
    }
    assert input_from_json(data) == item
    assert set(INPUT_TYPES) >= {"correct_card", "configure"}
    fault = {"type": "device_fault", "at": 5, "device": "shoe", "fault": "jam", "seq": 2}
    assert input_from_json(fault).to_json() == fault  # a device's event, in the table's form
    assert FaultCode("jam").value == "jam"


@given(
    seq=st.integers(0, 65535),
    card=st.integers(0, 51),
    boot=st.integers(0, 2**32 - 1),
    uid=st.binary(max_size=10),
)
def test_device_events_keep_their_stored_form_and_read_back(seq, card, boot, uid):
    device = DeviceId(DeviceKind.SHOE, "SHOE-1", boot)
    read = ev.CardRead(seq=seq, card=card, read_counter=seq, uid=uid)
    unread = ev.CardUnreadable(seq=seq, disposition=Disposition.REJECT_TRAY, read_counter=1)
    fault = ev.DeviceFault(seq=seq, code=FaultCode.JAM)
    for event in (read, unread, fault):
        item = to_input(event, device, 1.0)
        entry = Entry(7, 1.0, item.source, item.type, item.fields, device, seq, None)
        assert event_of(entry) == event
    assert to_input(unread, device, 1.0).fields["disposition"] == "reject_tray"
    assert to_input(read, device, 1.0).fields["uid"] == uid.hex()


def test_a_stored_device_event_that_does_not_fit_names_its_position():
    fields = {"card": "As", "read_counter": 1, "uid": ""}
    entry = Entry(9, 1.0, "device", "CardRead", fields, None, 3, None)
    with pytest.raises(Exception, match=r"position 9: CardRead\.card: 'As' is not a whole number"):
        event_of(entry)
    info = ev.DeviceInfo(DeviceKind.SHOE, "S", 77, "/dev/pts/3", (1, 2, 3), 1)
    up = ev.LinkUp(device=info, reason="first", lost=(ev.LostEvents(5, 2, 4),), next_seq=9)
    fields = to_input(up, None, 1.0).fields
    assert event_of(Entry(1, 1.0, "link", "LinkUp", fields, None, None, None)) == up
