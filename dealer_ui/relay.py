"""The broadcast relay: the table's public feed, taken once and fanned out to many viewers.

Every client of the table service's feed costs the table's one event loop a task and a
send per update: 200 viewers on it, while the table deals at full speed, take its process
from about 37 % to 54 % of a core and its own card latency (p99) from 6 to 11 ms
(docs/performance.md). A relay is a process of its own, on any machine: it follows the
table's public feed (``/ws``, no credentials) as one client and serves the same feed to
every viewer that connects to it, with the same protocol: a snapshot on connect, then
every numbered update, byte for byte as the table sent it; a viewer that comes back with
its ``epoch`` and ``last`` gets exactly what it missed, or a fresh snapshot. The public
page is served too (``/public``), so a viewer's browser can be pointed at the relay alone.

What it lets in is checked as the console does (``dealer_ui.guard``, docs/security.md): a
``Host`` header must name the address connected to, this machine or one of
``allowed_hosts``; a browser's feed must come from the relay's own page or one of
``allowed_origins``; every answer carries the security headers. The WebSocket server
itself closes a handshake not done within 10 s and refuses request lines and headers over
8 KiB, and a request with a body. What a viewer sends is judged as the console's feeds
judge it (``limits``, an ``[api]``: its ``max_message``, ``messages_per_second``,
``message_burst``; :class:`dealer_ui.guard.FeedInput`): a message too big is closed with
1009, a binary one with 1003, too many with 1008; at most ``max_websockets`` viewers per
address, a viewer closed for what it sent counted ``feed_penalty`` seconds more
(:class:`dealer_ui.guard.FeedCount`): more are closed with 1008.

Nothing is invented: when the table's feed is lost (closed, reset, or silent to the
relay's pings for 5 s), every viewer's socket is closed (code 1012) and new viewers are
refused (HTTP 503) until the relay follows the feed again, so that no screen shows a table
that may have moved on. A viewer whose socket does not keep
up (more than ``backlog`` bytes waiting to be sent) is closed with code 1013 and
reconnects with its last number. ``/health`` answers 200 while the relay follows the
table and 503 otherwise, with the figures as JSON.

The studio feed (every hole card and the odds, behind the table's security delay) is
served only with a studio token: ``/studio/ws?token=TOKEN`` (and its page, ``/studio``).
The relay holds no credential and keeps none: each studio viewer is its own connection to
the table's ``/studio/ws`` with the viewer's token, which the table checks (a forged,
expired or revoked token: the table closes it with code 4401, and the relay closes the
viewer with the same code and reason). A studio slot is given only once the table has
accepted the token (its first message): at most ``studio_viewers`` accepted viewers at a
time (a broadcast needs a few: more are refused, 503 at the handshake, or 1013 when the
table accepts a token after the last slot was taken), and at most as many more whose
tokens the table is still judging, each for at most ``studio_answer`` seconds (then closed
with 1013). Forged tokens therefore hold no slot, and nobody can make the relay open
connections to the table without end. A request for it without a token is refused (401)
before any connection to the table; every studio viewer counts in its address's limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import ssl
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, TypedDict
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import Server, ServerConnection, broadcast, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed, WebSocketException
from websockets.frames import Opcode
from websockets.http11 import Request, Response

from controller.config_file import Api
from dealer_ui.app import STATIC
from dealer_ui.auth import Denied
from dealer_ui.codes import Declined
from dealer_ui.feeds import KEPT, Kept
from dealer_ui.guard import (
    POLICY,
    SECURITY_HEADERS,
    FeedCount,
    FeedInput,
    host_names,
    host_refusal,
    origin_names,
    origin_refusal,
)
from luck_errors import LuckTableError

log = logging.getLogger("dealer_ui.relay")

BACKLOG = 4 * 1024 * 1024  # bytes waiting to be sent to one viewer before it is cut off
RETRY_FIRST, RETRY_LAST = 0.2, 5.0  # seconds between attempts to reach the table's feed
# A quiet feed sends nothing between hands: pings find a table gone silently (a cable
# pulled: no reset ever comes) within PING_EVERY + PING_TIMEOUT + CLOSE_TIMEOUT seconds.
PING_EVERY, PING_TIMEOUT, CLOSE_TIMEOUT = 2.0, 2.0, 1.0
LOST = 1012  # "service restart": the viewer reconnects
TOO_SLOW = 1013  # "try again later"
PAGES = {"/public": "console.html", "/studio": "studio.html"}  # "/" is the dealer's page
STUDIO_VIEWERS = 4  # studio viewers at a time (each its own connection to the table)
STUDIO_ANSWER = 5.0  # seconds the table has to accept or refuse a studio viewer's token
REFUSED = 4401  # the table refused the viewer's studio token
DEFAULTS = Api()  # what a viewer may send, and viewers per address: [api]'s defaults
TYPES = {".html": "text/html", ".css": "text/css", ".js": "text/javascript"}
STATIC_FILES = {path.name: TYPES[path.suffix] for path in STATIC.iterdir() if path.suffix in TYPES}


class FeedGap(LuckTableError):
    """The table's feed sent something that does not follow what the relay has."""


