"""Test helper: a sans-IO simulated device served on a real pty or a TCP socket, in a thread.

The host side under test opens the pty's path or ``socket://127.0.0.1:PORT`` through the
real drivers. Physical actions and fault settings go through :meth:`DeviceWire.act`, which
runs them under the wire's lock and wakes the thread.
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import threading
import time
import tty


class DeviceWire:
    """Pumps bytes between a simulated device and a file descriptor until stopped."""

    def __init__(self, device):
        self.device = device
        self.lock = threading.Lock()
        self._wake_r, self._wake_w = os.pipe()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="device wire", daemon=True)

    def start(self):
        self._thread.start()
        return self

    def act(self, action):
        """Run ``action(device)`` under the lock; wake the pump to send what it produced."""
        with self.lock:
            result = action(self.device)
        os.write(self._wake_w, b"!")
        return result

    def stop(self):
        self._stopping.set()
        os.write(self._wake_w, b"!")
        self._thread.join()
        os.close(self._wake_r)
        os.close(self._wake_w)

    # --- the endpoint, per subclass ---------------------------------------------------

    def _connection(self):
        """Block until the host is there; return an fd to talk on, or None when stopping."""
        raise NotImplementedError

    def _hang_up(self, fd):
        """The connection ended (host closed it, or the test dropped it)."""

    # --- the pump -----------------------------------------------------------------------

    def _run(self):
        while not self._stopping.is_set():
            fd = self._connection()
            if fd is None:
                return
            self._pump(fd)
            self._hang_up(fd)

    def _pump(self, fd):
        while not self._stopping.is_set():
            with self.lock:
                now = time.monotonic()
                out = self.device.transmit(now)
                deadline = self.device.next_deadline()
            if out and not self._write_all(fd, out):
                return
            wait = 0.05 if deadline is None else min(0.05, max(0.0, deadline - time.monotonic()))
            ready, _, _ = select.select([fd, self._wake_r], [], [], wait)
            if self._wake_r in ready:
                os.read(self._wake_r, 4096)
            if fd in ready:
                try:
                    data = os.read(fd, 4096)
                except OSError:
                    return
                if not data:
                    return
                with self.lock:
                    self.device.receive(data, time.monotonic())

    def _write_all(self, fd, data):
        view = memoryview(data)
        while view:
            try:
                written = os.write(fd, view)
            except BlockingIOError:
                select.select([], [fd], [], 0.05)
                continue
            except OSError:
                return False
            view = view[written:]
        return True


class PtyDeviceWire(DeviceWire):
    """The device on the master side of a real pseudo-terminal; the host opens ``path``."""

    def __init__(self, device):
        super().__init__(device)
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)  # binary from the first byte, before the host configures it
        self.path = os.ttyname(self._slave)
        self._served = False

    def _connection(self):
        if self._served:
            return None
        self._served = True
        with self.lock:
            self.device.connect(time.monotonic())
        return self.master

    def stop(self):
        super().stop()
        os.close(self.master)
        os.close(self._slave)


class TcpDeviceWire(DeviceWire):
    """The device behind a TCP listener; each accepted connection is a cable plugged in."""

    def __init__(self, device):
        super().__init__(device)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"socket://127.0.0.1:{self._listener.getsockname()[1]}"
        self._conn = None
        self.connections = 0

    def _connection(self):
        while not self._stopping.is_set():
            ready, _, _ = select.select([self._listener, self._wake_r], [], [], 0.05)
            if self._wake_r in ready:
                os.read(self._wake_r, 4096)
            if self._listener in ready:
                conn, _ = self._listener.accept()
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self._conn = conn
                self.connections += 1
                with self.lock:
                    self.device.connect(time.monotonic())
                return conn.fileno()
        return None

    def _hang_up(self, fd):
        with self.lock:
            self.device.disconnect()
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    def drop_connection(self):
        """Pull the cable: close the TCP connection (the host sees it fail)."""
        with self.lock:
            conn = self._conn
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        os.write(self._wake_w, b"!")

    def stop(self):
        self.drop_connection()
        super().stop()
        self._listener.close()
