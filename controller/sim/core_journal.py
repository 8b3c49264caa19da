"""The journal of a ``--core-only`` run, written exactly as the table service writes its own.

Each device event of the modelled shoe and seat board becomes the driver's event (what the
real device reports, numbered as it numbers it) journaled as the service journals it
(:func:`controller.journal.to_input`); every other input (people's, the ``Tick``, the
``Configure`` of the settings) as the table core's record
(:func:`controller.history.records.record_of`). The table takes each record's table
inputs (:func:`controller.history.records.table_inputs`), as the service does, and at
each hand's end the journal gets a snapshot and the hand its place in the index of hands.
The inputs of a hand are written in one transaction, when it ends (and the rest when the
run ends), by a writer in a process of its own (:mod:`.journal_writer`) while the next hand
is dealt: what makes a month of journal in minutes. The journal then recovers to the table
the run ended with, and replays to the same hands.
"""

from __future__ import annotations

from pathlib import Path

from controller.history.records import TABLE, record_of, table_inputs
from controller.history.recovery import Recovered
from controller.journal import Device as JournalDevice
from controller.journal import Input, JournalError, to_input
from controller.journal.rotation import Rotation
from controller.sim.journal_writer import Hand, JournalWriter
from controller.table import Step, TableInput
from controller.table import inputs as ti
from controller.table.effects import HandOver
from drivers import events as ev
from drivers.protocol import DeviceKind, Disposition

#: The modelled devices' boot id and serial numbers (``CORE-SHOE``, ``CORE-SEAT_BOARD``).
BOOT = 1


class CoreJournal:
    """A new journal at ``path`` (an existing file is refused), written as the run goes;
    ``rotation``: it rotates into segments as the service's does (default: never)."""

    def __init__(self, path: Path, rotation: Rotation | None = None) -> None:
        if path.exists():
            raise JournalError(
                f"journal {path}: the file exists; a run starts a journal of its own"
            )
        self._writer = JournalWriter(path, Rotation(0, 0) if rotation is None else rotation)
        self._pending: list[Input] = []
        self._position = 0  # the position of the last record (written or pending)
        self._devices: dict[str, JournalDevice] = {}
        self._reads = 0  # the shoe's read counter
        self._decks = 0  # the decks loaded without a registration (the id of the last)
        self._registered = 0  # the cards of the registration under way

    def record(self, item: TableInput) -> tuple[TableInput, ...]:
        """Journal ``item`` (pending until its hand ends); the table inputs its record
        stands for, to apply in turn, each then passed to :meth:`applied`."""
        record = self._record_of(item)
        self._pending.append(record)
        self._position += 1
        if record.source != TABLE and record.device is not None:
            self._devices[record.device.kind] = record.device
        return table_inputs(record, f"input {self._position}")

    def applied(self, step: Step) -> None:
        """The table took a step of the last record: at a hand's end, the hand's inputs go
        to the writer (one transaction), with its snapshot (and its place in the index)."""
        if not any(isinstance(effect, HandOver) for effect in step.effects):
            return
        state = Recovered(step.table, self._position, dict(self._devices)).state()
        self._writer.write(Hand(self._pending, self._position, step.table.hand_number, state))
        self._pending = []

    def close(self) -> None:
        """Write what is pending, wait for the writer and close the journal; raises
        :class:`JournalError` if any of it could not be written."""
        try:
            if self._pending:
                self._writer.write(Hand(self._pending, self._position))
                self._pending = []
        finally:
            self._writer.close()

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
        info = ev.DeviceInfo("core", kind, f"CORE-{kind.name}", (1, 0, 0), 1, BOOT)
        return ev.LinkUp(info, "hello", next_seq=item.next_seq, pending=item.pending)

    def _event_of(self, item: TableInput) -> tuple[ev.Event, ti.Device] | None:
        """The driver's event for a device's input, and the device (None: not a device's)."""
        seq = getattr(item, "seq", None)
        shoe, board = ti.Device.SHOE, ti.Device.SEAT_BOARD
        match item:
            case ti.LinkDown(device=device, reason=reason):
                return ev.LinkDown(ev.LinkDownReason.CONNECTION_LOST, reason), device
            case _ if seq is None:
                return None
            case ti.CardFromShoe(code=code, uid=uid):
                self._read()
                return ev.CardRead(seq, code, self._reads, bytes.fromhex(uid)), shoe
            case ti.CardUnreadable(disposition=where):
                self._read()
                return ev.CardUnreadable(seq, self._reads, Disposition[where.name]), shoe
            case ti.DeckCard(deck=deck, code=code, uid=uid):
                self._registered += 1
                card = ev.DeckCard(seq, deck, self._registered - 1, code, bytes.fromhex(uid))
                return card, shoe
            case ti.DeckLoaded(count=count, deck=deck):
                self._registered = 0
                if deck is None:  # a shoe that registers no deck: one id a load
                    self._decks += 1
                    return ev.DeckLoaded(seq, self._decks, count, count), shoe
                return ev.DeckLoaded(seq, deck, count, count, registered=True), shoe
            case ti.SeatOccupied(seat=seat):
                return ev.SeatOccupied(seq, seat), board
            case ti.SeatVacated(seat=seat):
                return ev.SeatVacated(seq, seat), board
            case ti.CardAtSeat(seat=seat, code=code, uid=uid):
                return ev.CardAtSeat(seq, seat, code, bytes.fromhex(uid)), board
        return None

    def _read(self) -> None:
        """The shoe read (or failed to read) the next card of its deck."""
        self._reads = (self._reads + 1) & 0xFFFF_FFFF
