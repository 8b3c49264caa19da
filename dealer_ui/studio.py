"""The studio feed: every hole card and each player's odds, for a broadcast, held back by
the table's security delay (``[studio] delay``, docs/security.md).

- :class:`StudioTokens`: the studio's tokens. A supervisor issues one (their id and PIN,
  checked as for any supervisor action); it is journaled as an access record
  (``studio_token``: its id, the SHA-256 digest of the token, never the token, its label,
  who issued it, when it expires) and so is its revocation (``studio_token_revoked``). At
  start the tokens still valid are read back from the journal, so a restart keeps them
  and a revoked one stays revoked. A studio token is no session: the console's live
  views and feed refuse it (401); it opens the studio feed only.
- :func:`studio_view`: the table as the studio sees it (pure): each player dealt in, their
  name, every card (face and how it came: the bonus card marked), their stack, bet this
  street, last decision (:func:`decisions`: the hand made again from its log), whether
  they are to act, the hand their cards make (:func:`made`), whether they folded, what
  they won at the end, their odds (:mod:`controller.odds`; held back while a street's
  cards are dealt), the limits and the bring-in; and the bonus-card moment on air
  (:func:`on_air`: a face-up four of clubs earned a seat its bonus card, held for
  ``[studio] bonus_hold`` seconds of the table's time whatever it does meanwhile).
- :class:`StudioFeed`: follows the table service. The odds are computed when each card is
  read (in a process of their own, so the table's event loop never waits for them); each
  moment of the table is released to the studio once the delay has passed since it was
  journaled, and for every earlier one (a table's state holds every card before it),
  never before. The delay runs on the service's monotonic clock (``service.journaled``):
  a step of the wall clock, forward or back, neither releases a moment early nor holds
  one back. At start, the moments of the last ``delay`` are read back from the journal
  and held the same way; one journaled before the service's start is held for the delay
  from the start at least (how long ago it was journaled is known only by the wall
  clock): a restart releases nothing early. Each message
  is the whole studio view (``type: "studio"``), so a client that falls behind gets the
  latest and misses nothing it needs.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import multiprocessing
import os
import secrets
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from controller.journal import Entry
from controller.odds import Odds, OddsError, OddsJson, SeatOddsJson, odds
from controller.rules import Category, Do, Hand, IllegalInput, Phase, Player, Reveal, Wait, replay
from controller.rules.betting import describe_showing, showing_key
from controller.rules.effects import BonusEarned, Street, TakeData
from controller.rules.hand import Decision, DecisionData
from controller.rules.hand_tables import MIN_CARDS
from controller.rules.showdown import hand_value
from controller.service import Subscription, TableService, Update
from controller.table import FromDevice, NewHand, SitDown, Table, TableSettings, apply
from dealer_ui.auth import AuthError, Denied
from dealer_ui.feeds import Changes
from drivers import events as ev
from drivers.protocol import DeviceKind

log = logging.getLogger(__name__)

#: The access records of the studio's tokens.
ISSUED, REVOKED = "studio_token", "studio_token_revoked"
#: How often a studio client's token is checked again while nothing is released.
RECHECK_SECONDS = 1.0


# The studio's JSON (docs/api.md, "The studio feed: hole cards and odds behind the delay"),
# key for key in the order sent.


class StudioPassJson(TypedDict):
    """A studio token's access record (``studio_token``): never the token, its digest."""

    id: str
    digest: str
    label: str
    supervisor: str
    by: str
    expires: float


class MadeJson(TypedDict):
    """The hand a player's cards make (:func:`made`)."""

    category: str
    words: str
    full: str | None


class ChancesJson(TypedDict):
    win: float
    tie: float
    equity: float


class StudioCardJson(TypedDict):
    card: str
    face: Literal["up", "down"]
    street: int
    bonus: bool
    wild: bool


class DecidedJson(DecisionData):
    """A player's last decision on air (:meth:`Decided.to_json`): the engine's data of it,
    its street and the table's words ("bets 10")."""

    street: int
    words: str


