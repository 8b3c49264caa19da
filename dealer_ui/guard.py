"""What the console and the floor service let in, before any request reaches the app
(docs/security.md); every limit is a setting of ``[api]`` (``controller.config.Api``).

:func:`protect` puts an app (the console's, the floor service's) behind these:

- the real peer of each request is kept in the scope (``scope["peer"]``); the client's
  address is taken from ``X-Forwarded-For`` (and the scheme from ``X-Forwarded-Proto``)
  only when the peer is one of ``trusted_proxies`` (uvicorn's own reading of those headers
  is turned off: it trusts 127.0.0.1 by default);
- a ``Host`` header must name the address the client connected to, ``localhost``, this
  machine's name, or one of ``allowed_hosts`` (else 400: a DNS-rebinding page names its own
  host);
- a browser's ``Origin`` (on the WebSocket feed, and on any request that is not GET or
  HEAD) must be the page's own origin or one of ``allowed_origins`` (else 403);
- a request body is at most ``max_body`` bytes, by its ``Content-Length``: 413 before any
  of it is read; a body without a length (chunked) is refused with 411;
- at most ``max_websockets`` feeds are open per client address (else the handshake is
  refused, 403);
- every answer carries the security headers (:data:`SECURITY_HEADERS`; the API's also
  ``Cache-Control: no-store``, and over HTTPS ``Strict-Transport-Security``).

:func:`protocol` is uvicorn's HTTP protocol (h11) with two more limits: a connection's
request (its headers and body) must arrive within ``request_timeout`` seconds of the
connection or of the previous answer, else the connection is closed; and at most
``max_connections`` connections are open per peer address (a trusted proxy excepted), a
connection beyond it is closed at once.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import socket
from collections import Counter
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

import h11
from starlette.applications import Starlette
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware
from uvicorn.protocols.http.h11_impl import H11Protocol

from controller.config_file import Api

log = logging.getLogger(__name__)

#: The pages' Content-Security-Policy: their own scripts, styles and feed only, no inline
#: script or style, never inside a frame.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
SECURITY_HEADERS: tuple[tuple[str, str], ...] = (
    ("content-security-policy", CSP),
    ("x-content-type-options", "nosniff"),
    ("x-frame-options", "DENY"),
    ("referrer-policy", "no-referrer"),
    ("cross-origin-opener-policy", "same-origin"),
)
#: Swagger UI's page (served only with ``[api] docs = true``) loads its script from a CDN.
DOCS_PATHS = ("/docs", "/docs/oauth2-redirect", "/redoc")
HSTS = ("strict-transport-security", "max-age=31536000")
NO_STORE = ("cache-control", "no-store")
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def protect(app: Starlette, api: Api) -> None:
    """Put ``app`` behind the checks of ``api`` (see the module's text); before it serves."""
    app.add_middleware(Guard, api=api)  # the innermost: it sees the client proxies name
    if api.trusted_proxies:
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=list(api.trusted_proxies))
    app.add_middleware(_KeepPeer)


class _KeepPeer:
    """Keeps the connection's own peer in ``scope["peer"]`` before proxies are believed."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            scope["peer"] = scope.get("client")
        await self.app(scope, receive, send)


def peer_of(scope: Scope) -> str:
    """The address of the connection's own peer (a proxy's, behind a trusted proxy)."""
    peer = scope.get("peer") or scope.get("client")
    return peer[0] if peer else "unknown"


class Guard:
    """The Host, Origin, body and feed checks and the security headers (see the module)."""

    def __init__(self, app: ASGIApp, api: Api) -> None:
        self.app, self.api = app, api
        self.hosts = host_names(api.allowed_hosts)
        self.origins = origin_names(api.allowed_origins)
        self.feeds: Counter[str] = Counter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {name.decode("latin-1"): value for name, value in scope["headers"]}
        host = headers.get("host", b"").decode("latin-1")
        refusal = self._host(scope, host) or self._origin(scope, headers, host)
        if scope["type"] == "websocket":
            await self._feed(scope, receive, send, refusal)
            return
        refusal = refusal or self._body(headers)
        if refusal is not None:
            status, error, reason = refusal
            log.warning(
                "refused %s %s from %s: %s", scope["method"], scope["path"], _who(scope), reason
            )
            await _answer(send, status, error, reason, scope)
            return
        await self.app(scope, receive, _with_headers(send, scope, self.api.docs))

    def _host(self, scope: Scope, host: str) -> tuple[int, str, str] | None:
        server = scope.get("server")
        reason = host_refusal(host, server[0] if server else None, self.hosts)
        return None if reason is None else (400, "invalid", reason)

    def _origin(
        self, scope: Scope, headers: dict[str, bytes], host: str
    ) -> tuple[int, str, str] | None:
        origin = headers.get("origin")
        if origin is None or (scope["type"] == "http" and scope["method"] in SAFE_METHODS):
            return None
        secure = scope.get("scheme") in ("https", "wss")
        reason = origin_refusal(origin.decode("latin-1"), host, secure, self.origins)
        return None if reason is None else (403, "forbidden", reason)

    @staticmethod
    def _length(headers: dict[str, bytes]) -> int | None:
        try:
            return int(headers.get("content-length", b"0"))
        except ValueError:
            return None

    def _body(self, headers: dict[str, bytes]) -> tuple[int, str, str] | None:
        if "transfer-encoding" in headers:
            return 411, "invalid", "a request body needs a Content-Length (no chunked bodies)"
        length = self._length(headers)
        if length is None:
            return 400, "invalid", "Content-Length is not a number"
        if length > self.api.max_body:
            reason = f"the body of {length} bytes is over {self.api.max_body} ([api] max_body)"
            return 413, "too_large", reason
        return None

    async def _feed(
        self, scope: Scope, receive: Receive, send: Send, refusal: tuple[int, str, str] | None
    ) -> None:
        client = _who(scope)
        if refusal is None and self.feeds[client] >= self.api.max_websockets:
            reason = f"{self.api.max_websockets} feeds already open from {client}"
            refusal = 403, "forbidden", reason + " ([api] max_websockets)"
        if refusal is not None:
            log.warning("refused a feed from %s: %s", client, refusal[2])
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 1008, "reason": refusal[2][:120]})
            return
        self.feeds[client] += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.feeds[client] -= 1
            if not self.feeds[client]:
                del self.feeds[client]


def host_names(allowed: Iterable[str]) -> frozenset[str]:
    """The names a ``Host`` header may give: this machine's and ``allowed``."""
    names = ("localhost", "127.0.0.1", "::1", socket.gethostname(), *allowed)
    return frozenset(name.lower() for name in names)


