"""The table's configuration: one TOML file, read with the standard library's ``tomllib``.

``load_config(path)`` returns a ``Config`` or raises ``ConfigError`` naming the key, the
value and what is allowed (the CLI turns it into exit status 2). Sections (see
``deploy/table.example.toml`` and docs/table.md):

- ``[table]``: ``id``, ``name``, ``player_decisions`` (players may decide on their own
  screens; default false: the dealer enters every decision).
- ``[game]``: every ``Rules`` field (``variant``, ``ante``, ``bring_in``, ``small_bet``,
  ``big_bet``, ...); a field left out takes its default.
- ``[stakes]``: ``min_buy_in``, ``max_buy_in``.
- ``[devices.shoe]`` and, if the table has one, ``[devices.seat_board]``: ``transport``
  (``serial`` with ``port`` and ``baud``, or ``usb`` with ``vendor_id``, ``product_id``
  and optionally ``serial_number``), ``enabled`` (seat board only), and a ``link`` table
  of link timings (``drivers.session.LinkConfig``).
- ``[journal]``: ``path``.
- ``[api]``: ``bind``, ``port``, ``tls_cert`` and ``tls_key`` (both or neither), and what
  the console lets in: ``trusted_proxies``, ``allowed_hosts``, ``allowed_origins``,
  ``max_body``, ``max_header``, ``request_timeout``, ``max_connections``,
  ``max_websockets``, ``docs`` (:class:`Api`, docs/security.md).
- ``[console]`` (optional): ``idle_lock``, the seconds without a touch or a key after
  which the dealer's console locks until the dealer enters the PIN again (default 300).
- ``[floor]`` (optional; without it the table ships nothing): ``dsn``, the floor store's
  PostgreSQL connection string, and ``batch``, ``retry_initial``, ``retry_max``,
  ``heartbeat`` (docs/floor.md).
- ``[[credentials.supervisors]]`` and ``[[credentials.dealers]]``: ``id`` and ``pin_hash``,
  an Argon2 hash made by ``hash_pin`` (``luck-table hash-pin``); plain
  PINs are refused.

Relative paths are relative to the folder of the configuration file. The file is UTF-8
text (anything else is refused naming the byte's offset). The PIN hashes published in the
example configurations (:data:`EXAMPLE_PIN_HASHES`) are refused: anyone may know their PINs.
For a demonstration or a test only, ``LUCK_TABLE_EXAMPLE_PINS=accept`` in the environment
accepts them (with a warning).
"""

from __future__ import annotations

import ipaddress
import logging
import os
import re
import sys
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from argon2 import PasswordHasher, extract_parameters
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from psycopg import ProgrammingError
from psycopg.conninfo import conninfo_to_dict

from controller.errors import LuckTableError
from controller.rules import Rules, RulesError
from controller.table import TableSettings
from drivers.errors import DriverError
from drivers.session import LinkConfig

log = logging.getLogger(__name__)

_HASHER = PasswordHasher()
ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_HOSTNAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*")
_NUMERIC = re.compile(r"[0-9.]+")
_MIN_PIN = 4

_SECTIONS = {
    "table",
    "game",
    "stakes",
    "devices",
    "journal",
    "api",
    "console",
    "credentials",
    "floor",
}

#: The PIN hashes published in deploy/table.example.toml and deploy/floor.example.toml, each
#: with its PIN: anyone may know them, so a configuration that holds one is refused.
EXAMPLE_PIN_HASHES = {
    "$argon2id$v=19$m=65536,t=3,p=4$jtot7XjfFfNDxOK2H+VWAA$"
    "5LL4dRdVzAmQptPIXMshIVeo2mqi2YVaEIGGmxSumyg": "1234",
    "$argon2id$v=19$m=65536,t=3,p=4$iD1udtPnvrI/pi/ZX+tVYA$"
    "L1VZgYaq7r1Y7ur9TlEtZoD9YfbZSZQDy6gh/NxyzAI": "5678",
    "$argon2id$v=19$m=65536,t=3,p=4$1WNnB97CbwyTvQxO1UvUIg$"
    "14nnwL/wnuqU/h2WeMxORkOpziOvgxuX6GL+tBSAyrE": "9999",
}
#: ``accept`` in this environment variable accepts the example PINs: demonstrations, tests.
EXAMPLE_PINS_ENV = "LUCK_TABLE_EXAMPLE_PINS"


class ConfigError(LuckTableError, ValueError):
    """A configuration value that is missing, unknown or not allowed."""

    def __init__(self, key: str, value: object, allowed: str) -> None:
        shown = "(missing)" if value is _MISSING else repr(value)
        super().__init__(f"{key} = {shown}: {allowed}")
        self.key, self.value, self.allowed = key, value, allowed


