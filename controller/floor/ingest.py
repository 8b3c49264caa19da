"""The floor store's writing side (psycopg 3): a table's shipper registers, ships its
batches, beats its heart; the operator renames tables and binds journals.

:func:`register` (a shipper's first call on a connection: the table and its journal's
session, and the floor's last confirmed position for it), :func:`ingest` (one batch in one
transaction, its statements sent together), :func:`quarantine` (an entry the floor cannot
store, kept aside with its error and the table's alert: shipping goes on after it),
:func:`heartbeat`, :func:`diverged` (a shipper found its journal is not the floor's copy).

Text the floor cannot hold (U+0000, a lone surrogate: a name journaled before the console
refused such text) never stops a batch of facts: in the facts and the status derived from
the journal it is U+FFFD (:func:`storable`); the journal entry holding it is refused by
PostgreSQL and quarantined whole.

A journal is bound to one table id: the floor refuses it under another id
(:class:`FloorRefusedError`), refuses a second journal for a table id that has one, and
refuses entries whose hash chain does not follow the floor's copy
(:class:`FloorDivergedError`); each refusal is also an alert of the table the pit sees
(``kind`` ``journal_refused``, ``second_journal`` or ``journal_diverged``, a negative
``alert_id``). The operator's way past them: :func:`rename_table` and :func:`bind_journal`
(``luck-table floor-bind``).

Every function takes an open ``psycopg.Connection``; :func:`connect` opens one with the
timeouts a shipper needs. Ingest is idempotent: entries at or before the confirmed position
are the floor's already and are skipped (with the facts they gave), and a batch that does
not start right after it is refused with :class:`FloorOrderError`. Each committed batch is
also a NOTIFY on :data:`CHANNEL`. The entries and hands go to partitions by time
(``migrations/0004_partitions.sql``): the ingest makes the one a row needs when there is
none yet.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
import weakref
from collections import Counter
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from enum import StrEnum
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from controller.floor import facts as f
from controller.floor.clock import FloorTime
from controller.floor.clock import of as floor_time
from controller.journal import Entry, Journal, JournalError
from controller.journal.chain import link
from luck_errors import LuckTableError

#: libpq settings of a shipper's connection: give up on a silent floor within seconds.
CONNECT_OPTIONS: dict[str, Any] = {
    "connect_timeout": 5,
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 2,
    "keepalives_count": 3,
    "tcp_user_timeout": 10_000,
    "application_name": "luck-table shipper",
}


#: The channel the floor NOTIFYs on each batch it commits: a JSON payload with the table's
#: ``table_id``, ``session``, ``position`` (confirmed now) and ``state``. A floor service
#: that LISTENs on it learns of every table's changes without polling.
CHANNEL = "floor_changes"


class FloorError(LuckTableError):
    """The floor refuses a batch or a request: the message says why."""


class FloorOrderError(FloorError):
    """A batch that does not follow the floor's confirmed position (a gap or out of order):
    the entry at position ``found`` where the one at ``expected`` was due."""

    def __init__(self, message: str, expected: int, found: int) -> None:
        super().__init__(message)
        self.expected, self.found = expected, found


class FloorRefusal(StrEnum):
    """Why the floor refuses a journal, as data: the kind of the table's alert that says so
    (``FloorRefusedError.kind``)."""

    JOURNAL_REFUSED = "journal_refused"  # the floor holds it under another table id
    SECOND_JOURNAL = "second_journal"  # the table id has another journal
    JOURNAL_DIVERGED = "journal_diverged"  # not the floor's copy (restored from a backup)


class FloorRefusedError(FloorError):
    """The floor refuses the journal (``kind``: why): it holds it under another table id,
    or the table id has another journal. An alert of the table says so too."""

    def __init__(self, message: str, kind: FloorRefusal = FloorRefusal.JOURNAL_REFUSED) -> None:
        super().__init__(message)
        self.kind = kind


class FloorDivergedError(FloorRefusedError):
    """The journal is not the floor's copy any more (a journal restored from a backup): its
    chain does not follow the entries the floor holds. An alert of the table says so too."""

    def __init__(self, message: str, kind: FloorRefusal = FloorRefusal.JOURNAL_DIVERGED) -> None:
        super().__init__(message, kind)


def shipped(journal: Journal, table_id: str, table_name: str) -> f.Journal:
    """What the floor knows ``journal`` by, shipped as table ``table_id``."""
    identity = journal.identity()
    if identity is None:
        raise JournalError(f"journal {journal.path} has no identity yet: its writer gives it one")
    return f.Journal(table_id, table_name, journal.created_at(), journal.path, identity)


def connect(dsn: str, **options: Any) -> psycopg.Connection:
    """A connection to the floor at ``dsn`` with :data:`CONNECT_OPTIONS` (overridable)."""
    return psycopg.connect(dsn, **{**CONNECT_OPTIONS, **options})


# --- writing -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Session:
    """A table's journal on the floor: its session number and confirmed position."""

    table_id: str
    session: int
    confirmed_position: int
    current: bool  # the table's latest journal (its status is this session's)
    chain: bytes | None = None  # the chain at the confirmed position (None: none yet)


@dataclass(frozen=True, slots=True)
class _Refusal:
    """Why the floor refuses a journal, and the table session whose alert says so."""

    table_id: str
    session: int
    position: int
    kind: str  # the alert's: a FloorRefusal, or QUARANTINED (an alert, raised as no error)
    message: str
    remedy: str
    error: type[FloorRefusedError] = FloorRefusedError


