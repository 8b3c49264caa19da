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
  refused, 403); a feed closed for what its client sent (:class:`FeedInput`) stays counted
  for ``feed_penalty`` seconds (:class:`FeedCount`);
- a state-changing request (any method but GET, HEAD and OPTIONS under ``/api/``) takes
  one from its session's bucket (``writes_per_second`` after a first ``write_burst``; the
  session is its ``Authorization`` header) and one from its client address's
  (``address_writes_per_second``, ``address_write_burst``): with none left, 429
  ``rate_limited`` with ``Retry-After`` (whole seconds) before the app sees it, the
  connection kept (every other refusal closes it);
- the refusals are logged once per burst of each client's (:class:`LogFold`);
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
import math
import socket
import time
from collections import Counter
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

import h11
from starlette.applications import Starlette
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import Frame, Opcode

from controller.config_file import Api
from dealer_ui.codes import Declined
from dealer_ui.refusals import LogFold

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
#: A request refused before the API reads it: its status, ``error``, reason and ``code``.
Refusal = tuple[int, str, str, Declined]
#: The close codes of a feed closed for what its client sent: a binary frame, text not
#: UTF-8, too fast, too big (RFC 6455, 7.4.1).
UNSUPPORTED, NOT_TEXT, POLICY, TOO_BIG = 1003, 1007, 1008, 1009
ABUSE = frozenset((UNSUPPORTED, NOT_TEXT, POLICY, TOO_BIG))
#: Buckets kept before the full ones (idle long enough) are forgotten.
PRUNE_AT = 4096


