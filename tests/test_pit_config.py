"""The floor service's configuration: every value checked, the key and why in the error."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.config_file import ConfigError, describe_dsn
from dealer_ui.auth import hash_pin, verify_pin
from dealer_ui.pit.config import load_floor_config, parse_floor_config

HASH = hash_pin("999999")
SUPERVISORS = {"supervisors": [{"id": "pit", "pin_hash": HASH}]}


def config(**sections: object) -> dict[str, object]:
    return {"floor": {"dsn": "host=db dbname=floor"}, "credentials": SUPERVISORS, **sections}


def test_a_full_configuration() -> None:
    found = parse_floor_config(
        config(
            floor={"dsn": "postgresql://pit@db.casino:5433/floor", "poll": 0.5, "listen": False},
            api={"bind": "0.0.0.0", "port": 9000},
            consoles={"T1": "https://t1.casino:8080/"},
        ),
        Path("."),
    )
    assert found.dsn == "postgresql://pit@db.casino:5433/floor"
    assert found.poll == 0.5
    assert not found.listen
    assert (found.api.bind, found.api.port) == ("0.0.0.0", 9000)
    assert found.consoles == {"T1": "https://t1.casino:8080"}
    assert [person.id for person in found.supervisors] == ["pit"]
    assert verify_pin(found.supervisors[0].pin_hash, "999999")
    assert describe_dsn(found.dsn) == "db.casino:5433/floor"


def test_defaults() -> None:
    found = parse_floor_config({"credentials": SUPERVISORS}, Path("."))
    assert found.dsn == ""  # given on the command line then
    assert (found.api.bind, found.api.port, found.poll) == ("127.0.0.1", 8090, 1.0)
    assert found.listen
    assert found.consoles == {}
    assert (found.statement_timeout, found.silent_after) == (5.0, 30.0)
    assert (found.gaming_day.starts, found.gaming_day.time_zone) == (6, "UTC")
    assert found.cash_log_threshold == 3000


def test_the_house_s_gaming_day_and_cash_threshold() -> None:
    house = {"gaming_day_starts": 4, "time_zone": "America/Los_Angeles", "cash_log_threshold": 2500}
    found = parse_floor_config(config(floor={"dsn": "host=db", **house}), Path("."))
    assert (found.gaming_day.starts, found.gaming_day.time_zone) == (4, "America/Los_Angeles")
    assert found.cash_log_threshold == 2500


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (config(floor={"dsn": "host=db port"}), "floor.dsn = 'host=db port': a PostgreSQL"),
        (config(floor={"dsn": ""}), "floor.dsn = '': a non-empty string"),
        (config(floor={"poll": 0}), "floor.poll = 0: seconds, 0.1..60"),
        (config(floor={"poll": True}), "floor.poll = True: seconds, 0.1..60"),
        (config(floor={"dns": "x"}), "floor.dns: unknown setting"),
        (config(floor={"listen": "yes"}), "floor.listen = 'yes': true or false"),
        (
            config(floor={"statement_timeout": 0}),
            "floor.statement_timeout = 0: a number of seconds, 0.1 to 600",
        ),
        (config(floor={"silent_after": 0.5}), "floor.silent_after = 0.5: a number of seconds"),
        (config(floor={"gaming_day_starts": 24}), "floor.gaming_day_starts = 24: the hour"),
        (config(floor={"gaming_day_starts": "6"}), "floor.gaming_day_starts = '6'"),
        (config(floor={"time_zone": "Mars/Olympus"}), "floor.time_zone = 'Mars/Olympus': a time"),
        (config(floor={"time_zone": 5}), "floor.time_zone = 5: a time zone"),
        (config(floor={"cash_log_threshold": 0}), "floor.cash_log_threshold = 0: chips, 1 or"),
        (config(floor={"cash_log_threshold": True}), "floor.cash_log_threshold = True"),
        (config(api={"port": 70000}), "api.port = 70000"),
        (config(consoles={"T1": "t1:8080"}), "consoles.T1 = 't1:8080': the console's http(s)"),
        (config(consoles={"T1": 8080}), "consoles.T1 = 8080"),
        (config(tables={}), "tables: unknown setting"),
        ({"floor": {}}, "credentials = (missing)"),
        (config(credentials={"supervisors": [{"id": "pit", "pin": "999999"}]}), "plain PINs"),
    ],
)
def test_bad_values_are_refused_with_the_key(data: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError) as error:
        parse_floor_config(data, Path("."))
    assert message in str(error.value)


def test_a_file_that_is_not_toml(tmp_path: Path) -> None:
    path = tmp_path / "floor.toml"
    path.write_text("[floor\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="is not valid TOML"):
        load_floor_config(path)
    with pytest.raises(ConfigError, match="cannot be read"):
        load_floor_config(tmp_path / "missing.toml")
