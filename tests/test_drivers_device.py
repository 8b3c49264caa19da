"""The asyncio driver over real ports: clear errors at open, handshake, events, lamps."""

import asyncio
import contextlib
import os
import socket
import time

import pytest

from drivers import events as ev
from drivers.device import SeatBoardDriver, ShoeDriver
from drivers.errors import (
    ConnectionLost,
    DriverError,
    HandshakeTimeout,
    PortNotFoundError,
    ProtocolVersionError,
    TransportError,
    WrongDeviceError,
)
from drivers.protocol import (
    CardMessage,
    DeviceKind,
    FrameDecoder,
    Hello,
    Indicator,
    Reset,
    encode_frame,
)
from drivers.protocol.codec import CRC, HEADER, cobs_encode, crc16
from drivers.session import LinkConfig
from drivers.transport import SerialTransport, TcpTransport, transport_for_url
from tests.waiting import async_wait_until

FAST = LinkConfig(handshake_timeout=0.5, heartbeat_interval=0.1, silence_timeout=0.5)


def hello(kind=DeviceKind.SHOE, next_seq=0, pending=0):
    return encode_frame(0, Hello(1, kind, (0, 9, 1), "DEV-7", 1, next_seq, pending, 200), 1)


class ScriptedPty:
    """The device end of a real pseudo-terminal, written by the test."""

    def __init__(self):
        self.master, self.slave = os.openpty()
        self.path = os.ttyname(self.slave)
        os.set_blocking(self.master, False)
        self.decoder = FrameDecoder()

    def write(self, data):
        os.write(self.master, data)

    async def messages(self, want, timeout=2.0):
        """Read host messages until one of type ``want`` arrives; return all read."""
        seen = []
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            try:
                chunk = os.read(self.master, 4096)
            except BlockingIOError:
                await asyncio.sleep(0.005)
                continue
            seen += [f.message for f in self.decoder.feed(chunk)]
            if any(isinstance(m, want) for m in seen):
                return seen
        raise AssertionError(f"no {want.__name__} from the host, got {seen}")

    def close(self):
        os.close(self.master)
        os.close(self.slave)


@pytest.fixture
def pty():
    device = ScriptedPty()
    yield device
    device.close()


async def open_answering(driver, pty, answer):
    """Open ``driver`` on the pty; answer its RESET with ``answer`` (bytes); return the open."""
    opening = asyncio.ensure_future(driver.open())
    await pty.messages(Reset)
    pty.write(answer)
    return opening


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 10))


def test_a_port_that_does_not_exist_is_named():
    async def scenario():
        with pytest.raises(PortNotFoundError, match="serial port /dev/no-such-shoe does not exist"):
            await ShoeDriver.from_url("/dev/no-such-shoe", FAST).open()

    run(scenario())


def test_nothing_listening_on_a_socket_url_is_named():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    async def scenario():
        with pytest.raises(PortNotFoundError, match=f"socket://127.0.0.1:{port}"):
            await ShoeDriver.from_url(f"socket://127.0.0.1:{port}", FAST).open()

    run(scenario())


def test_a_bad_url_is_a_transport_error():
    async def scenario():
        with pytest.raises(TransportError, match="socket://nowhere"):
            await ShoeDriver.from_url("socket://nowhere", FAST).open()

    run(scenario())


def test_silent_port_times_out_the_handshake_and_closes():
    async def scenario():
        driver = ShoeDriver.from_url("loop://", FAST)
        with pytest.raises(HandshakeTimeout, match=r"loop://: no HELLO from a shoe within 0.5 s"):
            await driver.open()
        assert not driver.transport.is_open

    run(scenario())


def version_3_frame():
    """A HELLO of protocol version 3: the frozen layout, this version's payload after it."""
    head = HEADER.pack(3, Hello.TYPE, 0) + b"\x03" + bytes(Hello.LAYOUT.size - 1)
    return cobs_encode(head + CRC.pack(crc16(head))) + b"\0"


def test_other_protocol_version_is_refused_at_open(pty):
    async def scenario():
        driver = ShoeDriver.from_url(pty.path, FAST)
        opening = await open_answering(driver, pty, version_3_frame())
        with pytest.raises(ProtocolVersionError) as caught:
            await opening
        assert caught.value.device_version == 3
        assert not driver.transport.is_open

    run(scenario())