class Bucket:
    """A token bucket: ``burst`` at once, then ``rate`` a second (monotonic seconds)."""

    __slots__ = ("at", "burst", "rate", "tokens")

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate, self.burst, self.tokens, self.at = rate, burst, float(burst), now

    def take(self, now: float) -> float:
        """Take one: 0.0, or (none left) the seconds until there is one again."""
        self.tokens = min(float(self.burst), self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.rate

    def full(self, now: float) -> bool:
        return self.tokens + (now - self.at) * self.rate >= self.burst


class Buckets:
    """A :class:`Bucket` per key (a session, an address); once there are many, those that
    are full again (idle long enough) are forgotten: they would start full anyway."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.held: dict[str, Bucket] = {}
        self._prune_at = PRUNE_AT

    def take(self, key: str, now: float) -> float:
        """Take one of ``key``'s: 0.0, or (none left) the seconds until there is one."""
        bucket = self.held.get(key)
        if bucket is None:
            if len(self.held) >= self._prune_at:
                self.held = {k: held for k, held in self.held.items() if not held.full(now)}
                self._prune_at = max(PRUNE_AT, 2 * len(self.held))
            bucket = self.held[key] = Bucket(self.rate, self.burst, now)
        return bucket.take(now)


class FeedInput:
    """What one feed's client may send (every feed takes no input: what it sends is read
    only to be judged and dropped): text frames and control frames, at most
    ``messages_per_second`` after a first ``message_burst``. :meth:`refusal` judges each
    frame: None, or the close code and reason."""

    def __init__(self, api: Api, clock: Any = time.monotonic) -> None:
        self.api, self.clock = api, clock
        self.frames = Bucket(api.messages_per_second, api.message_burst, clock())

    def refusal(self, opcode: Opcode) -> tuple[int, str] | None:
        if opcode is Opcode.BINARY:
            return UNSUPPORTED, "binary frames are not read here: the feed takes no input"
        if self.frames.take(self.clock()):
            rate, burst = self.api.messages_per_second, self.api.message_burst
            return POLICY, (
                f"over {burst} frames, then {rate:g} a second ([api] messages_per_second)"
            )
        return None


class FeedCount:
    """The feeds open per client address, at most ``max_websockets``; a feed closed for
    abuse (:data:`ABUSE`) stays counted ``feed_penalty`` seconds after it is closed."""

    def __init__(self, api: Api) -> None:
        self.api = api
        self.open: Counter[str] = Counter()

    def refusal(self, client: str) -> str | None:
        """Why a new feed from ``client`` is refused (None: it is counted open now)."""
        if self.open[client] >= self.api.max_websockets:
            return (
                f"{self.api.max_websockets} feeds already open from {client} ([api] max_websockets)"
            )
        self.open[client] += 1
        return None

    def closed(self, client: str, code: int | None) -> None:
        """A feed from ``client`` closed with ``code``."""
        if code in ABUSE and self.api.feed_penalty > 0:
            asyncio.get_running_loop().call_later(self.api.feed_penalty, self._release, client)
        else:
            self._release(client)

    def _release(self, client: str) -> None:
        self.open[client] -= 1
        if not self.open[client]:
            del self.open[client]


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
        self.feeds = FeedCount(api)
        self.sessions = Buckets(api.writes_per_second, api.write_burst)
        self.addresses = Buckets(api.address_writes_per_second, api.address_write_burst)
        self.refused = LogFold(log, api.refusal_fold)  # a line per burst of each client's

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
        if refusal is None and scope["method"] not in SAFE_METHODS:
            wait = self._writes(scope, headers)
            if wait:
                await _answer(send, *self._limited(wait), scope=scope, retry=wait)
                return
        if refusal is not None:
            status, error, reason, code = refusal
            client = _who(scope)
            self.refused.warning(
                f"{status} {client}",
                "refused %s %s from %s: %s",
                scope["method"],
                scope["path"],
                client,
                reason,
            )
            await _answer(send, status, error, reason, code, scope=scope)
            return
        await self.app(scope, receive, _with_headers(send, scope, self.api.docs))

    def _writes(self, scope: Scope, headers: dict[str, bytes]) -> float:
        """A state-changing request (under ``/api/``): 0.0, or the seconds until its
        session's and its address's buckets both have one again."""
        if not scope["path"].startswith("/api/"):
            return 0.0
        now, client = time.monotonic(), _who(scope)
        wait = self.addresses.take(client, now)
        if wait:
            self.refused.warning(
                f"address {client}", "state-changing requests from %s: over the rate (429)", client
            )
        session = headers.get("authorization")
        if session is not None:
            token = session.decode("latin-1")
            waited = self.sessions.take(token, now)
            if waited:
                self.refused.warning(
                    f"session {token}", "state-changing requests of a session from %s: 429", client
                )
            wait = max(wait, waited)
        return wait

    def _limited(self, wait: float) -> Refusal:
        api = self.api
        reason = (
            f"too many requests: at most {api.writes_per_second:g} a second per session "
            f"([api] writes_per_second) and {api.address_writes_per_second:g} per address "
            f"([api] address_writes_per_second); try again in {wait:.1f} s"
        )
        return 429, "rate_limited", reason, Declined.TOO_MANY_WRITES

    def _host(self, scope: Scope, host: str) -> Refusal | None:
        server = scope.get("server")
        reason = host_refusal(host, server[0] if server else None, self.hosts)
        return None if reason is None else (400, "invalid", reason, Declined.WRONG_HOST)

    def _origin(self, scope: Scope, headers: dict[str, bytes], host: str) -> Refusal | None:
        origin = headers.get("origin")
        if origin is None or (scope["type"] == "http" and scope["method"] in SAFE_METHODS):
            return None
        secure = scope.get("scheme") in ("https", "wss")
        reason = origin_refusal(origin.decode("latin-1"), host, secure, self.origins)
        return None if reason is None else (403, "forbidden", reason, Declined.WRONG_ORIGIN)

    @staticmethod
    def _length(headers: dict[str, bytes]) -> int | None:
        try:
            return int(headers.get("content-length", b"0"))
        except ValueError:
            return None

    def _body(self, headers: dict[str, bytes]) -> Refusal | None:
        if "transfer-encoding" in headers:
            chunked = "a request body needs a Content-Length (no chunked bodies)"
            return 411, "invalid", chunked, Declined.CHUNKED_BODY
        length = self._length(headers)
        if length is None:
            return 400, "invalid", "Content-Length is not a number", Declined.BAD_LENGTH
        if length > self.api.max_body:
            reason = f"the body of {length} bytes is over {self.api.max_body} ([api] max_body)"
            return 413, "too_large", reason, Declined.BODY_TOO_LARGE
        return None

    async def _feed(
        self, scope: Scope, receive: Receive, send: Send, refusal: Refusal | None
    ) -> None:
        client = _who(scope)  # refused: closed with 1008 and the reason (no JSON answer)
        reason = self.feeds.refusal(client) if refusal is None else refusal[2]
        if reason is not None:
            self.refused.warning(f"feed {client}", "refused a feed from %s: %s", client, reason)
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 1008, "reason": reason[:120]})
            return
        code: int | None = None

        async def receiving() -> Message:
            nonlocal code
            message = await receive()
            if message["type"] == "websocket.disconnect":
                code = message.get("code")
            return message

        try:
            await self.app(scope, receiving, send)
        finally:
            self.feeds.closed(client, code)


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


