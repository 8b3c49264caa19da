"""The table's configuration: one TOML file, read with the standard library's ``tomllib``.

``load_config(path)`` returns a ``Config`` or raises ``ConfigError`` naming the key, the
value and what is allowed. The sections and their keys: docs/table.md ("Configuration"),
``deploy/table.example.toml``; ``[protection]``: docs/game-protection.md; ``[studio]``
and ``[table] test_mode`` (the studio feed's delay and tokens): docs/operations.md; paths,
encoding and the example PINs: docs/operations.md.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import quote

from controller.config_file import (
    FIRST,
    ID_PATTERN,
    MISSING,
    Api,
    ConfigError,
    Credential,
    Problems,
    check_dsn,
    flag,
    no_unknown,
    parse_api,
    parse_credentials,
    read_toml,
    refuse_example_pins,
    seconds,
    section,
    text,
    whole,
)
from controller.journal.rotation import Rotation
from controller.rules import Rules, RulesError
from controller.table import TableSettings
from controller.table.settings import Protection, Serials
from controller.text import TITLE
from drivers.errors import DriverError
from drivers.session import LinkConfig

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
    "protection",
    "studio",
}
#: The studio feed's security delay, in minutes: the least a table that deals for real
#: may have (a broadcast is behind the table by at least this), the most, the default.
MIN_STUDIO_DELAY = 15.0
MAX_STUDIO_DELAY = 240.0
#: The longest a bonus-card moment is held on the studio's overlay, in seconds.
MAX_BONUS_HOLD = 30.0
#: The longest a studio token lasts, in hours.
MAX_STUDIO_TOKEN_HOURS = 24.0


@dataclass(frozen=True)
class PcscReaders:
    """PC/SC card readers as a device (docs/hardware.md): ``readers``, a reader-name pattern
    (a regular expression searched in the names pcscd gives) by key (``shoe``, or a seat's
    number), and ``deck``, the deck file that says which card each tag is."""

    readers: Mapping[str, str]
    deck: Path

    @property
    def url(self) -> str:
        """The readers as a port's name: ``pcsc:KEY=PATTERN,...``."""
        return "pcsc:" + ",".join(f"{key}={pattern}" for key, pattern in self.readers.items())


@dataclass(frozen=True)
class DevicePort:
    """Where a device is and how to talk to it: ``url`` as the drivers name a port (a
    device path, a pyserial URL such as ``socket://host:port``, ``usb://VID:PID?serial=S``;
    ``pcsc:`` and the readers for PC/SC readers, then ``pcsc`` says which), ``baud`` for a
    serial line, the link's timings."""

    url: str
    baud: int = 115200
    link: LinkConfig = field(default_factory=LinkConfig)
    pcsc: PcscReaders | None = None

    @property
    def serial(self) -> bool:
        """A serial line (a path or a pyserial URL), not a USB device nor PC/SC readers."""
        return self.pcsc is None and not self.url.lower().startswith("usb://")


class Lacking(StrEnum):
    """A protection that does not hold with the table's hardware (docs/hardware.md, "Which
    protections hold with which hardware"); what each device adds is in "What a
    purpose-built shoe adds"."""

    READ_COUNTER = "read_counter"  # a card the shoe missed: a wire shoe counts every card out
    DECK_LOADED = "deck_loaded"  # the shoe's own "deck loaded" (a reader has the cut card)
    RETAG_CHECK = "retag_check"  # a re-tagged card: a wire shoe's optics against the tag
    REJECT_TRAY = "reject_tray"  # an unreadable card diverted: a reader's is dealt unread
    BACKLOG = "backlog"  # a card crossing a field while its link is down is unseen
    SEAT_CHECKS = "seat_checks"  # a card switched at, appearing at or at the wrong seat
    PLAYER_AWAY = "player_away"  # the seat sensors: readers see cards, not people


def lacking(shoe: DevicePort, seats: DevicePort | None) -> tuple[Lacking, ...]:
    """The protections that do not hold with a shoe on ``shoe`` and seats on ``seats``
    (None: no seat board, no seat readers), in :class:`Lacking`'s order."""
    missing: set[Lacking] = set()
    if shoe.pcsc is not None:
        missing |= {Lacking.READ_COUNTER, Lacking.DECK_LOADED, Lacking.RETAG_CHECK}
        missing |= {Lacking.REJECT_TRAY, Lacking.BACKLOG}
    if seats is None:
        missing |= {Lacking.SEAT_CHECKS, Lacking.PLAYER_AWAY}
    elif seats.pcsc is not None:
        missing |= {Lacking.PLAYER_AWAY, Lacking.BACKLOG}
    return tuple(code for code in Lacking if code in missing)


