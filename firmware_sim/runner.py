"""Run a simulated device on a real transport with the real clock (asyncio).

- :class:`PtyRunner`: a pseudo-terminal; the host opens ``runner.path`` like a
  serial port. The device counts as connected from the start (cable plugged);
  an unplug silences it both ways.
- :class:`TcpRunner`: a TCP server, one host at a time; a host connecting is
  the link being established, a host closing is the cable pulled, and an
  unplug closes the host's connection and refuses new ones until it ends.
- :func:`serve_control`: the line-based control channel (firmware_sim.control)
  on a TCP port.

Physical actions from the same process go through ``runner.act(fn)``, which
runs ``fn(device)`` and lets the device send at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import tty
from collections.abc import Callable
from typing import Any, TypeVar

from firmware_sim.control import Controller, QuitRequested
from firmware_sim.device import SimulatedDevice

T = TypeVar("T")
Clock = Callable[[], float]
WRITE_LIMIT = 64 * 1024  # bytes queued for a TCP host that does not read, at most


class DeviceRunner:
    """The timing loop shared by the transports: transmit at every deadline and after input."""

    def __init__(self, device: SimulatedDevice, *, clock: Clock = time.monotonic) -> None:
        self.device = device
        self.clock = clock
        self.bytes_lost = 0  # output the transport could not take (nobody reading)
        self._wake = asyncio.Event()
        self._progress = asyncio.Event()  # set whenever the device may have changed
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    def act(self, action: Callable[[SimulatedDevice], T]) -> T:
        """Run a physical action or a fault setting on the device, then let it send."""
        try:
            return action(self.device)
        finally:
            self.wake()

    def wake(self) -> None:
        """Let the device send now (after anything changed it)."""
        self._wake.set()

    def received(self, data: bytes) -> None:
        self.device.receive(data, self.clock())
        self._progress.set()
        self.wake()

    async def until(self, holds: Callable[[], bool], seconds: float) -> None:
        """Return once ``holds()`` (checked whenever the device may have changed: input
        received, a transmit turn), or after ``seconds``."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                while not holds():
                    self._progress.clear()
                    await self._progress.wait()

    async def start(self) -> None:
        self._stopping = False
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._stopping = True
            self.wake()
            await self._task
            self._task = None

    async def __aenter__(self) -> DeviceRunner:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def _run(self) -> None:
        while not self._stopping:
            self._wake.clear()
            data = self.device.transmit(self.clock())
            if data:
                self._write(data)
            self._link_changed()
            self._progress.set()
            deadline = self.device.next_deadline()
            timeout = None if deadline is None else max(0.0, deadline - self.clock())
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await self._wake.wait()

    def _write(self, data: bytes) -> None:
        raise NotImplementedError

    def _link_changed(self) -> None:
        """Called after every transmit, for transports that mirror the device's link."""


class PtyRunner(DeviceRunner):
    """The device behind a pseudo-terminal (raw mode); ``path`` is the host's end."""

    def __init__(self, device: SimulatedDevice, *, clock: Clock = time.monotonic) -> None:
        super().__init__(device, clock=clock)
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)
        os.set_blocking(self._master, False)
        self.path = os.ttyname(self._slave)

    async def start(self) -> None:
        asyncio.get_running_loop().add_reader(self._master, self._readable)
        self.device.connect(self.clock())
        await super().start()

    async def stop(self) -> None:
        await super().stop()
        asyncio.get_running_loop().remove_reader(self._master)
        os.close(self._master)
        os.close(self._slave)

    def _readable(self) -> None:
        try:
            data = os.read(self._master, 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:  # EIO: no host has the terminal open
            return
        if data:
            self.received(data)

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                written = os.write(self._master, view)
            except (BlockingIOError, OSError):
                self.bytes_lost += len(view)  # the host is not reading: lost on the line
                return
            view = view[written:]


class TcpRunner(DeviceRunner):
    """The device as a TCP server; ``address`` is (host, port) once started."""

    def __init__(
        self,
        device: SimulatedDevice,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        clock: Clock = time.monotonic,
    ) -> None:
        super().__init__(device, clock=clock)
        self._bind = (host, port)
        self._server: asyncio.Server | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._clients: set[asyncio.Task[Any]] = set()
        self.address: tuple[str, int] = (host, port)

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._client, *self._bind)
        self.address = self._server.sockets[0].getsockname()[:2]
        await super().start()

    async def stop(self) -> None:
        await super().stop()
        if self._server is not None:
            self._server.close()
        self._drop_client()
        await asyncio.gather(*self._clients, return_exceptions=True)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._writer is not None or self.device.unplugged:
            writer.close()  # one host at a time; none while the cable is out
            return
        task = asyncio.current_task()
        assert task is not None
        self._clients.add(task)
        self._writer = writer
        self.device.connect(self.clock())
        self.wake()
        try:
            while data := await reader.read(4096):
                self.received(data)
        except ConnectionError:
            pass
        finally:
            self._clients.discard(task)
            if self._writer is writer:
                self._writer = None
                self.device.disconnect()
            writer.close()

    def _drop_client(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def _write(self, data: bytes) -> None:
        if self._writer is None or self._writer.transport.get_write_buffer_size() > WRITE_LIMIT:
            self.bytes_lost += len(data)  # a host that does not read: lost, as on a line
        else:
            self._writer.write(data)

    def _link_changed(self) -> None:
        if self._writer is not None and not self.device.connected:
            self._drop_client()


class ControlServer:
    """The control channel for ``runner`` on TCP; ``quit_requested`` is set by ``quit``."""

    def __init__(self, runner: DeviceRunner) -> None:
        self.runner = runner
        self.controller = Controller(runner.device)
        self.quit_requested = asyncio.Event()
        self.address: tuple[str, int] = ("", 0)
        self._server: asyncio.Server | None = None
        self._sessions: dict[asyncio.Task[Any], asyncio.StreamWriter] = {}

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._server = await asyncio.start_server(self._session, host, port)
        self.address = self._server.sockets[0].getsockname()[:2]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for writer in self._sessions.values():
            writer.close()
        await asyncio.gather(*self._sessions, return_exceptions=True)

    async def _session(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._sessions[task] = writer
        try:
            while line := await reader.readline():
                text = line.decode("utf-8", "replace")
                within = self.controller.settle_within(text)
                if within:
                    await self.runner.until(self.controller.is_settled, within)
                try:
                    reply = self.controller.execute(text, self.runner.clock())
                except QuitRequested:
                    reply = "ok {}"
                    self.quit_requested.set()
                self.runner.wake()
                writer.write(reply.encode() + b"\n")
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            del self._sessions[task]
            writer.close()


def address_text(address: Any) -> str:
    host, port = address[:2]
    return f"{host}:{port}"
