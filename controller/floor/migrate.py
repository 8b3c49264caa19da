"""The floor store's schema: plain SQL files in ``migrations/``, applied in order.

``NNNN_name.sql`` is version NNNN. :func:`migrate` applies the versions the database does
not have yet, each recorded in ``floor_schema_migrations`` with its checksum, all in one
transaction under an advisory lock, so any number of tables and floor services may call it
at once: the first applies, the others find the schema there. A version already applied
whose file changed since is refused (:class:`MigrationError`): migrations only ever add.

``python -m controller.floor.migrate DSN`` applies them from a shell. :func:`schema_problem`
tells a reader (the floor service) whether the schema is one it can read.
"""

from __future__ import annotations

import hashlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import psycopg

from controller.config_file import ConfigError, check_dsn
from luck_errors import LuckTableError

FOLDER = Path(__file__).parent / "migrations"
_NAME = re.compile(r"(\d{4})_([a-z0-9_]+)\.sql")
#: The advisory lock that serialises migrations (any fixed number; "FLOOR" in ASCII).
LOCK = 0x464C4F4F52

_LEDGER = """
CREATE TABLE floor_schema_migrations (
    version     integer PRIMARY KEY,
    name        text NOT NULL,
    checksum    text NOT NULL,
    applied_at  timestamptz NOT NULL DEFAULT now()
)
"""


NO_SCHEMA = "no floor schema in this database"


class MigrationError(LuckTableError):
    """The migrations cannot be applied: the message says which and why."""


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


def migrations(folder: Path = FOLDER) -> list[Migration]:
    """The migrations in ``folder``, in order; versions must run 1, 2, 3, ... without a gap."""
    found = []
    for path in sorted(folder.glob("*.sql")):
        match = _NAME.fullmatch(path.name)
        if match is None:
            raise MigrationError(f"{path}: a migration is named NNNN_name.sql")
        found.append(Migration(int(match[1]), match[2], path.read_text(encoding="utf-8")))
    for expected, migration in enumerate(found, start=1):
        if migration.version != expected:
            raise MigrationError(
                f"migration {migration.version:04d}_{migration.name}: expected version {expected}"
            )
    return found


def migrate(connection: psycopg.Connection, folder: Path = FOLDER) -> list[int]:
    """Apply the migrations the database lacks; the versions applied now (none: up to date)."""
    wanted = migrations(folder)
    applied_now: list[int] = []
    with connection.transaction():
        connection.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK,))
        ledger = connection.execute("SELECT to_regclass('floor_schema_migrations')").fetchone()
        if ledger is None or ledger[0] is None:  # no DDL once there: a role without CREATE
            connection.execute(_LEDGER)
        rows = connection.execute("SELECT version, checksum FROM floor_schema_migrations")
        applied: dict[int, str] = dict(rows.fetchall())
        for migration in wanted:
            held = applied.get(migration.version)
            if held is not None:
                if held != migration.checksum:
                    raise MigrationError(
                        f"migration {migration.version:04d}_{migration.name} was applied from "
                        "another text: migrations are never edited once applied, add a new one"
                    )
                continue
            connection.execute(migration.sql.encode())
            connection.execute(
                "INSERT INTO floor_schema_migrations (version, name, checksum) VALUES (%s, %s, %s)",
                (migration.version, migration.name, migration.checksum),
            )
            applied_now.append(migration.version)
    return applied_now


def schema_problem(connection: psycopg.Connection, folder: Path = FOLDER) -> str | None:
    """What keeps this release from reading the floor schema of ``connection``, in words
    (no schema, a version missing, a version applied from another text); None when every
    migration this release knows is there as it knows it. Versions of a newer release are
    fine: migrations only ever add."""
    ledger = connection.execute("SELECT to_regclass('floor_schema_migrations')").fetchone()
    if ledger is None or ledger[0] is None:
        return NO_SCHEMA
    ledger_rows = connection.execute("SELECT version, checksum FROM floor_schema_migrations")
    applied: dict[int, str] = dict(ledger_rows.fetchall())
    wanted = migrations(folder)
    missing = [migration for migration in wanted if migration.version not in applied]
    if missing:
        have = max(applied, default=0)
        names = ", ".join(f"{m.version:04d}_{m.name}" for m in missing)
        return (
            f"the floor schema is at version {have}, this release needs version "
            f"{wanted[-1].version} (missing {names})"
        )
    for migration in wanted:
        if applied[migration.version] != migration.checksum:
            return (
                f"migration {migration.version:04d}_{migration.name} was applied from another "
                "text than this release's: the floor schema is not the one it reads"
            )
    return None


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m controller.floor.migrate DSN", file=sys.stderr)
        return 2
    try:
        dsn = check_dsn(args[0], "DSN")  # a message never shows its password
        with psycopg.connect(dsn, connect_timeout=10) as connection:
            versions = migrate(connection)
    except (ConfigError, psycopg.Error, MigrationError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"applied {', '.join(map(str, versions))}" if versions else "up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
