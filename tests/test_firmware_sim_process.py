"""The simulator as its own process and in-process runners, over a real pty and TCP.

The host side is pyserial (a pty path, ``socket://``) driven from asyncio; the
physical actions go through the control channel, as an engineer would send them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Callable

import pytest
import serial
from simhost import SimHost

from drivers.protocol import (
    CardMessage,
    Deck,
    DeckCardMessage,
    Fault,
    FaultCleared,
    FaultCode,
    Reset,
    SeatCard,
    SeatOccupied,
    Unreadable,
    encode_frame,
)
from firmware_sim import Cannot, SimulatedSeatBoard, SimulatedShoe
from firmware_sim.runner import WRITE_LIMIT, PtyRunner, TcpRunner
from tests.waiting import async_wait_until

pytestmark = pytest.mark.slow  # processes

WAIT = 10.0  # generous bound for a loaded CI machine; tests finish as soon as ready


class SerialHost:
    """A SimHost on a pyserial port; a thread-backed reader keeps the event loop free."""

    def __init__(self, url: str) -> None:
        """Open ``url`` and send RESET: opening discards input, so ask for HELLO as hosts do."""
        self.port = serial.serial_for_url(url, baudrate=115200, timeout=0.02)
        self.port.write(encode_frame(0, Reset(), 1))  # before a HELLO: version 1
        self.host = SimHost()
        self.closed = False
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        while True:
            try:
                data = await asyncio.to_thread(self.port.read, 4096)
            except serial.SerialException:  # the other end closed (TCP)
                self.closed = True
                return
            if data:
                self.host.feed(data)
                self.flush()

    def flush(self) -> None:
        out = self.host.take()
        if out:
            self.port.write(out)

    def send(self, message: object) -> None:
        self.host.send(message)
        self.flush()

    async def until(self, condition: Callable[[], object], what: str) -> None:
        await async_wait_until(condition, what, WAIT, poll=0.01)

    async def close(self) -> None:
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader
        self.port.close()


class Control:
    """The control channel of a simulator process."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def connect(cls, address: str) -> Control:
        host, port = address.rsplit(":", 1)
        return cls(*await asyncio.open_connection(host, int(port)))

    async def raw(self, line: str) -> str:
        self.writer.write(line.encode() + b"\n")
        await self.writer.drain()
        return (await asyncio.wait_for(self.reader.readline(), WAIT)).decode().rstrip("\n")

    async def __call__(self, line: str) -> object:
        reply = await self.raw(line)
        status, _, payload = reply.partition(" ")
        assert status == "ok", reply
        return json.loads(payload)

    async def refused(self, line: str) -> Cannot:
        """Why the simulator refuses ``line``: the code of its ``error`` reply (words after)."""
        reply = await self.raw(line)
        status, code, reason = reply.split(" ", 2)
        assert status == "error" and reason, reply
        return Cannot(code)