def register(connection: psycopg.Connection, journal: f.Journal, shipper: str = "") -> Session:
    """The session of ``journal`` (made when the table id has none) and the floor's
    confirmed position for it; open alerts about the journal are cleared: it ships.

    Raises :class:`FloorRefusedError` (after raising the table's alert) when the floor holds
    the journal under another table id, or another journal for this table id.
    """
    with connection.transaction():
        found = _session(connection, journal, shipper)
        if isinstance(found, Session):
            _clear_alerts(connection, journal.journal_id, found.confirmed_position)
        else:
            _alert(connection, journal, found)
    if isinstance(found, _Refusal):
        raise found.error(f"{found.message}; {found.remedy}", FloorRefusal(found.kind))
    return found


def diverged(connection: psycopg.Connection, journal: f.Journal, at: Session, why: str) -> None:
    """The shipper of ``journal`` found that its journal is not the floor's copy (``why``):
    the table's alert says so. The floor's copy stays as it is."""
    refusal = _Refusal(
        at.table_id,
        at.session,
        at.confirmed_position,
        FloorRefusal.JOURNAL_DIVERGED,
        why,
        _DIVERGED_REMEDY,
        FloorDivergedError,
    )
    with connection.transaction():
        _alert(connection, journal, refusal)


_DIVERGED_REMEDY = (
    "the table deals on and keeps its journal; the floor keeps its own copy apart. If the "
    "table's journal was restored from a backup: luck-table floor-bind --new-journal "
    "(docs/operations.md)"
)


#: The table by its id and name: a row version only when the name changed (each batch
#: names its table; an update that changes nothing would still leave a dead row behind).
_TABLE_NAMED = (
    "INSERT INTO floor_tables (table_id, name) VALUES (%s, %s) "
    "ON CONFLICT (table_id) DO UPDATE SET name = excluded.name "
    "WHERE floor_tables.name IS DISTINCT FROM excluded.name"
)


def _session(
    connection: psycopg.Connection, journal: f.Journal, shipper: str
) -> Session | _Refusal:
    """Within a transaction: the journal's session, locked until the transaction ends, or
    why the floor refuses the journal."""
    held = connection.execute(
        "SELECT table_id, session, confirmed_position, chain, journal_id "
        "FROM floor_table_sessions WHERE journal_id = %s "
        "OR (journal_id IS NULL AND journal_created = %s) "
        "ORDER BY journal_id NULLS LAST, table_id <> %s LIMIT 1 FOR UPDATE",
        (journal.journal_id, journal.created, journal.table_id),
    ).fetchone()
    who = f"journal {journal.journal_id} ({journal.path}, {shipper or 'shipper unknown'})"
    if held is not None and held[0] != journal.table_id:
        return _Refusal(
            held[0],
            held[1],
            held[2],
            FloorRefusal.JOURNAL_REFUSED,
            f"{who} is table {held[0]}'s, but it is shipped as table {journal.table_id}: "
            f"refused (the floor keeps it as table {held[0]})",
            f"if the table was renamed {journal.table_id}: luck-table floor-bind --config FILE "
            f"--renamed-from {held[0]}; if not, give it back its [table] id {held[0]}",
        )
    connection.execute(_TABLE_NAMED, (journal.table_id, journal.table_name))
    current = connection.execute(
        "SELECT session FROM floor_tables WHERE table_id = %s FOR UPDATE", (journal.table_id,)
    ).fetchone()
    assert current is not None
    if held is not None:
        if held[4] is None:  # shipped by an earlier release: its id from now on
            connection.execute(
                "UPDATE floor_table_sessions SET journal_id = %s "
                "WHERE table_id = %s AND session = %s",
                (journal.journal_id, held[0], held[1]),
            )
        return Session(journal.table_id, held[1], held[2], held[1] == current[0], held[3])
    if current[0] > 0:
        other = connection.execute(
            "SELECT coalesce(journal_id, '(of an earlier release)'), journal_path, shipper "
            "FROM floor_table_sessions WHERE table_id = %s AND session = %s",
            (journal.table_id, current[0]),
        ).fetchone()
        assert other is not None
        return _Refusal(
            journal.table_id,
            current[0],
            0,
            FloorRefusal.SECOND_JOURNAL,
            f"{who} is a second journal for table {journal.table_id}: the floor has journal "
            f"{other[0]} ({other[1]}, {other[2] or 'shipper unknown'}) as the table's: refused",
            "two tables configured with one id: give each its own [table] id; a new journal "
            "for this table (a reset): luck-table floor-bind --config FILE --new-journal",
        )
    return _new_session(connection, journal, shipper)


def _new_session(connection: psycopg.Connection, journal: f.Journal, shipper: str) -> Session:
    """A new session for ``journal``, the table's current one."""
    (newest,) = connection.execute(
        "SELECT coalesce(max(session), 0) FROM floor_table_sessions WHERE table_id = %s",
        (journal.table_id,),
    ).fetchone() or (0,)
    session = newest + 1
    connection.execute(
        "INSERT INTO floor_table_sessions (table_id, session, journal_created, journal_path, "
        "shipper, journal_id) VALUES (%s, %s, %s, %s, %s, %s)",
        (journal.table_id, session, journal.created, journal.path, shipper, journal.journal_id),
    )
    connection.execute(
        "UPDATE floor_tables SET session = %s WHERE table_id = %s", (session, journal.table_id)
    )
    return Session(journal.table_id, session, 0, True)


