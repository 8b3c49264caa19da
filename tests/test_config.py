"""The table's TOML configuration: the example loads, and every bad value is refused with
its key, its value and what is allowed."""

from __future__ import annotations

import copy
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from controller.config import config_problems, load_config, parse_config
from controller.config_file import (
    MASK,
    MISSING,
    Api,
    ConfigError,
    Problems,
    check_dsn,
    masked_dsn,
)
from controller.journal.rotation import Rotation
from controller.rules import BonusTiming, Rules, Variant
from controller.table.settings import Protection, Serials
from dealer_ui.auth import hash_pin, verify_pin

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "deploy" / "table.example.toml"


def example() -> dict:
    with EXAMPLE.open("rb") as file:
        return tomllib.load(file)


@pytest.mark.slow
def test_example_loads_cleanly():
    config = load_config(EXAMPLE, example_pins=True)  # its published PINs: refused otherwise
    assert config.table_id == "T-01"
    assert config.settings.rules == Rules()
    assert (config.settings.min_buy_in, config.settings.max_buy_in) == (100, 1000)
    assert config.settings.seat_board
    assert config.shoe.url == "/dev/luck-shoe" and config.shoe.serial
    assert config.shoe.link.handshake_timeout == 3.0
    assert config.seat_board is not None and config.seat_board.url == "/dev/luck-seats"
    assert config.journal == Path("/var/lib/luck-table/T-01.sqlite")
    assert (config.api.bind, config.api.port, config.api.tls_cert) == ("127.0.0.1", 8080, None)
    assert config.console.idle_lock == 300
    assert config.console.escalate_after == 120
    assert config.settings.protection == Protection(tag_checks=True, shuffle_check=True)
    assert (config.studio.delay, config.studio.token_hours, config.test_mode) == (15, 12, False)
    assert verify_pin(config.supervisors[0].pin_hash, "123456")
    assert not verify_pin(config.supervisors[0].pin_hash, "1235")
    assert verify_pin(config.dealers[0].pin_hash, "567890")


def test_game_settings_reach_the_rules(tmp_path):
    data = example()
    data["game"] = {"variant": "seven-card-stud", "bonus_timing": "end_of_street", "ante": 2}
    rules = parse_config(data, tmp_path).settings.rules
    assert rules.variant is Variant.SEVEN_CARD_STUD
    assert rules.bonus_timing is BonusTiming.END_OF_STREET and rules.ante == 2


def test_time_collection_reaches_the_table_and_is_instead_of_a_rake(tmp_path):
    data = example()
    data["table"].update(time_charge=6, time_period=60)
    settings = parse_config(data, tmp_path).settings
    assert (settings.time_charge, settings.time_period) == (6, 60)
    assert parse_config(example(), tmp_path).settings.time_charge == 0
    data["game"] = {"rake_percent": 5, "rake_cap": 3}
    with pytest.raises(ConfigError) as caught:
        parse_config(data, tmp_path)
    assert caught.value.key == "table.time_charge"
    assert "instead of a rake" in str(caught.value)


def test_the_journal_rotates_every_200_hands_unless_told(tmp_path):
    assert load_config(EXAMPLE, example_pins=True).rotation == Rotation(200, 0)
    data = example()
    del data["journal"]["segment_hands"], data["journal"]["segment_megabytes"]
    assert parse_config(data, tmp_path).rotation == Rotation(200, 0)
    data["journal"].update(segment_hands=0, segment_megabytes=64)
    assert parse_config(data, tmp_path).rotation == Rotation(0, 64)


def test_optional_parts(tmp_path):
    data = example()
    del data["game"], data["api"], data["console"], data["devices"]["shoe"]["link"]
    del data["protection"]
    data["devices"]["seat_board"] = {"enabled": False}
    config = parse_config(data, tmp_path)
    assert config.seat_board is None and not config.settings.seat_board
    assert config.settings.rules == Rules() and config.api.port == 8080
    assert config.console.idle_lock == 300
    assert config.console.escalate_after == 120
    assert config.settings.protection == Protection(tag_checks=True, shuffle_check=True)


