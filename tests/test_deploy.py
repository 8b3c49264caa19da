"""The deploy files are well formed: the systemd unit (``systemd-analyze verify`` when the
machine has systemd, with the unit's ExecStart pointed at this checkout's luck-table), the
udev rules (each line parsed as udev reads it) and the sysusers file."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from configparser import ConfigParser
from pathlib import Path

import pytest

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"
UNIT = DEPLOY / "luck-table.service"
FLOOR_UNIT = DEPLOY / "luck-floor.service"
RELAY_UNIT = DEPLOY / "luck-relay.service"
RULES = DEPLOY / "99-luck-table.rules"
INSTALLED = "/opt/luck-table/venv/bin/luck-table"


def unit(path: Path = UNIT) -> ConfigParser:
    parser = ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(path.read_text())
    return parser


def test_the_unit_runs_serve_as_its_own_user_restarting_on_failure() -> None:
    service = unit()["Service"]
    assert service["ExecStart"] == f"{INSTALLED} serve --config /etc/luck-table/table.toml"
    assert service["Restart"] == "on-failure"
    assert service["RestartPreventExitStatus"] == "2"  # a configuration error: no loop
    assert service["User"] == "luck-table" and service["Group"] == "luck-table"
    assert service["StateDirectory"] == "luck-table"  # /var/lib/luck-table
    assert service["StandardError"] == "journal"
    example = (DEPLOY / "table.example.toml").read_text()
    assert 'path = "/var/lib/luck-table/' in example
    assert 'port = "/dev/luck-shoe"' in example and 'port = "/dev/luck-seats"' in example
    assert unit()["Install"]["WantedBy"] == "multi-user.target"


def test_the_example_journal_lies_in_the_folder_the_unit_makes() -> None:
    """The service makes no folder: the journal's is the unit's StateDirectory= (made by
    systemd as the service starts), so the example configuration runs as installed."""
    from controller.config import load_config  # noqa: PLC0415

    folder = Path("/var/lib") / unit()["Service"]["StateDirectory"]
    assert load_config(DEPLOY / "table.example.toml", example_pins=True).journal.parent == folder
    assert unit()["Service"]["WorkingDirectory"] == str(folder)


def test_the_floor_unit_runs_the_floor_service_with_the_example_configuration() -> None:
    from dealer_ui.pit.config import load_floor_config  # noqa: PLC0415

    service = unit(FLOOR_UNIT)["Service"]
    assert service["ExecStart"] == f"{INSTALLED} floor --config /etc/luck-table/floor.toml"
    assert service["Restart"] == "on-failure"
    assert service["RestartPreventExitStatus"] == "2"
    assert service["User"] == "luck-table"
    assert "Environment=PGPASSFILE=/etc/luck-table/floor.pgpass" in FLOOR_UNIT.read_text()
    example = load_floor_config(DEPLOY / "floor.example.toml", example_pins=True)
    assert example.api.port == 8090 and example.supervisors
    assert unit(FLOOR_UNIT)["Install"]["WantedBy"] == "multi-user.target"


def test_the_relay_unit_runs_a_relay_of_the_local_table() -> None:
    service = unit(RELAY_UNIT)["Service"]
    argv = service["ExecStart"].split()
    assert argv[:2] == [INSTALLED, "relay"]
    options = dict(zip(argv[2::2], argv[3::2], strict=True))
    assert options == {
        "--table-config": "/etc/luck-table/table.toml",  # its console's address and TLS
        "--bind": "0.0.0.0",
        "--port": "8091",
    }
    assert service["Restart"] == "on-failure"
    assert service["RestartPreventExitStatus"] == "2"
    assert service["User"] == "luck-table"
    assert unit(RELAY_UNIT)["Install"]["WantedBy"] == "multi-user.target"


@pytest.mark.parametrize("path", [UNIT, FLOOR_UNIT, RELAY_UNIT], ids=lambda path: path.stem)
def test_a_unit_that_keeps_failing_to_start_is_given_up_not_restarted_in_a_loop(
    path: Path,
) -> None:
    """Restart=on-failure with a start limit: 5 starts in 5 minutes at most (a journal
    that cannot be opened is waited for, not a failure: docs/operations.md)."""
    section = unit(path)["Unit"]
    assert int(section["StartLimitIntervalSec"]) == 300
    assert int(section["StartLimitBurst"]) == 5
    assert int(unit(path)["Service"]["RestartSec"]) * 5 < 300


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze here")
@pytest.mark.parametrize(
    "path",
    [
        UNIT,
        FLOOR_UNIT,
        RELAY_UNIT,
        DEPLOY / "luck-console-kiosk.service",
        DEPLOY / "luck-table-backup.service",
        DEPLOY / "luck-table-backup.timer",
        DEPLOY / "luck-floor-retention.service",
        DEPLOY / "luck-floor-retention.timer",
    ],
    ids=lambda path: path.name,
)
def test_systemd_analyze_verifies_the_unit(tmp_path: Path, path: Path) -> None:
    luck_table = Path(sys.executable).parent / "luck-table"
    copy = tmp_path / path.name
    copy.write_text(path.read_text().replace(INSTALLED, str(luck_table)))
    done = subprocess.run(
        ["systemd-analyze", "verify", str(copy)],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr


_PAIR = re.compile(r'\s*([A-Z_]+)(\{[^}]+\})?\s*(==|!=|\+=|-=|:=|=)\s*"([^"]*)"\s*(,|$)')
_MATCH = {"ACTION", "SUBSYSTEM", "DRIVER", "ATTR", "ATTRS", "ENV", "TEST", "KERNEL"}
_ASSIGN = {"SYMLINK", "GROUP", "MODE", "RUN", "ATTR", "ENV"}


def rule_lines() -> list[str]:
    lines = RULES.read_text().splitlines()
    return [line for line in lines if line.strip() and not line.lstrip().startswith("#")]


def parse_rule(line: str) -> list[tuple[str, str, str]]:
    """A rule's (key, operator, value) pairs, as udev reads them; ValueError if malformed."""
    pairs: list[tuple[str, str, str]] = []
    at = 0
    while at < len(line):
        found = _PAIR.match(line, at)
        if found is None:
            raise ValueError(f"cannot read {line[at:]!r}")
        key, operator, value = found.group(1), found.group(3), found.group(4)
        matching = operator in ("==", "!=")
        if key not in (_MATCH if matching else _ASSIGN):
            raise ValueError(f"{key}{operator}: not a key udev takes that way")
        pairs.append((key, operator, value))
        at = found.end()
    return pairs


