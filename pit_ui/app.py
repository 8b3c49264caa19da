"""The floor service's REST API, its live feed and the pit page (docs/floor.md).

Every endpoint but ``/api/health`` and the sign-in needs a supervisor's session
(``POST /api/sessions`` with a supervisor's id and PIN from the floor's own configuration,
then ``Authorization: Bearer TOKEN``; on the WebSocket ``/ws``, ``?token=TOKEN``), checked
by the console's ``dealer_ui.auth.Auth``. Each request reads the store on a connection
taken from the service's pool (``def`` endpoints, in the thread pool; ``floor.pool_size``
at once), each checked as it is taken, so that a PostgreSQL restart costs only the
requests made while it was down: those answer 503 ``{"error": "unavailable", "reason":
"floor database unreachable: ..."}``.
Every query has a statement timeout (``floor.statement_timeout``): a lock held on the store
answers 503 "floor store unavailable" within seconds rather than a request that hangs.
Bad input answers 4xx with ``{"error", "reason"}``: 401/403/429 for sign-in and sessions,
404 for a table or hand the floor does not hold, 422 naming the bad parameter (a NUL byte,
which PostgreSQL cannot hold, included).
"""

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, get_type_hints

import psycopg
from fastapi import Depends, FastAPI, Header, Query, Request, WebSocket
from fastapi import Path as PathParam
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import AfterValidator, BaseModel, Field, create_model
from starlette.exceptions import HTTPException

from controller.floor import store
from controller.floor.migrate import schema_problem
from dealer_ui.app import (
    ApiError,
    ErrorOut,
    SignIn,
    add_error_handlers,
    add_sessions,
    bearer_session,
    docs_pages,
    send_until_closed,
)
from dealer_ui.auth import Auth, AuthError, Session
from dealer_ui.guard import protect
from pit_ui.config import FloorConfig
from pit_ui.live import UNAVAILABLE, FloorFeed, floor_message, floor_now, pool, unreachable

STATIC = Path(__file__).parent / "static"
RECENT_HANDS = 10
CHIP_MOVEMENTS = 50

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorOut} for code in (401, 403, 404, 422, 429, 503)
}


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


class SupervisorSignIn(SignIn):
    role: Literal["surveillance"] = "surveillance"  # type: ignore[assignment]


class Health(BaseModel):
    database: Literal["ok"]


FloorTable = create_model(  # a table's live status without the hand in progress
    "FloorTable",
    **{
        name: (hint, ...)
        for name, hint in get_type_hints(store.TableOverview).items()
        if name != "hand"
    },
)


class Floor(BaseModel):
    """The floor now: what the live feed sends."""

    type: Literal["floor"]
    ok: bool
    now: datetime = Field(description="the floor database's clock")
    tables: list[FloorTable] = Field(  # type: ignore[valid-type]
        description="every table's live status, without the hand in progress"
    )
    open_alerts: list[store.OpenAlert]


class TableDetail(BaseModel):
    """A table's surveillance view as the floor knows it (as of its last batch: stale when
    ``table.silent``)."""

    table: store.TableOverview
    console: str | None = Field(description="the table's own surveillance page, if known")
    current_hand: store.Hand | None = Field(description="the hand being dealt, if any")
    recent_hands: list[store.Hand] = Field(description="the last hands, newest first")
    alerts: list[store.Alert] = Field(description="the latest alerts, newest first")
    supervisor_actions: list[store.SupervisorAction]
    chip_movements: list[store.ChipMovement] = Field(
        description=f"the last {CHIP_MOVEMENTS} buy-ins, rebuys and cash-outs, in order (the "
        "ones before: /api/tables/{table_id}/chip-movements?before=POSITION)"
    )


_T = TypeVar("_T")