def test_protection_settings_reach_the_table(tmp_path):
    data = example()
    data["protection"] = {
        "tag_checks": False,
        "deck_hands": 250,
        "deck_hours": 6,
        "shuffle_check": False,
        "unverified_blocks": True,
        "two_person": True,
    }
    protection = parse_config(data, tmp_path).settings.protection
    assert protection == Protection(
        tag_checks=False,
        deck_hands=250,
        deck_hours=6.0,
        shuffle_check=False,
        unverified_blocks=True,
        two_person=True,
    )


def test_the_devices_serials_reach_the_table(tmp_path):
    data = example()
    assert parse_config(data, tmp_path).settings.serials == Serials()  # none named: any
    data["devices"]["shoe"]["serial"] = "SHOE-0042"
    data["devices"]["seat_board"]["serial"] = "SEATS-7"
    config = parse_config(data, tmp_path)
    assert config.settings.serials == Serials("SHOE-0042", "SEATS-7")
    assert config.shoe.url == "/dev/luck-shoe"  # the serial is not the port's
    data["devices"]["seat_board"] = {"enabled": False, "serial": "SEATS-7"}
    assert parse_config(data, tmp_path).settings.serials == Serials("SHOE-0042")


def test_usb_device_and_relative_journal(tmp_path):
    data = example()
    data["devices"]["shoe"] = {
        "transport": "usb",
        "vendor_id": 0x1D50,
        "product_id": 0x6018,
        "serial_number": "SHOE-1",
    }
    data["journal"]["path"] = "data/table.sqlite"
    config = parse_config(data, tmp_path)
    assert config.shoe.url == "usb://1d50:6018?serial=SHOE-1" and not config.shoe.serial
    assert config.journal == tmp_path / "data" / "table.sqlite"


def test_tls_files_are_checked(tmp_path):
    (tmp_path / "cert.pem").write_text("cert")
    (tmp_path / "key.pem").write_text("key")
    data = example()
    data["api"].update(tls_cert="cert.pem", tls_key="key.pem")
    assert parse_config(data, tmp_path).api.tls_key == tmp_path / "key.pem"


def _set(path: str, value: object):
    def change(data: dict) -> None:
        *parents, last = path.split(".")
        node = data
        for name in parents:
            node = node[int(name)] if isinstance(node, list) else node.setdefault(name, {})
        if value is _DELETE:
            del node[last]
        else:
            node[last] = value

    return change


_DELETE = object()

