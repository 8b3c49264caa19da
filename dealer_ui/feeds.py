"""The live feed: every update of the table service, numbered, with the recent ones kept so
that a client that reconnects gets exactly what it missed.

The numbers (``seq``) count the updates since this feed started, in ``epoch`` (a random
name of this run): a client that comes back with another epoch, or with a number older
than the updates kept, gets a fresh snapshot instead. Nor does a resume reach back before
the session it is made with began (``since``, the table's journal position then: a
player's token is issued during its sitting): what the table did before then, built for
that role and seat, may belong to someone else (the previous player at the seat); such a
client gets a fresh snapshot too.

While the table's journal cannot be written (``service.journal_fault``), every client is
sent ``{"type": "journal", "epoch", "reason"}`` (not numbered: no update of the table), and
once it can again the same with ``"reason": null``; a client that connects meanwhile gets
it after its snapshot. The console shows it as a blocking alert.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Generic, Literal, NotRequired, TypedDict, TypeVar

from controller.rules import Effect
from controller.rules.effects import EffectJson
from controller.service import TableService
from controller.table import Table
from dealer_ui.approvals import RequestJson
from dealer_ui.views import Role, ViewJson, effects_view, view

KEPT = 1024
Item = TypeVar("Item")


# The feed's messages (docs/api.md), key for key in the order sent.


class TableMessage(TypedDict):
    """A snapshot (the view) or a numbered update (the view and its events), as the
    feed's role may see them (``dealer_ui.views``; the view's fields are
    ``dealer_ui.models.ViewOut``'s, the REST API's)."""

    type: Literal["snapshot", "update"]
    epoch: str
    seq: int
    view: ViewJson
    events: NotRequired[list[EffectJson]]


class JournalMessage(TypedDict):
    """The journal cannot be written (``reason``), or can again (None)."""

    type: Literal["journal"]
    epoch: str
    reason: str | None


class RequestsMessage(TypedDict):
    """The requests waiting for a supervisor (``dealer_ui.approvals``)."""

    type: Literal["requests"]
    requests: list[RequestJson]


class Kept(Generic[Item]):
    """The last ``size`` updates of a feed by number (consecutive numbers), kept for the
    clients that come back: what each missed, when all of it is still kept."""

    def __init__(self, size: int = KEPT) -> None:
        self._updates: deque[tuple[int, Item]] = deque(maxlen=size)

    def append(self, seq: int, update: Item) -> None:
        self._updates.append((seq, update))

    def clear(self) -> None:
        self._updates.clear()

    def at(self, seq: int) -> Item | None:
        """Update number ``seq``, or None when it is not kept."""
        if not self._updates:
            return None
        index = seq - self._updates[0][0]
        return self._updates[index][1] if 0 <= index < len(self._updates) else None

    def missed(self, last: int, current: int) -> list[Item] | None:
        """The updates after number ``last`` up to ``current`` (the newest), or None when
        they are not all kept (or ``last`` is not one of this feed's numbers)."""
        if last > current:
            return None
        if last == current:
            return []
        if not self._updates or self._updates[0][0] > last + 1:
            return None
        return [update for seq, update in self._updates if seq > last]


@dataclass(frozen=True, slots=True)
class Numbered:
    """An update with its number and its journal position; the messages made of it, kept
    by (kind, role, seat), so that each is made once however many clients follow that
    role."""

    seq: int
    position: int
    table: Table
    effects: tuple[Effect, ...]
    messages: dict[tuple[str, Role, int | None], str] = field(default_factory=dict, compare=False)


#: Readers a change wakes at a time: the event loop reads the devices between two turns, so
#: a card that comes in while hundreds of viewers are sent an update waits for one turn of
#: them, not for all (each send is a system call: 200 viewers are milliseconds of the loop).
TURN = 16


class Change:
    """The next change of a feed: ``await change.wait()`` returns once it has happened.
    Its readers are woken :data:`TURN` at a time, a turn each pass of the event loop."""

    def __init__(self) -> None:
        self._waiters: list[asyncio.Future[None]] = []
        self._happened = False

    def is_set(self) -> bool:
        return self._happened

    async def wait(self) -> None:
        if self._happened:
            return
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            if not self._happened:  # given up (a timeout, a reader gone): not woken later
                self._waiters.remove(waiter)

    def set(self) -> None:
        if not self._happened:
            self._happened = True
            self._wake(0)

    def _wake(self, start: int) -> None:
        for waiter in self._waiters[start : start + TURN]:
            if not waiter.done():
                waiter.set_result(None)
        if start + TURN < len(self._waiters):
            asyncio.get_running_loop().call_soon(self._wake, start + TURN)


class Changes:
    """A feed's changes for its readers: ``next()`` is the :class:`Change` to come (take it
    before looking, then wait on it), ``closed`` once the feed has ended for good."""

    def __init__(self) -> None:
        self._next = Change()
        self.closed = False

    def next(self) -> Change:
        return self._next

    def changed(self) -> None:
        """Wake every reader waiting on the change taken before this one."""
        change, self._next = self._next, Change()
        change.set()

    def close(self) -> None:
        self.closed = True
        self.changed()


class Feed:
    """Follows ``service``: the current table, its number, and the last ``kept`` updates."""

    def __init__(self, service: TableService, kept: int = KEPT) -> None:
        self.service = service
        self.epoch = secrets.token_hex(4)
        self._updates = service.updates()
        self.current = Numbered(0, service.position, service.table, ())
        self._kept: Kept[Numbered] = Kept(kept)
        self._changes = Changes()
        self._task: asyncio.Task[None] | None = None
        service.fault_listeners.append(self._changes.changed)
        #: The requests waiting for a supervisor (their version and list), sent to the
        #: dealer's and surveillance's clients as ``{"type": "requests"}`` when they change.
        self.requests: Callable[[], tuple[int, list[RequestJson]]] | None = None

    def nudge(self) -> None:
        """Something sent beside the table's updates changed (the requests waiting)."""
        self._changes.changed()

    def start(self) -> None:
        """Start following (idempotent; needs the running loop)."""
        if self._task is None:
            self._task = asyncio.create_task(self._follow())

    async def stop(self) -> None:
        self._updates.close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._changes.close()

    async def _follow(self) -> None:
        async for update in self._updates:
            seq = self.current.seq + 1
            numbered = Numbered(seq, update.position, update.table, update.effects)
            self._kept.append(numbered.seq, numbered)
            self.current = numbered
            self._changes.changed()
        self._changes.close()

    @property
    def closed(self) -> bool:
        return self._changes.closed

    def missed(self, epoch: str | None, last: int | None, since: int = 0) -> list[Numbered] | None:
        """The updates after ``last`` of ``epoch``, or None when a snapshot is due: also
        when one of them was made before journal position ``since`` was passed (before the
        client's session began)."""
        if epoch != self.epoch or last is None:
            return None
        missed = self._kept.missed(last, self.current.seq)
        if missed and missed[0].position <= since:
            return None
        return missed

    async def messages(
        self, role: Role, seat: int | None, epoch: str | None, last: int | None, since: int = 0
    ) -> AsyncIterator[str]:
        """A snapshot (or what was missed since ``last``), then every update, as ``role``
        sees them (JSON text, made once per update and role); ends when the service stops.
        Nothing is made of the table before journal position ``since`` (the session's
        beginning): the feed first catches up with it, and a resume from before it gets a
        snapshot."""
        self.start()
        while self.current.position < since and not self.closed:
            await self._changes.next().wait()
        missed = self.missed(epoch, last, since)
        if missed is None:
            yield self._snapshot(role, seat)
            sent = self.current.seq
        else:
            sent = last if last is not None else 0
        told: str | None = None  # the journal's fault the client was told of
        asked = 0  # the version of the requests the client was told of (0: none asked yet)
        while True:
            changed = self._changes.next()
            if self.service.journal_fault != told:
                told = self.service.journal_fault
                journal: JournalMessage = {"type": "journal", "epoch": self.epoch, "reason": told}
                yield json.dumps(journal)
            if self.requests is not None and role in (Role.DEALER, Role.SURVEILLANCE):
                version, requests = self.requests()
                if version != asked:
                    asked = version
                    listed: RequestsMessage = {"type": "requests", "requests": requests}
                    yield json.dumps(listed)
            while sent < self.current.seq:
                after = self._kept.at(sent + 1)
                if after is None:  # fell behind what is kept
                    yield self._snapshot(role, seat)
                    sent = self.current.seq
                else:
                    yield self._update(after, role, seat)
                    sent = after.seq
            if self.closed:
                return
            if sent == self.current.seq:
                await changed.wait()

    def _snapshot(self, role: Role, seat: int | None) -> str:
        return self._message("snapshot", self.current, role, seat)

    def _update(self, numbered: Numbered, role: Role, seat: int | None) -> str:
        return self._message("update", numbered, role, seat)

    def _message(
        self, kind: Literal["snapshot", "update"], numbered: Numbered, role: Role, seat: int | None
    ) -> str:
        """A snapshot (the view) or an update (the view and the events), made once."""
        key = (kind, role, seat)
        text = numbered.messages.get(key)
        if text is None:
            table = numbered.table
            message: TableMessage = {
                "type": kind,
                "epoch": self.epoch,
                "seq": numbered.seq,
                "view": view(table, role, seat),
            }
            if kind == "update":
                message["events"] = effects_view(numbered.effects, table, role, seat)
            text = numbered.messages[key] = json.dumps(message)
        return text