_MISSING = object()


@dataclass(frozen=True)
class DevicePort:
    """Where a device is and how to talk to it: ``url`` as the drivers name a port (a
    device path, a pyserial URL such as ``socket://host:port``, ``usb://VID:PID?serial=S``),
    ``baud`` for a serial line, the link's timings."""

    url: str
    baud: int = 115200
    link: LinkConfig = field(default_factory=LinkConfig)

    @property
    def serial(self) -> bool:
        """A serial line (a path or a pyserial URL), not a USB device."""
        return not self.url.lower().startswith("usb://")


@dataclass(frozen=True)
class Api:
    """Where the console (or the floor service) listens, and what it lets in
    (docs/security.md): forwarded headers only from ``trusted_proxies`` (addresses or
    networks); ``Host`` headers naming the address connected to, ``localhost``, this
    machine's name, or one of ``allowed_hosts``; browser ``Origin`` headers of the page's
    own origin or one of ``allowed_origins``; request bodies up to ``max_body`` bytes and
    headers up to ``max_header`` bytes, a request's headers and body within
    ``request_timeout`` seconds; per client address at most ``max_connections`` open
    connections and ``max_websockets`` feeds; ``docs``: serve ``/docs`` (Swagger UI, from
    its CDN)."""

    bind: str = "127.0.0.1"
    port: int = 8080
    tls_cert: Path | None = None
    tls_key: Path | None = None
    trusted_proxies: tuple[str, ...] = ()
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    max_body: int = 64 * 1024
    max_header: int = 16 * 1024
    request_timeout: float = 30.0
    max_connections: int = 32
    max_websockets: int = 8
    docs: bool = False


@dataclass(frozen=True)
class Console:
    """The dealer's console: ``idle_lock``, the seconds of quiet (no touch, no key) after
    which the screen locks until the signed-in dealer enters the PIN again."""

    idle_lock: float = 300.0


@dataclass(frozen=True)
class FloorSettings:
    """Where the floor store is and how the table's journal shipper talks to it: ``dsn``
    (libpq connection string or URI), journal entries per batch, the retry backoff
    (seconds, doubling from ``retry_initial`` up to ``retry_max``, with jitter), and how
    often an idle table tells the floor it is alive (``heartbeat``, seconds)."""

    dsn: str
    batch: int = 500
    retry_initial: float = 0.5
    retry_max: float = 30.0
    heartbeat: float = 5.0


@dataclass(frozen=True)
class Credential:
    """A person allowed to sign in: ``id`` and the Argon2 hash of their PIN."""

    id: str
    pin_hash: str

    def verify(self, pin: str) -> bool:
        return verify_pin(self.pin_hash, pin)


@dataclass(frozen=True)
class Config:
    table_id: str
    table_name: str
    settings: TableSettings
    shoe: DevicePort
    seat_board: DevicePort | None
    journal: Path
    api: Api
    supervisors: tuple[Credential, ...]
    dealers: tuple[Credential, ...]
    floor: FloorSettings | None = None  # None: the table ships to no floor
    console: Console = Console()


def hash_pin(pin: str) -> str:
    """The Argon2id hash of a PIN, to store in the configuration."""
    if len(pin) < _MIN_PIN:
        raise ValueError(f"a PIN needs at least {_MIN_PIN} characters")
    return _HASHER.hash(pin)


def verify_pin(pin_hash: str, pin: str) -> bool:
    try:
        return _HASHER.verify(pin_hash, pin)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def load_config(path: str | Path, *, example_pins: bool | None = None) -> Config:
    """Read and check the configuration file at ``path``. ``example_pins`` accepts the
    example configurations' published PINs (default: :data:`EXAMPLE_PINS_ENV` says)."""
    path = Path(path)
    config = parse_config(read_toml(path), path.parent)
    refuse_example_pins(
        {"supervisors": config.supervisors, "dealers": config.dealers}, example_pins
    )
    return config


def refuse_example_pins(
    roles: Mapping[str, Sequence[Credential]], accept: bool | None = None
) -> None:
    """ConfigError naming the first credential whose hash is one the example
    configurations publish, unless ``accept`` (default: :data:`EXAMPLE_PINS_ENV` is
    ``accept``), which only warns."""
    if accept is None:
        accept = os.environ.get(EXAMPLE_PINS_ENV) == "accept"
    for role, credentials in roles.items():
        for number, credential in enumerate(credentials):
            pin = EXAMPLE_PIN_HASHES.get(credential.pin_hash)
            if pin is None:
                continue
            key = f"credentials.{role}[{number}].pin_hash"
            if accept:
                log.warning(
                    "%s: the example's PIN %s, accepted (%s=accept)", key, pin, EXAMPLE_PINS_ENV
                )
                continue
            raise ConfigError(
                key,
                "(the example's)",
                f"the example configuration's published hash (PIN {pin}): anyone may know "
                "it; make your own with luck-table hash-pin",
            )