@dataclass(frozen=True)
class Console:
    """The dealer's console: ``idle_lock``, the seconds of quiet (no touch, no key) after
    which the screen locks until the signed-in dealer enters the PIN again;
    ``escalate_after``, the seconds an alert stays open before the consoles show it
    escalated."""

    idle_lock: float = 300.0
    escalate_after: float = 120.0


@dataclass(frozen=True)
class Studio:
    """The studio feed (hole cards and odds for a broadcast): ``delay``, the minutes each
    of the table's moments is held back from its journaled time before the studio sees it;
    ``token_hours``, how long a studio token lasts after a supervisor issues it;
    ``bonus_hold``, the seconds a bonus-card moment stays on the overlay whatever the table
    does meanwhile; ``odds_while_dealing``, the odds shown while a street's cards are being
    dealt too (by default they wait until the street's cards are all out)."""

    delay: float = MIN_STUDIO_DELAY
    token_hours: float = 12.0
    bonus_hold: float = 4.0
    odds_while_dealing: bool = False

    @property
    def delay_seconds(self) -> float:
        return self.delay * 60


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
    studio: Studio = Studio()
    test_mode: bool = False  # a test or demonstration table: see [table] test_mode
    rotation: Rotation = field(default_factory=Rotation)
    #: The console's badge reader (``[devices.console]``): its reader-name pattern (PC/SC);
    #: None: the console has no badge reader.
    badge_reader: str | None = None


def load_config(path: str | Path, *, example_pins: bool | None = None) -> Config:
    """Read and check the configuration file at ``path``. ``example_pins`` accepts the
    example configurations' published PINs (default: ``LUCK_TABLE_EXAMPLE_PINS`` says).
    Raises ConfigError at the first wrong value."""
    path = Path(path)
    config = parse_config(read_toml(path), path.parent)
    refuse_example_pins(
        {"supervisors": config.supervisors, "dealers": config.dealers}, example_pins
    )
    return config


def config_problems(
    path: str | Path, *, example_pins: bool | None = None
) -> tuple[Config | None, list[ConfigError]]:
    """Every wrong value of the configuration file at ``path`` that its checks can find
    (none: it is good), and the configuration read with a stand-in for each (None: the file
    cannot be read or is not TOML, its one problem). Each check goes on past a wrong value
    with its stand-in, so a value that depends on a wrong one (``max_buy_in`` on
    ``min_buy_in``) is checked against the stand-in."""
    path = Path(path)
    try:
        data = read_toml(path)
    except ConfigError as error:
        return None, [error]
    problems = Problems(gather=True)
    config = parse_config(data, path.parent, problems)
    roles = {"supervisors": config.supervisors, "dealers": config.dealers}
    refuse_example_pins(roles, example_pins, problems)
    return config, problems.found


#: What a section that is not a table of settings is checked as: empty.
_NONE: Mapping[str, Any] = {}