def feed_url(source: str) -> str:
    """The WebSocket URL of the table's public feed, from the table service's address
    (``http://host:port``, ``https://...``, or the ``ws://``/``wss://`` feed itself)."""
    parts = urlsplit(source)
    schemes = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}
    if parts.scheme not in schemes or not parts.netloc:
        raise ValueError(f"{source!r}: expected the table service's http(s):// or ws(s):// URL")
    path = parts.path.rstrip("/")
    path = path if path.endswith("/ws") else path + "/ws"
    return urlunsplit((schemes[parts.scheme], parts.netloc, path, "", ""))


@dataclass(frozen=True, slots=True)
class Resume:
    """Where a viewer says it was: the feed's ``epoch`` and the ``last`` number it has."""

    epoch: str | None
    last: int | None

    @classmethod
    def of(cls, query: str) -> Resume:
        """From a request's query (``epoch=E&last=N``); ValueError saying what is wrong."""
        fields = parse_qs(query, keep_blank_values=True)
        unknown = sorted(set(fields) - {"epoch", "last", "token"})
        if unknown:
            raise ValueError(f"{unknown[0]}: not a parameter of the feed (epoch, last)")
        if "token" in fields:
            raise ValueError("token: the relay serves the public feed, which takes no token")
        epoch = fields.get("epoch", [None])[-1]
        last = fields.get("last", [None])[-1]
        if last is not None and not (last.isascii() and last.isdigit()):
            raise ValueError(f"last={last[:20]!r}: expected the number of the last update")
        return cls(epoch, None if last is None else int(last))


class Mirror:
    """What the relay knows of the table's feed: its epoch and number, the latest view,
    and the last ``kept`` updates as the table sent them."""

    def __init__(self, kept: int = KEPT) -> None:
        self.epoch: str | None = None
        self.seq = 0
        self._view: Any = None
        self._kept: Kept[str] = Kept(kept)
        self._snapshot: str | None = None

    @property
    def known(self) -> bool:
        return self.epoch is not None

    def take(self, text: str) -> str:
        """Take one message of the table's feed; return it, to be sent to every viewer.
        A snapshot starts again (viewers take a snapshot wherever it comes); an update must
        be the next one of the same epoch, or FeedGap."""
        try:
            message = json.loads(text)
            kind, epoch, seq, table_view = (
                message["type"],
                message["epoch"],
                message["seq"],
                message["view"],
            )
        except (ValueError, TypeError, KeyError) as error:
            raise FeedGap(f"not a message of the feed: {error}") from None
        if kind == "snapshot":
            self._kept.clear()
            self._snapshot = text
        elif kind == "update" and epoch == self.epoch and seq == self.seq + 1:
            self._kept.append(seq, text)
            self._snapshot = None
        else:
            raise FeedGap(f"{kind} {epoch}/{seq} does not follow {self.epoch}/{self.seq}")
        self.epoch, self.seq, self._view = epoch, seq, table_view
        return text

    def catch_up(self, resume: Resume) -> list[str]:
        """What a viewer that is at ``resume`` is sent first: the updates it missed, or a
        snapshot when they are not all kept (or it comes from another epoch)."""
        if resume.epoch == self.epoch and resume.last is not None:
            missed = self._kept.missed(resume.last, self.seq)
            if missed is not None:
                return missed
        return [self.snapshot()]

    def snapshot(self) -> str:
        """The current table as a snapshot message (made once per update)."""
        if self._snapshot is None:
            message = {"type": "snapshot", "epoch": self.epoch, "seq": self.seq}
            message["view"] = self._view
            self._snapshot = json.dumps(message)
        return self._snapshot


