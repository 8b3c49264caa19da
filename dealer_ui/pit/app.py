"""The floor service's REST API, its live feed and the pit page (docs/floor.md).

Every endpoint but ``/api/health`` and the sign-in needs a supervisor's session
(``POST /api/sessions`` with a supervisor's id and PIN from the floor's own configuration,
then ``Authorization: Bearer TOKEN``; on the WebSocket ``/ws``, ``?token=TOKEN``), checked
by the console's ``dealer_ui.auth.Auth``. Each request reads the store on a connection
taken from the service's pool (``def`` endpoints, in the thread pool; ``floor.pool_size``
at once), each checked as it is taken, so that a PostgreSQL restart costs only the
requests made while it was down: those answer 503 ``{"error": "unavailable", "reason":
"floor database unreachable: ...", "code": "floor_unreachable"}``.
Every query has a statement timeout (``floor.statement_timeout``): a lock held on the store
answers 503 ``floor_busy`` within seconds rather than a request that hangs.
Bad input answers 4xx with ``{"error", "reason", "code"}``: 401/403/429 for sign-in and sessions,
404 for a table or hand the floor does not hold, 422 naming the bad parameter (a NUL byte,
which PostgreSQL cannot hold, included).
"""

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, get_type_hints

import psycopg
from fastapi import APIRouter, Depends, FastAPI, Header, Query, WebSocket
from fastapi import Path as PathParam
from fastapi.requests import HTTPConnection
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles
from psycopg_pool import ConnectionPool
from pydantic import AfterValidator, BaseModel, Field, create_model

from controller.floor import store, surveillance
from controller.floor.migrate import schema_problem
from dealer_ui.auth import Auth, AuthError, Denied, Session
from dealer_ui.codes import Declined
from dealer_ui.pit.config import FloorConfig
from dealer_ui.pit.live import (
    UNAVAILABLE,
    FloorFeed,
    floor_message,
    floor_now,
    pool,
    unreachable,
)
from dealer_ui.pit.tables import TableLinks
from dealer_ui.web import (
    ApiError,
    SignIn,
    auth_of,
    bearer_session,
    new_app,
    send_until_closed,
    sessions_router,
    socket_session,
)

STATIC = Path(__file__).parent / "static"
RECENT_HANDS = 10
CHIP_MOVEMENTS = 50
RECENT_DECKS = 10

#: The statuses the floor service's operations answer with ``{"error", "reason"}``.
ERRORS = (401, 403, 404, 409, 422, 423, 429, 503)


def no_nul(value: str) -> str:
    """``value`` if it holds no NUL byte (PostgreSQL's text cannot): ValueError if not."""
    if "\x00" in value:
        raise ValueError("a NUL byte is not allowed")
    return value


#: Text from the request, for a query of the store.
Text = AfterValidator(no_nul)
TableId = Annotated[str, PathParam(min_length=1, max_length=64, description="the table's id"), Text]
TableFilter = Annotated[str | None, Query(max_length=64, description="one table's id"), Text]
SessionNumber = Annotated[
    int | None,
    Query(ge=1, description="the table's session (journal); default: its current one"),
]
#: How many rows a page of a list holds at the most.
Limit = Annotated[int, Query(ge=1, le=1000)]


class SupervisorSignIn(SignIn):
    role: Literal["surveillance"] = "surveillance"


class Health(BaseModel):
    database: Literal["ok"]


_FLOOR_TABLE_FIELDS: dict[str, Any] = {
    name: (hint, ...)
    for name, hint in get_type_hints(store.TableOverview).items()
    if name != "hand"
}
FloorTable = create_model("FloorTable", **_FLOOR_TABLE_FIELDS)  # live status, no hand


class Floor(BaseModel):
    """The floor now: what the live feed sends."""

    type: Literal["floor"]
    ok: bool
    now: datetime = Field(description="the floor database's clock")
    tables: list[FloorTable] = Field(  # type: ignore[valid-type]  # a model made at run time (create_model)
        description="every table's live status, without the hand in progress"
    )
    open_alerts: list[store.OpenAlert]


