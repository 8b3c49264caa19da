"""Reading and checking a configuration file: what the table's configuration
(:mod:`controller.config`) and the floor service's (``dealer_ui.pit.config``) share.

``read_toml(path)`` reads the file (UTF-8 TOML); the checks each take a mapping and a key
(``api.port``, ``credentials.supervisors[0].id``) and return the value checked or raise
:class:`ConfigError` naming the key, the value and what is allowed: ``section``,
``no_unknown``, ``text``, ``whole``, ``seconds``; the ``[api]`` section
(:func:`parse_api`, :class:`Api`); the people who may sign in (:func:`parse_credentials`,
:class:`Credential`, :func:`refuse_example_pins`); a PostgreSQL connection string
(:func:`check_dsn`), shown in messages with its password masked (:func:`masked_dsn`) or
only by where it leads (:func:`describe_dsn`).
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import logging
import os
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from argon2 import extract_parameters
from argon2.exceptions import InvalidHashError
from psycopg import ProgrammingError
from psycopg.conninfo import conninfo_to_dict

from controller.text import FreeText, TextError
from luck_errors import LuckTableError

log = logging.getLogger("controller.config")

T = TypeVar("T")

ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")

_HOSTNAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*")
_NUMERIC = re.compile(r"[0-9.]+")

#: The fewest characters a PIN may have (``luck-table hash-pin`` refuses fewer).
MIN_PIN = 6
#: How a PIN hash made by ``luck-table hash-pin`` begins its salt (random bytes follow): the
#: configuration cannot read a PIN's length from its hash, so it takes only the hashes that
#: hash-pin made, which refuses a PIN of fewer than :data:`MIN_PIN` characters.
PIN_SALT_MARK = b"luck-pin>=6:"
#: How a badge's hash made by ``luck-table hash-badge`` begins its salt: a badge's hash is
#: never taken for a PIN's, nor a PIN's for a badge's.
BADGE_SALT_MARK = b"luck-badge:"

#: The PIN hashes published in deploy/table.example.toml and deploy/floor.example.toml, each
#: with its PIN: anyone may know them, so a configuration that holds one is refused.
EXAMPLE_PIN_HASHES = {
    "$argon2id$v=19$m=65536,t=3,p=4$bHVjay1waW4+PTY6P6sXUDcB6jFbXlfB8GDJQw$"
    "QH7nmVlSt7qXh01mW7vkdzyLcwEmlULc0nB2SgpJ810": "123456",
    "$argon2id$v=19$m=65536,t=3,p=4$bHVjay1waW4+PTY6f7Amn/wrny3dP4Ih2RChwg$"
    "Hhabhq8ob9i8q7/VinFFnU1v4XlJJL+Ww3WXC7+L9ZQ": "567890",
    "$argon2id$v=19$m=65536,t=3,p=4$bHVjay1waW4+PTY6lgLr9w9CzS2417AP6jMA3A$"
    "EC5YaU7M1h4IcPer8t1V7jPIFdFrFDxpha64Vr0BEe0": "999999",
}
#: ``accept`` in this environment variable accepts the example PINs: demonstrations, tests.
EXAMPLE_PINS_ENV = "LUCK_TABLE_EXAMPLE_PINS"


#: A key the configuration does not give (shown as ``(missing)``).
MISSING = object()
#: A value the error leaves out: an unknown key's value may be a secret put in the wrong
#: place (``password = ...``), and its name alone says what to fix.
UNSHOWN = object()


class ConfigError(LuckTableError, ValueError):
    """A configuration value that is missing, unknown or not allowed."""

    def __init__(self, key: str, value: object, allowed: str) -> None:
        if value is UNSHOWN:
            super().__init__(f"{key}: {allowed}")
        else:
            shown = "(missing)" if value is MISSING else repr(value)
            super().__init__(f"{key} = {shown}: {allowed}")
        self.key, self.value, self.allowed = key, value, allowed


class Problems:
    """How a configuration's checks meet a wrong value: the first raises its
    :class:`ConfigError` (``gather`` false: starting a service), or each is kept in
    ``found`` and the checks go on with a stand-in value (``gather``: ``luck-table serve
    --check``, which names every wrong value it can find)."""

    def __init__(self, gather: bool = False) -> None:
        self.gather = gather
        self.found: list[ConfigError] = []

    def check(self, checking: Callable[[], T], stand_in: T) -> T:
        """``checking()``'s value; when it raises ConfigError while gathering, the error is
        kept and ``stand_in`` is the value the checks go on with."""
        if not self.gather:
            return checking()
        try:
            return checking()
        except ConfigError as error:
            self.found.append(error)
            return stand_in

    def refuse(self, error: ConfigError, stand_in: T) -> T:
        """A wrong value found by a check of its own: raised, or kept while gathering."""
        return self.check(partial(_raise, error), stand_in)

    def unknown(self, data: Mapping[str, Any], known: set[str], prefix: str) -> None:
        """Every key of ``data`` not in ``known`` (the first only, unless gathering)."""
        for key in sorted(set(data) - known):
            self.check(partial(no_unknown, {key: None}, known, prefix), None)


#: The checks that stop at the first wrong value.
FIRST = Problems()


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
    its CDN).

    What a feed's client may send (every WebSocket: console, studio, floor, relay): a
    message of at most ``max_message`` bytes (larger: closed with 1009 before it is
    buffered), frames at ``messages_per_second`` after a first ``message_burst`` (faster:
    closed with 1008), text only (a binary frame: closed with 1003); a feed closed for one
    of those stays counted in its address's ``max_websockets`` for ``feed_penalty`` seconds.
    State-changing requests (anything but GET and HEAD under ``/api/``): per session
    ``writes_per_second`` after a first ``write_burst``, per client address
    ``address_writes_per_second`` after ``address_write_burst`` (beyond: 429 with
    ``Retry-After``). An input a role may never make at this table (a player's decision
    where the dealer decides) is refused (403) and journaled once per ``refusal_fold``
    seconds per session, with the count.

    Sign-in and sessions: ``guesses_per_hour`` wrong PINs for one id within an hour, from
    all addresses together, lock that id (for every address but the ``kiosks``: addresses or
    networks) until a supervisor unlocks it; a guess refused without its check (its id
    locked, its address locked out) is answered ``refusal_delay`` seconds later, so that a
    sweep's guesses cost the table a wait each, not work; a session of any role ends after
    ``session_idle`` seconds without a request or a feed message. ``/metrics`` and
    ``/health``'s details answer only ``operations_from`` (addresses or networks) and the
    bearer tokens whose SHA-256 digests (hex) are ``operations_tokens``."""

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
    max_message: int = 4096
    messages_per_second: float = 2.0
    message_burst: int = 20
    feed_penalty: float = 60.0
    writes_per_second: float = 20.0
    write_burst: int = 60
    address_writes_per_second: float = 50.0
    address_write_burst: int = 200
    refusal_fold: float = 10.0
    guesses_per_hour: int = 20
    refusal_delay: float = 1.0
    kiosks: tuple[str, ...] = ()
    session_idle: float = 1800.0
    operations_from: tuple[str, ...] = ()
    operations_tokens: tuple[str, ...] = ()


