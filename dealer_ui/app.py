"""The REST API, the WebSocket feed and the console page, for one table service.

Who is asking comes from the bearer token (``Authorization: Bearer TOKEN``; on the
WebSocket, ``?token=TOKEN``): a dealer's or surveillance session (``POST /api/sessions``),
a player's token (``POST /api/player-tokens``), or none for the public. Every view is
``dealer_ui.views.view`` of the table for that role. Every input goes through
``service.submit``: a refused input answers 409 with the table's reason (the engine's words
for a decision); a malformed one 422 naming the field. Supervisor actions carry the
supervisor's id and PIN, checked for each action; every failed sign-in and refused PIN is
journaled (``TableService.record_failed_attempt``). While the table takes no input (its
journal cannot be written, or the service is stopping) every ``/api/`` request answers 503
with the reason: nobody signs in while a failed attempt could not be journaled.
"""

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Header, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from controller.config_file import Api
from controller.errors import LuckTableError
from controller.service import Guard, Stale, TableService, TableStopped
from controller.table import SignInAttack, Table, TableInputError, input_from_json
from dealer_ui.archive import Archive
from dealer_ui.auth import Attack, Auth, AuthError, Session
from dealer_ui.feeds import Feed
from dealer_ui.guard import peer_of, protect
from dealer_ui.models import StepOut, ViewOut
from dealer_ui.operations import router as operations_router
from dealer_ui.views import Role, effects_view, view

STATIC = Path(__file__).parent / "static"

log = logging.getLogger(__name__)


