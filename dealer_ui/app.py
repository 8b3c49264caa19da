"""The console's app: the REST API, the WebSocket feed and the console page, for one table
service (the plumbing it shares with the floor service's: :mod:`dealer_ui.web`).

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

The routes are routers of this module (sign-in, table, surveillance, dealer, supervisor,
feed, pages) whose dependencies find the table in ``app.state.table`` (a
:class:`TableApp`): who the caller is (:func:`caller`), a dealer's session
(:func:`dealer`), surveillance's (:func:`surveillance`).
"""

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Self, cast

from fastapi import APIRouter, Depends, FastAPI, Header, Query, Request, WebSocket
from fastapi.requests import HTTPConnection
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field, ValidationError, model_validator
from starlette.types import ASGIApp, Receive, Scope, Send

from controller.config import MAX_STUDIO_TOKEN_HOURS, MIN_STUDIO_DELAY, Lacking, lacking
from controller.history.hands import HandSummaryJson
from controller.service import Guard, Paused, Stale, TableService, TableStopped
from controller.table import (
    AlertKind,
    Covered,
    Refuse,
    SignInAttack,
    SignInLocked,
    SupervisorInput,
    Table,
    TableInput,
    TableInputError,
    input_from_json,
    second_needed,
)
from controller.table.inputs import InputJson
from dealer_ui.access import (
    At,
    FailedAttempt,
    PlayerToken,
    Refused,
    Replaced,
    StudioIssued,
    StudioRevoked,
    SupervisorRequest,
    Unlocked,
    Via,
)
from dealer_ui.approvals import CALL, ActionBody, RequestJson, Requests
from dealer_ui.approvals import Request as RequestRecord
from dealer_ui.archive import PAGE, Archive, ArchivedHandJson
from dealer_ui.auth import HOUR, Attack, Auth, AuthError, Denied, Lock, Session, listed
from dealer_ui.badges import BadgeRefused, Badges
from dealer_ui.codes import Declined
from dealer_ui.feeds import Feed
from dealer_ui.guard import peer_of
from dealer_ui.kept_sessions import KeptSessions, sessions_path
from dealer_ui.models import EventOut, StepOut, ViewOut
from dealer_ui.operations import router as operations_router
from dealer_ui.refusals import Refusals
from dealer_ui.studio import ISSUED, REVOKED, StudioFeed, StudioPass, StudioTokens, digest
from dealer_ui.views import Role, ViewJson, effects_view, view
from dealer_ui.web import (
    ApiError,
    Id,
    Label,
    Name,
    Reason,
    SessionOut,
    SignIn,
    bearer_session,
    client_of,
    error_body,
    new_app,
    refusal,
    send_until_closed,
    session_out,
    sessions_router,
    socket_session,
)

STATIC = Path(__file__).parent / "static"
NO_BADGE_READER = "this console has no badge reader"
#: Why a player's own decision is refused where the dealer enters them (the table core's
#: words, had it reached the table).
PLAYERS_DO_NOT_DECIDE = "players do not enter their own decisions at this table: the dealer does"

log = logging.getLogger(__name__)


#: The access records of player tokens issued, and of an id unlocked without an alert.
PLAYER_TOKEN, UNLOCKED = "player_token", "sign_in_unlocked"
#: How far back the journal is read at start for the player tokens of the sittings.
PLAYER_TOKEN_HOURS = 24


class Supervisor(BaseModel):
    supervisor: Id = Field(description="the supervisor's id")
    pin: str = Field(min_length=1, max_length=64)
    why: Reason

    def guard(self) -> Guard | None:
        """What the table must still be for the action to be taken (None: anything)."""
        return None

    def resolved(self, table: Table) -> Self:
        """The action with what the table names filled in (a card by its place)."""
        return self


def _input(record: InputJson) -> TableInput:
    """The table input ``record`` (422 naming what is wrong)."""
    try:
        return input_from_json({"at": 0, **record})
    except TableInputError as error:
        raise ApiError(422, "invalid", str(error), Declined.INVALID_INPUT) from None


def at_moment(hand: int | None, step: int | None, what: str, then: str) -> Guard | None:
    """With ``hand`` and ``step`` (the view's, where ``what`` was asked): refuse it once the
    table has moved on from that moment (``then``: what to do instead)."""
    if hand is None and step is None:
        return None
    asked = f"hand {hand}, step {step}"

    def still_asked(table: Table) -> str | None:
        if (hand, step) == (table.hand_number, len(table.hand_log)):
            return None
        now = f"hand {table.hand_number}, step {len(table.hand_log)}"
        return f"{what} was asked at {asked}; the table has moved on ({now}): {then}"

    return still_asked


class PlayerTokenIn(BaseModel):
    seat: int = Field(ge=1, le=8)
    supervisor: Supervisor | None = Field(
        default=None,
        description="a supervisor's id, PIN and reason: needed for a second token for the "
        "same sitting (the first one ends)",
    )


class UnlockIn(Supervisor):
    role: Literal["dealer", "supervisor"] = Field(
        description="whose id: a dealer's or a supervisor's"
    )
    id: str = Field(min_length=1, max_length=64, description="the id locked")


class UnlockOut(BaseModel):
    role: str
    id: str
    alert: int | None = Field(description="the lock's alert resolved (None: the table had none)")


#: A player's decisions.
DecisionKind = Literal[
    "bring_in", "complete", "check", "call", "bet", "raise", "fold", "bonus", "show", "muck"
]


class DecisionIn(BaseModel):
    seat: int
    do: DecisionKind
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
        what = f"seat {self.seat}: {self.do}"
        return at_moment(self.hand, self.step, what, "look at the table and decide again")


class ConsoleOut(BaseModel):
    idle_lock: float = Field(
        description="seconds without a touch or key before the dealer's screen locks"
    )
    escalate_after: float = Field(
        description="seconds an alert stays open before the consoles show it escalated"
    )
    lacking: list[Lacking] = Field(
        description="the protections that do not hold with the table's hardware (its shoe "
        "and seats: docs/hardware.md)"
    )


class SitDownIn(BaseModel):
    seat: int
    player: Name
    buy_in: int
    player_id: Id | None = None  # the player card's number, if the player gave one


class ChipsIn(BaseModel):
    chips: int


