"""The floor store's reading side: the pit's typed queries.

Each a query on a view or table of the schema (``migrations/``): :func:`tables` (every
table's live status), :func:`open_alerts`, :func:`hands_per_hour`, :func:`pot_sizes`,
:func:`bonus_cards`, :func:`player_sessions`, :func:`hands`, :func:`hand`,
:func:`recent_hands`, :func:`alerts`, :func:`supervisor_actions`, :func:`chip_movements`
(a page at a time), :func:`shared_tags` (tags in two tables' live decks), :func:`decks`,
:func:`entries`, :func:`confirmed_position`, :func:`lags`; for surveillance
:func:`seat_hands` (what the statistics read) and :func:`bookmarks` (alerts as video
bookmarks); the house's figures :func:`house_days` (per table and gaming day),
:func:`dealers` (per dealer and table over a gaming day) and :func:`cash_log` (identified
players' cash buy-ins over a threshold in a gaming day), a gaming day as the house sets it
(:class:`GamingDay`). Every query
names its columns: a newer schema (migrations only add) leaves this release's answers as
they were. Every function takes an open ``psycopg.Connection``.

The JSON columns (a table's seats and hand, a hand's script and outcome, a supervisor
action's details) are read back as stored, in the shapes of ``controller.floor.facts`` of
the release that shipped them (``LiveSeatJson``, ``HandJson``, ``ScriptJson``,
``OutcomeJson``, ``InputJson``), and the pit's API sends them on as any object: a store
holds what earlier releases shipped too.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import date, datetime
from typing import Any, TypeVar

import psycopg
from psycopg.rows import class_row

from controller.floor.surveillance import (
    BOOKMARKED,
    CARD_MOVED,
    UNVERIFIED_READ,
    Bookmark,
    SeatHand,
)
from controller.journal import Entry
from drivers.events import DeviceId
from drivers.protocol import DeviceKind


@dataclass(frozen=True, slots=True)
class TableOverview:
    """A table's live status as of its last confirmed position (view ``floor_table_overview``):
    ``state`` dealing, paused (``alert_*``: the first blocking alert) or idle; ``last_seen``
    the floor's clock at its last batch or heartbeat; ``silent`` when that was more than
    :data:`SILENT_AFTER` seconds ago by the floor's clock (what it shows may be stale)."""

    table_id: str
    name: str
    session: int
    state: str
    hand_number: int
    display: str
    alert_id: int | None
    alert_kind: str | None
    alert_message: str | None
    open_alerts: int
    seats: list[dict[str, Any]]
    last_position: int
    last_entry_at: datetime | None
    last_seen: datetime
    confirmed_position: int
    hand: dict[str, Any] | None  # the hand in progress (engine JSON, every card), if any
    tag_checks: bool | None  # every card's tag checked (None: shipped by an earlier release)
    deck_hands: int | None  # the deck in play: hands begun with it (None: no deck yet)
    deck_since: datetime | None  # when the deck's life began (on the floor's clock)
    shared_tags: int  # tags of its live deck that another table's live deck has too
    silent: bool  # not heard from (no batch, no heartbeat) for SILENT_AFTER s, by the floor's clock


@dataclass(frozen=True, slots=True)
class _AlertRaised:
    """What an alert said when it was raised, and where."""

    table_id: str
    session: int
    alert_id: int
    kind: str
    severity: str
    blocking: bool
    message: str
    remedy: str
    seat: int | None
    card: str | None
    device: str | None
    hand_number: int
    raised_at: datetime
    raised_position: int


@dataclass(frozen=True, slots=True)
class OpenAlert(_AlertRaised):
    """An alert open at a table (view ``floor_open_alerts``), with the table's name."""

    table_name: str


@dataclass(frozen=True, slots=True)
class Alert(_AlertRaised):
    """An alert of a table, open (``cleared_at`` None) or with its resolution."""

    cleared_at: datetime | None
    cleared_position: int | None
    resolution: str | None
    resolved_by: str | None
    resolved_why: str | None
    resolved_remedy: str | None


