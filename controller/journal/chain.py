"""The journal's hash chain: each entry carries a hash of itself and of the entry before it.

``chain(N) = sha256(chain(N - 1) + the entry at N)``, the entry in one canonical form (its
position, time, source, type, fields, device and sequence numbers as compact JSON with
sorted keys), ``chain(0)`` 32 zero bytes. Two copies of a journal that hold the same chain
at a position hold the same entries up to it; a copy restored from a backup and written on
from an earlier position has another chain from there on. The journal computes it as it
appends (from the last entry's, kept in memory: no read per commit), the floor checks it
as it takes each batch.

Entries written before the chain existed (a journal of an earlier release) have none: the
chain starts at the first entry written after, from 32 zero bytes again.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from controller.journal.store import Entry

#: The chain before the first chained entry.
ORIGIN = bytes(32)


def link(previous: bytes | None, entry: Entry) -> bytes:
    """The chain at ``entry`` after ``previous`` (the chain at the entry before; None: the
    entry before has none)."""
    device = entry.device
    canonical = json.dumps(
        [
            entry.position,
            entry.recorded_at,
            entry.source,
            entry.type,
            entry.fields,
            None if device is None else device.kind,
            None if device is None else device.serial,
            None if device is None else device.boot_id,
            entry.seq,
            entry.event_number,
        ],
        separators=(",", ":"),
        sort_keys=True,
    )
    return hashlib.sha256((previous or ORIGIN) + canonical.encode()).digest()
