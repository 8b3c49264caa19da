"""Sign-in, sessions and the supervisor's PIN: checked against the configuration's Argon2
hashes (made by :func:`hash_pin`, ``luck-table hash-pin``; checked by :func:`verify_pin`),
rate-limited, every failed attempt logged (logger ``dealer_ui.auth``, WARNING); the
app journals each one (``AuthError.journal``).

A session is a random token that expires ``session_seconds`` after sign-in. It records
the moment it began (``since``: the table's journal position then): a feed that resumes
never sends a session what the table did before it. A player's token is bound to one
sitting (the table's number for that sit-down) and ends with it.

Guessing is limited by the address it comes from, so that nobody can lock the real dealer
out by trying their id from elsewhere (docs/security.md):

- An address with ``max_failures`` failed attempts within ``window_seconds`` is refused
  (HTTP 429), without checking the PIN, until the oldest of those failures is
  ``window_seconds`` old. An attempt is counted (reserved) before its PIN is checked, so a
  burst of attempts sent at once checks at most ``max_failures`` of them. Of the refusals
  only the first of each lockout is to be journaled (so that nobody can fill the journal by
  trying on): ``AuthError.journal`` says which.
- An id with ``max_failures`` failed attempts within ``window_seconds`` (from any address)
  is under attack: every attempt for it waits ``attack_delay`` seconds before its PIN is
  checked, from every address, but none is refused for it; and ``on_attack`` is called
  once (the app raises an alert at the table), until the id's failures are all older than
  the window.
- The PIN checks (Argon2: 64 MiB and about half a second of a core each; its lanes in
  threads of their own) run in two threads of their own at the lowest CPU priority (nice
  19, which the lanes' threads inherit), never on the event loop, so that the table's loop
  is always ahead of them for the CPU: one checks, in turn, the attempts of addresses with
  no failure within the window and no other attempt being checked (the real dealer's,
  typically), the other every other attempt, so that the dealer never waits behind a flood
  of guesses from addresses that have failed already.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import threading
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from controller.config_file import Credential
from controller.errors import LuckTableError

log = logging.getLogger(__name__)

_HASHER = PasswordHasher()
#: The fewest characters a PIN may have.
MIN_PIN = 4


class PinError(LuckTableError, ValueError):
    """A PIN that may not be used (too short): nothing was hashed."""


def hash_pin(pin: str) -> str:
    """The Argon2id hash of a PIN, to store in a configuration's ``pin_hash``."""
    if len(pin) < MIN_PIN:
        raise PinError(f"a PIN needs at least {MIN_PIN} characters")
    return _HASHER.hash(pin)


def verify_pin(pin_hash: str, pin: str) -> bool:
    """Whether ``pin`` is the PIN of ``pin_hash`` (False for a hash that is not Argon2's)."""
    try:
        return _HASHER.verify(pin_hash, pin)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


class AuthError(LuckTableError):
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


@dataclass(frozen=True, slots=True)
class Attack:
    """An id under attack: ``failures`` wrong PINs for ``role`` ``who`` within ``window``
    seconds, from ``clients`` (the addresses, sorted)."""

    role: str
    who: str
    failures: int
    window: float
    clients: tuple[str, ...]


#: Told of an id under attack (once per attack).
OnAttack = Callable[[Attack], Awaitable[None]]


