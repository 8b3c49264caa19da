"""Recovery: the table is the journal's inputs replayed through the table core.

A journal starts from ``Table(TableSettings())``; the service journals the configured
settings as its first input (``Configure``), so replaying never depends on the
configuration file of the day. :func:`recover` starts from the latest snapshot (taken at a
hand boundary) and replays the inputs after it; :func:`replay` replays from the start,
step by step (``luck-table history``). :mod:`.lagging` reads the journal from a moment on,
for a feed that lags the table (the studio's).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TypedDict

from controller.journal import Entry, Journal
from controller.journal.snapshots import Snapshots
from controller.records import TABLE, table_inputs
from controller.rules import Effect
from controller.table import Step, Table, TableSettings
from controller.table.state import TableJson
from drivers.events import DeviceId
from drivers.protocol import DeviceKind

log = logging.getLogger(__name__)


def initial_table() -> Table:
    """The table every journal starts from."""
    return Table(TableSettings())


@dataclass(frozen=True, slots=True)
class Update:
    """An input was applied: its journal position, the table after it, its effects, and
    the time it was journaled (``at``, seconds since the epoch)."""

    position: int
    table: Table
    effects: tuple[Effect, ...]
    at: float = 0.0


class SnapshotJson(TypedDict):
    """A snapshot as the journal keeps it: the table, and the last boot of each kind of
    device (its serial and boot id) by the kind."""

    table: TableJson
    devices: dict[str, list[str | int]]


@dataclass
class Recovered:
    """The state after the journal's last input (``position``), the last device boot the
    journal holds for each device kind, and how recovery got there."""

    table: Table
    position: int = 0
    devices: dict[DeviceKind, DeviceId] = field(default_factory=dict)
    snapshot: int = 0  # the snapshot's position (0: replayed from the start)
    replayed: int = 0  # inputs replayed after the snapshot
    seconds: float = 0.0

    def state(self) -> SnapshotJson:
        """The snapshot form of this state."""
        return snapshot_state(self.table.to_json(), self.devices)


def snapshot_state(table: TableJson, devices: Mapping[DeviceKind, DeviceId]) -> SnapshotJson:
    """The snapshot form of a table (as :meth:`Table.to_json` writes it) and the last device
    boot of each kind."""
    boots: dict[str, list[str | int]] = {
        kind: [device.serial, device.boot_id] for kind, device in sorted(devices.items())
    }
    return {"table": table, "devices": boots}


def _entry_name(journal: Journal, entry: Entry) -> str:
    return f"journal {journal.path}, position {entry.position}"


def entry_steps(last: Step, entry: Entry, where: str) -> list[Step]:
    """The steps of one journal entry applied after ``last`` (a LinkUp after a device
    restart gives two); ``where`` names the entry in an error."""
    out = []
    for item in table_inputs(entry, where):
        last = last.then(item)
        out.append(last)
    return out


def steps(
    journal: Journal, after: int = 0, table: Table | None = None
) -> Iterator[tuple[Entry, Step]]:
    """Each input after position ``after`` applied in turn: (its entry, the step)."""
    last = Step.of(initial_table() if table is None else table)
    for entry in journal.entries(after):
        for step in entry_steps(last, entry, _entry_name(journal, entry)):
            yield entry, step
            last = step


def from_snapshot(snapshots: Snapshots, at_most: int) -> Recovered:
    """The state of the latest usable snapshot at or before position ``at_most``, or the
    initial table at position 0 when there is none."""
    recovered = Recovered(initial_table())
    snapshot = snapshots.latest(at_most)
    if snapshot is None:
        return recovered
    position, state = snapshot
    try:
        recovered.table = Table.from_json(state["table"])
        recovered.devices = {
            DeviceKind(kind): DeviceId(DeviceKind(kind), serial, boot)
            for kind, (serial, boot) in state["devices"].items()
        }
        recovered.position = recovered.snapshot = position
    except (KeyError, TypeError, ValueError) as error:
        log.warning("snapshot at position %d is not usable (%r): replaying all", position, error)
        return Recovered(initial_table())
    return recovered


def recover(journal: Journal, snapshots: Snapshots) -> Recovered:
    """The state after the journal's last input, from the latest snapshot on."""
    started = time.perf_counter()
    recovered = from_snapshot(snapshots, snapshots.last_position())
    last = Step.of(recovered.table)
    for entry in journal.entries(recovered.position):
        taken = entry_steps(last, entry, _entry_name(journal, entry))
        if taken:
            last = taken[-1]
        if entry.source != TABLE and entry.device is not None:
            recovered.devices[entry.device.kind] = entry.device
        recovered.position = entry.position
        recovered.replayed += 1
    recovered.table = last.table
    recovered.seconds = time.perf_counter() - started
    return recovered