class BringInJson(DecidedJson):
    """The opening decision of the hand (a bring-in or a completion) and its player."""

    player: str | None


class StudioPlayerJson(TypedDict):
    seat: int
    player: str
    stack: int
    bet: int
    folded: bool
    mucked: bool
    all_in: bool
    to_act: bool
    action: DecidedJson | None
    made: MadeJson | None
    winner: bool
    won: int
    bonus_due: bool
    cards: list[StudioCardJson]
    odds: ChancesJson | None


class LimitsJson(TypedDict):
    ante: int
    bring_in: int
    small_bet: int
    big_bet: int
    max_raises: int


class HouseJson(TypedDict):
    rake_percent: float
    rake_cap: int
    jackpot_drop: int
    jackpot_drop_at: int
    taken: TakeData


class OnAirJson(TypedDict):
    """The bonus moment on air (:func:`_bonus`)."""

    seat: int
    player: str | None
    card: str | None
    since: float
    hold: float


class StudioViewJson(TypedDict):
    """The table as the studio sees it (:func:`studio_view`)."""

    hand_number: int
    in_hand: bool
    paused: bool
    street: int | None
    phase: str | None
    pot: int
    community: str | None
    method: str | None
    standard_error: float | None
    odds_held: bool
    limits: LimitsJson | None
    house: HouseJson | None
    bring_in: BringInJson | None
    first: int | None
    bonus: OnAirJson | None
    players: list[StudioPlayerJson]


class StudioMessage(TypedDict):
    """A message of the studio feed: the whole view of the moment released."""

    type: Literal["studio"]
    epoch: str
    seq: int
    delay: float
    position: int | None
    at: float | None
    table: StudioViewJson | None