BAD = [
    ("table.id", "", "table.id = ''", "non-empty"),
    ("table.id", "T 1", "table.id = 'T 1'", "letters, digits"),
    ("table.name", 7, "table.name = 7", "non-empty string"),
    ("table.seats", 9, "table.seats:", "unknown setting"),
    ("table.player_decisions", 1, "table.player_decisions = 1", "true or false"),
    ("table.time_charge", -1, "table.time_charge = -1", "a whole number, 0 or more"),
    ("table.time_period", 0, "table.time_period = 0", "a whole number, 1 to 1440"),
    ("table.time_period", 2000, "table.time_period = 2000", "a whole number, 1 to 1440"),
    ("game.ante", 0, "game.ante = 0", "positive"),
    ("game.ante", 1.5, "game.ante = 1.5", "not a whole number"),
    ("game.variant", "holdem", "game.variant = 'holdem'", "luck-of-the-irish"),
    ("game.burn", "yes", "game.burn = 'yes'", "true or false"),
    ("game.bring_in", 9, "game.bring_in = 9", "must not exceed the small bet"),
    ("game.bonus_price", -1, "game.bonus_price = -1", "0 (free)"),
    ("game.max_raises", -1, "game.max_raises = -1", "0 or more"),
    ("game.showdown", "fast", "game.showdown = 'fast'", "auto, manual"),
    ("game.wilds", 2, "game.wilds:", "unknown setting"),
    ("stakes.min_buy_in", 0, "stakes.min_buy_in = 0", "1 or more"),
    ("stakes.max_buy_in", 50, "stakes.max_buy_in = 50", "at least min_buy_in (100)"),
    ("stakes.max_buy_in", _DELETE, "stakes.max_buy_in = (missing)", "whole number"),
    ("devices.shoe.transport", "tcp", "devices.shoe.transport = 'tcp'", "serial, usb"),
    ("devices.shoe.port", "", "devices.shoe.port = ''", "non-empty"),
    ("devices.shoe.baud", 0, "devices.shoe.baud = 0", "1 or more"),
    ("devices.shoe.parity", "N", "devices.shoe.parity:", "unknown setting"),
    ("devices.shoe.link.backoff_max", -1, "devices.shoe.link = {", "positive number"),
    ("devices.shoe.link.silence", 1, "devices.shoe.link = {", "unknown link setting"),
    ("devices.seat_board.enabled", "on", "devices.seat_board.enabled = 'on'", "true or false"),
    ("devices.lamp", {}, "devices.lamp:", "unknown setting"),
    ("journal.path", _DELETE, "journal.path = (missing)", "non-empty string"),
    ("api.bind", "not a host!", "api.bind = 'not a host!'", "an IP address or a host name"),
    ("api.port", 70000, "api.port = 70000", "1 to 65535 (0: any free port"),
    ("api.port", "8080", "api.port = '8080'", "1 to 65535 (0: any free port"),
    ("api.tls_cert", "missing.pem", "api.tls_cert = 'missing.pem'", "no such file"),
    ("console.idle_lock", 5, "console.idle_lock = 5", "a number of seconds, 10 to 3600"),
    ("console.idle_lock", "5m", "console.idle_lock = '5m'", "a number of seconds, 10 to 3600"),
    ("console.escalate_after", 3, "console.escalate_after = 3", "a number of seconds, 10 to"),
    ("console.lock", 60, "console.lock:", "unknown setting"),
    ("protection.tag_checks", "no", "protection.tag_checks = 'no'", "true or false (false: a"),
    ("protection.deck_hands", 0, "protection.deck_hands = 0", "a whole number of hands, 1 or"),
    ("protection.deck_hands", 1.5, "protection.deck_hands = 1.5", "a whole number of hands"),
    ("protection.deck_hours", 0, "protection.deck_hours = 0", "hours over 0, at most 168"),
    ("protection.deck_hours", "8h", "protection.deck_hours = '8h'", "hours over 0, at most 168"),
    ("protection.deck_hours", 169, "protection.deck_hours = 169", "hours over 0, at most 168"),
    ("protection.deck_life", 2, "protection.deck_life:", "unknown setting"),
    ("protection.shuffle_check", 1, "protection.shuffle_check = 1", "true or false"),
    ("protection.unverified_blocks", 1, "protection.unverified_blocks = 1", "true or false"),
    ("protection.two_person", "yes", "protection.two_person = 'yes'", "true or false (true:"),
    ("api.trusted_proxies", "10.0.0.5", "api.trusted_proxies = '10.0.0.5'", "a list of IP"),
    ("api.trusted_proxies", ["proxy"], "api.trusted_proxies = 'proxy'", "IP addresses or net"),
    ("api.allowed_hosts", ["not a host!"], "api.allowed_hosts = 'not a host!'", "host names"),
    ("api.allowed_origins", ["pit.lan"], "api.allowed_origins = 'pit.lan'", "origins (https:"),
    ("api.allowed_origins", ["https://pit.lan/x"], "api.allowed_origins = 'https:", "origins"),
    ("api.max_body", 10, "api.max_body = 10", "1024 to 67108864"),
    ("api.max_header", True, "api.max_header = True", "a whole number"),
    ("api.request_timeout", 0, "api.request_timeout = 0", "seconds, 0.1 to 600"),
    ("api.max_connections", 0, "api.max_connections = 0", "1 to 100000"),
    ("api.max_websockets", "8", "api.max_websockets = '8'", "1 to 100000"),
    ("api.docs", "yes", "api.docs = 'yes'", "true or false"),
    ("api.max_message", 16, "api.max_message = 16", "128 to 1048576"),
    ("api.messages_per_second", 0, "api.messages_per_second = 0", "a number a second"),
    ("api.write_burst", 0, "api.write_burst = 0", "1 to 100000"),
    ("api.address_writes_per_second", "9", "api.address_writes_per_second = '9'", "a second"),
    ("api.feed_penalty", -1, "api.feed_penalty = -1", "seconds, 0 to 3600"),
    ("api.refusal_fold", 0, "api.refusal_fold = 0", "seconds, 0.1 to 3600"),
    ("api.debug", True, "api.debug:", "unknown setting"),
    ("credentials.supervisors", [], "credentials.supervisors = []", "at least one"),
    ("credentials.dealers.0.pin", "1234", "credentials.dealers[0].pin", "plain PINs are refused"),
    (
        "credentials.dealers.0.pin_hash",
        "1234",
        "credentials.dealers[0].pin_hash = '1234'",
        "an Argon2 hash",
    ),
    (
        "credentials.dealers.0.pin_hash",
        "$argon2id$broken",
        "credentials.dealers[0].pin_hash = '$argon2id$broken'",
        "well-formed",
    ),
    ("credentials.dealers.0.id", "", "credentials.dealers[0].id = ''", "non-empty"),
    ("credentials.auditors", [], "credentials.auditors:", "unknown setting"),
    ("journal", "x.sqlite", "journal = 'x.sqlite'", "a table of settings"),
    ("journal.segment_hands", -1, "journal.segment_hands = -1", "0 or more"),
    ("journal.segment_megabytes", 1.5, "journal.segment_megabytes = 1.5", "a whole number"),
    ("ledger", {}, "ledger:", "unknown setting"),
    ("devices.shoe.serial", "", "devices.shoe.serial = ''", "non-empty"),
    ("devices.shoe.serial", "SHOE 1", "devices.shoe.serial = 'SHOE 1'", "letters, digits"),
    ("devices.seat_board.serial", 7, "devices.seat_board.serial = 7", "non-empty string"),
    ("game.rake_percent", 101, "game.rake_percent = 101", "0 (no rake) to 100"),
    ("game.rake_percent", 2.5, "game.rake_percent = 2.5", "a whole number"),
    ("game.rake_percent", 5, "game.rake_cap = 0", "positive number of chips with a rake"),
    ("game.rake_step", -1, "game.rake_step = -1", "must not be negative"),
    ("game.rake_from", "fifth_street", "game.rake_from = 'fifth_street'", "third_street, fourth"),
    ("game.jackpot_drop", 1, "game.jackpot_drop_at = 0", "a positive pot size"),
    ("game.jackpot_drop_at", -5, "game.jackpot_drop_at = -5", "must not be negative"),
]


