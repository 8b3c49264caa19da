"""A group of casinos: each floor store replicated to the group's central database with
PostgreSQL's logical replication (docs/floor.md, "A group of casinos").

Each floor publishes its history (:data:`PUBLISHED`: the tables, their hands, chip
movements, seat sessions, alerts, supervisor actions and registered decks) and each table's
live deck by tag (the group's surveillance finds a tag in the live decks of two casinos,
which neither floor sees alone); not its live state nor its bulk (each table's status and
its sessions' confirmed positions, updated at every batch; the journal entries, a row a
card) nor what the central derives itself (the hourly totals, kept by the same trigger at
the central as the hands arrive). The central database has the floor's schema (the same
migrations) and subscribes to each floor's publication: the rows arrive as they commit on
the floor, the hands into the central's own partitions (``publish_via_partition_root``:
the floor's partitions are not the central's; :func:`prepare_central` makes them). A
floor's retention drops partitions, which is no row's deletion: the central keeps its
history for as long as its own retention says.

Table ids are the key across the group: each casino's are its own (a prefix: ``DUB-T01``).

:func:`publish` on each floor (a role that owns the tables); :func:`prepare_central` then
:func:`subscribe` on the central database (a superuser, or a role with
``pg_create_subscription``), which needs ``wal_level = logical`` on each floor's server;
:func:`refresh` after a floor of a newer release published more tables; :func:`subscriptions`
says how each is doing. ``luck-table floor-group`` runs each of them
(:mod:`controller.cli.floor_group_command`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime

import psycopg
from psycopg import sql

from controller.floor import retention

#: The publication's name on each floor.
PUBLICATION = "luck_floor_group"
#: What a floor publishes. (The central's foreign keys are not checked for the rows the
#: subscriptions apply: its ``floor_table_sessions``, not published, stays empty.)
PUBLISHED = (
    "floor_tables",
    "floor_hands",
    "floor_chip_movements",
    "floor_seat_sessions",
    "floor_alerts",
    "floor_supervisor_actions",
    "floor_decks",
    "floor_live_tags",
)


def publish(connection: psycopg.Connection, name: str = PUBLICATION) -> None:
    """The floor's publication ``name`` of :data:`PUBLISHED` (made, or set to them)."""
    tables = sql.SQL(", ").join(sql.Identifier(table) for table in PUBLISHED)
    with connection.transaction():
        found = connection.execute("SELECT 1 FROM pg_publication WHERE pubname = %s", (name,))
        if found.fetchone() is None:
            connection.execute(
                sql.SQL(
                    "CREATE PUBLICATION {} FOR TABLE {} WITH (publish = 'insert, update, delete', "
                    "publish_via_partition_root = true)"
                ).format(sql.Identifier(name), tables)
            )
        else:
            connection.execute(
                sql.SQL("ALTER PUBLICATION {} SET TABLE {}").format(sql.Identifier(name), tables)
            )


def published(connection: psycopg.Connection, name: str = PUBLICATION) -> list[str]:
    """The tables publication ``name`` publishes, by name."""
    rows = connection.execute(
        "SELECT tablename FROM pg_publication_tables WHERE pubname = %s ORDER BY tablename",
        (name,),
    ).fetchall()
    return [row[0] for row in rows]


def prepare_central(central: psycopg.Connection, floor: psycopg.Connection, ahead: int) -> None:
    """Make in the central database the partitions of hands the floor has rows in, and
    those of the coming ``ahead`` days: the replicated hands find their partition made.
    (Run ``luck-table floor-retention --ahead`` on the central database daily, as on a
    floor, for the months to come.) A hand of a month the central has no partition for
    (a table whose clock is months off) stops the floor's subscription, retried and
    nothing lost, until the month is made: this again makes it."""
    ranges = floor.execute(
        "SELECT DISTINCT date_trunc('month', started_at, 'UTC') FROM floor_hands"
    ).fetchall()
    with central.transaction():
        for (month,) in ranges:
            central.execute("SELECT floor_make_partition(%s, %s)", (retention.HANDS, month))
    retention.make_ahead(central, ahead)


def subscribe(
    central: psycopg.Connection,
    floor: psycopg.Connection,
    name: str,
    floor_dsn: str,
    publication: str = PUBLICATION,
) -> None:
    """The central database subscribes (as ``name``: one per casino) to the floor at
    ``floor_dsn`` (``floor``: a connection to it): the floor's rows are copied first, then
    follow as they commit. The floor's replication slot is made first, on ``floor``:
    made by the subscription, it would wait for every transaction of the floor's server to
    end, the subscription's own included when both databases share a server. Both
    connections are in autocommit mode (a subscription is no transaction's)."""
    floor.execute("SELECT pg_create_logical_replication_slot(%s, 'pgoutput')", (name,))
    try:
        central.execute(
            sql.SQL(
                "CREATE SUBSCRIPTION {} CONNECTION {} PUBLICATION {} "
                "WITH (create_slot = false, slot_name = {})"
            ).format(
                sql.Identifier(name),
                sql.Literal(floor_dsn),
                sql.Identifier(publication),
                sql.Literal(name),
            )
        )
    except BaseException:
        # a slot no subscription reads would keep the floor's WAL for ever
        floor.execute("SELECT pg_drop_replication_slot(%s)", (name,))
        raise


