"""An open transport wired into an asyncio event loop.

Transports block (pyserial, pyusb), so each open transport gets a writer thread (writes are
queued and never block the loop) and, unless the loop can watch the port's file descriptor
itself (a native serial port or pty: :meth:`Transport.readable_fd`), a reader thread; bytes
read and the loss of the transport reach the loop with ``call_soon_threadsafe``. Watching
the descriptor saves a thread hand-off per read: lower latency, less jitter.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable

from drivers.errors import ConnectionLost
from drivers.transport.base import Transport


class LinkIO:
    """Reader (or fd watch) and writer thread for one opened transport (one connection).

    ``on_data(bytes)`` and ``on_lost(ConnectionLost)`` run in the event loop; ``on_lost``
    is called at most once per LinkIO, and nothing is delivered after it or after
    :meth:`stop`.
    """

    def __init__(
        self,
        transport: Transport,
        loop: asyncio.AbstractEventLoop,
        on_data: Callable[[bytes], None],
        on_lost: Callable[[ConnectionLost], None],
    ) -> None:
        self.transport = transport
        self._loop = loop
        self._on_data = on_data
        self._on_lost = on_lost
        self._stopping = threading.Event()
        self._lost = False
        self._outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._fd: int | None = None
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        name = self.transport.name
        self._threads.append(threading.Thread(target=self._write_loop, name=f"write {name}"))
        self._fd = self.transport.readable_fd()
        if self._fd is not None:  # the loop watches the port itself: no reader thread
            self._loop.add_reader(self._fd, self._read_ready)
        else:
            self._threads.append(threading.Thread(target=self._read_loop, name=f"read {name}"))
        for thread in self._threads:
            thread.daemon = True
            thread.start()

    def _read_ready(self) -> None:
        try:
            data = self.transport.read_ready()
        except ConnectionLost as error:
            self._report_lost(error)
            return
        self._deliver(data)

    def _unwatch(self) -> None:
        if self._fd is not None:
            self._loop.remove_reader(self._fd)
            self._fd = None

    def write(self, data: bytes) -> None:
        """Queue ``data`` for the writer thread (returns at once)."""
        if data and not self._stopping.is_set():
            self._outbox.put(data)

    async def stop(self) -> None:
        """Stop both threads and wait for them (the writer first writes what was queued);
        the transport stays open for the caller."""
        self._unwatch()
        self._stopping.set()
        self._outbox.put(None)
        await asyncio.to_thread(self._join)

    def _join(self) -> None:
        for thread in self._threads:
            thread.join()

    def _deliver(self, data: bytes) -> None:
        if not self._stopping.is_set() and not self._lost:
            self._on_data(data)

    def _report_lost(self, error: ConnectionLost) -> None:
        self._unwatch()
        if not self._stopping.is_set() and not self._lost:
            self._lost = True
            self._on_lost(error)

    def _post(self, callback: Callable[..., None], argument: object) -> None:
        try:
            self._loop.call_soon_threadsafe(callback, argument)
        except RuntimeError:
            self._stopping.set()  # the event loop is closed: nobody is listening any more

    def _read_loop(self) -> None:
        while not self._stopping.is_set():
            try:
                data = self.transport.read()
            except ConnectionLost as error:
                self._post(self._report_lost, error)
                return
            if data:
                self._post(self._deliver, data)

    def _write_loop(self) -> None:
        while True:
            data = self._outbox.get()
            if data is None:
                return
            try:
                self.transport.write(data)
            except ConnectionLost as error:
                self._post(self._report_lost, error)
                return
