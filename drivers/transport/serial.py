"""Serial transport through pyserial: device paths, pty paths and pyserial URLs.

Anything :func:`serial.serial_for_url` accepts works: ``/dev/ttyUSB0``, a pseudo-terminal
path, ``loop://``, ``rfc2217://host:port`` (``socket://`` URLs go to
:class:`~drivers.transport.tcp.TcpTransport`, which reads whole chunks).
"""

from __future__ import annotations

import contextlib
import errno
import threading

import serial

from drivers.errors import ConnectionLost, PortNotFoundError, TransportError
from drivers.transport.base import Transport, checked_baudrate

_MISSING = (errno.ENOENT, errno.ENODEV, errno.ENXIO)
_LOCKED = (errno.EWOULDBLOCK, errno.EAGAIN)  # flock's answer: another process holds the port
READ_LIMIT = 4096  # bytes handed over per read at most


class SerialTransport(Transport):
    """A pyserial port. ``url`` is a device path or a pyserial URL."""

    def __init__(self, url: str, baudrate: int = 115200, write_timeout: float = 5.0) -> None:
        self.name = url
        self.url = url
        self.baudrate = checked_baudrate(url, baudrate)
        self.write_timeout = write_timeout
        self._port: serial.SerialBase | None = None
        self._write_lock = threading.Lock()

    @property
    def is_open(self) -> bool:
        return self._port is not None

    def open(self) -> None:
        if self._port is not None:
            return
        try:
            port = serial.serial_for_url(
                self.url,
                baudrate=self.baudrate,
                timeout=self.poll_interval,
                write_timeout=self.write_timeout,
                exclusive=True,  # a second process on the shoe's port would steal its bytes
                do_not_open=True,
            )
        except ValueError as exc:
            raise TransportError(f"cannot use serial port {self.url!r}: {exc}") from exc
        except serial.SerialException as exc:
            raise TransportError(f"cannot use serial port {self.url!r}: {exc}") from exc
        try:
            port.open()
        except serial.SerialException as exc:
            if exc.errno in _MISSING:
                raise PortNotFoundError(f"serial port {self.url} does not exist") from exc
            if exc.errno in _LOCKED:
                raise TransportError(
                    f"serial port {self.url} is in use by another process"
                ) from exc
            if isinstance(exc.__context__, ConnectionRefusedError):  # pyserial wraps the socket's
                raise PortNotFoundError(f"nothing listens at {self.url}: {exc}") from exc
            raise TransportError(f"cannot open serial port {self.url}: {exc}") from exc
        self._port = port

    def _open_port(self) -> serial.SerialBase:
        if self._port is None:
            raise ConnectionLost(f"serial port {self.url} is not open")
        return self._port

    def read(self) -> bytes:
        port = self._open_port()
        try:
            data: bytes = port.read(1)
            # Then everything already there, without waiting: exact for a serial port or pty;
            # some URL handlers only say "some", hence the loop.
            while data and len(data) < READ_LIMIT and (waiting := port.in_waiting):
                data += port.read(min(waiting, READ_LIMIT - len(data)))
        except (serial.SerialException, OSError) as exc:
            raise ConnectionLost(f"serial port {self.url}: {exc}") from exc
        return data

    def readable_fd(self) -> int | None:
        """A native serial port or pty (not a URL handler) is watched by the event loop."""
        if isinstance(self._port, serial.Serial) and hasattr(self._port, "fd"):
            return int(self._port.fd)
        return None

    def read_ready(self) -> bytes:
        port = self._open_port()
        try:
            waiting = port.in_waiting
            if not waiting:  # readable with nothing to read: the device went away
                raise ConnectionLost(f"serial port {self.url}: readable but no data (gone?)")
            return bytes(port.read(min(waiting, READ_LIMIT)))
        except (serial.SerialException, OSError) as exc:
            raise ConnectionLost(f"serial port {self.url}: {exc}") from exc

    def write(self, data: bytes) -> None:
        port = self._open_port()
        with self._write_lock:
            try:
                port.write(data)
            except (serial.SerialException, OSError) as exc:
                raise ConnectionLost(f"serial port {self.url}: {exc}") from exc

    def close(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            # closing a port whose device vanished: nothing left to release
            with contextlib.suppress(serial.SerialException, OSError):
                port.close()