class House(BaseModel):
    """The house's figures over a gaming day (docs/floor.md "The house's figures")."""

    gaming_day_starts: int = Field(description="the hour the house's gaming day begins")
    time_zone: str = Field(description="the house's time zone (IANA)")
    cash_log_threshold: int = Field(description="cash buy-ins over this are flagged")
    tables: list[store.HouseDay] = Field(description="each table's day: hands, rake, drop")
    dealers: list[store.DealerDay] = Field(description="each dealer's day at each table")
    cash_log: list[store.CashTotal] = Field(
        description="identified players whose cash buy-ins that day are over the threshold"
    )


class TableDetail(BaseModel):
    """A table's surveillance view as the floor knows it (as of its last batch: stale when
    ``table.silent``)."""

    table: store.TableOverview
    console: str | None = Field(description="the table's own surveillance page, if known")
    current_hand: store.Hand | None = Field(description="the hand being dealt, if any")
    recent_hands: list[store.Hand] = Field(description="the last hands, newest first")
    alerts: list[store.Alert] = Field(description="the latest alerts, newest first")
    supervisor_actions: list[store.SupervisorAction]
    shared_tags: list[store.SharedTag] = Field(
        description="tags of its live deck that another table's live deck has too"
    )
    decks: list[store.Deck] = Field(description="the decks it registered, newest first")
    chip_movements: list[store.ChipMovement] = Field(
        description=f"the last {CHIP_MOVEMENTS} buy-ins, rebuys and cash-outs, in order (the "
        "ones before: /api/tables/{table_id}/chip-movements?before=POSITION)"
    )


class Surveillance(BaseModel):
    """Each seat, player, dealer and dealer at a seat against honest play over the latest
    finished hands (docs/game-protection.md): a CUSUM per measure, flagged at
    ``threshold``."""

    hands: int = Field(description="the finished hands read (void hands left out)")
    ratio: float = Field(description="the rate ratio each chart is tuned to find")
    threshold: float = Field(description="the CUSUM's threshold h")
    false_alarm_per_hand: float = Field(
        description="a chart's chance of a false alarm in one hand, at most (e^-h)"
    )
    flagged: int = Field(description="how many charts reached the threshold")
    charts: list[surveillance.Chart] = Field(
        description="every chart, flagged first, then by how near the threshold each came"
    )


def utc(at: datetime | None) -> datetime | None:
    """A time from the request, UTC when it names no zone (a video system's times are)."""
    return at if at is None or at.tzinfo is not None else at.replace(tzinfo=UTC)


_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class FloorApp:
    """What the floor service's routes work with: its configuration and the store's
    connections (``readers``)."""

    config: FloorConfig
    readers: ConnectionPool[psycopg.Connection]

    @contextlib.contextmanager
    def database(self) -> Iterator[psycopg.Connection]:
        """A connection of the pool for this request (503 when the store is unreachable)."""
        try:
            with self.readers.connection() as connection:
                yield connection
        except psycopg.Error as error:
            code, reason = unreachable(error)
            raise ApiError(503, "unavailable", reason, code) from None

    def read(self, query: Callable[[psycopg.Connection], _T]) -> _T:
        with self.database() as connection:
            return query(connection)

    def read_table(self, table_id: str, query: Callable[[psycopg.Connection], _T]) -> _T:
        """``query``'s answer about the table ``table_id``; 404 if the floor does not know it."""
        with self.database() as connection:
            self.known(connection, table_id)
            return query(connection)

    def known(self, connection: psycopg.Connection, table_id: str) -> store.TableOverview:
        """The table ``table_id`` as the floor knows it; 404 if it does not."""
        found = store.tables(connection, table_id, self.config.silent_after)
        if not found:
            reason = f"no table {table_id!r} on the floor"
            raise ApiError(404, "not_found", reason, Declined.UNKNOWN_TABLE)
        return found[0]


# Dependencies ----------------------------------------------------------------------------


async def floor_of(connection: HTTPConnection) -> FloorApp:
    """The app's floor (a dependency)."""
    floor: FloorApp = connection.app.state.floor
    return floor


TheFloor = Annotated[FloorApp, Depends(floor_of)]


