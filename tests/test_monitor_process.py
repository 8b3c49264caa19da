"""``luck-table monitor`` as its own process against simulator processes (pty and TCP).

The dealer's actions go through the simulators' control channels; the monitor's output is
read from its stdout, its notices from stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from test_firmware_sim_process import WAIT, Control, simulator

from controller.journal import Input, Journal, event_of, to_input
from controller.records import ACCESS, record_of
from controller.table import SitDown
from drivers import events as ev
from drivers.protocol import DeviceKind, Disposition
from drivers.session import LinkConfig
from firmware_sim import Cannot
from tests.waiting import async_wait_until

pytestmark = pytest.mark.slow  # processes

LUCK_TABLE = str(Path(sys.executable).with_name("luck-table"))


class Monitor:
    """A running ``luck-table monitor`` process."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []

    @classmethod
    async def start(cls, *args: str, output: int = subprocess.PIPE) -> Monitor:
        """Start it; ``output=subprocess.DEVNULL`` when nobody reads its lines."""
        process = await asyncio.create_subprocess_exec(
            LUCK_TABLE, "monitor", *args, stdout=output, stderr=subprocess.PIPE
        )
        return cls(process)

    async def until(self, condition: Callable[[str], bool], what: str) -> str:
        """The first stdout line that meets ``condition``, reading more lines while needed."""
        assert self.process.stdout is not None
        for line in self.lines:
            if condition(line):
                return line
        while True:
            raw = await asyncio.wait_for(self.process.stdout.readline(), WAIT)
            if not raw:
                error = await self.process.stderr.read()
                raise AssertionError(f"the monitor ended before {what}: {error.decode()}")
            line = raw.decode().rstrip("\n")
            self.lines.append(line)
            if condition(line):
                return line

    async def stop(self, signum: int = signal.SIGINT) -> tuple[int, str]:
        """Send ``signum``; returns the exit status and what it wrote on stderr."""
        self.process.send_signal(signum)
        out, err = await asyncio.wait_for(self.process.communicate(), WAIT)
        self.lines += (out or b"").decode().splitlines()
        return self.process.returncode, err.decode()

    async def kill(self) -> None:
        if self.process.returncode is None:
            self.process.kill()
            await self.process.wait()


@contextlib.asynccontextmanager
async def monitor(*args: str) -> AsyncIterator[Monitor]:
    running = await Monitor.start(*args)
    try:
        yield running
    finally:
        await running.kill()