@contextlib.asynccontextmanager
async def simulator(*args: str) -> AsyncIterator[tuple[dict[str, str], subprocess.Popen]]:
    """Start ``python -m firmware_sim ARGS``; yields its announced addresses."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "firmware_sim", *args, stdout=subprocess.PIPE
    )
    announced: dict[str, str] = {}
    try:
        while "ready" not in announced:
            line = await asyncio.wait_for(process.stdout.readline(), WAIT)
            assert line, "the simulator exited before it was ready"
            key, _, value = line.decode().strip().partition(" ")
            announced[key] = value
        yield announced, process
    finally:
        if process.returncode is None:
            process.terminate()
            await asyncio.wait_for(process.wait(), WAIT)


def test_shoe_process_on_a_pty():
    async def scenario() -> None:
        args = ("shoe", "--pty", "--seed", "3", "--heartbeat-ms", "200", "--protocol-version", "1")
        async with simulator(*args, "--retransmit-timeout", "0.1") as (where, process):
            assert where["pty"].startswith("/dev/")
            control = await Control.connect(where["control"])
            link = SerialHost(where["pty"])
            await link.until(lambda: link.host.hellos, "HELLO")

            loaded = await control("load cards=As,4c,2c,Kd,10h deck_id=77")
            assert loaded == {
                "type": "DECK",
                "deck_id": 77,
                "cards_loaded": 5,
                "cards_remaining": 5,
            }
            drawn = await control("draw")
            assert (drawn["card"], drawn["name"], drawn["event"]["type"]) == (51, "As", "CARD")
            assert (await control("draw unreadable disposition=dealt_unread"))["card"] == 8
            await link.until(lambda: len(link.host.events) == 3, "DECK, CARD, UNREADABLE")
            deck, card, unread = link.host.messages()
            assert isinstance(deck, Deck) and deck.cards_loaded == 5
            assert card == CardMessage(51, 0, card.uid) and len(card.uid) == 7
            assert unread == Unreadable(1, "dealt_unread")

            # bad commands say what is wrong and change nothing
            assert await control.refused("draw sideways") is Cannot.BAD_COMMAND
            assert await control.refused("deal") is Cannot.BAD_COMMAND
            assert await control.refused("set drop_rate=3") is Cannot.BAD_VALUE
            assert await control.refused("clear jam") is Cannot.NOT_ACTIVE
            state = await control("status")
            assert (state["cards_remaining"], state["read_counter"]) == (3, 2)
            assert state["fault_settings"]["drop_rate"] == 0.0

            # the cable is pulled: nothing arrives; plugged back: HELLO and the resend
            assert "reconnect_at" in await control("unplug 0.3")
            await control("draw")
            await link.until(lambda: len(link.host.hellos) == 2, "HELLO after the unplug")
            await link.until(lambda: len(link.host.events) == 4, "the card drawn while unplugged")
            assert link.host.messages()[-1].card == 0

            # a noisy line: every card still arrives once, in order
            await control("set drop_rate=0.3 duplicate_rate=0.3 corrupt_rate=0.02")
            await control("jam")
            assert await control.refused("draw") is Cannot.JAMMED
            await control("clear_jam")
            await control("draw")
            await control("draw")
            await link.until(lambda: len(link.host.events) == 8, "every event")
            assert [m.card for m in link.host.messages()[-2:]] == [45, 34]

            # the lid, a reader fault, and frames delayed on the wire, all while running
            await control("set drop_rate=0 duplicate_rate=0 corrupt_rate=0 delay=0.05")
            await control("load cards=Qs")
            await control("open_lid")
            assert await control.refused("draw") is Cannot.LID_OPEN
            await control("close_lid")
            assert (await control("raise reader"))["type"] == "FAULT"
            assert (await control("draw"))["event"]["type"] == "UNREADABLE"
            await link.until(lambda: len(link.host.events) == 13, "lid, reader, unreadable")
            assert link.host.messages()[-4:] == [
                Fault(FaultCode.LID_OPEN),
                FaultCleared(FaultCode.LID_OPEN),
                Fault(FaultCode.READER),
                Unreadable(5, "reject_tray"),
            ]

            assert await control("quit") == {}
            assert await asyncio.wait_for(process.wait(), WAIT) == 0
            await link.close()

    asyncio.run(scenario())


def test_settled_answers_once_the_host_has_acknowledged_every_event():
    """``settled within=S`` waits for the host's ACK (no polling): refused with its code
    while an event is unacknowledged after S seconds, answered as soon as the ACK is in."""

    async def scenario() -> None:
        args = ("shoe", "--pty", "--seed", "3", "--heartbeat-ms", "200", "--baud", "115200")
        async with simulator(*args) as (where, _):
            control = await Control.connect(where["control"])
            await control("load cards=As,4c")
            await control("draw")  # no host reads the line: nothing is acknowledged
            loop = asyncio.get_running_loop()
            began = loop.time()
            assert await control.refused("settled within=0.3") is Cannot.NOT_SETTLED
            assert loop.time() - began >= 0.3
            assert await control.refused("settled within=soon") is Cannot.BAD_COMMAND

            waiting = asyncio.ensure_future(control("settled within=10"))
            await asyncio.sleep(0.1)
            assert not waiting.done()  # still waiting for an ACK
            link = SerialHost(where["pty"])  # a host: it acknowledges what it is sent
            status = await asyncio.wait_for(waiting, WAIT)
            assert (status["connected"], status["pending"]) == (True, 0)
            assert link.host.messages()[-1] == CardMessage(51, 0, link.host.messages()[-1].uid)
            assert (await control("settled"))["pending"] == 0  # within=0: answered at once
            await link.close()

    asyncio.run(scenario())


def test_seat_board_process_over_tcp():
    async def scenario() -> None:
        async with simulator("seats", "--tcp", "127.0.0.1:0", "--seed", "5") as (where, _):
            control = await Control.connect(where["control"])
            link = SerialHost(f"socket://{where['tcp']}")
            await link.until(lambda: link.host.hellos, "HELLO on connection")
            assert await control("sit 3") == {"type": "SEAT_OCCUPIED", "seat": 3, "occupied": True}
            assert (await control("place 3 As lands_at=4"))["seat"] == 4
            await control("set misplace_rate=1")
            assert (await control("place 1 2c"))["seat"] == 2  # lands at the neighbour
            await control("set misplace_rate=0")
            await link.until(lambda: len(link.host.events) == 3, "seat events")
            assert link.host.messages() == [SeatOccupied(3, True), SeatCard(4, 51), SeatCard(2, 0)]

            await control("unplug 0.2")  # the host's connection is closed
            await link.until(lambda: link.closed, "the connection closing")
            await link.close()
            await control("leave 3")

            async def reconnected() -> SerialHost | None:
                """The host's link once the cable is back (the host retries until then)."""
                with contextlib.suppress(serial.SerialException):
                    link = await connected(f"socket://{where['tcp']}")
                    if link.host.hellos:
                        return link
                    await link.close()
                return None

            link = await async_wait_until(reconnected, "a reconnection", WAIT, poll=0.05)
            await link.until(lambda: link.host.events, "the event from while unplugged")
            assert link.host.messages() == [SeatOccupied(3, False)]
            assert (await control("status"))["occupied"] == []
            await link.close()

    asyncio.run(scenario())