class SeatToIn(BaseModel):
    to: int = Field(description="the empty seat the player moves to")


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
    """The card that lies with the wrong face: named (``card``), or by its ``place`` among
    the seat's cards, as the dealer's console names a hole card it does not see; ``hand``:
    the hand it was dealt in (refused, 409 stale, once another hand is on)."""

    seat: int
    card: str | None = Field(
        default=None, description="the card lying with the wrong face, e.g. '4c'"
    )
    place: int | None = Field(
        default=None,
        ge=1,
        le=8,
        description="instead of `card`: the card's place among the seat's cards in this hand "
        "(1 its first card, in the order dealt)",
    )
    hand: int | None = Field(default=None, description="the hand number the card is in")

    @model_validator(mode="after")
    def _one_card(self) -> Self:
        if (self.card is None) == (self.place is None):
            raise ValueError("name the card, or give its place (one of them)")
        return self

    def resolved(self, table: Table) -> Self:
        """The card at ``place`` named (409 if the seat has no card there now)."""
        if self.place is None:
            return self
        hand = table.hand
        cards = hand.player(self.seat).cards if table.in_play(self.seat) and hand else ()
        if self.place > len(cards):
            reason = f"seat {self.seat} has no card {self.place} in play"
            raise ApiError(409, "refused", reason, Refuse.NOT_SEATS_CARD)
        return self.model_copy(update={"card": str(cards[self.place - 1].card)})

    def guard(self) -> Guard | None:
        """Refuse it if the hand has changed or, by place, another card lies there now."""
        if self.hand is None and self.place is None:
            return None

        def same_card(table: Table) -> str | None:
            if self.hand is not None and table.hand_number != self.hand:
                now = f"the table is at hand {table.hand_number}"
                return f"a card of hand {self.hand} was to be turned; {now}"
            if self.place is not None and self.resolved(table).card != self.card:
                return f"seat {self.seat}'s card {self.place} has been corrected meanwhile"
            return None

        return same_card


class ResolveIn(Supervisor):
    alert: int
    remedy: Literal["hold", "dead", "done", "replace_deck", "void"]


class CorrectStackIn(Supervisor):
    seat: int
    stack: int


class UndoIn(Supervisor):
    """The decision to undo, and the view's ``hand`` and ``step`` just after it (the
    console's): refused (409 stale) once the table has moved on from there."""

    seat: int
    do: DecisionKind
    hand: int | None = Field(default=None, description="the view's `hand_number` after it")
    step: int | None = Field(default=None, description="the view's `step` after it")

    def guard(self) -> Guard | None:
        what = f"the undo of seat {self.seat}'s {self.do}"
        return at_moment(self.hand, self.step, what, "the decision stands")


class HandSummaryOut(BaseModel):
    hand: int = Field(description="the hand number")
    started: str = Field(description="when it started (ISO 8601, UTC)")
    ended: str = Field(description="when it ended (ISO 8601, UTC), or 'in progress'")
    dealer: str | None = Field(
        default=None, description="the dealer who dealt it (null: the table named none)"
    )
    phase: str = Field(description="complete, void, or the phase of the hand in progress")
    seats: list[int] = Field(description="the seats dealt in")
    players: dict[str, str] = Field(
        default_factory=dict, description="the name of the player at each seat dealt in"
    )
    pot: int = Field(description="the chips awarded (0 for a void hand or one in progress)")
    winners: list[int] = Field(description="the seats that won a pot")
    rake: int | None = Field(
        default=None, description="the house's rake of the hand (only where the rules set one)"
    )
    jackpot_drop: int | None = Field(
        default=None, description="the jackpot drop of the hand (only where the rules set one)"
    )


class HandOut(BaseModel):
    """A past hand as ``luck-table history --json`` gives it, with its history text."""

    hand: int
    started: str
    ended: str
    dealer: str | None = Field(
        default=None, description="the dealer who dealt it (null: the table named none)"
    )
    script: dict[str, Any] = Field(description="the hand script (docs/replay.md)")
    outcome: dict[str, Any] = Field(description="the replayed outcome, every card shown")
    recorded: bool = Field(description="the replay gives the outcome the table recorded")
    history: str = Field(description="the hand history, street by street, hole cards shown")
    recorded_hand: dict[str, Any] = Field(
        description="the hand as the table recorded it: every card dealt (a void hand's too)"
    )


SUPERVISOR_ACTIONS: list[tuple[str, type[Supervisor], Callable[[Any], InputJson], str]] = [
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
        "Apply a remedy (hold, dead, done, replace_deck, void) to an open alert.",
    ),
    (
        "correct-stack",
        CorrectStackIn,
        lambda body: {"type": "correct_stack", "seat": body.seat, "stack": body.stack},
        "Set a seat's stack between its hands (the difference is kept in `corrected`).",
    ),
    (
        "undo",
        UndoIn,
        lambda body: {"type": "undo_decision", "seat": body.seat, "do": body.do},
        "Undo the hand's last decision, before the next card (`hand`, `step`: the moment "
        "just after it): the hand as it was before it.",
    ),
]


#: The routes answering a view leave out what the role does not get (docs: dealer_ui.models).
STEP: dict[str, Any] = {"response_model": StepOut, "response_model_exclude_unset": True}
VIEW: dict[str, Any] = {"response_model": ViewOut, "response_model_exclude_unset": True}

#: The statuses the console's operations answer with ``{"error", "reason"}``.
ERRORS = (401, 403, 404, 409, 422, 423, 429, 503)