@dataclass(slots=True)
class Auth:
    """The sessions and the failed attempts of one app."""

    dealers: Sequence[Credential]
    supervisors: Sequence[Credential]
    session_seconds: float = 8 * 3600
    max_failures: int = 5
    window_seconds: float = 60.0
    attack_delay: float = 2.0
    clock: Callable[[], float] = time.monotonic
    position: Callable[[], int] = lambda: 0  # the table's journal position now
    on_attack: OnAttack | None = None
    verify: Callable[[str, str], bool] = verify_pin  # (pin_hash, pin): the PIN check
    _sessions: dict[str, Session] = field(default_factory=dict)
    # failed attempts (time, address) by key: "client:ADDRESS" or "id:ROLE:ID"
    _failures: dict[str, deque[tuple[float, str]]] = field(default_factory=dict)
    _reserved: Counter[str] = field(default_factory=Counter)  # attempts being checked
    _reported: set[str] = field(default_factory=set)  # locked addresses whose lockout is journaled
    _attacked: set[str] = field(default_factory=set)  # ids whose attack is told
    _queues: dict[bool, ThreadPoolExecutor] = field(default_factory=dict)  # by fresh or not

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

    def under_attack(self, role: str, who: str) -> bool:
        """Whether ``role`` ``who`` has had ``max_failures`` failures within the window."""
        return self._count(f"id:{role}:{who}", self.clock()) >= self.max_failures

    async def check_pin(
        self, credentials: Sequence[Credential], role: str, who: str, pin: str, client: str
    ) -> None:
        address, person = f"client:{client}", f"id:{role}:{who}"
        now = self.clock()
        if self._count(address, now) + self._reserved[address] >= self.max_failures:
            log.warning("%s sign-in for %r from %s refused: too many attempts", role, who, client)
            first = address not in self._reported
            self._reported.add(address)
            reason = f"too many failed attempts from {client}: wait {self.window_seconds:g} s"
            raise AuthError(429, reason, journal=first)
        self._reported.discard(address)
        fresh = not self._count(address, now) and not self._reserved[address]
        self._reserved[address] += 1  # counted before the check: a burst checks at most max
        try:
            if self._count(person, now) < self.max_failures:
                self._attacked.discard(person)  # an attack told before is over
            else:
                log.warning("%s %r is under attack: the attempt from %s waits", role, who, client)
                await asyncio.sleep(self.attack_delay)
            ok = await self._verify(credentials, who, pin, fresh)
        finally:
            self._reserved[address] -= 1
            if not self._reserved[address]:
                del self._reserved[address]
        if ok:
            log.info("right %s PIN for %r from %s", role, who, client)
            return
        now = self.clock()
        for key in (address, person):
            self._failures.setdefault(key, deque()).append((now, client))
        log.warning("failed %s PIN for %r from %s", role, who, client)
        if self._count(person, now) >= self.max_failures and person not in self._attacked:
            self._attacked.add(person)
            await self._tell_attack(role, who, person)
        raise AuthError(401, f"wrong {role} id or PIN", journal=True)

    async def _verify(
        self, credentials: Sequence[Credential], who: str, pin: str, fresh: bool
    ) -> bool:
        """Whether ``pin`` is ``who``'s, checked in the thread for ``fresh`` addresses'
        attempts or in the one for the others."""
        queue = self._queues.get(fresh)
        if queue is None:
            queue = ThreadPoolExecutor(1, "pin-check", initializer=_lowest_priority)
            self._queues[fresh] = queue
        match = next((c for c in credentials if c.id == who), None)
        # an unknown id costs the same hash as a known one: the time tells nothing
        checked = match or (credentials[0] if credentials else None)
        if checked is None:
            return False
        loop = asyncio.get_running_loop()
        verified = await loop.run_in_executor(queue, self.verify, checked.pin_hash, pin)
        return verified and match is not None

    async def _tell_attack(self, role: str, who: str, person: str) -> None:
        failures = self._failures[person]
        clients = tuple(sorted({client for _, client in failures}))
        attack = Attack(role, who, len(failures), self.window_seconds, clients)
        log.warning(
            "%s %r is under attack: %d wrong PINs within %g s from %s",
            role,
            who,
            attack.failures,
            attack.window,
            ", ".join(clients),
        )
        if self.on_attack is not None:
            await self.on_attack(attack)

    def _count(self, key: str, now: float) -> int:
        """The failures of ``key`` within the window (older ones forgotten)."""
        failures = self._failures.get(key)
        while failures and now - failures[0][0] > self.window_seconds:
            failures.popleft()
        if failures:
            return len(failures)
        self._failures.pop(key, None)
        return 0

    def _new(
        self, role: str, who: str, seat: int | None = None, sitting: int | None = None
    ) -> Session:
        token = secrets.token_urlsafe(24)
        expires = self.clock() + self.session_seconds
        session = Session(token, role, who, expires, seat, sitting, self.position())
        self._sessions[token] = session
        return session


def _lowest_priority() -> None:
    """Give this thread (a PIN check's) the lowest CPU priority: on Linux the nice value
    is each thread's own, and the threads it starts inherit it."""
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
