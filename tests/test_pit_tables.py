"""The pit's calls to a table's console (``dealer_ui.pit.tables``): a refusal there is
answered at the pit with the table's error and reason code."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from dealer_ui.pit.tables import TableLinks
from dealer_ui.web import ApiError

WRONG_PIN = {"error": "unauthorized", "reason": "wrong surveillance id or PIN", "code": "wrong_pin"}


class _Refusing(BaseHTTPRequestHandler):
    """A console that refuses every sign-in with a wrong PIN's answer."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = json.dumps(WRONG_PIN).encode()
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