@pytest.mark.parametrize(("path", "value", "shown", "allowed"), BAD)
def test_bad_value_is_refused_with_key_value_and_allowed(tmp_path, path, value, shown, allowed):
    data = example()
    _set(path, value)(data)
    with pytest.raises(ConfigError) as caught:
        parse_config(data, tmp_path)
    message = str(caught.value)
    assert message.startswith(shown), message
    assert allowed in message, message
    assert caught.value.key == shown.split(" = ")[0].rstrip(":")
    gathering = Problems(gather=True)  # serve --check: the same problem first, then on
    parse_config(data, tmp_path, gathering)
    assert gathering.found and str(gathering.found[0]) == message


#: Wrong values of every part of a file, none depending on another: each is found.
SEVERAL = {
    "table.id": "T 1",
    "table.seats": 9,
    "stakes.max_buy_in": 50,
    "game.ante": 0,
    "devices.shoe.baud": 0,
    "journal.segment_hands": -1,
    "api.port": 70000,
    "api.docs": "yes",
    "api.allowed_origins": ["pit.lan"],
    "console.idle_lock": 5,
    "protection.deck_hours": 0,
    "protection.two_person": "yes",
    "credentials.dealers.0.pin_hash": "1234",
    "studio.delay": 1,
    "floor.dsn": "floor.casino",
    "floor.batch": 0,
    "ledger": {},
}


