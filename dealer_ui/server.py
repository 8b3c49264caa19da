"""Serve the console (or the floor service's pit view) with uvicorn on the running event
loop, whose owner handles SIGTERM and SIGINT.

:func:`listening_socket` binds the address first, so that a command can refuse an address
it cannot listen at before it opens anything else (a journal, a device), and hand the
socket to :func:`start`."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import socket
from collections.abc import Callable, Iterator

import uvicorn
from fastapi import FastAPI
from fastapi.responses import JSONResponse

from controller.config_file import Api
from controller.service import TableService
from dealer_ui.app import create_app
from dealer_ui.auth import Auth
from dealer_ui.codes import Declined
from dealer_ui.guard import uvicorn_options
from dealer_ui.web import error_body


class _Server(uvicorn.Server):
    """uvicorn's server without its signal handlers: the service owns SIGTERM and SIGINT."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class Served:
    """The console being served: its ``url`` and ``app``; ``await stop()`` to close it."""

    def __init__(
        self, app: FastAPI, server: uvicorn.Server, task: asyncio.Task[None], url: str
    ) -> None:
        self.app, self._server, self._task, self.url = app, server, task, url

    async def stop(self) -> None:
        """End the feeds (their sockets close), then the server."""
        feed = getattr(self.app.state, "feed", None)
        if feed is not None:
            await feed.stop()
        self._server.should_exit = True
        await self._task


def listening_socket(api: Api, host: str | None = None, port: int | None = None) -> socket.socket:
    """A TCP socket bound at ``api``'s address (``host`` and ``port`` override it), not yet
    listening; OSError naming the setting and why it cannot be bound (an address not of
    this machine, a name that does not resolve, a port in use or not allowed)."""
    host = api.bind if host is None else host
    port = api.port if port is None else port
    where = f"api.bind = {host!r}, api.port = {port}"
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as error:
        raise OSError(f"{where}: no such address ({error.strerror})") from None
    bound = socket.socket(family, kind, proto)
    try:
        bound.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        bound.bind(address)
    except OSError as error:
        bound.close()
        failed = OSError(f"{where}: cannot listen there ({error.strerror or error})")
        failed.errno = error.errno  # why, as data (EADDRINUSE: a port in use)
        raise failed from None
    bound.set_inheritable(True)
    return bound


async def _run(server: uvicorn.Server, what: str, sock: socket.socket | None) -> None:
    try:
        await server.serve(sockets=None if sock is None else [sock])
    except SystemExit:  # uvicorn's answer to an address it cannot listen at
        address = f"{server.config.host}:{server.config.port}"
        raise OSError(f"{what} cannot listen at {address} (see the log)") from None


async def serve(
    service: TableService,
    *,
    host: str | None = None,
    port: int | None = None,
    auth: Auth | None = None,
    log_level: str = "warning",
    sock: socket.socket | None = None,
) -> Served:
    """Start serving ``service``'s console at the configuration's API address (``host``
    and ``port`` override it; port 0 picks a free one; ``sock``: a socket already bound
    there, see :func:`listening_socket`); returns once it listens."""
    app = create_app(service, auth)
    api = service.config.api
    return await start(app, api, host=host, port=port, log_level=log_level, sock=sock)


def waiting_app(reason: Callable[[], str]) -> FastAPI:
    """The console while the table waits for its journal at its start (its disk full):
    every request answers 503 ``{"error": "unavailable", "reason": reason(), "code":
    "journal_waits"}``."""
    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)

    @app.api_route("/{path:path}", methods=["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"])
    async def unavailable(path: str) -> JSONResponse:
        body = error_body("unavailable", reason(), Declined.JOURNAL_WAITS)
        return JSONResponse(body, 503, headers={"Retry-After": "5"})

    return app


async def start(
    app: FastAPI,
    api: Api,
    *,
    host: str | None = None,
    port: int | None = None,
    log_level: str = "warning",
    what: str = "the console",
    sock: socket.socket | None = None,
) -> Served:
    """Start serving ``app`` (whose ``state.feed`` is stopped first at the end) at ``api``'s
    address (or on ``sock``, bound there already) and TLS files, on the running loop;
    returns once it listens."""
    config = uvicorn.Config(
        app,
        host=api.bind if host is None else host,
        port=api.port if port is None else port,
        ssl_certfile=None if api.tls_cert is None else str(api.tls_cert),
        ssl_keyfile=None if api.tls_key is None else str(api.tls_key),
        log_level=log_level,
        lifespan="on",
        # each socket would compress the same message again: on the feeds' 200 viewers that
        # was the largest cost of an update on the service's loop (docs/performance.md)
        ws_per_message_deflate=False,
        **uvicorn_options(api),
    )
    server = _Server(config)
    task = asyncio.create_task(_run(server, what, sock))
    while not server.started:
        if task.done():
            task.result()
            raise OSError(f"{what} stopped while starting (see the log)")
        await asyncio.sleep(0.01)
    bound = server.servers[0].sockets[0].getsockname()
    scheme = "http" if api.tls_cert is None else "https"
    gc.freeze()  # the app lives as long as the server: out of a full collection's walk (as
    # the table service's start: controller.service)
    return Served(app, server, task, f"{scheme}://{bound[0]}:{bound[1]}")
