"""PostgreSQL databases of their own and table journals for the floor's tests.

``floor_database()`` creates a database with a unique name on the machine's PostgreSQL
(``LUCK_FLOOR_PG``, default ``postgresql://postgres@127.0.0.1:5432/postgres``) and drops
it afterwards, so tests run alongside others on the same server. Without a reachable
server the test is skipped with the reason, except under CI (``CI`` set), where it fails.

``write_journal()`` writes a table's journal with the table core alone (no devices): seated
players, seeded decisions, a card out of turn held by the supervisor, a rebuy, a player
leaving and another sitting down; with a deck, at a table with tag checks.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import random
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import psycopg
import pytest

from controller.journal import Journal
from controller.records import record_of
from controller.recovery import initial_table
from controller.rules import Do
from controller.table import (
    Configure,
    Decide,
    FromDevice,
    Leave,
    NewHand,
    Rebuy,
    Remedy,
    ResolveAlert,
    SitDown,
    TableInput,
    TableSettings,
    apply,
)
from controller.table.settings import Protection
from tests.device_inputs import card_read, deck_card, deck_loaded
from tests.floor_scratch import ADMIN, admin, scratch_database
from tests.waiting import wait_until

TIMEOUT = 300.0


def wait_for(condition: Callable[[], bool], what: str, timeout: float = TIMEOUT) -> None:
    """Wait until ``condition()`` holds (polling), or fail saying ``what`` did not happen."""
    wait_until(condition, what, timeout)


@contextlib.contextmanager
def floor_database() -> Iterator[str]:
    """The DSN of a new, empty database, dropped when the block ends."""
    try:
        admin().close()
    except psycopg.OperationalError as error:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"no PostgreSQL at {ADMIN} for the floor's tests: {error}")
    with scratch_database("luck_floor_test") as dsn:
        yield dsn


class JournalWriter:
    """Inputs journaled as the service journals them (``record_of``), applied as it goes."""

    def __init__(self, path: Path, clock: int = 1_800_000_000_000, durable: bool = True) -> None:
        self.journal = Journal.open(path, durable=durable)
        self.table = initial_table()
        self.clock = clock
        self.deck: tuple[int, tuple[str, ...]] | None = None  # each hand's, with tag checks

    def put(self, item: TableInput) -> str | None:
        self.clock += 1000
        item = dataclasses.replace(item, at=self.clock)
        self.journal.append([record_of(item)])
        step = apply(self.table, item)
        self.table = step.table
        return step.refused

    def ok(self, item: TableInput) -> None:
        refused = self.put(item)
        assert refused is None, refused

    def register(self, deck: int, tags: Sequence[str]) -> None:
        """The shoe registers deck ``deck`` (``tags``: each card's tag UID, by code)."""
        for code, uid in enumerate(tags):
            self.ok(deck_card(at=0, deck=deck, code=code, uid=uid))
        self.ok(deck_loaded(at=0, count=52, deck=deck))

    def tag_checks(self, deck: int, tags: Sequence[str]) -> None:
        """Tag checks from now on: each hand's deck is ``deck``, registered with ``tags``,
        and each card the shoe reads carries its tag."""
        self.ok(Configure(at=0, settings=TableSettings(protection=Protection(tag_checks=True))))
        self.deck = (deck, tuple(tags))

    def play_hand(
        self, rng: random.Random, out_of_turn: bool = False, decisions: int | None = None
    ) -> list[int]:
        """A fresh deck and a whole hand (or only up to its first ``decisions`` decisions);
        with ``out_of_turn`` a card drawn early is held. The cards left in the deck."""
        deck = rng.sample(range(52), 52)
        if self.deck is None:
            self.ok(deck_loaded(at=0, count=52))
        else:
            self.register(*self.deck)
        self.ok(NewHand(at=0))
        self.play_on(rng, deck, out_of_turn, decisions)
        return deck

    def play_on(
        self,
        rng: random.Random,
        deck: list[int],
        out_of_turn: bool = False,
        decisions: int | None = None,
    ) -> None:
        """The hand in progress played on from ``deck``: to its end, or up to ``decisions``
        more decisions."""
        while self.table.in_hand and decisions != 0:
            hand = self.table.hand
            assert hand is not None
            waiting = hand.waiting_for
            assert waiting is not None
            if waiting.kind == "card":
                self.ok(self.read(deck.pop()))
            elif waiting.kind == "action":
                if out_of_turn:
                    out_of_turn = False
                    self.ok(self.read(deck.pop()))  # drawn early: an alert
                    alert = self.table.alerts[-1]
                    self.ok(
                        ResolveAlert(
                            at=0, who="S100", why="held", alert=alert.id, remedy=Remedy.HOLD
                        )
                    )
                    continue
                choices = [c for c in waiting.legal if c.do is not Do.FOLD] or list(waiting.legal)
                choice = rng.choice(choices)
                self.ok(Decide(at=0, seat=waiting.seat, do=choice.do, to=choice.to))
                decisions = None if decisions is None else decisions - 1
            elif waiting.kind == "bonus":
                self.ok(Decide(at=0, seat=waiting.seat, do=Do.BONUS, accept=True))
            else:
                self.ok(Decide(at=0, seat=waiting.seat, do=Do.SHOW))

    def read(self, code: int) -> FromDevice:
        """The shoe reads card ``code`` (with its tag, with tag checks)."""
        return card_read(at=0, code=code, uid="" if self.deck is None else self.deck[1][code])

    def journal_last(self) -> int:
        return max((entry.position for entry in self.journal.entries()), default=0)

    def close(self) -> None:
        self.journal.close()


def write_journal(
    path: Path,
    hands: int = 4,
    seed: int = 1,
    clock: int = 1_800_000_000_000,
    deck: tuple[int, Sequence[str]] | None = None,
    durable: bool = True,
) -> Path:
    """A journal of ``hands`` hands at a table of three, then one leaves and one sits down;
    its inputs a second apart from ``clock`` (ms since the epoch) on. With ``deck`` (its id
    and tags), the table has tag checks and deals every hand from that deck; not
    ``durable``, its commits are not synced to the disk (``Journal.open``)."""
    rng = random.Random(seed)
    writer = JournalWriter(path, clock, durable)
    if deck is not None:
        writer.tag_checks(*deck)
    for seat, chips in ((1, 500), (2, 300), (4, 200)):
        writer.ok(SitDown(at=0, seat=seat, player=f"P{seat}", buy_in=chips))
    for number in range(hands):
        writer.play_hand(rng, out_of_turn=number == 1)
        if number == 0:
            seat = writer.table.seat(4)
            assert seat is not None
            if seat.stack < 1000:
                writer.ok(Rebuy(at=0, seat=4, chips=min(100, 1000 - seat.stack)))
    writer.ok(Leave(at=0, seat=2))
    writer.ok(SitDown(at=0, seat=2, player="P2b", buy_in=150))
    writer.close()
    return path
