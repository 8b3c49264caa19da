"""The pit's calls to a table's console (``dealer_ui.pit.tables``): a refusal there is
answered at the pit with the table's error and reason code."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from dealer_ui.codes import Declined
from dealer_ui.pit.tables import TableLinks
from dealer_ui.web import ApiError

WRONG_PIN = {"error": "unauthorized", "reason": "wrong surveillance id or PIN", "code": "wrong_pin"}
OLD = "1111"


class _Refusing(BaseHTTPRequestHandler):
    """A console that refuses every sign-in with a wrong PIN's answer (PIN ``OLD``: as a
    console of an older release, without a code)."""

    def do_POST(self) -> None:
        asked = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        uncoded = {name: WRONG_PIN[name] for name in ("error", "reason")}
        answer = uncoded if asked["pin"] == OLD else WRONG_PIN
        body = json.dumps(answer).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture
def console() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Refusing)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.mark.slow  # a server (in a thread): well under a second
def test_a_tables_refusal_keeps_its_code_at_the_pit(console: str) -> None:
    links = TableLinks({"T1": console})
    with pytest.raises(ApiError) as refused:
        asyncio.run(links.connect("pit-token", "S100", "T1", "0000"))
    error = refused.value
    assert error.status == 403  # the table's 401: the PIN refused, not the pit's session
    assert error.body() == {
        "error": "unauthorized",
        "reason": "table T1: wrong surveillance id or PIN",
        "code": "wrong_pin",
    }
    with pytest.raises(ApiError) as uncoded:
        asyncio.run(links.connect("pit-token", "S100", "T1", OLD))
    assert (uncoded.value.status, uncoded.value.code) == (403, Declined.TABLE_ANSWERED)


def test_the_pit_s_own_answers_about_a_table_carry_their_codes() -> None:
    """A table without a console, one not connected to, one whose console does not answer
    (nothing listens at port 9 here: refused at once)."""
    links = TableLinks({"T1": "http://127.0.0.1:9"})
    with pytest.raises(ApiError) as unknown:
        links.console("T2")
    assert (unknown.value.status, unknown.value.code) == (404, Declined.NO_CONSOLE)
    with pytest.raises(ApiError) as first:
        asyncio.run(links.requests("pit-token", "T1"))
    assert (first.value.status, first.value.code) == (409, Declined.NOT_CONNECTED)
    with pytest.raises(ApiError) as silent:
        asyncio.run(links.connect("pit-token", "S100", "T1", "0000"))
    assert (silent.value.status, silent.value.code) == (503, Declined.TABLE_UNREACHABLE)
