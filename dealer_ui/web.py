"""What every app of the web layer shares: the console's (:mod:`dealer_ui.app`) and the
floor service's (:mod:`dealer_ui.pit.app`).

- :func:`new_app`: a FastAPI app guarded by :mod:`dealer_ui.guard` (Host and Origin
  allow-lists, limits, headers) and by :class:`PinGate` (an attempt at a PIN refused
  before the app reads it, when it need not be checked nor journaled), its errors answered
  as ``{"error", "reason", "code"}`` (:class:`ApiError`; a malformed request 422 naming
  each field), ``/docs`` only when the configuration says so;
- :func:`sessions_router`: ``POST /api/sessions`` (sign in with an id and PIN) and
  ``DELETE /api/sessions`` (sign out), checked by the app's :class:`dealer_ui.auth.Auth`;
- :func:`bearer_session`: the session of an ``Authorization: Bearer TOKEN`` header;
- :func:`socket_session` and :func:`send_until_closed`: a WebSocket feed's sign-in
  (``?token=TOKEN``; close code 4401 when refused) and its pump.

Each app keeps what its routes need in ``app.state`` (``auth``, ``feed`` and its own);
its routers' dependencies read it from there.
"""

import asyncio
import contextlib
import json
import logging
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated, Any, Literal, cast, get_args

from fastapi import APIRouter, FastAPI, Header, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.requests import HTTPConnection
from fastapi.responses import JSONResponse
from pydantic import AfterValidator, BaseModel, Field
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from controller import text
from controller.config_file import Api
from dealer_ui.auth import Auth, AuthError, Denied, Session
from dealer_ui.codes import Declined
from dealer_ui.guard import SAFE_METHODS, protect
from luck_errors import LuckTableError

log = logging.getLogger(__name__)


class ApiError(LuckTableError):
    """An answer other than 2xx: ``status``, the ``error`` code, the ``reason`` and
    ``code``, why as data (docs/api.md): one of the reason enums (a ``StrEnum``: the
    table's, a credential's, the service's, the API's own ``Declined``), or the code a
    table's console answered (the pit)."""

    def __init__(self, status: int, error: str, reason: str, code: str) -> None:
        super().__init__(reason)
        self.status, self.error, self.reason, self.code = status, error, reason, code

    def body(self) -> dict[str, str]:
        """The answer's JSON: ``error``, ``reason`` and ``code``."""
        return error_body(self.error, self.reason, self.code)


def error_body(error: str, reason: str, code: str) -> dict[str, str]:
    """An error answer's JSON (:class:`ErrorOut`)."""
    return {"error": error, "reason": reason, "code": str(code)}


class ErrorOut(BaseModel):
    error: str = Field(
        description="unauthorized, forbidden, not_found, not_allowed, refused, stale, invalid, "
        "locked, rate_limited, unavailable"
    )
    reason: str = Field(
        description="what was wrong, for people (the engine's words for a "
        "refused input): never decided on"
    )
    code: str = Field(
        description="why, as data: the table's refusal of an input, a refused credential "
        "or caller, a table that takes no input, or the API's own reason (docs/api.md's "
        "codes)",
    )


def _limits(rule: text.FreeText) -> Any:
    """What the OpenAPI says of a free-text field (the rule checks it)."""
    return Field(json_schema_extra={"minLength": 1, "maxLength": rule.limit})


#: Free text a person types, each kind with its rule (``controller.text``): refused with 422
#: naming the field and the character (``player: Value error, U+202E ... at 5: ...``), kept
#: NFC and stripped.
Name = Annotated[str, AfterValidator(text.NAME), _limits(text.NAME)]
Id = Annotated[str, AfterValidator(text.ID), _limits(text.ID)]
Label = Annotated[str, AfterValidator(text.LABEL), _limits(text.LABEL)]
Reason = Annotated[str, AfterValidator(text.REASON), _limits(text.REASON)]


#: The longest PIN taken (the API's models' ``pin``).
MAX_PIN = 64


