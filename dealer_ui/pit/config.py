"""The floor service's configuration: one TOML file, checked as the table's is.

Sections (see ``deploy/floor.example.toml`` and docs/floor.md):

- ``[floor]``: ``dsn``, the floor store's PostgreSQL connection string (libpq keywords or a
  URI); ``poll``, seconds between the service's looks at the store for the live page
  (default 1, 0.1..60); ``listen``, look sooner when the store NOTIFYs a batch (default
  true; false for a read replica, where no notification comes); ``statement_timeout``,
  seconds a query of the store may take before it is given up and the store reported
  unavailable (default 5, 0.1..600); ``silent_after``, seconds without a batch or a
  heartbeat after which a table is shown silent (default 30, 1..3600), by the database's
  clock; ``pool_size``, the most connections the service's requests read the store on at
  once (a pool, default 8, 1..100; the live feed has its own two); the house's gaming
  day: ``gaming_day_starts``, the hour it begins (0..23, default 6) in ``time_zone`` (an
  IANA name, default "UTC"); ``cash_log_threshold``, the chips of cash buy-ins in a gaming
  day over which an identified player is flagged for the multiple-transaction log
  (default 3000, 1 or more).
- ``[api]``: ``bind``, ``port`` (default 8090), ``tls_cert`` and ``tls_key`` (both or
  neither), as the table's ``[api]``.
- ``[consoles]`` (optional): ``TABLE_ID = "https://host:port"``, each table's own console,
  linked from the pit page (its ``/surveillance`` page).
- ``[[credentials.supervisors]]``: ``id`` and ``pin_hash`` (Argon2, ``luck-table
  hash-pin``), as the table's: who may sign in to the pit view.

``load_floor_config(path)`` returns a :class:`FloorConfig` or raises
``controller.config_file.ConfigError`` naming the key, the value and what is allowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from controller.config_file import (
    Api,
    ConfigError,
    Credential,
    check_dsn,
    no_unknown,
    parse_api,
    parse_credentials,
    read_toml,
    refuse_example_pins,
    seconds,
    section,
)
from controller.floor.queries import GamingDay

DEFAULT_PORT = 8090
_SECTIONS = {"floor", "api", "consoles", "credentials"}


@dataclass(frozen=True)
class FloorConfig:
    dsn: str
    api: Api
    supervisors: tuple[Credential, ...]
    consoles: Mapping[str, str] = field(default_factory=dict)  # table id -> console URL
    poll: float = 1.0
    listen: bool = True
    statement_timeout: float = 5.0
    silent_after: float = 30.0
    pool_size: int = 8
    gaming_day: GamingDay = field(default_factory=GamingDay)
    cash_log_threshold: int = 3000


def load_floor_config(path: str | Path, *, example_pins: bool | None = None) -> FloorConfig:
    """Read and check the floor service's configuration file at ``path`` (the example's
    published PIN refused, as :func:`controller.config.load_config` does)."""
    path = Path(path)
    config = parse_floor_config(read_toml(path), path.parent)
    refuse_example_pins({"supervisors": config.supervisors}, example_pins)
    return config


def parse_floor_config(data: Mapping[str, Any], base: Path) -> FloorConfig:
    no_unknown(data, _SECTIONS, "")
    floor = section(data, "floor", optional=True)
    known = {
        "dsn",
        "poll",
        "listen",
        "statement_timeout",
        "silent_after",
        "pool_size",
        "gaming_day_starts",
        "time_zone",
        "cash_log_threshold",
    }
    no_unknown(floor, known, "floor.")
    dsn = check_dsn(floor["dsn"]) if "dsn" in floor else ""
    poll = floor.get("poll", 1.0)
    if isinstance(poll, bool) or not isinstance(poll, int | float) or not 0.1 <= poll <= 60:
        raise ConfigError("floor.poll", poll, "seconds, 0.1..60")
    timeout = seconds(floor, "floor.statement_timeout", 0.1, 600, 5.0)
    silent_after = seconds(floor, "floor.silent_after", 1, 3600, 30.0)
    pool_size = floor.get("pool_size", 8)
    if isinstance(pool_size, bool) or not isinstance(pool_size, int) or not 1 <= pool_size <= 100:
        raise ConfigError("floor.pool_size", pool_size, "connections, 1..100")
    listen = floor.get("listen", True)
    if not isinstance(listen, bool):
        raise ConfigError("floor.listen", listen, "true or false")
    starts = floor.get("gaming_day_starts", 6)
    if isinstance(starts, bool) or not isinstance(starts, int) or not 0 <= starts <= 23:
        raise ConfigError(
            "floor.gaming_day_starts", starts, "the hour the gaming day begins, 0..23"
        )
    zone = floor.get("time_zone", "UTC")
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError, TypeError):
        raise ConfigError("floor.time_zone", zone, "a time zone's IANA name") from None
    threshold = floor.get("cash_log_threshold", 3000)
    if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 1:
        raise ConfigError("floor.cash_log_threshold", threshold, "chips, 1 or more")
    api = parse_api({"port": DEFAULT_PORT, **section(data, "api", optional=True)}, base)
    consoles = section(data, "consoles", optional=True)
    for table_id, url in consoles.items():
        parts = urlsplit(url) if isinstance(url, str) else None
        if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
            raise ConfigError(f"consoles.{table_id}", url, "the console's http(s)://host:port")
    return FloorConfig(
        dsn=dsn,
        api=api,
        supervisors=parse_credentials(section(data, "credentials"), "supervisors"),
        consoles={key: str(url).rstrip("/") for key, url in consoles.items()},
        poll=float(poll),
        listen=listen,
        statement_timeout=timeout,
        silent_after=silent_after,
        pool_size=pool_size,
        gaming_day=GamingDay(starts, zone),
        cash_log_threshold=threshold,
    )