@dataclass(frozen=True, slots=True)
class HourlyHands:
    table_id: str
    hour: datetime
    hands: int
    void_hands: int
    chips_in_pots: int  # as awarded: net of the house's take
    bonus_cards: int
    rake: int
    jackpot_drop: int
    time_charge: int


@dataclass(frozen=True, slots=True)
class GamingDay:
    """When the house's gaming day begins: at hour ``starts`` (0-23) of ``time_zone`` (an
    IANA name). A gaming day is named by the date it begins on."""

    starts: int = 6
    time_zone: str = "UTC"


@dataclass(frozen=True, slots=True)
class HouseDay:
    """A table's gaming day: its hands ended, void hands, chips awarded in pots, the rake,
    the jackpot drop and the time charges (from the hourly totals), the hours it dealt in
    (clock hours in which a hand ended) and its rake per hour of those."""

    table_id: str
    gaming_day: date
    hands: int
    void_hands: int
    chips_in_pots: int
    rake: int
    jackpot_drop: int
    time_charge: int
    hours: int
    rake_per_hour: float


@dataclass(frozen=True, slots=True)
class DealerDay:
    """A dealer's hands at a table over a gaming day (``dealer`` None: hands whose journal
    names no dealer): the rake and drop taken, the dealer's time on them (seconds, see
    docs/floor.md) and hands per hour of that time (None without any time)."""

    dealer: str | None
    table_id: str
    gaming_day: date
    hands: int
    void_hands: int
    rake: int
    jackpot_drop: int
    time_charge: int
    seconds: float
    hands_per_hour: float | None


@dataclass(frozen=True, slots=True)
class CashTotal:
    """An identified player's cash buy-ins (buy-ins and rebuys) over a gaming day, over the
    house's threshold: for the multiple-transaction log."""

    player_id: str
    gaming_day: date
    chips: int
    transactions: int
    tables: list[str]
    first_at: datetime
    last_at: datetime


@dataclass(frozen=True, slots=True)
class PotSizes:
    """Pots of a table's finished hands (void hands left out)."""

    table_id: str
    hands: int
    total: int
    average: float
    largest: int
    median: float


@dataclass(frozen=True, slots=True)
class BonusCards:
    table_id: str
    hands: int
    bonus_cards: int
    hands_with_bonus: int


@dataclass(frozen=True, slots=True)
class PlayerSession:
    """A player's stay at a seat: buy-in, rebuys, cash-out (None while seated), hands dealt."""

    player: str
    table_id: str
    table_name: str
    session: int
    seat: int
    start_position: int
    sat_down_at: datetime
    left_at: datetime | None
    buy_in: int
    rebuys: int
    cashed_out: int | None
    hands: int
    player_id: str | None  # the player card's number given at sit-down, if any
    seconds_seated: float  # while seated: to the latest hand the floor holds of the table


@dataclass(frozen=True, slots=True)
class Hand:
    """A hand on the floor; ``script`` and ``outcome`` as ``luck-table history --json``
    gives them (while the hand is in progress: its script so far, and no outcome); ``pot``
    the chips awarded (net of the take), ``rake`` and ``jackpot_drop`` the house's take
    (None before the hand ends, where the rules set no take, and for hands shipped by
    earlier releases), ``time_charge`` the time charges collected as it began (None:
    none), ``dealer`` the dealer's id (None when the journal names none)."""

    table_id: str
    session: int
    number: int
    started_at: datetime
    ended_at: datetime | None
    seats: list[int]
    start_position: int
    end_position: int | None
    void: bool | None
    pot: int | None
    bonus_cards: int | None
    recorded: bool | None
    script: dict[str, Any] | None
    outcome: dict[str, Any] | None
    rake: int | None
    jackpot_drop: int | None
    time_charge: int | None  # the time charges collected as it began (None: none)
    dealer: str | None


@dataclass(frozen=True, slots=True)
class SharedTag:
    """A tag UID in the live decks of two tables (view ``floor_shared_tags``): on ``card``
    at ``table_id``, on ``other_card`` at ``other_table_id``."""

    uid: str
    table_id: str
    card: str
    other_table_id: str
    other_card: str