@dataclass(slots=True)
class TableApp:
    """What the console's routes work with: the table service, the sessions, the live feed,
    the journal's past hands, and the studio's delayed feed and tokens."""

    service: TableService
    auth: Auth
    feed: Feed
    archive: Archive
    studio: StudioFeed
    studio_tokens: StudioTokens
    refusals: Refusals
    player_tokens: dict[int, int]  # the tokens issued for each sitting (by its number)
    badges: Badges | None = None  # the console's badge reader ([devices.console])

    def holder(self, given: str | None, badge: int | None, kind: str) -> str:
        """The id ``given``, or the one the console's badge tap ``badge`` stands for (a
        ``kind``'s): one of the two (422); a tap that stands for none: 401."""
        if (given is None) == (badge is None):
            one = "an id or a badge tap (`badge`), one of them"
            raise ApiError(422, "invalid", one, Declined.ID_OR_BADGE)
        if given is not None:
            return given
        assert badge is not None
        if self.badges is None:
            raise ApiError(404, "not_found", NO_BADGE_READER, Declined.NO_BADGE_READER)
        try:
            return self.badges.holder(badge, kind)
        except BadgeRefused as error:
            raise ApiError(401, "unauthorized", str(error), error.code) from None

    def badge_used(self, badge: int | None) -> None:
        """The tap ``badge`` (if any) signed someone in: it serves no more."""
        if badge is not None and self.badges is not None:
            self.badges.used(badge)

    def live_session(self, token: str | None) -> Session | None:
        """The session of ``token`` if it still holds (not expired; a player's token: its
        sitting not ended); AuthError if not."""
        session = self.auth.session(token)
        if session is not None and session.seat is not None:
            place = self.service.table.seat(session.seat)
            self.auth.seat_changed(session, None if place is None else place.sitting)
        return session

    async def submit(
        self, record: InputJson, session: Session | None, guard: Guard | None = None
    ) -> StepOut:
        """Submit the input ``record`` (409 refused or stale, 422 malformed): the step as
        ``session`` may see it."""
        item = _input(record)
        try:
            step = await self.service.submit(item, guard)
        except Stale as error:
            raise ApiError(409, "stale", str(error), Declined.STALE) from None
        except Paused as error:
            raise ApiError(409, "paused", str(error), Refuse.PAUSED) from None
        refusal = step.refusal
        if refusal is not None:
            raise ApiError(409, "refused", refusal.message, refusal.code)
        role, seat = role_of(session)
        return StepOut(
            position=self.service.position,
            events=[
                EventOut(**event) for event in effects_view(step.effects, step.table, role, seat)
            ],
            view=ViewOut.model_validate(view(step.table, role, seat)),
        )

    def never_here(
        self, session: Session, what: str, code: Refuse, reason: str, request: Request
    ) -> ApiError:
        """An input ``session``'s role may never make at this table: not a table input (not
        journaled as one, the table never sees it), counted in the session's burst of
        refusals (journaled once per burst, :mod:`dealer_ui.refusals`); the 403 to answer."""
        fields: Refused = {
            "input": what,
            "role": session.role,
            "who": session.who,
            "seat": session.seat,
            "sitting": session.sitting,
            "client": client_of(request),
            "reason": reason,
            "code": code,
        }
        self.refusals.refuse(session.token, fields)
        return ApiError(403, "forbidden", reason, code)

    async def refused_pin(
        self,
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
            via: Via = {} if peer == client else {"peer": peer}  # the proxy it came through
            at: At = {} if by is None else {"by": by}
            attempt: FailedAttempt = {
                "role": role,
                "who": who,
                "action": action,
                "client": client,
                **via,
                "status": error.status,
                "reason": error.reason,
                **at,
            }
            await self.service.record_failed_attempt(attempt)
        return refusal(error)

    async def check_supervisor(
        self, body: Supervisor, action: str, request: Request, session: Session
    ) -> None:
        """Check the supervisor's PIN for ``action`` (refused: journaled, and the error)."""
        try:
            await self.auth.supervisor(body.supervisor, body.pin, client_of(request))
        except AuthError as error:
            raise await self.refused_pin(
                error, "supervisor", body.supervisor, action, request, by=session.who
            ) from None

    async def supervised(
        self, body: Supervisor, record: InputJson, request: Request, session: Session
    ) -> StepOut:
        """Check the supervisor's PIN, then submit ``record`` (a void: for the hand named)."""
        await self.check_supervisor(body, record["type"], request, session)
        return await self.submit_supervised(body, record, session)

    async def submit_supervised(
        self, body: Supervisor, record: InputJson, session: Session, first: str | None = None
    ) -> StepOut:
        """Submit ``record`` with the supervisor's id and reason, its PIN checked (``first``:
        the supervisor who approved it first, under two-person control: ``body``'s is then
        the second)."""
        signed = {"who": body.supervisor} if first is None else {"who": first}
        signed |= {} if first is None else {"second": body.supervisor}
        return await self.submit({**record, **signed, "why": body.why}, session, body.guard())

    def second_needed(self, body: Supervisor, record: InputJson) -> Covered | None:
        """What of the supervisor's action ``record`` the house's two-person control covers
        at the table now (``controller.table.second_needed``); None: one PIN is enough."""
        item = _input({**record, "who": body.supervisor, "why": body.why})
        assert isinstance(item, SupervisorInput), item
        return second_needed(self.service.table, item)

    def open_alert(self, kind: AlertKind, role: str, who: str) -> int | None:
        """The number of the open ``kind`` alert (a sign-in's) of ``role`` ``who``, if any."""
        for alert in self.service.table.alerts:
            facts = alert.facts
            if alert.kind is kind and (
                getattr(facts, "role", None),
                getattr(facts, "who", None),
            ) == (role, who):
                return alert.id
        return None

    def locked_at_table(self, kind: str, who: str) -> bool:
        """The table holds ``kind`` ``who`` locked: its ``sign_in_locked`` alert is open."""
        return self.open_alert(AlertKind.SIGN_IN_LOCKED, kind, who) is not None

    async def attack_alert(self, attack: Attack) -> None:
        """An id under attack: a non-blocking alert at the table (journaled, shown to the
        supervisor and surveillance, shipped to the floor); none while one for the same id
        is open (the ids not configured are one)."""
        if self.open_alert(AlertKind.SIGN_IN_ATTACK, attack.role, attack.who) is not None:
            return
        item = SignInAttack(
            at=0,
            role=attack.role,
            who=attack.who,
            failures=attack.failures,
            window=max(1, round(attack.window)),
            clients=listed(attack.clients),
        )
        await self._raise(item)

    async def lock_alert(self, lock: Lock) -> bool:
        """A configured id locked: a blocking alert at the table, which holds the lock until
        a supervisor resolves it (True once it is open)."""
        if self.locked_at_table(lock.kind, lock.who):
            return True
        item = SignInLocked(
            at=0,
            role=lock.kind,
            who=lock.who,
            failures=lock.failures,
            window=round(HOUR),
            clients=listed(lock.clients),
        )
        return await self._raise(item)

    async def _raise(self, item: SignInAttack) -> bool:
        """Submit a sign-in alert's input: True once it is raised."""
        try:
            step = await self.service.submit(item)
        except RuntimeError as error:  # the service is stopping: no table to raise it at
            log.error("the %s alert could not be raised: %s", item.tag, error)
            return False
        if step.refused:
            log.error("the %s alert was refused: %s", item.tag, step.refused)
            return False
        return True


def role_of(session: Session | None) -> tuple[Role, int | None]:
    if session is None:
        return Role.PUBLIC, None
    return Role(session.role), session.seat


# Dependencies ----------------------------------------------------------------------------


async def table_of(connection: HTTPConnection) -> TableApp:
    """The app's table (a dependency)."""
    table: TableApp = connection.app.state.table
    return table


TheTable = Annotated[TableApp, Depends(table_of)]


async def caller(
    table: TheTable, authorization: Annotated[str | None, Header()] = None
) -> Session | None:
    """The caller's session (None: the public); 401 for one that no longer holds."""
    return bearer_session(authorization, table.live_session)


Caller = Annotated[Session | None, Depends(caller)]


async def staff(session: Caller) -> Session:
    if session is None or session.role not in ("dealer", "surveillance"):
        reason = "a dealer's or surveillance session is needed: sign in"
        raise ApiError(403, "forbidden", reason, Denied.SESSION_NEEDED)
    return session


async def dealer(session: Caller) -> Session:
    if session is None or session.role != "dealer":
        reason = "a dealer's session is needed: sign in"
        raise ApiError(403, "forbidden", reason, Denied.SESSION_NEEDED)
    return session


async def surveillance(session: Caller) -> Session:
    if session is None or session.role != "surveillance":
        reason = "a surveillance session is needed: sign in with a supervisor's id and PIN"
        raise ApiError(403, "forbidden", reason, Denied.SESSION_NEEDED)
    return session


Dealer = Annotated[Session, Depends(dealer)]
Staff = Annotated[Session, Depends(staff)]
Surveillance = Annotated[Session, Depends(surveillance)]


# Sign-in ---------------------------------------------------------------------------------


async def refused_sign_in(error: AuthError, body: SignIn, request: Request) -> ApiError:
    """A refused sign-in, journaled."""
    return await (await table_of(request)).refused_pin(
        error, body.role, body.id, "sign_in", request
    )


sign_in = sessions_router(
    SignIn,
    "Sign in with an id and PIN: a dealer, or a supervisor for the surveillance view.",
    refused_sign_in,
)
tokens = APIRouter(tags=["sign-in"])


@tokens.post("/api/player-tokens", response_model=SessionOut)
async def player_token(
    body: PlayerTokenIn, request: Request, table: TheTable, session: Dealer
) -> SessionOut:
    """A token for the player at a seat: their own hole cards, their own decisions;
    it is bound to their sitting (this sit-down) and ends when they leave the seat. One
    token per sitting: another needs a supervisor's id and PIN (``supervisor``), and ends
    the first. Each is journaled (who issued it, the seat, the sitting, the token's
    SHA-256 digest, never the token) before it is given."""
    place = table.service.table.seat(body.seat)
    if place is None:
        raise ApiError(409, "refused", f"seat {body.seat}: no player is seated", Refuse.SEAT_EMPTY)
    sitting, earlier = place.sitting, table.player_tokens.get(place.sitting, 0)
    replaced: Replaced = {}
    if earlier:
        supervisor = body.supervisor
        if supervisor is None:
            reason = (
                f"seat {body.seat}: a token was issued for this sitting already; another "
                "needs a supervisor's id and PIN, and ends the first"
            )
            raise ApiError(403, "forbidden", reason, Denied.SUPERVISOR_NEEDED)
        await table.check_supervisor(supervisor, PLAYER_TOKEN, request, session)
        ended = table.auth.end_sitting(sitting)
        replaced = {"supervisor": supervisor.supervisor, "why": supervisor.why}
        replaced |= {"replaces": earlier, "ended": ended}
    made = table.auth.player_session(body.seat, sitting)
    record: PlayerToken = {
        "seat": body.seat,
        "sitting": sitting,
        "by": session.who,
        **replaced,
        "digest": digest(made.token),
    }
    try:
        await table.service.record_access(PLAYER_TOKEN, record)
    except BaseException:  # not journaled: not given
        table.auth.sign_out(made.token)
        raise
    seated = {place.sitting for place in table.service.table.seats}
    for gone in [number for number in table.player_tokens if number not in seated]:
        del table.player_tokens[gone]  # an ended sitting takes no token: its count goes
    table.player_tokens[sitting] = earlier + 1
    log.info("player token for seat %d (sitting %d) issued by %s", body.seat, sitting, session.who)
    return session_out(made, table.auth)


class DealerPushIn(BaseModel):
    id: Id | None = Field(default=None, description="the incoming dealer's id")
    badge: int | None = Field(
        default=None, description="instead of the id: the incoming dealer's badge tap"
    )
    pin: str = Field(min_length=1, max_length=64, description="the incoming dealer's PIN")


class BadgeOut(BaseModel):
    tap: int = Field(description="the tap's number: sent back with the PIN as `badge`")
    kind: Literal["dealer", "supervisor"] | None = Field(
        description="whose kind of badge it is (null: nobody's)"
    )
    age: float = Field(description="seconds since the tap")


class BadgeSignIn(BaseModel):
    badge: int = Field(description="the dealer's badge tap (`GET /api/badge`)")
    pin: str = Field(min_length=1, max_length=64)


@tokens.get("/api/badge", response_model=BadgeOut | None)
async def badge(table: TheTable) -> BadgeOut | None:
    """The latest badge shown at the console's badge reader while it waits for its PIN
    (null: none): its number and kind, never whose it is (404: no badge reader)."""
    if table.badges is None:
        raise ApiError(404, "not_found", NO_BADGE_READER, Declined.NO_BADGE_READER)
    tap = table.badges.latest()
    if tap is None:
        return None
    kind = cast(Literal["dealer", "supervisor"] | None, tap.kind)
    return BadgeOut(tap=tap.number, kind=kind, age=table.badges.clock() - tap.at)


@tokens.post("/api/sessions/badge", response_model=SessionOut)
async def badge_sign_in(body: BadgeSignIn, request: Request, table: TheTable) -> SessionOut:
    """A dealer signs in by badge and PIN: the badge tap stands for the id, the PIN is
    checked (and limited, a wrong one journaled) as a sign-in's; the tap serves once."""
    who = table.holder(None, body.badge, "dealer")
    try:
        session = await table.auth.sign_in("dealer", who, body.pin, client_of(request))
    except AuthError as error:
        raise await table.refused_pin(error, "dealer", who, "sign_in", request) from None
    table.badge_used(body.badge)
    return session_out(session, table.auth)


@tokens.post("/api/dealer-push", response_model=SessionOut)
async def dealer_push(
    body: DealerPushIn, request: Request, table: TheTable, session: Dealer
) -> SessionOut:
    """A dealer push, at the outgoing dealer's session: the incoming dealer signs in with
    their id and PIN (a wrong PIN is journaled and limited as a sign-in's); the table
    journals ``dealer_in`` (the incoming dealer deals from the next hand on; a hand in
    progress keeps its dealer), then every other dealer's session ends (the outgoing
    dealer's gets 401). The incoming dealer's new session is the answer. A dealer pushing
    their own id names them as the table's dealer (the first dealer of a shift). The
    incoming dealer's badge tap at the console (``badge``) may stand for the id."""
    who = table.holder(body.id, body.badge, "dealer")
    try:
        incoming = await table.auth.sign_in("dealer", who, body.pin, client_of(request))
    except AuthError as error:
        raise await table.refused_pin(
            error, "dealer", who, "dealer_push", request, by=session.who
        ) from None
    table.badge_used(body.badge)
    try:
        if table.service.table.dealer != incoming.who:
            await table.submit({"type": "dealer_in", "who": incoming.who}, session)
    except BaseException:  # not journaled: no push, and no session for the incoming dealer
        table.auth.sign_out(incoming.token)
        raise
    ended = table.auth.end_dealers(but=incoming.who)
    log.info("dealer push: %s in after %s (%d session(s) ended)", incoming.who, session.who, ended)
    return session_out(incoming, table.auth)


# The table -------------------------------------------------------------------------------

table_router = APIRouter(prefix="/api", tags=["table"])


@table_router.get("/console", response_model=ConsoleOut)
async def console_settings(table: TheTable) -> ConsoleOut:
    """The console's settings (the table configuration's ``[console]``)."""
    config = table.service.config
    console, missing = config.console, lacking(config.shoe, config.seat_board)
    return ConsoleOut(
        idle_lock=console.idle_lock, escalate_after=console.escalate_after, lacking=list(missing)
    )


@table_router.get("/view", **VIEW)
async def get_view(table: TheTable, session: Caller) -> ViewJson:
    """The table now, as the caller may see it (no token: the public view)."""
    role, seat = role_of(session)
    return view(table.service.table, role, seat)


# Surveillance ----------------------------------------------------------------------------

surveillance_router = APIRouter(prefix="/api/history", tags=["surveillance"])
#: The most hands one page of ``GET /api/history`` gives.
MAX_PAGE = 1000


@surveillance_router.get("", response_model=list[HandSummaryOut], response_model_exclude_unset=True)
async def past_hands(
    table: TheTable,
    _: Surveillance,
    before: Annotated[
        int | None, Query(ge=1, description="only hands numbered below this one")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE, description="hands in the page")] = PAGE,
) -> list[HandSummaryJson]:
    """A page of the table's hands, in order: the last ``limit`` hands (the one in progress
    last), or with ``before`` the last ``limit`` hands that ended below hand ``before``."""
    return await table.archive.summaries(before, limit)


