"""The journal shipper: a table service's committed journal entries, shipped to the floor.

The journal is the outbox. The shipper runs in a thread of its own (never in the service's
event loop, which only calls :meth:`Shipper.notify` after each commit), with its own
connections to the journal file and to the floor. On every (re)connection it asks the floor
for its confirmed position of this journal and ships from the entry after it: batches of
consecutive entries with the facts the table core derives from them
(``controller.floor.derive``) and the table's status, each applied by the floor in one
transaction (``controller.floor.store.ingest``). So every entry reaches the floor at least
once, in order, and is held there once.

When the floor cannot be reached the table deals on: the shipper logs the outage, retries
with exponential backoff and jitter (tenacity) and, once the floor is back, catches up from
the floor's confirmed position. A batch refused for what its entries hold (the floor
cannot store an entry or apply its facts: see :func:`_about_records`; or the table core
cannot read an entry) is shipped again an entry at a time, and the entry that fails alone
is kept in the floor's quarantine with its error and the table's alert
(``store.quarantine``): shipping goes on with the next, never wedged on one entry. Nothing
it meets ever reaches the service: a failure of
any kind is logged and retried, but one: a journal that is not the floor's copy any more
(its chain does not lead to the floor's confirmed position, or it ends before it: a journal
restored from a backup) stops the shipper, with an alert of the table on the floor, and the
floor keeps its copy as it is.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time

import psycopg
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_not_exception_type,
    wait_exponential_jitter,
)

from controller.config import FloorSettings
from controller.floor import facts as f
from controller.floor import store
from controller.floor.clock import TableClock
from controller.floor.derive import (
    Derived,
    Point,
    Underivable,
    derive,
    over,
    point_at,
    status_of,
)
from controller.floor.migrate import migrate
from controller.journal import Entry, Journal
from controller.journal.snapshots import Snapshots
from controller.records import at_of

log = logging.getLogger(__name__)

#: Seconds :meth:`Shipper.stop` gives the shipper to ship what is left.
STOP_DRAIN = 5.0
#: Seconds a caught-up shipper lets new commits gather before it ships them (after a wake-up
#: and after each batch that was not full): fewer, larger batches, so that the table's own
#: work meets the shipper's (and the floor database's) less often.
GATHER = 0.05
#: Seconds the shipper rests after a full batch (it is behind: catching up) while the table
#: deals (it committed meanwhile), per second that batch took to derive and ship: the
#: catch-up and the floor's database take at most about half of the machine's time, so the
#: cards the table reads meanwhile find the cores free. A table that does not deal is
#: caught up with at full speed.
CATCH_UP_REST = 1.0


class _Stopping(Exception):
    """The shipper is asked to stop while it waits to retry."""


class _Progressed(Exception):
    """A session failed after it had shipped (or heartbeat): ``error`` is why."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