@dataclass(frozen=True, slots=True)
class Deck:
    """A deck a table registered (``tags``: the tag UID of each card, by name)."""

    table_id: str
    session: int
    position: int
    deck: int
    registered_at: datetime
    tags: dict[str, str]


@dataclass(frozen=True, slots=True)
class ChipMovement:
    table_id: str
    session: int
    position: int
    kind: str
    seat: int
    player: str
    chips: int
    at: datetime
    player_id: str | None


@dataclass(frozen=True, slots=True)
class SupervisorAction:
    table_id: str
    session: int
    position: int
    action: str
    who: str
    why: str
    message: str
    hand_number: int
    details: dict[str, Any]
    at: datetime


_Row = TypeVar("_Row")

#: Seconds without a batch or a heartbeat after which a table is silent (its shipper or its
#: network is down; the table itself may well be dealing).
SILENT_AFTER = 30.0


def _rows(
    connection: psycopg.Connection, kind: type[_Row], query: str, params: tuple[Any, ...]
) -> list[_Row]:
    with connection.cursor(row_factory=class_row(kind)) as cursor:
        cursor.execute(query.encode(), params)
        return cursor.fetchall()


def _columns(kind: type[Any], *computed: str) -> str:
    """The columns of ``kind``'s fields by name (never ``*``: a newer schema may add
    columns), but for those in ``computed``, which the query adds itself."""
    return ", ".join(spec.name for spec in fields(kind) if spec.name not in computed)


def _where(**filters: Any) -> tuple[str, tuple[Any, ...]]:
    """``WHERE a = %s AND ...`` for the filters that are not None."""
    given = {name: value for name, value in filters.items() if value is not None}
    if not given:
        return "", ()
    return " WHERE " + " AND ".join(f"{name} = %s" for name in given), tuple(given.values())


#: The table's current session (its latest journal), for ``session = coalesce(%s, ...)``.
_CURRENT = "(SELECT session FROM floor_tables WHERE table_id = %s)"


def _listed(
    connection: psycopg.Connection, kind: type[_Row], view: str, order: str, **filters: Any
) -> list[_Row]:
    """The rows of ``view`` whose columns equal the filters that are not None, by ``order``."""
    where, params = _where(**filters)
    query = f"SELECT {_columns(kind)} FROM {view}{where} ORDER BY {order}"
    return _rows(connection, kind, query, params)


def _latest(
    connection: psycopg.Connection,
    kind: type[_Row],
    view: str,
    order: str,
    *,
    table_id: str,
    session: int | None,
    limit: int,
) -> list[_Row]:
    """The first ``limit`` rows of ``view`` by ``order`` of a table's session (its current
    one when ``session`` is None)."""
    query = (
        f"SELECT {_columns(kind)} FROM {view} "
        f"WHERE table_id = %s AND session = coalesce(%s, {_CURRENT}) "
        f"ORDER BY {order} LIMIT %s"
    )
    return _rows(connection, kind, query, (table_id, session, table_id, limit))


def tables(
    connection: psycopg.Connection,
    table_id: str | None = None,
    silent_after: float = SILENT_AFTER,
    hand: bool = True,
) -> list[TableOverview]:
    """Every table's live status (or one table's): the paused ones first, then by table id;
    silent when not heard from for ``silent_after`` seconds by the floor's clock. Without
    ``hand`` the hand in progress is left out (None): not read at all (the floor view)."""
    where, params = _where(table_id=table_id)
    query = (
        f"SELECT {_columns(TableOverview, 'silent', 'hand')}, "
        f"{'hand' if hand else 'NULL::jsonb AS hand'}, "
        "now() - last_seen > make_interval(secs => %s) AS silent "
        f"FROM floor_table_overview{where} ORDER BY state <> 'paused', table_id"
    )
    return _rows(connection, TableOverview, query, (silent_after, *params))


def open_alerts(connection: psycopg.Connection, table_id: str | None = None) -> list[OpenAlert]:
    """The alerts open across the floor (or at one table), oldest first."""
    order = "raised_at, table_id, alert_id"
    return _listed(connection, OpenAlert, "floor_open_alerts", order, table_id=table_id)


