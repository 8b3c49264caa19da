"""The floor's partitions: made ahead of time, and old ones taken off the floor whole.

The journal entries are kept in one partition a day (the floor's clock), the hands in one a
month (of their start, on the floor's clock) (``migrations/0004_partitions.sql``; each
partition is a row of ``floor_partitions``). :func:`make_ahead` makes the coming days' and
months' partitions, so that the ingest finds them made; :func:`expired` tells which
partitions hold only rows older than what is kept, and :func:`retire` takes one off the
floor: detached without stopping
the floor (``DETACH PARTITION ... CONCURRENTLY``), archived when asked (its rows as a
gzipped CSV file with a header, written and synced before anything is dropped), dropped.
A retirement cut short (a crash, a lost connection) is finished by the next one: the
ledger says which partitions were detached and not yet dropped.

A partition of hands takes its hands out of the hourly totals (``floor_hands_hourly``,
``floor_dealer_hourly``) as it is dropped. Nothing else leaves the floor: the tables, their
journals' sessions, chip movements, seat sessions, alerts and supervisor actions stay (a
few rows a hand, not a row a card).
"""

from __future__ import annotations

import csv
import gzip
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import psycopg
from psycopg import sql

from luck_errors import LuckTableError

ENTRIES = "floor_journal_entries"
HANDS = "floor_hands"


class RetentionError(LuckTableError):
    """A retention the floor refuses (what was asked, and why not)."""


@dataclass(frozen=True, slots=True)
class Partition:
    """A partition of the entries or the hands: rows from ``since`` (None: the beginning)
    up to ``until``; ``detached`` when a retirement detached it and did not finish."""

    name: str
    parent: str
    since: datetime | None
    until: datetime
    detached: bool


@dataclass(frozen=True, slots=True)
class Retired:
    """A partition taken off the floor: its rows, and the file they were archived to."""

    partition: Partition
    rows: int
    archive: Path | None


def partitions(connection: psycopg.Connection) -> list[Partition]:
    """Every partition of the entries and the hands, oldest first."""
    rows = connection.execute(
        "SELECT name, parent, since, until, detached_at IS NOT NULL FROM floor_partitions "
        "ORDER BY parent, until"
    ).fetchall()
    return [Partition(*row) for row in rows]


def make_ahead(connection: psycopg.Connection, days: int) -> list[str]:
    """The partitions of today and the next ``days`` days (entries) and of the months they
    fall in (hands), made when missing; their names."""
    if days < 0:
        raise RetentionError(f"days ahead {days}: 0 or more")
    with connection.transaction():
        rows = connection.execute(
            "SELECT DISTINCT floor_make_partition(parent, now() + make_interval(days => day)) "
            "FROM generate_series(0, %s) AS day, unnest(ARRAY[%s, %s]) AS parent",
            (days, ENTRIES, HANDS),
        ).fetchall()
    return sorted(row[0] for row in rows)


def expired(connection: psycopg.Connection, keep: int, keep_hands: int) -> list[Partition]:
    """The partitions whose every row is older than ``keep`` days (entries) or
    ``keep_hands`` days (hands) by the floor's clock, with those detached and not yet
    dropped."""
    for what, days in (("--keep", keep), ("--keep-hands", keep_hands)):
        if days < 1:
            raise RetentionError(f"{what} {days}: at least 1 day (a hand in progress is kept)")
    rows = connection.execute(
        "SELECT name, parent, since, until, detached_at IS NOT NULL FROM floor_partitions "
        "WHERE detached_at IS NOT NULL "
        "OR until <= now() - make_interval(days => CASE parent WHEN %s THEN %s ELSE %s END) "
        "ORDER BY parent, until",
        (ENTRIES, keep, keep_hands),
    ).fetchall()
    return [Partition(*row) for row in rows]


def retire(connection: psycopg.Connection, partition: Partition, archive: Path | None) -> Retired:
    """Take ``partition`` off the floor: detach it (the floor ingests and answers on
    meanwhile), archive its rows into ``archive`` (a folder) when given, drop it.
    ``connection`` is in autocommit mode (a concurrent detach is no transaction's)."""
    if not connection.autocommit:
        raise RetentionError("a partition is retired on a connection in autocommit mode")
    name = sql.Identifier(partition.name)
    if archive is not None and (archive / f"{partition.name}.csv.gz").exists():
        raise RetentionError(
            f"{archive / partition.name}.csv.gz: an archive of that name is there already: "
            "nothing detached, nothing dropped"
        )
    state = connection.execute(
        "SELECT i.inhdetachpending FROM pg_inherits i "
        "WHERE i.inhrelid = to_regclass(%s) AND i.inhparent = to_regclass(%s)",
        (partition.name, partition.parent),
    ).fetchone()
    if state is not None:
        connection.execute(
            "UPDATE floor_partitions SET detached_at = now() WHERE name = %s", (partition.name,)
        )
        how = sql.SQL("FINALIZE" if state[0] else "CONCURRENTLY")
        connection.execute(
            sql.SQL("ALTER TABLE {} DETACH PARTITION {} {}").format(
                sql.Identifier(partition.parent), name, how
            )
        )
    exists = connection.execute("SELECT to_regclass(%s)", (partition.name,)).fetchone()
    rows, path = 0, None
    if exists is not None and exists[0] is not None:
        if archive is not None:
            rows, path = _archive(connection, partition.name, archive)
        else:
            counted = connection.execute(sql.SQL("SELECT count(*) FROM {}").format(name))
            rows = (counted.fetchone() or (0,))[0]
        with connection.transaction():
            if partition.parent == HANDS:
                _uncount(connection, partition)
            connection.execute(sql.SQL("DROP TABLE {}").format(name))
            connection.execute("DELETE FROM floor_partitions WHERE name = %s", (partition.name,))
    else:
        connection.execute("DELETE FROM floor_partitions WHERE name = %s", (partition.name,))
    return Retired(partition, rows, path)


