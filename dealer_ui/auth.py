"""Sign-in, sessions and the supervisor's PIN: checked against the configuration's Argon2
hashes (made by :func:`hash_pin`, ``luck-table hash-pin``; checked by :func:`verify_pin`),
rate-limited, every failed attempt logged (logger ``dealer_ui.auth``, WARNING); the
app journals each one (``AuthError.journal``).

A PIN has at least :data:`MIN_PIN` digits: :func:`hash_pin` refuses a shorter one and
marks its hashes (their salt begins with ``PIN_SALT_MARK``), the only hashes the
configuration takes.

A session is a random token that expires ``session_seconds`` after sign-in, or once it has
gone unused for ``idle_seconds`` (each :meth:`Auth.session` uses it: every request, every
feed message). It records the moment it began (``since``: the table's journal position
then): a feed that resumes never sends a session what the table did before it. A player's
token is bound to one sitting (the table's number for that sit-down) and ends with it.
The dealers' and surveillance's sessions outlive a restart of the service
(:meth:`Auth.kept`, :meth:`Auth.restore`; ``dealer_ui.kept_sessions`` keeps them): only a
digest of each token is kept (SHA-256: the token itself never leaves memory), with its
expiry and its last use by the wall clock; a restored one is taken up by the first request
that carries its token.

Guessing is limited by the address it comes from, and by the id over an hour
(docs/security.md):

- An id with ``guesses_per_hour`` failed attempts within an hour (from all addresses
  together; counted, as an address's, before the PIN is checked) is locked: every attempt
  for it is refused unchecked (HTTP 423) from every address but the ``kiosks``. A
  configured id at a table (``on_lock`` set) stays locked while the table holds its lock
  (``locked_at``: its blocking alert open) until a supervisor unlocks it; anywhere else (an
  id that is not configured, the floor service) the lock ends as the failures age past the
  hour. Failures for ids that are not configured are told (``on_attack``) as one id,
  :data:`NOT_CONFIGURED`, so that nobody raises an alert per made-up id; what staff are
  shown of a text someone typed is :func:`quoted`.

- An address with ``max_failures`` failed attempts within ``window_seconds`` is refused
  (HTTP 429), without checking the PIN, until the oldest of those failures is
  ``window_seconds`` old. An attempt is counted (reserved) before its PIN is checked, so a
  burst of attempts sent at once checks at most ``max_failures`` of them. Of the refusals
  only the first of each lockout is to be journaled (so that nobody can fill the journal by
  trying on): ``AuthError.journal`` says which. The app's gate asks
  :meth:`Auth.refused_early` before it reads a request that carries a PIN, and refuses
  there what needs no check and no journal entry (``dealer_ui.web.PinGate``); the attempts
  refused unchecked (429, 423, 503) are logged once per burst of each address or id
  (:class:`dealer_ui.refusals.LogFold`, ``refusal_fold`` seconds), not a line each.
- An id with ``max_failures`` failed attempts within ``window_seconds`` (from any address)
  is under attack: every attempt for it waits ``attack_delay`` seconds before its PIN is
  checked, from every address, but none is refused for it; and ``on_attack`` is called
  once (the app raises an alert at the table), until the id's failures are all older than
  the window.
- The PIN checks (Argon2: 64 MiB and about half a second of a core each; its lanes in
  threads of their own) run one at a time, in one thread of their own at the lowest CPU
  priority (nice 19) and on one CPU of the process's (when it has two or more), which the
  lanes' threads inherit: never on the event loop, never more than one core's worth, so that
  a burst of checks leaves the other core to the table's loop. The attempts waiting for the
  checker are ordered, each kind in turn: first those of known addresses (a right PIN from
  there within ``session_seconds``: the kiosk's, typically), then those of fresh ones (no
  failure within the window and no other attempt waiting or being checked: a dealer at a
  new terminal), then every other attempt; so that the dealer never waits behind a flood
  of guesses from addresses that have failed already, nor, at a known terminal, behind a
  flood of first guesses from many addresses. At most ``max_waiting`` attempts wait: one that
  would come after them all is refused unchecked (HTTP 503, "busy"), one that comes before
  the last of them takes its place (that one is refused so); and one that has waited
  ``check_wait`` seconds without its check begun is refused so too. A refused attempt is
  not a failure (its PIN was not checked) and is not journaled.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import heapq
import ipaddress
import itertools
import logging
import multiprocessing
import os
import secrets
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, TypedDict

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from argon2.low_level import Type, hash_secret

from controller.config_file import BADGE_SALT_MARK, MIN_PIN, PIN_SALT_MARK, Api, Credential
from dealer_ui.refusals import LogFold
from luck_errors import LuckTableError

log = logging.getLogger(__name__)

_HASHER = PasswordHasher()
#: The window of the per-id bound on wrong PINs (``Auth.guesses_per_hour``), in seconds.
HOUR = 3600.0
#: The most characters of a text someone typed (an id tried) that staff are shown.
SHOWN = 32


#: The roles whose sessions outlive a restart (a player's token is the dealer's to make again).
KEPT_ROLES = ("dealer", "surveillance")
#: A session in use is told as changed (kept again) at most this often, in seconds.
KEEP_EVERY = 60.0


def digest_of(token: str) -> str:
    """What is kept of a session's token: its SHA-256, in hex."""
    return hashlib.sha256(token.encode()).hexdigest()