def digest(token: str) -> str:
    """What the journal keeps of a studio token: its SHA-256, in hex."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class StudioPass:
    """A studio token as the table knows it: ``id`` (public: names it in the journal and
    the list), ``digest`` of the token, ``label`` (who it is for), who issued it
    (``supervisor``, at ``by``'s console), ``expires`` and ``issued`` (seconds since the
    epoch; ``issued`` is not in the record: the journal's time of the record says it)."""

    id: str
    digest: str
    label: str
    supervisor: str
    by: str
    expires: float
    issued: float

    def to_json(self) -> StudioPassJson:
        return {
            "id": self.id,
            "digest": self.digest,
            "label": self.label,
            "supervisor": self.supervisor,
            "by": self.by,
            "expires": self.expires,
        }

    @classmethod
    def from_entry(cls, entry: Entry) -> StudioPass:
        """The pass of the journal's record ``entry`` (issued at the record's time)."""
        fields = entry.fields
        return cls(
            str(fields["id"]),
            str(fields["digest"]),
            str(fields["label"]),
            str(fields["supervisor"]),
            str(fields["by"]),
            float(fields["expires"]),
            entry.recorded_at,
        )


class StudioTokens:
    """The studio tokens that hold: issued, not revoked, not expired. ``clock``: the wall
    clock (seconds since the epoch, the journal's time), which the passes' ``expires``
    say; ``monotonic``: the clock they expire by. A token issued in this run ends its
    hours after it was issued, by the monotonic clock; one read back from the journal at
    :meth:`restore` ends when its ``expires`` says by the wall clock at the start, and
    never later than its whole lifetime from then: a wall clock set back before a restart
    gives a token no more than that."""

    def __init__(
        self,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.clock = clock
        self.monotonic = monotonic
        self._passes: dict[str, StudioPass] = {}  # by digest
        self._ends: dict[str, float] = {}  # by digest: when it expires, on ``monotonic``
        self._revoked: set[str] = set()  # ids

    def new(self, label: str, supervisor: str, by: str, hours: float) -> tuple[str, StudioPass]:
        """A new token and its pass (not yet valid: :meth:`add` it once journaled)."""
        token, now = secrets.token_urlsafe(32), self.clock()
        made = StudioPass(
            secrets.token_hex(6), digest(token), label, supervisor, by, now + hours * 3600, now
        )
        return token, made

    def add(self, made: StudioPass) -> None:
        """Take a token just issued: it holds for its lifetime from now."""
        self._take(made, made.expires - made.issued)

    def _take(self, made: StudioPass, left: float) -> None:
        if made.id not in self._revoked:
            self._passes[made.digest] = made
            self._ends[made.digest] = self.monotonic() + left

    def revoke(self, id: str) -> StudioPass | None:
        """End the token ``id``: the pass it had, None if none holds."""
        self._revoked.add(id)
        for key, made in list(self._passes.items()):
            if made.id == id:
                del self._passes[key], self._ends[key]
                return made
        return None

    def restore(self, entries: Iterable[Entry]) -> None:
        """Take the journal's studio token records (in journal order)."""
        now = self.clock()
        for entry in entries:
            if entry.type == ISSUED:
                made = StudioPass.from_entry(entry)
                self._take(made, min(made.expires - now, made.expires - made.issued))
            elif entry.type == REVOKED:
                self.revoke(str(entry.fields["id"]))

    def held(self) -> list[StudioPass]:
        """The tokens that hold now, the first to expire first."""
        now = self.monotonic()
        held = (p for p in self._passes.values() if self._ends[p.digest] > now)
        return sorted(held, key=self._end)

    def left(self, made: StudioPass) -> float:
        """Seconds until ``made`` expires (by the monotonic clock)."""
        return self._ends[made.digest] - self.monotonic()

    def _end(self, made: StudioPass) -> float:
        return self._ends[made.digest]

    def check(self, token: str | None) -> StudioPass:
        """The pass of ``token``; AuthError 401 for none, an unknown (forged or revoked)
        one or an expired one."""
        if not token:
            reason = "the studio feed needs a studio token (?token=TOKEN)"
            raise AuthError(401, reason, Denied.NO_STUDIO_TOKEN)
        made = self._passes.get(digest(token))
        if made is None:
            reason = "not a studio token, or one revoked: ask a supervisor"
            raise AuthError(401, reason, Denied.UNKNOWN_STUDIO_TOKEN)
        if self.monotonic() >= self._ends[made.digest]:
            reason = "the studio token has expired: ask a supervisor for another"
            raise AuthError(401, reason, Denied.STUDIO_TOKEN_EXPIRED)
        return made


# The studio's view ------------------------------------------------------------------------


def odds_key(table: Table) -> tuple[Any, ...] | None:
    """What the odds of ``table``'s hand depend on: the cards out, who is still in (None:
    no hand, no odds)."""
    hand = table.hand
    if hand is None or hand.phase is Phase.VOID:
        return None
    contenders = tuple(
        (p.seat, p.folded, p.reveal is Reveal.MUCK, len(p.cards)) for p in hand.players
    )
    return table.hand_number, hand.out, hand.community, contenders


def hand_odds(hand: Hand, seed: int) -> OddsJson | None:
    """The odds of ``hand`` as JSON (``controller.odds``: exact when small, else Monte
    Carlo to 0.25 percentage points, seeded), None when it has none (a void hand)."""
    try:
        result: Odds = odds(hand, seed=seed)
    except OddsError:
        return None
    return result.to_json()


@dataclass(frozen=True, slots=True)
class OnAir:
    """The bonus-card moment on air: a face-up four of clubs earned ``seat`` of hand
    ``hand_number`` its bonus card at ``since`` (the journaled time of that moment); it
    stays on air until ``since + hold`` (seconds)."""

    hand_number: int
    seat: int
    since: float
    hold: float


def on_air(
    before: OnAir | None, table: Table, effects: Iterable[Any], at: float, hold: float
) -> OnAir | None:
    """The bonus moment on air once the moment of ``table`` (journaled at ``at``, with its
    ``effects``) is released: a bonus just earned, else ``before`` while its hold lasts,
    whatever the table did meanwhile."""
    moment = next((e for e in effects if isinstance(e, BonusEarned)), None)
    if moment is not None:
        return OnAir(table.hand_number, moment.seat, at, hold)
    if before is not None and at < before.since + before.hold:
        return before
    return None


#: The showing categories of :func:`showing_key` (0: high card .. 6: five of a kind).
_SHOWING = (
    Category.HIGH_CARD,
    Category.PAIR,
    Category.TWO_PAIR,
    Category.THREE_OF_A_KIND,
    Category.FULL_HOUSE,
    Category.FOUR_OF_A_KIND,
    Category.FIVE_OF_A_KIND,
)


def made(hand: Hand, player: Player) -> MadeJson | None:
    """The hand ``player``'s cards make, in the table's words: ``category`` (the
    evaluator's), ``words`` (its name without kickers: "Pair of queens", "Queens full of
    eights") and ``full`` (the evaluator's description, kickers too; five cards or more).
    None while it is only a high card, but at the showdown for a hand shown."""
    cards = player.own_cards
    if hand.community is not None and not player.folded:
        cards = (*cards, hand.community)
    if not cards or player.folded or player.reveal is Reveal.MUCK:
        return None
    full = None
    if len(cards) >= MIN_CARDS:
        value = hand_value(hand, player)
        category, full = value.category, value.description
        words = (
            describe_showing((_SHOWING.index(category), *value.ranks))
            if category in _SHOWING
            else full
        )
    else:
        key = showing_key(cards, hand.rules.wild)
        category, words = _SHOWING[key[0]], describe_showing(key)
    at_showdown = hand.phase is Phase.COMPLETE and player.reveal is Reveal.SHOW
    if category is Category.HIGH_CARD and not at_showdown:
        return None
    return {"category": category.value, "words": words[0].upper() + words[1:], "full": full}


@dataclass(frozen=True, slots=True)
class Decided:
    """A betting decision of the hand and the street it was taken on."""

    decision: Decision
    street: int

    @property
    def seat(self) -> int:
        return self.decision.player.seat

    def to_json(self) -> DecidedJson:
        """The data of the decision and the table's words ("bets 10", "folds")."""
        words = self.decision.say().removeprefix(f"seat {self.seat} ")
        return {**self.decision.data, "street": self.street, "words": words}


def decisions(table: Table) -> list[Decided]:
    """Every betting decision of ``table``'s hand, in order (the hand made again from its
    log: the engine's own words and amounts); none if the log does not make it again."""
    hand = table.hand
    if hand is None:
        return []
    try:
        step = replay(hand.rules, hand.starting_stacks(), table.hand_log)
    except IllegalInput:  # not this hand's whole log: the decisions are not known
        return []
    out, street = [], 3
    for effect in step.effects:
        if isinstance(effect, Street):
            street = effect.street
        elif isinstance(effect, Decision):
            out.append(Decided(effect, street))
    return out


def _won(hand: Hand, seat: int) -> int:
    return sum(share for pot in hand.pots for who, share in pot.shares if who == seat)


def studio_view(
    table: Table,
    odds_json: OddsJson | None,
    bonus: OnAir | None = None,
    *,
    odds_while_dealing: bool = False,
) -> StudioViewJson:
    """The table as the studio sees it: every card of every player dealt in, their stack,
    bet this street, last decision, whether they are to act, the hand their cards make,
    what they won at the end, and their odds (``odds_json``: :func:`hand_odds` of this
    table's hand; held back while a street's cards are dealt unless
    ``odds_while_dealing``); and ``bonus``, the bonus-card moment on air (:func:`on_air`)
    with the seat's player and their bonus card once dealt."""
    hand = table.hand
    out: StudioViewJson = {
        "hand_number": table.hand_number,
        "in_hand": table.in_hand,
        "paused": table.paused,
        "street": None,
        "phase": None,
        "pot": 0,
        "community": None,
        "method": None,
        "standard_error": None,
        "odds_held": False,
        "limits": None,
        "house": None,
        "bring_in": None,
        "first": None,
        "bonus": None,
        "players": [],
    }
    if hand is None:
        return out
    dealing = hand.phase is Phase.DEAL and not odds_while_dealing
    chances: dict[str, SeatOddsJson] = {} if odds_json is None or dealing else odds_json["seats"]
    if odds_json is not None:
        out["method"] = odds_json["method"]
        out["standard_error"] = odds_json.get("standard_error")
    due = set(hand.bonus_seats())
    wild = hand.rules.wild
    waiting = None if hand.over else hand.waiting_for
    to_act = None if waiting is None or waiting.kind == Wait.CARD else waiting.seat
    decided = decisions(table)
    last = {decision.seat: decision for decision in decided}
    complete = hand.phase is Phase.COMPLETE
    for player in hand.players:
        place = table.seat(player.seat)
        if place is None or not table.dealt_in(player.seat):
            continue
        chance = chances.get(str(player.seat))
        won = _won(hand, player.seat) if complete else 0
        decision = last.get(player.seat)
        out["players"].append(
            {
                "seat": player.seat,
                "player": place.player,
                "stack": player.stack,
                "bet": 0 if hand.over else player.bet,
                "folded": player.folded,
                "mucked": player.reveal is Reveal.MUCK,
                "all_in": player.stack == 0 and not player.folded and not hand.over,
                "to_act": player.seat == to_act,
                "action": None if decision is None else decision.to_json(),
                "made": made(hand, player),
                "winner": won > 0,
                "won": won,
                "bonus_due": player.seat in due,
                "cards": [
                    {
                        "card": str(dealt.card),
                        "face": "up" if dealt.up or dealt.exposed else "down",
                        "street": dealt.street,
                        "bonus": dealt.bonus,
                        "wild": wild and dealt.card.rank == 4,
                    }
                    for dealt in player.cards
                ],
                "odds": None
                if chance is None or player.folded
                else {"win": chance["win"], "tie": chance["tie"], "equity": chance["equity"]},
            }
        )
    rules = hand.rules
    opening = next((d for d in decided if d.street == 3), None)
    betting = hand.phase is Phase.BETTING and hand.first is not None
    first = hand.players[hand.first].seat if betting and hand.first is not None else None
    out |= {
        "street": hand.street,
        "phase": hand.phase.value,
        "pot": hand.pot,
        "community": None if hand.community is None else str(hand.community),
        "odds_held": dealing and odds_json is not None,
        "limits": {
            "ante": rules.ante,
            "bring_in": rules.bring_in,
            "small_bet": rules.small_bet,
            "big_bet": rules.big_bet,
            "max_raises": rules.max_raises,
        },
        "house": _house(hand) if rules.house_takes else None,
        "bring_in": None
        if opening is None or opening.decision.choice.do not in (Do.BRING_IN, Do.COMPLETE)
        else {**opening.to_json(), "player": _name(table, opening.seat)},
        "first": first,
        "bonus": None if bonus is None else _bonus(table, bonus),
    }
    return out


def _house(hand: Hand) -> HouseJson:
    """What the house takes at this table and has taken from this hand's pot so far."""
    rules = hand.rules
    return {
        "rake_percent": rules.rake_percent,
        "rake_cap": rules.rake_cap,
        "jackpot_drop": rules.jackpot_drop,
        "jackpot_drop_at": rules.jackpot_drop_at,
        "taken": {"rake": hand.rake, "jackpot_drop": hand.jackpot_drop},
    }


def _name(table: Table, seat: int) -> str | None:
    place = table.seat(seat)
    return None if place is None else place.player


def _bonus(table: Table, bonus: OnAir) -> OnAirJson:
    """The bonus moment as the studio has it: the seat, its player, the bonus card once
    dealt, and the hold (``since``: the moment's journaled time; ``hold``: seconds)."""
    hand = table.hand
    card = None
    if hand is not None and table.hand_number == bonus.hand_number and bonus.seat in hand.seats:
        dealt = next((d for d in hand.player(bonus.seat).cards if d.bonus), None)
        card = None if dealt is None else str(dealt.card)
    return {
        "seat": bonus.seat,
        "player": _name(table, bonus.seat),
        "card": card,
        "since": bonus.since,
        "hold": bonus.hold,
    }


# The feed ----------------------------------------------------------------------------------

#: The odds' worker's nice value: the table's own process comes first for the processor.
WORKER_NICE = 10


def hand_started(seats: Iterable[int]) -> Table:
    """A table without a seat board, a player of 100 chips at each of ``seats`` (``P1``
    at seat 1), a deck loaded and a hand started: no card out yet."""
    table = Table(TableSettings(seat_board=False))
    for seat in seats:
        table = apply(table, SitDown(at=0, seat=seat, player=f"P{seat}", buy_in=100)).table
    loaded = ev.DeckLoaded(0, 0, 52, 52)  # a shoe that registers no deck
    table = apply(table, FromDevice(at=0, device=DeviceKind.SHOE, event=loaded)).table
    return apply(table, NewHand(at=0)).table


def worker_ready(nice: int = WORKER_NICE) -> None:
    """Start an odds worker: below the table's priority (``nice``), and warmed up (the
    first odds of a process build the evaluator's tables: about half a second) before any
    card."""
    with contextlib.suppress(OSError):
        os.nice(nice)
    table = hand_started(range(1, 9))
    for code in range(16):  # two hole cards to each of 8 seats
        read = ev.CardRead(0, code, 0, b"")
        table = apply(table, FromDevice(at=0, device=DeviceKind.SHOE, event=read)).table
    assert table.hand is not None
    hand_odds(table.hand, seed=0)


@dataclass(slots=True)
class Held:
    """A moment of the table waiting for its release: due at ``due`` (the service's
    monotonic clock), with its odds (a future, or None: no hand)."""

    update: Update
    due: float
    odds: asyncio.Future[OddsJson | None] | None


class StudioFeed:
    """The studio's delayed feed of ``service`` (see the module). Started on demand
    (:meth:`start`: when a studio token is issued or one holds at start), so that a table
    without a studio computes no odds."""

    def __init__(
        self,
        service: TableService,
        delay: float,
        *,
        workers: ProcessPoolExecutor | None = None,
        nice: int = WORKER_NICE,
        bonus_hold: float = 4.0,
        odds_while_dealing: bool = False,
    ) -> None:
        """``delay``: seconds; ``workers``: where the odds are computed (default: a process
        of its own, started with the feed, at ``nice``); ``bonus_hold``: the seconds a
        bonus-card moment stays on air; ``odds_while_dealing``: the odds shown while a
        street's cards are dealt too (``[studio]``, docs/operations.md)."""
        self.service = service
        self.delay = delay
        self.bonus_hold = bonus_hold
        self.odds_while_dealing = odds_while_dealing
        self._on_air: OnAir | None = None
        self.epoch = secrets.token_hex(4)
        self.seq = 0
        self.current: str = self._message(None, None)
        self.position = 0  # the journal position of the moment released last
        #: for the moments seen live whose odds were computed: (journal position, journaled
        #: time, the time the odds were known), seconds since the epoch
        self.timings: deque[tuple[int, float, float]] = deque(maxlen=10_000)
        self._workers = workers
        self._own_workers = workers is None
        self._nice = nice
        self._held: deque[Held] = deque()
        self._horizon = 0.0  # when the latest moment held so far was journaled (monotonic)
        self._last_key: tuple[Any, ...] | None = None
        self._last_odds: asyncio.Future[OddsJson | None] | None = None
        self._last_view: StudioViewJson | None = None
        self._arrived = asyncio.Event()
        self._changes = Changes()
        self._tasks: list[asyncio.Task[None]] = []
        self._started = False

    @property
    def started(self) -> bool:
        return self._started

    async def start(self) -> None:
        """Read back the last ``delay`` of the journal, then follow the table (idempotent)."""
        if self._started:
            return
        self._started = True
        if self._workers is None:
            context = multiprocessing.get_context("spawn")  # a process with threads: no fork
            self._workers = ProcessPoolExecutor(
                1, mp_context=context, initializer=worker_ready, initargs=(self._nice,)
            )
        updates = self.service.updates()  # first: nothing applied after the reading is lost
        try:
            recent = await self.service.recent(self.service.now() - self.delay)
        except BaseException:  # the table stopped: a later start reads again
            updates.close()
            self._started = False
            raise
        for update in (recent.before, *recent.updates):
            self._hold(update, live=False)
        last = recent.updates[-1].position if recent.updates else recent.before.position
        self._tasks.append(asyncio.create_task(self._follow(updates, last)))
        self._tasks.append(asyncio.create_task(self._release()))

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks.clear()
        if self._workers is not None and self._own_workers:
            await asyncio.to_thread(self._workers.shutdown, True, cancel_futures=True)
        self._changes.close()

    @property
    def closed(self) -> bool:
        return self._changes.closed

    async def _follow(self, updates: Subscription, last: int) -> None:
        try:
            async for update in updates:
                if update.position > last:
                    self._hold(update, live=True)
        finally:
            updates.close()

    def _hold(self, update: Update, *, live: bool) -> None:
        """Hold ``update`` until the delay has passed since it was journaled and every
        earlier one was (by the monotonic clock); start its odds now if its cards changed."""
        self._horizon = max(self._horizon, self.service.journaled(update))
        key = odds_key(update.table)
        if key is None:
            future = None
        elif key == self._last_key and self._last_odds is not None:
            future = self._last_odds
        else:
            future = self._odds(update, live)
        self._last_key, self._last_odds = key, future
        self._held.append(Held(update, self._horizon + self.delay, future))
        self._arrived.set()

    def _odds(self, update: Update, live: bool) -> asyncio.Future[OddsJson | None]:
        hand = update.table.hand
        assert hand is not None and self._workers is not None
        done: Future[OddsJson | None] = self._workers.submit(hand_odds, hand, update.position)
        future = asyncio.wrap_future(done)
        if live:
            future.add_done_callback(
                lambda _: self.timings.append((update.position, update.at, time.time()))
            )
        return future

    async def _release(self) -> None:
        """Release each held moment, in order, once due and its odds are known."""
        while True:
            if not self._held:
                self._arrived.clear()
                await self._arrived.wait()
                continue
            held = self._held[0]
            wait = held.due - self.service.monotonic()
            if wait > 0:
                await asyncio.sleep(min(wait, RECHECK_SECONDS))
                continue
            chances = None
            if held.odds is not None:
                try:
                    chances = await asyncio.shield(held.odds)
                except Exception as error:  # a worker that failed: the moment without odds
                    position = held.update.position
                    log.error("the studio's odds of position %d failed: %r", position, error)
            self._held.popleft()
            self._publish(held.update, chances)

    def _publish(self, update: Update, chances: OddsJson | None) -> None:
        self._on_air = on_air(
            self._on_air, update.table, update.effects, update.at, self.bonus_hold
        )
        table_view = studio_view(
            update.table, chances, self._on_air, odds_while_dealing=self.odds_while_dealing
        )
        self.position = update.position
        if table_view == self._last_view:
            return
        self._last_view = table_view
        self.seq += 1
        self.current = self._message(update, table_view)
        self._changes.changed()

    def _message(self, update: Update | None, table_view: StudioViewJson | None) -> str:
        message: StudioMessage = {
            "type": "studio",
            "epoch": self.epoch,
            "seq": self.seq,
            "delay": self.delay,
            "position": None if update is None else update.position,
            "at": None if update is None else update.at,
            "table": table_view,
        }
        return json.dumps(message)

    async def messages(self, still_valid: Callable[[], object]) -> AsyncIterator[str]:
        """The latest released message, then each new one, while ``still_valid()`` does not
        raise (checked before each message and every second while nothing comes)."""
        sent = -1
        while True:
            still_valid()
            changed = self._changes.next()
            if sent != self.seq:
                sent = self.seq
                yield self.current
                continue
            if self.closed:
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), RECHECK_SECONDS)
