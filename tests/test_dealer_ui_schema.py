"""Schemathesis against the console's OpenAPI document on a live table, with a dealer's
session and with none: requests made from the schema for every operation, and its stateful
run (sequences of calls following the links it infers from the document: the seats and
alerts a view names, the studio tokens a supervisor issues). Each answer must conform to
the document: no server error, a status the operation documents (every refusal is one of
them), the documented content type and body. The write limits are raised for the run so
that the fuzzer's requests reach the routes rather than a 429. (Schemathesis's own pytest
plugin is not used: it does not run under the pytest here.)"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from controller.service import TableService
from dealer_ui import serve
from dealer_ui.codes import Declined
from tests.console_kit import DEALER
from tests.hypothesis_profiles import examples
from tests.service_kit import config, simulator

pytestmark = (
    pytest.mark.slow
)  # a live table: the simulator's process, the service, the console served

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
#: The write limits raised for the fuzzer (docs/security.md: 429 beyond them).
UNLIMITED = {
    "write_burst": 100_000,
    "writes_per_second": 10_000.0,
    "address_write_burst": 100_000,
    "address_writes_per_second": 10_000.0,
    # the run's wrong PINs lock its ids and its address: their refusals answered at once
    "refusal_delay": 0.0,
}
#: Each example's deadline (a supervisor's PIN is checked with Argon2, on a loaded machine).
DEADLINE = timedelta(seconds=10)


class LiveConsole:
    """The service on a shoe simulator, its console served (``api``: settings of
    ``[api]`` other than the defaults), on a loop in a thread."""

    def __init__(self, folder: Path, shoe_port: str, **api: Any) -> None:
        settings_ = config(folder, shoe_port)
        self.settings = replace(settings_, api=replace(settings_.api, port=0, **api))
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
    folder = tmp_path_factory.mktemp("api")
    scraper = {"operations_from": ("127.0.0.1",)}  # /metrics answers this test's address
    with simulator("shoe") as shoe, LiveConsole(folder, shoe.port, **scraper, **UNLIMITED) as c:
        session = httpx.post(c.url + "/api/sessions", json={"role": "dealer", **DEALER}, timeout=30)
        session.raise_for_status()
        yield {"url": c.url, "dealer": {"Authorization": f"Bearer {session.json()['token']}"}}


def schema_of(live: dict[str, Any]) -> Any:
    """The console's document, without signing out (it would end the dealer's session)."""
    schema = schemathesis.openapi.from_url(live["url"] + "/openapi.json")
    return schema.exclude(method="DELETE", path="/api/sessions")


@pytest.mark.parametrize("who", ["dealer", "nobody"])
def test_every_answer_conforms_to_the_document(live: dict[str, Any], who: str) -> None:
    headers = live["dealer"] if who == "dealer" else {}
    tried = []
    for result in schema_of(live).get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy())
        @settings(
            max_examples=examples(25),
            deadline=DEADLINE,
            suppress_health_check=list(HealthCheck),
            database=None,
        )
        def conforms(case: Any) -> None:
            response = case.call(headers=headers)
            case.validate_response(response, checks=CHECKS, headers=headers)

        conforms()
        tried.append(f"{operation.method.upper()} {operation.path}")
    assert "POST /api/decisions" in tried and "POST /api/supervisor/void" in tried
    assert len(tried) >= 20


@pytest.mark.parametrize("who", ["dealer", "nobody"])
def test_the_stateful_run_finds_nothing(live: dict[str, Any], who: str) -> None:
    headers = live["dealer"] if who == "dealer" else {}
    machine = schema_of(live).as_state_machine()
    links = [name for name in dir(machine) if "___" in name and not name.startswith("RANDOM")]
    assert len(links) >= 4, links  # the view's seats and alerts, the studio tokens'

    class Fuzzer(machine):  # type: ignore[misc, valid-type]  # a class made at run time
        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            return {"headers": headers}

        def validate_response(self, response: Any, case: Any, **kwargs: Any) -> None:
            case.validate_response(response, checks=CHECKS, headers=headers)

    Fuzzer.run(
        settings=settings(
            max_examples=examples(60),
            stateful_step_count=8,
            deadline=DEADLINE,
            suppress_health_check=list(HealthCheck),
            database=None,
        )
    )


# --- what the fuzzer found ------------------------------------------------------------------


def test_a_body_that_is_not_json_text_is_refused_with_422_naming_the_body(
    live: dict[str, Any],
) -> None:
    url, dealer = live["url"], {**live["dealer"], "Content-Type": "application/json"}
    before = httpx.get(url + "/api/view", headers=live["dealer"]).json()
    for body, reason in (
        (b'{"seat": 1, "player": "\xff"}', "body: not UTF-8 text (byte 23)"),
        (b"[" * 30_000 + b"]" * 30_000, "body: JSON nested too deep"),
    ):
        refused = httpx.post(url + "/api/seats", content=body, headers=dealer)
        assert refused.status_code == 422, refused.text  # was 400 {"detail": ...}
        assert refused.json() == {"error": "invalid", "reason": reason, "code": "unreadable_body"}
    assert httpx.get(url + "/api/view", headers=live["dealer"]).json() == before
    nowhere = httpx.get(url + "/api/nowhere")
    assert nowhere.status_code == 404
    assert nowhere.json() == {"error": "not_found", "reason": "Not Found", "code": "no_path"}
    wrong_method = httpx.put(url + "/api/seats", headers=dealer)
    assert wrong_method.status_code == 405 and wrong_method.headers["allow"] == "POST"
    assert wrong_method.json()["error"] == "not_allowed"
    assert wrong_method.json()["code"] == Declined.METHOD_NOT_ALLOWED


def test_the_metrics_document_their_text_format(live: dict[str, Any]) -> None:
    document = httpx.get(live["url"] + "/openapi.json").json()
    documented = document["paths"]["/metrics"]["get"]["responses"]["200"]["content"]
    assert list(documented) == ["text/plain"]  # was application/json
    assert httpx.get(live["url"] + "/metrics").headers["content-type"].startswith("text/plain")