@dataclass(frozen=True)
class Credential:
    """A person allowed to sign in: ``id``, the Argon2 hash of their PIN and, where they have
    one, the Argon2 hash of their badge's UID (``luck-table hash-badge``)."""

    id: str
    pin_hash: str
    badge: str | None = None


def refuse_example_pins(
    roles: Mapping[str, Sequence[Credential]],
    accept: bool | None = None,
    problems: Problems = FIRST,
) -> None:
    """ConfigError naming the first credential whose hash is one the example
    configurations publish (each, to ``problems`` gathering), unless ``accept`` (default:
    :data:`EXAMPLE_PINS_ENV` is ``accept``), which only warns."""
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
            error = ConfigError(
                key,
                "(the example's)",
                f"the example configuration's published hash (PIN {pin}): anyone may know "
                "it; make your own with luck-table hash-pin",
            )
            problems.refuse(error, None)


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


def last_part(key: str) -> str:
    return key.rsplit(".", 1)[-1]


def section(data: Mapping[str, Any], key: str, *, optional: bool = False) -> Mapping[str, Any]:
    value = data.get(last_part(key), {} if optional else MISSING)
    if not isinstance(value, Mapping):
        raise ConfigError(key, value, "a table of settings ([" + key + "])")
    return value


def no_unknown(data: Mapping[str, Any], known: set[str], prefix: str) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        key = prefix + unknown[0]
        raise ConfigError(key, UNSHOWN, f"unknown setting; known: {', '.join(sorted(known))}")


