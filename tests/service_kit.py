"""Configurations and simulator processes for the table service's tests."""

from __future__ import annotations

from pathlib import Path

from controller.config import Config, load_config
from dealer_ui.auth import hash_pin
from firmware_sim.process import SimulatorProcess

BAUD = 115200
#: The example configuration's people (supervisor S100, PIN 123456; dealer D200, PIN 567890)
#: with hashes of their own: the example's published hashes are refused.
CREDENTIALS = f"""
[[credentials.supervisors]]
id = "S100"
pin_hash = "{hash_pin("123456")}"

[[credentials.dealers]]
id = "D200"
pin_hash = "{hash_pin("567890")}"
"""
#: Who signs in with them: a supervisor and a dealer.
SUPERVISOR = {"supervisor": "S100", "pin": "123456"}
DEALER = {"id": "D200", "pin": "567890"}


def write_config(
    folder: Path,
    shoe_port: str,
    seats_port: str | None = None,
    *,
    journal: str = "table.sqlite",
    game: str = "",
    table: str = "",
    link: str = "backoff_initial = 0.05\nbackoff_max = 0.2",
    table_id: str = "T-TEST",
    floor: str = "",
    protection: str = "tag_checks = false",
    journal_lines: str = "",
    shoe_lines: str = "",
) -> Path:
    """A table configuration file in ``folder`` for these ports (``floor``: the lines of
    a ``[floor]`` section; ``journal_lines``: more lines of ``[journal]``; ``shoe_lines``:
    more lines of ``[devices.shoe]``, its ``serial``); its path.
    ``protection``: the lines of its ``[protection]``; by default without tag checks: the
    service's tests are not about the cards' tags (game protection's are:
    tests/test_sim_service_floor.py, the scenarios)."""
    seats = (
        f'[devices.seat_board]\ntransport = "serial"\nport = "{seats_port}"\nbaud = {BAUD}\n'
        f"[devices.seat_board.link]\n{link}\n"
        if seats_port is not None
        else "[devices.seat_board]\nenabled = false\n"
    )
    text = f"""
[table]
id = "{table_id}"
name = "test table"
{table}
[game]
{game}
[stakes]
min_buy_in = 100
max_buy_in = 1000
[protection]
{protection}
[devices.shoe]
transport = "serial"
port = "{shoe_port}"
baud = {BAUD}
{shoe_lines}
[devices.shoe.link]
{link}
{seats}
[journal]
path = "{journal}"
{journal_lines}
{"[floor]" if floor else ""}
{floor}
"""
    text += CREDENTIALS
    path = folder / "table.toml"
    path.write_text(text)
    return path


def config(folder: Path, shoe_port: str, seats_port: str | None = None, **options: str) -> Config:
    return load_config(write_config(folder, shoe_port, seats_port, **options))


def simulator(device: str, seed: int = 1, serial: str | None = None) -> SimulatorProcess:
    """A simulator process on a pty at the table's line speed."""
    args = ["--pty", "--baud", str(BAUD), "--seed", str(seed), "--heartbeat-ms", "200"]
    if serial is not None:
        args += ["--serial", serial]
    return SimulatorProcess(device, *args)