class SignIn(BaseModel):
    role: Literal["dealer", "surveillance"] = "dealer"
    id: Id
    pin: str = Field(min_length=1, max_length=MAX_PIN)


class SessionOut(BaseModel):
    token: str
    role: str
    who: str
    expires_in: float = Field(description="seconds until the session expires")
    seat: int | None = None
    sitting: int | None = Field(
        default=None, description="a player's token: the sitting (sit-down) it is bound to"
    )


#: Answers a refused sign-in (the error, the sign-in, the request), journaling
#: or logging it first.
Refused = Callable[[AuthError, SignIn, Request], Awaitable[ApiError]]


def new_app(
    api: Api,
    auth: Auth,
    feed: Any,
    lifespan: Callable[[FastAPI], contextlib.AbstractAsyncContextManager[None]],
    *,
    title: str,
    description: str,
    errors: tuple[int, ...],
    sign_in: type[SignIn] = SignIn,
    supervised: bool = True,
) -> FastAPI:
    """A guarded app for ``api`` (docs/security.md): ``auth`` and ``feed`` (stopped first
    when the server stops) in its state, ``errors`` the statuses its operations document
    with :class:`ErrorOut`; ``sign_in``: its sign-in's model (the roles it takes);
    ``supervised``: it takes supervisors' actions (a body naming a ``supervisor`` and
    carrying a PIN)."""
    app = FastAPI(
        title=title,
        description=description,
        version="1",
        lifespan=lifespan,
        responses={code: {"model": ErrorOut} for code in errors},
        **docs_pages(api),
    )
    app.state.feed = feed
    app.state.auth = auth
    # inside the guard (added before it): after its checks
    app.add_middleware(PinGate, auth=auth, sign_in=sign_in, supervised=supervised)
    protect(app, api)
    add_error_handlers(app)
    return app


class PinGate:
    """Refuses an attempt at a PIN before the app reads it, when it needs neither its PIN
    checked nor a journal entry (:meth:`Auth.refused_early`: the id is locked, 423; its
    address is locked out, 429, but for the first refusal of the lockout, which the app
    journals): no routing, no model, no session looked up, and one log line per burst
    (a sweep of guesses from many addresses costs the table's loop little per guess); its
    answer waits ``Auth.refusal_delay`` (``[api] refusal_delay``) on a timer, so that a
    sweeper waits rather than sends.

    An attempt is a state-changing ``/api/`` request whose JSON body carries a ``pin``
    (text of 1 to 64 characters) and names whose: ``supervisor`` (a supervisor's action,
    where the app takes them), or ``id`` with the sign-in's ``role`` (one of the app's
    sign-in roles; absent, its default: a dealer push's incoming dealer at the console).
    Anything else, and every attempt not refused here, goes on to the app unchanged (its
    body given again), where :meth:`Auth.check_pin` is the rule; an id is read as the app
    reads it (``controller.text.ID``). The lock is judged here before the body's other fields: an
    attempt for a locked id is refused 423 even if the app would have found it malformed."""

    def __init__(self, app: ASGIApp, auth: Auth, sign_in: type[SignIn], supervised: bool) -> None:
        self.app, self.auth, self.supervised = app, auth, supervised
        role = sign_in.model_fields["role"]
        self.role: str = role.default
        self.roles = frozenset(get_args(role.annotation))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] in SAFE_METHODS
            or not scope["path"].startswith("/api/")
        ):
            await self.app(scope, receive, send)
            return
        read: deque[Message] = deque()
        while True:  # at most [api] max_body bytes: the guard has seen its length
            message = await receive()
            read.append(message)
            if message["type"] != "http.request" or not message.get("more_body", False):
                break
        attempt = self.attempt(b"".join(m.get("body", b"") for m in read))
        if attempt is not None:
            client = scope.get("client")
            error = self.auth.refused_early(*attempt, client[0] if client else "unknown")
            if error is not None:
                await asyncio.sleep(self.auth.refusal_delay)  # a sweep's guess waits, not works
                await JSONResponse(refusal(error).body(), error.status)(scope, receive, send)
                return

        async def again() -> Message:
            return read.popleft() if read else await receive()

        await self.app(scope, again, send)

    def attempt(self, body: bytes) -> tuple[str, str] | None:
        """The role and id whose PIN ``body`` carries (None: it is no attempt, or not one
        the app would read)."""
        if b'"pin"' not in body:
            return None
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):
            return None
        if not isinstance(data, dict):
            return None
        pin = data.get("pin")
        if not isinstance(pin, str) or not 1 <= len(pin) <= MAX_PIN:
            return None
        if self.supervised and "supervisor" in data:
            role, who = "supervisor", data["supervisor"]
        else:
            role, who = data.get("role", self.role), data.get("id")
            if role not in self.roles:
                return None
        if not isinstance(who, str):
            return None
        try:
            return role, text.ID(who)
        except text.TextError:
            return None