class Shipper:
    """Ships the journal at ``journal.path`` to the floor of ``settings``."""

    def __init__(
        self, settings: FloorSettings, journal: f.Journal, *, new_journal: bool = False
    ) -> None:
        self.settings = settings
        self.journal = journal
        #: The journal is its table's new one (the simulated table's, new at each run): the
        #: floor takes it as the table's when it has another (``store.bind_journal``).
        self.new_journal = new_journal
        self.name = f"{socket.gethostname()} pid {os.getpid()}"
        #: The last position the floor confirmed (as far as this shipper knows).
        self.confirmed = 0
        #: Whether the shipper is connected to the floor now.
        self.connected = False
        #: Why the floor refuses the journal (None while it takes it); once the journal is
        #: found not to be the floor's copy, the shipper stops.
        self.refused: str | None = None
        self._point: Point | None = None  # the derivation at ``confirmed``
        self._pending: Point | None = None  # at the end of the batch in flight
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._deadline = 0.0  # when stopping: ship until then at most
        self._down_since: float | None = None  # when shipping last stopped working
        self._outage_logged = False  # the outage's first failure was logged as a warning
        self._progressed = False  # the session shipped a batch or a heartbeat
        self._clock: TableClock | None = None  # the table's wall clock, from the thread's start
        self._thread = threading.Thread(
            target=self._run, name=f"floor shipper {journal.table_id}", daemon=True
        )

    def start(self) -> None:
        self._thread.start()

    def outage_seconds(self, now: float) -> float:
        """How long shipping has not worked at ``now`` (``time.monotonic()``); 0 while it
        works."""
        down_since = self._down_since
        return 0.0 if down_since is None else max(0.0, now - down_since)

    def notify(self) -> None:
        """New entries are committed (thread-safe, never blocks)."""
        self._wake.set()

    def stop(self, drain: float = STOP_DRAIN) -> None:
        """Ship what is left, for up to ``drain`` seconds (retrying a floor that is away
        meanwhile), then stop; what is still unshipped ships at the next start."""
        self._deadline = time.monotonic() + drain
        self._stopping.set()
        self._wake.set()
        self._thread.join(drain + 5.0)
        if self._thread.is_alive():
            log.warning("the floor shipper did not stop in time: left behind (its thread ends)")

    # --- the thread ------------------------------------------------------------------------

    def _run(self) -> None:
        journal = snapshots = None
        try:
            journal = Journal.open(self.journal.path, create=False)
            snapshots = Snapshots(self.journal.path)
            self._clock = TableClock(journal)
            while True:
                try:
                    for attempt in self._retrying():
                        with attempt:
                            self._session(journal, snapshots)
                    return  # stopped, with everything shipped or out of time
                except _Progressed as lost:  # shipping worked, then failed: again at once
                    if isinstance(lost.error, store.FloorDivergedError):
                        self._diverged(lost.error)
                        return
                    self._lost(lost.error)
                except store.FloorDivergedError as error:
                    self._diverged(error)
                    return
                except _Stopping:
                    log.warning(
                        "stopping while the floor is away: it holds the journal up to "
                        "position %d, the rest ships at the next start",
                        self.confirmed,
                    )
                    return
        except Exception:
            log.exception("the floor shipper of journal %s failed", self.journal.path)
        finally:
            self.connected = False
            for closing in (snapshots, journal):
                if closing is not None:
                    closing.close()

    def _out_of_time(self) -> bool:
        return self._stopping.is_set() and time.monotonic() >= self._deadline

    def _retrying(self) -> Retrying:
        """Tries of a session: a failure before it shipped anything is tried again after
        an exponential backoff with jitter, from ``retry_initial`` up to ``retry_max``."""
        settings = self.settings
        return Retrying(
            sleep=self._sleep,
            wait=wait_exponential_jitter(
                settings.retry_initial, settings.retry_max, jitter=settings.retry_initial
            ),
            retry=retry_if_not_exception_type((_Stopping, _Progressed, store.FloorDivergedError)),
            before_sleep=self._before_retry,
            reraise=True,
        )

    def _session(self, journal: Journal, snapshots: Snapshots) -> None:
        """Connect, check the schema, ship until stopped. A failure after something was
        shipped is raised as :class:`_Progressed` (the backoff starts again)."""
        if self._out_of_time():
            raise _Stopping
        self._progressed = False
        with store.connect(self.settings.dsn, autocommit=True) as connection:
            try:
                migrate(connection)
                self._ship(connection, journal, snapshots)
            except Exception as error:
                if self._progressed:
                    raise _Progressed(error) from error
                raise

    def _sleep(self, seconds: float) -> None:
        """Wait before the next try; once stopping, only within the time left to drain."""
        if not self._stopping.is_set() and not self._stopping.wait(seconds):
            return
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise _Stopping
        time.sleep(min(seconds, left))

    def _before_retry(self, state: RetryCallState) -> None:
        error = state.outcome.exception() if state.outcome is not None else None
        wait = state.next_action.sleep if state.next_action is not None else 0.0
        self._lost(error, retry_in=wait)

    def _diverged(self, error: store.FloorDivergedError) -> None:
        self.connected = False
        self.refused = str(error)
        log.error(
            "shipping stops: %s. The table deals on and its journal keeps every entry; "
            "the floor keeps its own copy (docs/operations.md: after restoring a backup)",
            error,
        )

    def _lost(self, error: BaseException | None, retry_in: float | None = None) -> None:
        self.connected = False
        if isinstance(error, store.FloorRefusedError):
            self.refused = str(error)
        again = "" if retry_in is None else f"; retry in {retry_in:.1f} s"
        if self._down_since is None:
            self._down_since = time.monotonic()
        if error is not None and not isinstance(error, psycopg.OperationalError | OSError):
            # not an outage: the floor refused what it was sent, or the shipper failed
            log.error(
                "shipping after position %d failed (%s): the table deals on; trying again%s",
                self.confirmed,
                _words(error),
                again,
            )
        elif self._outage_logged:
            log.info("the floor is still not reachable (%s)%s", _words(error), again)
        else:
            self._outage_logged = True
            log.warning(
                "the floor is not reachable (%s): the table deals on, its journal keeps "
                "every entry; shipping resumes after position %d when the floor is back%s",
                _words(error),
                self.confirmed,
                again,
            )

    def _ship(self, connection: psycopg.Connection, journal: Journal, snapshots: Snapshots) -> None:
        try:
            session = store.register(connection, self.journal, self.name)
        except store.FloorRefusedError:
            if not self.new_journal or store.held(connection, self.journal.journal_id):
                raise
            session = store.bind_journal(connection, self.journal, self.name)
        why = _not_the_floors(journal, snapshots, session)
        if why is not None:
            store.diverged(connection, self.journal, session, why)
            raise store.FloorDivergedError(why)
        self.connected = True
        self.refused = None
        self.confirmed = session.confirmed_position
        point = self._at(session.confirmed_position, journal, snapshots)
        if self._down_since is not None:
            log.info(
                "the floor is back after %.1f s: shipping from position %d",
                time.monotonic() - self._down_since,
                point.position + 1,
            )
            self._down_since = None
            self._outage_logged = False
        else:
            log.info(
                "shipping journal %s to the floor from position %d",
                journal.path,
                point.position + 1,
            )
        last_beat = time.monotonic()
        while True:
            self._wake.clear()
            started = time.monotonic()
            try:
                derived = derive(journal, point, self.settings.batch)
            except Underivable:  # an entry the table core cannot read: find it
                point = self._one_by_one(connection, journal, point, self.settings.batch)
                self._progressed = True
                continue
            if not derived.entries:
                if self._stopping.is_set():
                    return
                if not self._wake.wait(self.settings.heartbeat) or (
                    time.monotonic() - last_beat >= self.settings.heartbeat
                ):
                    store.heartbeat(connection, session, self.name)
                    last_beat = time.monotonic()
                    self._progressed = True
                else:  # let the commits of the next moments join this batch
                    self._stopping.wait(GATHER)
                continue
            if self._out_of_time():
                log.warning(
                    "stopping with the entries from position %d on not yet on the floor: "
                    "they ship at the next start",
                    point.position + 1,
                )
                return
            try:
                point = self._ship_batch(connection, derived)
            except Exception as error:
                if not _about_records(error):
                    raise
                point = self._one_by_one(connection, journal, point, len(derived.entries))
            self._progressed = True
            last_beat = time.monotonic()
            self._stopping.wait(self._pause(len(derived.entries), last_beat - started))

    def _ship_batch(self, connection: psycopg.Connection, derived: Derived) -> Point:
        """Ship the derived entries and facts; the point after them."""
        batch = self._batch(derived.entries, derived.facts, derived.status)
        self._pending = derived.point
        self.confirmed = store.ingest(connection, batch)
        self._point = derived.point
        return derived.point

    def _batch(
        self, entries: tuple[Entry, ...], facts: tuple[f.Fact, ...], status: f.Status
    ) -> f.Batch:
        """A batch of ``entries`` sent now: stamped with the table's wall clock and its steps
        since the last of them, for the floor to put their times on its own clock."""
        assert self._clock is not None
        sent_at, steps_after = self._clock.stamp(entries)
        return f.Batch(self.journal, entries, facts, status, self.name, sent_at, steps_after)

    def _one_by_one(
        self, connection: psycopg.Connection, journal: Journal, point: Point, count: int
    ) -> Point:
        """Ship up to ``count`` entries after ``point`` an entry at a time (a batch of them
        failed for what an entry holds): an entry that fails alone is kept in quarantine
        and shipping goes on after it. The point after the last."""
        for _ in range(count):
            entry = journal.entry(point.position + 1)
            if entry is None:
                break
            try:
                derived = derive(journal, point, 1)
            except Underivable as error:
                point = self._quarantine(connection, entry, error, point, None)
                continue
            try:
                point = self._ship_batch(connection, derived)
            except Exception as error:
                if not _about_records(error):
                    raise
                point = self._quarantine(connection, entry, error, point, derived)
        return point

    def _quarantine(
        self,
        connection: psycopg.Connection,
        entry: Entry,
        error: Exception,
        before: Point,
        derived: Derived | None,
    ) -> Point:
        """Keep ``entry`` in the floor's quarantine (``error``: why it cannot be stored)
        with the facts ``derived`` from it (None: the table core could not derive it, the
        table stays as it was ``before`` it); the point after it."""
        why = _words(error)
        if derived is None:
            after = over(before, entry)
            status = status_of(before.table, at_of(entry.recorded_at))
            batch = self._batch((entry,), (), status)
        else:
            after = derived.point
            batch = self._batch((entry,), derived.facts, derived.status)
        self._pending = after
        try:
            self.confirmed = store.quarantine(connection, batch, why)
        except Exception as again:  # its facts are what the floor cannot take: without them
            if not batch.facts or not _about_records(again):
                raise
            why = f"{why}; its facts: {_words(again)}"
            self.confirmed = store.quarantine(connection, batch, why, facts=False)
        self._point = after
        log.error(
            "journal entry %d (%s) cannot be stored on the floor (%s): kept in the floor's "
            "quarantine, with the table's alert; shipping goes on",
            entry.position,
            entry.type,
            why,
        )
        return after

    def _pause(self, shipped: int, took: float) -> float:
        """Seconds before the next batch, after one of ``shipped`` entries that took
        ``took`` seconds (a stop does not wait: it drains at once)."""
        if shipped < self.settings.batch:  # caught up: let the next commits gather
            return GATHER
        return took * CATCH_UP_REST if self._wake.is_set() else 0.0  # behind: rest while it deals

    def _at(self, position: int, journal: Journal, snapshots: Snapshots) -> Point:
        """The derivation at ``position``: the one in hand, or rebuilt from the journal."""
        for known in (self._point, self._pending):
            if known is not None and known.position == position:
                self._point = known
                return known
        self._point = point_at(journal, snapshots, position)
        return self._point