def _alert(connection: psycopg.Connection, journal: f.Journal, refusal: _Refusal) -> None:
    """The refusal as an open alert of the table's session (once while it stays open)."""
    connection.execute(
        "INSERT INTO floor_alerts (table_id, session, alert_id, kind, severity, blocking, "
        "message, remedy, hand_number, raised_at, raised_position, journal_id) "
        "SELECT %s, %s, least(coalesce(min(alert_id), 0), 0) - 1, %s, 'fault', false, %s, %s, "
        "coalesce((SELECT hand_number FROM floor_table_status WHERE table_id = %s), 0), now(), "
        "%s, %s FROM floor_alerts WHERE table_id = %s AND session = %s "
        "HAVING NOT coalesce(bool_or(journal_id = %s AND kind = %s AND cleared_at IS NULL), "
        "false)",
        (
            refusal.table_id,
            refusal.session,
            str(refusal.kind),
            refusal.message,
            refusal.remedy,
            refusal.table_id,
            refusal.position,
            journal.journal_id,
            refusal.table_id,
            refusal.session,
            journal.journal_id,
            str(refusal.kind),
        ),
    )


def _clear_alerts(
    connection: psycopg.Connection, journal_id: str, position: int, how: str = ""
) -> None:
    """Close the floor's open alerts about a journal: it ships (or was rebound). Its
    entries in quarantine stay so, and their alert open."""
    connection.execute(
        "UPDATE floor_alerts SET cleared_at = now(), cleared_position = %s, resolution = %s "
        "WHERE journal_id = %s AND cleared_at IS NULL AND kind <> %s",
        (position, how or "the journal ships", journal_id, QUARANTINED),
    )


def rename_table(
    connection: psycopg.Connection, journal: f.Journal, renamed_from: str, who: str
) -> Session:
    """Table ``renamed_from`` is table ``journal.table_id`` from now on, with its journals,
    hands, alerts and status (the operator's rename: ``luck-table floor-bind``); the
    journal's session. Raises :class:`FloorError` when the floor does not hold the journal
    under ``renamed_from`` or already has a table of the new id."""
    new = journal.table_id
    with connection.transaction():
        held = connection.execute(
            "SELECT table_id FROM floor_table_sessions WHERE journal_id = %s "
            "OR (journal_id IS NULL AND journal_created = %s) FOR UPDATE",
            (journal.journal_id, journal.created),
        ).fetchone()
        if held is None or held[0] != renamed_from:
            where = "does not hold it" if held is None else f"holds it as table {held[0]}"
            raise FloorError(
                f"journal {journal.journal_id} ({journal.path}) is not table {renamed_from}'s "
                f"on the floor (the floor {where}): nothing renamed"
            )
        taken = connection.execute(
            "SELECT count(*) FROM floor_table_sessions WHERE table_id = %s", (new,)
        ).fetchone()
        if taken is not None and taken[0]:
            raise FloorError(
                f"the floor has a table {new} already (its own journals): nothing renamed"
            )
        connection.execute("DELETE FROM floor_tables WHERE table_id = %s", (new,))
        connection.execute(
            "UPDATE floor_tables SET table_id = %s, name = %s WHERE table_id = %s",
            (new, journal.table_name, renamed_from),
        )
        found = _session(connection, journal, who)
        assert isinstance(found, Session)
        _clear_alerts(
            connection,
            journal.journal_id,
            found.confirmed_position,
            f"table {renamed_from} renamed {new} by {who}",
        )
    return found


def held(connection: psycopg.Connection, journal_id: str) -> tuple[str, int] | None:
    """The table id and session the floor holds journal ``journal_id`` as, if it does."""
    row = connection.execute(
        "SELECT table_id, session FROM floor_table_sessions WHERE journal_id = %s", (journal_id,)
    ).fetchone()
    return None if row is None else (row[0], row[1])


def bind_journal(connection: psycopg.Connection, journal: f.Journal, who: str) -> Session:
    """``journal`` is its table's journal from now on (a reset, a replaced journal): a new
    session, the table's current one; the journal the floor held as the table's keeps its
    session (and the floor keeps every entry of it). Raises :class:`FloorError` when the
    floor holds this journal already (give it a new identity first)."""
    with connection.transaction():
        bound = held(connection, journal.journal_id)
        if bound is not None:
            raise FloorError(
                f"the floor holds journal {journal.journal_id} already, as table {bound[0]} "
                f"session {bound[1]}: a journal is bound once"
            )
        connection.execute(_TABLE_NAMED, (journal.table_id, journal.table_name))
        connection.execute(
            "SELECT session FROM floor_tables WHERE table_id = %s FOR UPDATE", (journal.table_id,)
        )
        how = f"journal {journal.journal_id} bound as the table's by {who}"
        connection.execute(
            "UPDATE floor_alerts SET cleared_at = now(), resolution = %s WHERE table_id = %s "
            "AND journal_id IS NOT NULL AND cleared_at IS NULL",
            (how, journal.table_id),
        )
        return _new_session(connection, journal, who)