def text(
    data: Mapping[str, Any],
    key: str,
    *,
    pattern: re.Pattern[str] | None = None,
    allowed: str = "",
    rule: FreeText | None = None,
) -> str:
    """The text at ``key``: not empty, matching ``pattern`` if given; free text (a name
    people read) kept by its ``rule`` (``controller.text``)."""
    value = data.get(last_part(key), MISSING)
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(key, value, "a non-empty string")
    if pattern is not None and not pattern.fullmatch(value):
        raise ConfigError(key, value, allowed)
    if rule is not None:
        try:
            return rule(value)
        except TextError as error:
            raise ConfigError(key, value, str(error)) from None
    return value


def whole(
    data: Mapping[str, Any],
    key: str,
    low: int,
    allowed: str = "",
    *,
    high: int | None = None,
    default: object = MISSING,
) -> int:
    value = data.get(last_part(key), default)
    too_high = high is not None and isinstance(value, int) and value > high
    if not isinstance(value, int) or isinstance(value, bool) or value < low or too_high:
        span = f"{low} to {high}" if high is not None else f"{low} or more"
        raise ConfigError(key, value, allowed or f"a whole number, {span}")
    return value


_API_LIMITS = {  # key: (least, most)
    "max_body": (1024, 64 * 1024 * 1024),
    "max_header": (1024, 1024 * 1024),
    "max_connections": (1, 100_000),
    "max_websockets": (1, 100_000),
    "max_message": (128, 1024 * 1024),
    "message_burst": (1, 100_000),
    "write_burst": (1, 100_000),
    "address_write_burst": (1, 100_000),
    "guesses_per_hour": (1, 1000),
}
_API_RATES = ("messages_per_second", "writes_per_second", "address_writes_per_second")
_API_TIMES = {  # key: (least, most) seconds
    "request_timeout": (0.1, 600.0),
    "feed_penalty": (0.0, 3600.0),
    "refusal_fold": (0.1, 3600.0),
    "refusal_delay": (0.0, 10.0),
    "session_idle": (60.0, 8 * 3600.0),
}
_API_LISTS = (
    "trusted_proxies",
    "allowed_hosts",
    "allowed_origins",
    "kiosks",
    "operations_from",
    "operations_tokens",
)
_DIGEST = re.compile(r"[0-9a-f]{64}")


def parse_api(api: Mapping[str, Any], base: Path, problems: Problems = FIRST) -> Api:
    known = {"bind", "port", "tls_cert", "tls_key", "docs", *_API_RATES, *_API_TIMES}
    problems.unknown(api, known | set(_API_LIMITS) | set(_API_LISTS), "api.")
    take = problems.check
    bind = take(lambda: _bind(api), Api.bind)
    port = take(
        lambda: whole(
            api,
            "api.port",
            0,
            "a port, 1 to 65535 (0: any free port, logged at start)",
            high=65535,
            default=8080,
        ),
        Api.port,
    )
    files = {}
    for name in ("tls_cert", "tls_key"):
        if name in api:
            path = take(partial(_tls_file, api, name, base), None)
            if path is not None:
                files[name] = path
    if len(files) == 1:
        missing = "tls_key" if "tls_cert" in files else "tls_cert"
        error = ConfigError(f"api.{missing}", MISSING, "tls_cert and tls_key go together")
        problems.refuse(error, None)
        files = {}
    limits = {
        name: take(
            partial(whole, api, f"api.{name}", low, high=high, default=getattr(Api, name)),
            getattr(Api, name),
        )
        for name, (low, high) in _API_LIMITS.items()
    }
    rates: dict[str, Any] = {
        name: take(partial(_rate, api, f"api.{name}", getattr(Api, name)), getattr(Api, name))
        for name in _API_RATES
    }
    times: dict[str, Any] = {
        name: take(
            partial(seconds, api, f"api.{name}", low, high, getattr(Api, name)),
            getattr(Api, name),
        )
        for name, (low, high) in _API_TIMES.items()
    }
    docs = take(partial(flag, api, "api.docs", False), False)
    lists: dict[str, Any] = {
        name: take(partial(_strings, api, f"api.{name}", check, allowed), _NO_STRINGS)
        for name, check, allowed in (
            ("trusted_proxies", _network, "IP addresses or networks"),
            ("allowed_hosts", _host, "host names or IP addresses"),
            ("allowed_origins", _origin, "origins (https://host:port)"),
            ("kiosks", _network, "IP addresses or networks"),
            ("operations_from", _network, "IP addresses or networks"),
            (
                "operations_tokens",
                _DIGEST.fullmatch,
                "SHA-256 digests of tokens (64 lowercase hex digits: sha256sum)",
            ),
        )
    }
    return Api(
        bind,
        port,
        files.get("tls_cert"),
        files.get("tls_key"),
        docs=docs,
        **lists,
        **limits,
        **rates,
        **times,
    )


