"""A virtual NFC tag for a virtual PC/SC reader: Debian's ``vsmartcard-vpcd`` driver.

``pcscd`` loads vpcd once per reader in its reader configuration; each vpcd reader listens
on a TCP port, and a "virtual ICC" that connects to that port is a card in the reader's
field until it disconnects. vpcd's protocol (vsmartcard's documentation, "Creating a
virtual smart card"): every message is a 2-byte big-endian length and that many bytes; a
1-byte message is a control command (0 power off, 1 power on, 2 reset: no answer; 4: the
card's ATR is the answer), anything longer is a command APDU whose answer is the response
APDU.

A :class:`VirtualTag` answers the ATR of a contactless storage card (PC/SC part 3) and
the one command a card reader's driver sends a tag: GET DATA for the UID (``FF CA 00 00
00``), with its UID and ``90 00``; any other command gets ``6D 00`` (not supported), and
so does the UID command to a ``mute`` tag (a damaged one).

    tag = VirtualTag(bytes.fromhex("04a1b2c3d4e5f6"))
    tag.enter(35963)    # in the field of the vpcd reader on port 35963
    tag.leave()         # out of it

It knows nothing of the drivers or of cards: a tag is its UID.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading

#: The ATR a PC/SC reader makes for a contactless storage card (PC/SC part 3, 3.1.3.2.3):
#: here MIFARE Classic 1K's (standard 03, card name 00 01).
STORAGE_CARD_ATR = bytes.fromhex("3b8f8001804f0ca000000306030001000000006a")
#: GET DATA, UID (PC/SC part 3, 3.2.2.1.3): the command's header.
GET_UID = bytes.fromhex("ffca0000")
OK = b"\x90\x00"
NOT_SUPPORTED = b"\x6d\x00"
_ATR_REQUEST = 4


class VirtualTag:
    """One tag: its UID, and while it is in a reader's field, the connection to it."""

    def __init__(self, uid: bytes, host: str = "127.0.0.1", *, mute: bool = False) -> None:
        if not 1 <= len(uid) <= 10:
            raise ValueError(f"a tag UID is 1 to 10 bytes, not {len(uid)}")
        self.uid = uid
        self.host = host
        #: A damaged tag: it answers the reader's ATR but not the UID command.
        self.mute = mute
        self._socket: socket.socket | None = None
        self._thread: threading.Thread | None = None
        #: The command APDUs the reader sent, in order.
        self.commands: list[bytes] = []

    @property
    def in_field(self) -> bool:
        return self._socket is not None

    def enter(self, port: int, timeout: float = 5.0) -> None:
        """Come into the field of the vpcd reader listening on ``port``."""
        if self._socket is not None:
            raise RuntimeError(f"tag {self.uid.hex()} is already in a field")
        sock = socket.create_connection((self.host, port), timeout=timeout)
        sock.settimeout(None)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._socket = sock
        self._thread = threading.Thread(
            target=self._serve, args=(sock,), name=f"tag-{self.uid.hex()}", daemon=True
        )
        self._thread.start()

    def leave(self) -> None:
        """Leave the field (nothing happens when it is in none)."""
        sock, self._socket = self._socket, None
        if sock is None:
            return
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        sock.close()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
            self._thread = None

    def answer(self, message: bytes) -> bytes | None:
        """The answer to one message from the reader (None: no answer)."""
        if len(message) == 1:
            return STORAGE_CARD_ATR if message[0] == _ATR_REQUEST else None
        self.commands.append(message)
        if message[:4] == GET_UID and not self.mute:
            return self.uid + OK
        return NOT_SUPPORTED

    def _serve(self, sock: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while True:
                header = _read(sock, 2)
                if header is None:
                    return
                (length,) = struct.unpack(">H", header)
                message = _read(sock, length)
                if message is None:
                    return
                reply = self.answer(message)
                if reply is not None:
                    sock.sendall(struct.pack(">H", len(reply)) + reply)


def _read(sock: socket.socket, count: int) -> bytes | None:
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            return None
        data += chunk
    return data