def alerts(
    connection: psycopg.Connection, table_id: str, session: int | None = None, limit: int = 100
) -> list[Alert]:
    """A table's latest alerts (its current session's by default), newest first."""
    return _latest(
        connection,
        Alert,
        "floor_alerts",
        "alert_id DESC",
        table_id=table_id,
        session=session,
        limit=limit,
    )


def hands_per_hour(
    connection: psycopg.Connection, table_id: str | None = None, since: datetime | None = None
) -> list[HourlyHands]:
    """Hands finished per UTC hour per table (from ``since``'s hour), by table then hour:
    the totals the floor keeps as hands end (``floor_hands_hourly``, a row a table and
    hour), not the hands themselves."""
    conditions = ["hands > 0"]
    params: tuple[Any, ...] = ()
    if table_id is not None:
        conditions.append("table_id = %s")
        params += (table_id,)
    if since is not None:
        conditions.append("hour >= date_trunc('hour', %s::timestamptz, 'UTC')")
        params += (since,)
    query = (
        f"SELECT {_columns(HourlyHands)} FROM floor_hands_hourly "
        f"WHERE {' AND '.join(conditions)} ORDER BY table_id, hour"
    )
    return _rows(connection, HourlyHands, query, params)


#: The gaming day (a date) an hour or time ``{0}`` falls in: ``%s`` the house's time zone,
#: then the hour its day starts.
_GAMING_DAY = "(({0} AT TIME ZONE %s) - make_interval(hours => %s))::date"
#: Gaming day ``%s`` (a date; None: today's, by the database's clock), then the time zone
#: and the starting hour: :func:`_day_params`.
_DAY = "coalesce(%s, " + _GAMING_DAY.format("now()") + ")"


def _day_params(day: date | None, gaming: GamingDay) -> tuple[Any, ...]:
    """The parameters of ``_DAY``."""
    return (day, gaming.time_zone, gaming.starts)


def _begins(day: date | None, gaming: GamingDay, later: int = 0) -> tuple[str, tuple[Any, ...]]:
    """When gaming day ``day`` (``later`` days after it) begins, and the parameters."""
    local = f"(({_DAY} + {int(later)}) + make_interval(hours => %s))"
    return f"({local} AT TIME ZONE %s)", (
        *_day_params(day, gaming),
        gaming.starts,
        gaming.time_zone,
    )


def _between(
    column: str, first: date | None, last: date | None, gaming: GamingDay
) -> tuple[str, tuple[Any, ...]]:
    """``column`` within gaming days ``first`` to ``last`` (today's when None): the
    condition and its parameters (a range of the column: its index serves it)."""
    begins, begins_params = _begins(first, gaming)
    ends, ends_params = _begins(last, gaming, later=1)
    return f"{column} >= {begins} AND {column} < {ends}", (*begins_params, *ends_params)


def house_days(
    connection: psycopg.Connection,
    gaming: GamingDay,
    since: date | None = None,
    until: date | None = None,
    table_id: str | None = None,
) -> list[HouseDay]:
    """Each table's gaming days from ``since`` to ``until`` (both included; None: today's,
    by the database's clock): hands, void hands, chips in pots, rake, drop, hours dealt and
    rake per hour, by table then day (from the hourly totals: in a zone whose offset is not
    whole hours, each UTC hour goes whole into the day its start falls in)."""
    condition, params = _between("hour", since, until, gaming)
    if table_id is not None:
        condition, params = f"{condition} AND table_id = %s", (*params, table_id)
    day = _GAMING_DAY.format("hour")
    query = (
        f"SELECT table_id, {day} AS gaming_day, sum(hands)::integer AS hands, "
        "sum(void_hands)::integer AS void_hands, sum(chips_in_pots)::bigint AS chips_in_pots, "
        "sum(rake)::bigint AS rake, sum(jackpot_drop)::bigint AS jackpot_drop, "
        "sum(time_charge)::bigint AS time_charge, count(*)::integer AS hours, "
        "(sum(rake) / count(*))::double precision AS rake_per_hour "
        f"FROM floor_hands_hourly WHERE {condition} AND hands > 0 GROUP BY 1, 2 ORDER BY 1, 2"
    )
    return _rows(connection, HouseDay, query, (gaming.time_zone, gaming.starts, *params))