class PinError(LuckTableError, ValueError):
    """A PIN that may not be used (too short): nothing was hashed."""


def hash_pin(pin: str) -> str:
    """The Argon2id hash of a PIN (argon2-cffi's default cost), to store in a
    configuration's ``pin_hash``; its salt begins with the mark that tells the
    configuration's checks the PIN had :data:`MIN_PIN` characters or more."""
    if len(pin) < MIN_PIN:
        raise PinError(f"a PIN needs at least {MIN_PIN} digits (this one has {len(pin)})")
    salt = PIN_SALT_MARK + secrets.token_bytes(16)
    made = hash_secret(
        pin.encode(),
        salt,
        time_cost=_HASHER.time_cost,
        memory_cost=_HASHER.memory_cost,
        parallelism=_HASHER.parallelism,
        hash_len=_HASHER.hash_len,
        type=Type.ID,
    )
    return made.decode("ascii")


#: A badge's Argon2id cost (OWASP's least for Argon2id: 19 MiB, 2 passes, 1 lane): a tap is
#: checked against every badge configured (each its own salt), tens of ms each; a guess at a
#: 7-byte UID from a leaked configuration costs as much, 2**48 UIDs for each badge.
BADGE_COST = {"time_cost": 2, "memory_cost": 19456, "parallelism": 1, "hash_len": 32}
#: The longest badge UID taken (ISO 14443 UIDs are 4, 7 or 10 bytes).
MAX_UID = 10


class BadgeError(LuckTableError, ValueError):
    """A badge UID that cannot be hashed (empty or too long): nothing was hashed."""


def hash_badge(uid: bytes) -> str:
    """The Argon2id hash of a badge's UID (of its hex, lower case; salted, the salt marked
    :data:`BADGE_SALT_MARK`), to store in a configuration's ``badge``: the UID itself is
    never stored."""
    if not 1 <= len(uid) <= MAX_UID:
        raise BadgeError(f"a badge's UID has 1 to {MAX_UID} bytes (this one has {len(uid)})")
    salt = BADGE_SALT_MARK + secrets.token_bytes(16)
    return hash_secret(uid.hex().encode(), salt, type=Type.ID, **BADGE_COST).decode("ascii")


def badge_holder(credentials: Sequence[Credential], uid: bytes) -> Credential | None:
    """The one of ``credentials`` whose badge ``uid`` is (None: no one's); each configured
    badge is checked, so the time tells nothing of which matched."""
    found = None
    for credential in credentials:
        if credential.badge is not None and verify_pin(credential.badge, uid.hex()):
            found = found or credential
    return found


def quoted(text: str, limit: int = SHOWN) -> str:
    """``text`` someone typed (an id tried), as staff may be shown it: its first ``limit``
    characters, quoted with every control, format (bidi, zero-width) and other unprintable
    character escaped (``repr``), "..." after the quote when it was longer."""
    return repr(text[:limit]) + ("..." if len(text) > limit else "")