def test_the_udev_rules_parse_and_name_the_shoe_and_the_seat_board() -> None:
    rules = [parse_rule(line) for line in rule_lines()]
    symlinks = {value for rule in rules for key, op, value in rule if key == "SYMLINK"}
    assert symlinks == {"luck-shoe", "luck-seats"}
    for rule in rules:
        assert any(op == "==" for _, op, _ in rule), rule  # every rule matches something
    assert any(("ATTR", "=", "1") in rule for rule in rules)  # the FTDI latency timer


@pytest.mark.parametrize("line", ['SUBSYSTEM="tty", SYMLINK+="x"', 'SUBSYSTEM=="tty" GROUP="a"'])
def test_the_rule_parser_refuses_malformed_lines(line: str) -> None:
    with pytest.raises(ValueError, match=r"cannot read|not a key"):
        parse_rule(line)


def test_the_sysusers_file_makes_the_user_and_lets_it_open_serial_ports() -> None:
    lines = (DEPLOY / "luck-table.sysusers.conf").read_text().splitlines()
    entries = [line.split()[:3] for line in lines if line and not line.startswith("#")]
    assert ["u", "luck-table", "-"] in entries and ["m", "luck-table", "dialout"] in entries


SECURITY = re.compile(r"Overall exposure level for \S+: (\d+\.\d+) (\w+)")
HARDENING = {
    "NoNewPrivileges": "yes",
    "CapabilityBoundingSet": "",
    "ProtectSystem": "strict",
    "DevicePolicy": "closed",
    "ProtectClock": "yes",
    "ProtectKernelLogs": "yes",
    "RestrictNamespaces": "yes",
    "SystemCallArchitectures": "native",
    "RestrictAddressFamilies": "AF_UNIX AF_INET AF_INET6 AF_NETLINK",
}