def dealers(
    connection: psycopg.Connection,
    gaming: GamingDay,
    day: date | None = None,
    table_id: str | None = None,
    dealer: str | None = None,
) -> list[DealerDay]:
    """Each dealer's hands at each table over gaming day ``day`` (today's by default), by
    dealer then table: a dealer's or a table's alone when given (from the hourly totals)."""
    condition, params = _between("hour", day, day, gaming)
    if table_id is not None:
        condition, params = f"{condition} AND table_id = %s", (*params, table_id)
    if dealer is not None:
        condition, params = f"{condition} AND dealer = %s", (*params, dealer)
    query = (
        f"SELECT nullif(dealer, '') AS dealer, table_id, {_DAY} AS gaming_day, "
        "sum(hands)::integer AS hands, sum(void_hands)::integer AS void_hands, "
        "sum(rake)::bigint AS rake, sum(jackpot_drop)::bigint AS jackpot_drop, "
        "sum(time_charge)::bigint AS time_charge, "
        "extract(epoch FROM sum(dealt))::double precision AS seconds, "
        "(sum(hands) * 3600 / nullif(extract(epoch FROM sum(dealt)), 0))::double precision "
        f"AS hands_per_hour FROM floor_dealer_hourly WHERE {condition} "
        "GROUP BY dealer, table_id ORDER BY dealer, table_id"
    )
    return _rows(connection, DealerDay, query, (*_day_params(day, gaming), *params))


def cash_log(
    connection: psycopg.Connection, gaming: GamingDay, threshold: int, day: date | None = None
) -> list[CashTotal]:
    """The identified players whose cash buy-ins (buy-ins and rebuys, every table) over
    gaming day ``day`` (today's by default) total more than ``threshold`` chips, the
    largest first."""
    condition, params = _between("at", day, day, gaming)
    query = (
        f"SELECT player_id, {_DAY} AS gaming_day, sum(chips)::bigint AS chips, "
        "count(*)::integer AS transactions, array_agg(DISTINCT table_id ORDER BY table_id) "
        "AS tables, min(at) AS first_at, max(at) AS last_at FROM floor_chip_movements "
        f"WHERE player_id IS NOT NULL AND kind IN ('buy_in', 'rebuy') AND {condition} "
        "GROUP BY player_id HAVING sum(chips) > %s ORDER BY chips DESC, player_id"
    )
    params = (*_day_params(day, gaming), *params, threshold)
    return _rows(connection, CashTotal, query, params)


def pot_sizes(connection: psycopg.Connection, table_id: str | None = None) -> list[PotSizes]:
    """Each table's pots: count, total, average, largest, median."""
    return _listed(connection, PotSizes, "floor_pot_sizes", "table_id", table_id=table_id)


def bonus_cards(connection: psycopg.Connection, table_id: str | None = None) -> list[BonusCards]:
    """Each table's bonus cards dealt, and in how many hands."""
    return _listed(connection, BonusCards, "floor_bonus_cards", "table_id", table_id=table_id)


def player_sessions(
    connection: psycopg.Connection,
    player: str | None = None,
    table_id: str | None = None,
    seat: int | None = None,
) -> list[PlayerSession]:
    """Players' stays at seats (a player's, a table's, a seat's), in the order they sat down."""
    order = "sat_down_at, table_id, seat"
    view = "floor_player_sessions"
    return _listed(
        connection, PlayerSession, view, order, player=player, table_id=table_id, seat=seat
    )


_HAND = (
    "SELECT table_id, session, number, started_at, ended_at, seats, start_position, "
    "end_position, void, pot, bonus_cards, recorded, script, outcome, rake, jackpot_drop, "
    "time_charge, dealer FROM floor_hands "
)