def origin_names(allowed: Iterable[str]) -> frozenset[str]:
    """The origins allowed besides a page's own, as browsers send them."""
    return frozenset(origin.lower().rstrip("/") for origin in allowed)


def host_refusal(host: str, server: str | None, names: frozenset[str]) -> str | None:
    """Why a request with this ``Host`` header is refused (None: it is not), when it came
    to the local address ``server``: the header must name that address or one of
    ``names`` (:func:`host_names`). No header (HTTP/1.0) is let through: a browser always
    sends one."""
    if not host:
        return None
    try:
        name = urlsplit(f"//{host}").hostname
    except ValueError:
        name = None
    if name is not None and (name in names or name == server):
        return None
    return f"Host {host[:80]!r} is not a name of this service (allowed_hosts)"


def origin_refusal(origin: str, host: str, secure: bool, origins: frozenset[str]) -> str | None:
    """Why a browser's request from ``origin`` is refused (None: it is not): it must be the
    page's own origin (the scheme and the ``host`` asked for) or one of ``origins``."""
    text = origin.lower().rstrip("/")
    own = f"{'https' if secure else 'http'}://{host.lower()}"
    if text == own or text in origins:
        return None
    return f"Origin {text[:80]!r} is not this service's pages (allowed_origins)"


def _who(scope: Scope) -> str:
    client = scope.get("client")
    return client[0] if client else "unknown"


def _security_headers(scope: Scope, docs: bool) -> list[tuple[bytes, bytes]]:
    chosen = list(SECURITY_HEADERS)
    if docs and scope["path"] in DOCS_PATHS:  # Swagger UI: its CDN and its inline script
        chosen = [header for header in chosen if header[0] != "content-security-policy"]
    if scope.get("scheme") == "https":
        chosen.append(HSTS)
    if scope["path"].startswith("/api/"):  # views, tokens: never kept by a cache
        chosen.append(NO_STORE)
    return [(name.encode(), value.encode()) for name, value in chosen]


def _with_headers(send: Send, scope: Scope, docs: bool) -> Send:
    extra = _security_headers(scope, docs)

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            present = {name.lower() for name, _ in message.get("headers", [])}
            added = [header for header in extra if header[0] not in present]
            message = {**message, "headers": [*message.get("headers", []), *added]}
        await send(message)

    return sending


async def _answer(send: Send, status: int, error: str, reason: str, scope: Scope) -> None:
    """A refusal as the API's ``{"error", "reason"}``; the connection is closed after it,
    so that a body not read is never read."""
    body = json.dumps({"error": error, "reason": reason}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
        *_security_headers(scope, docs=False),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def protocol(api: Api) -> type[H11Protocol]:
    """uvicorn's h11 protocol with ``api``'s request deadline and connections per address."""
    proxies = [ipaddress.ip_network(proxy, strict=False) for proxy in api.trusted_proxies]

    def trusted(address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in proxies)

    class Guarded(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None
        _upgraded = False

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # asyncio gives a Protocol its Transport
            super().connection_made(transport)
            address = self.client[0] if self.client else None
            if address is not None and not trusted(address):
                open_here = sum(
                    1
                    for other in self.connections
                    if isinstance(other, H11Protocol)
                    and other.client is not None
                    and other.client[0] == address
                )
                if open_here > api.max_connections:
                    log.warning(
                        "closed a connection from %s: %d open ([api] max_connections)",
                        address,
                        api.max_connections,
                    )
                    transport.abort()
                    return
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def handle_websocket_upgrade(self, event: h11.Request) -> None:
            self._disarm()
            self._upgraded = True
            super().handle_websocket_upgrade(event)

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            """Start the deadline while a request is awaited or arriving; stop it once it
            has all arrived (the app has it) or the connection became a WebSocket."""
            waiting = self.conn.their_state in (h11.IDLE, h11.SEND_BODY)
            if self._upgraded or self.transport.is_closing() or not waiting:
                self._disarm()
            elif self._deadline is None:
                self._deadline = self.loop.call_later(api.request_timeout, self._too_slow)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if (
                self.conn.their_state in (h11.IDLE, h11.SEND_BODY)
                and not self.transport.is_closing()
            ):
                address = self.client[0] if self.client else "unknown"
                log.warning(
                    "closed a connection from %s: no whole request within %g s "
                    "([api] request_timeout)",
                    address,
                    api.request_timeout,
                )
                self.transport.close()

    return Guarded


def uvicorn_options(api: Api) -> dict[str, Any]:
    """uvicorn's settings for ``api``'s limits (those of the app: :func:`protect`)."""
    return {
        "http": protocol(api),
        "h11_max_incomplete_event_size": api.max_header,
        "proxy_headers": False,  # read by the guard, from trusted proxies only
        "server_header": False,
    }