async def supervisor(
    auth: Annotated[Auth, Depends(auth_of)], authorization: Annotated[str | None, Header()] = None
) -> Session:
    """A supervisor's session: 401 without one."""
    session = bearer_session(authorization, auth.session)
    if session is None:
        reason = "a supervisor's session is needed: sign in"
        raise ApiError(401, "unauthorized", reason, Denied.SESSION_NEEDED)
    return session


Signed = Annotated[Session, Depends(supervisor)]


# The routes ------------------------------------------------------------------------------

sign_in = sessions_router(
    SupervisorSignIn, "Sign in with a supervisor's id and PIN (the floor's own credentials)."
)
floor_router = APIRouter(prefix="/api", tags=["floor"])


@floor_router.get("/health", response_model=Health)
def health(floor: TheFloor) -> Health:
    """200 when the floor database answers with a schema this release reads, 503 with
    the reason when not."""
    problem = floor.read(schema_problem)
    if problem is not None:
        raise ApiError(503, "unavailable", f"{UNAVAILABLE}: {problem}", Declined.FLOOR_SCHEMA)
    return Health(database="ok")


@floor_router.get("/floor", response_model=Floor, name="floor")
def floor_now_route(floor: TheFloor, _: Signed) -> Response:
    """Every table's live status and the open alerts (what the live feed sends)."""
    silent_after = floor.config.silent_after
    now, content = floor.read(lambda connection: floor_now(connection, silent_after))
    return Response(floor_message(now, content), media_type="application/json")


@floor_router.get("/tables", response_model=list[store.TableOverview])
def tables(floor: TheFloor, _: Signed) -> list[store.TableOverview]:
    """Every table's live status: dealing, paused (with its first blocking alert) or
    idle, its seats and stacks, its last journal position on the floor."""
    silent_after = floor.config.silent_after
    return floor.read(lambda connection: store.tables(connection, None, silent_after))


@floor_router.get("/alerts/open", response_model=list[store.OpenAlert])
def open_alerts(floor: TheFloor, _: Signed, table_id: TableFilter = None) -> list[store.OpenAlert]:
    """The alerts open across the floor (or at one table), oldest first."""
    return floor.read(lambda connection: store.open_alerts(connection, table_id))


@floor_router.get("/tags/shared", response_model=list[store.SharedTag])
def shared_tags(floor: TheFloor, _: Signed) -> list[store.SharedTag]:
    """The tag UIDs in the live decks of two tables (each pair both ways): a card of one
    table's deck in another's, or a cloned tag (docs/game-protection.md)."""
    return floor.read(store.shared_tags)


table_router = APIRouter(prefix="/api/tables/{table_id}", tags=["table"])


@table_router.get("", response_model=TableDetail)
def table(table_id: TableId, floor: TheFloor, _: Signed) -> TableDetail:
    """A table's surveillance view as the floor knows it: status and seats, the hand
    being dealt, the last hands with their scripts, alerts with their resolution,
    supervisor actions, buy-ins and cash-outs."""
    with floor.database() as connection:
        overview = floor.known(connection, table_id)
        session = overview.session  # the status's journal: every part of the view is its
        current = store.hand(connection, table_id, overview.hand_number, session)
        return TableDetail(
            table=overview,
            console=floor.config.consoles.get(table_id),
            current_hand=current if current is not None and current.ended_at is None else None,
            recent_hands=store.recent_hands(connection, table_id, session, RECENT_HANDS),
            alerts=store.alerts(connection, table_id, session, limit=50),
            supervisor_actions=store.supervisor_actions(connection, table_id, 50, session),
            shared_tags=store.shared_tags(connection, table_id),
            decks=store.decks(connection, table_id, session, RECENT_DECKS),
            chip_movements=store.chip_movements(
                connection, table_id, session, limit=CHIP_MOVEMENTS
            ),
        )


@table_router.get("/hands", response_model=list[store.Hand])
def table_hands(
    table_id: TableId,
    floor: TheFloor,
    _: Signed,
    session: SessionNumber = None,
    after: Annotated[int, Query(ge=0, description="hands numbered after this")] = 0,
    limit: Limit = 100,
) -> list[store.Hand]:
    """A table's hands in order, each with its hand script and outcome (as
    ``luck-table history --json`` gives them)."""
    return floor.read_table(
        table_id, lambda connection: store.hands(connection, table_id, session, after, limit)
    )


