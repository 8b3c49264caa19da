"""Serve the console (or the floor service's pit view) with uvicorn on the running event
loop, whose owner handles SIGTERM and SIGINT."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

import uvicorn
from fastapi import FastAPI

from controller.config import Api
from controller.service import TableService
from dealer_ui.app import create_app
from dealer_ui.auth import Auth


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
        await self.app.state.feed.stop()
        self._server.should_exit = True
        await self._task


async def _run(server: uvicorn.Server, what: str) -> None:
    try:
        await server.serve()
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
) -> Served:
    """Start serving ``service``'s console at the configuration's API address (``host``
    and ``port`` override it; port 0 picks a free one); returns once it listens."""
    app = create_app(service, auth)
    return await start(app, service.config.api, host=host, port=port, log_level=log_level)


async def start(
    app: FastAPI,
    api: Api,
    *,
    host: str | None = None,
    port: int | None = None,
    log_level: str = "warning",
    what: str = "the console",
) -> Served:
    """Start serving ``app`` (whose ``state.feed`` is stopped first at the end) at ``api``'s
    address and TLS files, on the running loop; returns once it listens."""
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
    )
    server = _Server(config)
    task = asyncio.create_task(_run(server, what))
    while not server.started:
        if task.done():
            task.result()
            raise OSError(f"{what} stopped while starting (see the log)")
        await asyncio.sleep(0.01)
    bound = server.servers[0].sockets[0].getsockname()
    scheme = "http" if api.tls_cert is None else "https"
    return Served(app, server, task, f"{scheme}://{bound[0]}:{bound[1]}")