@surveillance_router.get("/{number}", response_model=HandOut)
async def past_hand(number: int, table: TheTable, _: Surveillance) -> ArchivedHandJson:
    """One hand of the journal with its whole history, every card shown."""
    hand = await table.archive.hand(number)
    if hand is None:
        raise ApiError(
            404, "not_found", f"hand {number} is not in the journal", Declined.UNKNOWN_HAND
        )
    return hand


# The dealer ------------------------------------------------------------------------------

dealer_router = APIRouter(prefix="/api", tags=["dealer"])


@dealer_router.post("/decisions", **STEP)
async def decide(body: DecisionIn, request: Request, table: TheTable, session: Caller) -> StepOut:
    """A player's decision: said by the dealer, or made by the player with their token
    (at a table that allows it; elsewhere 403, journaled once per burst:
    :mod:`dealer_ui.refusals`)."""
    if session is None or session.role not in ("dealer", "player"):
        reason = "a dealer's session or the player's token is needed"
        raise ApiError(403, "forbidden", reason, Denied.SESSION_NEEDED)
    if session.role == "player" and session.seat != body.seat:
        reason = f"this token is for seat {session.seat}"
        raise ApiError(403, "forbidden", reason, Denied.OTHER_SEAT)
    if session.role == "player" and not table.service.table.settings.player_decisions:
        raise table.never_here(
            session, "decide", Refuse.DEALER_DECIDES, PLAYERS_DO_NOT_DECIDE, request
        )
    by = "player" if session.role == "player" else "dealer"
    decision = body.model_dump(exclude_none=True, exclude={"hand", "step"})
    return await table.submit({"type": "decide", **decision, "by": by}, session, body.guard())