def heartbeat(connection: psycopg.Connection, session: Session, shipper: str = "") -> None:
    """The table is alive and caught up: its session's ``last_seen`` is now."""
    with connection.transaction():
        connection.execute(
            "UPDATE floor_table_sessions SET last_seen = now(), shipper = %s "
            "WHERE table_id = %s AND session = %s",
            (shipper, session.table_id, session.session),
        )


_ENTRY = (
    "INSERT INTO floor_journal_entries (table_id, session, position, recorded_at, source, type, "
    "fields, device_kind, serial, boot_id, seq, event_number, chain) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)


def ingest(connection: psycopg.Connection, batch: f.Batch) -> int:
    """Apply ``batch`` in one transaction; the floor's confirmed position after it.

    Entries (and their facts) at or before the confirmed position are skipped: the same
    batch twice changes nothing. Raises :class:`FloorOrderError`, applying nothing, when
    the batch's first new entry is not the one right after the confirmed position or its
    positions are not consecutive; :class:`FloorRefusedError` (see :func:`register`) and
    :class:`FloorDivergedError` when an entry's chain does not follow the floor's copy,
    applying nothing but the table's alert.
    """
    if not batch.entries:
        raise FloorError("a batch holds at least one journal entry")
    batch = _storable_facts(batch)
    journal = batch.journal
    clock = floor_time(connection, batch)
    _make_partitions(connection, batch, clock)
    shipping = _SHIPPING.setdefault(connection, {})
    known = shipping.pop(journal.journal_id, None)
    if known is not None and known.follows(batch):
        shipped_on = _ship_on(connection, batch, known.session, clock)
        if shipped_on is not None:
            shipping[journal.journal_id] = _Shipping(journal, shipped_on)
            return shipped_on.confirmed_position
    with connection.transaction():
        found = _session(connection, journal, batch.shipper)
        if isinstance(found, Session):
            new = _new_entries(batch, found)
            found = _chained(found, batch.journal, batch.shipper, new) or found
        if isinstance(found, _Refusal):
            _alert(connection, journal, found)
        elif new:
            last = _ingest(connection, batch, found, new, clock)
    if isinstance(found, _Refusal):
        raise found.error(f"{found.message}; {found.remedy}", FloorRefusal(found.kind))
    if not new:
        return found.confirmed_position
    _notify(connection, found, last, batch.status.state)
    shipping[journal.journal_id] = _Shipping(
        journal, replace(found, confirmed_position=last, chain=new[-1].chain)
    )
    return last


#: The kind of the table's alert about its entries in quarantine.
QUARANTINED = "record_quarantined"
_QUARANTINED_REMEDY = (
    "the table deals on and its journal keeps the entry; the floor ships on after it. The "
    "entry is kept whole in the floor's quarantine (floor_quarantine, docs/floor.md): look "
    "at it there, then clear this alert by hand"
)


def quarantine(
    connection: psycopg.Connection, batch: f.Batch, error: str, *, facts: bool = True
) -> int:
    """Keep the one entry of ``batch``, the one after the floor's confirmed position, in
    quarantine with ``error`` (why the floor cannot store it), raise the table's alert
    (:data:`QUARANTINED`: one open alert, naming how many are kept) and confirm its
    position: shipping goes on with the next entry. The batch's facts and status are
    applied as :func:`ingest` applies them (their text made storable), unless ``facts`` is
    false (they are what the floor cannot store, or there are none: the table core could
    not derive the entry). The confirmed position after it.

    Raises as :func:`ingest` does: :class:`FloorRefusedError`, :class:`FloorOrderError` when
    the entry is not the next, :class:`FloorDivergedError` when its chain does not follow."""
    (entry,) = batch.entries
    journal, shipper = batch.journal, batch.shipper
    batch = _storable_facts(batch)
    clock = floor_time(connection, batch)
    _SHIPPING.get(connection, {}).pop(journal.journal_id, None)
    with connection.transaction():
        found = _session(connection, journal, shipper)
        if isinstance(found, Session):
            if not _new_entries(batch, found):
                return found.confirmed_position  # the floor's already
            found = _chained(found, journal, shipper, [entry]) or found
        if isinstance(found, Session):
            key = (found.table_id, found.session)
            _keep_aside(connection, key, entry, error)
            kept = connection.execute(
                "SELECT count(*) FROM floor_quarantine WHERE table_id = %s AND session = %s", key
            ).fetchone()
            others = 0 if kept is None else kept[0] - 1
            message = (
                f"journal entry {entry.position} ({entry.type}) could not be stored on the "
                f"floor ({storable(error)}): kept in quarantine"
                + (f", with {others} more of this journal" if others else "")
            )
            refusal = _Refusal(*key, entry.position, QUARANTINED, message, _QUARANTINED_REMEDY)
            _alert(connection, journal, refusal)
            connection.execute(
                "UPDATE floor_alerts SET message = %s "
                "WHERE journal_id = %s AND kind = %s AND cleared_at IS NULL",
                (message, journal.journal_id, QUARANTINED),
            )
            applied = batch if facts else replace(batch, facts=())
            held_as = found if facts else replace(found, current=False)
            _ingest(connection, applied, held_as, [], clock)
        else:
            _alert(connection, journal, found)
    if isinstance(found, _Refusal):
        raise found.error(f"{found.message}; {found.remedy}", FloorRefusal(found.kind))
    _notify(connection, found, entry.position, batch.status.state)
    return entry.position


def _keep_aside(
    connection: psycopg.Connection, key: tuple[str, int], entry: Entry, error: str
) -> None:
    """The entry in quarantine: its fields as ASCII JSON (every character escaped, U+0000
    too: PostgreSQL's text holds it and ``json.loads`` gives the fields back exactly)."""
    connection.execute(
        "INSERT INTO floor_quarantine (table_id, session, position, recorded_at, source, type, "
        "record, chain, error) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
        (
            *key,
            entry.position,
            entry.recorded_at,
            storable(entry.source),
            storable(entry.type),
            json.dumps(entry.fields, ensure_ascii=True, sort_keys=True),
            entry.chain,
            storable(error),
        ),
    )


#: What PostgreSQL's text cannot hold: U+0000, and a surrogate (never valid UTF-8 alone).
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def storable(value: Any) -> Any:
    """``value`` (text, or JSON-like lists and objects of it) with every character
    PostgreSQL cannot hold made U+FFFD; the same object when it has none."""
    if isinstance(value, str):
        return _UNSTORABLE.sub("\ufffd", value) if _UNSTORABLE.search(value) else value
    if isinstance(value, dict):
        items = [(storable(key), storable(item)) for key, item in value.items()]
        changed = any(
            k is not key or i is not item
            for (k, i), (key, item) in zip(items, value.items(), strict=True)
        )
        return dict(items) if changed else value
    if isinstance(value, list | tuple):
        kept = [storable(item) for item in value]
        if any(k is not item for k, item in zip(kept, value, strict=True)):
            return type(value)(kept)
        return value
    return value


def _storable_facts(batch: f.Batch) -> f.Batch:
    """The batch with its facts' and status's text storable (its entries as they are)."""
    facts = tuple(_storable_record(fact) for fact in batch.facts)
    status = _storable_record(batch.status)
    if status is batch.status and all(a is b for a, b in zip(facts, batch.facts, strict=True)):
        return batch
    return replace(batch, facts=facts, status=status)


def _escapes_clean(value: Any) -> bool:
    """Whether JSON-like ``value`` surely holds no character :func:`storable` replaces: its
    JSON (every character outside ASCII escaped, at C speed) escapes no U+0000 and no
    surrogate (a character beyond the BMP, escaped as a pair, is looked at the slow way)."""
    text = json.dumps(value)
    return "\\u0000" not in text and "\\ud" not in text


def _storable_record(record: Any) -> Any:
    """A fact (or the status) with its text storable: the same one when it was."""
    changes = {}
    for spec in dataclasses.fields(record):
        value = getattr(record, spec.name)
        if isinstance(value, dict | list | tuple) and _escapes_clean(value):
            continue
        kept = storable(value)
        if kept is not value:
            changes[spec.name] = kept
    return replace(record, **changes) if changes else record


#: SQLSTATE of floor_ship_on(): the session is not where this connection's last batch left it.
_MOVED = "LF001"


@dataclass(frozen=True, slots=True)
class _Shipping:
    """Where a connection's last batch of a journal left the journal's session."""

    journal: f.Journal
    session: Session

    def follows(self, batch: f.Batch) -> bool:
        """Whether ``batch`` is the same journal's (same table id and name) and starts
        right after the session's confirmed position."""
        return (
            batch.journal == self.journal
            and batch.entries[0].position == self.session.confirmed_position + 1
        )


#: Per connection and journal: where the connection's last batch of the journal left its
#: session (forgotten at any failure: the next batch goes the long way). A shipper's
#: connection ships one journal; a pool's ships many.
_SHIPPING: weakref.WeakKeyDictionary[psycopg.Connection, dict[str, _Shipping]] = (
    weakref.WeakKeyDictionary()
)


def _ship_on(
    connection: psycopg.Connection, batch: f.Batch, session: Session, clock: FloorTime
) -> Session | None:
    """A batch that follows the connection's last one of its journal, sent whole (one
    pipeline); the session after it, or None, applying nothing, when it must go the long
    way: the session moved meanwhile (floor_ship_on() says so), or the batch does not
    follow its chain (the long way raises the table's alert)."""
    new = _new_entries(batch, session)
    if _chained(session, batch.journal, batch.shipper, new) is not None:
        return None
    try:
        with connection.pipeline(), connection.transaction():
            connection.execute(
                "SELECT floor_ship_on(%s, %s, %s, %s, %s, %s)",
                (
                    session.table_id,
                    session.session,
                    batch.journal.journal_id,
                    session.confirmed_position,
                    session.chain,
                    session.current,
                ),
            )
            last = _ingest(connection, batch, session, new, clock)
    except psycopg.DatabaseError as error:
        if error.sqlstate != _MOVED:
            raise
        return None
    _notify(connection, session, last, batch.status.state)
    return replace(session, confirmed_position=last, chain=new[-1].chain)


def _notify(connection: psycopg.Connection, session: Session, last: int, state: str) -> None:
    """The batch's NOTIFY on :data:`CHANNEL`, once it is committed, in a transaction of its
    own that does not wait for its WAL flush. PostgreSQL lets one notifying transaction
    commit at a time: a batch that notified would hold every other batch of the floor
    through its own flush (no group commit: the floor's throughput one flush at a time).
    A notification lost in a crash costs the pit nothing but a look's delay."""
    change = {
        "table_id": session.table_id,
        "session": session.session,
        "position": last,
        "state": state,
    }
    with connection.pipeline(), connection.transaction():
        connection.execute("SET LOCAL synchronous_commit = off")
        connection.execute("SELECT pg_notify(%s, %s)", (CHANNEL, json.dumps(change)))


#: Per connection: the UTC days (of this host's clock) whose entries' partitions, and the
#: months whose hands' partitions, it found made. A new connection (after any failure)
#: looks again.
_MADE: weakref.WeakKeyDictionary[psycopg.Connection, set[tuple[str, date]]] = (
    weakref.WeakKeyDictionary()
)


def _make_partitions(connection: psycopg.Connection, batch: f.Batch, clock: FloorTime) -> None:
    """The partitions the batch's rows go to, made when there are none yet: the entries'
    of this day (the floor's clock; the next day's too, so that a host clock behind the
    floor's by less than a day finds it made) and the hands' of each month a hand of the
    batch started in (on the floor's clock: :mod:`.clock`). Looked at once per connection
    and day or month.
    In a transaction of its own, before the batch's: a partition made holds its tables'
    locks until it commits, which must not wait on (or keep waiting) a batch's row locks."""
    made = _MADE.setdefault(connection, set())
    today = ("day", datetime.now(UTC).date())
    months = {
        ("month", started.date().replace(day=1)): started
        for fact in batch.facts
        if isinstance(fact, f.HandStarted)
        and (started := clock.at(fact.at, fact.position)) is not None
    }
    wanted = {key: at for key, at in months.items() if key not in made}
    if today in made and not wanted:
        return
    with connection.transaction():
        connection.execute(
            "SELECT floor_make_partition('floor_journal_entries', now()), "
            "floor_make_partition('floor_journal_entries', now() + interval '1 day'), "
            "count(floor_make_partition('floor_hands', started)) "
            "FROM unnest(%s::timestamptz[]) AS started",
            (list(wanted.values()),),
        )
    made.update({today, *wanted})


def _new_entries(batch: f.Batch, session: Session) -> list[Entry]:
    """The batch's entries after the floor's confirmed position: consecutive from the one
    right after it, or :class:`FloorOrderError`."""
    confirmed = session.confirmed_position
    new = [entry for entry in batch.entries if entry.position > confirmed]
    where = f"table {session.table_id} (journal {batch.journal.path}, session {session.session})"
    if new and new[0].position != confirmed + 1:
        raise FloorOrderError(
            f"{where}: the batch's entries start at position {new[0].position}, but the "
            f"floor holds the journal up to position {confirmed}: expected {confirmed + 1}",
            confirmed + 1,
            new[0].position,
        )
    for before, entry in itertools.pairwise(new):
        if entry.position != before.position + 1:
            raise FloorOrderError(
                f"{where}: the batch jumps from position {before.position} to "
                f"{entry.position}: journal entries are shipped without a gap",
                before.position + 1,
                entry.position,
            )
    return new


def _chained(
    session: Session, journal: f.Journal, shipper: str, new: list[Entry]
) -> _Refusal | None:
    """Why the new entries do not follow the floor's copy by their chain, if they do not."""
    tip = session.chain
    for entry in new:
        if entry.chain is None and tip is None:
            continue  # written before the journal had a chain
        if entry.chain is None or entry.chain != link(tip, entry):
            return _Refusal(
                session.table_id,
                session.session,
                session.confirmed_position,
                FloorRefusal.JOURNAL_DIVERGED,
                f"journal {journal.journal_id} ({journal.path}, {shipper}) is not the floor's "
                f"copy: its entry {entry.position} does not follow the floor's "
                f"{entry.position - 1} (a journal restored from a backup?); refused, the floor "
                "keeps its copy apart",
                _DIVERGED_REMEDY,
                FloorDivergedError,
            )
        tip = entry.chain
    return None


def _ingest(
    connection: psycopg.Connection,
    batch: f.Batch,
    session: Session,
    new: list[Entry],
    clock: FloorTime,
) -> int:
    """Within the transaction of :func:`ingest`: apply the batch's ``new`` entries and
    their facts to ``session`` (its status too, when it is the table's current one), their
    times on the floor's clock (``clock``); the confirmed position after the batch.
    (:func:`quarantine`: no entries, the one kept aside.)"""
    confirmed = session.confirmed_position
    key = (session.table_id, session.session)
    where = f"table {key[0]} (journal {batch.journal.path}, session {key[1]})"
    last = batch.last
    ended: list[tuple[f.HandEnded, psycopg.Cursor[Any]]] = []
    with connection.pipeline(), connection.cursor() as cursor:  # one round trip, not one a row
        if new:
            cursor.executemany(_ENTRY, [(*key, *_entry_row(entry)) for entry in new])
        ordinals: Counter[int] = Counter()
        for fact in batch.facts:
            if fact.position > confirmed:
                ordinal = ordinals[fact.position]
                ordinals[fact.position] += 1
                done = _apply(connection, key, fact, ordinal, clock)
                if isinstance(fact, f.HandEnded) and done is not None:
                    ended.append((fact, done))
        connection.execute(
            "UPDATE floor_table_sessions SET confirmed_position = %s, last_seen = now(), "
            "shipper = %s, chain = %s WHERE table_id = %s AND session = %s",
            (last, batch.shipper, batch.entries[-1].chain, *key),
        )
        if session.current:
            _status(connection, key, batch.status, last, clock)
    for fact, done in ended:
        if done.rowcount != 1:
            raise FloorError(
                f"{where}: hand {fact.number} ends at position {fact.position}, "
                "but the floor has not seen it start"
            )
    return last


def _entry_row(entry: Entry) -> tuple[Any, ...]:
    device = entry.device
    return (
        entry.position,
        entry.recorded_at,
        entry.source,
        entry.type,
        Jsonb(entry.fields),
        None if device is None else device.kind,
        None if device is None else device.serial,
        None if device is None else device.boot_id,
        entry.seq,
        entry.event_number,
        entry.chain,
    )


def _apply(
    connection: psycopg.Connection,
    key: tuple[str, int],
    fact: f.Fact,
    ordinal: int,
    clock: FloorTime,
) -> psycopg.Cursor[Any] | None:
    """Send the statement of ``fact``; the cursor of the hand's end (whose row count tells
    whether the floor had the hand), None for the others."""
    at = clock.at(_stamped(fact), fact.position)
    match fact:
        case f.HandStarted():
            connection.execute(
                "INSERT INTO floor_hands (table_id, session, number, started_at, seats, "
                "start_position) VALUES (%s, %s, %s, %s, %s, %s)",
                (*key, fact.number, at, list(fact.seats), fact.position),
            )
            _house(connection, key, fact)
        case f.HandEnded():
            ended = connection.execute(
                "UPDATE floor_hands SET ended_at = %s, end_position = %s, void = %s, pot = %s, "
                "bonus_cards = %s, recorded = %s, script = %s, outcome = %s "
                "WHERE table_id = %s AND session = %s AND number = %s",
                (
                    at,
                    fact.position,
                    fact.void,
                    fact.pot,
                    fact.bonus_cards,
                    fact.recorded,
                    Jsonb(fact.script),
                    Jsonb(fact.outcome),
                    *key,
                    fact.number,
                ),
            )
            _house(connection, key, fact)
            return ended
        case f.HandInProgress():
            connection.execute(
                "UPDATE floor_hands SET script = %s "
                "WHERE table_id = %s AND session = %s AND number = %s AND ended_at IS NULL",
                (Jsonb(fact.script), *key, fact.number),
            )
        case f.AlertRaised():
            alert = fact.alert
            connection.execute(
                "INSERT INTO floor_alerts (table_id, session, alert_id, kind, severity, "
                "blocking, message, remedy, seat, card, device, hand_number, raised_at, "
                "raised_position) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (
                    *key,
                    alert["id"],
                    alert["kind"],
                    alert["severity"],
                    alert["blocking"],
                    alert["message"],
                    alert["remedy"],
                    alert["seat"],
                    alert["card"],
                    alert["device"],
                    fact.hand_number,
                    at,
                    fact.position,
                ),
            )
        case f.AlertCleared():
            connection.execute(
                "UPDATE floor_alerts SET cleared_at = %s, cleared_position = %s, "
                "resolution = %s, resolved_by = %s, resolved_why = %s, resolved_remedy = %s "
                "WHERE table_id = %s AND session = %s AND alert_id = %s",
                (
                    at,
                    fact.position,
                    fact.how,
                    fact.who,
                    fact.why,
                    fact.remedy,
                    *key,
                    fact.alert_id,
                ),
            )
        case f.DeckRegistered():
            _deck(connection, key, fact, at)
        case f.ChipMovement():
            connection.execute(
                "INSERT INTO floor_chip_movements (table_id, session, position, ordinal, kind, "
                "seat, player, chips, at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (
                    *key,
                    fact.position,
                    ordinal,
                    fact.kind.value,
                    fact.seat,
                    fact.player,
                    fact.chips,
                    at,
                ),
            )
            _seat_session(connection, key, fact, at)
            _house(connection, key, fact, ordinal)
        case f.SeatChanged():
            connection.execute(
                "UPDATE floor_seat_sessions SET seat = %s "
                "WHERE table_id = %s AND session = %s AND seat = %s AND end_position IS NULL",
                (fact.to, *key, fact.seat),
            )
        case f.SupervisorAction():
            connection.execute(
                "INSERT INTO floor_supervisor_actions (table_id, session, position, ordinal, "
                "action, who, why, message, hand_number, details, at) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (
                    *key,
                    fact.position,
                    ordinal,
                    fact.action,
                    fact.who,
                    fact.why,
                    fact.message,
                    fact.hand_number,
                    Jsonb(fact.details),
                    at,
                ),
            )
    return None


