"""The drivers' events as journal inputs, and back.

A sequenced device event (``CardRead``, ``SeatOccupied``, ...) becomes a ``device`` input
keyed by its device (kind, serial, boot id: the last ``LinkUp`` before it) and its ``seq``;
``LinkUp`` and ``LinkDown`` become ``link`` inputs. The fields are the event's own, as JSON:
enumerations by their lower-case name (``jam``, ``reject_tray``), bytes as hex.
"""

from __future__ import annotations

import types
from dataclasses import MISSING, fields, is_dataclass
from enum import Enum, StrEnum
from typing import Any, Union, get_args, get_origin, get_type_hints

from controller.journal.store import Device, Entry, Input, JournalError
from drivers import events as ev

DEVICE = "device"
LINK = "link"

EVENT_TYPES: dict[str, type[ev.Event]] = {
    cls.__name__: cls
    for cls in (
        ev.LinkUp,
        ev.LinkDown,
        ev.CardRead,
        ev.CardUnreadable,
        ev.DeckLoaded,
        ev.DeviceFault,
        ev.DeviceFaultCleared,
        ev.SeatOccupied,
        ev.SeatVacated,
        ev.CardAtSeat,
    )
}


def device_of(info: ev.DeviceInfo) -> Device:
    return Device(info.kind.name.lower(), info.serial, info.boot_id)


def to_input(event: ev.Event, device: Device | None, recorded_at: float) -> Input:
    """The journal input for ``event``; ``device``: the device of the last LinkUp before it."""
    if isinstance(event, ev.LinkUp):
        return Input(recorded_at, LINK, "LinkUp", _fields(event), device_of(event.device))
    if isinstance(event, ev.LinkDown):
        return Input(recorded_at, LINK, "LinkDown", _fields(event), device)
    if device is None:
        raise JournalError(f"{type(event).__name__} seq {event.seq} came before any LinkUp")
    return Input(recorded_at, DEVICE, type(event).__name__, _fields(event), device, event.seq)


def event_of(entry: Entry) -> ev.Event:
    """The driver event an entry of source ``device`` or ``link`` holds."""
    cls = EVENT_TYPES.get(entry.type)
    if cls is None or entry.source not in (DEVICE, LINK):
        raise JournalError(
            f"position {entry.position}: {entry.source} {entry.type} is not a device or link event"
        )
    values = dict(entry.fields)
    if entry.seq is not None:
        values["seq"] = entry.seq
    event: ev.Event = _build(cls, values)
    return event


def _fields(event: ev.Event) -> dict[str, Any]:
    """The event's fields but its ``seq`` (a column of its own) and ``origin`` (the driver's
    tag, not part of the event's value)."""
    return {
        f.name: _encode(getattr(event, f.name))
        for f in fields(event)
        if f.compare and f.name != "seq"
    }


def _encode(value: Any) -> Any:
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, Enum):
        return value.name.lower()
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, tuple):
        return [_encode(item) for item in value]
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encode(getattr(value, f.name)) for f in fields(value) if f.compare}
    return value


def _build(cls: type[Any], values: dict[str, Any]) -> Any:
    """An event of ``cls`` from its fields; a field with a default may be absent (a journal
    written before the field was kept)."""
    hints = get_type_hints(cls)
    return cls(
        **{
            f.name: _decode(hints[f.name], values[f.name])
            for f in fields(cls)
            if f.compare and (f.name in values or f.default is MISSING)
        }
    )


def _decode(hint: Any, value: Any) -> Any:
    if get_origin(hint) in (Union, types.UnionType):
        if value is None:
            return None
        (hint,) = (arg for arg in get_args(hint) if arg is not type(None))
    if hint is bytes:
        return bytes.fromhex(value)
    if get_origin(hint) is tuple:
        items = get_args(hint)
        if items[-1] is Ellipsis:
            return tuple(_decode(items[0], item) for item in value)
        return tuple(_decode(kind, item) for kind, item in zip(items, value, strict=True))
    if isinstance(hint, type) and issubclass(hint, StrEnum):
        return hint(value)
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint[value.upper()]
    if isinstance(hint, type) and is_dataclass(hint):
        return _build(hint, value)
    return value