def test_a_seat_board_on_the_shoe_port_is_refused(pty):
    async def scenario():
        driver = ShoeDriver.from_url(pty.path, FAST)
        opening = await open_answering(driver, pty, hello(DeviceKind.SEAT_BOARD))
        with pytest.raises(WrongDeviceError) as caught:
            await opening
        assert (caught.value.expected, caught.value.answered) == (
            DeviceKind.SHOE,
            DeviceKind.SEAT_BOARD,
        )

    run(scenario())


def test_events_in_order_then_lamps_then_close(pty):
    async def scenario():
        driver = ShoeDriver.from_url(pty.path, FAST)
        await (await open_answering(driver, pty, hello(next_seq=2, pending=2)))
        pty.write(encode_frame(0, CardMessage(51, 1)) + encode_frame(1, CardMessage(2, 2)))
        up = await driver.next_event()
        assert isinstance(up, ev.LinkUp) and up.device.serial == "DEV-7"
        assert await driver.next_event() == ev.CardRead(0, 51, 1, b"")
        assert await driver.next_event() == ev.CardRead(1, 2, 2, b"")
        driver.set_indicator(bonus_lamp=True, seat_lamps=[2, 5])
        seen = await pty.messages(Indicator)
        assert Indicator(True, frozenset({2, 5})) in seen
        await driver.close()
        down = await driver.next_event()
        assert down.reason is ev.LinkDownReason.CLOSED
        with pytest.raises(StopAsyncIteration):
            await driver.next_event()

    run(scenario())


def test_silence_then_hello_gives_link_down_and_up_with_reasons(pty):
    async def scenario():
        driver = SeatBoardDriver.from_url(pty.path, FAST)
        await (await open_answering(driver, pty, hello(DeviceKind.SEAT_BOARD)))
        async with driver:
            assert isinstance(await driver.next_event(), ev.LinkUp)
            down = await driver.next_event()  # nothing more from the device: silence
            assert down.reason is ev.LinkDownReason.SILENCE
            await pty.messages(Reset)  # the host asks for HELLO while down
            pty.write(hello(DeviceKind.SEAT_BOARD))
            up = await driver.next_event()
            assert isinstance(up, ev.LinkUp) and not up.restarted and up.lost == ()

    run(scenario())


def test_drivers_from_urls():
    link = LinkConfig.from_mapping({"silence_timeout": 4})
    shoe = ShoeDriver.from_url("/dev/ttyUSB0", link, baudrate=57600)
    assert (shoe.transport.name, shoe.transport.baudrate) == ("/dev/ttyUSB0", 57600)
    assert shoe.config.silence_timeout == 4
    backend = object()
    seats = SeatBoardDriver.from_url("usb://1209:c0df?serial=B7", backend=backend)
    assert (seats.transport.product_id, seats.transport.backend) == (0xC0DF, backend)


@pytest.mark.parametrize(
    ("url", "options", "message"),
    [
        ("", {}, "a port must be a device path or URL"),
        ("/dev/ttyS0", {"speed": 9600}, "option.s. speed do not apply"),
        ("/dev/ttyS0", {"baudrate": "fast"}, "baudrate must be a positive whole number"),
        ("usb://1209:c0de", {"baudrate": 9600}, "baudrate do not apply to this port"),
    ],
)
def test_bad_ports_are_named(url, options, message):
    with pytest.raises(DriverError, match=message):
        ShoeDriver.from_url(url, **options)


def test_bad_link_settings_are_named():
    with pytest.raises(DriverError, match="unknown link setting"):
        LinkConfig.from_mapping({"silence": 1})


def test_a_port_in_use_by_another_process_is_named(pty):
    first = SerialTransport(pty.path)
    first.open()
    try:
        with pytest.raises(TransportError, match=f"serial port {pty.path} is in use"):
            SerialTransport(pty.path).open()
    finally:
        first.close()


def test_pty_hung_up_by_the_device_side_is_a_lost_connection(pty):
    async def scenario():
        driver = ShoeDriver.from_url(pty.path, FAST)
        assert driver.transport.readable_fd() is None  # not open yet
        await (await open_answering(driver, pty, hello()))
        assert driver.transport.readable_fd() is not None  # watched by the event loop
        assert isinstance(await driver.next_event(), ev.LinkUp)
        os.close(pty.master)
        pty.master = os.open(os.devnull, os.O_RDONLY)  # so that the fixture can close it
        lost = await driver.next_event()
        await driver.close()
        return lost

    lost = run(scenario())
    assert lost.reason is ev.LinkDownReason.CONNECTION_LOST
    assert pty.path in lost.detail