class RelayHealth(TypedDict):
    """``GET /health`` of the relay (docs/api.md): the feed it follows, whether it follows it
    now, where it is in it, its viewers, and the studio tokens waiting for the table's
    answer."""

    source: str
    following: bool
    epoch: str | None
    seq: int
    viewers: int
    studio_viewers: int
    studio_waiting: int


class Relay:
    """Follows the table's public feed at ``source`` and serves it to viewers."""

    def __init__(
        self,
        source: str,
        *,
        source_ssl: ssl.SSLContext | None = None,
        kept: int = KEPT,
        backlog: int = BACKLOG,
        allowed_hosts: Sequence[str] = (),
        allowed_origins: Sequence[str] = (),
        studio_viewers: int = STUDIO_VIEWERS,
        studio_answer: float = STUDIO_ANSWER,
        limits: Api = DEFAULTS,
    ) -> None:
        self.source = feed_url(source)
        self.studio_source = self.source.removesuffix("/ws") + "/studio/ws"
        self.studio_viewers: set[ServerConnection] = set()  # the table accepted their token
        self.studio_waiting: set[ServerConnection] = set()  # the table judges their token
        self._studio_most = studio_viewers
        self._studio_answer = studio_answer
        self._hosts = host_names(allowed_hosts)
        self._origins = origin_names(allowed_origins)
        self._secure = False
        self._source_ssl = source_ssl
        self.mirror = Mirror(kept)
        self.viewers: set[ServerConnection] = set()
        self.following = False
        self._backlog = backlog
        self._closing: set[asyncio.Task[None]] = set()
        self._limits = limits
        self._feeds = FeedCount(limits)

    # --- the table's feed ------------------------------------------------------------------

    async def follow(self) -> None:
        """Follow the table's feed for ever, resuming from the last update after a loss."""
        delay = RETRY_FIRST
        while True:
            try:
                async with connect(
                    self._resume_url(),
                    ssl=self._source_ssl,
                    max_size=None,
                    compression=None,  # the table's feed is not compressed
                    ping_interval=PING_EVERY,
                    ping_timeout=PING_TIMEOUT,
                    close_timeout=CLOSE_TIMEOUT,
                ) as feed:
                    if await self._take_all(feed):
                        delay = RETRY_FIRST
            except (OSError, TimeoutError, WebSocketException) as error:
                self._lost(f"the table's feed is lost: {error or type(error).__name__}")
            await asyncio.sleep(delay)
            delay = min(2 * delay, RETRY_LAST)

    async def _take_all(self, feed: ClientConnection) -> bool:
        """Take the feed's messages until it ends, then cut the viewers off at once (the
        closing handshake with a table gone silent takes its time); whether it was followed.

        Resumed (the mirror knows the feed), the relay follows from the moment it is
        connected: the table sends what it missed, a snapshot if it restarted, or nothing
        while nothing happens; new, from the table's first message (its snapshot)."""
        if self.mirror.known:
            self._following()
        try:
            async for text in feed:
                self._publish(self.mirror.take(str(text)))
                if not self.following:
                    self._following()
            reason = "the table's feed closed"
        except (WebSocketException, FeedGap) as error:
            reason = f"the table's feed is lost: {error}"
        followed = self.following
        self._lost(reason)
        return followed

    def _following(self) -> None:
        log.info("following the table's feed %s", self.source)
        self.following = True

    def _resume_url(self) -> str:
        if not self.mirror.known:
            return self.source
        return f"{self.source}?epoch={self.mirror.epoch}&last={self.mirror.seq}"

    def _publish(self, text: str) -> None:
        broadcast(self.viewers, text)
        for viewer in list(self.viewers):
            if viewer.transport.get_write_buffer_size() > self._backlog:
                log.warning("viewer %s does not keep up: cut off", viewer.remote_address)
                self._cut(viewer, TOO_SLOW, "too far behind: reconnect")

    def _lost(self, reason: str) -> None:
        if self.following:
            log.warning("%s; reconnecting", reason)
        self.following = False
        for viewer in list(self.viewers):
            self._cut(viewer, LOST, reason)

    def _cut(self, viewer: ServerConnection, code: int, reason: str) -> None:
        """Stop sending to ``viewer`` now and close its socket (without waiting for it: a
        viewer that does not read would hold the relay up to its close timeout)."""
        self.viewers.discard(viewer)
        closing = asyncio.create_task(viewer.close(code, reason[:120]))
        self._closing.add(closing)
        closing.add_done_callback(self._closing.discard)

    # --- the viewers ----------------------------------------------------------------------

    async def _viewer(self, connection: ServerConnection) -> None:
        client = str(connection.remote_address[0]) if connection.remote_address else "unknown"
        refused = self._feeds.refusal(client)
        if refused is not None:
            log.warning("refused a viewer: %s", refused)
            await connection.close(POLICY, refused[:120])
            return
        try:
            await self._serve_viewer(connection)
        finally:
            sent = connection.protocol.close_sent  # the code the relay closed it with
            self._feeds.closed(client, None if sent is None else sent.code)

    async def _serve_viewer(self, connection: ServerConnection) -> None:
        path = connection.request.path if connection.request else ""
        if urlsplit(path).path == "/studio/ws":
            await self._studio_viewer(connection, studio_token(urlsplit(path).query))
            return
        resume = Resume.of(urlsplit(path).query)  # checked on request
        if not self.following:
            await connection.close(LOST, "the table's feed is not followed yet")
            return
        for text in self.mirror.catch_up(resume):  # with no wait in between: no update lost
            broadcast([connection], text)
        self.viewers.add(connection)
        try:
            await self._listen(connection)  # viewers have nothing to say
        except ConnectionClosed:  # a viewer gone without a word, or cut off
            pass
        finally:
            self.viewers.discard(connection)

    async def _studio_viewer(self, connection: ServerConnection, token: str) -> None:
        """Pass the table's studio feed for ``token`` on to ``connection``, and the table's
        refusal of it; the viewer's going closes the table's connection. The viewer takes a
        studio slot only with the table's first message: the token accepted."""
        self.studio_waiting.add(connection)
        url = f"{self.studio_source}?{urlencode({'token': token})}"
        try:
            async with connect(
                url,
                ssl=self._source_ssl,
                max_size=None,
                compression=None,
                open_timeout=self._studio_answer,
                ping_interval=PING_EVERY,
                ping_timeout=PING_TIMEOUT,
                close_timeout=CLOSE_TIMEOUT,
            ) as table:
                try:
                    first = await asyncio.wait_for(table.recv(), self._studio_answer)
                except TimeoutError:
                    await connection.close(TOO_SLOW, "the table did not answer for the token")
                    return
                except ConnectionClosed:
                    await _close_as_table(table, connection)
                    return
                self.studio_waiting.discard(connection)
                if len(self.studio_viewers) >= self._studio_most:
                    reason = f"{self._studio_most} studio viewers already: the relay takes no more"
                    log.warning("closed a studio viewer: %s", reason)
                    await connection.close(TOO_SLOW, reason)
                    return
                self.studio_viewers.add(connection)
                await connection.send(first)
                passing = asyncio.create_task(_pass_on(table, connection))
                try:
                    await self._listen(connection)  # the viewer has nothing to say
                finally:
                    passing.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await passing
        except (OSError, TimeoutError, WebSocketException) as error:
            log.warning("the table's studio feed is lost: %s", error or type(error).__name__)
            await connection.close(LOST, "the table's studio feed is lost")
        finally:
            self.studio_waiting.discard(connection)
            self.studio_viewers.discard(connection)

    async def _listen(self, connection: ServerConnection) -> None:
        """Read what a viewer sends until it goes, judging each message (a feed takes no
        input): one refused closes the viewer with its code and reason."""
        inbound = FeedInput(self._limits)
        async for message in connection:
            refused = inbound.refusal(Opcode.BINARY if isinstance(message, bytes) else Opcode.TEXT)
            if refused is not None:
                log.warning("closed a viewer %s (%d): %s", connection.remote_address, *refused)
                await connection.close(*refused)
                return

    def _request(self, connection: ServerConnection, request: Request) -> Response | None:
        """Answer what is not a viewer's feed (pages, health, refusals) before any handshake."""
        parts = urlsplit(request.path)
        host = request.headers.get("Host", "")
        sockname = connection.transport.get_extra_info("sockname")
        refused = host_refusal(host, sockname[0] if sockname else None, self._hosts)
        if refused is not None:
            return _refusal(HTTPStatus.BAD_REQUEST, Declined.WRONG_HOST, refused)
        if parts.path in ("/ws", "/studio/ws"):
            origin = request.headers.get("Origin")
            refused = None
            if origin is not None:
                refused = origin_refusal(origin, host, self._secure, self._origins)
            if refused is not None:
                return _refusal(HTTPStatus.FORBIDDEN, Declined.WRONG_ORIGIN, refused)
            if parts.path == "/studio/ws":
                return self._studio_request(parts.query)
            if not self.following:
                return _refusal(
                    HTTPStatus.SERVICE_UNAVAILABLE,
                    Declined.NOT_FOLLOWING,
                    "the table's feed is not followed",
                )
            try:
                Resume.of(parts.query)
            except ValueError as error:
                return _refusal(HTTPStatus.BAD_REQUEST, Declined.INVALID_FIELD, str(error))
            return None
        if parts.path == "/health":
            status = HTTPStatus.OK if self.following else HTTPStatus.SERVICE_UNAVAILABLE
            return _json(status, self.health())
        if parts.path == "/":
            found = HTTPStatus.FOUND
            headers = Headers([("Location", "/public"), *SECURITY_HEADERS, CLOSE])
            return Response(found.value, found.phrase, headers, b"")
        name = PAGES.get(parts.path) or parts.path.removeprefix("/static/")
        if name in STATIC_FILES:
            body = (STATIC / name).read_bytes()
            return _response(HTTPStatus.OK, STATIC_FILES[name], body)
        return _refusal(
            HTTPStatus.NOT_FOUND,
            Declined.NO_PATH,
            f"{parts.path[:80]}: not here (/ws, /public, /studio/ws, /studio, /health)",
        )

    def _studio_request(self, query: str) -> Response | None:
        """A studio viewer's handshake: refused without a token, when the relay has as many
        studio viewers as it takes, or as many tokens waiting for the table's answer."""
        try:
            studio_token(query)
        except ValueError as error:
            return _refusal(HTTPStatus.UNAUTHORIZED, Denied.NO_STUDIO_TOKEN, str(error))
        reason = None
        if len(self.studio_viewers) >= self._studio_most:
            reason = f"{self._studio_most} studio viewers already: the relay takes no more"
        elif len(self.studio_waiting) >= self._studio_most:
            reason = f"{self._studio_most} studio tokens wait for the table's answer already"
        if reason is not None:
            log.warning("refused a studio viewer: %s", reason)
            return _refusal(HTTPStatus.SERVICE_UNAVAILABLE, Declined.STUDIO_SLOTS_TAKEN, reason)
        return None

    def health(self) -> RelayHealth:
        return {
            "source": self.source,
            "following": self.following,
            "epoch": self.mirror.epoch,
            "seq": self.mirror.seq,
            "viewers": len(self.viewers),
            "studio_viewers": len(self.studio_viewers),
            "studio_waiting": len(self.studio_waiting),
        }

    @contextlib.asynccontextmanager
    async def serving(
        self, host: str, port: int, tls: ssl.SSLContext | None = None
    ) -> AsyncIterator[Server]:
        """Follow the table and serve viewers at ``host``:``port`` (0: a free port)."""
        self._secure = tls is not None
        follower = asyncio.create_task(self.follow())
        try:
            async with serve(
                self._viewer,
                host,
                port,
                ssl=tls,
                process_request=self._request,
                compression=None,  # each viewer would compress the same message again
                max_size=self._limits.max_message,  # a bigger message: 1009, unread
            ) as server:
                yield server
        finally:
            follower.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await follower
            self.following = False  # the server closed every viewer's socket (1001)