def docs_pages(api: Api) -> dict[str, Any]:
    """FastAPI's ``/docs`` and ``/redoc`` pages (which load Swagger UI and ReDoc from their
    CDN) only with ``[api] docs = true``; ``/openapi.json`` is always served."""
    return {} if api.docs else {"docs_url": None, "redoc_url": None}


#: The ``error`` and ``code`` of the answers the framework itself gives (an unknown path, a
#: method the path does not take), by status; any other: ``INVALID``.
HTTP_ERRORS = {
    404: ("not_found", Declined.NO_PATH),
    405: ("not_allowed", Declined.METHOD_NOT_ALLOWED),
}
INVALID = ("invalid", Declined.INVALID_REQUEST)


def add_error_handlers(app: FastAPI) -> None:
    """Errors as ``{"error", "reason", "code"}``: an :class:`ApiError` with its status, a malformed
    request 422 naming each field (a body that is not JSON text at all, too: bytes that are
    not UTF-8, or nested too deep to read), the framework's own (an unknown path, 404; a
    method the path does not take, 405) with theirs."""

    @app.exception_handler(ApiError)
    async def api_error(_: Request, error: ApiError) -> JSONResponse:
        return JSONResponse(error.body(), error.status)

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, error: RequestValidationError) -> JSONResponse:
        parts = []
        for item in error.errors():
            where = ".".join(str(part) for part in item.get("loc", ()) if part != "body")
            parts.append(f"{where}: {item.get('msg', 'invalid')}")
        return JSONResponse(error_body("invalid", "; ".join(parts), Declined.INVALID_FIELD), 422)

    @app.exception_handler(HTTPException)
    async def framework_error(_: Request, error: HTTPException) -> JSONResponse:
        if error.status_code == 400 and error.__cause__ is not None:  # the body unreadable
            reason = unreadable_body(error.__cause__)
            return JSONResponse(error_body("invalid", reason, Declined.UNREADABLE_BODY), 422)
        kind, code = HTTP_ERRORS.get(error.status_code, INVALID)
        body = error_body(kind, str(error.detail), code)
        return JSONResponse(body, error.status_code, headers=error.headers)


def unreadable_body(cause: BaseException) -> str:
    """Why a request's body could not be read as JSON at all (``cause``: the framework's)."""
    if isinstance(cause, UnicodeDecodeError):
        return f"body: not UTF-8 text (byte {cause.start})"
    if isinstance(cause, RecursionError):
        return "body: JSON nested too deep"
    return f"body: not readable as JSON ({type(cause).__name__})"


async def auth_of(connection: HTTPConnection) -> Auth:
    """The app's sessions and PIN checks (a dependency)."""
    auth: Auth = connection.app.state.auth
    return auth


def client_of(request: HTTPConnection) -> str:
    """The address a request came from (the one a trusted proxy names, behind one)."""
    return request.client.host if request.client else "unknown"


def refusal(error: AuthError) -> ApiError:
    """The answer to a refused id or PIN: 401, 423 for an id locked, 429 while the address
    is locked out, or 503 while too many PINs wait to be checked."""
    codes = {423: "locked", 429: "rate_limited", 503: "unavailable"}
    code = codes.get(error.status, "unauthorized")
    return ApiError(error.status, code, error.reason, error.code)


