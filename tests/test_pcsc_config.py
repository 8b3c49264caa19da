"""PC/SC readers in the configuration, and deck files: no pcscd needed."""

from __future__ import annotations

import asyncio
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from controller.config import DevicePort, Lacking, PcscReaders, lacking, parse_config
from controller.config_file import ConfigError
from controller.intake import Intake
from controller.table import Serials
from drivers.errors import DriverError
from drivers.pcsc.deck import (
    DeckFileError,
    card_code,
    deck_in_order,
    deck_text,
    parse_deck,
    read_deck,
    write_deck,
)
from drivers.protocol import DeviceKind
from drivers.session import LinkConfig

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "deploy" / "table.example.toml"
UIDS = [bytes([4, 0, 0, 0, 0, 1, n]) for n in range(52)]
CUT = bytes.fromhex("04000000000200")


def example() -> dict:
    with EXAMPLE.open("rb") as file:
        return tomllib.load(file)


def test_pcsc_shoe_and_seat_readers_with_the_shoes_deck_file(tmp_path: Path) -> None:
    data = example()
    data["devices"]["shoe"] = {
        "transport": "pcsc",
        "reader": "^ACS ACR1252 .* 00 00$",
        "deck": "deck.csv",
    }
    data["devices"]["seat_board"] = {"transport": "pcsc", "readers": {"1": "seat-1", "8": "seat-8"}}
    config = parse_config(data, tmp_path)
    assert config.shoe.pcsc is not None and config.shoe.pcsc.readers == {
        "shoe": "^ACS ACR1252 .* 00 00$"
    }
    assert config.shoe.pcsc.deck == tmp_path / "deck.csv" and not config.shoe.serial
    assert config.seat_board is not None and config.seat_board.pcsc is not None
    assert config.seat_board.pcsc.readers == {"1": "seat-1", "8": "seat-8"}
    assert config.seat_board.pcsc.deck == tmp_path / "deck.csv"  # the shoe's deck
    assert config.seat_board.url == "pcsc:1=seat-1,8=seat-8"


def test_a_pcsc_devices_serial_is_its_readers_names_as_pcscd_gives_them(tmp_path: Path) -> None:
    name = "ACS ACR1252 Dual Reader [ACR1252 Dual Reader PICC] (1.23.456) 00 00"
    data = example()
    shoe = {"transport": "pcsc", "reader": "ACR", "deck": "d.csv", "serial": name}
    data["devices"]["shoe"] = shoe
    data["devices"]["seat_board"] = {
        "transport": "pcsc",
        "readers": {"1": "seat-1", "2": "seat-2"},
        "serial": "Seat 1 Reader 00 00, Seat 2 Reader 00 00",  # the driver's LinkUp serial
        "deck": "deck.csv",
    }
    serials = parse_config(data, tmp_path).settings.serials
    assert serials == Serials(name, "Seat 1 Reader 00 00, Seat 2 Reader 00 00")
    data["devices"]["shoe"]["serial"] = "Reader\n00 00"
    with pytest.raises(ConfigError) as refused:
        parse_config(data, tmp_path)
    assert refused.value.key == "devices.shoe.serial"
    data["devices"]["shoe"] = {"transport": "serial", "port": "/dev/ttyS0", "serial": name}
    with pytest.raises(ConfigError) as refused:  # a wire device's is an id: no spaces
        parse_config(data, tmp_path)
    assert (refused.value.key, refused.value.value) == ("devices.shoe.serial", name)


@pytest.mark.parametrize(
    ("device", "section", "key"),
    [
        ("shoe", {"transport": "pcsc", "reader": "(", "deck": "d"}, "devices.shoe.reader"),
        ("shoe", {"transport": "pcsc", "reader": "r"}, "devices.shoe.deck"),
        ("shoe", {"transport": "pcsc", "readers": {"1": "r"}, "deck": "d"}, "devices.shoe.readers"),
        (
            "seat_board",
            {"transport": "pcsc", "readers": {"9": "r"}, "deck": "d"},
            "devices.seat_board.readers.9",
        ),
        (
            "seat_board",
            {"transport": "pcsc", "readers": {}, "deck": "d"},
            "devices.seat_board.readers",
        ),
        ("shoe", {"transport": "nfc", "reader": "r"}, "devices.shoe.transport"),
    ],
)
def test_a_pcsc_device_refused_names_its_key(
    tmp_path: Path, device: str, section: dict, key: str
) -> None:
    data = example()
    data["devices"][device] = section
    with pytest.raises(ConfigError) as error:
        parse_config(data, tmp_path)
    assert error.value.key == key