def parse_config(data: Mapping[str, Any], base: Path, problems: Problems = FIRST) -> Config:
    """Check a configuration already read as a mapping; ``base`` resolves relative paths.
    Raises ConfigError at the first wrong value, or, with ``problems`` gathering, keeps
    each and returns a configuration with stand-ins for them (to be thrown away)."""
    take = problems.check
    problems.unknown(data, _SECTIONS, "")
    table = take(partial(section, data, "table"), _NONE)
    known = {"id", "name", "player_decisions", "test_mode", "time_charge", "time_period"}
    problems.unknown(table, known, "table.")
    table_id = take(
        partial(text, table, "table.id", pattern=ID_PATTERN, allowed="letters, digits, '_.-'"),
        "?",
    )
    name = take(partial(text, table, "table.name", rule=TITLE), "?")
    no_devices: tuple[DevicePort, DevicePort | None, Serials] = (DevicePort("?"), None, Serials())
    devices = take(partial(section, data, "devices"), _NONE)
    shoe, seat_board, serials = take(partial(_devices, devices, base), no_devices)
    stakes = take(partial(section, data, "stakes"), _NONE)
    problems.unknown(stakes, {"min_buy_in", "max_buy_in"}, "stakes.")
    low = take(partial(whole, stakes, "stakes.min_buy_in", 1), 1)
    at_least = f"a whole number, at least min_buy_in ({low})"
    high = take(partial(whole, stakes, "stakes.max_buy_in", low, at_least), low)
    own = take(partial(flag, table, "table.player_decisions", False), False)
    test_mode = take(partial(flag, table, "table.test_mode", False), False)
    game = take(partial(section, data, "game", optional=True), _NONE)
    rules = take(partial(_rules, game), Rules())
    protected = take(partial(section, data, "protection", optional=True), _NONE)
    protection = _protection(protected, problems)
    charge = take(partial(whole, table, "table.time_charge", 0, default=0), 0)
    period = take(partial(whole, table, "table.time_period", 1, high=1440, default=30), 30)
    if charge and rules.house_takes:
        error = ConfigError(
            "table.time_charge",
            charge,
            "0 with a rake or a jackpot drop set in [game] (time collection is instead of a rake)",
        )
        charge = problems.refuse(error, 0)
    settings = TableSettings(
        rules, low, high, seat_board is not None, own, protection, serials, charge, period
    )
    journal = take(partial(section, data, "journal"), _NONE)
    problems.unknown(journal, {"path", "segment_hands", "segment_megabytes"}, "journal.")
    hands, megabytes = Rotation().hands, Rotation().megabytes
    rotation = Rotation(
        take(partial(whole, journal, "journal.segment_hands", 0, default=hands), hands),
        take(partial(whole, journal, "journal.segment_megabytes", 0, default=megabytes), megabytes),
    )
    credentials = take(partial(section, data, "credentials"), _NONE)
    problems.unknown(credentials, {"supervisors", "dealers"}, "credentials.")
    journal_path = base / take(partial(text, journal, "journal.path"), "?")
    api = parse_api(take(partial(section, data, "api", optional=True), _NONE), base, problems)
    supervisors = parse_credentials(credentials, "supervisors", problems)
    dealers = parse_credentials(credentials, "dealers", problems)
    floor = _floor(data["floor"], problems) if "floor" in data else None
    console = _console(take(partial(section, data, "console", optional=True), _NONE), problems)
    studied = take(partial(section, data, "studio", optional=True), _NONE)
    studio = _studio(studied, test_mode, problems)
    badge_reader = take(partial(_badge_reader, devices), None)
    return Config(
        table_id=table_id,
        table_name=name,
        settings=settings,
        shoe=shoe,
        seat_board=seat_board,
        journal=journal_path,
        api=api,
        supervisors=supervisors,
        dealers=dealers,
        floor=floor,
        console=console,
        studio=studio,
        test_mode=test_mode,
        rotation=rotation,
        badge_reader=badge_reader,
    )


def _badge_reader(devices: Mapping[str, Any]) -> str | None:
    """The console's badge reader, ``[devices.console]``: ``transport = "pcsc"`` and its
    ``reader`` (a reader-name pattern); None without the section."""
    if "console" not in devices:
        return None
    console = section(devices, "devices.console")
    no_unknown(console, {"transport", "reader"}, "devices.console.")
    transport = console.get("transport", MISSING)
    if transport != "pcsc":
        raise ConfigError("devices.console.transport", transport, "pcsc")
    return _pattern(console, "devices.console.reader")


def _rules(game: Mapping[str, Any]) -> Rules:
    no_unknown(game, {spec.name for spec in fields(Rules)}, "game.")
    try:
        return Rules(**game)
    except RulesError as error:  # every setting is known here: the error names its field
        assert error.field is not None, error
        name = error.field
        raise ConfigError(f"game.{name}", game.get(name, MISSING), error.reason) from None


def _protection(protection: Mapping[str, Any], problems: Problems = FIRST) -> Protection:
    """Game protection: tag checks on unless the table says its reader gives no tag UIDs;
    the shuffle check on unless the table turns it off; an unverified read pauses nothing
    and one supervisor's PIN is enough for every override unless the table says so."""
    take = problems.check
    problems.unknown(protection, {spec.name for spec in fields(Protection)}, "protection.")
    checks = take(
        partial(
            flag,
            protection,
            "protection.tag_checks",
            True,
            "true or false (false: a reader without tag UIDs)",
        ),
        True,
    )
    shuffle = take(partial(flag, protection, "protection.shuffle_check", True), True)
    hands = None
    if "deck_hands" in protection:
        allowed = "a whole number of hands, 1 or more"
        hands = take(partial(whole, protection, "protection.deck_hands", 1, allowed), None)
    hours = protection.get("deck_hours")
    number = isinstance(hours, int | float) and not isinstance(hours, bool)
    if hours is not None and (not number or not 0 < hours <= 168):
        allowed = "a number of hours over 0, at most 168"
        hours = problems.refuse(ConfigError("protection.deck_hours", hours, allowed), None)
    blocks = take(
        partial(
            flag,
            protection,
            "protection.unverified_blocks",
            False,
            "true or false (true: the dealing pauses)",
        ),
        False,
    )
    two = take(
        partial(
            flag,
            protection,
            "protection.two_person",
            False,
            "true or false (true: some overrides need two PINs)",
        ),
        False,
    )
    life = None if hours is None else float(hours)
    return Protection(checks, hands, life, shuffle, blocks, two)