@table_router.get("/chip-movements", response_model=list[store.ChipMovement])
def table_chip_movements(
    table_id: TableId,
    floor: TheFloor,
    _: Signed,
    session: SessionNumber = None,
    before: Annotated[int | None, Query(ge=1, description="before this position")] = None,
    limit: Limit = 100,
) -> list[store.ChipMovement]:
    """A page of a table's buy-ins, rebuys and cash-outs, in journal order: the last
    ``limit`` before journal position ``before`` (the latest by default); the page before
    it is the one before its first movement's position."""
    return floor.read_table(
        table_id,
        lambda connection: store.chip_movements(connection, table_id, session, before, limit),
    )


@table_router.get("/hands/{number}", response_model=store.Hand)
def table_hand(
    table_id: TableId,
    number: Annotated[int, PathParam(ge=1)],
    floor: TheFloor,
    _: Signed,
    session: SessionNumber = None,
) -> store.Hand:
    """One hand of a table, with its script and outcome."""
    found = floor.read_table(
        table_id, lambda connection: store.hand(connection, table_id, number, session)
    )
    if found is None:
        reason = f"table {table_id!r} has no hand {number}"
        raise ApiError(404, "not_found", reason, Declined.UNKNOWN_HAND)
    return found


@table_router.get("/alerts", response_model=list[store.Alert])
def table_alerts(
    table_id: TableId,
    floor: TheFloor,
    _: Signed,
    session: SessionNumber = None,
    limit: Limit = 100,
) -> list[store.Alert]:
    """A table's latest alerts, open or with their resolution, newest first."""
    return floor.read_table(
        table_id, lambda connection: store.alerts(connection, table_id, session, limit)
    )


pit_router = APIRouter(prefix="/api", tags=["pit"])


@pit_router.get("/hands-per-hour", response_model=list[store.HourlyHands])
def hands_per_hour(
    floor: TheFloor, _: Signed, table_id: TableFilter = None, since: datetime | None = None
) -> list[store.HourlyHands]:
    """Hands finished per hour per table (from ``since``, an ISO 8601 time)."""
    return floor.read(lambda connection: store.hands_per_hour(connection, table_id, since))


@pit_router.get("/house", response_model=House)
def house(floor: TheFloor, _: Signed, day: date | None = None) -> House:
    """The house's figures over gaming day ``day`` (YYYY-MM-DD, the date it begins on;
    today's by the floor database's clock by default): each table's rake, drop and rake
    per hour, each dealer's hands per hour, and the cash buy-ins over the house's
    threshold for the multiple-transaction log."""
    config = floor.config
    gaming = config.gaming_day

    def read(connection: psycopg.Connection) -> House:
        return House(
            gaming_day_starts=gaming.starts,
            time_zone=gaming.time_zone,
            cash_log_threshold=config.cash_log_threshold,
            tables=store.house_days(connection, gaming, day, day),
            dealers=store.dealers(connection, gaming, day),
            cash_log=store.cash_log(connection, gaming, config.cash_log_threshold, day),
        )

    return floor.read(read)


@pit_router.get("/pot-sizes", response_model=list[store.PotSizes])
def pot_sizes(floor: TheFloor, _: Signed, table_id: TableFilter = None) -> list[store.PotSizes]:
    """Each table's pots: count, total, average, largest, median (void hands left out)."""
    return floor.read(lambda connection: store.pot_sizes(connection, table_id))


@pit_router.get("/bonus-cards", response_model=list[store.BonusCards])
def bonus_cards(floor: TheFloor, _: Signed, table_id: TableFilter = None) -> list[store.BonusCards]:
    """Each table's bonus cards dealt, and in how many hands."""
    return floor.read(lambda connection: store.bonus_cards(connection, table_id))


@pit_router.get("/players/{player}/sessions", response_model=list[store.PlayerSession])
def player_sessions(
    player: Annotated[str, PathParam(min_length=1, max_length=64), Text],
    floor: TheFloor,
    _: Signed,
) -> list[store.PlayerSession]:
    """A player's session history: each stay at a seat, with buy-in, rebuys, cash-out
    and hands dealt, in the order they sat down (empty for a player never seen)."""
    return floor.read(lambda connection: store.player_sessions(connection, player))