def hands(
    connection: psycopg.Connection,
    table_id: str,
    session: int | None = None,
    after: int = 0,
    limit: int | None = None,
) -> list[Hand]:
    """A table's hands numbered after ``after`` (its current session's by default), in order."""
    query = (
        f"{_HAND}WHERE table_id = %s AND session = coalesce(%s, {_CURRENT}) "
        "AND number > %s ORDER BY number LIMIT %s"
    )
    return _rows(connection, Hand, query, (table_id, session, table_id, after, limit))


def hand(
    connection: psycopg.Connection, table_id: str, number: int, session: int | None = None
) -> Hand | None:
    """Hand ``number`` of a table (its current session's by default), or None."""
    found = hands(connection, table_id, session, after=number - 1, limit=1)
    return found[0] if found and found[0].number == number else None


def recent_hands(
    connection: psycopg.Connection, table_id: str, session: int | None = None, limit: int = 10
) -> list[Hand]:
    """A table's last ``limit`` finished hands (its current session's by default), newest
    first: the hand in progress is not one of them."""
    query = (
        f"{_HAND}WHERE table_id = %s AND session = coalesce(%s, {_CURRENT}) "
        "AND ended_at IS NOT NULL ORDER BY number DESC LIMIT %s"
    )
    return _rows(connection, Hand, query, (table_id, session, table_id, limit))


def chip_movements(
    connection: psycopg.Connection,
    table_id: str,
    session: int | None = None,
    before: int | None = None,
    limit: int | None = None,
) -> list[ChipMovement]:
    """A table's buy-ins, rebuys and cash-outs (its current session's by default), in
    journal order: the last ``limit`` of them (all by default) before journal position
    ``before`` (the end by default), with every other movement of the first one's position
    (a page never splits a position: the page before is the one before its first
    position)."""
    table = (
        f"FROM floor_chip_movements WHERE table_id = %s AND session = coalesce(%s, {_CURRENT}) "
        "AND position < coalesce(%s, 9223372036854775807)"
    )
    query = (
        f"SELECT table_id, session, position, kind, seat, player, chips, at, player_id {table} "
        f"AND position >= (SELECT min(position) FROM (SELECT position {table} "
        "ORDER BY position DESC, ordinal DESC LIMIT %s) AS page) ORDER BY position, ordinal"
    )
    key = (table_id, session, table_id, before)
    return _rows(connection, ChipMovement, query, (*key, *key, limit))


def supervisor_actions(
    connection: psycopg.Connection,
    table_id: str | None = None,
    limit: int = 100,
    session: int | None = None,
) -> list[SupervisorAction]:
    """The latest supervisor actions, newest first: across the floor, or at one table (its
    current session's by default, as every query of one table)."""
    params: tuple[Any, ...]
    if table_id is None:
        if session is not None:
            raise ValueError("a session is a table's: give the table id too")
        where, params = "", ()
    else:
        where = f" WHERE table_id = %s AND session = coalesce(%s, {_CURRENT})"
        params = (table_id, session, table_id)
    query = (
        f"SELECT {_columns(SupervisorAction)} FROM floor_supervisor_actions{where} "
        "ORDER BY at DESC, position DESC, ordinal DESC LIMIT %s"
    )
    return _rows(connection, SupervisorAction, query, (*params, limit))


def shared_tags(connection: psycopg.Connection, table_id: str | None = None) -> list[SharedTag]:
    """The tags in the live decks of two tables (those of one table's live deck), by tag."""
    order = "uid, table_id, other_table_id"
    return _listed(connection, SharedTag, "floor_shared_tags", order, table_id=table_id)


def decks(
    connection: psycopg.Connection, table_id: str, session: int | None = None, limit: int = 20
) -> list[Deck]:
    """The decks a table registered (its current session's by default), newest first."""
    return _latest(
        connection,
        Deck,
        "floor_decks",
        "position DESC",
        table_id=table_id,
        session=session,
        limit=limit,
    )


def confirmed_position(
    connection: psycopg.Connection, table_id: str, session: int | None = None
) -> int:
    """The last journal position the floor holds of a table (its current session by
    default); 0 when it holds none."""
    row = connection.execute(
        "SELECT confirmed_position FROM floor_table_sessions "
        f"WHERE table_id = %s AND session = coalesce(%s, {_CURRENT})".encode(),
        (table_id, session, table_id),
    ).fetchone()
    return 0 if row is None else int(row[0])