def test_other_protocol_version_once_up_stops_the_driver_with_the_error(pty):
    async def scenario():
        driver = ShoeDriver.from_url(pty.path, FAST)
        await (await open_answering(driver, pty, hello()))
        assert isinstance(await driver.next_event(), ev.LinkUp)
        pty.write(version_3_frame())  # another firmware, plugged in behind our back
        down = await driver.next_event()
        with pytest.raises(ProtocolVersionError) as caught:
            await driver.next_event()
        assert caught.value.device_version == 3
        return driver, down

    driver, down = run(scenario())
    assert down.reason is ev.LinkDownReason.CLOSED
    assert "stopped: device on" in down.detail
    assert not driver.transport.is_open


def test_cancelled_consumers_lose_no_event_and_close_the_port(pty):
    async def consume(driver, seen):
        async with driver:
            async for event in driver:
                seen.append(event)

    async def scenario():
        driver = ShoeDriver.from_url(pty.path, FAST)
        await (await open_answering(driver, pty, hello()))
        waiting = asyncio.ensure_future(driver.next_event())
        assert isinstance(await waiting, ev.LinkUp)
        waiting = asyncio.ensure_future(driver.next_event())
        await asyncio.sleep(0.02)  # the scenario: the consumer is waiting
        waiting.cancel()  # a consumer cancelled while it waits ...
        with contextlib.suppress(asyncio.CancelledError):
            await waiting
        pty.write(encode_frame(0, CardMessage(51, 0)))
        seen = []
        consumer = asyncio.ensure_future(consume(driver, seen))
        await async_wait_until(lambda: seen, "the card read", 2, poll=0.005)
        consumer.cancel()  # ... and one cancelled inside ``async with``
        with contextlib.suppress(asyncio.CancelledError):
            await consumer
        return driver, seen

    driver, seen = run(scenario())
    assert seen == [ev.CardRead(0, 51, 0, b"")]  # the event was not lost to the first
    assert not driver.transport.is_open


@pytest.mark.parametrize("pause", [0.0, 0.05])  # while the port opens; while awaiting HELLO
def test_close_while_opening_ends_the_open_at_once(pause):
    async def scenario():
        driver = ShoeDriver.from_url("loop://", LinkConfig(handshake_timeout=5.0))
        opening = asyncio.ensure_future(driver.open())
        await asyncio.sleep(pause)
        await driver.close()
        with pytest.raises(DriverError, match="loop:// was closed while opening"):
            await asyncio.wait_for(opening, 1.0)
        assert not driver.transport.is_open

    run(scenario())


def test_a_socket_url_reads_what_has_arrived_in_one_call():
    with socket.create_server(("127.0.0.1", 0)) as server:
        url = f"socket://127.0.0.1:{server.getsockname()[1]}"
        transport = transport_for_url(url)
        transport.open()
        try:
            device, _ = server.accept()
            with device:
                burst = bytes(range(256)) * 40
                device.sendall(burst)
                received, reads = b"", 0
                deadline = time.monotonic() + 10
                while len(received) < len(burst):
                    assert time.monotonic() < deadline, f"{len(received)} bytes in 10 s"
                    received += transport.read()
                    reads += 1
            assert received == burst
            assert reads <= 3  # whole chunks, not a system call per byte
            with pytest.raises(ConnectionLost, match=f"{url}: connection closed by the device"):
                while True:
                    transport.read()
        finally:
            transport.close()
    assert isinstance(transport, TcpTransport)


def test_noise_frames_of_another_version_never_stop_the_driver(pty):
    """Frames that pass the CRC with a stray version byte, one at a time between valid ones
    or among damaged ones, are counted and dropped; the events go on."""
    other = encode_frame(9, CardMessage(5, 9), version=3)
    damaged = bytearray(encode_frame(9, CardMessage(5, 9)))
    damaged[4] ^= 0x10

    async def scenario():
        driver = ShoeDriver.from_url(pty.path, FAST)
        await (await open_answering(driver, pty, hello(next_seq=1)))
        events = [await driver.next_event()]
        for seq in range(1, 41):
            pty.write(other + bytes(damaged) * 3 + other + encode_frame(seq, CardMessage(seq, seq)))
            events.append(await driver.next_event())
        await driver.close()
        return driver, events

    driver, (up, *cards) = run(scenario())
    assert isinstance(up, ev.LinkUp)
    assert [c.seq for c in cards] == list(range(1, 41))
    assert driver.stats.decode_errors["version"] == 80
