"""What a table ships to the floor: a batch of journal entries and the facts derived from them.

A :class:`Batch` holds consecutive journal entries of one table's journal (positions
``first`` to ``last``), the facts their inputs gave through the table core, in order, each
with the position of the entry that gave it (a batch that ends in a hand also gives that
hand's script so far, at its last entry), and the table's status after the last one.
The floor applies a batch in one transaction (``controller.floor.store.ingest``). Facts are
plain immutable values: this module does no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from controller.history.script import OutcomeJson, ScriptJson
from controller.journal import Entry
from controller.rules.hand import HandJson
from controller.table.alerts import AlertRecordJson
from controller.table.inputs import InputJson
from controller.table.state import SeatedJson


@dataclass(frozen=True, slots=True)
class HandStarted:
    position: int
    number: int
    at: int  # ms since the Unix epoch (the table's clock)
    seats: tuple[int, ...]
    dealer: str | None = None  # the dealer who deals it (None: the table names none)
    time_charge: int = 0  # the time charges the table collected as the hand began


@dataclass(frozen=True, slots=True)
class HandEnded:
    """A hand over (or void): its script and outcome as ``luck-table history --json``
    gives them, the chips in its pots, the bonus cards dealt, its dealer."""

    position: int
    number: int
    at: int
    void: bool
    pot: int
    bonus_cards: int
    recorded: bool
    script: ScriptJson
    outcome: OutcomeJson
    dealer: str | None = None  # the dealer who dealt it (None: the table named none)
    rake: int | None = None
    jackpot_drop: int | None = None


@dataclass(frozen=True, slots=True)
class HandInProgress:
    """The hand in progress after a batch's last entry (``position``): its script so far,
    as ``luck-table history --json`` gives the journal's hand in progress."""

    position: int
    number: int
    script: ScriptJson


@dataclass(frozen=True, slots=True)
class AlertRaised:
    position: int
    hand_number: int
    alert: AlertRecordJson


@dataclass(frozen=True, slots=True)
class AlertCleared:
    """An alert closed: how (in words) and, when a supervisor resolved it, who, why and
    the remedy."""

    position: int
    alert_id: int
    at: int
    how: str
    who: str | None = None
    why: str | None = None
    remedy: str | None = None


@dataclass(frozen=True, slots=True)
class DeckRegistered:
    """The table accepted the deck its shoe registered: ``deck`` (the shoe's id), when
    (``at``, the table's clock), and its ``tags``, the tag UID of each card by name."""

    position: int
    deck: int
    at: int
    tags: dict[str, str]


class Movement(StrEnum):
    """What moved chips onto or off the table (``floor_chip_movements.kind``)."""

    BUY_IN = "buy_in"  # sitting down
    REBUY = "rebuy"
    CASH_OUT = "cash_out"  # leaving


@dataclass(frozen=True, slots=True)
class ChipMovement:
    """A buy-in (sitting down), a rebuy or a cash-out (leaving); ``player_id``: the
    player card's number given at sit-down, if any."""

    position: int
    kind: Movement
    seat: int
    player: str
    chips: int
    at: int
    player_id: str | None = None


@dataclass(frozen=True, slots=True)
class SeatChanged:
    """The player at ``seat`` moved to ``to`` with the stack: the same stay at the table,
    at another seat."""

    position: int
    seat: int
    to: int


@dataclass(frozen=True, slots=True)
class SupervisorAction:
    position: int
    action: str  # the input's type: void_hand, resolve_alert, enter_card, ...
    who: str
    why: str
    message: str
    hand_number: int
    details: InputJson  # the action's record
    at: int


Fact = (
    HandStarted
    | HandEnded
    | HandInProgress
    | AlertRaised
    | AlertCleared
    | DeckRegistered
    | ChipMovement
    | SeatChanged
    | SupervisorAction
)


class LiveSeatJson(SeatedJson):
    """A seat in the table's live status: the seated player as the table keeps it, with
    the stack it has now (in a hand: the hand's) and whether it is dealt in."""

    in_hand: bool


@dataclass(frozen=True, slots=True)
class Status:
    """The table as of the batch's last entry: ``state`` is dealing, paused (with the first
    blocking alert) or idle."""

    state: str
    hand_number: int
    display: str
    alert_id: int | None
    alert_kind: str | None
    alert_message: str | None
    open_alerts: int
    seats: tuple[LiveSeatJson, ...]
    last_entry_at: int | None  # ms since the Unix epoch (the table's clock)
    hand: HandJson | None = None  # the hand in progress, if any
    tag_checks: bool = False  # every card's tag is checked (docs/game-protection.md)
    deck_hands: int | None = None  # the deck in play: hands begun with it (None: no deck)
    deck_since: int | None = None  # ms since the Unix epoch: when its life began


@dataclass(frozen=True, slots=True)
class Journal:
    """Which journal the entries are from: the table it is shipped as, and its identity
    (``journal_id``, made with the journal; ``created``, its creation time, which named a
    journal on the floors of earlier releases)."""

    table_id: str
    table_name: str
    created: float
    path: str
    journal_id: str


@dataclass(frozen=True, slots=True)
class Batch:
    """Entries of a journal with their facts and the table's status after them.

    ``sent_at`` (ms since the Unix epoch) is the table's wall clock as the shipper sent the
    batch, and ``steps_after`` (ms) how far that clock has stepped since the batch's last
    entry was journaled (the ``clock_stepped`` entries journaled after it, and a step the
    shipper saw that the journal does not hold yet): with the ``clock_stepped`` entries of
    the batch itself, they tell the floor on which clock each entry was stamped, so that
    it puts the facts' times on its own clock (``controller.floor.ingest``). None: the
    times are stored as the table stamped them (a batch made by hand, a test's)."""

    journal: Journal
    entries: tuple[Entry, ...]
    facts: tuple[Fact, ...]
    status: Status
    shipper: str = ""  # who ships it: host and process
    sent_at: int | None = None
    steps_after: int = 0

    @property
    def first(self) -> int:
        return self.entries[0].position

    @property
    def last(self) -> int:
        return self.entries[-1].position