class ApiError(LuckTableError):
    def __init__(self, status: int, error: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.error, self.reason = status, error, reason


class ErrorOut(BaseModel):
    error: str = Field(
        description="unauthorized, forbidden, not_found, refused, stale, invalid, rate_limited, "
        "unavailable"
    )
    reason: str = Field(description="what was wrong (the engine's words for a refused input)")


class SignIn(BaseModel):
    role: Literal["dealer", "surveillance"] = "dealer"
    id: str = Field(min_length=1, max_length=64)
    pin: str = Field(min_length=1, max_length=64)


class SessionOut(BaseModel):
    token: str
    role: str
    who: str
    expires_in: float = Field(description="seconds until the session expires")
    seat: int | None = None
    sitting: int | None = Field(
        default=None, description="a player's token: the sitting (sit-down) it is bound to"
    )


class PlayerTokenIn(BaseModel):
    seat: int = Field(ge=1, le=8)


class Supervisor(BaseModel):
    supervisor: str = Field(min_length=1, max_length=64, description="the supervisor's id")
    pin: str = Field(min_length=1, max_length=64)
    why: str = Field(min_length=1, max_length=500)


class DecisionIn(BaseModel):
    seat: int
    do: Literal[
        "bring_in", "complete", "check", "call", "bet", "raise", "fold", "bonus", "show", "muck"
    ]
    to: int | None = None
    accept: bool | None = None
    hand: int | None = Field(
        default=None, description="the view's `hand_number` the decision was asked at"
    )
    step: int | None = Field(
        default=None,
        description="the view's `step` the decision was asked at: with `hand`, a decision "
        "the table has moved on from (a card dealt, another decision) is refused (409 stale)",
    )

    def guard(self) -> Guard | None:
        """With ``hand`` and ``step``: refuse the decision once the table has moved on
        from the one it was asked at (a stale confirmation)."""
        if self.hand is None and self.step is None:
            return None
        asked = f"hand {self.hand}, step {self.step}"

        def still_asked(table: Table) -> str | None:
            if (self.hand, self.step) == (table.hand_number, len(table.hand_log)):
                return None
            now = f"hand {table.hand_number}, step {len(table.hand_log)}"
            return (
                f"seat {self.seat}: {self.do} was asked at {asked}; the table has moved on "
                f"({now}): look at the table and decide again"
            )

        return still_asked


class ConsoleOut(BaseModel):
    idle_lock: float = Field(
        description="seconds without a touch or key before the dealer's screen locks"
    )


class SitDownIn(BaseModel):
    seat: int
    player: str = Field(min_length=1, max_length=64)
    buy_in: int


class ChipsIn(BaseModel):
    chips: int


class VoidIn(Supervisor):
    """The supervisor's id, PIN and reason; ``hand``, the hand the supervisor means to void
    (the console's confirmation names it): refused (409 stale) if another hand is on."""

    hand: int | None = Field(default=None, description="the hand number to void")

    def guard(self) -> Guard | None:
        if self.hand is None:
            return None

        def same_hand(table: Table) -> str | None:
            if table.hand_number == self.hand:
                return None
            return f"hand {self.hand} was to be voided; the table is at hand {table.hand_number}"

        return same_hand


class EnterCardIn(Supervisor):
    card: str = Field(description="the card, e.g. 'Qh'")


class CorrectCardIn(Supervisor):
    wrong: str
    right: str


class WrongFaceIn(Supervisor):
    seat: int
    card: str = Field(description="the card lying with the wrong face, e.g. '4c'")


class ResolveIn(Supervisor):
    alert: int
    remedy: Literal["hold", "dead", "done"]


class CorrectStackIn(Supervisor):
    seat: int
    stack: int


class HandSummaryOut(BaseModel):
    hand: int = Field(description="the hand number")
    started: str = Field(description="when it started (ISO 8601, UTC)")
    ended: str = Field(description="when it ended (ISO 8601, UTC), or 'in progress'")
    phase: str = Field(description="complete, void, or the phase of the hand in progress")
    seats: list[int] = Field(description="the seats dealt in")
    players: dict[str, str] = Field(
        default_factory=dict, description="the name of the player at each seat dealt in"
    )
    pot: int = Field(description="the chips awarded (0 for a void hand or one in progress)")
    winners: list[int] = Field(description="the seats that won a pot")


class HandOut(BaseModel):
    """A past hand as ``luck-table history --json`` gives it, with its history text."""

    hand: int
    started: str
    ended: str
    script: dict[str, Any] = Field(description="the hand script (docs/replay.md)")
    outcome: dict[str, Any] = Field(description="the replayed outcome, every card shown")
    recorded: bool = Field(description="the replay gives the outcome the table recorded")
    history: str = Field(description="the hand history, street by street, hole cards shown")
    recorded_hand: dict[str, Any] = Field(
        description="the hand as the table recorded it: every card dealt (a void hand's too)"
    )


SUPERVISOR_ACTIONS: list[tuple[str, type[Supervisor], Callable[[Any], dict[str, Any]], str]] = [
    (
        "void",
        VoidIn,
        lambda body: {"type": "void_hand"},
        "Void the hand: every chip back to where it was before the antes.",
    ),
    (
        "enter-card",
        EnterCardIn,
        lambda body: {"type": "enter_card", "card": body.card},
        "Name the card of the oldest open unread-card alert.",
    ),
    (
        "correct-card",
        CorrectCardIn,
        lambda body: {"type": "correct_card", "wrong": body.wrong, "right": body.right},
        "A misread: the card read as `wrong` is `right`. Every card stays where it lies: "
        "a bonus card the right card earns comes late, one it does not earn is a dead card.",
    ),
    (
        "wrong-face",
        WrongFaceIn,
        lambda body: {"type": "wrong_face", "seat": body.seat, "card": body.card},
        "A card dealt with the wrong face: a hole card (or the bonus card) face up, or an "
        "up card face down; the rules' consequence follows (docs/rules.md).",
    ),
    (
        "resolve",
        ResolveIn,
        lambda body: {"type": "resolve_alert", "alert": body.alert, "remedy": body.remedy},
        "Apply a remedy (hold, dead, done) to an open alert.",
    ),
    (
        "correct-stack",
        CorrectStackIn,
        lambda body: {"type": "correct_stack", "seat": body.seat, "stack": body.stack},
        "Set a seat's stack between its hands (the difference is kept in `corrected`).",
    ),
]

#: The routes answering a view leave out what the role does not get (docs: dealer_ui.models).
STEP: dict[str, Any] = {"response_model": StepOut, "response_model_exclude_unset": True}
VIEW: dict[str, Any] = {"response_model": ViewOut, "response_model_exclude_unset": True}

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorOut} for code in (401, 403, 404, 409, 422, 429, 503)
}