def _not_the_floors(journal: Journal, snapshots: Snapshots, session: store.Session) -> str | None:
    """Why ``journal`` is not the floor's copy of it (None: it is, as far as the floor holds
    it): it ends before the floor's confirmed position, or its chain there is another."""
    confirmed = session.confirmed_position
    if confirmed == 0:
        return None
    entry = journal.entry(confirmed)
    name = f"journal {journal.identity()} ({journal.path})"
    if entry is None:
        return (
            f"{name} ends at position {snapshots.last_position()}, but the floor holds it up "
            f"to position {confirmed} (a journal restored from a backup?)"
        )
    if session.chain is not None and entry.chain != session.chain:
        return (
            f"{name} is not the floor's copy: its entries up to position {confirmed} differ "
            "from the floor's (a journal restored from a backup?)"
        )
    return None


def _about_records(error: BaseException) -> bool:
    """Whether the floor's ``error`` is about what a batch's entries hold, not about the
    floor: it refused a value (PostgreSQL's data and integrity errors: text it cannot hold,
    a number out of range, a duplicate; text the client cannot encode), or a fact that does
    not fit what it holds. A lost connection, a refused journal and any other failure (the
    schema, a permission) are not: they are retried as they are."""
    if isinstance(error, store.FloorRefusedError | store.FloorOrderError):
        return False
    return isinstance(
        error, psycopg.DataError | psycopg.IntegrityError | store.FloorError | UnicodeError
    )


def _words(error: BaseException | None) -> str:
    if error is None:
        return "no reason given"
    text = " ".join(str(error).split()) or type(error).__name__
    return f"{type(error).__name__}: {text}"
