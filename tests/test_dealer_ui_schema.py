"""Schemathesis against the console's OpenAPI document on a live table: requests made from
the schema for every operation, with a dealer's session; 0 server errors. (Schemathesis's
own pytest plugin is not used: it does not run under the pytest here.)"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error

from controller.service import TableService
from dealer_ui import serve
from tests.console_kit import DEALER
from tests.service_kit import config, simulator


class LiveConsole:
    """The service on a shoe simulator, its console served, on a loop in a thread."""

    def __init__(self, folder: Path, shoe_port: str) -> None:
        settings_ = config(folder, shoe_port)
        self.settings = replace(settings_, api=replace(settings_.api, port=0))
        self.loop = asyncio.new_event_loop()
        self.started = threading.Event()
        self.url = ""
        self._stop: asyncio.Event | None = None
        self.thread = threading.Thread(target=self.loop.run_until_complete, args=(self.run(),))

    async def run(self) -> None:
        self._stop = asyncio.Event()
        async with TableService(self.settings) as service:
            served = await serve(service, port=0)
            self.url = served.url
            self.started.set()
            await self._stop.wait()
            await served.stop()

    def __enter__(self) -> LiveConsole:
        self.thread.start()
        assert self.started.wait(60), "the console did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._stop is not None
        self.loop.call_soon_threadsafe(self._stop.set)
        self.thread.join(60)
        self.loop.close()


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    with simulator("shoe") as shoe, LiveConsole(tmp_path_factory.mktemp("api"), shoe.port) as c:
        session = httpx.post(c.url + "/api/sessions", json={"role": "dealer", **DEALER}, timeout=30)
        session.raise_for_status()
        yield {"url": c.url, "headers": {"Authorization": f"Bearer {session.json()['token']}"}}


def test_no_request_gets_a_server_error(live: dict[str, Any]) -> None:
    schema = schemathesis.openapi.from_url(live["url"] + "/openapi.json")
    tried = []
    for result in schema.get_all_operations():
        operation = result.ok()
        if operation.method.upper() == "DELETE":  # signing out ends the session used here
            continue

        @given(case=operation.as_strategy())
        @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
        def no_server_error(case: Any) -> None:
            case.call_and_validate(headers=live["headers"], checks=[not_a_server_error])

        no_server_error()
        tried.append(f"{operation.method.upper()} {operation.path}")
    assert "POST /api/decisions" in tried and "POST /api/supervisor/void" in tried
    assert len(tried) >= 12