def _uncount(connection: psycopg.Connection, partition: Partition) -> None:
    """Take the hands of ``partition`` (detached) out of the hourly totals
    (``floor_hands_hourly``), in the transaction that drops it: the totals stay the sums
    of the hands the floor holds."""
    hours = connection.execute(
        sql.SQL(
            "SELECT min(date_trunc('hour', ended_at, 'UTC')), "
            "max(date_trunc('hour', ended_at, 'UTC')) FROM {}"
        ).format(sql.Identifier(partition.name))
    ).fetchone()
    if hours is None or hours[0] is None:
        return
    connection.execute(
        sql.SQL(
            "UPDATE floor_hands_hourly h SET hands = h.hands - gone.hands, "
            "void_hands = h.void_hands - gone.void_hands, "
            "chips_in_pots = h.chips_in_pots - gone.chips_in_pots, "
            "bonus_cards = h.bonus_cards - gone.bonus_cards, rake = h.rake - gone.rake, "
            "jackpot_drop = h.jackpot_drop - gone.jackpot_drop, "
            "time_charge = h.time_charge - gone.time_charge "
            "FROM (SELECT table_id, date_trunc('hour', ended_at, 'UTC') AS hour, "
            "count(*) AS hands, count(*) FILTER (WHERE void) AS void_hands, "
            "coalesce(sum(pot), 0) AS chips_in_pots, "
            "coalesce(sum(bonus_cards), 0) AS bonus_cards, coalesce(sum(rake), 0) AS rake, "
            "coalesce(sum(jackpot_drop), 0) AS jackpot_drop, "
            "coalesce(sum(time_charge), 0) AS time_charge "
            "FROM {} WHERE ended_at IS NOT NULL GROUP BY 1, 2) AS gone "
            "WHERE h.table_id = gone.table_id AND h.hour = gone.hour"
        ).format(sql.Identifier(partition.name))
    )
    connection.execute(
        sql.SQL(
            "UPDATE floor_dealer_hourly d SET hands = d.hands - gone.hands, "
            "void_hands = d.void_hands - gone.void_hands, rake = d.rake - gone.rake, "
            "jackpot_drop = d.jackpot_drop - gone.jackpot_drop, "
            "time_charge = d.time_charge - gone.time_charge, dealt = d.dealt - gone.dealt "
            "FROM (SELECT coalesce(dealer, '') AS dealer, table_id, "
            "date_trunc('hour', ended_at, 'UTC') AS hour, count(*) AS hands, "
            "count(*) FILTER (WHERE void) AS void_hands, coalesce(sum(rake), 0) AS rake, "
            "coalesce(sum(jackpot_drop), 0) AS jackpot_drop, "
            "coalesce(sum(time_charge), 0) AS time_charge, "
            "coalesce(sum(dealt), interval '0') AS dealt "
            "FROM {} WHERE ended_at IS NOT NULL GROUP BY 1, 2, 3) AS gone "
            "WHERE d.dealer = gone.dealer AND d.table_id = gone.table_id AND d.hour = gone.hour"
        ).format(sql.Identifier(partition.name))
    )
    for totals in ("floor_hands_hourly", "floor_dealer_hourly"):
        connection.execute(
            sql.SQL("DELETE FROM {} WHERE hour BETWEEN %s AND %s AND hands <= 0").format(
                sql.Identifier(totals)
            ),
            hours,
        )


def _archive(connection: psycopg.Connection, name: str, folder: Path) -> tuple[int, Path]:
    """The rows of table ``name`` as ``folder/NAME.csv.gz`` (a header line, then the rows
    as PostgreSQL's CSV gives them), synced to disk; their count and the file."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.csv.gz"
    partial = path.with_name(path.name + ".partial")
    query = sql.SQL("COPY (SELECT * FROM {}) TO STDOUT (FORMAT csv, HEADER)").format(
        sql.Identifier(name)
    )
    with partial.open("wb") as raw:
        with (
            gzip.GzipFile(filename=path.name[:-3], mode="wb", fileobj=raw) as out,
            connection.cursor() as cursor,
            cursor.copy(query) as copy,
        ):
            for chunk in copy:
                out.write(chunk)
        raw.flush()
        os.fsync(raw.fileno())
    with gzip.open(partial, "rt", encoding="utf-8", newline="") as written:
        rows = sum(1 for _ in csv.reader(written)) - 1  # the header
    held = connection.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(name)))
    if rows != (held.fetchone() or (0,))[0]:
        raise RetentionError(f"{partial}: not every row of {name} was read back: nothing dropped")
    partial.rename(path)
    directory = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
    return rows, path
