"""The table service a scenario runs against, as a process of its own: ``luck-table serve``
started on a configuration file (or one already running, attached to by its URL), and
reached only through its API (docs/api.md): people's inputs as REST requests with a
dealer's session, the table read from the surveillance view, the device events awaited on
the live feed."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from websockets.asyncio.client import ClientConnection, connect

from luck_errors import LuckTableError

if TYPE_CHECKING:  # the console's types, not its app: the runner loads no FastAPI
    from dealer_ui.views import ViewJson

#: What ``luck-table serve`` logs once its console listens (docs/operations.md).
_LISTENING = re.compile(r"the console is at (\S+)\s*$")
START_TIMEOUT = 60.0  # seconds for a service process to listen (a loaded machine)
REQUEST_TIMEOUT = 30.0


class Refusal(NamedTuple):
    """The table refused an input: ``code``, why (docs/api.md, "Reason codes"), and its words."""

    code: str
    reason: str


class ServiceError(LuckTableError, RuntimeError):
    """The service could not be started or reached, or answered what no input explains."""


@dataclass(frozen=True)
class Credentials:
    """The dealer's and a supervisor's id and PIN for the service's console."""

    dealer: tuple[str, str]
    supervisor: tuple[str, str]


class ServiceProcess:
    """``luck-table serve --config CONFIG`` as a child process, its log in ``log``."""

    def __init__(self, config: Path, log: Path) -> None:
        self.config, self.log = config, log
        self.process: subprocess.Popen[bytes] | None = None

    async def start(self) -> str:
        """Start the service; its console's URL once it listens."""
        command = [
            sys.executable,
            "-c",
            "import sys; from controller.cli import main; sys.exit(main())",
            "serve",
            "--config",
            str(self.config),
            "--log-level",
            "info",
        ]
        offset = self.log.stat().st_size if self.log.exists() else 0
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(command, stdout=out, stderr=out)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + START_TIMEOUT
        while True:
            said = self.log.read_bytes()[offset:].decode(errors="replace")
            for line in said.splitlines():
                found = _LISTENING.search(line)
                if found:
                    return found.group(1)
            if self.process.poll() is not None or loop.time() > deadline:
                why = (
                    f"ended with status {self.process.returncode}"
                    if self.process.poll() is not None
                    else f"did not listen within {START_TIMEOUT:g} s"
                )
                await self.kill()
                tail = "\n".join(self.tail())
                raise ServiceError(f"the table service {why}; the end of its log:\n{tail}")
            await asyncio.sleep(0.05)

    def tail(self, lines: int = 5) -> list[str]:
        """The last lines of the service's log."""
        if not self.log.exists():
            return []
        return self.log.read_text(errors="replace").splitlines()[-lines:]

    async def kill(self) -> None:
        """SIGKILL: the controller loses power (nothing is flushed, nothing is said)."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGKILL)
        if process is not None:
            await asyncio.to_thread(process.wait)


class Console:
    """The service's API at ``url``, signed in as the dealer and as surveillance."""

    def __init__(self, url: str, credentials: Credentials) -> None:
        self.url, self.credentials = url.rstrip("/"), credentials
        self._dealer = self._surveillance = ""

    async def sign_in(self) -> None:
        dealer, supervisor = self.credentials.dealer, self.credentials.supervisor
        self._dealer = await self._token("dealer", dealer)
        self._surveillance = await self._token("surveillance", supervisor)

    async def _token(self, role: str, who: tuple[str, str]) -> str:
        status, body = await self._request(
            "POST", "/api/sessions", "", {"role": role, "id": who[0], "pin": who[1]}
        )
        if status != 200:
            raise ServiceError(f"signing in as {role} {who[0]}: {status} {body.get('reason')}")
        token: str = body["token"]
        return token

    async def view(self) -> ViewJson:
        """The table as the surveillance role sees it: everything."""
        status, body = await self._request("GET", "/api/view", self._surveillance)
        if status != 200:
            raise ServiceError(f"GET /api/view: {status} {body.get('reason')}")
        view: ViewJson = body  # the API's ViewOut checked it
        return view

    async def submit(self, path: str, body: dict[str, Any]) -> Refusal | None:
        """A people's input with the dealer's session: None when taken, else the table's
        refusal (its reason code and words)."""
        status, answer = await self._request("POST", path, self._dealer, body)
        if status == 200:
            return None
        if status == 409:
            return Refusal(answer["code"], answer["reason"])
        raise ServiceError(f"POST {path} {json.dumps(body)}: {status} {answer}")

    async def _request(
        self, method: str, path: str, token: str, body: dict[str, Any] | None = None
    ) -> tuple[int, Any]:
        """The status and the JSON of the answer to ``body`` (a route's fields, as its
        model takes them), each route's own."""
        return await asyncio.to_thread(self._send, method, path, token, body)

    def _send(
        self, method: str, path: str, token: str, body: dict[str, Any] | None
    ) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data, headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")
        except OSError as error:
            raise ServiceError(f"{method} {self.url}{path}: {error}") from None

    @contextlib.asynccontextmanager
    async def feed(self) -> AsyncIterator[ClientConnection]:
        """The surveillance feed, its snapshot read: ``await next_update(feed, seconds)``."""
        address = "ws" + self.url.removeprefix("http") + f"/ws?token={self._surveillance}"
        async with connect(address) as socket:
            await socket.recv()  # the snapshot
            yield socket


async def next_update(socket: ClientConnection, seconds: float, *, telling: bool = False) -> None:
    """Wait for the feed's next update of the table (TimeoutError after ``seconds``, each);
    with ``telling``, for the next that tells of something (an effect: not the update of an
    input that changes nothing to be told, such as one card of a deck's registration)."""
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), seconds))
        if message.get("type") == "update" and (message.get("events") or not telling):
            return
