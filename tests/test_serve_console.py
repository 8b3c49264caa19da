"""``luck-table serve`` serves the dealer console at the configuration's API address, in the
table service's own process (over TLS with the configured certificate, followed by a
broadcast relay over TLS too), and stops cleanly on SIGTERM."""

from __future__ import annotations

import asyncio
import json
import shutil
import signal
import socket
import ssl
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from tests.relay_kit import RelayProcess
from tests.service_kit import simulator, write_config
from tests.waiting import wait_until

pytestmark = pytest.mark.slow  # processes

LUCK_TABLE = str(Path(sys.executable).parent / "luck-table")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def with_api(folder: Path, shoe_port: str, port: int) -> Path:
    path = write_config(folder, shoe_port)
    path.write_text(path.read_text() + f'\n[api]\nbind = "127.0.0.1"\nport = {port}\n')
    return path


@contextmanager
def serving(config: Path) -> Iterator[subprocess.Popen[str]]:
    """``luck-table serve --config CONFIG`` in its own process (killed if still running)."""
    process = subprocess.Popen(
        [LUCK_TABLE, "serve", "--config", str(config)], stderr=subprocess.PIPE, text=True
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def answer(process: subprocess.Popen[str], get: Callable[[], httpx.Response]) -> httpx.Response:
    """``get()``'s answer once the console answers at all."""

    def answered() -> httpx.Response | None:
        try:
            return get()
        except httpx.TransportError:
            assert process.poll() is None, process.stderr and process.stderr.read()
            return None

    return wait_until(answered, "the console answers", 60, poll=0.1)


def stopped(process: subprocess.Popen[str]) -> str:
    """SIGTERM, then the process's log once it exited with status 0."""
    process.send_signal(signal.SIGTERM)
    _, errors = process.communicate(timeout=60)
    assert process.returncode == 0, errors
    return errors


def test_serve_serves_the_console_and_stops_on_sigterm(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with simulator("shoe") as shoe, serving(with_api(tmp_path, shoe.port, port)) as process:
        page = answer(process, lambda: httpx.get(url + "/", timeout=5))
        assert page.status_code == 200 and "Dealer console" in page.text
        public = httpx.get(url + "/api/view", timeout=5).json()
        assert public["role"] == "public" and public["hand_number"] == 0
        assert httpx.get(url + "/static/console.js", timeout=5).status_code == 200
        assert f"the console is at {url}" in stopped(process)


def test_serve_exits_2_before_the_journal_when_the_console_address_is_taken(
    tmp_path: Path,
) -> None:
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
    assert done.returncode == 2  # a configuration a restart cannot mend
    assert "cannot listen there (Address already in use)" in done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert not list(tmp_path.glob("*.sqlite*"))  # the journal is not touched


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")
def test_serve_serves_the_console_over_tls_with_the_configured_certificate(
    tmp_path: Path,
) -> None:
    cert, key = tmp_path / "console.crt", tmp_path / "console.key"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1"),
            *("-addext", "subjectAltName=IP:127.0.0.1"),
        ],
        check=True,
        capture_output=True,
    )
    port = free_port()
    url = f"https://127.0.0.1:{port}"
    trusted = ssl.create_default_context(cafile=str(cert))
    with simulator("shoe") as shoe:
        config = with_api(tmp_path, shoe.port, port)
        config.write_text(config.read_text() + f'tls_cert = "{cert}"\ntls_key = "{key}"\n')
        with serving(config) as process:
            view = answer(process, lambda: httpx.get(url + "/api/view", timeout=5, verify=trusted))
            assert view.status_code == 200 and view.json()["role"] == "public"
            with pytest.raises(httpx.TransportError):  # plain HTTP is not served
                httpx.get(f"http://127.0.0.1:{port}/api/view", timeout=5)

            async def feed() -> dict[str, Any]:
                async with websockets.connect(f"wss://127.0.0.1:{port}/ws", ssl=trusted) as ws:
                    return json.loads(await ws.recv())

            assert asyncio.run(feed())["type"] == "snapshot"
            # a broadcast relay of it: the table's CA trusted, wss:// with the same certificate
            tls = ("--tls-cert", str(cert), "--tls-key", str(key))
            with RelayProcess(url, "--source-ca", str(cert), *tls) as relay:
                assert relay.url.startswith("wss://127.0.0.1:")

                def following() -> httpx.Response | None:
                    health = httpx.get(relay.http + "/health", verify=trusted)
                    return None if health.is_error else health  # 503 until it follows

                health = wait_until(following, "the relay follows", 30, poll=0.05)
                assert health.json()["source"] == f"wss://127.0.0.1:{port}/ws"

                async def relayed() -> dict[str, Any]:
                    async with websockets.connect(relay.url + "/ws", ssl=trusted) as ws:
                        return json.loads(await ws.recv())

                assert asyncio.run(relayed())["type"] == "snapshot"
            assert f"the console is at {url}" in stopped(process)