def refresh(central: psycopg.Connection, name: str) -> None:
    """The central's subscription ``name`` takes the tables its floor's publication has
    added since (:func:`publish` of a newer release), their rows copied first. ``central``
    is in autocommit mode."""
    central.execute(
        sql.SQL("ALTER SUBSCRIPTION {} REFRESH PUBLICATION").format(sql.Identifier(name))
    )


def unsubscribe(
    central: psycopg.Connection, floor: psycopg.Connection, name: str, timeout: float = 30.0
) -> None:
    """Drop the central's subscription ``name`` and its slots on the floor (``floor``): its
    own, and those of a first copy still under way (``pg_OID_sync_...``: the subscription
    is dropped without its slots, which would keep the floor's WAL for ever)."""
    found = central.execute(
        "SELECT oid FROM pg_subscription WHERE subname = %s"
        " AND subdbid = (SELECT oid FROM pg_database WHERE datname = current_database())",
        (name,),
    ).fetchone()
    copies = "" if found is None else f"pg_{found[0]}_sync_"
    deadline = time.monotonic() + timeout
    if found is not None:
        subscription = sql.Identifier(name)
        central.execute(sql.SQL("ALTER SUBSCRIPTION {} DISABLE").format(subscription))
        central.execute(
            sql.SQL("ALTER SUBSCRIPTION {} SET (slot_name = NONE)").format(subscription)
        )
        # the subscription's workers and the floor's senders gone before the drop: a first
        # copy's slot still being made waits for every transaction of the floor's server,
        # and the drop, which asks the floor to drop that slot, is one when both databases
        # share a server (each would wait for the other)
        while _workers(central, found[0]) or _slots(floor, name, copies, active=True):
            _before(deadline, "the subscription's workers and the floor's senders still run")
        central.execute(sql.SQL("DROP SUBSCRIPTION {}").format(subscription))
    while True:  # the floor's senders of the slots end once the subscription is disabled
        slots = _slots(floor, name, copies)
        for slot, active in slots:
            if not active:
                floor.execute("SELECT pg_drop_replication_slot(%s)", (slot,))
        in_use = [slot for slot, active in slots if active]
        if not in_use:
            return
        _before(deadline, f"the floor's replication slots still in use: {', '.join(in_use)}")


def _workers(central: psycopg.Connection, subscription: int) -> bool:
    """Whether a worker of the central's subscription (its oid) still runs."""
    running = central.execute(
        "SELECT count(*) FROM pg_stat_subscription WHERE subid = %s AND pid IS NOT NULL",
        (subscription,),
    ).fetchone()
    return bool(running and running[0])


def _slots(
    floor: psycopg.Connection, name: str, copies: str, *, active: bool | None = None
) -> list[tuple[str, bool]]:
    """The floor's slots of a subscription: its own (``name``) and its first copies'
    (named from ``copies``), those in use only when ``active``."""
    rows = floor.execute(
        "SELECT slot_name, active FROM pg_replication_slots"
        " WHERE slot_name = %s OR (%s <> '' AND starts_with(slot_name, %s))",
        (name, copies, copies),
    ).fetchall()
    return [(slot, used) for slot, used in rows if active is None or used == active]


def _before(deadline: float, what: str) -> None:
    """Wait a moment to look again, or TimeoutError saying ``what`` past the deadline."""
    if time.monotonic() > deadline:
        raise TimeoutError(what)
    time.sleep(0.1)


@dataclass(frozen=True, slots=True)
class Subscription:
    """How one of the central's subscriptions is doing: ``enabled`` (not disabled by an
    operator), ``running`` (its apply worker is up), ``ready`` of its ``tables`` copied and
    followed, its apply and first-copy errors since the statistics were reset (PostgreSQL's
    ``pg_stat_subscription_stats``), and when it last heard from its floor."""

    name: str
    enabled: bool
    running: bool
    ready: int
    tables: int
    apply_errors: int
    sync_errors: int
    last_message: datetime | None


def subscriptions(central: psycopg.Connection) -> list[Subscription]:
    """The subscriptions of the central database, by name."""
    rows = central.execute(
        "SELECT s.subname, s.subenabled,"
        " EXISTS (SELECT 1 FROM pg_stat_subscription w"
        "         WHERE w.subid = s.oid AND w.relid IS NULL AND w.pid IS NOT NULL),"
        " (SELECT count(*) FROM pg_subscription_rel r"
        "  WHERE r.srsubid = s.oid AND r.srsubstate = 'r'),"
        " (SELECT count(*) FROM pg_subscription_rel r WHERE r.srsubid = s.oid),"
        " coalesce(st.apply_error_count, 0), coalesce(st.sync_error_count, 0),"
        " (SELECT max(w.last_msg_receipt_time) FROM pg_stat_subscription w"
        "  WHERE w.subid = s.oid)"
        " FROM pg_subscription s LEFT JOIN pg_stat_subscription_stats st ON st.subid = s.oid"
        " WHERE s.subdbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
        " ORDER BY s.subname"
    ).fetchall()
    return [Subscription(*row) for row in rows]
