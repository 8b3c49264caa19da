"""The table's records in the journal, recovery from snapshots, and the service's commands
(no devices: a shoe port that does not exist)."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from controller.history.hands import recorded_hands
from controller.journal import Input, Journal, JournalError
from controller.journal.device_events import to_input
from controller.journal.snapshots import Snapshots
from controller.records import record_of, table_inputs
from controller.rules import DECK, Do, Phase
from controller.service import TableService, recover, steps
from controller.table import AlertKind, Configure, Decide, NewHand, SitDown, TableSettings, VoidHand
from controller.table import inputs as ti
from drivers import events as ev
from drivers.events import DeviceId
from drivers.protocol import DeviceKind, Disposition, FaultCode
from tests.device_inputs import (
    card_at_seat,
    card_read,
    card_unreadable,
    deck_card,
    deck_loaded,
    device_fault,
    device_fault_cleared,
    seat_occupied,
    seat_vacated,
)
from tests.service_kit import config, write_config
from tests.waiting import async_wait_until, wait_until

pytestmark = pytest.mark.slow  # the service and serve's processes

LUCK_TABLE = str(Path(sys.executable).parent / "luck-table")
SHOE = ev.DeviceInfo(DeviceKind.SHOE, "SHOE-1", 7, "/dev/pts/9", (1, 0, 0), 1)
BOARD = ev.DeviceInfo(DeviceKind.SEAT_BOARD, "SEATS-1", 3, "/dev/pts/8", (1, 0, 0), 1)


def mapped(event: ev.Event, info: ev.DeviceInfo = SHOE) -> tuple[ti.TableInput, ...]:
    device = None if isinstance(event, ev.LinkUp) else to_input(ev.LinkUp(info, ""), None, 0).device
    return table_inputs(to_input(event, device, 1_700_000_000.25))


AT = 1_700_000_000_250


def test_every_driver_event_becomes_the_table_input_with_the_service_time() -> None:
    """Each device's event is the table's input as the driver reported it, with the
    service's time, the device's kind and its seq of it; its table form (a table record's,
    a snapshot's) holds what the table acts on, in the table's names. A LinkUp with the
    device's boot id and its HELLO's numbers (docs/table.md, "Two devices, one table")."""
    forms = [
        (ev.CardRead(4, 51, 3, b"\x04\xa1"), SHOE, card_read(at=AT, code=51, uid="04a1", seq=4)),
        (
            ev.DeckCard(5, 9, 0, 51, b"\x04\xa1"),
            SHOE,
            deck_card(at=AT, deck=9, code=51, uid="04a1", seq=5),
        ),
        (
            ev.CardUnreadable(5, 4, Disposition.DEALT_UNREAD),
            SHOE,
            card_unreadable(at=AT, disposition=Disposition.DEALT_UNREAD, seq=5),
        ),
        (ev.DeckLoaded(6, 9, 52, 52), SHOE, deck_loaded(at=AT, count=52, seq=6)),
        (
            ev.DeckLoaded(6, 9, 52, 52, registered=True),
            SHOE,
            deck_loaded(at=AT, count=52, deck=9, seq=6),
        ),
        (
            ev.DeviceFault(7, FaultCode.LID_OPEN),
            SHOE,
            device_fault(at=AT, device=DeviceKind.SHOE, fault=FaultCode.LID_OPEN, seq=7),
        ),
        (
            ev.DeviceFaultCleared(8, FaultCode.SENSOR),
            BOARD,
            device_fault_cleared(
                at=AT, device=DeviceKind.SEAT_BOARD, fault=FaultCode.SENSOR, seq=8
            ),
        ),
        (ev.SeatOccupied(1, 3), BOARD, seat_occupied(at=AT, seat=3, seq=1)),
        (ev.SeatVacated(2, 3), BOARD, seat_vacated(at=AT, seat=3, seq=2)),
        (ev.CardAtSeat(3, 5, None), BOARD, card_at_seat(at=AT, seat=5, code=None, seq=3)),
        (
            ev.CardAtSeat(3, 5, 51, b"\x04\xa1"),
            BOARD,
            card_at_seat(at=AT, seat=5, code=51, uid="04a1", seq=3),
        ),
    ]
    for event, info, form in forms:
        (item,) = mapped(event, info)
        assert item == ti.FromDevice(at=AT, device=info.kind, seq=event.seq, event=event)
        assert item.to_json() == form.to_json()
    assert mapped(ev.LinkDown(ev.LinkDownReason.SILENCE, "nothing for 3 s")) == (
        ti.LinkDown(at=AT, device=DeviceKind.SHOE, reason="nothing for 3 s"),
    )
    # a HELLO's numbers not kept: None; its serial, checked against the configured one
    up = ti.LinkUp(at=AT, device=DeviceKind.SHOE, boot=7, serial=SHOE.serial)
    assert mapped(ev.LinkUp(SHOE, "HELLO")) == (up,)
    assert mapped(ev.LinkUp(SHOE, "HELLO", next_seq=9, pending=2)) == (
        ti.LinkUp(at=AT, device=DeviceKind.SHOE, boot=7, next_seq=9, pending=2, serial=SHOE.serial),
    )
    lost = (ev.LostEvents(6, 2, 3), ev.LostEvents(7, 0, 1))
    assert mapped(ev.LinkUp(SHOE, "restarted", previous_boot_id=6, lost=lost)) == (
        up,
        ti.DeviceRestarted(at=AT, device=DeviceKind.SHOE, lost=4),
    )
    assert mapped(ev.LinkUp(SHOE, "restarted", previous_boot_id=6)) == (
        up,
        ti.DeviceRestarted(at=AT, device=DeviceKind.SHOE, lost=None),  # what it held is unknown
    )
    assert mapped(ev.LinkUp(SHOE, "acknowledged elsewhere", lost=lost[1:])) == (
        up,
        ti.DeviceRestarted(at=AT, device=DeviceKind.SHOE, lost=1),
    )


def test_a_table_record_reads_back_and_a_bad_one_names_where() -> None:
    item = SitDown(at=AT, seat=2, player="Ann", buy_in=200)
    record = record_of(item)
    assert (record.source, record.type, record.recorded_at) == ("table", "sit_down", AT / 1000)
    assert table_inputs(record) == (item,)
    bad = record_of(item)
    bad.fields["seat"] = "two"
    with pytest.raises(JournalError, match=r"position 12: sit_down.seat: 'two'"):
        table_inputs(bad, "position 12")


def play_without_devices(tmp_path: Path, seats: int) -> str:
    settings = config(tmp_path, str(tmp_path / "no-shoe"))

    async def scenario() -> str:
        async with TableService(settings) as service:
            for seat in range(1, seats + 1):
                step = await service.submit(SitDown(at=0, seat=seat, player=f"P{seat}", buy_in=150))
                assert step.refused is None
            await async_wait_until(
                lambda: [alert.kind for alert in service.table.alerts] == [AlertKind.LINK_DOWN],
                "the one alert: the link down",
                10,
                detail=lambda: service.table.alerts,
            )
            return json.dumps(service.table.to_json())

    return asyncio.run(asyncio.wait_for(scenario(), 30))


def test_a_restart_recovers_the_same_table_and_journals_the_absence_once(tmp_path: Path) -> None:
    before = play_without_devices(tmp_path, 3)
    after = play_without_devices(tmp_path, 0)  # the shoe is still away: nothing to journal
    assert json.loads(after)["seats"] == json.loads(before)["seats"]
    with Journal.open(tmp_path / "table.sqlite", create=False) as journal:
        types = [entry.type for entry in journal.entries()]
    assert types.count("link_down") == 1 and types.count("configure") == 1


def test_recovery_without_usable_snapshots_replays_everything_to_the_same_table(
    tmp_path: Path,
) -> None:
    path = tmp_path / "table.sqlite"
    play_without_devices(tmp_path, 4)
    with Journal.open(path, create=False) as journal:
        snapshots = Snapshots(path)
        last = snapshots.last_position()
        full = recover(journal, snapshots)
        assert full.snapshot == 0 and full.replayed == last
        snapshots.save(last, 0, full.state())
        fast = recover(journal, snapshots)
        assert (fast.snapshot, fast.replayed) == (last, 0)
        assert json.dumps(fast.table.to_json()) == json.dumps(full.table.to_json())
        snapshots.save(last, 0, {"table": {"seats": "broken"}, "devices": {}})
        broken = recover(journal, snapshots)
        assert broken.snapshot == 0
        assert json.dumps(broken.table.to_json()) == json.dumps(full.table.to_json())
        table = None
        for _, step in steps(journal):
            table = step.table
        assert table is not None and table == full.table
        snapshots.close()


def test_serve_refuses_a_bad_configuration_with_status_2(tmp_path: Path) -> None:
    path = write_config(tmp_path, "/dev/null-shoe")
    path.write_text(path.read_text().replace("max_buy_in = 1000", "max_buy_in = 50"))
    result = subprocess.run(
        [LUCK_TABLE, "serve", "--config", str(path)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 2
    assert "stakes.max_buy_in = 50: a whole number, at least min_buy_in (100)" in result.stderr


def test_serve_runs_without_its_devices_and_stops_on_sigterm(tmp_path: Path) -> None:
    path = write_config(tmp_path, str(tmp_path / "no-shoe"), str(tmp_path / "no-seats"))
    process = subprocess.Popen(
        [LUCK_TABLE, "serve", "--config", str(path)], stderr=subprocess.PIPE, text=True
    )
    journal = tmp_path / "table.sqlite"

    def both_absences_journaled() -> bool:
        if not journal.exists():
            return False
        with sqlite3.connect(journal) as db:
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_schema")}
            return (
                "inputs" in tables
                and db.execute("SELECT count(*) FROM inputs WHERE type = 'link_down'").fetchone()[0]
                == 2  # the shoe and the seat board
            )

    wait_until(both_absences_journaled, "the shoe's and the seat board's link_down journaled")
    process.send_signal(signal.SIGTERM)
    _, errors = process.communicate(timeout=30)
    assert process.returncode == 0, errors
    assert "the shoe is not connected" in errors and "table service stopped" in errors
    assert "the seat board is not connected: serial port" in errors  # in words, as on screen


def test_history_of_a_missing_journal_or_hand_is_status_2(tmp_path: Path) -> None:
    missing = subprocess.run(
        [LUCK_TABLE, "history", "--journal", str(tmp_path / "none.sqlite")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert missing.returncode == 2 and "no journal at" in missing.stderr
    play_without_devices(tmp_path, 2)
    no_hand = subprocess.run(
        [LUCK_TABLE, "history", "--journal", str(tmp_path / "table.sqlite"), "--hand", "1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert no_hand.returncode == 2 and "hand 1 is not in" in no_hand.stderr


def test_a_voided_hand_replays_to_its_recorded_stacks_and_its_record_audits(
    tmp_path: Path,
) -> None:
    """A hand voided after a decision and more cards: its script keeps the cards before the
    last decision and ends with the void; the replay gives every chip back as recorded."""
    path = tmp_path / "table.sqlite"
    deck = [str(card) for card in DECK]
    shoe, records = third_street_dealt()
    with Journal.open(path) as journal:
        journal.append(records)
        table = None
        for _, step in steps(journal):
            table = step.table
        assert table is not None and table.hand is not None
        waiting = table.hand.waiting_for
        assert waiting is not None and waiting.kind == "action"
        more = [record_of(Decide(at=4, seat=waiting.seat, do=Do.BRING_IN))]
        more += [to_input(ev.CardRead(7 + n, 6 + n, 6 + n, b""), shoe, 1.0) for n in range(1)]
        more.append(record_of(VoidHand(at=5, who="S100", why="misdeal")))
        journal.append(more)
        (hand,) = recorded_hands(journal)
    assert hand.hand.phase is Phase.VOID
    script = hand.script_json()
    assert script["cards"] == deck[:6] and script["actions"][-1] == {"do": "void"}
    replay = hand.replay()
    assert replay.status == "complete" and hand.matches(replay)
    assert [p.stack for p in replay.hand.players] == [100, 100]
    result = subprocess.run(
        [LUCK_TABLE, "history", "--journal", str(path), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0 and json.loads(result.stdout)[0]["recorded"] is True
    # the audit: one hand of the history, as printed, replayed against its recorded outcome
    record = json.loads(history_json(path, "--hand", "1"))
    audited = replay_file(tmp_path / "hand1.json", record)
    assert audited.returncode == 0, audited.stderr
    assert "audit: hand 1 (" in audited.stdout and "replays to the outcome" in audited.stdout
    record["outcome"]["seats"]["1"]["stack"] = 99
    tampered = replay_file(tmp_path / "tampered.json", record)
    assert tampered.returncode == 1 and "AUDIT FAILED: hand 1" in tampered.stdout
    del record["outcome"]
    broken = replay_file(tmp_path / "broken.json", record)
    assert broken.returncode == 2 and "missing 'outcome'" in broken.stderr


def third_street_dealt() -> tuple[DeviceId, list[Input]]:
    """The shoe's journal device and the records of a hand at two seats whose third
    street's six cards are read (no decision yet)."""
    shoe = to_input(ev.LinkUp(SHOE, "HELLO"), None, 1.0).device
    records = [record_of(Configure(at=1, settings=TableSettings()))]
    records += [record_of(SitDown(at=2, seat=s, player=f"P{s}", buy_in=100)) for s in (1, 2)]
    records.append(to_input(ev.LinkUp(SHOE, "HELLO"), None, 1.0))
    records.append(to_input(ev.DeckLoaded(0, 1, 52, 52), shoe, 1.0))
    records.append(record_of(NewHand(at=3)))
    records += [to_input(ev.CardRead(1 + n, n, n, b""), shoe, 1.0) for n in range(6)]
    return shoe, records


def history_json(journal: Path, *args: str) -> str:
    command = [LUCK_TABLE, "history", "--journal", str(journal), "--json", *args]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def replay_file(path: Path, record: object) -> subprocess.CompletedProcess[str]:
    path.write_text(json.dumps(record))
    command = [LUCK_TABLE, "replay", str(path)]
    return subprocess.run(command, capture_output=True, text=True, check=False)


def test_serve_refuses_a_journal_with_a_record_it_cannot_read_with_status_1(
    tmp_path: Path,
) -> None:
    path = write_config(tmp_path, str(tmp_path / "no-shoe"))
    bad = record_of(SitDown(at=AT, seat=2, player="Ann", buy_in=200))
    bad.fields["buy_in"] = "lots"
    with Journal.open(tmp_path / "table.sqlite") as journal:
        journal.append([bad])
    result = subprocess.run(
        [LUCK_TABLE, "serve", "--config", str(path)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 1
    assert "position 1: sit_down.buy_in: 'lots' is not a whole number" in result.stderr


@pytest.mark.parametrize(
    ("folder", "problem"), [("lib/luck", "does not exist"), ("a-file", "is not a folder")]
)
def test_serve_makes_no_journal_folder_it_says_which_is_missing_with_status_1(
    tmp_path: Path, folder: str, problem: str
) -> None:
    """A state folder such as /var/lib/luck-table is the installer's (the unit's
    StateDirectory=): a hand run as root must not make one where the configuration says."""
    (tmp_path / "a-file").write_text("not a folder")
    path = write_config(tmp_path, str(tmp_path / "no-shoe"), journal=f"{folder}/T-01.sqlite")
    result = subprocess.run(
        [LUCK_TABLE, "serve", "--config", str(path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )
    assert result.returncode == 1
    where = tmp_path / folder
    said = f"luck-table serve: error: journal {where}/T-01.sqlite: its folder {where} {problem}"
    assert f"{said} (journal.path;" in result.stderr
    assert "StateDirectory=" in result.stderr
    assert not (tmp_path / "lib").exists()


def test_a_hand_still_in_progress_audits_as_far_as_it_went(tmp_path: Path) -> None:
    """The hand a journal ends in has no outcome yet: the audit says so, not 'the outcome'."""
    path = tmp_path / "table.sqlite"
    _, records = third_street_dealt()
    with Journal.open(path) as journal:
        journal.append(records)
    record = json.loads(history_json(path, "--hand", "1"))
    assert record["ended"] == "in progress"
    audited = replay_file(tmp_path / "hand1.json", record)
    assert audited.returncode == 0, audited.stderr
    assert "audit: hand 1 (" in audited.stdout
    assert "to in progress) replays to the table's hand as far as it went" in audited.stdout
