"""A floor store of its own on a PostgreSQL server, for the tests and the benchmarks:
a database with a unique name, made empty and dropped when the block ends, so that many run
side by side on one server.

``ADMIN`` is the connection string of a role that may create databases (``LUCK_FLOOR_PG``,
default ``postgresql://postgres@127.0.0.1:5432/postgres``). It needs only psycopg, so
the benchmarks (without pytest) use it too.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator

import psycopg
from psycopg import sql
from psycopg.conninfo import make_conninfo

ADMIN = os.environ.get("LUCK_FLOOR_PG", "postgresql://postgres@127.0.0.1:5432/postgres")


def admin(dsn: str = ADMIN) -> psycopg.Connection:
    """A connection to the server as the role that makes the databases (psycopg's
    OperationalError when there is no server)."""
    return psycopg.connect(dsn, autocommit=True, connect_timeout=5)


@contextlib.contextmanager
def scratch_database(prefix: str = "luck_floor_scratch", dsn: str = ADMIN) -> Iterator[str]:
    """The connection string of a new, empty database named ``PREFIX_...``, dropped when the
    block ends."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with admin(dsn) as connection:
        connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield make_conninfo(dsn, dbname=name)
    finally:
        with admin(dsn) as connection:
            connection.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )
