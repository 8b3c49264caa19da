"""The fields of the access records the console journals (``TableService.record_access``:
not table inputs, the table does not change; docs/security.md), each record's keys in the
order they are journaled. A key that only some records have is ``NotRequired`` where it
sits; the ``total=False`` parts are those optional keys, spread into a record at their
place (``{**part}``: none, or all of them)."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from dealer_ui.studio import StudioPassJson


class Via(TypedDict, total=False):
    """The proxy a request came through, where it is not the client."""

    peer: str


class At(TypedDict, total=False):
    """The session a credential was tried at (a supervisor's PIN with an action)."""

    by: str


class FailedAttempt(TypedDict):
    """``failed_attempt``: a refused credential: who tried, as what, for which action, from
    where; the status answered and why; ``by``: the session it was tried at."""

    role: str
    who: str
    action: str
    client: str
    peer: NotRequired[str]
    status: int
    reason: str
    by: NotRequired[str]


class Replaced(TypedDict, total=False):
    """A sitting's second player token: the supervisor who allowed it, why, the tokens it
    replaces and how many sessions ended."""

    supervisor: str
    why: str
    replaces: int
    ended: int


class PlayerToken(TypedDict):
    """``player_token``: a player's token issued (its SHA-256 digest, never the token)."""

    seat: int
    sitting: int
    by: str
    supervisor: NotRequired[str]
    why: NotRequired[str]
    replaces: NotRequired[int]
    ended: NotRequired[int]
    digest: str


class Unlocked(TypedDict):
    """``sign_in_unlocked``: an id unlocked where the table had no alert of its lock."""

    role: str
    id: str
    supervisor: str
    by: str
    why: str


class SupervisorRequest(TypedDict):
    """``supervisor_request``: a request asked for, approved (once or for good) or
    cancelled (``dealer_ui.approvals``)."""

    event: str  # asked, approved_once, approved, cancelled
    request: int
    action: str
    asked_by: str
    by: str
    role: str
    supervisor: NotRequired[str]  # an approval: who approved


class StudioIssued(StudioPassJson):
    """``studio_token``: a studio token issued, and why."""

    why: str


class StudioRevoked(TypedDict):
    """``studio_token_revoked``: a studio token ended by a supervisor."""

    id: str
    supervisor: str
    by: str
    why: str


class SessionsEpoch(TypedDict):
    """``sessions_epoch``: the random name of one run of the service, as it begins: the
    sessions kept by that run are taken back only by the next (``dealer_ui.kept_sessions``)."""

    epoch: str


class Refused(TypedDict):
    """An input refused at the API (``dealer_ui.refusals``): what, who, from where, why (in
    words, ``reason``, and as data, ``code``: the API's)."""

    input: str
    role: str
    who: str
    seat: int | None
    sitting: int | None
    client: str
    reason: str
    code: str


class RefusedInput(Refused):
    """``refused_input``: a burst of refused inputs of a session, its first refusal's
    fields with how many and over how many seconds."""

    count: int
    seconds: float