def _devices(
    devices: Mapping[str, Any], base: Path
) -> tuple[DevicePort, DevicePort | None, Serials]:
    """The shoe's port and the seat board's (None: no seat board), and the serials their
    HELLOs must report (``serial``, optional: any serial when absent). ``base`` resolves a
    deck file's relative path."""
    no_unknown(devices, {"shoe", "seat_board", "console"}, "devices.")
    shoe_section = section(devices, "devices.shoe")
    shoe_serial = _serial(shoe_section, "devices.shoe")
    shoe = _port(_without_serial(shoe_section), "devices.shoe", base)
    if "seat_board" not in devices:
        return shoe, None, Serials(shoe_serial)
    board = section(devices, "devices.seat_board")
    enabled = board.get("enabled", True)
    if not isinstance(enabled, bool):
        raise ConfigError("devices.seat_board.enabled", enabled, "true or false")
    if not enabled:
        return shoe, None, Serials(shoe_serial)
    settings = {key: value for key, value in _without_serial(board).items() if key != "enabled"}
    serials = Serials(shoe_serial, _serial(board, "devices.seat_board"))
    if settings.get("transport") == "pcsc" and "deck" not in settings and shoe.pcsc:
        settings["deck"] = str(shoe.pcsc.deck)  # the shoe's deck, unless the seats name one
    return shoe, _port(settings, "devices.seat_board", base), serials


#: The serial of PC/SC readers: their names as pcscd gives them (a seat board's joined by
#: ", " in the order of its seats), spaces and brackets included; no control characters.
READER_NAMES = re.compile(r"[^\x00-\x1f\x7f]{1,1000}")


def _serial(device: Mapping[str, Any], key: str) -> str | None:
    """The serial a device's HELLO must report (``serial``), None when the table names none;
    for PC/SC readers, the readers' names (``luck-table devices`` lists them)."""
    if "serial" not in device:
        return None
    if device.get("transport") == "pcsc":
        allowed = "the reader names as pcscd gives them (luck-table devices), joined by ', '"
        return text(device, f"{key}.serial", pattern=READER_NAMES, allowed=allowed)
    return text(device, f"{key}.serial", pattern=ID_PATTERN, allowed="letters, digits, '_.-'")


def _without_serial(device: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in device.items() if key != "serial"}


def _port(data: Mapping[str, Any], key: str, base: Path) -> DevicePort:
    transport = data.get("transport", MISSING)
    link = _link(data.get("link", {}), f"{key}.link")
    if transport == "serial":
        no_unknown(data, {"transport", "port", "baud", "link"}, f"{key}.")
        port = text(data, f"{key}.port")
        baud = whole(data, f"{key}.baud", 1, default=115200)
        return DevicePort(port, baud, link)
    if transport == "usb":
        known = {"transport", "vendor_id", "product_id", "serial_number", "link"}
        no_unknown(data, known, f"{key}.")
        vendor = whole(data, f"{key}.vendor_id", 0, high=0xFFFF)
        product = whole(data, f"{key}.product_id", 0, high=0xFFFF)
        url = f"usb://{vendor:04x}:{product:04x}"
        if "serial_number" in data:
            url += f"?serial={quote(text(data, f'{key}.serial_number'), safe='')}"
        return DevicePort(url, link=link)
    if transport == "pcsc":
        return _pcsc(data, key, base, link)
    raise ConfigError(f"{key}.transport", transport, "one of serial, usb, pcsc")


def _pcsc(data: Mapping[str, Any], key: str, base: Path, link: LinkConfig) -> DevicePort:
    """PC/SC readers: the shoe's ``reader``, or the seats' ``readers`` (seat number ->
    reader-name pattern); ``deck``, the deck file."""
    shoe = key == "devices.shoe"
    no_unknown(data, {"transport", "reader" if shoe else "readers", "deck", "link"}, f"{key}.")
    readers: dict[str, str] = {}
    if shoe:
        readers["shoe"] = _pattern(data, f"{key}.reader")
    else:
        seats = section(data, f"{key}.readers")
        if not seats:
            raise ConfigError(f"{key}.readers", {}, "a reader pattern for at least one seat")
        for seat in seats:
            if seat not in {str(number) for number in range(1, 9)}:
                raise ConfigError(f"{key}.readers.{seat}", seats[seat], "seats 1 to 8")
            readers[seat] = _pattern(seats, f"{key}.readers.{seat}")
    pcsc = PcscReaders(readers, base / text(data, f"{key}.deck"))
    return DevicePort(pcsc.url, link=link, pcsc=pcsc)