def studio_token(query: str) -> str:
    """The studio token of a studio viewer's query (``token=TOKEN``); ValueError if none."""
    fields = parse_qs(query, keep_blank_values=True)
    unknown = sorted(set(fields) - {"token"})
    if unknown:
        raise ValueError(f"{unknown[0]}: not a parameter of the studio feed (token)")
    token = fields.get("token", [""])[-1]
    if not token:
        raise ValueError("the studio feed needs a studio token (?token=TOKEN)")
    return token


async def _pass_on(table: ClientConnection, viewer: ServerConnection) -> None:
    """Send the viewer each message of the table's studio feed; when the table closes it,
    close the viewer as the table closed it."""
    try:
        async for text in table:
            await viewer.send(text)
    except ConnectionClosed:
        pass
    await _close_as_table(table, viewer)


async def _close_as_table(table: ClientConnection, viewer: ServerConnection) -> None:
    """Close the viewer as the table closed its studio feed: a refused token with 4401 and
    why, anything else as lost."""
    received = table.protocol.close_rcvd
    if received is not None and received.code == REFUSED:
        await viewer.close(REFUSED, received.reason[:120])
    else:
        await viewer.close(LOST, "the table's studio feed closed")


def server_url(server: Server, tls: bool) -> str:
    """The address viewers connect to (``ws(s)://host:port``) of a serving relay."""
    host, port = next(iter(server.sockets)).getsockname()[:2]
    return f"{'wss' if tls else 'ws'}://{host}:{port}"


#: The server closes the connection after an answer that is not a feed: each such answer
#: says so, so that a client keeping connections (a load balancer's health checks) does not
#: send its next request on one already closing.
CLOSE = ("Connection", "close")


def _response(status: HTTPStatus, kind: str, body: bytes) -> Response:
    headers = Headers(
        [
            ("Content-Type", f"{kind}; charset=utf-8"),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-cache"),
            *SECURITY_HEADERS,
            CLOSE,
        ]
    )
    return Response(status.value, status.phrase, headers, body)


def _refusal(status: HTTPStatus, code: Declined | Denied, text: str) -> Response:
    """An error answer as the console's: its ``code`` (docs/api.md) beside the words."""
    return _json(status, {"error": status.phrase.lower(), "code": code, "reason": text})


def _json(status: HTTPStatus, document: Mapping[str, object]) -> Response:
    return _response(status, "application/json", json.dumps(document).encode())