@dealer_router.post("/hands", **STEP)
async def new_hand(table: TheTable, session: Dealer) -> StepOut:
    """Start the next hand."""
    return await table.submit({"type": "new_hand", "dealer": session.who}, session)


@dealer_router.post("/seats", **STEP)
async def sit_down(body: SitDownIn, table: TheTable, session: Dealer) -> StepOut:
    """A player sits down with a buy-in."""
    return await table.submit({"type": "sit_down", **body.model_dump(exclude_none=True)}, session)


@dealer_router.post("/seats/{seat}/rebuy", **STEP)
async def rebuy(seat: int, body: ChipsIn, table: TheTable, session: Dealer) -> StepOut:
    """More chips for the player at ``seat``."""
    return await table.submit({"type": "rebuy", "seat": seat, "chips": body.chips}, session)


@dealer_router.post("/seats/{seat}/move", **STEP)
async def change_seat(seat: int, body: SeatToIn, table: TheTable, session: Dealer) -> StepOut:
    """The player at ``seat`` moves to the empty seat ``to`` with the stack, between their
    hands."""
    return await table.submit({"type": "change_seat", "seat": seat, "to": body.to}, session)


@dealer_router.post("/seats/{seat}/{change}", **STEP)
async def seat_change(
    seat: int,
    change: Literal["leave", "sit_out", "sit_in"],
    table: TheTable,
    session: Dealer,
) -> StepOut:
    """The player at ``seat`` leaves (cashed out), sits out or sits in."""
    return await table.submit({"type": change, "seat": seat}, session)


@dealer_router.post("/alerts/{alert}/acknowledge", **STEP)
async def acknowledge(alert: int, table: TheTable, session: Dealer) -> StepOut:
    """The dealer has seen an open alert: it stays open (and the table paused, for a
    blocking one) until it is resolved, marked as acknowledged by the dealer."""
    record = {"type": "acknowledge_alert", "alert": alert, "who": session.who}
    return await table.submit(record, session)


# The supervisor (at the dealer's console) ------------------------------------------------

supervisor_router = APIRouter(prefix="/api/supervisor", tags=["supervisor"])


def _supervisor_action(
    path: str, model: type[Supervisor], record: Callable[[Any], InputJson], doc: str
) -> None:
    async def action(
        body: model,  # type: ignore[valid-type]  # a model made at run time (create_model)
        request: Request,
        table: TheTable,
        session: Staff,
    ) -> StepOut:
        filled: Supervisor = body
        filled = filled.resolved(table.service.table)
        return await table.supervised(filled, record(filled), request, session)

    action.__doc__ = doc
    supervisor_router.post(f"/{path}", **STEP, name=path.replace("-", "_"))(action)