def listed(items: Sequence[str], most: int = 5) -> str:
    """The first ``most`` of ``items`` (each :func:`quoted` unless it is an IP address),
    comma-separated, and how many more."""
    words = [item if _is_address(item) else quoted(item) for item in items[:most]]
    more = len(items) - most
    return ", ".join(words) + (f" and {more} more" if more > 0 else "")


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def in_networks(address: str, networks: Sequence[str]) -> bool:
    """Whether ``address`` (an IP address; anything else: False) is in one of ``networks``
    (addresses or networks, as the configuration gives them)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in ipaddress.ip_network(net, strict=False) for net in networks)


def verify_pin(pin_hash: str, pin: str) -> bool:
    """Whether ``pin`` is the PIN of ``pin_hash`` (False for a hash that is not Argon2's)."""
    try:
        return _HASHER.verify(pin_hash, pin)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def pin_checker() -> Executor:
    """The PIN checker: a process of its own, at the lowest CPU priority and, where the
    machine has two CPUs or more, on one of them only, so that a burst of checks leaves the
    table a CPU. It is forked from multiprocessing's fork server (a clean process, started
    once, with this module imported: never a fork of the service's, whose threads a fork
    could copy a held lock of), so that a new checker costs milliseconds, not the seconds a
    fresh interpreter takes to start and import.

    Not a thread of the service's: each Argon2 check's 64 MiB would stay the service's
    memory, and a thread at a low priority that waits to take the interpreter's lock back
    can hold the event loop up for as long as the scheduler keeps it waiting."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])  # before the server starts; later: no change
    return ProcessPoolExecutor(max_workers=1, mp_context=context, initializer=_one_core_last)


def _one_core_last() -> None:
    """Give this process (the PIN checker's) the lowest CPU priority and, when it may run
    on two CPUs or more, one of them only (Argon2's lanes, its threads, inherit both)."""
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, 0, 19)
    with contextlib.suppress(OSError, AttributeError):
        cpus = os.sched_getaffinity(0)
        if len(cpus) > 1:
            os.sched_setaffinity(0, {max(cpus)})


class Denied(StrEnum):
    """Why a credential or a caller is refused, as data (the API's ``code`` beside the
    ``error``: docs/api.md); the words say it for people."""

    WRONG_PIN = "wrong_pin"  # a wrong id or PIN (a dealer's, a supervisor's)
    UNKNOWN_SESSION = "unknown_session"  # a token unknown or signed out
    SESSION_EXPIRED = "session_expired"
    SESSION_IDLE = "session_idle"  # unused for the idle time: ended
    PLAYER_LEFT = "player_left"  # a player's token: the player left the seat
    ID_LOCKED = "id_locked"  # locked after too many wrong PINs (423)
    TOO_MANY_ATTEMPTS = "too_many_attempts"  # the address is locked out (429)
    PINS_WAITING = "pins_waiting"  # too many PINs wait to be checked (503)
    NOT_BEARER = "not_bearer"  # an Authorization header that is not "Bearer TOKEN"
    SESSION_NEEDED = "session_needed"  # the caller's role may not do this: sign in (403)
    OTHER_SEAT = "other_seat"  # a player's token for another seat (403)
    SUPERVISOR_NEEDED = "supervisor_needed"  # a sitting's second player token (403)
    NOT_OWN_PIN = "not_own_pin"  # a surveillance session approves with another's id (403)
    NO_STUDIO_TOKEN = "no_studio_token"
    UNKNOWN_STUDIO_TOKEN = "unknown_studio_token"  # forged or revoked
    STUDIO_TOKEN_EXPIRED = "studio_token_expired"
    NO_BADGE = "no_badge"  # no badge tap of that number waits for its PIN (401)
    WRONG_BADGE = "wrong_badge"  # the badge is not one of the kind asked, or nobody's (401)
    NOT_OPERATIONS = "not_operations"  # /metrics: not an address or token named (403)


class AuthError(LuckTableError):
    """A credential refused: ``status`` 401 (wrong or expired), 423 (the id is locked: the
    PIN not checked), 429 (too many attempts) or 503 (too many attempts waiting for their
    check: the PIN not checked); ``code`` why, as data;
    ``journal``: a failed attempt to journal (every wrong PIN, the first refusal of a
    lockout; never an expired or unknown session)."""

    def __init__(self, status: int, reason: str, code: Denied, journal: bool = False) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.code = code
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


class KeptSessionJson(TypedDict):
    """A session as kept across a restart (:meth:`Auth.kept`): its token's SHA-256
    digest (never the token), role, who, the journal position it began at, and its expiry
    and last use by the wall clock (seconds since the epoch)."""

    digest: str
    role: str
    who: str
    since: int
    expires: float
    used: float


@dataclass(frozen=True, slots=True)
class Attack:
    """An id under attack: ``failures`` wrong PINs for ``role`` ``who`` within ``window``
    seconds, from ``clients`` (the addresses, sorted)."""

    role: str
    who: str
    failures: int
    window: float
    clients: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Lock:
    """An id locked: ``failures`` wrong PINs for the ``kind`` (dealer or supervisor) ``who``
    within the hour, from ``clients``."""

    kind: str
    who: str
    failures: int
    clients: tuple[str, ...]


#: An attempt waiting for the PIN checker: (rank, turn, its turn given, address).
_Waiting = tuple[int, int, "asyncio.Future[None]", str]

#: Told of an id under attack (once per attack).
OnAttack = Callable[[Attack], Awaitable[None]]
#: Told of a configured id locked: True once the lock is held at the table (its alert).
OnLock = Callable[[Lock], Awaitable[bool]]
#: Whether the table holds a lock of (kind, id) (its open alert).
LockedAt = Callable[[str, str], bool]
#: The id that stands for every id that is not configured, in an attack's report.
NOT_CONFIGURED = "(ids not configured)"
#: Why an attempt for a locked id is refused (423).
LOCKED = (
    "this id is locked after too many wrong PINs: a supervisor unlocks it "
    "(a registered kiosk still signs in)"
)


def kind_of(role: str) -> str:
    """Whose PIN an attempt as ``role`` guesses: a dealer's, or a supervisor's (surveillance
    and the supervisor's actions)."""
    return "dealer" if role == "dealer" else "supervisor"


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
    max_waiting: int = 8
    check_wait: float = 20.0
    verify: Callable[[str, str], bool] = verify_pin  # (pin_hash, pin): the PIN check
    checker: Callable[[], Executor] = pin_checker  # runs ``verify``, one check at a time
    guesses_per_hour: int = 20  # wrong PINs for one id within an hour: it is locked
    kiosks: Sequence[str] = ()  # addresses or networks a locked id still signs in from
    idle_seconds: float = 1800.0  # a session unused this long ends
    on_lock: OnLock | None = None  # None: a lock ends as its hour's failures age
    locked_at: LockedAt = lambda kind, who: False  # the table holds the lock (its alert)
    wall: Callable[[], float] = time.time  # the wall clock: what a kept session's times are
    on_change: Callable[[], None] | None = None  # a kept role's sessions changed (keep them)
    refusal_fold: float = 10.0  # the refusals made unchecked are logged once per burst this long
    refusal_delay: float = 0.0  # a guess refused unchecked is answered this much later
    _sessions: dict[str, Session] = field(default_factory=dict)
    _touched: dict[str, float] = field(default_factory=dict)  # token: last used
    # sessions restored after a restart, not used since: digest -> (session, last used)
    _restored: dict[str, tuple[Session, float]] = field(default_factory=dict)
    _told: float = float("-inf")  # when a change was last told (on_change)
    # the configured ids locked here, not (yet) at the table: "lock:KIND:ID"
    _locking: set[str] = field(default_factory=set)
    _pruned: float = float("-inf")  # when the old failures were last forgotten
    # failed attempts (time, address) by key: "client:ADDRESS", "id:ROLE:ID", "lock:KIND:ID"
    _failures: dict[str, deque[tuple[float, str]]] = field(default_factory=dict)
    _reserved: Counter[str] = field(default_factory=Counter)  # attempts being checked
    _reported: set[str] = field(default_factory=set)  # locked addresses whose lockout is journaled
    _attacked: set[str] = field(default_factory=set)  # ids whose attack is told
    _known: dict[str, float] = field(default_factory=dict)  # address: when a PIN was right
    _checker: Executor | None = None  # the checker (``checker``), made at the first check
    _checking: bool = False  # a check is under way (or its turn given)
    # the attempts waiting for the checker: (rank, turn, its turn given, address)
    _waiting: list[_Waiting] = field(default_factory=list)
    _turns: itertools.count[int] = field(default_factory=itertools.count)
    _logged: LogFold = field(init=False)  # the refusals' log lines, folded per burst

    def __post_init__(self) -> None:
        self._logged = LogFold(log, self.refusal_fold)

    @classmethod
    def configured(
        cls, api: Api, dealers: Sequence[Credential], supervisors: Sequence[Credential]
    ) -> Auth:
        """The sign-in of a service with ``api``'s settings (``[api]``: the guesses an id
        may have an hour, the kiosks, the sessions' idle time)."""
        return cls(
            dealers,
            supervisors,
            guesses_per_hour=api.guesses_per_hour,
            kiosks=api.kiosks,
            idle_seconds=api.session_idle,
            refusal_fold=api.refusal_fold,
            refusal_delay=api.refusal_delay,
        )

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

    def end_sitting(self, sitting: int) -> int:
        """End every player token of ``sitting``: how many there were."""
        ended = [
            t for t, s in self._sessions.items() if s.role == "player" and s.sitting == sitting
        ]
        for token in ended:
            self.sign_out(token)
        return len(ended)

    def end_dealers(self, but: str) -> int:
        """End every dealer's session but ``but``'s (a dealer push: the incoming dealer's
        sessions stay): how many ended."""
        ended = [t for t, s in self._sessions.items() if s.role == "dealer" and s.who != but]
        for token in ended:
            self.sign_out(token)
        restored = [
            d for d, (s, _) in self._restored.items() if s.role == "dealer" and s.who != but
        ]
        for digest in restored:
            del self._restored[digest]
        if restored:
            self._changed()
        return len(ended) + len(restored)

    def seat_changed(self, session: Session, sitting: int | None) -> None:
        """End a player's token once ``sitting`` (the sitting at its seat now, None:
        nobody) is not the one it was issued for: AuthError 401."""
        if session.role == "player" and sitting != session.sitting:
            self.sign_out(session.token)
            reason = f"the player at seat {session.seat} has left: this token ended"
            raise AuthError(401, reason, Denied.PLAYER_LEFT)

    def session(self, token: str | None) -> Session | None:
        """The live session of ``token``; None for no token; AuthError if expired or unknown."""
        if token is None:
            return None
        session = self._sessions.get(token) or self._taken_up(token)
        if session is None:
            unknown = "unknown or signed-out session: sign in again"
            raise AuthError(401, unknown, Denied.UNKNOWN_SESSION)
        now = self.clock()
        if now >= session.expires:
            self.sign_out(token)
            raise AuthError(401, "the session has expired: sign in again", Denied.SESSION_EXPIRED)
        if now - self._touched.get(token, now) >= self.idle_seconds:
            self.sign_out(token)
            idle = f"the session was unused for {self.idle_seconds:g} s and has ended"
            raise AuthError(401, f"{idle}: sign in again", Denied.SESSION_IDLE)
        self._touched[token] = now  # each request and feed message: the session is in use
        if session.role in KEPT_ROLES and now - self._told >= KEEP_EVERY:
            self._changed()  # its last use kept, a minute late at most
        return session

    def sign_out(self, token: str) -> None:
        ended = self._sessions.pop(token, None)
        self._touched.pop(token, None)
        restored = self._restored.pop(digest_of(token), None)
        if ended is None and restored is not None:
            ended = restored[0]
        if ended is not None and ended.role in KEPT_ROLES:
            self._changed()

    def kept(self) -> list[KeptSessionJson]:
        """The dealers' and surveillance's live sessions, as kept across a restart: each
        token's digest, role, who, ``since``, and its expiry and last use by the wall
        clock (seconds since the epoch)."""
        now, wall = self.clock(), self.wall()
        live = [(digest_of(t), s, self._touched.get(t, now)) for t, s in self._sessions.items()]
        live += [(digest, s, used) for digest, (s, used) in self._restored.items()]
        return [
            {
                "digest": digest,
                "role": s.role,
                "who": s.who,
                "since": s.since,
                "expires": wall + (s.expires - now),
                "used": wall - (now - used),
            }
            for digest, s, used in live
            if s.role in KEPT_ROLES and now < s.expires and now - used < self.idle_seconds
        ]

    def restore(self, kept: Iterable[Mapping[str, Any]]) -> int:
        """Take back sessions :meth:`kept` gave (before a restart): those not expired nor
        idle by now; how many. Each waits for the first request with its token."""
        now, wall = self.clock(), self.wall()
        count = 0
        for entry in kept:
            left, unused = float(entry["expires"]) - wall, wall - float(entry["used"])
            if entry["role"] not in KEPT_ROLES or left <= 0 or unused >= self.idle_seconds:
                continue
            session = Session("", str(entry["role"]), str(entry["who"]), now + left)
            session = replace(session, since=int(entry["since"]))
            self._restored[str(entry["digest"])] = (session, now - max(unused, 0.0))
            count += 1
        return count

    def _taken_up(self, token: str) -> Session | None:
        """The restored session of ``token`` (its digest), now held by its token."""
        restored = self._restored.pop(digest_of(token), None)
        if restored is None:
            return None
        session = replace(restored[0], token=token)
        self._sessions[token], self._touched[token] = session, restored[1]
        return session

    def _changed(self) -> None:
        self._told = self.clock()
        if self.on_change is not None:
            self.on_change()

    def locked(self, kind: str, who: str) -> bool:
        """Whether the ``kind`` (dealer or supervisor) id ``who`` is locked."""
        key = f"lock:{kind}:{who}"
        known = any(c.id == who for c in self._credentials(kind))
        if known and self.on_lock is not None:
            return key in self._locking or self.locked_at(kind, who)
        return self._count(key, self.clock(), HOUR) >= self.guesses_per_hour

    def unlock(self, kind: str, who: str) -> None:
        """A supervisor unlocks ``kind`` ``who``: its wrong PINs of the hour are forgotten
        (the table's alert is resolved by the caller)."""
        key = f"lock:{kind}:{who}"
        self._locking.discard(key)
        self._failures.pop(key, None)

    def _credentials(self, kind: str) -> Sequence[Credential]:
        return self.dealers if kind == "dealer" else self.supervisors

    def under_attack(self, role: str, who: str) -> bool:
        """Whether ``role`` ``who`` has had ``max_failures`` failures within the window."""
        return self._count(f"id:{role}:{who}", self.clock()) >= self.max_failures

    def _unchecked(self, role: str, who: str, client: str, now: float) -> AuthError | None:
        """Why an attempt at ``role`` ``who``'s PIN from ``client`` is refused without its
        check (None: it is not): 429 while the address is locked out (``journal``: the
        first refusal of its lockout), 423 while the id is locked (but from a kiosk).
        Nothing is counted, marked or logged here."""
        address = f"client:{client}"
        if self._count(address, now) + self._reserved[address] >= self.max_failures:
            reason = f"too many failed attempts from {client}: wait {self.window_seconds:g} s"
            return AuthError(
                429, reason, Denied.TOO_MANY_ATTEMPTS, journal=address not in self._reported
            )
        kind = kind_of(role)
        lock = f"lock:{kind}:{who}"  # counted before the check, as the address is
        full = self._count(lock, now, HOUR) + self._reserved[lock] >= self.guesses_per_hour
        if (full or self.locked(kind, who)) and not in_networks(client, self.kiosks):
            return AuthError(423, LOCKED, Denied.ID_LOCKED)
        return None

    def _refused(self, error: AuthError, role: str, who: str, client: str) -> None:
        """Log an attempt refused unchecked, folded per burst (an address's lockout, an id's
        lock): a sweep of guesses logs a line per burst, not one per guess."""
        if error.status == 429:
            self._reported.add(f"client:{client}")
            self._logged.warning(
                f"429 {client}",
                "%s sign-in for %r from %s refused: too many attempts",
                role,
                who,
                client,
            )
        else:
            self._logged.warning(
                f"423 {kind_of(role)} {who}",
                "%s sign-in for %r from %s refused: the id is locked",
                role,
                who,
                client,
            )

    def refused_early(self, role: str, who: str, client: str) -> AuthError | None:
        """The refusal of an attempt at ``role`` ``who``'s PIN from ``client`` that needs
        neither its PIN checked nor a journal entry (logged, folded per burst): an id locked,
        an address locked out but for the first refusal of its lockout (journaled, by
        :meth:`check_pin`). None: the attempt goes on to :meth:`check_pin`, which is the
        rule (the app's gate asks this before it reads the request: ``dealer_ui.web``)."""
        error = self._unchecked(role, who, client, self.clock())
        if error is None or error.journal:
            return None
        self._refused(error, role, who, client)
        return error

    async def check_pin(
        self, credentials: Sequence[Credential], role: str, who: str, pin: str, client: str
    ) -> None:
        address, person = f"client:{client}", f"id:{role}:{who}"
        kind = kind_of(role)  # whose PIN it guesses
        known = any(c.id == who for c in credentials)
        # the ids not configured are told of as one: nobody raises an alert per made-up id
        told = person if known else f"id:{role}:{NOT_CONFIGURED}"
        now = self.clock()
        refused = self._unchecked(role, who, client, now)
        if refused is not None:
            self._refused(refused, role, who, client)
            await asyncio.sleep(self.refusal_delay)
            raise refused
        self._reported.discard(address)
        lock = f"lock:{kind}:{who}"
        rank = self._rank(client, address, now)
        self._reserved.update(
            (address, lock)
        )  # counted before the check: a burst checks at most max
        try:
            if self._count(told, now) < self.max_failures:
                self._attacked.discard(told)  # an attack told before is over
            if self._count(person, now) >= self.max_failures:
                self._logged.warning(
                    f"waits {person}",
                    "%s %r is under attack: the attempt from %s waits",
                    role,
                    who,
                    client,
                )
                await asyncio.sleep(self.attack_delay)
            ok = await self._verify(credentials, who, pin, rank, client)
        finally:
            self._reserved.subtract((address, lock))
            for key in (address, lock):
                if not self._reserved[key]:
                    del self._reserved[key]
        if ok:
            log.info("right %s PIN for %r from %s", role, who, client)
            now = self.clock()
            for stale in [a for a, t in self._known.items() if now - t >= self.session_seconds]:
                del self._known[stale]
            self._known[client] = now
            return
        now = self.clock()
        self._prune(now)
        for key in {address, person, told, lock}:
            self._failures.setdefault(key, deque()).append((now, client))
        log.warning("failed %s PIN for %r from %s", role, who, client)
        if self._count(told, now) >= self.max_failures and told not in self._attacked:
            self._attacked.add(told)
            await self._tell_attack(role, who if known else NOT_CONFIGURED, told)
        failures = self._count(lock, now, HOUR)
        if known and self.on_lock is not None and failures >= self.guesses_per_hour:
            await self._lock(Lock(kind, who, failures, self._clients(lock)), lock)
        raise AuthError(401, f"wrong {role} id or PIN", Denied.WRONG_PIN, journal=True)

    async def _lock(self, lock: Lock, key: str) -> None:
        """Lock a configured id (its failures forgotten: the lock stands for them) and tell
        the table; held here until the table holds it."""
        if key in self._locking:
            return
        self._locking.add(key)
        self._failures.pop(key, None)
        log.warning(
            "%s %r is locked: %d wrong PINs within an hour from %s",
            lock.kind,
            lock.who,
            lock.failures,
            ", ".join(lock.clients),
        )
        assert self.on_lock is not None
        if await self.on_lock(lock):
            self._locking.discard(key)

    def _prune(self, now: float) -> None:
        """Forget, once a minute, the keys whose last failure is over an hour old (every
        window is an hour at most), so that made-up ids and addresses cost no memory for
        long."""
        if now - self._pruned < 60:
            return
        self._pruned = now
        old = [
            k
            for k, failures in self._failures.items()
            if not failures or now - failures[-1][0] > HOUR
        ]
        for key in old:
            del self._failures[key]

    def _clients(self, key: str) -> tuple[str, ...]:
        return tuple(sorted({client for _, client in self._failures.get(key, ())}))

    def _rank(self, client: str, address: str, now: float) -> int:
        """Where an attempt from ``client`` waits: 0 known, 1 fresh, 2 any other."""
        known = self._known.get(client)
        if known is not None and now - known < self.session_seconds:
            return 0
        self._known.pop(client, None)
        return 2 if self._count(address, now) or self._reserved[address] else 1

    async def _verify(
        self, credentials: Sequence[Credential], who: str, pin: str, rank: int, client: str
    ) -> bool:
        """Whether ``pin`` is ``who``'s, checked in the checker's thread when its turn comes
        (``rank``: :meth:`_rank`)."""
        match = next((c for c in credentials if c.id == who), None)
        # an unknown id costs the same hash as a known one: the time tells nothing
        checked = match or (credentials[0] if credentials else None)
        if checked is None:
            return False
        await self._turn(rank, client)
        try:
            verified = await self._check(checked.pin_hash, pin)
        finally:
            self._next()
        return verified and match is not None

    async def _check(self, pin_hash: str, pin: str) -> bool:
        """``verify`` run by the checker; a checker that died (its process killed) is
        replaced once."""
        loop = asyncio.get_running_loop()
        for last in (False, True):
            if self._checker is None:
                self._checker = self.checker()
            try:
                return await loop.run_in_executor(self._checker, self.verify, pin_hash, pin)
            except BrokenExecutor:
                log.warning("the PIN checker ended: another is started")
                self.close(wait=False)
                if last:
                    raise
        raise AssertionError("unreachable")

    def close(self, wait: bool = True) -> None:
        """End the PIN checker (the next check starts another); ``wait``: until its process
        has ended."""
        checker, self._checker = self._checker, None
        if checker is not None:
            checker.shutdown(wait=wait, cancel_futures=True)

    async def _turn(self, rank: int, client: str) -> None:
        """Wait for the checker (AuthError 503 if too many wait or the wait is too long)."""
        if not self._checking:
            self._checking = True
            return
        busy = f"too many PINs waiting to be checked: try again in {self.check_wait:g} s"
        entry = (rank, next(self._turns), asyncio.get_running_loop().create_future(), client)
        if len(self._waiting) >= self.max_waiting:
            last = max(self._waiting)
            if entry > last:
                self._logged.warning(f"503 {client}", "sign-in from %s refused: %s", client, busy)
                raise AuthError(503, busy, Denied.PINS_WAITING)
            self._leave(last)
            self._logged.warning(f"503 {last[3]}", "sign-in from %s refused: %s", last[3], busy)
            last[2].set_exception(AuthError(503, busy, Denied.PINS_WAITING))
        heapq.heappush(self._waiting, entry)
        turn = entry[2]
        try:
            await asyncio.wait_for(asyncio.shield(turn), self.check_wait)
        except TimeoutError:
            if turn.done() and turn.exception() is None:  # its turn came as the time ran out
                return
            self._leave(entry)
            self._logged.warning(
                f"503 {client}",
                "sign-in from %s refused: its PIN waited %g s",
                client,
                self.check_wait,
            )
            raise AuthError(503, busy, Denied.PINS_WAITING) from None
        except BaseException:  # cancelled (the client left): its turn goes to the next
            if turn.done() and turn.exception() is None:
                self._next()
            else:
                self._leave(entry)
            raise

    def _leave(self, entry: _Waiting) -> None:
        """An attempt leaves the waiting ones (if it is still among them)."""
        if entry in self._waiting:
            self._waiting.remove(entry)
            heapq.heapify(self._waiting)

    def _next(self) -> None:
        """Give the checker to the first attempt waiting, if any."""
        if self._waiting:
            heapq.heappop(self._waiting)[2].set_result(None)
        else:
            self._checking = False

    async def _tell_attack(self, role: str, who: str, person: str) -> None:
        failures = self._failures[person]
        clients = self._clients(person)
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

    def _count(self, key: str, now: float, window: float | None = None) -> int:
        """The failures of ``key`` within ``window`` seconds (default: the window; older
        ones forgotten)."""
        failures = self._failures.get(key)
        span = self.window_seconds if window is None else window
        while failures and now - failures[0][0] > span:
            failures.popleft()
        if failures:
            return len(failures)
        self._failures.pop(key, None)
        return 0

    def _new(
        self, role: str, who: str, seat: int | None = None, sitting: int | None = None
    ) -> Session:
        token, now = secrets.token_urlsafe(24), self.clock()
        for old in [t for t, s in self._sessions.items() if self._ended(t, s, now)]:
            self.sign_out(old)
        session = Session(
            token, role, who, now + self.session_seconds, seat, sitting, self.position()
        )
        self._sessions[token] = session
        self._touched[token] = now
        if role in KEPT_ROLES:
            self._changed()
        return session

    def _ended(self, token: str, session: Session, now: float) -> bool:
        idle = now - self._touched.get(token, now) >= self.idle_seconds
        return idle or now >= session.expires
