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
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from typing import Any, Protocol

from controller.codec import CodecError
from controller.journal import DeviceId, Input, JournalError
from controller.journal.device_events import DEVICE, LINK
from controller.table import inputs as ti
from controller.table.inputs import TableInput, input_from_json
from drivers import events as ev

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
    def device(self) -> DeviceId | None: ...
    @property
    def seq(self) -> int | None: ...


def at_of(recorded_at: float) -> int:
    """The input time (ms since the epoch) of a record journaled at ``recorded_at`` (s)."""
    return round(recorded_at * 1000)


def record_of(item: TableInput) -> Input:
    """The journal record of a table input (people's inputs and the service's own)."""
    return Input(item.at / 1000, TABLE, item.tag, item.to_json())


@dataclass(frozen=True, slots=True)
class DeviceMessage:
    """How one device message reaches the table core: the driver's event it is journaled as
    (:mod:`drivers.events`, its type the record's ``type``), the table input it stands for,
    and the fields the two name otherwise (``renamed``: the event's name to the input's).

    The conversion is the codec's, both ways: the input takes each journaled field it has
    (by its name here), with the record's time, ``seq`` and device kind; the event takes each
    field of the input back. ``device_only``: the event's fields the table does not act on (a
    read counter, a deck card's index), which the table input does not carry, so that going
    back to the event needs them given (:meth:`event_fields`). ``taken``: which fields the
    table takes of a record (default: all it has), where that depends on their values."""

    event: type[ev.Event]
    item: type[TableInput]
    renamed: Mapping[str, str] = field(default_factory=dict)
    device_only: frozenset[str] = frozenset()
    taken: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None = None

    #: Each journaled field the input takes: the event's name, the input's.
    _taken_as: dict[str, str] = field(init=False, repr=False, compare=False)
    #: The input's fields the record gives beside its fields: ``seq``, ``device``.
    _beside: tuple[bool, bool] = field(init=False, repr=False, compare=False)
    #: The event's journaled fields (all but ``seq``, a column of the record's own), in order.
    _event_fields: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = _names(self.item)
        event_fields = tuple(key for key in _names(self.event) if key != "seq")
        object.__setattr__(self, "_event_fields", event_fields)
        renamed = {key: self.renamed.get(key, key) for key in self._event_fields}
        taken_as = {key: name for key, name in renamed.items() if name in names}
        object.__setattr__(self, "_taken_as", taken_as)
        object.__setattr__(self, "_beside", ("seq" in names, "device" in names))

    def read(
        self, at: int, seq: int | None, device: ti.Device, fields: Mapping[str, Any]
    ) -> tuple[TableInput]:
        """The table input of a record of this message (one, as every reader gives a tuple)."""
        if self.taken is not None:
            fields = self.taken(fields)
        values: dict[str, Any] = {
            name: fields[key] for key, name in self._taken_as.items() if key in fields
        }
        values["at"] = at
        with_seq, with_device = self._beside
        if with_seq:
            values["seq"] = seq
        if with_device:
            values["device"] = device.value
        try:
            item: TableInput = ti.CODEC.build(self.item, values, self.event.__name__)
        except CodecError as error:
            raise ti.TableInputError(str(error)) from None
        return (item,)

    def event_fields(self, item: TableInput, device_only: Mapping[str, Any]) -> dict[str, Any]:
        """The journaled fields of the event ``item`` stands for, with the ``device_only``
        fields given (every one of them; and any the table did not take, as a deck's id)."""
        if not self.device_only.issubset(device_only):
            raise ValueError(
                f"{self.event.__name__}: the device's own fields are {sorted(self.device_only)}"
            )
        back = {name: key for key, name in self.renamed.items()}
        values = {back.get(name, name): value for name, value in item.to_json().items()}
        values.update(device_only)
        return {key: values[key] for key in self._event_fields}


def _names(cls: type[Any]) -> tuple[str, ...]:
    """The names of a dataclass's fields the codec reads and writes, in their order."""
    return tuple(spec.name for spec in dataclass_fields(cls) if spec.compare)


def _deck_taken(fields: Mapping[str, Any]) -> Mapping[str, Any]:
    """A deck the shoe registered card by card names its deck (the registration it closes);
    one from a shoe without registration (protocol version 1, a journal written before it)
    names none, and the table counts its cards only."""
    if fields.get("registered", False):
        return fields
    return {key: value for key, value in fields.items() if key != "deck_id"}


#: Every device message, declared once from the journal to the table core: its event
#: (``drivers.events``, with its wire form in ``drivers.protocol``) and its table input
#: (``controller.table.inputs``, handled in ``controller.table.core``).
DEVICE_MESSAGES: dict[str, DeviceMessage] = {
    message.event.__name__: message
    for message in (
        DeviceMessage(ev.CardRead, ti.CardFromShoe, {"card": "code"}, frozenset({"read_counter"})),
        DeviceMessage(
            ev.CardUnreadable, ti.CardUnreadable, device_only=frozenset({"read_counter"})
        ),
        DeviceMessage(
            ev.DeckCard,
            ti.DeckCard,
            {"deck_id": "deck", "card": "code"},
            frozenset({"index"}),
        ),
        DeviceMessage(
            ev.DeckLoaded,
            ti.DeckLoaded,
            {"deck_id": "deck", "cards_loaded": "count"},
            frozenset({"cards_remaining", "registered"}),
            _deck_taken,
        ),
        DeviceMessage(ev.DeviceFault, ti.DeviceFault, {"code": "fault"}),
        DeviceMessage(ev.DeviceFaultCleared, ti.DeviceFaultCleared, {"code": "fault"}),
        DeviceMessage(ev.SeatOccupied, ti.SeatOccupied),
        DeviceMessage(ev.SeatVacated, ti.SeatVacated),
        DeviceMessage(ev.CardAtSeat, ti.CardAtSeat, {"card": "code"}),
    )
}


#: The same by the table input each stands for.
MESSAGE_OF_INPUT: dict[type[TableInput], DeviceMessage] = {
    message.item: message for message in DEVICE_MESSAGES.values()
}


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


def _link_down(
    at: int, seq: int | None, device: ti.Device, fields: Mapping[str, Any]
) -> tuple[TableInput]:
    """The table keeps why the link went down in the driver's words (its ``detail``)."""
    return (ti.LinkDown(at=at, device=device, reason=fields["detail"]),)


_Reader = Callable[[int, int | None, ti.Device, Mapping[str, Any]], tuple[TableInput, ...]]

#: The link events, whose table inputs say more (or less) than their fields: the table
#: takes a device's kind and boot of a HELLO, and a restart of it.
_OWN_READERS: dict[str, _Reader] = {
    "LinkUp": _link_up,
    "LinkDown": _link_down,
}


#: How the record of each device and link event is read.
_READERS: dict[str, _Reader] = {
    **{kind: message.read for kind, message in DEVICE_MESSAGES.items()},
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
        device = ti.Device(record.device.kind)
        return read(at_of(record.recorded_at), record.seq, device, record.fields)
    except ti.TableInputError as error:
        raise JournalError(f"{where}: {record.type} {record.fields}: {error}") from None
    except (KeyError, ValueError, TypeError) as error:
        raise JournalError(f"{where}: {record.type} {record.fields}: {error!r}") from None
