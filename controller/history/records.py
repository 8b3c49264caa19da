"""Journal records and the table core's inputs.

The journal keeps each device event as the driver reported it (source ``device`` or
``link``, see :mod:`controller.journal.device_events`) and every other input as the table
core's own record (source ``table``: ``item.to_json()``). A refused credential (a failed
sign-in or supervisor PIN) is kept too, as an audit record of source ``access``: it is not
a table input and stands for none. :func:`table_inputs` turns any record into the table
inputs it stands for, the same way live and in recovery, so replaying the journal gives the
same table. The time of a record is the input's ``at``: the service
journals ``at / 1000`` as ``recorded_at`` and reads it back with :func:`at_of`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from controller.journal import Device as JournalDevice
from controller.journal import Input, JournalError
from controller.journal.device_events import DEVICE, LINK
from controller.table import inputs as ti
from controller.table.inputs import TableInput, input_from_json

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
    def device(self) -> JournalDevice | None: ...
    @property
    def seq(self) -> int | None: ...


def at_of(recorded_at: float) -> int:
    """The input time (ms since the epoch) of a record journaled at ``recorded_at`` (s)."""
    return round(recorded_at * 1000)


def record_of(item: TableInput) -> Input:
    """The journal record of a table input (people's inputs and the service's own)."""
    return Input(item.at / 1000, TABLE, item.tag, item.to_json())


def _lost(fields: Mapping[str, Any]) -> int:
    return sum(int(lost["count"]) for lost in fields["lost"])


def _link_up(
    at: int, seq: int | None, device: ti.Device, fields: Mapping[str, Any]
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


def _deck_loaded(
    at: int, seq: int | None, device: ti.Device, fields: Mapping[str, Any]
) -> tuple[TableInput]:
    """A deck the shoe registered card by card names its deck (the registration it closes);
    one from a shoe without registration (protocol version 1, a journal written before it)
    names none, and the table counts its cards only."""
    deck = fields["deck_id"] if fields.get("registered", False) else None
    return (ti.DeckLoaded(at=at, count=fields["cards_loaded"], deck=deck, seq=seq),)


_Mapper = Callable[[int, int | None, ti.Device, Mapping[str, Any]], tuple[TableInput, ...]]

_EVENTS: dict[str, _Mapper] = {
    "LinkUp": _link_up,
    "LinkDown": lambda at, seq, device, f: (ti.LinkDown(at=at, device=device, reason=f["detail"]),),
    "CardRead": lambda at, seq, device, f: (
        ti.CardFromShoe(at=at, seq=seq, code=f["card"], uid=f["uid"]),
    ),
    "CardUnreadable": lambda at, seq, device, f: (
        ti.CardUnreadable(at=at, seq=seq, disposition=ti.Disposition(f["disposition"])),
    ),
    "DeckCard": lambda at, seq, device, f: (
        ti.DeckCard(at=at, seq=seq, deck=f["deck_id"], code=f["card"], uid=f["uid"]),
    ),
    "DeckLoaded": _deck_loaded,
    "DeviceFault": lambda at, seq, device, f: (
        ti.DeviceFault(at=at, seq=seq, device=device, fault=ti.Fault(f["code"])),
    ),
    "DeviceFaultCleared": lambda at, seq, device, f: (
        ti.DeviceFaultCleared(at=at, seq=seq, device=device, fault=ti.Fault(f["code"])),
    ),
    "SeatOccupied": lambda at, seq, device, f: (ti.SeatOccupied(at=at, seq=seq, seat=f["seat"]),),
    "SeatVacated": lambda at, seq, device, f: (ti.SeatVacated(at=at, seq=seq, seat=f["seat"]),),
    "CardAtSeat": lambda at, seq, device, f: (  # no uid in a journal written before seats read one
        ti.CardAtSeat(at=at, seq=seq, seat=f["seat"], code=f["card"], uid=f.get("uid", "")),
    ),
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
    mapper = _EVENTS.get(record.type)
    if record.source not in (DEVICE, LINK) or mapper is None or record.device is None:
        raise JournalError(f"{where}: {record.source} {record.type} is not a table input")
    try:
        device = ti.Device(record.device.kind)
        return mapper(at_of(record.recorded_at), record.seq, device, record.fields)
    except (KeyError, ValueError, TypeError) as error:
        raise JournalError(f"{where}: {record.type} {record.fields}: {error!r}") from None