@pit_router.get("/supervisor-actions", response_model=list[store.SupervisorAction])
def supervisor_actions(
    floor: TheFloor,
    _: Signed,
    table_id: TableFilter = None,
    session: SessionNumber = None,
    limit: Limit = 100,
) -> list[store.SupervisorAction]:
    """The latest supervisor actions, newest first: across the floor, or at one table
    (its current session's, or ``session``'s)."""
    if session is not None and table_id is None:
        reason = "session: a table's session: give table_id too"
        raise ApiError(422, "invalid", reason, Declined.TABLE_ID_NEEDED)
    return floor.read(
        lambda connection: store.supervisor_actions(connection, table_id, limit, session)
    )


@pit_router.get("/surveillance", response_model=Surveillance)
def statistics(
    floor: TheFloor,
    _: Signed,
    table_id: TableFilter = None,
    since: datetime | None = None,
    until: datetime | None = None,
    hands: Annotated[int, Query(ge=1, le=100_000)] = store.SURVEILLANCE_HANDS,
) -> Surveillance:
    """The statistics for surveillance over the latest ``hands`` finished hands that ended
    in ``[since, until)`` (ISO 8601; UTC without a zone), at one table or across the floor:
    each seat, player, dealer and dealer at a seat, the 4c face up, bonus cards, wild
    cards, wins, unverified reads and moved cards against their expectation, each with its
    CUSUM."""
    seat_hands = floor.read(
        lambda connection: store.seat_hands(connection, table_id, utc(since), utc(until), hands)
    )
    charts = surveillance.charts(seat_hands)
    return Surveillance(
        hands=len({(hand.table_id, hand.number) for hand in seat_hands}),
        ratio=surveillance.RATIO,
        threshold=surveillance.THRESHOLD,
        false_alarm_per_hand=surveillance.FALSE_ALARM_PER_HAND,
        flagged=sum(chart.flagged for chart in charts),
        charts=charts,
    )


@pit_router.get("/bookmarks", response_model=list[store.Bookmark])
def bookmarks(
    floor: TheFloor,
    _: Signed,
    *,
    table_id: TableFilter = None,
    since: datetime | None = None,
    until: datetime | None = None,
    every: Annotated[bool, Query(description="every alert, not only protection's")] = False,
    format: Annotated[Literal["json", "csv"], Query()] = "json",
    limit: Annotated[int, Query(ge=1, le=100_000)] = 10_000,
) -> Any:
    """The protection and security alerts raised in ``[since, until)`` (ISO 8601; UTC
    without a zone), at one table or across the floor, in time order, as bookmarks for the
    surveillance video: table, seat, the time of the journal entry whose input raised it
    (``at``, ms since the Unix epoch, UTC, by the table's clock; ``time``, the same in ISO
    8601) and kind. With ``format=csv`` a CSV file a video system imports."""
    kinds = None if every else surveillance.BOOKMARKED
    marks = floor.read(
        lambda connection: store.bookmarks(
            connection,
            since=utc(since),
            until=utc(until),
            table_id=table_id,
            kinds=kinds,
            limit=limit,
        )
    )
    if format == "csv":
        return Response(
            surveillance.bookmarks_csv(marks),
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": 'attachment; filename="bookmarks.csv"'},
        )
    return marks


feed_router = APIRouter()


@feed_router.websocket("/ws")
async def feed_socket(
    socket: WebSocket,
    auth: Annotated[Auth, Depends(auth_of)],
    token: Annotated[str | None, Query()] = None,
) -> None:
    """The live floor: the floor now, then each change (``{"type": "floor", "ok":
    true, ...}``, or ``"ok": false`` with the reason while the database is
    unreachable)."""

    def signed() -> Session:
        session = auth.session(token)
        if session is None:
            reason = "a supervisor's session is needed: sign in"
            raise AuthError(401, reason, Denied.SESSION_NEEDED)
        return session

    signed_in, _ = await socket_session(socket, signed)
    if signed_in:
        feed: FloorFeed = socket.app.state.feed

        async def messages() -> AsyncIterator[str]:
            async for message in feed.messages():
                signed()  # each message: the session still holds (and is in use)
                yield message

        await send_until_closed(socket, messages(), "the floor service stopped")


