"""The one byte-transport interface every link sits on.

A transport is a blocking, thread-friendly byte pipe (the shape of python-can's bus
interfaces): one thread may block in :meth:`Transport.read` while another calls
:meth:`Transport.write`. The asyncio side (:mod:`drivers.link`) runs a reader thread per
open transport, so a transport never needs to know about event loops.

Errors: :class:`~drivers.errors.PortNotFoundError` when the port or device does not exist,
:class:`~drivers.errors.TransportError` when it exists but cannot be opened, and
:class:`~drivers.errors.ConnectionLost` once an open transport stops working.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from drivers.errors import TransportError


def checked_baudrate(url: str, baudrate: object) -> int:
    """``baudrate`` if it is a positive whole number, else a TransportError naming ``url``."""
    if isinstance(baudrate, bool) or not isinstance(baudrate, int) or baudrate <= 0:
        raise TransportError(f"{url}: baudrate must be a positive whole number, not {baudrate!r}")
    return baudrate


class Transport(ABC):
    """A byte pipe to one device. Reopenable: ``open`` after ``close`` starts afresh."""

    #: Human-readable name of the port, used in every error message and link reason.
    name: str
    #: The longest a :meth:`read` blocks when nothing arrives (so a reader thread can stop).
    poll_interval: float = 0.05
    #: The line speed in bits per second when the link is a serial line (8N1), else None.
    baudrate: int | None = None

    @abstractmethod
    def open(self) -> None:
        """Open the port or find and claim the device."""

    @abstractmethod
    def read(self) -> bytes:
        """Return the bytes available, waiting up to :attr:`poll_interval` for the first one.

        Returns ``b""`` when nothing arrived in time; raises ConnectionLost when the
        transport died.
        """

    @abstractmethod
    def write(self, data: bytes) -> None:
        """Send all of ``data``; raises ConnectionLost when the transport died."""

    @abstractmethod
    def close(self) -> None:
        """Release the port or device. Safe to call when not open."""

    def readable_fd(self) -> int | None:
        """A file descriptor the event loop can watch instead of a reader thread, or None.

        When given, :meth:`read_ready` is called (in the loop) each time it is readable.
        """
        return None

    def read_ready(self) -> bytes:
        """The bytes available now, without blocking (only when :meth:`readable_fd` is set)."""
        raise NotImplementedError

    @property
    @abstractmethod
    def is_open(self) -> bool:
        """Whether the transport is currently open."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"