def _stamped(fact: f.Fact) -> int | None:
    """The table's time (ms) a fact carries, if any."""
    at = fact.alert["raised_at"] if isinstance(fact, f.AlertRaised) else getattr(fact, "at", None)
    return at if isinstance(at, int) else None


#: The longest pause between two hands of one dealer that is still the dealer's time.
DEALER_BREAK = "interval '10 minutes'"


def _house(
    connection: psycopg.Connection,
    key: tuple[str, int],
    fact: f.HandStarted | f.HandEnded | f.ChipMovement,
    ordinal: int = 0,
) -> None:
    """The house's side of a fact (schema version 10): a hand's dealer and the time charges
    collected as it starts; its
    rake, jackpot drop and dealer's time as it ends; the player card on a sitting's chip
    movement and, at its buy-in, on the sitting. The dealer's time runs from the end of the
    table's hand before when the same dealer dealt it and it ended at most
    :data:`DEALER_BREAK` before this one started, else from this hand's own start
    (docs/floor.md "The house's figures")."""
    match fact:
        case f.HandStarted(dealer=None, time_charge=0):
            pass
        case f.HandStarted():
            connection.execute(
                "UPDATE floor_hands SET dealer = %s, time_charge = %s "
                "WHERE table_id = %s AND session = %s AND number = %s",
                (fact.dealer, fact.time_charge or None, *key, fact.number),
            )
        case f.HandEnded():
            connection.execute(
                "UPDATE floor_hands h SET rake = %s, jackpot_drop = %s, dealt = h.ended_at - "
                "coalesce((SELECT p.ended_at FROM floor_hands p WHERE p.table_id = h.table_id "
                "AND p.session = h.session AND p.number = h.number - 1 "
                "AND p.dealer IS NOT DISTINCT FROM h.dealer "
                f"AND p.ended_at BETWEEN h.started_at - {DEALER_BREAK} AND h.started_at), "
                "h.started_at) WHERE table_id = %s AND session = %s AND number = %s",
                (fact.rake, fact.jackpot_drop, *key, fact.number),
            )
        case f.ChipMovement(player_id=None):
            pass
        case f.ChipMovement():
            connection.execute(
                "UPDATE floor_chip_movements SET player_id = %s WHERE table_id = %s "
                "AND session = %s AND position = %s AND ordinal = %s",
                (fact.player_id, *key, fact.position, ordinal),
            )
            if fact.kind is f.Movement.BUY_IN:
                connection.execute(
                    "UPDATE floor_seat_sessions SET player_id = %s "
                    "WHERE table_id = %s AND session = %s AND start_position = %s",
                    (fact.player_id, *key, fact.position),
                )