def create_app(config: FloorConfig, auth: Auth | None = None) -> FastAPI:
    """The floor service's app for ``config`` (its DSN, consoles and supervisors)."""
    auth = auth or Auth((), config.supervisors)
    feed = FloorFeed(
        config.dsn, config.poll, config.listen, config.statement_timeout, config.silent_after
    )

    readers = pool(config.dsn, config.pool_size, statement_timeout=config.statement_timeout)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        readers.open(wait=False)
        feed.start()
        yield
        await feed.stop()
        await asyncio.to_thread(readers.close)

    app = FastAPI(
        title="Luck of the Irish floor",
        description="The pit view's API: every table's live status, alerts, hands and "
        "players' sessions from the floor store (docs/floor.md).",
        version="1",
        lifespan=lifespan,
        responses=ERRORS,
        **docs_pages(config.api),
    )
    app.state.feed = feed
    app.state.auth = auth
    protect(app, config.api)
    add_error_handlers(app)

    @app.exception_handler(HTTPException)
    async def http_error(_: Request, error: HTTPException) -> JSONResponse:
        code = "not_found" if error.status_code == 404 else "invalid"
        return JSONResponse({"error": code, "reason": error.detail}, error.status_code)

    def supervisor(authorization: Annotated[str | None, Header()] = None) -> Session:
        session = bearer_session(authorization, auth.session)
        if session is None:
            raise ApiError(401, "unauthorized", "a supervisor's session is needed: sign in")
        return session

    Signed = Annotated[Session, Depends(supervisor)]

    @contextlib.contextmanager
    def database() -> Iterator[psycopg.Connection]:
        try:
            with readers.connection() as connection:
                yield connection
        except psycopg.Error as error:
            raise ApiError(503, "unavailable", unreachable(error)) from None

    def read(query: Callable[[psycopg.Connection], _T]) -> _T:
        with database() as connection:
            return query(connection)

    def known(connection: psycopg.Connection, table_id: str) -> store.TableOverview:
        found = store.tables(connection, table_id, config.silent_after)
        if not found:
            raise ApiError(404, "not_found", f"no table {table_id!r} on the floor")
        return found[0]

    add_sessions(
        app,
        auth,
        SupervisorSignIn,
        "Sign in with a supervisor's id and PIN (the floor's own credentials).",
    )

    @app.get("/api/health", response_model=Health, tags=["floor"])
    def health() -> Health:
        """200 when the floor database answers with a schema this release reads, 503 with
        the reason when not."""
        problem = read(schema_problem)
        if problem is not None:
            raise ApiError(503, "unavailable", f"{UNAVAILABLE}: {problem}")
        return Health(database="ok")

    @app.get("/api/floor", response_model=Floor, tags=["floor"])
    def floor(_: Signed) -> Response:
        """Every table's live status and the open alerts (what the live feed sends)."""
        now, content = read(lambda connection: floor_now(connection, config.silent_after))
        return Response(floor_message(now, content), media_type="application/json")

    @app.get("/api/tables", response_model=list[store.TableOverview], tags=["floor"])
    def tables(_: Signed) -> list[store.TableOverview]:
        """Every table's live status: dealing, paused (with its first blocking alert) or
        idle, its seats and stacks, its last journal position on the floor."""
        return read(lambda connection: store.tables(connection, None, config.silent_after))

    @app.get("/api/tables/{table_id}", response_model=TableDetail, tags=["table"])
    def table(table_id: TableId, _: Signed) -> TableDetail:
        """A table's surveillance view as the floor knows it: status and seats, the hand
        being dealt, the last hands with their scripts, alerts with their resolution,
        supervisor actions, buy-ins and cash-outs."""
        with database() as connection:
            overview = known(connection, table_id)
            session = overview.session  # the status's journal: every part of the view is its
            current = store.hand(connection, table_id, overview.hand_number, session)
            return TableDetail(
                table=overview,
                console=config.consoles.get(table_id),
                current_hand=current if current is not None and current.ended_at is None else None,
                recent_hands=store.recent_hands(connection, table_id, session, RECENT_HANDS),
                alerts=store.alerts(connection, table_id, session, limit=50),
                supervisor_actions=store.supervisor_actions(connection, table_id, 50, session),
                chip_movements=store.chip_movements(
                    connection, table_id, session, limit=CHIP_MOVEMENTS
                ),
            )

    @app.get("/api/tables/{table_id}/hands", response_model=list[store.Hand], tags=["table"])
    def table_hands(
        table_id: TableId,
        _: Signed,
        session: SessionNumber = None,
        after: Annotated[int, Query(ge=0, description="hands numbered after this")] = 0,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    ) -> list[store.Hand]:
        """A table's hands in order, each with its hand script and outcome (as
        ``luck-table history --json`` gives them)."""
        with database() as connection:
            known(connection, table_id)
            return store.hands(connection, table_id, session, after, limit)

    @app.get(
        "/api/tables/{table_id}/chip-movements",
        response_model=list[store.ChipMovement],
        tags=["table"],
    )
    def table_chip_movements(
        table_id: TableId,
        _: Signed,
        session: SessionNumber = None,
        before: Annotated[int | None, Query(ge=1, description="before this position")] = None,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    ) -> list[store.ChipMovement]:
        """A page of a table's buy-ins, rebuys and cash-outs, in journal order: the last
        ``limit`` before journal position ``before`` (the latest by default); the page
        before it is the one before its first movement's position."""
        with database() as connection:
            known(connection, table_id)
            return store.chip_movements(connection, table_id, session, before, limit)

    @app.get("/api/tables/{table_id}/hands/{number}", response_model=store.Hand, tags=["table"])
    def table_hand(
        table_id: TableId,
        number: Annotated[int, PathParam(ge=1)],
        _: Signed,
        session: SessionNumber = None,
    ) -> store.Hand:
        """One hand of a table, with its script and outcome."""
        with database() as connection:
            known(connection, table_id)
            found = store.hand(connection, table_id, number, session)
        if found is None:
            raise ApiError(404, "not_found", f"table {table_id!r} has no hand {number}")
        return found

    @app.get("/api/tables/{table_id}/alerts", response_model=list[store.Alert], tags=["table"])
    def table_alerts(
        table_id: TableId,
        _: Signed,
        session: SessionNumber = None,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    ) -> list[store.Alert]:
        """A table's latest alerts, open or with their resolution, newest first."""
        with database() as connection:
            known(connection, table_id)
            return store.alerts(connection, table_id, session, limit)

    @app.get("/api/alerts/open", response_model=list[store.OpenAlert], tags=["floor"])
    def open_alerts(_: Signed, table_id: TableFilter = None) -> list[store.OpenAlert]:
        """The alerts open across the floor (or at one table), oldest first."""
        return read(lambda connection: store.open_alerts(connection, table_id))

    @app.get("/api/hands-per-hour", response_model=list[store.HourlyHands], tags=["pit"])
    def hands_per_hour(
        _: Signed, table_id: TableFilter = None, since: datetime | None = None
    ) -> list[store.HourlyHands]:
        """Hands finished per hour per table (from ``since``, an ISO 8601 time)."""
        return read(lambda connection: store.hands_per_hour(connection, table_id, since))

    @app.get("/api/pot-sizes", response_model=list[store.PotSizes], tags=["pit"])
    def pot_sizes(_: Signed, table_id: TableFilter = None) -> list[store.PotSizes]:
        """Each table's pots: count, total, average, largest, median (void hands left out)."""
        return read(lambda connection: store.pot_sizes(connection, table_id))

    @app.get("/api/bonus-cards", response_model=list[store.BonusCards], tags=["pit"])
    def bonus_cards(_: Signed, table_id: TableFilter = None) -> list[store.BonusCards]:
        """Each table's bonus cards dealt, and in how many hands."""
        return read(lambda connection: store.bonus_cards(connection, table_id))

    @app.get(
        "/api/players/{player}/sessions", response_model=list[store.PlayerSession], tags=["pit"]
    )
    def player_sessions(
        player: Annotated[str, PathParam(min_length=1, max_length=64), Text], _: Signed
    ) -> list[store.PlayerSession]:
        """A player's session history: each stay at a seat, with buy-in, rebuys, cash-out
        and hands dealt, in the order they sat down (empty for a player never seen)."""
        return read(lambda connection: store.player_sessions(connection, player))

    @app.get("/api/supervisor-actions", response_model=list[store.SupervisorAction], tags=["pit"])
    def supervisor_actions(
        _: Signed,
        table_id: TableFilter = None,
        session: SessionNumber = None,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    ) -> list[store.SupervisorAction]:
        """The latest supervisor actions, newest first: across the floor, or at one table
        (its current session's, or ``session``'s)."""
        if session is not None and table_id is None:
            raise ApiError(422, "invalid", "session: a table's session: give table_id too")
        return read(
            lambda connection: store.supervisor_actions(connection, table_id, limit, session)
        )

    @app.websocket("/ws")
    async def feed_socket(socket: WebSocket, token: Annotated[str | None, Query()] = None) -> None:
        """The live floor: the floor now, then each change (``{"type": "floor", "ok":
        true, ...}``, or ``"ok": false`` with the reason while the database is
        unreachable)."""
        await socket.accept()
        try:
            if auth.session(token) is None:
                raise AuthError(401, "a supervisor's session is needed: sign in")
        except AuthError as error:
            await socket.close(code=4401, reason=error.reason)
            return

        async def send_all() -> None:
            async for message in feed.messages():
                await socket.send_text(message)
            await socket.close(code=1001, reason="the floor service stopped")

        await send_until_closed(socket, send_all)

    @app.get("/", include_in_schema=False)
    async def pit() -> FileResponse:
        """The pit page."""
        return FileResponse(STATIC / "pit.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
