"""``luck-table serve`` under systemd's ``Type=notify``, with a fake notification socket:
``READY=1`` once the table is open, ``WATCHDOG=1`` at half ``WATCHDOG_USEC``, ``STOPPING=1``
on SIGTERM; and nothing sent (nor failing) without ``NOTIFY_SOCKET``."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.service.systemd import Notifier
from tests.service_kit import write_config

pytestmark = pytest.mark.slow  # processes

LUCK_TABLE = str(Path(sys.executable).parent / "luck-table")


def messages(listener: socket.socket, until: str, deadline: float) -> list[str]:
    """The notifications received until one holds the line ``until``."""
    seen: list[str] = []
    while not any(until in message.splitlines() for message in seen):
        listener.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            seen.append(listener.recv(4096).decode())
        except TimeoutError:
            raise AssertionError(f"no {until} within the time: {seen}") from None
    return seen


def test_serve_tells_systemd_it_is_ready_pings_the_watchdog_and_says_it_stops(
    tmp_path: Path,
) -> None:
    path = write_config(tmp_path, str(tmp_path / "no-shoe"))
    path.write_text(path.read_text() + "\n[api]\nport = 0\n")
    address = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(address)
        run = tmp_path / "run"  # systemd's RuntimeDirectory=luck-table
        run.mkdir()
        environ = {**os.environ, "NOTIFY_SOCKET": address, "WATCHDOG_USEC": "400000"}
        environ["RUNTIME_DIRECTORY"] = str(run)
        process = subprocess.Popen(
            [LUCK_TABLE, "serve", "--config", str(path)],
            env=environ,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 60
            first = messages(listener, "READY=1", deadline)
            ready = next(message for message in first if "READY=1" in message)
            assert "STATUS=table T-TEST open at position" in ready
            url = (run / "console.url").read_text()  # for the kiosk, written before READY
            assert re.fullmatch(r"http://127\.0\.0\.1:[1-9]\d*/\n", url), url
            pings = messages(listener, "WATCHDOG=1", deadline)
            pings += messages(listener, "WATCHDOG=1", deadline)
            assert sum(message == "WATCHDOG=1" for message in first + pings) >= 2
            process.send_signal(signal.SIGTERM)
            messages(listener, "STOPPING=1", deadline)
            _, errors = process.communicate(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
    assert process.returncode == 0, errors


def test_without_systemd_nothing_is_sent() -> None:
    notifier = Notifier({})
    assert not notifier.active and notifier.watchdog is None
    notifier.ready("open")  # nothing to send to: no error
    asyncio.run(asyncio.wait_for(notifier.keep_alive(), 1))  # returns at once


def test_the_watchdog_is_for_this_process_only_and_abstract_sockets_are_named() -> None:
    other = Notifier({"NOTIFY_SOCKET": "@luck", "WATCHDOG_USEC": "1000", "WATCHDOG_PID": "1"})
    assert other.address == "\0luck" and other.watchdog is None
    mine = {"NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "30000000", "WATCHDOG_PID": ""}
    assert Notifier(mine | {"WATCHDOG_PID": str(os.getpid())}).watchdog == 30.0