def _deck(
    connection: psycopg.Connection,
    key: tuple[str, int],
    fact: f.DeckRegistered,
    at: datetime | None,
) -> None:
    """A deck registered: kept, and the table's live deck from now on (its tags replace
    the tags of the table's deck before)."""
    connection.execute(
        "INSERT INTO floor_decks (table_id, session, position, deck, registered_at, tags) "
        "VALUES (%s, %s, %s, %s, %s, %s)",
        (*key, fact.position, fact.deck, at, Jsonb(fact.tags)),
    )
    connection.execute("DELETE FROM floor_live_tags WHERE table_id = %s", (key[0],))
    connection.execute(
        "INSERT INTO floor_live_tags (table_id, uid, card, session, position) "
        "SELECT %s, tag.uid, tag.card, %s, %s FROM jsonb_each_text(%s) AS tag(card, uid)",
        (key[0], key[1], fact.position, Jsonb(fact.tags)),
    )


def _seat_session(
    connection: psycopg.Connection,
    key: tuple[str, int],
    fact: f.ChipMovement,
    at: datetime | None,
) -> None:
    if fact.kind is f.Movement.BUY_IN:
        connection.execute(
            "INSERT INTO floor_seat_sessions (table_id, session, start_position, seat, player, "
            "sat_down_at, buy_in) VALUES (%s, %s, %s, %s, %s, %s, %s)",
            (*key, fact.position, fact.seat, fact.player, at, fact.chips),
        )
        return
    if fact.kind is f.Movement.REBUY:
        change = "rebuys = rebuys + %s"
        values: tuple[Any, ...] = (fact.chips,)
    else:
        change = "cashed_out = %s, left_at = %s, end_position = %s"
        values = (fact.chips, at, fact.position)
    connection.execute(
        f"UPDATE floor_seat_sessions SET {change} "
        "WHERE table_id = %s AND session = %s AND seat = %s AND end_position IS NULL",
        (*values, *key, fact.seat),
    )


