"""The table service: one live table from the shoe to the pot (see docs/table.md).

``TableService(config)`` runs the drivers, journals every input before applying it to the
table core, drives the shoe's lamps and publishes an :class:`Update` per applied input;
:func:`recover` rebuilds the table from a journal (:mod:`controller.recovery`).
"""

from controller.recovery import Recovered, Update, recover, steps
from controller.recovery.lagging import Recent
from controller.service.service import (
    Guard,
    Halted,
    Paused,
    Stale,
    Subscription,
    TableService,
    TableStopped,
)

__all__ = [
    "Guard",
    "Halted",
    "Paused",
    "Recent",
    "Recovered",
    "Stale",
    "Subscription",
    "TableService",
    "TableStopped",
    "Update",
    "recover",
    "steps",
]