def lags(
    connection: psycopg.Connection, table_id: str, session: int | None = None, after: int = 0
) -> list[float]:
    """Seconds from each entry's time at the table (``recorded_at``, the table's clock) to
    the floor's commit of it (``ingested_at``), after position ``after``, in order."""
    rows = connection.execute(
        "SELECT extract(epoch FROM ingested_at)::double precision - recorded_at "
        "FROM floor_journal_entries WHERE table_id = %s AND session = "
        f"coalesce(%s, {_CURRENT}) AND position > %s ORDER BY position".encode(),
        (table_id, session, table_id, after),
    ).fetchall()
    return [row[0] for row in rows]


def entries(
    connection: psycopg.Connection,
    table_id: str,
    session: int | None = None,
    after: int = 0,
    limit: int | None = None,
) -> list[Entry]:
    """A table's journal entries after position ``after``, as its journal holds them."""
    rows = connection.execute(
        "SELECT position, recorded_at, source, type, fields, device_kind, serial, boot_id, seq, "
        "event_number, chain FROM floor_journal_entries WHERE table_id = %s AND session = "
        f"coalesce(%s, {_CURRENT}) AND position > %s ORDER BY position LIMIT %s".encode(),
        (table_id, session, table_id, after, limit),
    ).fetchall()
    return [
        Entry(
            position,
            recorded_at,
            source,
            kind,
            fields,
            None if serial is None else DeviceId(DeviceKind(device_kind), serial, boot_id),
            seq,
            number,
            chain,
        )
        for (
            position,
            recorded_at,
            source,
            kind,
            fields,
            device_kind,
            serial,
            boot_id,
            seq,
            number,
            chain,
        ) in rows
    ]


# Surveillance ----------------------------------------------------------------------------

#: The most finished hands the statistics read at once (the latest, across the floor).
SURVEILLANCE_HANDS = 10_000


def _hand_dealer(connection: psycopg.Connection) -> str:
    """The hands' dealer column where the floor holds one (version 10 names each hand's
    dealer), else NULL: the statistics group by dealer only where a hand names one."""
    row = connection.execute(
        b"SELECT 1 FROM pg_attribute WHERE attrelid = 'floor_hands'::regclass "
        b"AND attname = 'dealer' AND NOT attisdropped"
    ).fetchone()
    return "h.dealer" if row is not None else "NULL::text"


def _window(
    table_id: str | None, since: datetime | None, until: datetime | None, at: str
) -> tuple[str, tuple[Any, ...]]:
    """``AND ...`` for a table and a time window (``since`` included, ``until`` not) on
    the time column ``at``."""
    conditions = ""
    params: tuple[Any, ...] = ()
    for condition, value in (
        ("table_id = %s", table_id),
        (f"{at} >= %s", since),
        (f"{at} < %s", until),
    ):
        if value is not None:
            conditions += f" AND {condition}"
            params += (value,)
    return conditions, params