def _status(
    connection: psycopg.Connection,
    key: tuple[str, int],
    status: f.Status,
    last: int,
    clock: FloorTime,
) -> None:
    connection.execute(
        "INSERT INTO floor_table_status (table_id, session, state, hand_number, display, "
        "alert_id, alert_kind, alert_message, open_alerts, seats, last_position, last_entry_at, "
        "hand, tag_checks, deck_hands, deck_since, updated_at) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, now()) "
        "ON CONFLICT (table_id) DO UPDATE SET session = excluded.session, "
        "state = excluded.state, hand_number = excluded.hand_number, "
        "display = excluded.display, alert_id = excluded.alert_id, "
        "alert_kind = excluded.alert_kind, alert_message = excluded.alert_message, "
        "open_alerts = excluded.open_alerts, seats = excluded.seats, "
        "last_position = excluded.last_position, last_entry_at = excluded.last_entry_at, "
        "hand = excluded.hand, tag_checks = excluded.tag_checks, "
        "deck_hands = excluded.deck_hands, deck_since = excluded.deck_since, updated_at = now()",
        (
            *key,
            status.state,
            status.hand_number,
            status.display,
            status.alert_id,
            status.alert_kind,
            status.alert_message,
            status.open_alerts,
            Jsonb(list(status.seats)),
            last,
            clock.at(status.last_entry_at, last),
            None if status.hand is None else Jsonb(status.hand),
            status.tag_checks,
            status.deck_hands,
            clock.at(status.deck_since, last),
        ),
    )