# The dealers' requests, approved from the pit (dealer_ui.pit.tables) ---------------------

requests_router = APIRouter(prefix="/api", tags=["requests"])


async def links_of(connection: HTTPConnection) -> TableLinks:
    """The pit sessions' sessions at the tables' consoles (a dependency)."""
    links: TableLinks = connection.app.state.links
    return links


TheLinks = Annotated[TableLinks, Depends(links_of)]


class PinIn(BaseModel):
    pin: str = Field(min_length=1, max_length=64, description="the supervisor's PIN")


class TableRequests(BaseModel):
    table_id: str
    console: str = Field(description="the table's console")
    connected: bool = Field(description="this pit session holds a session at the table")
    requests: list[dict[str, Any]] = Field(
        default_factory=list,
        description="the requests waiting there, as the table's `GET /api/requests` gives them",
    )
    problem: str | None = Field(default=None, description="why they could not be read")


@requests_router.get("/requests", response_model=list[TableRequests])
async def table_requests(links: TheLinks, session: Signed) -> list[TableRequests]:
    """The dealers' requests waiting at each table with a console, for the tables this pit
    session is connected to."""
    out = []
    held = links.connected(session.token)
    for table_id, console in sorted(links.consoles.items()):
        entry = TableRequests(table_id=table_id, console=console, connected=table_id in held)
        if entry.connected:
            try:
                entry.requests = await links.requests(session.token, table_id)
            except ApiError as error:
                entry.problem = error.reason
                entry.connected = table_id in links.connected(session.token)
        out.append(entry)
    return out


@table_router.post("/connect", status_code=204)
async def connect(table_id: TableId, body: PinIn, links: TheLinks, session: Signed) -> None:
    """Connect this pit session to the table's console with the supervisor's PIN (a
    surveillance session there, checked by the table)."""
    await links.connect(session.token, session.who, table_id, body.pin)


@table_router.post("/requests/{number}/approve")
async def approve(
    table_id: TableId, number: int, body: PinIn, links: TheLinks, session: Signed
) -> dict[str, Any]:
    """Approve a dealer's request at the table with the supervisor's PIN (checked and
    journaled there): the table's answer."""
    return await links.approve(session.token, session.who, table_id, number, body.pin)


@table_router.post("/requests/{number}/cancel")
async def refuse(
    table_id: TableId, number: int, links: TheLinks, session: Signed
) -> dict[str, Any]:
    """Refuse a dealer's request (or answer a call): cancelled at the table."""
    return await links.cancel(session.token, table_id, number)


pages = APIRouter(include_in_schema=False)


@pages.get("/")
async def pit() -> FileResponse:
    """The pit page."""
    return FileResponse(STATIC / "pit.html")


ROUTERS = (sign_in, floor_router, table_router, requests_router, pit_router, feed_router, pages)


def create_app(config: FloorConfig, auth: Auth | None = None) -> FastAPI:
    """The floor service's app for ``config`` (its DSN, consoles and supervisors)."""
    feed = FloorFeed(
        config.dsn, config.poll, config.listen, config.statement_timeout, config.silent_after
    )
    readers = pool(config.dsn, config.pool_size, statement_timeout=config.statement_timeout)
    auth = auth or Auth.configured(config.api, (), config.supervisors)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        readers.open(wait=False)
        feed.start()
        yield
        await feed.stop()
        await asyncio.to_thread(readers.close)
        await asyncio.to_thread(auth.close)  # the PIN checker's process ends

    app = new_app(
        config.api,
        auth,
        feed,
        lifespan,
        title="Luck of the Irish floor",
        description="The pit view's API: every table's live status, alerts, hands and "
        "players' sessions from the floor store (docs/floor.md).",
        errors=ERRORS,
        sign_in=SupervisorSignIn,
        supervised=False,
    )
    app.state.floor = FloorApp(config, readers)
    app.state.links = TableLinks(config.consoles, alive=lambda token: _alive(app, token))
    for router in ROUTERS:
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def _alive(app: FastAPI, token: str) -> bool:
    """The pit session of ``token`` still holds."""
    try:
        return app.state.auth.session(token) is not None
    except AuthError:
        return False
