"""A TCP proxy for the floor's tests: between the tables' shippers and PostgreSQL, it cuts
every connection and refuses new ones on demand (a network outage), then lets them through
again."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from types import TracebackType
from typing import Self


class CutProxy:
    """Listens on 127.0.0.1 at a free port and forwards each connection to ``target``."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._refusing = False
        self._silent = False
        self._closed = False
        self.accepted = 0
        self.refused = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def cut(self) -> None:
        """Drop every connection now and refuse new ones until :meth:`restore`."""
        with self._lock:
            self._refusing = True
            sockets, self._open = self._open, set()
        for sock in sockets:
            _drop(sock)

    def silence(self) -> None:
        """Keep every connection open but drop whatever is sent either way (a cable pulled
        between switches: no reset ever comes), until :meth:`restore`."""
        with self._lock:
            self._silent = True

    def restore(self) -> None:
        with self._lock:
            self._refusing = self._silent = False

    def close(self) -> None:
        self._closed = True
        self.cut()
        self._listener.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                refusing = self._refusing
            if refusing:
                self.refused += 1
                _drop(client)
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                _drop(client)
                continue
            upstream.settimeout(None)
            with self._lock:
                self.accepted += 1
                self._open.update((client, upstream))
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                if not self._silent:
                    sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with self._lock:
                    self._open.discard(sock)
                _drop(sock)


def _drop(sock: socket.socket) -> None:
    """Close at once with a reset, as a failed network path or a dead server does."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)  # wakes the thread reading it
    with contextlib.suppress(OSError):
        sock.close()