for _path, _model, _record, _doc in SUPERVISOR_ACTIONS:
    _supervisor_action(_path, _model, _record, _doc)


@supervisor_router.post("/unlock", response_model=UnlockOut)
async def unlock(body: UnlockIn, request: Request, table: TheTable, session: Staff) -> UnlockOut:
    """Unlock an id locked after too many wrong PINs (a supervisor's id and PIN, at a
    dealer's or surveillance session): its ``sign_in_locked`` alert is resolved (``done``,
    journaled with who and why), or, if the table had none, an access record is journaled."""
    await table.check_supervisor(body, UNLOCKED, request, session)
    if not table.auth.locked(body.role, body.id):
        reason = f"{body.role} id {body.id[:64]!r} is not locked"
        raise ApiError(404, "not_found", reason, Declined.NOT_LOCKED)
    alert = table.open_alert(AlertKind.SIGN_IN_LOCKED, body.role, body.id)
    if alert is None:
        unlocked: Unlocked = {
            "role": body.role,
            "id": body.id,
            "supervisor": body.supervisor,
            "by": session.who,
            "why": body.why,
        }
        await table.service.record_access(UNLOCKED, unlocked)
    else:
        resolve = {"type": "resolve_alert", "alert": alert, "remedy": "done"}
        await table.submit({**resolve, "who": body.supervisor, "why": body.why}, session)
    table.auth.unlock(body.role, body.id)
    log.info("%s %r unlocked by %s", body.role, body.id, body.supervisor)
    return UnlockOut(role=body.role, id=body.id, alert=alert)


# Requests to the supervisor --------------------------------------------------------------

requests_router = APIRouter(prefix="/api/requests", tags=["supervisor"])
#: Each supervisor action's request model and table input, by its path.
ACTIONS = {path: (model, record) for path, model, record, _ in SUPERVISOR_ACTIONS}
#: The access record of each request asked for, approved or cancelled.
REQUEST = "supervisor_request"


async def requests_of(connection: HTTPConnection) -> Requests:
    """The requests waiting for a supervisor (a dependency)."""
    requests: Requests = connection.app.state.requests
    return requests


TheRequests = Annotated[Requests, Depends(requests_of)]


class RequestIn(BaseModel):
    action: str = Field(
        description="a supervisor action's path (void, enter-card, correct-card, wrong-face, "
        "resolve, correct-stack, undo), or 'call' for the supervisor to come to the table"
    )
    body: ActionBody = Field(
        default_factory=dict,
        description="the action's fields and `why`, as its `/api/supervisor/` route takes "
        "them, without the supervisor's id and PIN",
    )


class RequestOut(BaseModel):
    id: int
    action: str
    body: ActionBody
    asked_by: str = Field(description="the dealer who asked")
    asked_at: float = Field(description="when (the service's time, seconds since the epoch)")
    expires: float = Field(description="when it expires unless approved or cancelled")
    approved_by: str | None = Field(
        default=None,
        description="the first supervisor who approved it, where two-person control needs a "
        "second (null: none yet)",
    )


class ApproveIn(BaseModel):
    supervisor: Id | None = Field(
        default=None, description="the supervisor's id (surveillance: the one signed in)"
    )
    badge: int | None = Field(
        default=None, description="instead of the id: the supervisor's badge tap at the console"
    )
    pin: str = Field(min_length=1, max_length=64)
    why: Reason | None = Field(default=None, description="a reason replacing the request's")


def _not_waiting(number: int) -> str:
    return f"request {number} is not waiting (approved, cancelled or expired)"


def _gone(number: int) -> str:
    return f"request {number} is not waiting any more"  # approved by another meanwhile


def _action_body(action: str, body: ActionBody, supervisor: str, pin: str) -> Supervisor:
    """The action's body with the supervisor's id and PIN (422 naming what is wrong)."""
    if action not in ACTIONS:
        known = ", ".join([*ACTIONS, CALL])
        reason = f"action {action[:40]!r} is not one of {known}"
        raise ApiError(422, "invalid", reason, Declined.UNKNOWN_ACTION)
    if {"supervisor", "pin"} & body.keys():
        reason = "a request carries no supervisor id or PIN"
        raise ApiError(422, "invalid", reason, Declined.PIN_IN_REQUEST)
    try:
        return ACTIONS[action][0].model_validate({**body, "supervisor": supervisor, "pin": pin})
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        reason = f"body.{where}: {first['msg']}"
        raise ApiError(422, "invalid", reason, Declined.INVALID_FIELD) from None


async def _journal_request(
    table: TableApp,
    event: str,
    asked: RequestRecord,
    session: Session,
    supervisor: str | None = None,
) -> None:
    fields: SupervisorRequest = {
        "event": event,
        "request": asked.id,
        "action": asked.action,
        "asked_by": asked.asked_by,
        "by": session.who,
        "role": session.role,
    }
    if supervisor is not None:
        fields["supervisor"] = supervisor
    await table.service.record_access(REQUEST, fields)


@requests_router.get("", response_model=list[RequestOut])
async def waiting(requests: TheRequests, _: Staff) -> list[RequestJson]:
    """The requests waiting for a supervisor, oldest first."""
    return [request.out() for request in requests.pending()]


@requests_router.post("", response_model=RequestOut)
async def ask(
    body: RequestIn, table: TheTable, requests: TheRequests, session: Dealer
) -> RequestJson:
    """Ask a supervisor for an action (or to come: ``call``) from the table: it waits for a
    supervisor's approval on the surveillance page or at the table (``TTL``)."""
    if body.action != CALL:
        _action_body(body.action, body.body, session.who, "-")  # well formed now, not later
    asked = requests.ask(body.action, body.body, session.who)
    try:
        await _journal_request(table, "asked", asked, session)
    except TableStopped:  # not journaled: it does not wait either
        requests.take(asked.id)
        raise
    return asked.out()