def test_the_table_unit_is_hardened_and_notifies_systemd() -> None:
    """Type=notify with a watchdog; no capabilities, devices closed but for the shoe's and the
    seat board's kinds, no clock, kernel logs or namespaces, a system-call filter."""
    service = unit()["Service"]
    assert service["Type"] == "notify" and int(service["WatchdogSec"]) > 0
    assert {key: service.get(key) for key in HARDENING} == HARDENING
    lines = UNIT.read_text().splitlines()
    allowed = sorted(line.split("=", 1)[1] for line in lines if line.startswith("DeviceAllow="))
    assert allowed == ["char-ttyACM rw", "char-ttyUSB rw", "char-usb_device rw"]
    filters = [line.split("=", 1)[1] for line in lines if line.startswith("SystemCallFilter=")]
    assert filters == ["@system-service", "~@privileged"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze here")
def test_systemd_analyze_security_rates_the_table_unit_ok() -> None:
    rated = subprocess.run(
        ["systemd-analyze", "security", "--offline=true", str(UNIT)],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    found = SECURITY.search(rated.stdout)
    assert found, rated.stdout + rated.stderr
    assert float(found[1]) <= 4.0 and found[2] == "OK", found[0]


def test_the_floor_s_retention_runs_daily_archiving_what_it_drops() -> None:
    timer = unit(DEPLOY / "luck-floor-retention.timer")
    assert timer["Timer"]["Persistent"] == "true" and "OnCalendar" in timer["Timer"]
    service = unit(DEPLOY / "luck-floor-retention.service")["Service"]
    assert service["Type"] == "oneshot" and service["User"] == "luck-table"
    argv = service["ExecStart"].split()
    assert argv[:2] == [INSTALLED, "floor-retention"]
    options = dict(zip(argv[2::2], argv[3::2], strict=True))
    assert options == {
        "--dsn": "${FLOOR_OWNER_DSN}",
        "--keep": "30",
        "--keep-hands": "400",
        "--archive": "/var/backups/luck-floor",
    }
    assert service["ReadWritePaths"] == "/var/backups/luck-floor"
    assert service["EnvironmentFile"] == "/etc/luck-table/floor-retention.env"


def test_the_kiosk_and_the_relay_follow_the_tables_console_and_its_tls() -> None:
    kiosk = unit(DEPLOY / "luck-console-kiosk.service")["Service"]
    assert "/run/luck-table/console.url" in kiosk["ExecStartPre"]
    assert '"$$(cat /run/luck-table/console.url)"' in kiosk["ExecStart"]
    assert unit()["Service"]["RuntimeDirectory"] == "luck-table"  # where serve writes it


def test_the_backup_timer_runs_the_backup_nightly_keeping_copies() -> None:
    timer = unit(DEPLOY / "luck-table-backup.timer")
    assert timer["Timer"]["Persistent"] == "true" and "OnCalendar" in timer["Timer"]
    service = unit(DEPLOY / "luck-table-backup.service")["Service"]
    assert service["Type"] == "oneshot" and service["User"] == "luck-table"
    argv = service["ExecStart"].split()
    assert argv[:2] == [INSTALLED, "backup"]
    options = dict(zip(argv[2::2], argv[3::2], strict=True))
    assert options == {
        "--config": "/etc/luck-table/table.toml",
        "--to": "/var/backups/luck-table",
        "--keep": "30",
    }
    assert service["ReadWritePaths"] == "/var/backups/luck-table"
