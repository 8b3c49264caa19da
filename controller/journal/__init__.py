"""The journal: every input, written before it is acted on (see :mod:`.store`)."""

from controller.journal.base import JournalError, JournalLocked, JournalUnwritable
from controller.journal.device_events import event_of, to_input
from controller.journal.store import Entry, Input, Journal

__all__ = [
    "Entry",
    "Input",
    "Journal",
    "JournalError",
    "JournalLocked",
    "JournalUnwritable",
    "event_of",
    "to_input",
]