def seat_hands(
    connection: psycopg.Connection,
    table_id: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: int = SURVEILLANCE_HANDS,
) -> list[SeatHand]:
    """Each seat's part in the finished hands the statistics read (``limit`` at most, the
    latest that ended in ``[since, until)``, at one table or across the floor; void hands
    left out), in the order the hands ended: its player then, the hand's dealer, what it
    was dealt face up and down, its share of the main pot, and the unverified reads and
    moved cards raised at it in that hand (``controller.floor.surveillance``). The player
    is the one stay at the seat when the hand began; a stay moved to another seat keeps
    only its new seat on the floor, so where two stays could have been at a seat (one
    moved there later), the hand names no player rather than perhaps the wrong one."""
    window, params = _window(table_id, since, until, "ended_at")
    alert_kinds = (UNVERIFIED_READ, CARD_MOVED)
    query = f"""
        WITH hands AS (
            SELECT table_id, session, number, ended_at, start_position, outcome,
                   outcome->'pots'->0->'winners' AS winners,
                   (SELECT count(*) FROM jsonb_object_keys(outcome->'seats'))::integer AS players,
                   coalesce(script->'rules'->>'variant', '') <> 'seven-card-stud' AS wild,
                   {_hand_dealer(connection)} AS dealer
            FROM floor_hands h
            WHERE ended_at IS NOT NULL AND NOT void{window}
            ORDER BY ended_at DESC, table_id, number DESC LIMIT %s
        ), counted AS (
            SELECT table_id, session, hand_number, seat,
                   count(*) FILTER (WHERE kind = %s)::integer AS unverified_reads,
                   count(*) FILTER (WHERE kind = %s)::integer AS moved_cards
            FROM floor_alerts
            WHERE kind IN (%s, %s) AND seat IS NOT NULL
            GROUP BY table_id, session, hand_number, seat
        )
        SELECT h.table_id, h.number, s.key::integer AS seat, p.player, h.dealer, h.players,
               h.wild, k.cards, k.up_cards, k.fours_up, k.bonus_cards, k.wilds,
               CASE WHEN h.winners @> to_jsonb(s.key::integer)
                    THEN 1.0 / jsonb_array_length(h.winners)
                    ELSE 0 END::double precision AS won,
               coalesce(a.unverified_reads, 0) AS unverified_reads,
               coalesce(a.moved_cards, 0) AS moved_cards
        FROM hands h
        CROSS JOIN LATERAL jsonb_each(h.outcome->'seats') s
        CROSS JOIN LATERAL (
            SELECT count(*)::integer AS cards,
                   count(*) FILTER (WHERE c->>'face' = 'up')::integer AS up_cards,
                   count(*) FILTER (WHERE c->>'face' = 'up' AND c->>'card' = '4c')::integer
                       AS fours_up,
                   count(*) FILTER (WHERE c->>'bonus' = 'true')::integer
                       AS bonus_cards,
                   count(*) FILTER (WHERE left(c->>'card', 1) = '4')::integer AS wilds
            FROM jsonb_array_elements(s.value->'cards') c
        ) k
        LEFT JOIN LATERAL (  -- one stay at the seat then, or no player
            SELECT min(player) AS player FROM floor_seat_sessions p
            WHERE p.table_id = h.table_id AND p.session = h.session
              AND p.seat = s.key::integer AND p.start_position < h.start_position
              AND (p.end_position IS NULL OR p.end_position > h.start_position)
            HAVING count(*) = 1
        ) p ON true
        LEFT JOIN counted a ON a.table_id = h.table_id AND a.session = h.session
            AND a.hand_number = h.number AND a.seat = s.key::integer
        ORDER BY h.ended_at, h.table_id, h.number, seat
    """
    params = (*params, limit, *alert_kinds, *alert_kinds)
    # Its estimate (a hundred rows from each JSON function) buys a JIT compilation that
    # costs several times the query itself: not for this one.
    with connection.transaction():
        connection.execute(b"SET LOCAL jit = off")
        return _rows(connection, SeatHand, query, params)


def bookmarks(
    connection: psycopg.Connection,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    table_id: str | None = None,
    kinds: frozenset[str] | None = BOOKMARKED,
    limit: int = 10_000,
) -> list[Bookmark]:
    """The alerts raised in ``[since, until)`` (at one table or across the floor) of
    ``kinds`` (the protection and security alerts by default; None: every alert), the
    first ``limit`` in time order."""
    window, params = _window(table_id, since, until, "a.raised_at")
    window = window.replace("AND table_id", "AND a.table_id")
    if kinds is not None:
        window += " AND a.kind = ANY(%s)"
        params += (sorted(kinds),)
    query = (
        "SELECT a.table_id, t.name AS table_name, a.session, a.alert_id, "
        "(extract(epoch FROM a.raised_at) * 1000)::bigint AS at, "
        """to_char(a.raised_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS time, """
        "a.seat, a.kind, a.hand_number, a.card, a.message "
        f"FROM floor_alerts a JOIN floor_tables t USING (table_id) WHERE true{window} "
        "ORDER BY a.raised_at, a.table_id, a.session, a.alert_id LIMIT %s"
    )
    return _rows(connection, Bookmark, query, (*params, limit))
