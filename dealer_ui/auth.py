"""Sign-in, sessions and the supervisor's PIN: checked against the configuration's Argon2
hashes, rate-limited, every failed attempt logged (logger ``dealer_ui.auth``, WARNING); the
app journals each one (``AuthError.journal``).

A session is a random token that expires ``session_seconds`` after sign-in. It records
the moment it began (``since``: the table's journal position then): a feed that resumes
never sends a session what the table did before it. A player's token is bound to one
sitting (the table's number for that sit-down) and ends with it. After
``max_failures`` failed attempts within ``window_seconds`` for one id or from one client,
further attempts for that id or from that client are refused (HTTP 429), without checking
the PIN, until the oldest of those failures is ``window_seconds`` old. Of those refusals
only the first of each lockout is to be journaled (so that nobody can fill the journal by
trying on): ``AuthError.journal`` says which.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from controller.config import Credential

log = logging.getLogger(__name__)


class AuthError(Exception):
    """A credential refused: ``status`` 401 (wrong or expired) or 429 (too many attempts);
    ``journal``: a failed attempt to journal (every wrong PIN, the first refusal of a
    lockout; never an expired or unknown session)."""

    def __init__(self, status: int, reason: str, journal: bool = False) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.journal = journal


@dataclass(frozen=True, slots=True)
class Session:
    token: str
    role: str  # dealer, surveillance or player
    who: str  # the dealer's or supervisor's id, or "seat N"
    expires: float
    seat: int | None = None
    sitting: int | None = None  # a player's token: the sitting it was issued for
    since: int = 0  # the table's journal position when the session began


@dataclass(slots=True)
class Auth:
    """The sessions and the failed attempts of one app."""

    dealers: Sequence[Credential]
    supervisors: Sequence[Credential]
    session_seconds: float = 8 * 3600
    max_failures: int = 5
    window_seconds: float = 60.0
    clock: Callable[[], float] = time.monotonic
    position: Callable[[], int] = lambda: 0  # the table's journal position now
    _sessions: dict[str, Session] = field(default_factory=dict)
    _failures: dict[str, deque[float]] = field(default_factory=dict)
    _reported: set[str] = field(default_factory=set)  # locked keys whose lockout is journaled

    async def sign_in(self, role: str, who: str, pin: str, client: str) -> Session:
        """A new session for ``who`` (a dealer for ``dealer``, a supervisor for
        ``surveillance``) if ``pin`` is theirs."""
        credentials = self.dealers if role == "dealer" else self.supervisors
        await self.check_pin(credentials, role, who, pin, client)
        return self._new(role, who)

    async def supervisor(self, who: str, pin: str, client: str) -> None:
        """Check a supervisor's PIN for one action."""
        await self.check_pin(self.supervisors, "supervisor", who, pin, client)

    def player_session(self, seat: int, sitting: int) -> Session:
        """A token for the player of ``sitting`` at ``seat`` (issued by a dealer's
        session); it ends when that sitting ends (see :meth:`seat_changed`), even if a
        player of the same name sits there next."""
        return self._new("player", f"seat {seat}", seat, sitting)

    def seat_changed(self, session: Session, sitting: int | None) -> None:
        """End a player's token once ``sitting`` (the sitting at its seat now, None:
        nobody) is not the one it was issued for: AuthError 401."""
        if session.role == "player" and sitting != session.sitting:
            self.sign_out(session.token)
            raise AuthError(401, f"the player at seat {session.seat} has left: this token ended")

    def session(self, token: str | None) -> Session | None:
        """The live session of ``token``; None for no token; AuthError if expired or unknown."""
        if token is None:
            return None
        session = self._sessions.get(token)
        if session is None:
            raise AuthError(401, "unknown or signed-out session: sign in again")
        if self.clock() >= session.expires:
            del self._sessions[token]
            raise AuthError(401, "the session has expired: sign in again")
        return session

    def sign_out(self, token: str) -> None:
        self._sessions.pop(token, None)

    async def check_pin(
        self, credentials: Sequence[Credential], role: str, who: str, pin: str, client: str
    ) -> None:
        keys = (f"id:{role}:{who}", f"client:{client}")
        now = self.clock()
        locked = [key for key in keys if self._locked(key, now)]
        if locked:
            log.warning("%s sign-in for %r from %s refused: too many attempts", role, who, client)
            first = not self._reported.intersection(locked)
            self._reported.update(locked)
            reason = f"too many failed attempts: wait {self.window_seconds:g} s"
            raise AuthError(429, reason, journal=first)
        match = next((c for c in credentials if c.id == who), None)
        # an unknown id costs the same hash as a known one: the time tells nothing
        checked = match or (credentials[0] if credentials else None)
        verified = checked is not None and await asyncio.to_thread(checked.verify, pin)
        ok = verified and match is not None
        if not ok:
            for key in keys:
                self._failures.setdefault(key, deque()).append(now)
            log.warning("failed %s PIN for %r from %s", role, who, client)
            raise AuthError(401, f"wrong {role} id or PIN", journal=True)

    def _locked(self, key: str, now: float) -> bool:
        failures = self._failures.get(key, deque())
        while failures and now - failures[0] > self.window_seconds:
            failures.popleft()
        if not failures:
            self._failures.pop(key, None)
        if len(failures) < self.max_failures:
            self._reported.discard(key)
            return False
        return True

    def _new(
        self, role: str, who: str, seat: int | None = None, sitting: int | None = None
    ) -> Session:
        token = secrets.token_urlsafe(24)
        expires = self.clock() + self.session_seconds
        session = Session(token, role, who, expires, seat, sitting, self.position())
        self._sessions[token] = session
        return session
