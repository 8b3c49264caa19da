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
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from controller.journal.store import Entry

#: The chain before the first chained entry.
ORIGIN = bytes(32)

#: The canonical form's JSON (made once: ``json.dumps`` with options makes an encoder a call).
_CANONICAL = json.JSONEncoder(separators=(",", ":"), sort_keys=True)


def stored(fields: Any) -> str:
    """An entry's fields as the journal stores them, and as its chain hashes them: compact
    JSON, keys sorted."""
    return _CANONICAL.encode(fields)


def link(previous: bytes | None, entry: Entry, fields: str | None = None) -> bytes:
    """The chain at ``entry`` after ``previous`` (the chain at the entry before; None: the
    entry before has none); ``fields``: the entry's fields as stored (``stored(entry.fields)``),
    when the caller has them already."""
    device = entry.device
    return linked(
        previous,
        (entry.position, entry.recorded_at, entry.source, entry.type),
        stored(entry.fields) if fields is None else fields,
        (
            None if device is None else device.kind,
            None if device is None else device.serial,
            None if device is None else device.boot_id,
            entry.seq,
            entry.event_number,
        ),
    )


def linked(previous: bytes | None, head: Sequence[Any], fields: str, tail: Sequence[Any]) -> bytes:
    """The chain after ``previous`` at the entry of ``head`` (position, time, source, type),
    ``fields`` (as stored) and ``tail`` (device kind, serial, boot id, sequence number, event
    number): its canonical form is the JSON list of the ten, compact, keys sorted; the
    fields, stored so already, go in as they are (not parsed and written again)."""
    canonical = ",".join([*map(_scalar, head), fields, *map(_scalar, tail)])
    return hashlib.sha256((previous or ORIGIN) + f"[{canonical}]".encode()).digest()


def _scalar(value: Any) -> str:
    """One value of the head or the tail as the canonical JSON writes it: a whole number
    and a finite float as their ``repr`` (what the encoder writes for them), nothing as
    ``null``, anything else (text, through the encoder's own quick path) by the encoder."""
    kind = type(value)
    if kind is int:
        return int.__repr__(value)
    if kind is float and math.isfinite(value):
        return float.__repr__(value)
    if value is None:
        return "null"
    return _CANONICAL.encode(value)
