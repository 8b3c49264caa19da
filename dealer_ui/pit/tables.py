"""The pit approves the dealers' requests (docs/floor.md, "Requests from the tables").

A dealer's request to the supervisor waits in the memory of its table's service
(``dealer_ui.approvals``); the floor store never holds it. The floor service reaches each
table's own console (``[consoles]``) over its REST API, as the supervisor's surveillance
page does, and holds no credential of its own there: a supervisor signed in to the pit
*connects* to a table with their PIN (the table checks it against its own supervisors: a
surveillance session at the table, kept here for that pit session only, in memory), and
every approval carries the PIN again, checked by the table and journaled there with the
supervisor's id, exactly as an approval on the surveillance page. A pit session that ends
leaves its table sessions unused; the table ends them after its ``session_idle``.

The calls are plain HTTP(S) (``urllib``, in a thread: the floor service's loop never
waits on a table), each with a deadline (``TIMEOUT``).
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dealer_ui.codes import Declined
from dealer_ui.web import ApiError

#: Seconds a call to a table's console may take (a PIN check there takes about half).
TIMEOUT = 10.0
#: What the table's refusals become at the pit: its 401 is a PIN refused (or the session
#: the pit held there ended), not the pit's own session.
_STATUS = {401: 403}


@dataclass(slots=True)
class TableLinks:
    """The pit sessions' sessions at the tables' consoles (``consoles``: table id -> URL),
    by (the pit session's token, the table id). ``alive`` says whether a pit session still
    holds (the links of one that does not are forgotten)."""

    consoles: Mapping[str, str]
    alive: Callable[[str], bool] = lambda token: True
    _held: dict[tuple[str, str], str] = field(default_factory=dict)

    def console(self, table_id: str) -> str:
        url = self.consoles.get(table_id)
        if url is None:
            reason = f"no console configured for table {table_id!r}"
            raise ApiError(404, "not_found", reason, Declined.NO_CONSOLE)
        return url

    async def connect(self, pit: str, who: str, table_id: str, pin: str) -> None:
        """Sign ``who`` in at ``table_id``'s console with ``pin`` (a surveillance session
        there), kept for the pit session ``pit``."""
        body = {"role": "surveillance", "id": who, "pin": pin}
        answer = await self._call(table_id, "POST", "/api/sessions", body)
        self._forget_ended()
        self._held[(pit, table_id)] = str(answer["token"])

    def connected(self, pit: str) -> set[str]:
        return {table for (token, table) in self._held if token == pit}

    async def requests(self, pit: str, table_id: str) -> list[dict[str, Any]]:
        """The requests waiting at the table, as its ``GET /api/requests`` gives them
        (``dealer_ui.approvals.RequestJson`` of the table's release), passed on as they
        came: the pit sends them on as any object, whatever release each table runs."""
        answer = await self._call(
            table_id, "GET", "/api/requests", None, self._token(pit, table_id)
        )
        return list(answer)

    async def approve(
        self, pit: str, who: str, table_id: str, number: int, pin: str
    ) -> dict[str, Any]:
        """Approve request ``number`` at the table with ``who``'s ``pin``: the table's answer
        (its step after the action, or the request approved once under two-person control),
        passed on as it came."""
        body = {"supervisor": who, "pin": pin}
        path = f"/api/requests/{number}/approve"
        token = self._token(pit, table_id)
        answer: dict[str, Any] = await self._call(table_id, "POST", path, body, token, pin=True)
        return answer

    async def cancel(self, pit: str, table_id: str, number: int) -> dict[str, Any]:
        """Cancel request ``number`` at the table: the table's answer (the request), passed
        on as it came."""
        path = f"/api/requests/{number}/cancel"
        answer: dict[str, Any] = await self._call(
            table_id, "POST", path, {}, self._token(pit, table_id)
        )
        return answer

    def _token(self, pit: str, table_id: str) -> str:
        self.console(table_id)
        token = self._held.get((pit, table_id))
        if token is None:
            reason = f"connect to table {table_id} with your PIN"
            raise ApiError(409, "not_connected", reason, Declined.NOT_CONNECTED)
        return token

    def _forget_ended(self) -> None:
        for key in [key for key in self._held if not self.alive(key[0])]:
            del self._held[key]

    async def _call(
        self,
        table_id: str,
        method: str,
        path: str,
        body: Any,
        token: str | None = None,
        *,
        pin: bool = False,
    ) -> Any:
        """``pin``: the call carries a PIN (its 401 is the PIN refused; else the table's
        session ended: forgotten here, the supervisor connects again)."""
        url = self.console(table_id) + path
        try:
            return await asyncio.to_thread(_http, method, url, body, token)
        except _Refused as refused:
            if token is not None and refused.status == 401 and not pin:
                self._held = {k: v for k, v in self._held.items() if v != token}
            status = _STATUS.get(refused.status, refused.status)
            reason = f"table {table_id}: {refused.reason}"
            raise ApiError(status, refused.error, reason, refused.code) from None
        except (OSError, ValueError) as error:  # not reached, timed out, not JSON
            reason = f"table {table_id}'s console does not answer ({type(error).__name__})"
            raise ApiError(503, "unavailable", reason, Declined.TABLE_UNREACHABLE) from None


class _Refused(Exception):
    def __init__(self, status: int, error: str, reason: str, code: str) -> None:
        super().__init__(reason)
        self.status, self.error, self.reason, self.code = status, error, reason, code


def _http(method: str, url: str, body: Any, token: str | None) -> Any:
    """One call to a table's console: its JSON answer, or ``_Refused`` with its reason."""
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data, headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
            return json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as error:
        try:
            said = json.loads(error.read() or b"{}")
        except ValueError:
            said = None
        if not isinstance(said, dict):
            said = {}
        reason = str(said.get("reason", error.reason))[:300]
        code = said.get("code")  # the table's reason code, passed on as it is
        code = code[:40] if isinstance(code, str) else Declined.TABLE_ANSWERED
        raise _Refused(error.code, str(said.get("error", "refused"))[:40], reason, code) from None