#: A list of strings' stand-in: none.
_NO_STRINGS: tuple[str, ...] = ()


def _raise(error: ConfigError) -> Any:
    raise error


def _bind(api: Mapping[str, Any]) -> str:
    bind = text({"bind": "127.0.0.1", **api}, "api.bind")
    try:
        ipaddress.ip_address(bind)
    except ValueError as error:
        if not _HOSTNAME.fullmatch(bind):
            raise ConfigError("api.bind", bind, "an IP address or a host name") from None
        if _NUMERIC.fullmatch(bind):  # digits and dots are an address, never a host name
            raise ConfigError("api.bind", bind, f"an IP address or a host name ({error})") from None
    return bind


def _tls_file(api: Mapping[str, Any], name: str, base: Path) -> Path:
    path = base / text(api, f"api.{name}")
    if not path.is_file():
        raise ConfigError(f"api.{name}", api[name], f"no such file ({path})")
    return path


def flag(data: Mapping[str, Any], key: str, default: bool, allowed: str = "true or false") -> bool:
    """A true or false at ``key`` (``default`` when absent)."""
    value = data.get(last_part(key), default)
    if not isinstance(value, bool):
        raise ConfigError(key, value, allowed)
    return value


def _rate(data: Mapping[str, Any], key: str, default: float) -> float:
    """A rate a second, 0.01 to 100000."""
    value = data.get(last_part(key), default)
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number or not 0.01 <= value <= 100_000:
        raise ConfigError(key, value, "a number a second, 0.01 to 100000")
    return float(value)


def _strings(
    data: Mapping[str, Any], key: str, check: Callable[[str], object], allowed: str
) -> tuple[str, ...]:
    """A list of strings each passing ``check``, or ConfigError naming the first that does not."""
    values = data.get(last_part(key), [])
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


def seconds(data: Mapping[str, Any], key: str, low: float, high: float, default: float) -> float:
    value = data.get(last_part(key), default)
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number or not low <= value <= high:
        raise ConfigError(key, value, f"a number of seconds, {low:g} to {high:g}")
    return float(value)


def parse_credentials(
    credentials: Mapping[str, Any], role: str, problems: Problems = FIRST
) -> tuple[Credential, ...]:
    """The people of ``role`` who may sign in (each one's first wrong value a problem)."""
    key = f"credentials.{role}"
    entries = credentials.get(role, MISSING)
    if not isinstance(entries, list) or not entries:
        error = ConfigError(key, entries, f"at least one [[{key}]] with id and pin_hash")
        problems.refuse(error, None)
        return ()
    out: list[Credential] = []
    for number, entry in enumerate(entries):
        person = problems.check(partial(_credential, entry, f"{key}[{number}]", out), None)
        if person is not None:
            out.append(person)
    return tuple(out)


def _credential(entry: object, where: str, out: Sequence[Credential]) -> Credential:
    """One person of ``[[credentials.ROLE]]`` (``out``: those before)."""
    if not isinstance(entry, Mapping):
        raise ConfigError(where, entry, "a table with id and pin_hash")
    if "pin" in entry:
        raise ConfigError(
            f"{where}.pin", "(hidden)", "plain PINs are refused: store pin_hash instead"
        )
    no_unknown(entry, {"id", "pin_hash", "badge"}, f"{where}.")
    person = text(entry, f"{where}.id", pattern=ID_PATTERN, allowed="letters, digits, '_.-'")
    if any(c.id == person for c in out):
        raise ConfigError(f"{where}.id", person, "each id once")
    pin_hash = text(entry, f"{where}.pin_hash")
    if not pin_hash.startswith("$argon2"):
        raise ConfigError(f"{where}.pin_hash", pin_hash, "an Argon2 hash ($argon2id$...)")
    try:
        extract_parameters(pin_hash)
    except InvalidHashError:
        raise ConfigError(f"{where}.pin_hash", pin_hash, "a well-formed Argon2 hash") from None
    if not checked_pin(pin_hash):
        raise ConfigError(
            f"{where}.pin_hash",
            "(a hash not made by luck-table hash-pin)",
            f"PINs need at least {MIN_PIN} digits: this hash was not made by "
            "luck-table hash-pin (a 4-digit PIN's, or one made elsewhere, cannot be "
            "told apart): make it again with luck-table hash-pin",
        )
    badge = _badge(entry, f"{where}.badge") if "badge" in entry else None
    return Credential(person, pin_hash, badge)


