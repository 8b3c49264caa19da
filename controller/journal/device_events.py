"""The drivers' events as journal inputs, and back.

A sequenced device event (``CardRead``, ``SeatOccupied``, ...) becomes a ``device`` input
keyed by its device (``drivers.events.DeviceId``: the last ``LinkUp``'s) and its ``seq``;
``LinkUp`` and ``LinkDown`` become ``link`` inputs. The fields are the event's own, as JSON:
enumerations by their lower-case name (``jam``, ``reject_tray``), bytes as hex
(``controller.codec``). A field an event gained later (a seat's tag ``uid``, a deck's
``registered``) takes its default when a journal written before it is read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, get_args

from controller.codec import Codec, CodecError
from controller.journal.base import JournalError
from controller.journal.store import Entry, Input
from drivers import events as ev

DEVICE = "device"
LINK = "link"
CODEC = Codec()

#: The drivers' events by name, the ``type`` of their records: every event of
#: ``drivers.events.Event``, so that a new event is journaled with nothing added here.
EVENT_TYPES: dict[str, type[ev.Event]] = {cls.__name__: cls for cls in get_args(ev.Event)}


def to_input(event: ev.Event, device: ev.DeviceId | None, recorded_at: float) -> Input:
    """The journal input for ``event``; ``device``: the device of the last LinkUp before it."""
    if isinstance(event, ev.LinkUp):
        return Input(recorded_at, LINK, "LinkUp", _fields(event), event.device.id)
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
    return build_event(cls, entry.fields, entry.seq, f"position {entry.position}: {entry.type}")


def build_event(
    cls: type[ev.Event], fields: Mapping[str, Any], seq: int | None, where: str
) -> ev.Event:
    """The event of type ``cls`` of a record's fields and ``seq`` (None: a link event's);
    raises :class:`JournalError` naming ``where`` for fields that do not fit it."""
    values = dict(fields)
    if seq is not None:
        values["seq"] = seq
    try:
        event: ev.Event = CODEC.build(cls, values, where)
    except CodecError as error:
        raise JournalError(str(error)) from None
    return event


def _fields(event: ev.Event) -> dict[str, Any]:
    """The event's fields but its ``seq`` (a column of its own) and ``origin`` (the driver's
    tag, not part of the event's value)."""
    return CODEC.fields(event, leave=frozenset({"seq"}))
