"""TCP transport for ``socket://HOST:PORT``: a device's TCP server or a serial-to-Ethernet
bridge (a device server in front of an RS-232 line).

pyserial's own ``socket://`` handler reports ``in_waiting`` as 1 whenever anything has
arrived, so reading through it costs a system call per byte. This transport reads whatever
is there in one ``recv`` and lets the event loop watch the socket (no reader thread).
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading
from urllib.parse import urlsplit

from drivers.errors import ConnectionLost, PortNotFoundError, TransportError
from drivers.transport.base import Transport, checked_baudrate

READ_LIMIT = 65536  # bytes taken per read at most


class TcpTransport(Transport):
    """A TCP connection. ``baudrate``: the serial line behind a bridge, when there is one
    (the link paces its RESENDs by it); None for a device on the network itself."""

    def __init__(
        self,
        url: str,
        baudrate: int | None = None,
        connect_timeout: float = 5.0,
        write_timeout: float = 5.0,
    ) -> None:
        parts = urlsplit(url)
        try:
            port = parts.port
        except ValueError:
            port = None
        if not parts.hostname or port is None or parts.path or parts.query:
            raise TransportError(
                f"{url}: a TCP port is written socket://HOST:PORT, e.g. socket://10.0.0.7:4001"
            )
        self.name = url
        self.url = url
        self.host = parts.hostname
        self.port = port
        self.baudrate = None if baudrate is None else checked_baudrate(url, baudrate)
        self.connect_timeout = connect_timeout
        self.write_timeout = write_timeout
        self._socket: socket.socket | None = None
        self._write_lock = threading.Lock()

    @property
    def is_open(self) -> bool:
        return self._socket is not None

    def open(self) -> None:
        if self._socket is not None:
            return
        try:
            sock = socket.create_connection((self.host, self.port), self.connect_timeout)
        except ConnectionRefusedError as exc:
            raise PortNotFoundError(f"nothing listens at {self.url}: {exc}") from exc
        except OSError as exc:
            raise TransportError(f"cannot connect to {self.url}: {exc}") from exc
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.settimeout(self.write_timeout)  # bounds sendall; reads never wait (below)
        self._socket = sock

    def _open_socket(self) -> socket.socket:
        if self._socket is None:
            raise ConnectionLost(f"{self.url} is not open")
        return self._socket

    def readable_fd(self) -> int | None:
        return self._open_socket().fileno()

    def read_ready(self) -> bytes:
        sock = self._open_socket()
        try:
            data = sock.recv(READ_LIMIT, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return b""
        except OSError as exc:
            raise ConnectionLost(f"{self.url}: {exc}") from exc
        if not data:
            raise ConnectionLost(f"{self.url}: connection closed by the device")
        return data

    def read(self) -> bytes:
        sock = self._open_socket()
        try:
            readable, _, _ = select.select([sock], [], [], self.poll_interval)
        except (OSError, ValueError) as exc:
            raise ConnectionLost(f"{self.url}: {exc}") from exc
        return self.read_ready() if readable else b""

    def write(self, data: bytes) -> None:
        sock = self._open_socket()
        with self._write_lock:
            try:
                sock.sendall(data)
            except OSError as exc:  # a timeout too: the device stopped reading
                raise ConnectionLost(f"{self.url}: {exc}") from exc

    def close(self) -> None:
        sock, self._socket = self._socket, None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