def _badge(entry: Mapping[str, Any], key: str) -> str:
    """A badge's hash: an Argon2id hash made by ``luck-table hash-badge`` (its salt marked
    :data:`BADGE_SALT_MARK`); a UID in the clear, or any other hash, is refused."""
    badge = text(entry, key)
    if not badge.startswith("$argon2id$"):
        raise ConfigError(key, "(hidden)", "a badge's hash made by luck-table hash-badge")
    try:
        extract_parameters(badge)
    except InvalidHashError:
        raise ConfigError(key, "(hidden)", "a well-formed Argon2 hash") from None
    if not _salt_marked(badge, BADGE_SALT_MARK):
        raise ConfigError(key, "(hidden)", "a badge's hash made by luck-table hash-badge")
    return badge


def checked_pin(pin_hash: str) -> bool:
    """Whether ``pin_hash`` (a well-formed Argon2 hash) was made by ``luck-table hash-pin``,
    which refuses a PIN shorter than :data:`MIN_PIN`: its salt begins with
    :data:`PIN_SALT_MARK`."""
    return _salt_marked(pin_hash, PIN_SALT_MARK)


def _salt_marked(made: str, mark: bytes) -> bool:
    """Whether the Argon2 hash ``made``'s salt begins with ``mark``."""
    parts = made.split("$")
    if len(parts) < 3:
        return False
    salt = parts[-2]
    try:
        raw = base64.b64decode(salt + "=" * (-len(salt) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return raw.startswith(mark)


#: What stands for a password in a connection string shown in a message.
MASK = "********"
_KEYWORD_PASSWORD = re.compile(  # password=VALUE: quoted, or up to the next keyword=
    r"(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'?|.*?(?=\s+\w+\s*=|$))", re.IGNORECASE
)
_URI_PASSWORD = re.compile(r"(://[^:/?#@]*:)([^/?#]*)(@)")  # scheme://user:PASSWORD@host
_QUOTED = re.compile(r'"([^"]*)"')


def masked_dsn(dsn: str) -> str:
    """``dsn`` with its password (``password=...``, a URI's ``user:...@`` or
    ``?password=...``) replaced by :data:`MASK`, even when libpq cannot read it."""
    shown = _URI_PASSWORD.sub(rf"\g<1>{MASK}\g<3>", dsn)
    shown = _KEYWORD_PASSWORD.sub(rf"\g<1>{MASK}", shown)
    try:
        password = str(conninfo_to_dict(dsn).get("password") or "")
    except ProgrammingError:
        return shown
    return shown.replace(password, MASK) if password else shown


def check_dsn(value: object, key: str = "floor.dsn") -> str:
    """``value`` if it is a PostgreSQL connection string (libpq keywords or a URI) libpq can
    read; ConfigError if not, showing it (and libpq's reason) with its password masked."""
    dsn = text({last_part(key): value}, key)
    try:
        conninfo_to_dict(dsn)
    except ProgrammingError as error:
        shown = masked_dsn(dsn)
        reason = " ".join(str(error).split()) or "unreadable"

        def quoted(match: re.Match[str]) -> str:  # libpq may quote a part of the string
            return match.group(0) if match.group(1) in shown else f'"{MASK}"'

        reason = _QUOTED.sub(quoted, reason)
        raise ConfigError(
            key, shown, f"a PostgreSQL connection string or URI (libpq says: {reason})"
        ) from None
    return dsn


def describe_dsn(dsn: str) -> str:
    """``host:port/dbname`` of a checked ``dsn``, without its user or password, for logs."""
    parts = conninfo_to_dict(dsn)
    host = parts.get("host") or parts.get("hostaddr") or "localhost"
    return f"{host}:{parts.get('port') or 5432}/{parts.get('dbname') or '(default)'}"