async def refused_logged(error: AuthError, body: SignIn, request: Request) -> ApiError:
    """A refused sign-in where there is no journal: logged, then answered."""
    client = client_of(request)
    log.warning("sign-in refused: %s %r from %s: %s", body.role, body.id, client, error.reason)
    return refusal(error)


def sessions_router(model: type[SignIn], doc: str, refused: Refused = refused_logged) -> APIRouter:
    """``POST /api/sessions`` (sign in with ``model``'s role, id and PIN: ``doc``; a refusal
    is answered as ``refused`` says, which may journal it) and ``DELETE /api/sessions``
    (sign out)."""
    router = APIRouter(prefix="/api/sessions", tags=["sign-in"])

    async def sign_in(body: model, request: Request) -> SessionOut:  # type: ignore[valid-type]  # a model made at run time (create_model)
        auth, signing = await auth_of(request), cast(SignIn, body)  # model: a kind of SignIn
        try:
            session = await auth.sign_in(signing.role, signing.id, signing.pin, client_of(request))
        except AuthError as error:
            raise await refused(error, body, request) from None
        return session_out(session, auth)

    sign_in.__doc__ = doc
    router.post("", response_model=SessionOut)(sign_in)

    @router.delete("", status_code=204)
    async def sign_out(
        request: Request, authorization: Annotated[str | None, Header()] = None
    ) -> None:
        """End the caller's session."""
        if authorization is not None:
            (await auth_of(request)).sign_out(authorization.partition(" ")[2])

    return router


def session_out(session: Session, auth: Auth) -> SessionOut:
    return SessionOut(
        token=session.token,
        role=session.role,
        who=session.who,
        expires_in=session.expires - auth.clock(),
        seat=session.seat,
        sitting=session.sitting,
    )


def bearer_session(
    authorization: str | None, session_of: Callable[[str | None], Session | None]
) -> Session | None:
    """The session (``session_of`` its token) of an ``Authorization: Bearer TOKEN`` header,
    None without one; 401 for a malformed header or a session that no longer holds."""
    token = None
    if authorization is not None:
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token:
            reason = "Authorization: expected 'Bearer TOKEN'"
            raise ApiError(401, "unauthorized", reason, Denied.NOT_BEARER)
    try:
        return session_of(token)
    except AuthError as error:
        raise ApiError(error.status, "unauthorized", error.reason, error.code) from None


async def socket_session(
    socket: WebSocket, session_of: Callable[[], Session | None]
) -> tuple[bool, Session | None]:
    """Accept ``socket`` and sign it in: (True, the session ``session_of`` gives, None for
    the public), or (False, None) once it is closed with code 4401 and the reason."""
    await socket.accept()
    try:
        return True, session_of()
    except AuthError as error:
        await socket.close(code=4401, reason=error.reason)
        return False, None


async def send_until_closed(socket: WebSocket, messages: AsyncIterator[str], stopped: str) -> None:
    """Send ``messages`` to ``socket`` while reading and dropping what the client sends (a
    feed takes no input; the server's protocol has judged each frame already:
    :func:`dealer_ui.guard.socket_protocol`, closing the feed on a binary frame, a message
    too big or frames too fast), until the client goes or is closed (the sending is then
    cancelled) or the messages end (the socket closed with code 1001 and ``stopped``); a
    message that raises :class:`AuthError` (the session no longer holds) closes it with
    code 4401 and the reason."""

    async def send_all() -> None:
        try:
            async for message in messages:
                await socket.send_text(message)
        except AuthError as error:
            await socket.close(code=4401, reason=error.reason)
            return
        await socket.close(code=1001, reason=stopped)

    sender = asyncio.create_task(send_all())
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while (await socket.receive())["type"] != "websocket.disconnect":
            pass  # text or bytes alike: nothing a client sends is read as text here
    sender.cancel()
    with contextlib.suppress(asyncio.CancelledError, WebSocketDisconnect, RuntimeError):
        await sender
