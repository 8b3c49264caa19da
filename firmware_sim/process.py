"""The simulator as its own process, driven through its control channel (blocking, for
tests, benchmarks and scripts): ``SimulatorProcess("shoe", "--pty", "--baud", "115200")``.

It starts ``python -m firmware_sim ARGS``, reads what the simulator announces (its pty path
or TCP address and its control address) and keeps one control connection; ``command`` is
safe to call from several threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import subprocess
import sys
import threading
from typing import Any

from firmware_sim.device import Cannot
from luck_errors import LuckTableError

#: Seconds ``AsyncControl.settled`` waits for a device by default.
SETTLE_TIMEOUT = 20.0


class ControlReplyError(LuckTableError, RuntimeError):
    """The simulator answered ``error <code> <reason>`` to a control command: ``code``, why
    (None: no answer a simulator gave, such as none at all)."""

    def __init__(self, message: str, code: Cannot | None = None) -> None:
        super().__init__(message)
        self.code = code


def _answer(line: str, reply: str) -> Any:
    """A control reply's JSON, or ControlReplyError: the words, and the code as data."""
    status, _, payload = reply.partition(" ")
    if status == "ok":
        return json.loads(payload)
    if status == "error":
        code, _, reason = payload.partition(" ")
        raise ControlReplyError(f"{line}: {reason}", Cannot(code))
    raise ControlReplyError(f"{line}: {reply or 'no reply'}")


class Control:
    """A simulator's control channel at ``address`` (``HOST:PORT``, as it announces it),
    one connection; ``command`` is safe to call from several threads. A simulator takes
    several control connections: one process may start it and another drive it."""

    def __init__(self, address: str, timeout: float = 10.0) -> None:
        host, port = address.rsplit(":", 1)
        self._socket = socket.create_connection((host, int(port)), timeout=timeout)
        self._replies = self._socket.makefile("r")
        self._lock = threading.Lock()
        self._timeout = timeout

    def command(self, line: str, waits: float = 0.0) -> Any:
        """Run one control command; its reply's JSON, or ControlReplyError. ``waits``: the
        seconds the simulator may take beyond the channel's timeout (``settled``)."""
        with self._lock:
            self._socket.settimeout(self._timeout + waits)
            try:
                self._socket.sendall(line.encode() + b"\n")
                reply = self._replies.readline().strip()
            finally:
                self._socket.settimeout(self._timeout)
        return _answer(line, reply)

    def settled(self, within: float = SETTLE_TIMEOUT) -> Any:
        """The device's status once it is connected and every event it sent is acknowledged;
        ControlReplyError (code ``not_settled``) if that takes over ``within`` seconds."""
        return self.command(f"settled within={within:g}", waits=within)

    def close(self) -> None:
        self._socket.close()
        self._replies.close()


class AsyncControl:
    """A simulator's control channel for asyncio (one command at a time), for those who
    drive a simulator step by step beside a table service on the same event loop."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader, self._writer = reader, writer
        self._lock = asyncio.Lock()

    @classmethod
    async def connect(cls, address: str) -> AsyncControl:
        host, port = address.rsplit(":", 1)
        return cls(*await asyncio.open_connection(host, int(port)))

    async def command(self, line: str) -> Any:
        async with self._lock:
            self._writer.write(line.encode() + b"\n")
            await self._writer.drain()
            reply = (await self._reader.readline()).decode().strip()
        return _answer(line, reply)

    async def settled(self, timeout: float = SETTLE_TIMEOUT) -> None:
        """Wait until the device is connected and every event it sent is acknowledged
        (TimeoutError after ``timeout`` seconds)."""
        try:
            await self.command(f"settled within={timeout:g}")
        except ControlReplyError as error:
            if error.code is Cannot.NOT_SETTLED:
                raise TimeoutError(f"the device did not settle: {error}") from None
            raise

    async def close(self) -> None:
        self._writer.close()


class SimulatorProcess:
    """``python -m firmware_sim DEVICE ARGS...`` with its control channel.

    The simulator runs in a process group of its own: it is stopped by its owner
    (``stop``), never by a Ctrl-C meant for the owner (a terminal signals its whole
    foreground group), so that the owner, stopping, can still talk to it."""

    def __init__(self, device: str, *args: str, timeout: float = 10.0) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "firmware_sim", device, *args],
            stdout=subprocess.PIPE,
            text=True,
            process_group=0,
        )
        assert self.process.stdout is not None
        self.announced: dict[str, str] = {}
        for line in self.process.stdout:
            word, _, rest = line.strip().partition(" ")
            if word == "ready":
                break
            self.announced[word] = rest
        else:
            self.process.wait(timeout)
            raise RuntimeError(f"the simulator exited with status {self.process.returncode}")
        self.control = Control(self.announced["control"], timeout)

    @property
    def port(self) -> str:
        """The device's end as a driver opens it: the pty path or ``socket://HOST:PORT``."""
        if "pty" in self.announced:
            return self.announced["pty"]
        return f"socket://{self.announced['tcp']}"

    def command(self, line: str) -> Any:
        """Run one control command; its reply's JSON, or ControlReplyError."""
        return self.control.command(line)

    def settled(self, within: float = SETTLE_TIMEOUT) -> Any:
        """:meth:`Control.settled` on the simulator's channel."""
        return self.control.settled(within)

    def stop(self, timeout: float = 10.0) -> None:
        """``quit`` and wait for the process to end."""
        with contextlib.suppress(OSError):  # already gone
            self.command("quit")
        self.control.close()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout)
        if self.process.stdout is not None:
            self.process.stdout.close()

    def __enter__(self) -> SimulatorProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
