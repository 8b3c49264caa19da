"""``luck-table serve`` serves the dealer console at the configuration's API address, in the
table service's own process, and stops cleanly on SIGTERM."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.service_kit import simulator, write_config

LUCK_TABLE = str(Path(sys.executable).parent / "luck-table")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def with_api(folder: Path, shoe_port: str, port: int) -> Path:
    path = write_config(folder, shoe_port)
    path.write_text(path.read_text() + f'\n[api]\nbind = "127.0.0.1"\nport = {port}\n')
    return path


def test_serve_serves_the_console_and_stops_on_sigterm(tmp_path: Path) -> None:
    port = free_port()
    with simulator("shoe") as shoe:
        config = with_api(tmp_path, shoe.port, port)
        process = subprocess.Popen(
            [LUCK_TABLE, "serve", "--config", str(config)],
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 60
            while True:
                try:
                    page = httpx.get(url + "/", timeout=5)
                    break
                except httpx.TransportError:
                    assert process.poll() is None, process.stderr and process.stderr.read()
                    assert time.monotonic() < deadline, "the console never answered"
                    time.sleep(0.1)
            assert page.status_code == 200 and "Dealer console" in page.text
            public = httpx.get(url + "/api/view", timeout=5).json()
            assert public["role"] == "public" and public["hand_number"] == 0
            assert httpx.get(url + "/static/console.js", timeout=5).status_code == 200
            process.send_signal(signal.SIGTERM)
            _, errors = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
    assert process.returncode == 0, errors
    assert f"the console is at http://127.0.0.1:{port}" in errors


def test_serve_exits_1_when_the_console_address_is_taken(tmp_path: Path) -> None:
    with socket.socket() as taken, simulator("shoe") as shoe:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        config = with_api(tmp_path, shoe.port, taken.getsockname()[1])
        done = subprocess.run(
            [LUCK_TABLE, "serve", "--config", str(config)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 1
    assert "the console cannot listen at 127.0.0.1:" in done.stderr