async def run_monitor(*args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        LUCK_TABLE, "monitor", *args, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    out, err = await asyncio.wait_for(process.communicate(), WAIT)
    return process.returncode, out.decode(), err.decode()


#: A shoe of protocol version 1 (a load is one DECK event), for what registration is not about.
V1 = ("--protocol-version", "1")


def test_it_prints_each_event_of_the_shoe_and_the_seat_board_and_stops_on_sigint():
    async def scenario() -> None:
        async with (
            simulator("shoe", "--pty", "--seed", "3", "--serial", "SHOE-A") as (shoe, _),
            simulator("seats", "--pty", "--seed", "4", "--serial", "SEATS-B") as (seats, _),
            monitor("--shoe", shoe["pty"], "--seats", seats["pty"]) as running,
        ):
            dealer, board = (
                await Control.connect(shoe["control"]),
                await Control.connect(seats["control"]),
            )
            for serial in ("SHOE-A", "SEATS-B"):
                await running.until(lambda line, s=serial: f"{s} boot" in line, f"{serial} up")
            boot = (await dealer("status"))["boot_id"]
            await dealer("load cards=As,4c,2c deck_id=7")
            await dealer("draw")
            await dealer("draw unreadable")
            await dealer("jam")
            await board("sit 3")
            await board("place 3 As uid=04000000070033")
            await running.until(lambda line: "card As at seat 3" in line, "the card at seat 3")
            await running.until(lambda line: "fault: jam" in line, "the jam")
            status, errors = await running.stop(signal.SIGINT)
            assert (status, errors) == (0, "")
            shown = {
                line.split(": ", 1)[0].split(" ", 1)[1]: line.split(": ", 1)[1]
                for line in running.lines
            }
            at = f"shoe SHOE-A boot {boot} seq"
            assert [shown[f"{at} {seq}"] for seq in range(4)] == [
                "deck 7 registers card 1: 2c, uid 04000000070000",  # in tag order
                "deck 7 registers card 2: 4c, uid 04000000070008",
                "deck 7 registers card 3: As, uid 04000000070033",
                "deck 7 loaded: 3 cards, 3 in the shoe, registered card by card",
            ]
            assert shown[f"{at} 4"] == "card As (read counter 0, uid 04000000070033)"
            assert shown[f"{at} 5"] == "unreadable card, rejected to the tray (read counter 1)"
            assert shown[f"{at} 6"] == "fault: jam"
            seat_lines = [line for line in running.lines if "SEATS-B" in line]
            assert [line.split(": ", 1)[1] for line in seat_lines[1:]] == [
                "seat 3 occupied",
                "card As at seat 3, uid 04000000070033",
            ]

    asyncio.run(scenario())


def test_json_lines_say_type_fields_device_boot_seq_and_time_and_sigterm_stops_it():
    async def scenario() -> None:
        async with (
            simulator("shoe", "--pty", "--seed", "3", "--serial", "SHOE-J", *V1) as (shoe, _),
            monitor("--shoe", shoe["pty"], "--json") as running,
        ):
            dealer = await Control.connect(shoe["control"])
            first = json.loads(await running.until(lambda line: "LinkUp" in line, "LinkUp"))
            boot = (await dealer("status"))["boot_id"]
            assert first["fields"]["device"]["serial"] == "SHOE-J"
            await dealer("load cards=Kd,10h deck_id=3")
            drawn = [(await dealer("draw"))["event"]["uid"] for _ in range(2)]
            await running.until(lambda line: '"seq": 2' in line, "the second card")
            status, _ = await running.stop(signal.SIGTERM)
            assert status == 0
            deck, king, ten = (json.loads(line) for line in running.lines[1:4])
            assert set(king) == {
                "time",
                "source",
                "type",
                "device",
                "serial",
                "boot_id",
                "seq",
                "fields",
                "position",
                "duplicate",
            }
            assert (king["source"], king["type"]) == ("device", "CardRead")
            assert (king["device"], king["serial"]) == ("shoe", "SHOE-J")
            assert (king["boot_id"], king["seq"], king["position"]) == (boot, 1, None)
            assert king["fields"] == {"card": 45, "read_counter": 0, "uid": drawn[0]}
            assert ten["fields"]["card"] == 34 and ten["seq"] == 2
            assert deck["fields"] == {
                "deck_id": 3,
                "cards_loaded": 2,
                "cards_remaining": 2,
                "registered": False,
            }
            assert king["time"].endswith("Z") and king["time"] >= first["time"]

    asyncio.run(scenario())


def free_tcp_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_it_waits_for_an_absent_device_saying_so_and_takes_it_when_it_comes():
    async def scenario() -> None:
        port = free_tcp_port()
        async with monitor("--shoe", f"socket://127.0.0.1:{port}", "--json") as running:
            notice = await asyncio.wait_for(running.process.stderr.readline(), WAIT)
            assert notice.decode().startswith(
                f"luck-table monitor: waiting for the shoe on socket://127.0.0.1:{port}: "
                "nothing listens"
            )
            assert f"retry in {LinkConfig().backoff_initial:g} s" in notice.decode()  # the link's
            async with simulator("shoe", "--tcp", f"127.0.0.1:{port}", "--serial", "LATE") as (
                shoe,
                _,
            ):
                up = json.loads(await running.until(lambda line: "LinkUp" in line, "LinkUp"))
                assert up["serial"] == "LATE"
                await (await Control.connect(shoe["control"]))("load cards=2c")
                await running.until(lambda line: "DeckLoaded" in line, "the deck")
                status, _ = await running.stop()
                assert status == 0

    asyncio.run(scenario())


def test_sigterm_while_waiting_for_a_device_stops_it_cleanly(tmp_path):
    async def scenario() -> None:
        absent = str(tmp_path / "no-shoe-here")
        async with monitor("--shoe", absent) as running:
            notice = await asyncio.wait_for(running.process.stderr.readline(), WAIT)
            assert f"serial port {absent} does not exist" in notice.decode()
            status, _ = await running.stop(signal.SIGTERM)
            assert (status, running.lines) == (0, [])

    asyncio.run(scenario())


def test_a_wrong_device_stops_it_with_status_2():
    async def scenario() -> None:
        async with simulator("seats", "--pty", "--serial", "SEATS-W") as (seats, _):
            status, out, err = await run_monitor("--shoe", seats["pty"])
        assert (status, out) == (2, "")
        assert err == (
            f"luck-table monitor: error: {seats['pty']}: expected a shoe, but a seat_board "
            "(serial SEATS-W) answered\n"
        )

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--shoe", "nosuch://x"], "cannot use serial port 'nosuch://x'"),
        (["--shoe", "usb://zz:1"], "usb://zz:1: vendor id 'zz' is not a hexadecimal number"),
        ([], "give --shoe PORT, --seats PORT or both"),
        (["--dump"], "--dump needs --journal FILE"),
        (["--dump", "--journal", "j", "--shoe", "/dev/null"], "--dump or devices to watch"),
        (["--dump", "--journal", "{missing}"], "no journal at {missing}"),
        (["--dump", "--journal", "{text}"], "{text} is not a luck-table journal"),
        (["--shoe", "/dev/null", "--journal", "{text}"], "{text} is not a luck-table journal"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(tmp_path, args, message):
    text = tmp_path / "notes.txt"
    text.write_text("seat 3 calls\n" * 200)
    names = {"missing": str(tmp_path / "missing"), "text": str(text)}
    args = [arg.format(**names) for arg in args]
    status, out, err = asyncio.run(run_monitor(*args))
    assert (status, out) == (2, "")
    assert err.startswith("luck-table monitor: error: ") and message.format(**names) in err
    assert err.count("\n") == 1  # one line, no traceback


def test_dump_prints_what_a_journal_holds(tmp_path):
    path = tmp_path / "table.journal"
    info = ev.DeviceInfo(DeviceKind.SHOE, "SHOE-D", 42, "/dev/pts/9", (1, 0, 0), 1)
    events = [
        ev.LinkUp(info, "HELLO from shoe SHOE-D"),
        ev.CardRead(0, 51, 0, b"\x04\x00"),
        ev.CardUnreadable(1, 1, Disposition.DEALT_UNREAD),
        ev.LinkDown(ev.LinkDownReason.CONNECTION_LOST, "cable pulled"),
    ]
    with Journal.open(path) as journal:
        journal.append([to_input(e, info.id, 1_800_000_000.5) for e in events])
    status, out, err = asyncio.run(run_monitor("--journal", str(path), "--dump"))
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        "2027-01-15T08:00:00.500Z shoe SHOE-D boot 42 #1: link up: HELLO from shoe SHOE-D",
        "2027-01-15T08:00:00.500Z shoe SHOE-D boot 42 seq 0 #2: card As (read counter 0, uid 0400)",
        "2027-01-15T08:00:00.500Z shoe SHOE-D boot 42 seq 1 #3: unreadable card, dealt unread "
        "(it is on the table) (read counter 1)",
        "2027-01-15T08:00:00.500Z shoe SHOE-D boot 42 #4: link down (connection_lost): "
        "cable pulled",
    ]
    status, out, err = asyncio.run(run_monitor("--journal", str(path), "--dump", "--json"))
    lines = [json.loads(line) for line in out.splitlines()]
    assert [(line["position"], line["type"], line["seq"]) for line in lines] == [
        (1, "LinkUp", None),
        (2, "CardRead", 0),
        (3, "CardUnreadable", 1),
        (4, "LinkDown", None),
    ]
    assert lines[1]["fields"] == {"card": 51, "read_counter": 0, "uid": "0400"}


def test_dump_prints_table_inputs_and_refused_sign_ins_by_their_source(tmp_path):
    """A table service's journal holds more than device events: the table's own inputs and,
    from the console, every refused sign-in or supervisor PIN (source ``access``)."""
    path = tmp_path / "table.sqlite"
    info = ev.DeviceInfo(DeviceKind.SHOE, "SHOE-D", 42, "/dev/pts/9", (1, 0, 0), 1)
    attempt = {"role": "dealer", "who": "D200", "action": "sign_in", "client": "10.0.0.7"}
    attempt |= {"status": 401, "reason": "wrong dealer id or PIN"}
    pin = {**attempt, "role": "supervisor", "who": "S100", "action": "void_hand", "by": "D200"}
    at = 1_800_000_000.5
    with Journal.open(path) as journal:
        journal.append(
            [
                record_of(SitDown(at=round(at * 1000), seat=2, player="Ann", buy_in=200)),
                to_input(ev.LinkUp(info, "HELLO from shoe SHOE-D"), None, at),
                to_input(ev.DeckLoaded(0, 7, 1, 1), info.id, at),
                Input(at, ACCESS, "failed_attempt", attempt),
                Input(at, ACCESS, "failed_attempt", {**pin, "status": 429, "reason": "locked"}),
            ]
        )
    status, out, err = asyncio.run(run_monitor("--journal", str(path), "--dump"))
    assert (status, err) == (0, "")
    time = "2027-01-15T08:00:00.500Z"
    assert out.splitlines() == [
        f'{time} table #1: sit_down {{"buy_in": 200, "player": "Ann", "seat": 2}}',
        f"{time} shoe SHOE-D boot 42 #2: link up: HELLO from shoe SHOE-D",
        f"{time} shoe SHOE-D boot 42 seq 0 #3: deck 7 loaded: 1 card, 1 in the shoe",
        f"{time} access #4: refused: dealer 'D200' signing in from 10.0.0.7: "
        "wrong dealer id or PIN (status 401)",
        f"{time} access #5: refused: supervisor 'S100' PIN for void_hand (asked by 'D200') "
        "from 10.0.0.7: locked (status 429)",
    ]
    status, out, err = asyncio.run(run_monitor("--journal", str(path), "--dump", "--json"))
    lines = [json.loads(line) for line in out.splitlines()]
    assert [
        (line["source"], line["device"], line["serial"], line["boot_id"]) for line in lines
    ] == [
        ("table", None, None, None),
        ("link", "shoe", "SHOE-D", 42),
        ("device", "shoe", "SHOE-D", 42),
        ("access", None, None, None),
        ("access", None, None, None),
    ]
    assert lines[3]["type"] == "failed_attempt" and lines[3]["fields"] == attempt


def journal_length(path: Path) -> int:
    """How many entries the journal holds."""
    with Journal.open(path, create=False) as journal:
        return sum(1 for _ in journal.entries())


def journal_cards(path: Path) -> dict[tuple[str, int], list[tuple[int, int]]]:
    """(serial, boot_id) -> the (seq, card) of every CardRead the journal holds, in order."""
    held: dict[tuple[str, int], list[tuple[int, int]]] = {}
    with Journal.open(path, create=False) as journal:
        for entry in journal.entries():
            event = event_of(entry)
            if isinstance(event, ev.CardRead):
                assert entry.device is not None
                key = (entry.device.serial, entry.device.boot_id)
                held.setdefault(key, []).append((event.seq, event.card))
    return held


def test_with_a_journal_each_event_is_written_once_across_restarts(tmp_path):
    path = tmp_path / "table.journal"

    async def scenario() -> None:
        async with simulator("shoe", "--pty", "--seed", "8", "--serial", "SHOE-R", *V1) as (
            shoe,
            _,
        ):
            dealer = await Control.connect(shoe["control"])
            boot = (await dealer("status"))["boot_id"]
            await dealer("load decks=1 seed=1")
            async with monitor("--shoe", shoe["pty"], "--journal", str(path)) as running:
                await running.until(lambda line: "link up" in line, "LinkUp")
                first = [(await dealer("draw"))["card"] for _ in range(3)]
                line = await running.until(lambda line: "seq 3 #" in line, "the third card")
                assert line.split(": ")[0].endswith(" #5")  # LinkUp, DECK, 3 cards
                assert (await running.stop())[0] == 0
            # drawn while no monitor runs: the device keeps them until a journal has them
            later = [(await dealer("draw"))["card"] for _ in range(2)]
            async with monitor("--shoe", shoe["pty"], "--journal", str(path), "--json") as again:
                line = json.loads(await again.until(lambda line: '"seq": 5' in line, "seq 5"))
                assert (line["position"], line["duplicate"]) == (8, False)  # + LinkDown, LinkUp
                assert (await again.stop())[0] == 0
            assert journal_cards(path) == {
                ("SHOE-R", boot): list(enumerate(first + later, start=1))
            }

    asyncio.run(scenario())


def test_events_the_journal_already_holds_are_reported_as_such_and_acknowledged(tmp_path):
    """A journal that committed events the device was never told of (a crash between the
    commit and the acknowledgement): the device sends them again; they are dropped."""
    path = tmp_path / "table.journal"

    async def scenario() -> None:
        async with simulator("shoe", "--pty", "--seed", "8", "--serial", "SHOE-C", *V1) as (
            shoe,
            _,
        ):
            dealer = await Control.connect(shoe["control"])
            status = await dealer("status")
            deck = await dealer("load cards=As,Kd deck_id=5")
            card = (await dealer("draw"))["event"]
            await dealer("draw")
            info = ev.DeviceInfo(
                DeviceKind.SHOE,
                "SHOE-C",
                status["boot_id"],
                shoe["pty"],
                (1, 0, 0),
                1,
            )
            held = [
                ev.LinkUp(info, "HELLO"),
                ev.DeckLoaded(0, deck["deck_id"], deck["cards_loaded"], deck["cards_remaining"]),
                ev.CardRead(1, card["card"], card["read_counter"], bytes.fromhex(card["uid"])),
            ]
            with Journal.open(path) as journal:
                journal.append([to_input(e, info.id, 1_800_000_000.0) for e in held])
            async with monitor("--shoe", shoe["pty"], "--journal", str(path)) as running:
                await running.until(lambda line: " seq 2 " in line, "the second card")
                assert [line.split(": ")[0].split(" boot ")[1] for line in running.lines[1:]] == [
                    f"{status['boot_id']} seq 0 (already in the journal)",
                    f"{status['boot_id']} seq 1 (already in the journal)",
                    f"{status['boot_id']} seq 2 #5",
                ]
                assert (await running.stop())[0] == 0
            assert (await dealer("status"))["pending"] == 0  # all acknowledged
            assert journal_cards(path) == {("SHOE-C", status["boot_id"]): [(1, 51), (2, 45)]}

    asyncio.run(scenario())


CARDS = 2000
KILLS = 10


@pytest.mark.slow
def test_killed_at_random_moments_the_journal_holds_every_card_once_in_order(tmp_path):
    """SIGKILL at 10 random moments while 2,000 cards are drawn; restarted on the same file.

    The dealer draws without pause; each kill comes once the monitor is journaling, so
    kills land while events are on the line, in the driver, or being committed.
    """
    path = tmp_path / "kill.journal"
    Journal.open(path).close()  # an empty journal the monitor takes on
    rng = random.Random(20261201)
    kill_after = sorted(rng.sample(range(1, CARDS), KILLS))

    async def deal(dealer: Control, drawn: list[int]) -> None:
        while len(drawn) < CARDS:
            reply = await dealer.raw("draw")
            if reply.startswith("ok "):
                drawn.append(json.loads(reply[3:])["card"])
            else:  # refused while the device's buffer is full of unacknowledged events
                assert reply.split()[:2] == ["error", Cannot.BUFFER_FULL], reply
                await asyncio.sleep(0.05)  # the scenario: the dealer tries again

    async def scenario() -> None:
        args = ("shoe", "--pty", "--seed", "11", "--serial", "SHOE-K", "--decks", "39", *V1)
        async with simulator(*args) as (shoe, _):
            dealer = await Control.connect(shoe["control"])
            key = ("SHOE-K", (await dealer("status"))["boot_id"])
            monitor_args = ("--shoe", shoe["pty"], "--journal", str(path))
            running = await Monitor.start(*monitor_args, output=subprocess.DEVNULL)
            drawn: list[int] = []
            dealing = asyncio.create_task(deal(dealer, drawn))
            try:
                for kill in kill_after:
                    held = len(journal_cards(path).get(key, []))
                    deadline = asyncio.get_running_loop().time() + 60

                    def at_work(held: int = held, kill: int = kill) -> bool:
                        """Past this kill's card and journaling since it started, or every
                        card drawn already journaled (nothing is left to journal)."""
                        if len(drawn) < kill:
                            return False  # (the journal is read only when it can tell)
                        journaled = len(journal_cards(path).get(key, []))
                        return journaled > held or journaled == CARDS

                    while not at_work():
                        assert asyncio.get_running_loop().time() < deadline, (kill, len(drawn))
                        await asyncio.sleep(rng.uniform(0, 0.005))  # a random moment
                    await running.kill()
                    restarted_at = journal_length(path)
                    running = await Monitor.start(*monitor_args, output=subprocess.DEVNULL)
                await asyncio.wait_for(dealing, 60)
                await async_wait_until(
                    lambda: CARDS in [seq for seq, _ in journal_cards(path).get(key, [])],
                    "the last card journaled",
                    60,
                    poll=0.2,
                )
                # the last monitor at work (its link journaled), not still starting: the
                # cards may all be in from the one killed before it
                await async_wait_until(
                    lambda: journal_length(path) != restarted_at, "the monitor up", 60
                )
                assert (await running.stop(signal.SIGTERM))[0] == 0
            finally:
                dealing.cancel()
                await running.kill()
            held = journal_cards(path)
            assert list(held) == [key]
            seqs = [seq for seq, _ in held[key]]
            lost = sorted(set(range(1, CARDS + 1)) - set(seqs))
            assert (lost, len(seqs) - len(set(seqs))) == ([], 0), "lost, duplicated"
            assert held[key] == list(enumerate(drawn, start=1))

    asyncio.run(scenario())