def _pattern(data: Mapping[str, Any], key: str) -> str:
    """A reader-name pattern: a regular expression, searched in each reader's name."""
    pattern = text(data, key)
    try:
        re.compile(pattern)
    except re.error as error:
        raise ConfigError(key, pattern, f"a regular expression ({error})") from None
    return pattern


def _link(data: object, key: str) -> LinkConfig:
    if not isinstance(data, Mapping):
        raise ConfigError(key, data, "a table of link settings")
    try:
        return LinkConfig.from_mapping(data)
    except (DriverError, TypeError) as error:
        raise ConfigError(key, dict(data), str(error)) from None


def _console(console: Mapping[str, Any], problems: Problems = FIRST) -> Console:
    problems.unknown(console, {"idle_lock", "escalate_after"}, "console.")
    return Console(
        *(
            problems.check(partial(seconds, console, f"console.{name}", 10, 3600, default), default)
            for name, default in (
                ("idle_lock", Console.idle_lock),
                ("escalate_after", Console.escalate_after),
            )
        )
    )


def _studio(studio: Mapping[str, Any], test_mode: bool, problems: Problems = FIRST) -> Studio:
    known = {"delay", "token_hours", "bonus_hold", "odds_while_dealing"}
    problems.unknown(studio, known, "studio.")
    delay = problems.check(partial(_delay, studio, test_mode), MIN_STUDIO_DELAY)
    hours = studio.get("token_hours", Studio.token_hours)
    number = isinstance(hours, int | float) and not isinstance(hours, bool)
    if not number or not 0.01 <= hours <= MAX_STUDIO_TOKEN_HOURS:
        allowed = f"a number of hours, 0.01 to {MAX_STUDIO_TOKEN_HOURS:g}"
        hours = problems.refuse(ConfigError("studio.token_hours", hours, allowed), 1.0)
    hold = problems.check(
        partial(seconds, studio, "studio.bonus_hold", 0, MAX_BONUS_HOLD, Studio.bonus_hold),
        Studio.bonus_hold,
    )
    while_dealing = problems.check(
        partial(flag, studio, "studio.odds_while_dealing", Studio.odds_while_dealing), False
    )
    return Studio(float(delay), float(hours), hold, while_dealing)


def _delay(studio: Mapping[str, Any], test_mode: bool) -> float:
    """The studio's delay in minutes."""
    delay = studio.get("delay", MIN_STUDIO_DELAY)
    number = isinstance(delay, int | float) and not isinstance(delay, bool)
    if not number or not 0 <= delay <= MAX_STUDIO_DELAY:
        allowed = f"a number of minutes, {MIN_STUDIO_DELAY:g} to {MAX_STUDIO_DELAY:g}"
        raise ConfigError("studio.delay", delay, allowed)
    if delay < MIN_STUDIO_DELAY and not test_mode:
        raise ConfigError(
            "studio.delay",
            delay,
            f"at least {MIN_STUDIO_DELAY:g} minutes: the studio sees every hole card, so it "
            "lags the table at least this long (less only with [table] test_mode = true)",
        )
    return float(delay)


def _floor(floor: object, problems: Problems = FIRST) -> FloorSettings | None:
    """The ``[floor]`` section (None, while gathering, when it is not a table at all)."""
    if not isinstance(floor, Mapping):
        return problems.refuse(ConfigError("floor", floor, "a table of settings ([floor])"), None)
    take = problems.check
    problems.unknown(floor, {"dsn", "batch", "retry_initial", "retry_max", "heartbeat"}, "floor.")
    dsn = take(partial(check_dsn, floor.get("dsn", MISSING)), "")
    batch = take(partial(whole, floor, "floor.batch", 1, high=10_000, default=500), 500)
    initial = take(partial(seconds, floor, "floor.retry_initial", 0.01, 60, 0.5), 0.5)
    most = take(partial(seconds, floor, "floor.retry_max", initial, 3600, 30.0), 30.0)
    heartbeat = take(partial(seconds, floor, "floor.heartbeat", 0.1, 600, 5.0), 5.0)
    return FloorSettings(dsn, batch, initial, most, heartbeat)


if __name__ == "__main__":
    # ``python -m controller.config hash-pin``, as older notes say: ``luck-table hash-pin``
    from controller.cli import main

    sys.exit(main(sys.argv[1:]))
