"""WebSocket frames written and read by hand on a raw socket: what a hostile client sends
(binary, oversized, tiny and many, any opcode, size, fragmenting, mask and reserved bits),
for the hostile-client tests and the attack benchmark (``bench/table.py --attacks``)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import struct
from urllib.parse import urlsplit

WAIT = 10.0  # any one answer
TEXT, BINARY, CLOSE, PING, PONG, CONT = 0x1, 0x2, 0x8, 0x9, 0xA, 0x0


def frame(
    opcode: int,
    payload: bytes,
    *,
    fin: bool = True,
    masked: bool = True,
    rsv: int = 0,
    length: int | None = None,
) -> bytes:
    """One WebSocket frame as a client writes it (``length``: the one its header says)."""
    size = len(payload) if length is None else length
    head = bytes([(0x80 if fin else 0) | (rsv & 0x7) << 4 | opcode])
    bit = 0x80 if masked else 0
    if size < 126:
        head += bytes([bit | size])
    elif size < 1 << 16:
        head += bytes([bit | 126]) + struct.pack("!H", size)
    else:
        head += bytes([bit | 127]) + struct.pack("!Q", size)
    if not masked:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(byte ^ key[n % 4] for n, byte in enumerate(payload))


class RawFeed:
    """A WebSocket written and read byte by byte."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(
        cls, base: str, path: str = "/ws", local: str | None = None
    ) -> tuple[int, RawFeed]:
        """The handshake's status, and the feed (101: open); ``local``: the address to
        connect from (one of 127.0.0.0/8, as many clients of a network would)."""
        parts = urlsplit(base)
        assert parts.hostname is not None and parts.port is not None
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(
                parts.hostname, parts.port, local_addr=None if local is None else (local, 0)
            ),
            WAIT,
        )
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\n"
            f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), WAIT)
        return int(head.split()[1]), cls(reader, writer)

    async def send(self, data: bytes) -> None:
        """Write ``data``; a server that has closed already is no failure of the client."""
        with contextlib.suppress(ConnectionError):
            self.writer.write(data)
            await asyncio.wait_for(self.writer.drain(), WAIT)

    async def next_frame(self) -> tuple[int, bytes] | None:
        """The server's next frame (opcode, payload), None at the end of the stream."""
        try:
            first, second = await self.reader.readexactly(2)
            size = second & 0x7F
            if size == 126:
                (size,) = struct.unpack("!H", await self.reader.readexactly(2))
            elif size == 127:
                (size,) = struct.unpack("!Q", await self.reader.readexactly(8))
            return first & 0x0F, await self.reader.readexactly(size)
        except (asyncio.IncompleteReadError, ConnectionError):
            return None

    async def closing(self) -> int | None:
        """The code of the server's close frame (what it sends before, skipped), None if
        the stream ends without one."""
        while (got := await self.next_frame()) is not None:
            opcode, payload = got
            if opcode == CLOSE:
                return int(struct.unpack("!H", payload[:2])[0]) if payload else 1005
        return None

    async def closed_with(self) -> int | None:
        """:meth:`closing`, within WAIT seconds (else TimeoutError)."""
        return await asyncio.wait_for(self.closing(), WAIT)

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(ConnectionError, TimeoutError):
            await asyncio.wait_for(self.writer.wait_closed(), WAIT)
