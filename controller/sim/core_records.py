"""The journal records of a ``--core-only`` run's table inputs, as the table service
journals them.

Each device event of the modelled shoe and seat board becomes the driver's event (what the
real device reports, numbered as it numbers it) journaled as the service journals it
(:func:`controller.journal.to_input`); every other input (people's, the ``Tick``, the
``Configure`` of the settings) as the table core's record
(:func:`controller.records.record_of`). Each record is checked to stand for the
very input the table took (:func:`controller.records.table_inputs`, what the
service applies and recovery replays).
"""

from __future__ import annotations

from controller.journal import DeviceId, Input, JournalError, to_input
from controller.journal.device_events import build_event
from controller.records import MESSAGE_OF_INPUT, TABLE, record_of, table_inputs
from controller.table import TableInput
from controller.table import inputs as ti
from drivers import events as ev
from drivers.protocol import DeviceKind

#: The modelled devices' boot id.
BOOT = 1
#: The device events a core run models, each with the device that reports it (the sim
#: raises no device fault: a fault would be journaled as the table's record).
_MODELLED: dict[type[TableInput], ti.Device] = {
    ti.CardFromShoe: ti.Device.SHOE,
    ti.CardUnreadable: ti.Device.SHOE,
    ti.DeckCard: ti.Device.SHOE,
    ti.SeatOccupied: ti.Device.SEAT_BOARD,
    ti.SeatVacated: ti.Device.SEAT_BOARD,
    ti.CardAtSeat: ti.Device.SEAT_BOARD,
}


def core_serial(device: ti.Device) -> str:
    """The serial number a modelled device reports: ``CORE-SHOE``, ``CORE-SEAT_BOARD``."""
    return f"CORE-{DeviceKind[device.name].name}"


class CoreRecords:
    """The record of each input of a core run, in the run's order (the modelled devices'
    counters go on from one to the next)."""

    def __init__(self) -> None:
        self._devices: dict[str, DeviceId] = {}
        self._reads = 0  # the shoe's read counter
        self._decks = 0  # the decks loaded without a registration (the id of the last)
        self._registered = 0  # the cards of the registration under way

    @property
    def devices(self) -> dict[str, DeviceId]:
        """The device of each kind's last ``LinkUp`` so far."""
        return dict(self._devices)

    def record(self, item: TableInput, where: str) -> Input:
        """The journal record of ``item``; raises :class:`JournalError` naming ``where``
        when the record would stand for other table inputs than ``item`` alone."""
        record = self._record_of(item)
        if record.source != TABLE and record.device is not None:
            self._devices[record.device.kind] = record.device
        taken = table_inputs(record, where)
        if taken != (item,):
            raise JournalError(f"{where}: its record stands for {taken!r}, not {item!r}")
        return record

    def _record_of(self, item: TableInput) -> Input:
        at = item.at / 1000
        if isinstance(item, ti.LinkUp):
            return to_input(self._link_up(item), None, at)
        made = self._event_of(item)
        if made is None:
            return record_of(item)
        event, device = made
        return to_input(event, self._devices[device.value], at)

    def _link_up(self, item: ti.LinkUp) -> ev.LinkUp:
        kind = DeviceKind[item.device.name]
        serial = core_serial(item.device) if item.serial is None else item.serial
        info = ev.DeviceInfo("core", kind, serial, (1, 0, 0), 1, BOOT)
        return ev.LinkUp(info, "hello", next_seq=item.next_seq, pending=item.pending)

    def _event_of(self, item: TableInput) -> tuple[ev.Event, ti.Device] | None:
        """The driver's event for a device's input, and the device (None: not a device's)."""
        seq = getattr(item, "seq", None)
        match item:
            case ti.LinkDown(device=device, reason=reason):
                return ev.LinkDown(ev.LinkDownReason.CONNECTION_LOST, reason), device
            case _ if seq is None:
                return None
            case ti.DeckLoaded(count=count, deck=deck):
                self._registered = 0
                if deck is None:  # a shoe that registers no deck: one id a load
                    self._decks += 1
                    return ev.DeckLoaded(seq, self._decks, count, count), ti.Device.SHOE
                return ev.DeckLoaded(seq, deck, count, count, registered=True), ti.Device.SHOE
        reporter = _MODELLED.get(type(item))
        if reporter is None:
            return None
        message = MESSAGE_OF_INPUT[type(item)]
        fields = message.event_fields(item, self._device_only(item))
        return build_event(message.event, fields, seq, type(item).__name__), reporter

    def _device_only(self, item: TableInput) -> dict[str, int]:
        """What the modelled device says of an event beside what the table takes of it: the
        shoe's read counter, a deck card's place in its registration."""
        if isinstance(item, ti.CardFromShoe | ti.CardUnreadable):
            self._read()
            return {"read_counter": self._reads}
        if isinstance(item, ti.DeckCard):
            self._registered += 1
            return {"index": self._registered - 1}
        return {}

    def _read(self) -> None:
        """The shoe read (or failed to read) the next card of its deck."""
        self._reads = (self._reads + 1) & 0xFFFF_FFFF
