"""Journal records and the table core's inputs.

The journal keeps each device event as the driver reported it (source ``device`` or
``link``, see :mod:`controller.journal.device_events`), by the one codec, and every other
input as the table core's own record (source ``table``: ``item.to_json()``). A device's
event is the table core's input as it is (``FromDevice``: the event with its time, its
device's kind and its ``seq``), so that nothing is copied field by field: a new device
message needs nothing here. A refused credential (a failed sign-in or supervisor PIN) is
kept too, as an audit record of source ``access``: it is not a table input and stands
for none. :func:`table_inputs` turns any record into the table
inputs it stands for, the same way live and in recovery, so replaying the journal gives the
same table. The time of a record is the input's ``at``: the service
journals ``at / 1000`` as ``recorded_at`` and reads it back with :func:`at_of`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, Protocol, get_args

from controller.journal import Input, JournalError
from controller.journal.device_events import DEVICE, EVENT_TYPES, LINK, build_event
from controller.table import inputs as ti
from controller.table.inputs import TableInput, input_from_json
from drivers import events as ev
from drivers.protocol import DeviceKind

TABLE = "table"
#: A refused credential: who tried, for what, from where (an audit record, no table input).
ACCESS = "access"


class Record(Protocol):
    """What a journal ``Input`` (to write) and ``Entry`` (read back) have in common."""

    @property
    def recorded_at(self) -> float: ...
    @property
    def source(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def fields(self) -> dict[str, Any]: ...
    @property
    def device(self) -> ev.DeviceId | None: ...
    @property
    def seq(self) -> int | None: ...


def at_of(recorded_at: float) -> int:
    """The input time (ms since the epoch) of a record journaled at ``recorded_at`` (s)."""
    return round(recorded_at * 1000)


def record_of(item: TableInput) -> Input:
    """The journal record of a table input (people's inputs and the service's own; a
    device's event given to the service as the table's input, in its table form)."""
    data = item.to_json()
    return Input(item.at / 1000, TABLE, data["type"], data)


def _device_event(
    at: int, seq: int | None, device: DeviceKind, fields: Mapping[str, Any], kind: str
) -> tuple[TableInput]:
    """A device's event: the driver's own, read by the codec, is the table's input."""
    event = build_event(EVENT_TYPES[kind], fields, seq, kind)
    assert not isinstance(event, ev.LinkUp | ev.LinkDown)  # a record of source ``device``
    return (ti.FromDevice(at=at, device=device, seq=seq, event=event),)


def _lost(fields: Mapping[str, Any]) -> int:
    return sum(int(lost["count"]) for lost in fields["lost"])


def _link_up(
    at: int, seq: int | None, device: DeviceKind, fields: Mapping[str, Any]
) -> tuple[TableInput, ...]:
    """A restarted device lost every event it had not had acknowledged, including any the
    host never heard of: the link's count is then only what it knows, and none known means
    not known (None), never zero."""
    up = ti.LinkUp(
        at=at,
        device=device,
        boot=fields["device"]["boot_id"],
        next_seq=fields.get("next_seq"),  # absent from journals written before they were kept
        pending=fields.get("pending"),
        serial=fields["device"].get("serial"),
    )
    lost = _lost(fields)
    if fields["previous_boot_id"] is not None:
        return up, ti.DeviceRestarted(at=at, device=device, lost=lost or None)
    if lost:
        return up, ti.DeviceRestarted(at=at, device=device, lost=lost)
    return (up,)


def _link_down(
    at: int, seq: int | None, device: DeviceKind, fields: Mapping[str, Any]
) -> tuple[TableInput]:
    """The table keeps why the link went down in the driver's words (its ``detail``)."""
    return (ti.LinkDown(at=at, device=device, reason=fields["detail"]),)


_Reader = Callable[[int, int | None, DeviceKind, Mapping[str, Any]], tuple[TableInput, ...]]

#: The link events, whose table inputs say more (or less) than their fields: the table
#: takes a device's kind and boot of a HELLO, and a restart of it.
_OWN_READERS: dict[str, _Reader] = {
    "LinkUp": _link_up,
    "LinkDown": _link_down,
}


#: How the record of each device and link event is read: a device's event, each of
#: ``drivers.events.DeviceEvent``, as itself.
_READERS: dict[str, _Reader] = {
    **{cls.__name__: partial(_device_event, kind=cls.__name__) for cls in get_args(ev.DeviceEvent)},
    **_OWN_READERS,
}


def table_inputs(record: Record, where: str = "a record") -> tuple[TableInput, ...]:
    """The table inputs a journal record stands for (a LinkUp after a restart gives two:
    the link and the restart with the events lost; an ``access`` record none); a device
    event's input carries the device's ``seq`` of it. Raises
    ``JournalError`` naming ``where`` for a record it cannot read."""
    if record.source == ACCESS:
        return ()
    if record.source == TABLE:
        try:
            return (input_from_json(record.fields, journaled=True),)
        except ti.TableInputError as error:
            raise JournalError(f"{where}: {error}") from None
    read = _READERS.get(record.type)
    if record.source not in (DEVICE, LINK) or read is None or record.device is None:
        raise JournalError(f"{where}: {record.source} {record.type} is not a table input")
    try:
        return read(at_of(record.recorded_at), record.seq, record.device.kind, record.fields)
    except (ti.TableInputError, JournalError) as error:
        raise JournalError(f"{where}: {record.type} {record.fields}: {error}") from None
    except (KeyError, ValueError, TypeError) as error:
        raise JournalError(f"{where}: {record.type} {record.fields}: {error!r}") from None