def test_every_wrong_value_of_a_file_is_found_at_once(tmp_path):
    data = example()
    data["floor"] = {}
    for path, value in SEVERAL.items():
        _set(path, value)(data)
    gathering = Problems(gather=True)
    config = parse_config(data, tmp_path, gathering)
    assert config.table_id == "?"  # a stand-in: the configuration is thrown away
    found = {error.key.replace("[0]", ".0"): str(error) for error in gathering.found}
    assert set(found) == set(SEVERAL), gathering.found
    assert "at least min_buy_in (100)" in found["stakes.max_buy_in"]
    assert "at least 15 minutes" in found["studio.delay"]
    assert found["table.seats"].startswith("table.seats: unknown setting")
    with pytest.raises(ConfigError) as caught:  # serve: the first alone
        parse_config(data, tmp_path)
    assert str(caught.value) == str(gathering.found[0])


def test_a_file_s_problems_include_its_example_pins_and_an_unreadable_file(tmp_path):
    config, found = config_problems(EXAMPLE, example_pins=False)
    assert config is not None and config.table_id == "T-01"
    assert [error.key for error in found] == [
        "credentials.supervisors[0].pin_hash",
        "credentials.dealers[0].pin_hash",
    ]
    assert config_problems(EXAMPLE, example_pins=True)[1] == []
    bad = tmp_path / "bad.toml"
    bad.write_text("[table\nid = 1\n")
    config, found = config_problems(bad)
    assert config is None and len(found) == 1 and "is not valid TOML" in str(found[0])


def test_duplicate_ids_and_lone_tls_key(tmp_path):
    data = example()
    data["credentials"]["dealers"].append(copy.deepcopy(data["credentials"]["dealers"][0]))
    with pytest.raises(ConfigError) as twice:  # each id once
        parse_config(data, tmp_path)
    assert (twice.value.key, twice.value.value) == ("credentials.dealers[1].id", "D200")
    (tmp_path / "key.pem").write_text("key")
    data = example()
    data["api"]["tls_key"] = "key.pem"
    with pytest.raises(ConfigError) as lone:  # tls_cert and tls_key go together
        parse_config(data, tmp_path)
    assert lone.value.key == "api.tls_cert" and lone.value.value is MISSING


def test_unreadable_and_malformed_files(tmp_path):
    with pytest.raises(ConfigError, match="cannot be read"):
        load_config(tmp_path / "absent.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[table\nid = 1\n")
    with pytest.raises(ConfigError, match="is not valid TOML"):
        load_config(bad)


@pytest.mark.slow
def test_hash_pin_round_trip_and_refusals():
    stored = hash_pin("246802")
    assert stored.startswith("$argon2id$") and "246802" not in stored
    assert verify_pin(stored, "246802") and not verify_pin(stored, "246803")
    assert not verify_pin("not a hash", "246802")
    with pytest.raises(ValueError, match="at least 6 digits"):
        hash_pin("12345")