@requests_router.post(
    "/{number}/approve",
    response_model=StepOut | RequestOut,
    response_model_exclude_unset=True,
    responses={202: {"model": RequestOut, "description": "approved once: a second to come"}},
)
async def approve(
    number: int,
    body: ApproveIn,
    *,
    request: Request,
    response: Response,
    table: TheTable,
    requests: TheRequests,
    session: Staff,
) -> StepOut | RequestJson:
    """A supervisor approves request ``number`` with their id and PIN (on the surveillance
    page: the supervisor signed in): the action is submitted as at the table, journaled
    with the supervisor's id and the reason; at the console the supervisor's badge tap
    (``badge``) may stand for the id. Where the house's two-person control covers the
    action, the first approval is kept on the request (202, the request) and a second,
    other supervisor's submits it, journaled with both ids."""
    supervisor = table.holder(body.supervisor, body.badge, "supervisor")
    if session.role == "surveillance" and supervisor != session.who:
        own = f"signed in as {session.who}: approve with your own PIN"
        raise ApiError(403, "forbidden", own, Denied.NOT_OWN_PIN)
    asked = requests.get(number)
    if asked is None:
        raise ApiError(404, "not_found", _not_waiting(number), Declined.REQUEST_GONE)
    if asked.action == CALL:
        answered = "a call asks for no action: answer it at the table"
        raise ApiError(409, "refused", answered, Refuse.NOT_AN_INPUT)
    reason = {} if body.why is None else {"why": body.why}
    action = _action_body(asked.action, {**asked.body, **reason}, supervisor, body.pin)
    action = action.resolved(table.service.table)
    record = ACTIONS[asked.action][1](action)
    await table.check_supervisor(action, record["type"], request, session)
    table.badge_used(body.badge)
    first = asked.approved_by
    if first == supervisor:
        raise ApiError(
            409,
            "refused",
            f"{first} has approved request {number} already: two-person control needs "
            "another supervisor's approval",
            Refuse.SECOND_SAME,
        )
    if first is None and table.second_needed(action, record) is not None:
        kept = requests.approved_once(number, supervisor, {**asked.body, **reason})
        if kept is None:  # approved by another supervisor meanwhile
            raise ApiError(404, "not_found", _gone(number), Declined.REQUEST_GONE)
        await _journal_request(table, "approved_once", kept, session, supervisor)
        response.status_code = 202
        return kept.out()
    if requests.take(number) is None:  # approved by another supervisor meanwhile
        raise ApiError(404, "not_found", _gone(number), Declined.REQUEST_GONE)
    step = await table.submit_supervised(action, record, session, first)
    await _journal_request(table, "approved", asked, session, supervisor)
    return step


@requests_router.post("/{number}/cancel", response_model=RequestOut)
async def cancel(
    number: int, table: TheTable, requests: TheRequests, session: Staff
) -> RequestJson:
    """Cancel request ``number`` (the dealer who no longer needs it, a supervisor who
    refuses it or has answered a call)."""
    asked = requests.take(number)
    if asked is None:
        raise ApiError(404, "not_found", _not_waiting(number), Declined.REQUEST_GONE)
    await _journal_request(table, "cancelled", asked, session)
    return asked.out()


# The studio ------------------------------------------------------------------------------

studio_router = APIRouter(tags=["studio"])


class StudioTokenIn(Supervisor):
    label: Label = Field(description="who the token is for (a broadcast, a truck)")


class StudioTokenOut(BaseModel):
    token: str = Field(description="the studio token: shown once, kept by nobody else")
    id: str = Field(description="the token's public id (to revoke it)")
    label: str
    expires: float = Field(description="when it expires (seconds since the epoch)")
    expires_in: float = Field(description="seconds until it expires")


class StudioPassOut(BaseModel):
    id: str = Field(description="the token's public id (not the token, nor its digest)")
    label: str
    supervisor: str = Field(description="the supervisor who issued it")
    by: str = Field(description="whose session it was issued at")
    issued: float = Field(description="when it was issued (seconds since the epoch)")
    expires: float = Field(description="when it expires (seconds since the epoch)")


def _studio_pass(made: StudioPass) -> StudioPassOut:
    return StudioPassOut(
        id=made.id,
        label=made.label,
        supervisor=made.supervisor,
        by=made.by,
        issued=made.issued,
        expires=made.expires,
    )


@studio_router.post("/api/studio-tokens", response_model=StudioTokenOut)
async def studio_token(
    body: StudioTokenIn, request: Request, table: TheTable, session: Staff
) -> StudioTokenOut:
    """A supervisor issues a studio token (their id and PIN, at a dealer's or surveillance
    session): it opens the studio feed (hole cards and odds, behind the table's delay)
    and nothing else. It is journaled (its digest, never the token) before it is given."""
    await table.check_supervisor(body, ISSUED, request, session)
    tokens = table.studio_tokens
    hours = table.service.config.studio.token_hours
    token, made = tokens.new(body.label, body.supervisor, session.who, hours)
    issued: StudioIssued = {**made.to_json(), "why": body.why}
    await table.service.record_access(ISSUED, issued)
    tokens.add(made)
    await table.studio.start()
    log.info("studio token %s (%s) issued by %s", made.id, made.label, made.supervisor)
    return StudioTokenOut(
        token=token,
        id=made.id,
        label=made.label,
        expires=made.expires,
        expires_in=tokens.left(made),
    )


@studio_router.post("/api/studio-tokens/{token_id}/revoke", response_model=StudioPassOut)
async def revoke_studio_token(
    token_id: str, body: Supervisor, request: Request, table: TheTable, session: Staff
) -> StudioPassOut:
    """A supervisor ends a studio token (journaled): its feeds are closed within a second."""
    await table.check_supervisor(body, REVOKED, request, session)
    held = {made.id: made for made in table.studio_tokens.held()}
    if token_id not in held:
        reason = f"studio token {token_id[:20]!r}: none holds"
        raise ApiError(404, "not_found", reason, Declined.TOKEN_NOT_HELD)
    revoked: StudioRevoked = {
        "id": token_id,
        "supervisor": body.supervisor,
        "by": session.who,
        "why": body.why,
    }
    await table.service.record_access(REVOKED, revoked)
    table.studio_tokens.revoke(token_id)
    log.info("studio token %s revoked by %s", token_id, body.supervisor)
    return _studio_pass(held[token_id])


@studio_router.get("/api/studio-tokens", response_model=list[StudioPassOut])
async def studio_tokens(table: TheTable, _: Surveillance) -> list[StudioPassOut]:
    """The studio tokens that hold now (never the tokens themselves)."""
    return [_studio_pass(made) for made in table.studio_tokens.held()]


def _studio_token(authorization: str | None) -> str | None:
    if authorization is None:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token:
        reason = "Authorization: expected 'Bearer TOKEN'"
        raise ApiError(401, "unauthorized", reason, Denied.NOT_BEARER)
    return token


@studio_router.get("/api/studio")
async def studio_now(
    request: Request, table: TheTable, authorization: Annotated[str | None, Header()] = None
) -> Response:
    """The studio's latest message (a studio token only): the table as it was the delay
    ago, every card and the odds."""
    try:
        table.studio_tokens.check(_studio_token(authorization))
    except AuthError as error:
        log.warning("studio message refused to %s: %s", client_of(request), error.reason)
        raise refusal(error) from None
    return Response(table.studio.current, media_type="application/json")