def test_a_deck_file_round_trips_owner_only_and_names_the_line_of_an_error(tmp_path: Path) -> None:
    deck = deck_in_order(UIDS, CUT)
    path = tmp_path / "deck.csv"
    write_deck(path, deck)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = read_deck(path)
    assert (
        again == deck and again.deck_id == deck.deck_id and again.card(UIDS[51]) == card_code("As")
    )
    assert again.card(CUT) is None and again.cut == CUT
    text = deck_text(deck)
    with pytest.raises(DeckFileError, match=r"d, line 10: tag 04000000000107 is on two lines"):
        parse_deck(text.replace(UIDS[8].hex(), UIDS[7].hex()), "d")
    with pytest.raises(DeckFileError, match="missing 2c"):
        parse_deck("\n".join(text.splitlines()[2:]), "d")
    with pytest.raises(DeckFileError, match=r"line 1: 'Xz' is not a card"):
        parse_deck("04000000,Xz\n", "d")
    with pytest.raises(DeckFileError, match="4, 7 or 10 bytes"):
        parse_deck("0400,2c\n", "d")
    assert card_code("10d") == card_code("Td") == 8 * 4 + 1


def test_a_pcsc_shoe_whose_deck_file_is_missing_is_absent_with_the_reason_and_waited_for(
    tmp_path: Path,
) -> None:
    told: list[tuple[str, float | None]] = []
    stopping = asyncio.Event()

    async def absent(error: DriverError, retry: float | None) -> None:
        told.append((str(error), retry))
        if len(told) == 2:
            stopping.set()

    async def journal(batch: object) -> None:
        raise AssertionError("no deck, no events")

    deck = tmp_path / "deck.csv"
    readers = PcscReaders({"shoe": "shoe reader"}, deck)
    port = DevicePort(
        readers.url, link=LinkConfig(backoff_initial=0.01, backoff_max=0.02), pcsc=readers
    )
    intake = Intake(DeviceKind.SHOE, port)
    asyncio.run(asyncio.wait_for(intake.run(journal, absent, stopping), 10))
    assert [retry for _, retry in told] == [0.01, 0.02]
    assert f"deck file {deck}" in told[0][0]


def test_sim_on_pcsc_readers_refuses_what_a_reader_cannot_do() -> None:
    luck_table = str(Path(sys.executable).parent / "luck-table")
    refused = subprocess.run(
        [luck_table, "sim", "--hardware", "pcsc", "--cheats", "0.1"],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 2
    assert "--cheats: not with --hardware pcsc" in refused.stderr


def test_the_protections_lacking_with_each_kind_of_hardware(tmp_path: Path) -> None:
    """docs/hardware.md's table, "Which protections hold with which hardware", as data."""
    data = example()
    data["devices"]["seat_board"] = {"transport": "serial", "port": "/dev/ttyUSB1"}
    wire = parse_config(data, tmp_path)
    assert lacking(wire.shoe, wire.seat_board) == ()  # a wire shoe and seat board: every one
    assert lacking(wire.shoe, None) == (Lacking.SEAT_CHECKS, Lacking.PLAYER_AWAY)
    data["devices"]["shoe"] = {"transport": "pcsc", "reader": "shoe", "deck": "deck.csv"}
    data["devices"]["seat_board"] = {"transport": "pcsc", "readers": {"1": "seat-1"}}
    readers = parse_config(data, tmp_path)
    shoe_only = (
        Lacking.READ_COUNTER,
        Lacking.DECK_LOADED,
        Lacking.RETAG_CHECK,
        Lacking.REJECT_TRAY,
        Lacking.BACKLOG,
    )
    assert lacking(readers.shoe, readers.seat_board) == (*shoe_only, Lacking.PLAYER_AWAY)
    assert lacking(readers.shoe, None) == (*shoe_only, Lacking.SEAT_CHECKS, Lacking.PLAYER_AWAY)
    assert lacking(wire.shoe, readers.seat_board) == (Lacking.BACKLOG, Lacking.PLAYER_AWAY)
