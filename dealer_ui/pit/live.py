"""The pit's live feed: the floor as the store holds it, pushed to every open page.

One :class:`FloorFeed` per floor service looks at the store (one query of every table's
status and one of the open alerts, whatever the number of pages open) and sends the floor
to each follower when it changed. It looks every ``poll`` seconds, and sooner when the
store NOTIFYs a committed batch (``LISTEN`` on ``controller.floor.store.CHANNEL``; the
notifications of ``GAP`` seconds are taken together): the poll is what keeps it right, the
notification only makes it prompt. So it works the same with any number of floor services
against one PostgreSQL, or on a read replica (where no notification comes: the poll alone),
and a PostgreSQL restart is only a failed look: the feed says "floor database unreachable"
and the next look reconnects. Every query has a statement timeout: a lock held on the
store, or a database too busy to answer, is a failed look too ("floor store unavailable"),
never a feed that hangs while the page says "live".
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

import psycopg
import psycopg.errors
from psycopg_pool import ConnectionPool
from pydantic import TypeAdapter

from controller.floor import store
from dealer_ui.codes import Declined

log = logging.getLogger(__name__)

_TABLES = TypeAdapter(list[store.TableOverview])
_ALERTS = TypeAdapter(list[store.OpenAlert])
_NO_HAND = {"__all__": {"hand"}}
UNREACHABLE = "floor database unreachable"
UNAVAILABLE = "floor store unavailable"
GAP = 0.25
STATEMENT_TIMEOUT = 5.0


def connect(
    dsn: str, timeout: float = 3.0, statement_timeout: float = STATEMENT_TIMEOUT
) -> psycopg.Connection:
    """A reading connection to the floor: autocommit (every query sees the latest batches),
    short timeouts (a silent database is reported within seconds, a query waiting on a
    lock is given up after ``statement_timeout`` seconds)."""
    connection = store.connect(dsn, **_reading(timeout))
    try:
        _give_up_after(connection, statement_timeout)
    except BaseException:
        connection.close()
        raise
    return connection


def pool(
    dsn: str, size: int, timeout: float = 3.0, statement_timeout: float = STATEMENT_TIMEOUT
) -> ConnectionPool[psycopg.Connection]:
    """Reading connections as :func:`connect` makes them, up to ``size`` at once, kept open
    between requests (not opened yet: ``open()``). Each is checked as it is taken (one
    broken by a PostgreSQL restart is replaced, not handed out); taking one waits
    ``timeout`` seconds at most (``PoolTimeout``, an ``OperationalError``)."""
    return ConnectionPool(
        dsn,
        kwargs={**store.CONNECT_OPTIONS, **_reading(timeout)},
        min_size=1,
        max_size=size,
        open=False,
        timeout=timeout,
        check=ConnectionPool.check_connection,
        configure=lambda connection: _give_up_after(connection, statement_timeout),
        name="pit",
    )


def _reading(timeout: float) -> dict[str, Any]:
    return {
        "autocommit": True,
        "connect_timeout": max(1, round(timeout)),
        "application_name": "luck-table floor",
    }


def _give_up_after(connection: psycopg.Connection, statement_timeout: float) -> None:
    connection.execute(
        "SELECT set_config('statement_timeout', %s, false)",
        (f"{round(statement_timeout * 1000)}ms",),
    )


def unreachable(error: psycopg.Error) -> tuple[Declined, str]:
    """What the pit is told when the store does not answer: why as data, and the reason in
    one line (a query given up at the statement timeout, the connection lost or refused,
    or what else PostgreSQL said)."""
    detail = str(error).strip().splitlines()
    said = detail[0] if detail else type(error).__name__
    if isinstance(error, psycopg.errors.QueryCanceled):
        return Declined.FLOOR_BUSY, (
            f"{UNAVAILABLE}: no answer within the statement timeout (floor.statement_timeout; "
            f"a lock held on the store, or the database overloaded): {said}"
        )
    if isinstance(error, psycopg.OperationalError | psycopg.InterfaceError):
        return Declined.FLOOR_UNREACHABLE, f"{UNREACHABLE}: {said}"
    return Declined.FLOOR_ERROR, f"{UNAVAILABLE}: {said}"


def floor_now(
    connection: psycopg.Connection, silent_after: float = store.SILENT_AFTER
) -> tuple[str, bytes]:
    """The floor as the pit page shows it: the database's clock (to tell how long ago each
    table was last heard of), and every table's status (without the hand in progress: its
    cards are for a table's own view) and the open alerts, as the JSON members ``"tables":
    [...],"open_alerts": [...]``."""
    row = connection.execute("SELECT now()").fetchone()
    assert row is not None
    now: datetime = row[0]
    floor = store.tables(connection, None, silent_after, hand=False)
    tables = _TABLES.dump_json(floor, exclude=_NO_HAND)
    alerts = _ALERTS.dump_json(store.open_alerts(connection))
    return now.isoformat(), b'"tables":' + tables + b',"open_alerts":' + alerts


def floor_message(now: str, content: bytes) -> str:
    """The feed's message (and ``GET /api/floor``'s answer) of :func:`floor_now`."""
    return f'{{"type":"floor","ok":true,"now":{json.dumps(now)},{content.decode()}}}'


class FloorFeed:
    """Looks at the store every ``poll`` seconds; :meth:`messages` follows the floor."""

    def __init__(
        self,
        dsn: str,
        poll: float = 1.0,
        listen: bool = True,
        statement_timeout: float = STATEMENT_TIMEOUT,
        silent_after: float = store.SILENT_AFTER,
    ) -> None:
        self.dsn, self.poll, self.listen = dsn, poll, listen
        self.statement_timeout, self.silent_after = statement_timeout, silent_after
        self.latest: str | None = None
        self.looks = 0
        self._content: bytes | None = None
        self._changed = asyncio.Condition()
        self._connection: psycopg.Connection | None = None
        self._listener: psycopg.AsyncConnection | None = None
        self.wakes = 0  # looks brought forward by a notification
        self._task: asyncio.Task[None] | None = None
        self.closed = False

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._follow())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self.closed = True
        async with self._changed:
            self._changed.notify_all()
        await asyncio.to_thread(self._close)
        await self._unlisten()

    async def messages(self) -> AsyncIterator[str]:
        """The floor now (once the first look is done), then each change, until stopped."""
        sent: list[str | None] = [None]
        while not self.closed:
            async with self._changed:
                await self._changed.wait_for(lambda: self.closed or self.latest is not sent[0])
            if self.closed or self.latest is None:
                return
            sent[0] = self.latest
            yield self.latest

    async def _follow(self) -> None:
        while True:
            try:
                now, content = await asyncio.to_thread(self._look)
                message = floor_message(now, content)
            except psycopg.Error as error:
                await asyncio.to_thread(self._close)
                code, reason = unreachable(error)
                log.warning("%s", reason)
                content = reason.encode()
                message = json.dumps({"type": "floor", "ok": False, "reason": reason, "code": code})
            self.looks += 1
            if content != self._content:
                self._content = content
                async with self._changed:
                    self.latest = message
                    self._changed.notify_all()
            await self._wait()

    async def _wait(self) -> None:
        """Until the store NOTIFYs a batch (and ``GAP`` more seconds, whose notifications
        are taken with it), ``poll`` seconds at most."""
        if not self.listen:
            await asyncio.sleep(self.poll)
            return
        try:
            if self._listener is None:
                self._listener = await psycopg.AsyncConnection.connect(
                    self.dsn, autocommit=True, connect_timeout=3
                )
                try:
                    await self._listener.execute(f"LISTEN {store.CHANNEL}")
                except psycopg.errors.ReadOnlySqlTransaction as error:  # a read replica
                    log.info("no notifications here (%s): the poll alone", error)
                    self.listen = False
                    raise
            async for _ in self._listener.notifies(timeout=self.poll, stop_after=1):
                self.wakes += 1
            await asyncio.sleep(GAP)
            async for _ in self._listener.notifies(timeout=0.001):
                pass  # the batches of the gap: this look shows them too
        except psycopg.Error:
            await self._unlisten()
            await asyncio.sleep(self.poll)

    async def _unlisten(self) -> None:
        if self._listener is not None:
            with contextlib.suppress(psycopg.Error):
                await self._listener.close()
            self._listener = None

    def _look(self) -> tuple[str, bytes]:
        if self._connection is None or self._connection.closed:
            self._connection = connect(self.dsn, statement_timeout=self.statement_timeout)
        return floor_now(self._connection, self.silent_after)

    def _close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