def test_shoe_and_seat_board_processes_register_decks_load_cheats_and_switch_cards():
    """Version 2 on a pseudo-terminal: the shoe registers its deck card by card, a foreign
    card is dealt at the place the cheat chose, and the seat board reports tag UIDs."""

    async def scenario() -> None:
        async with (
            simulator("shoe", "--pty", "--seed", "3", "--heartbeat-ms", "200") as (shoe, _),
            simulator("seats", "--pty", "--seed", "3", "--heartbeat-ms", "200") as (seats, _),
        ):
            control = await Control.connect(shoe["control"])
            link = SerialHost(shoe["pty"])
            await link.until(lambda: link.host.hellos, "HELLO")
            assert link.host.hellos[0].protocol_version == 2
            loaded = await control("load deck_id=5 seed=1 cheat=foreign at=2")
            assert (loaded["cheat"]["kind"], loaded["cheat"]["at"]) == ("foreign", 2)
            await link.until(lambda: len(link.host.events) == 53, "the registration and DECK")
            *cards, deck = link.host.messages()
            assert all(isinstance(card, DeckCardMessage) for card in cards)
            assert deck == Deck(5, 52, 52)
            assert len({card.uid for card in cards}) == 52
            drawn = [await control("draw") for _ in range(3)]
            await link.until(lambda: len(link.host.events) == 56, "three cards")
            uids = [message.uid for message in link.host.messages()[-3:]]
            registered = {card.uid for card in cards}
            assert [uid in registered for uid in uids] == [True, True, False]
            assert [d["tag"]["uid"] for d in drawn] == [uid.hex() for uid in uids]

            board = await Control.connect(seats["control"])
            board_link = SerialHost(seats["pty"])
            await board_link.until(lambda: board_link.host.hellos, "the board's HELLO")
            first = drawn[0]
            await board("place 1 {} uid={}".format(first["name"], first["tag"]["uid"]))
            await board("switch 1 {}".format(first["name"]))
            await board_link.until(lambda: len(board_link.host.events) == 2, "two seat reads")
            placed, switched = board_link.host.messages()
            assert placed == SeatCard(1, first["card"], uids[0])
            assert switched.card == first["card"] and switched.uid not in registered
            await link.close()
            await board_link.close()

    asyncio.run(scenario())