async def _answer(
    send: Send,
    status: int,
    error: str,
    reason: str,
    code: Declined,
    *,
    scope: Scope,
    retry: float = 0.0,
) -> None:
    """A refusal as the API's ``{"error", "reason", "code"}`` (``retry``: seconds for
    ``Retry-After``). A 429 (``retry``) keeps its connection: its body (within ``max_body``
    by its length) is read and dropped by the server as it arrives, under the request
    deadline, and the next request on the connection is served, so that a flood of 429s
    costs the loop no connection each; after any other refusal the connection is closed,
    so that a body not read is never read."""
    body = json.dumps({"error": error, "reason": reason, "code": code}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *([] if retry else [(b"connection", b"close")]),
        *_security_headers(scope, docs=False),
    ]
    if retry:
        headers.append((b"retry-after", str(max(1, math.ceil(retry))).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def protocol(api: Api) -> type[H11Protocol]:
    """uvicorn's h11 protocol with ``api``'s request deadline and connections per address."""
    proxies = [ipaddress.ip_network(proxy, strict=False) for proxy in api.trusted_proxies]
    refused = LogFold(log, api.refusal_fold)  # a line per burst of each address's

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
                    refused.warning(
                        f"connections {address}",
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
                refused.warning(
                    f"slow {address}",
                    "closed a connection from %s: no whole request within %g s "
                    "([api] request_timeout)",
                    address,
                    api.request_timeout,
                )
                self.transport.close()

    return Guarded


#: The bytes of a feed's read parsed at a time (the frames of each judged before the next).
READ_SLICE = 4096


def socket_protocol(api: Api) -> type[WebSocketsSansIOProtocol]:
    """uvicorn's WebSocket protocol judging each frame a client sends (:class:`FeedInput`)
    before it is queued for the app, parsing what it reads READ_SLICE bytes at a time; a
    refused one closes the feed with its code and reason, logged in one line, and nothing
    more the client sent is parsed (folded per address, as the guard's: :class:`LogFold`)."""
    closings = LogFold(log, api.refusal_fold)

    class GuardedSocket(WebSocketsSansIOProtocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.inbound = FeedInput(api)
            self.refused = False

        def data_received(self, data: bytes) -> None:
            # One read holds up to 256 KiB (some 16,000 frames of 10 bytes), which the
            # protocol would parse whole, on the table's loop, before the first frame is
            # judged: it gets a slice at a time, and nothing more once the feed is refused.
            for start in range(0, len(data), READ_SLICE):
                if self.refused:
                    return
                super().data_received(data[start : start + READ_SLICE])

        def handle_text(self, event: Frame) -> None:
            if self._admitted(Opcode.TEXT):
                super().handle_text(event)

        def handle_bytes(self, event: Frame) -> None:
            if self._admitted(Opcode.BINARY):
                super().handle_bytes(event)

        def handle_cont(self, event: Frame) -> None:
            if self._admitted(Opcode.CONT):
                super().handle_cont(event)

        def handle_ping(self) -> None:
            if self._admitted(Opcode.PING):
                super().handle_ping()

        def handle_pong(self, event: Frame) -> None:
            if self._admitted(Opcode.PONG):
                super().handle_pong(event)

        def send_receive_event_to_app(self) -> None:
            if self.curr_msg_data_type == "text" and not self.close_sent:
                try:
                    b"".join(self.frames).decode()
                except UnicodeDecodeError:
                    self._refuse(NOT_TEXT, "a text message that is not UTF-8")
                    return
            super().send_receive_event_to_app()

        def _admitted(self, opcode: Opcode) -> bool:
            """Whether the frame goes on (after the close, uvicorn drops it itself)."""
            if self.close_sent:
                return True
            refused = self.inbound.refusal(opcode)
            if refused is not None:
                self._refuse(*refused)
            return refused is None

        def _refuse(self, code: int, reason: str) -> None:
            address = self.client[0] if self.client else "unknown"
            closings.warning(
                f"{code} {address}", "closed a feed from %s (%d): %s", address, code, reason
            )
            self.refused = True
            self.frames = []
            self.conn.fail(code, reason)
            self.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.close_sent = True
            self.transport.close()

    return GuardedSocket


def uvicorn_options(api: Api) -> dict[str, Any]:
    """uvicorn's settings for ``api``'s limits (those of the app: :func:`protect`)."""
    return {
        "http": protocol(api),
        "ws": socket_protocol(api),
        "ws_max_size": api.max_message,
        "h11_max_incomplete_event_size": api.max_header,
        "proxy_headers": False,  # read by the guard, from trusted proxies only
        "server_header": False,
    }
