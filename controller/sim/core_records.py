"""The journal records of a ``--core-only`` run's table inputs, as the table service
journals them.

Each device event of the modelled shoe and seat board is the driver's event (what the
real device reports, numbered as it numbers it: ``FromDevice``) journaled as the service
journals it (:func:`controller.journal.to_input`); every other input (people's, the ``Tick``, the
``Configure`` of the settings) as the table core's record
(:func:`controller.records.record_of`). Each record is checked to stand for the
very input the table took (:func:`controller.records.table_inputs`, what the
service applies and recovery replays).
"""

from __future__ import annotations

from controller.journal import Input, JournalError, to_input
from controller.records import TABLE, record_of, table_inputs
from controller.table import TableInput
from controller.table import inputs as ti
from drivers import events as ev
from drivers.protocol import DeviceKind

#: The modelled devices' boot id.
BOOT = 1


def core_serial(device: DeviceKind) -> str:
    """The serial number a modelled device reports: ``CORE-SHOE``, ``CORE-SEAT_BOARD``."""
    return f"CORE-{device.name}"


class CoreRecords:
    """The record of each input of a core run, in the run's order."""

    def __init__(self) -> None:
        self._devices: dict[DeviceKind, ev.DeviceId] = {}

    @property
    def devices(self) -> dict[DeviceKind, ev.DeviceId]:
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
        match item:
            case ti.LinkUp():
                return to_input(self._link_up(item), None, at)
            case ti.LinkDown(device=device, reason=reason):
                down = ev.LinkDown(ev.LinkDownReason.CONNECTION_LOST, reason)
                return to_input(down, self._devices[device], at)
            case ti.FromDevice(device=device, seq=seq, event=event) if seq is not None:
                return to_input(event, self._devices[device], at)
        return record_of(item)

    def _link_up(self, item: ti.LinkUp) -> ev.LinkUp:
        serial = core_serial(item.device) if item.serial is None else item.serial
        info = ev.DeviceInfo(item.device, serial, BOOT, "core", (1, 0, 0), 1)
        return ev.LinkUp(info, "hello", next_seq=item.next_seq, pending=item.pending)