def read_toml(path: Path) -> dict[str, Any]:
    """The TOML file at ``path``; ConfigError (key ``file``) if it cannot be read, is not
    UTF-8 text (naming the first bad byte's offset) or is not TOML."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ConfigError("file", str(path), f"cannot be read ({error.strerror})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        bad = data[error.start]
        raise ConfigError(
            "file", str(path), f"is not UTF-8 text (byte {bad:#04x} at offset {error.start})"
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError("file", str(path), f"is not valid TOML ({error})") from None


def parse_config(data: Mapping[str, Any], base: Path) -> Config:
    """Check a configuration already read as a mapping; ``base`` resolves relative paths."""
    _no_unknown(data, _SECTIONS, "")
    table = _section(data, "table")
    _no_unknown(table, {"id", "name", "player_decisions"}, "table.")
    table_id = _text(table, "table.id", pattern=ID_PATTERN, allowed="letters, digits, '_.-'")
    name = _text(table, "table.name")
    shoe, seat_board = _devices(_section(data, "devices"))
    stakes = _section(data, "stakes")
    _no_unknown(stakes, {"min_buy_in", "max_buy_in"}, "stakes.")
    low = _whole(stakes, "stakes.min_buy_in", 1)
    high = _whole(stakes, "stakes.max_buy_in", low, f"a whole number, at least min_buy_in ({low})")
    own = table.get("player_decisions", False)
    if not isinstance(own, bool):
        raise ConfigError("table.player_decisions", own, "true or false")
    rules = _rules(_section(data, "game", optional=True))
    settings = TableSettings(rules, low, high, seat_board is not None, own)
    journal = _section(data, "journal")
    _no_unknown(journal, {"path"}, "journal.")
    credentials = _section(data, "credentials")
    _no_unknown(credentials, {"supervisors", "dealers"}, "credentials.")
    return Config(
        table_id=table_id,
        table_name=name,
        settings=settings,
        shoe=shoe,
        seat_board=seat_board,
        journal=base / _text(journal, "journal.path"),
        api=_api(_section(data, "api", optional=True), base),
        supervisors=_credentials(credentials, "supervisors"),
        dealers=_credentials(credentials, "dealers"),
        floor=_floor(data["floor"]) if "floor" in data else None,
        console=_console(_section(data, "console", optional=True)),
    )


def _last(key: str) -> str:
    return key.rsplit(".", 1)[-1]


def _section(data: Mapping[str, Any], key: str, *, optional: bool = False) -> Mapping[str, Any]:
    value = data.get(_last(key), {} if optional else _MISSING)
    if not isinstance(value, Mapping):
        raise ConfigError(key, value, "a table of settings ([" + key + "])")
    return value


def _no_unknown(data: Mapping[str, Any], known: set[str], prefix: str) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        key = prefix + unknown[0]
        raise ConfigError(
            key, data[unknown[0]], f"unknown setting; known: {', '.join(sorted(known))}"
        )


def _text(
    data: Mapping[str, Any],
    key: str,
    *,
    pattern: re.Pattern[str] | None = None,
    allowed: str = "",
) -> str:
    value = data.get(_last(key), _MISSING)
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(key, value, "a non-empty string")
    if pattern is not None and not pattern.fullmatch(value):
        raise ConfigError(key, value, allowed)
    return value


def _whole(
    data: Mapping[str, Any],
    key: str,
    low: int,
    allowed: str = "",
    *,
    high: int | None = None,
    default: object = _MISSING,
) -> int:
    value = data.get(_last(key), default)
    too_high = high is not None and isinstance(value, int) and value > high
    if not isinstance(value, int) or isinstance(value, bool) or value < low or too_high:
        span = f"{low} to {high}" if high is not None else f"{low} or more"
        raise ConfigError(key, value, allowed or f"a whole number, {span}")
    return value


def _rules(game: Mapping[str, Any]) -> Rules:
    _no_unknown(game, {spec.name for spec in fields(Rules)}, "game.")
    try:
        return Rules(**game)
    except RulesError as error:
        match = re.fullmatch(r"rules\.(\w+): (.*)", str(error))
        assert match is not None, error
        name, reason = match.groups()
        value = game.get(name, _MISSING)
        reason = reason.removeprefix(f"{value!r} ")  # the value is shown once, by the key
        raise ConfigError(f"game.{name}", value, reason) from None


def _devices(devices: Mapping[str, Any]) -> tuple[DevicePort, DevicePort | None]:
    _no_unknown(devices, {"shoe", "seat_board"}, "devices.")
    shoe = _port(_section(devices, "devices.shoe"), "devices.shoe")
    if "seat_board" not in devices:
        return shoe, None
    board = _section(devices, "devices.seat_board")
    enabled = board.get("enabled", True)
    if not isinstance(enabled, bool):
        raise ConfigError("devices.seat_board.enabled", enabled, "true or false")
    if not enabled:
        return shoe, None
    settings = {key: value for key, value in board.items() if key != "enabled"}
    return shoe, _port(settings, "devices.seat_board")


def _port(data: Mapping[str, Any], key: str) -> DevicePort:
    transport = data.get("transport", _MISSING)
    link = _link(data.get("link", {}), f"{key}.link")
    if transport == "serial":
        _no_unknown(data, {"transport", "port", "baud", "link"}, f"{key}.")
        port = _text(data, f"{key}.port")
        baud = _whole(data, f"{key}.baud", 1, default=115200)
        return DevicePort(port, baud, link)
    if transport == "usb":
        known = {"transport", "vendor_id", "product_id", "serial_number", "link"}
        _no_unknown(data, known, f"{key}.")
        vendor = _whole(data, f"{key}.vendor_id", 0, high=0xFFFF)
        product = _whole(data, f"{key}.product_id", 0, high=0xFFFF)
        url = f"usb://{vendor:04x}:{product:04x}"
        if "serial_number" in data:
            url += f"?serial={quote(_text(data, f'{key}.serial_number'), safe='')}"
        return DevicePort(url, link=link)
    raise ConfigError(f"{key}.transport", transport, "one of serial, usb")


def _link(data: object, key: str) -> LinkConfig:
    if not isinstance(data, Mapping):
        raise ConfigError(key, data, "a table of link settings")
    try:
        return LinkConfig.from_mapping(data)
    except (DriverError, TypeError) as error:
        raise ConfigError(key, dict(data), str(error)) from None


_API_LIMITS = {  # key: (least, most)
    "max_body": (1024, 64 * 1024 * 1024),
    "max_header": (1024, 1024 * 1024),
    "max_connections": (1, 100_000),
    "max_websockets": (1, 100_000),
}
_API_LISTS = ("trusted_proxies", "allowed_hosts", "allowed_origins")


def _api(api: Mapping[str, Any], base: Path) -> Api:
    known = {"bind", "port", "tls_cert", "tls_key", "request_timeout", "docs"}
    _no_unknown(api, known | set(_API_LIMITS) | set(_API_LISTS), "api.")
    bind = _text({"bind": "127.0.0.1", **api}, "api.bind")
    try:
        ipaddress.ip_address(bind)
    except ValueError as error:
        if not _HOSTNAME.fullmatch(bind):
            raise ConfigError("api.bind", bind, "an IP address or a host name") from None
        if _NUMERIC.fullmatch(bind):  # digits and dots are an address, never a host name
            raise ConfigError("api.bind", bind, f"an IP address or a host name ({error})") from None
    port = _whole(
        api,
        "api.port",
        0,
        "a port, 1 to 65535 (0: any free port, logged at start)",
        high=65535,
        default=8080,
    )
    files = {}
    for name in ("tls_cert", "tls_key"):
        if name in api:
            path = base / _text(api, f"api.{name}")
            if not path.is_file():
                raise ConfigError(f"api.{name}", api[name], f"no such file ({path})")
            files[name] = path
    if len(files) == 1:
        missing = "tls_key" if "tls_cert" in files else "tls_cert"
        raise ConfigError(f"api.{missing}", _MISSING, "tls_cert and tls_key go together")
    limits = {
        name: _whole(api, f"api.{name}", low, high=high, default=getattr(Api, name))
        for name, (low, high) in _API_LIMITS.items()
    }
    docs = api.get("docs", False)
    if not isinstance(docs, bool):
        raise ConfigError("api.docs", docs, "true or false")
    return Api(
        bind,
        port,
        files.get("tls_cert"),
        files.get("tls_key"),
        trusted_proxies=_strings(api, "api.trusted_proxies", _network, "IP addresses or networks"),
        allowed_hosts=_strings(api, "api.allowed_hosts", _host, "host names or IP addresses"),
        allowed_origins=_strings(
            api, "api.allowed_origins", _origin, "origins (https://host:port)"
        ),
        request_timeout=_seconds(api, "api.request_timeout", 0.1, 600, Api.request_timeout),
        docs=docs,
        **limits,
    )


def _strings(
    data: Mapping[str, Any], key: str, check: Callable[[str], bool], allowed: str
) -> tuple[str, ...]:
    """A list of strings each passing ``check``, or ConfigError naming the first that does not."""
    values = data.get(_last(key), [])
    if not isinstance(values, list):
        raise ConfigError(key, values, f"a list of {allowed}")
    for value in values:
        if not isinstance(value, str) or not check(value):
            raise ConfigError(key, value, f"a list of {allowed}")
    return tuple(values)


def _network(value: str) -> bool:
    try:
        ipaddress.ip_network(value, strict=False)
    except ValueError:
        return False
    return True


def _host(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return _HOSTNAME.fullmatch(value) is not None
    return True


def _origin(value: str) -> bool:
    parts = urlsplit(value)
    plain = not (parts.path or parts.query or parts.fragment or parts.username)
    return parts.scheme in ("http", "https") and bool(parts.hostname) and plain


def _console(console: Mapping[str, Any]) -> Console:
    _no_unknown(console, {"idle_lock"}, "console.")
    return Console(_seconds(console, "console.idle_lock", 10, 3600, Console.idle_lock))


def _seconds(data: Mapping[str, Any], key: str, low: float, high: float, default: float) -> float:
    value = data.get(_last(key), default)
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number or not low <= value <= high:
        raise ConfigError(key, value, f"a number of seconds, {low:g} to {high:g}")
    return float(value)


def floor_dsn(dsn: object, key: str = "floor.dsn") -> str:
    """A floor store's connection string checked (libpq's own parser), or ConfigError."""
    value = _text({_last(key): dsn}, key)
    try:
        conninfo_to_dict(value)
    except ProgrammingError as error:
        reason = " ".join(str(error).split())
        raise ConfigError(
            key, value, f"a PostgreSQL connection string or URI (libpq says: {reason})"
        ) from None
    return value


def _floor(floor: object) -> FloorSettings:
    if not isinstance(floor, Mapping):
        raise ConfigError("floor", floor, "a table of settings ([floor])")
    _no_unknown(floor, {"dsn", "batch", "retry_initial", "retry_max", "heartbeat"}, "floor.")
    dsn = floor_dsn(floor.get("dsn", _MISSING))
    batch = _whole(floor, "floor.batch", 1, high=10_000, default=500)
    initial = _seconds(floor, "floor.retry_initial", 0.01, 60, 0.5)
    most = _seconds(floor, "floor.retry_max", initial, 3600, 30.0)
    heartbeat = _seconds(floor, "floor.heartbeat", 0.1, 600, 5.0)
    return FloorSettings(dsn, batch, initial, most, heartbeat)


def _credentials(credentials: Mapping[str, Any], role: str) -> tuple[Credential, ...]:
    key = f"credentials.{role}"
    entries = credentials.get(role, _MISSING)
    if not isinstance(entries, list) or not entries:
        raise ConfigError(key, entries, f"at least one [[{key}]] with id and pin_hash")
    out: list[Credential] = []
    for number, entry in enumerate(entries):
        where = f"{key}[{number}]"
        if not isinstance(entry, Mapping):
            raise ConfigError(where, entry, "a table with id and pin_hash")
        if "pin" in entry:
            raise ConfigError(
                f"{where}.pin", "(hidden)", "plain PINs are refused: store pin_hash instead"
            )
        _no_unknown(entry, {"id", "pin_hash"}, f"{where}.")
        person = _text(entry, f"{where}.id", pattern=ID_PATTERN, allowed="letters, digits, '_.-'")
        if any(c.id == person for c in out):
            raise ConfigError(f"{where}.id", person, "each id once")
        pin_hash = _text(entry, f"{where}.pin_hash")
        if not pin_hash.startswith("$argon2"):
            raise ConfigError(f"{where}.pin_hash", pin_hash, "an Argon2 hash ($argon2id$...)")
        try:
            extract_parameters(pin_hash)
        except InvalidHashError:
            raise ConfigError(f"{where}.pin_hash", pin_hash, "a well-formed Argon2 hash") from None
        out.append(Credential(person, pin_hash))
    return tuple(out)


if __name__ == "__main__":
    # ``python -m controller.config hash-pin``, as older notes say: ``luck-table hash-pin``
    from controller.cli import main

    sys.exit(main(sys.argv[1:]))