@studio_router.websocket("/studio/ws")
async def studio_socket(
    socket: WebSocket, table: TheTable, token: Annotated[str | None, Query()] = None
) -> None:
    """The studio feed (a studio token only): the latest message, then each one released."""
    await socket.accept()
    tokens = table.studio_tokens
    try:
        tokens.check(token)
    except AuthError as error:
        log.warning("studio feed refused to %s: %s", client_of(socket), error.reason)
        await socket.close(code=4401, reason=error.reason)
        return
    await table.studio.start()
    messages = table.studio.messages(lambda: tokens.check(token))
    await send_until_closed(socket, messages, "the table service stopped")


# The live feed and the pages -------------------------------------------------------------

feed_router = APIRouter()


@feed_router.websocket("/ws")
async def feed_socket(
    socket: WebSocket,
    table: TheTable,
    token: Annotated[str | None, Query()] = None,
    epoch: Annotated[str | None, Query()] = None,
    last: Annotated[int | None, Query()] = None,
) -> None:
    """The live feed: a snapshot (or what was missed after ``last`` of ``epoch``),
    then every update, numbered."""
    signed_in, session = await socket_session(socket, lambda: table.live_session(token))
    if not signed_in:
        return
    role, seat = role_of(session)
    since = 0 if session is None else session.since

    async def messages() -> AsyncIterator[str]:
        async for message in table.feed.messages(role, seat, epoch, last, since):
            table.live_session(token)  # each message: the session still holds
            yield message

    await send_until_closed(socket, messages(), "the table service stopped")


pages = APIRouter(include_in_schema=False)


@pages.get("/")
async def console() -> FileResponse:
    """The dealer's console."""
    return FileResponse(STATIC / "console.html")


@pages.get("/studio")
async def studio_page() -> FileResponse:
    """The studio's broadcast overlay (``?token=TOKEN``; ``&transparent=1`` for a
    transparent background)."""
    return FileResponse(STATIC / "studio.html")


@pages.get("/public")
@pages.get("/player")
@pages.get("/surveillance")
async def viewer() -> FileResponse:
    """The read-only pages: the public (broadcast) view, a player's own seat (with a
    player token) and surveillance's: the console page without the dealer's
    controls."""
    return FileResponse(STATIC / "console.html")


ROUTERS = (
    sign_in,
    tokens,
    table_router,
    surveillance_router,
    dealer_router,
    supervisor_router,
    requests_router,
    studio_router,
    feed_router,
    pages,
)


class WhileTheTableRuns:
    """While the table takes no input (``service.halted``), every ``/api/`` request
    answers 503 with the reason and its code; a plain ASGI middleware (Starlette's
    ``BaseHTTPMiddleware`` runs each request in a task group of its own: the largest cost
    of a refused request on the table's loop, docs/performance.md (f))."""

    def __init__(self, app: ASGIApp, service: TableService) -> None:
        self.app, self.service = app, service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/api/"):
            halted = self.service.halted
            if halted is not None:
                await _stopped(halted)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _stopped(error: TableStopped) -> JSONResponse:
    """The answer while the table takes no input: 503 with why, its code the service's."""
    return JSONResponse(error_body("unavailable", str(error), error.code), 503)


async def _stopped_answer(_: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, TableStopped)  # the handler of TableStopped only
    return _stopped(error)


def create_app(service: TableService, auth: Auth | None = None) -> FastAPI:
    """The app for ``service`` (started); ``auth`` defaults to the configuration's
    credentials."""
    config = service.config
    auth = auth or Auth.configured(config.api, config.dealers, config.supervisors)
    auth.position = lambda: service.position  # the moment each session begins
    if config.studio.delay < MIN_STUDIO_DELAY:  # only a table in test mode may (config)
        log.warning(
            "test mode: the studio's delay is %g s, under the %g minutes of a table that "
            "deals for real",
            config.studio.delay_seconds,
            MIN_STUDIO_DELAY,
        )
    studio = StudioFeed(
        service,
        config.studio.delay_seconds,
        bonus_hold=config.studio.bonus_hold,
        odds_while_dealing=config.studio.odds_while_dealing,
    )
    tokens = StudioTokens(service.now, service.monotonic)
    refusals = Refusals(service.record_access, config.api.refusal_fold)
    table = TableApp(
        service, auth, Feed(service), Archive(config.journal), studio, tokens, refusals, {}
    )
    if auth.on_attack is None:
        auth.on_attack = table.attack_alert
    if auth.on_lock is None:
        auth.on_lock = table.lock_alert
    auth.locked_at = table.locked_at_table
    if config.badge_reader is not None:
        table.badges = Badges(config.badge_reader, auth.dealers, auth.supervisors)

    kept = KeptSessions(sessions_path(config.journal), config.table_id, auth)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        table.feed.start()
        if table.badges is not None:
            table.badges.start()
        since = service.now() - MAX_STUDIO_TOKEN_HOURS * 3600
        try:
            if taken := await kept.start(service):  # a restart is not a sign-out
                log.info("%d session(s) kept across the restart", taken)
            tokens.restore(await service.access_records((ISSUED, REVOKED), since))
            if tokens.held():  # a studio follows the table: its feed starts again at once
                await studio.start()
            issued = service.now() - PLAYER_TOKEN_HOURS * 3600
            for entry in await service.access_records((PLAYER_TOKEN,), issued):
                sitting = int(entry.fields["sitting"])
                table.player_tokens[sitting] = table.player_tokens.get(sitting, 0) + 1
        except TableStopped as error:  # the console still serves, to say why (503)
            log.error("the studio's tokens could not be read back: %s", error)
        yield
        await kept.stop()
        if table.badges is not None:
            await table.badges.stop()
        await refusals.close()
        await studio.stop()
        await table.feed.stop()
        table.archive.close()  # its worker process ends
        await asyncio.to_thread(auth.close)  # so does the PIN checker's

    app = new_app(
        config.api,
        auth,
        table.feed,
        lifespan,
        title=f"Luck of the Irish table {config.table_id}",
        description="The dealer console's API and the live feeds (docs/api.md).",
        errors=ERRORS,
    )
    app.state.table = table
    app.state.requests = Requests(service.now, table.feed.nudge)
    table.feed.requests = app.state.requests.listed
    app.include_router(operations_router(service))
    app.add_exception_handler(TableStopped, _stopped_answer)

    app.add_middleware(WhileTheTableRuns, service=service)

    for router in ROUTERS:
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