@pytest.mark.slow
def test_hash_pin_command_prints_a_hash_that_verifies():
    done = subprocess.run(
        [sys.executable, "-m", "controller.config", "hash-pin"],
        input="975310\n",
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert verify_pin(done.stdout.strip(), "975310")
    wrong = subprocess.run(
        [sys.executable, "-m", "controller.config"],
        check=False,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert wrong.returncode == 2 and "usage" in wrong.stderr


def test_the_floor_is_off_by_default_and_its_settings_load(tmp_path):
    assert parse_config(example(), tmp_path).floor is None
    data = example()
    data["floor"] = {"dsn": "host=floor.casino dbname=floor user=T-01"}
    floor = parse_config(data, tmp_path).floor
    assert floor is not None and floor.dsn == "host=floor.casino dbname=floor user=T-01"
    assert (floor.batch, floor.retry_initial, floor.retry_max, floor.heartbeat) == (
        500,
        0.5,
        30.0,
        5.0,
    )
    data["floor"] = {
        "dsn": "postgresql://T-01@floor.casino:5433/floor?sslmode=verify-full",
        "batch": 50,
        "retry_initial": 1,
        "retry_max": 10.5,
        "heartbeat": 2,
    }
    floor = parse_config(data, tmp_path).floor
    assert floor is not None
    assert (floor.batch, floor.retry_initial, floor.retry_max, floor.heartbeat) == (50, 1, 10.5, 2)


FLOOR_BAD = [
    ({}, "floor.dsn = (missing)", "non-empty string"),
    ({"dsn": ""}, "floor.dsn = ''", "non-empty string"),
    ({"dsn": 5432}, "floor.dsn = 5432", "non-empty string"),
    ({"dsn": "floor.casino"}, "floor.dsn = 'floor.casino'", "a PostgreSQL connection string"),
    ({"dsn": "host=x colour=blue"}, "floor.dsn = 'host=x colour=blue'", 'option "colour"'),
    ({"dsn": "host=x", "password": "p"}, "floor.password:", "unknown setting"),
    ({"dsn": "host=x", "batch": 0}, "floor.batch = 0", "1 to 10000"),
    ({"dsn": "host=x", "batch": 2.5}, "floor.batch = 2.5", "1 to 10000"),
    ({"dsn": "host=x", "retry_initial": 0}, "floor.retry_initial = 0", "0.01 to 60"),
    ({"dsn": "host=x", "retry_initial": "1s"}, "floor.retry_initial = '1s'", "seconds"),
    ({"dsn": "host=x", "retry_initial": 5, "retry_max": 2}, "floor.retry_max = 2", "5 to 3600"),
    ({"dsn": "host=x", "heartbeat": True}, "floor.heartbeat = True", "0.1 to 600"),
    ("host=x", "floor = 'host=x'", "a table of settings"),
]


def test_the_example_s_floor_section_loads_once_uncommented(tmp_path):
    lines = EXAMPLE.read_text().splitlines()
    start = lines.index("# [floor]")
    section = []
    for line in lines[start:]:
        if not line.startswith("# "):
            break
        section.append(line[2:])
    path = tmp_path / "table.toml"
    path.write_text(EXAMPLE.read_text() + "\n" + "\n".join(section) + "\n")
    floor = load_config(path, example_pins=True).floor
    assert floor is not None and floor.dsn.startswith("host=floor.casino.lan dbname=floor ")
    assert (floor.batch, floor.retry_initial, floor.retry_max, floor.heartbeat) == (
        500,
        0.5,
        30.0,
        5.0,
    )


@pytest.mark.parametrize(("floor", "shown", "allowed"), FLOOR_BAD)
def test_bad_floor_settings_are_refused(tmp_path, floor, shown, allowed):
    data = example()
    data["floor"] = floor
    with pytest.raises(ConfigError) as caught:
        parse_config(data, tmp_path)
    message = str(caught.value)
    assert message.startswith(shown), message
    assert allowed in message, message


@pytest.mark.slow
def test_serve_refuses_a_bad_floor_with_status_2(tmp_path):
    config = tmp_path / "table.toml"
    config.write_text(EXAMPLE.read_text() + '\n[floor]\ndsn = "floor.casino"\n')
    done = subprocess.run(
        [str(Path(sys.executable).parent / "luck-table"), "serve", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "floor.dsn = 'floor.casino': a PostgreSQL connection string" in done.stderr


def test_what_the_console_lets_in_is_configured_with_safe_defaults(tmp_path):
    data = example()
    assert parse_config(data, tmp_path).api == Api()  # the example keeps the defaults
    assert (Api.max_body, Api.request_timeout, Api.trusted_proxies, Api.docs) == (
        65536,
        30.0,
        (),
        False,
    )
    data["api"].update(
        trusted_proxies=["10.0.0.5", "10.1.0.0/16"],
        allowed_hosts=["table-1.casino.lan"],
        allowed_origins=["https://pit.casino.lan:8090"],
        max_body=1024,
        request_timeout=5,
        docs=True,
        max_message=1024,
        messages_per_second=0.5,
        write_burst=10,
        refusal_fold=30,
    )
    api = parse_config(data, tmp_path).api
    assert api.trusted_proxies == ("10.0.0.5", "10.1.0.0/16")
    assert api.allowed_hosts == ("table-1.casino.lan",)
    assert api.allowed_origins == ("https://pit.casino.lan:8090",)
    assert (api.max_body, api.request_timeout, api.docs) == (1024, 5.0, True)
    assert (api.max_message, api.messages_per_second, api.write_burst) == (1024, 0.5, 10)
    assert api.refusal_fold == 30.0


SECRET = "s3cr3t-Pa55"


@pytest.mark.parametrize(
    "dsn",
    [
        f"host=db password={SECRET} port",  # a word without '=' after it
        f"host=db password='{SECRET}' colour=blue",  # an unknown keyword
        f"host=db password={SECRET} junk",  # a word without '='
        f"host=db password='{SECRET}",  # an unterminated quote
        f"host=db password={SECRET[:5]} {SECRET[5:]}",  # a space in the password
        f"postgresql://pit:{SECRET}@db:5432/floor?colour=blue",
        f"postgresql://pit:{SECRET}@[db/floor",  # libpq quotes the whole string
        f"postgresql://pit@[db:5432/floor?password={SECRET}",
        f"postgresql://pit@db/floor?password={SECRET}%zz",  # libpq quotes the password
        f"postgresql://pit@db/floor?password={SECRET}&colour=blue",
    ],
)
def test_a_connection_string_in_an_error_never_shows_its_password(dsn):
    with pytest.raises(ConfigError) as caught:
        check_dsn(dsn)
    for text in (str(caught.value), repr(caught.value.value)):
        assert SECRET not in text and SECRET[:5] not in text and SECRET[5:] not in text, text
    assert MASK in str(caught.value) and "floor.dsn = " in str(caught.value)


def test_a_connection_string_shown_masks_only_its_password():
    assert masked_dsn(f"host=db user=pit password={SECRET} dbname=floor") == (
        f"host=db user=pit password={MASK} dbname=floor"
    )
    assert masked_dsn(f"postgresql://pit:{SECRET}@db:5433/floor") == (
        f"postgresql://pit:{MASK}@db:5433/floor"
    )
    assert masked_dsn("host=db user=pit") == "host=db user=pit"


def test_the_table_s_floor_dsn_error_never_shows_its_password(tmp_path):
    data = example()
    data["floor"] = {"dsn": f"host=floor.casino password={SECRET} colour=blue"}
    with pytest.raises(ConfigError) as caught:
        parse_config(data, tmp_path)
    assert SECRET not in str(caught.value) and 'option "colour"' in str(caught.value)


@pytest.mark.parametrize("section", ["floor", "api"])
def test_an_unknown_key_s_value_is_never_shown_it_may_be_a_secret(tmp_path, section):
    data = example()
    data.setdefault(section, {"dsn": "host=x"})["password"] = "hunter2-s3cret"
    with pytest.raises(ConfigError) as caught:
        parse_config(data, tmp_path)
    assert str(caught.value).startswith(f"{section}.password: unknown setting")
    assert "hunter2" not in str(caught.value)