def create_app(service: TableService, auth: Auth | None = None) -> FastAPI:
    """The app for ``service`` (started); ``auth`` defaults to the configuration's
    credentials."""
    config = service.config
    auth = auth or Auth(config.dealers, config.supervisors)
    auth.position = lambda: service.position  # the moment each session begins
    feed = Feed(service)
    archive = Archive(service.config.journal)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        feed.start()
        yield
        await feed.stop()
        archive.close()  # its worker process ends

    app = FastAPI(
        title=f"Luck of the Irish table {config.table_id}",
        description="The dealer console's API and the live feeds (docs/api.md).",
        version="1",
        lifespan=lifespan,
        responses=ERRORS,
        **docs_pages(config.api),
    )
    app.state.feed = feed
    app.state.auth = auth
    protect(app, config.api)

    add_error_handlers(app)
    app.include_router(operations_router(service))

    @app.exception_handler(TableStopped)
    async def stopped(_: Request, error: TableStopped) -> JSONResponse:
        return JSONResponse({"error": "unavailable", "reason": str(error)}, 503)

    @app.middleware("http")
    async def while_the_table_runs(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        reason = service.stopped_because
        if reason is not None and request.url.path.startswith("/api/"):
            return JSONResponse({"error": "unavailable", "reason": reason}, 503)
        return await call_next(request)

    def caller(authorization: Annotated[str | None, Header()] = None) -> Session | None:
        return bearer_session(authorization, live_session)

    def live_session(token: str | None) -> Session | None:
        """The session of ``token`` if it still holds (not expired; a player's token: its
        sitting not ended); AuthError if not."""
        session = auth.session(token)
        if session is not None and session.seat is not None:
            place = service.table.seat(session.seat)
            auth.seat_changed(session, None if place is None else place.sitting)
        return session

    def dealer(session: Annotated[Session | None, Depends(caller)]) -> Session:
        if session is None or session.role != "dealer":
            raise ApiError(403, "forbidden", "a dealer's session is needed: sign in")
        return session

    def surveillance(session: Annotated[Session | None, Depends(caller)]) -> Session:
        if session is None or session.role != "surveillance":
            reason = "a surveillance session is needed: sign in with a supervisor's id and PIN"
            raise ApiError(403, "forbidden", reason)
        return session

    def role_of(session: Session | None) -> tuple[Role, int | None]:
        if session is None:
            return Role.PUBLIC, None
        return Role(session.role), session.seat

    async def submit(
        record: dict[str, Any], session: Session | None, guard: Guard | None = None
    ) -> StepOut:
        try:
            item = input_from_json({"at": 0, **record})
        except TableInputError as error:
            raise ApiError(422, "invalid", str(error)) from None
        try:
            step = await service.submit(item, guard)
        except Stale as error:
            raise ApiError(409, "stale", str(error)) from None
        if step.refused:
            raise ApiError(409, "refused", step.refused)
        role, seat = role_of(session)
        return StepOut(
            position=service.position,
            events=effects_view(step.effects, step.table, role, seat),
            view=ViewOut(**view(step.table, role, seat)),
        )

    async def refused_pin(
        error: AuthError,
        role: str,
        who: str,
        action: str,
        request: Request,
        *,
        by: str | None = None,
    ) -> ApiError:
        """Journal a failed attempt (who tried, as what, for which action, from where; the
        time is the journal's), then the error to answer."""
        if error.journal:
            client, peer = client_of(request), peer_of(request.scope)
            attempt = {"role": role, "who": who, "action": action, "client": client}
            attempt |= {} if peer == client else {"peer": peer}  # the proxy it came through
            attempt |= {"status": error.status, "reason": error.reason}
            await service.record_failed_attempt(attempt if by is None else {**attempt, "by": by})
        return refusal(error)

    async def supervised(
        body: Supervisor, record: dict[str, Any], request: Request, session: Session
    ) -> StepOut:
        """Check the supervisor's PIN, then submit ``record`` (a void: for the hand named)."""
        client = client_of(request)
        try:
            await auth.supervisor(body.supervisor, body.pin, client)
        except AuthError as error:
            action = record["type"]
            raise await refused_pin(
                error, "supervisor", body.supervisor, action, request, by=session.who
            ) from None
        guard = body.guard() if isinstance(body, VoidIn) else None
        return await submit({**record, "who": body.supervisor, "why": body.why}, session, guard)

    async def attack_alert(attack: Attack) -> None:
        """An id under attack: a non-blocking alert at the table (journaled, shown to the
        supervisor and surveillance, shipped to the floor)."""
        item = SignInAttack(
            at=0,
            role=attack.role,
            who=attack.who,
            failures=attack.failures,
            window=max(1, round(attack.window)),
            clients=", ".join(attack.clients),
        )
        try:
            step = await service.submit(item)
        except RuntimeError as error:  # the service is stopping: no table to raise it at
            log.error("the sign-in attack alert could not be raised: %s", error)
            return
        if step.refused:
            log.error("the sign-in attack alert was refused: %s", step.refused)

    if auth.on_attack is None:
        auth.on_attack = attack_alert

    async def refused_sign_in(error: AuthError, body: SignIn, request: Request) -> ApiError:
        return await refused_pin(error, body.role, body.id, "sign_in", request)

    add_sessions(
        app,
        auth,
        SignIn,
        "Sign in with an id and PIN: a dealer, or a supervisor for the surveillance view.",
        refused_sign_in,
    )

    @app.post("/api/player-tokens", response_model=SessionOut, tags=["sign-in"])
    async def player_token(
        body: PlayerTokenIn, _: Annotated[Session, Depends(dealer)]
    ) -> SessionOut:
        """A token for the player at a seat: their own hole cards, their own decisions;
        it is bound to their sitting (this sit-down) and ends when they leave the seat."""
        place = service.table.seat(body.seat)
        if place is None:
            raise ApiError(409, "refused", f"seat {body.seat}: no player is seated")
        return session_out(auth.player_session(body.seat, place.sitting), auth)

    @app.get("/api/console", response_model=ConsoleOut, tags=["table"])
    async def console_settings() -> ConsoleOut:
        """The console's settings (the table configuration's ``[console]``)."""
        return ConsoleOut(idle_lock=config.console.idle_lock)

    @app.get("/api/view", tags=["table"], **VIEW)
    async def get_view(session: Annotated[Session | None, Depends(caller)]) -> dict[str, Any]:
        """The table now, as the caller may see it (no token: the public view)."""
        role, seat = role_of(session)
        return view(service.table, role, seat)

    @app.get("/api/history", response_model=list[HandSummaryOut], tags=["surveillance"])
    async def past_hands(_: Annotated[Session, Depends(surveillance)]) -> list[dict[str, Any]]:
        """Every hand of the table's journal, in order (the one in progress last)."""
        return await archive.summaries()

    @app.get("/api/history/{number}", response_model=HandOut, tags=["surveillance"])
    async def past_hand(
        number: int, _: Annotated[Session, Depends(surveillance)]
    ) -> dict[str, Any]:
        """One hand of the journal with its whole history, every card shown."""
        hand = await archive.hand(number)
        if hand is None:
            raise ApiError(404, "not_found", f"hand {number} is not in the journal")
        return hand

    @app.post("/api/decisions", **STEP, tags=["dealer"])
    async def decide(
        body: DecisionIn, session: Annotated[Session | None, Depends(caller)]
    ) -> StepOut:
        """A player's decision: said by the dealer, or made by the player with their token
        (at a table that allows it)."""
        if session is None or session.role not in ("dealer", "player"):
            raise ApiError(403, "forbidden", "a dealer's session or the player's token is needed")
        if session.role == "player" and session.seat != body.seat:
            raise ApiError(403, "forbidden", f"this token is for seat {session.seat}")
        by = "player" if session.role == "player" else "dealer"
        decision = body.model_dump(exclude_none=True, exclude={"hand", "step"})
        return await submit({"type": "decide", **decision, "by": by}, session, body.guard())

    @app.post("/api/hands", **STEP, tags=["dealer"])
    async def new_hand(session: Annotated[Session, Depends(dealer)]) -> StepOut:
        """Start the next hand."""
        return await submit({"type": "new_hand"}, session)

    @app.post("/api/seats", **STEP, tags=["dealer"])
    async def sit_down(body: SitDownIn, session: Annotated[Session, Depends(dealer)]) -> StepOut:
        """A player sits down with a buy-in."""
        return await submit({"type": "sit_down", **body.model_dump()}, session)

    @app.post(
        "/api/seats/{seat}/rebuy",
        **STEP,
        tags=["dealer"],
    )
    async def rebuy(
        seat: int, body: ChipsIn, session: Annotated[Session, Depends(dealer)]
    ) -> StepOut:
        """More chips for the player at ``seat``."""
        return await submit({"type": "rebuy", "seat": seat, "chips": body.chips}, session)

    @app.post(
        "/api/seats/{seat}/{change}",
        **STEP,
        tags=["dealer"],
    )
    async def seat_change(
        seat: int,
        change: Literal["leave", "sit_out", "sit_in"],
        session: Annotated[Session, Depends(dealer)],
    ) -> StepOut:
        """The player at ``seat`` leaves (cashed out), sits out or sits in."""
        return await submit({"type": change, "seat": seat}, session)

    @app.post(
        "/api/alerts/{alert}/acknowledge",
        **STEP,
        tags=["dealer"],
    )
    async def acknowledge(alert: int, session: Annotated[Session, Depends(dealer)]) -> StepOut:
        """The dealer has seen an open alert: it stays open (and the table paused, for a
        blocking one) until it is resolved, marked as acknowledged by the dealer."""
        record = {"type": "acknowledge_alert", "alert": alert, "who": session.who}
        return await submit(record, session)

    def supervisor_action(
        path: str, model: type[Supervisor], record: Callable[[Any], dict[str, Any]], doc: str
    ) -> None:
        async def action(
            body: model,  # type: ignore[valid-type]
            request: Request,
            session: Annotated[Session, Depends(dealer)],
        ) -> StepOut:
            return await supervised(body, record(body), request, session)

        action.__doc__ = doc
        app.post(
            f"/api/supervisor/{path}",
            **STEP,
            tags=["supervisor"],
            name=path.replace("-", "_"),
        )(action)

    for path, model, record, doc in SUPERVISOR_ACTIONS:
        supervisor_action(path, model, record, doc)

    @app.websocket("/ws")
    async def feed_socket(
        socket: WebSocket,
        token: Annotated[str | None, Query()] = None,
        epoch: Annotated[str | None, Query()] = None,
        last: Annotated[int | None, Query()] = None,
    ) -> None:
        """The live feed: a snapshot (or what was missed after ``last`` of ``epoch``),
        then every update, numbered."""
        await socket.accept()
        try:
            session = live_session(token)
        except AuthError as error:
            await socket.close(code=4401, reason=error.reason)
            return
        role, seat = role_of(session)
        since = 0 if session is None else session.since

        async def send_all() -> None:
            async for message in feed.messages(role, seat, epoch, last, since):
                try:  # each message: the session still holds (the seat's player is there)
                    live_session(token)
                except AuthError as error:
                    await socket.close(code=4401, reason=error.reason)
                    return
                await socket.send_text(message)
            await socket.close(code=1001, reason="the table service stopped")

        await send_until_closed(socket, send_all)

    @app.get("/", include_in_schema=False)
    async def console() -> FileResponse:
        """The dealer's console."""
        return FileResponse(STATIC / "console.html")

    @app.get("/public", include_in_schema=False)
    @app.get("/player", include_in_schema=False)
    @app.get("/surveillance", include_in_schema=False)
    async def viewer() -> FileResponse:
        """The read-only pages: the public (broadcast) view, a player's own seat (with a
        player token) and surveillance's: the console page without the dealer's
        controls."""
        return FileResponse(STATIC / "console.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


#: Answers a refused sign-in (the error, the sign-in, the request), journaling
#: or logging it first.
Refused = Callable[[AuthError, SignIn, Request], Awaitable[ApiError]]


def docs_pages(api: Api) -> dict[str, Any]:
    """FastAPI's ``/docs`` and ``/redoc`` pages (which load Swagger UI and ReDoc from their
    CDN) only with ``[api] docs = true``; ``/openapi.json`` is always served."""
    return {} if api.docs else {"docs_url": None, "redoc_url": None}


def client_of(request: Request) -> str:
    """The address a request came from (the one a trusted proxy names, behind one)."""
    return request.client.host if request.client else "unknown"


def refusal(error: AuthError) -> ApiError:
    """The answer to a refused id or PIN: 401, or 429 while locked out."""
    code = "rate_limited" if error.status == 429 else "unauthorized"
    return ApiError(error.status, code, error.reason)


async def refused_logged(error: AuthError, body: SignIn, request: Request) -> ApiError:
    """A refused sign-in where there is no journal: logged, then answered."""
    client = client_of(request)
    log.warning("sign-in refused: %s %r from %s: %s", body.role, body.id, client, error.reason)
    return refusal(error)


def add_error_handlers(app: FastAPI) -> None:
    """Errors as ``{"error", "reason"}``: an :class:`ApiError` with its status, a malformed
    request 422 naming each field."""

    @app.exception_handler(ApiError)
    async def api_error(_: Request, error: ApiError) -> JSONResponse:
        return JSONResponse({"error": error.error, "reason": error.reason}, error.status)

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, error: RequestValidationError) -> JSONResponse:
        parts = []
        for item in error.errors():
            where = ".".join(str(part) for part in item.get("loc", ()) if part != "body")
            parts.append(f"{where}: {item.get('msg', 'invalid')}")
        return JSONResponse({"error": "invalid", "reason": "; ".join(parts)}, 422)


def add_sessions(
    app: FastAPI,
    auth: Auth,
    model: type[SignIn],
    doc: str,
    refused: Refused = refused_logged,
) -> None:
    """``POST /api/sessions`` (sign in with ``model``'s role, id and PIN: ``doc``; a refusal
    is answered as ``refused`` says, which may journal it) and ``DELETE /api/sessions``
    (sign out)."""

    async def sign_in(body: model, request: Request) -> SessionOut:  # type: ignore[valid-type]
        client = client_of(request)
        try:
            session = await auth.sign_in(body.role, body.id, body.pin, client)
        except AuthError as error:
            raise await refused(error, body, request) from None
        return session_out(session, auth)

    sign_in.__doc__ = doc
    app.post("/api/sessions", response_model=SessionOut, tags=["sign-in"])(sign_in)

    @app.delete("/api/sessions", status_code=204, tags=["sign-in"])
    async def sign_out(authorization: Annotated[str | None, Header()] = None) -> None:
        """End the caller's session."""
        if authorization is not None:
            auth.sign_out(authorization.partition(" ")[2])


def bearer_session(
    authorization: str | None, session_of: Callable[[str | None], Session | None]
) -> Session | None:
    """The session (``session_of`` its token) of an ``Authorization: Bearer TOKEN`` header,
    None without one; 401 for a malformed header or a session that no longer holds."""
    token = None
    if authorization is not None:
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token:
            raise ApiError(401, "unauthorized", "Authorization: expected 'Bearer TOKEN'")
    try:
        return session_of(token)
    except AuthError as error:
        raise ApiError(error.status, "unauthorized", error.reason) from None


async def send_until_closed(socket: WebSocket, send_all: Callable[[], Awaitable[None]]) -> None:
    """Run ``send_all`` (the feed's messages to ``socket``) while reading and ignoring what
    the client sends, until the client goes (``send_all`` is then cancelled)."""
    sender = asyncio.create_task(send_all())
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while True:
            await socket.receive_text()
    sender.cancel()
    with contextlib.suppress(asyncio.CancelledError, WebSocketDisconnect, RuntimeError):
        await sender


def session_out(session: Session, auth: Auth) -> SessionOut:
    return SessionOut(
        token=session.token,
        role=session.role,
        who=session.who,
        expires_in=session.expires - auth.clock(),
        seat=session.seat,
        sitting=session.sitting,
    )