async def connected(url: str) -> SerialHost:
    """Open ``url`` and wait for HELLO, or for the simulator to close the connection."""
    link = SerialHost(url)
    await link.until(lambda: link.host.hellos or link.closed, "HELLO or refusal")
    return link


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tcp", "nowhere"], "HOST:PORT"),
        (["--pty", "--serial", "S" * 17], "HELLO.serial: must be 1..16 characters"),
        (["--pty", "--heartbeat-ms", "0"], "heartbeat_ms: 0 is outside 1..65535"),
    ],
)
def test_bad_command_line_is_refused(args, message):
    result = subprocess.run(
        [sys.executable, "-m", "firmware_sim", "shoe", *args],
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )
    assert result.returncode == 2
    assert message in result.stderr


def test_device_of_another_protocol_version():
    async def scenario() -> None:
        async with simulator("shoe", "--tcp", "127.0.0.1:0", "--protocol-version", "3") as (
            where,
            _,
        ):
            link = SerialHost(f"socket://{where['tcp']}")
            await link.until(lambda: link.host.errors, "a frame of version 3")
            assert (link.host.errors[0].code, link.host.errors[0].version) == ("version", 3)
            assert not link.host.hellos
            await link.close()

    asyncio.run(scenario())


def test_in_process_pty_runner_with_line_speed():
    async def scenario() -> None:
        shoe = SimulatedShoe(seed=9, baud=115200, protocol_version=1)
        async with PtyRunner(shoe) as runner:
            link = SerialHost(runner.path)
            await link.until(lambda: link.host.hellos, "HELLO")
            runner.act(lambda device: device.load(decks=2))
            order = shoe.upcoming()
            for _ in range(len(order)):
                runner.act(lambda device: device.draw())
            await link.until(lambda: len(link.host.events) == 105, "every card")
            assert [m.card for m in link.host.messages()[1:]] == order
            await link.until(lambda: shoe.pending == 0, "the last ACK")
            await link.close()

    asyncio.run(scenario())


def test_in_process_tcp_runner_one_host_at_a_time():
    async def scenario() -> None:
        board = SimulatedSeatBoard(seed=2)
        async with TcpRunner(board) as runner:
            url = "socket://{}:{}".format(*runner.address)
            first = SerialHost(url)
            await first.until(lambda: first.host.hellos, "HELLO")
            second = SerialHost(url)
            await second.until(lambda: second.closed, "the second host refused")
            runner.act(lambda device: device.sit(8))
            await first.until(lambda: first.host.events, "SEAT_OCCUPIED")
            assert first.host.messages() == [SeatOccupied(8, True)]
            await first.close()
            await second.close()

    asyncio.run(scenario())


def test_tcp_runner_never_queues_more_than_its_limit_for_a_host_that_does_not_read():
    async def scenario() -> tuple[int, int]:
        shoe = SimulatedShoe(seed=1, retransmit_timeout=0.001, buffer_size=2000, protocol_version=1)
        shoe.load(decks=30)
        for _ in range(1500):
            shoe.draw()  # 36 kB of events, sent again every millisecond
        async with TcpRunner(shoe) as runner:
            host = socket.socket()
            host.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
            host.setblocking(False)
            await asyncio.get_running_loop().sock_connect(host, runner.address)
            await async_wait_until(
                lambda: runner._writer is not None, "the runner takes the connection", WAIT
            )
            device_end = runner._writer.transport.get_extra_info("socket")
            device_end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)  # kernel: small
            # the host never reads: the runner queues up to its limit, then drops
            await async_wait_until(lambda: runner.bytes_lost > 0, "output dropped", WAIT)
            queued = runner._writer.transport.get_write_buffer_size()
            host.close()
            return queued, runner.bytes_lost

    queued, lost = asyncio.run(scenario())
    assert queued <= WRITE_LIMIT + 36_000  # one round beyond the limit at most
    assert lost > 0
