"""Requests to the supervisor: a remedy asked for at the table, approved where the
supervisor is (the surveillance page, or the dealer's console).

A request is what the dealer asked for (a supervisor action's name and its fields, never a
PIN), who asked and when. It waits here, in the console's memory, until a supervisor
approves it (their id and PIN: the action is then submitted exactly as at the table),
someone cancels it, or it expires (``TTL``). Where the house's two-person control covers
the action (``controller.table.second_needed``) the first supervisor's approval is kept on
the request (``approved_by``) and it waits on for a second, other supervisor's. Every
change is told to the dealer's and surveillance's feeds (:meth:`Requests.listed`, numbered
by ``version``).
"""

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, TypedDict

#: How long a request waits for a supervisor, in seconds.
TTL = 300.0
#: A request for the supervisor to come to the table: no action to approve.
CALL = "call"


#: A supervisor action's fields and reason as its ``/api/supervisor/`` route takes them,
#: without the supervisor's id and PIN: each action's own, declared once by its model
#: (``dealer_ui.app.ACTIONS``), which checks them as the request is asked and approved.
ActionBody = dict[str, Any]


class RequestJson(TypedDict):
    """A request as the API and the feeds send it (``dealer_ui.app.RequestOut``)."""

    id: int
    action: str
    body: ActionBody
    asked_by: str
    asked_at: float
    expires: float
    approved_by: str | None


@dataclass(frozen=True, slots=True)
class Request:
    id: int
    action: str  # a supervisor action's path ("void", "resolve", ...) or CALL
    body: ActionBody  # never a supervisor id or PIN
    asked_by: str
    asked_at: float  # the service's time, in seconds
    expires: float
    approved_by: str | None = None  # the first supervisor, under two-person control

    def out(self) -> RequestJson:
        return {
            "id": self.id,
            "action": self.action,
            "body": self.body,
            "asked_by": self.asked_by,
            "asked_at": self.asked_at,
            "expires": self.expires,
            "approved_by": self.approved_by,
        }


@dataclass(slots=True)
class Requests:
    """The requests waiting for a supervisor. ``now`` is the service's clock (seconds);
    ``changed`` is called on every change (the feeds tell their clients)."""

    now: Callable[[], float]
    changed: Callable[[], None] = lambda: None
    ttl: float = TTL
    version: int = 0
    _waiting: dict[int, Request] = field(default_factory=dict)
    _next: int = 1

    def ask(self, action: str, body: ActionBody, who: str) -> Request:
        at = self.now()
        request = Request(self._next, action, body, who, at, at + self.ttl)
        self._next += 1
        self._waiting[request.id] = request
        self._bump()
        with_loop = asyncio.get_running_loop()
        with_loop.call_later(self.ttl + 0.1, self.pending)  # its expiry told to the feeds
        return request

    def pending(self) -> list[Request]:
        """The requests still waiting, oldest first (the expired ones dropped)."""
        now = self.now()
        expired = [number for number, request in self._waiting.items() if request.expires <= now]
        for number in expired:
            del self._waiting[number]
        if expired:
            self._bump()
        return list(self._waiting.values())

    def get(self, number: int) -> Request | None:
        return next((request for request in self.pending() if request.id == number), None)

    def take(self, number: int) -> Request | None:
        """Take request ``number`` out (approved or cancelled): None if it is not waiting
        (approved meanwhile, cancelled or expired)."""
        request = self.get(number)
        if request is not None:
            del self._waiting[number]
            self._bump()
        return request

    def approved_once(self, number: int, who: str, body: ActionBody) -> Request | None:
        """Request ``number`` approved by a first supervisor ``who`` (``body``: its fields,
        the reason as approved): it waits on for a second. None if it is not waiting."""
        request = self.get(number)
        if request is None:
            return None
        request = replace(request, approved_by=who, body=body)
        self._waiting[number] = request
        self._bump()
        return request

    def listed(self) -> tuple[int, list[RequestJson]]:
        """The version and the requests waiting, as the feeds send them."""
        pending = self.pending()
        return self.version, [request.out() for request in pending]

    def _bump(self) -> None:
        self.version += 1
        self.changed()
