"""A live table for the console's tests: the shoe simulator as its own process on a pty, the
table service, the console served by uvicorn on the same event loop, and a scripted table.

Each hand's deck is stacked: before the hand, the pure table core plays it ahead with the
same script (``Script``), and each card the script wants at a place (the four of clubs face
up to seat 1, so that a bonus card comes) is put where the shoe will deal it. The shoe is
loaded with that order; then the hand is played for real through the service (the cards
out of the shoe simulator, the decisions through the REST API).
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx

from controller.rules import DECK, Card, Do, parse_card
from controller.service import TableService
from controller.table import Decide, NewHand, Table, apply
from dealer_ui import serve
from dealer_ui.auth import Auth
from dealer_ui.server import Served
from firmware_sim.process import AsyncControl as Control
from tests.device_inputs import card_read, deck_loaded
from tests.service_kit import DEALER, SUPERVISOR, config
from tests.waiting import async_wait_until

CARD = re.compile(r"\b[2-9TJQKA][cdhs]\b")
PLAYERS = 3
TIMEOUT = 30.0
# The shoe's link: silent for 30 s before it is down (not 0.6 s: three of the simulator's
# heartbeats), so that a loaded machine, which can leave the simulator or the service
# without the processor for seconds, never drops the link under a console test.
LINK = "backoff_initial = 0.05\nbackoff_max = 0.2\nsilence_timeout = 30.0"


@dataclass(frozen=True)
class Script:
    """What the people at the table do, from the table alone (so the play ahead and the
    real play take the same turns). ``fold_seat`` folds on fourth street; at a manual
    showdown the first asked shows and the others muck when they may; ``void_hand``: the
    hand number the supervisor voids once third street is dealt; ``up_cards``: (seat,
    street) -> the card dealt face up there."""

    fold_seat: int | None = 3
    bet_seat: int | None = 1
    void_hand: int | None = None
    up_cards: tuple[tuple[int, int, str], ...] = ((1, 3, "4c"),)

    def move(self, table: Table) -> Decide | str | None:
        """``"deal"``, ``"void"``, a decision, or None when the hand is over."""
        hand = table.hand
        if hand is None or hand.over:
            return None
        waiting = hand.waiting_for
        assert waiting is not None
        if waiting.kind == "card":
            return "deal"
        seat = waiting.seat
        assert seat is not None
        if table.hand_number == self.void_hand:
            return "void"
        legal = {choice.do: choice for choice in waiting.legal}
        if waiting.kind == "bonus":
            return Decide(at=0, seat=seat, do=Do.BONUS, accept=True)
        if waiting.kind == "show":
            shown = any(p.reveal is not None for p in hand.players)
            do = Do.MUCK if shown and Do.MUCK in legal else Do.SHOW
            return Decide(at=0, seat=seat, do=do)
        if seat == self.bet_seat and hand.street == 4 and Do.BET in legal:
            return Decide(at=0, seat=seat, do=Do.BET, to=legal[Do.BET].to)
        if seat == self.fold_seat and hand.street >= 4 and Do.FOLD in legal:
            return Decide(at=0, seat=seat, do=Do.FOLD)
        for do in (Do.CHECK, Do.CALL, Do.BRING_IN):
            if do in legal:
                return Decide(at=0, seat=seat, do=do, to=legal[do].to)
        first = waiting.legal[0]
        return Decide(at=0, seat=seat, do=first.do, to=first.to)

    def deck(self, table: Table) -> list[Card]:
        """The order to load so that the next hand, played by this script, gets its cards."""
        wanted = {(seat, street): parse_card(name) for seat, street, name in self.up_cards}
        pool = [card for card in DECK if card not in wanted.values()]
        order: list[Card] = []
        table = apply(table, deck_loaded(at=0, count=52)).table
        step = apply(table, NewHand(at=0))
        assert not step.refused, step.refused
        table = step.table
        while (move := self.move(table)) is not None and move != "void":
            if move == "deal":
                assert table.hand is not None and table.hand.waiting_for is not None
                waiting = table.hand.waiting_for
                card = wanted.pop((waiting.seat, waiting.street), None) if waiting.up else None
                card = pool.pop(0) if card is None else card
                order.append(card)
                table = apply(table, card_read(at=0, code=int(card))).table
            else:
                assert isinstance(move, Decide)
                table = apply(table, move).table
        return order + [card for card in pool if card not in order]


#: A service and its console started on a port (0: any free one).
Starter = Callable[[int], Awaitable[tuple[TableService, Served]]]


class LiveTable:
    """The service, its console and the shoe's control channel, with a dealer signed in
    (``start``: how the service and its console are started again, at a restart)."""

    def __init__(
        self, service: TableService, served: Served, shoe: Control, start: Starter
    ) -> None:
        self.service, self.served, self.shoe = service, served, shoe
        self.http = httpx.AsyncClient(base_url=served.url, timeout=TIMEOUT)
        self.dealer: dict[str, str] = {}
        self._start = start

    async def restart(self) -> None:
        """Stop the console and the service, then start them again on the same journal and
        address, as a restart of ``luck-table serve`` does (the table recovered from the
        journal, the sessions kept), in this process."""
        port = int(self.served.url.rsplit(":", 1)[1])
        await self.served.stop()
        await self.service.stop()
        self.service, self.served = await self._start(port)

    async def sign_in(self) -> None:
        response = await self.http.post("/api/sessions", json={"role": "dealer", **DEALER})
        response.raise_for_status()
        self.dealer = {"Authorization": f"Bearer {response.json()['token']}"}

    async def post(self, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
        return await self.http.post(path, json=body, headers=self.dealer)

    async def seat_players(self) -> None:
        for seat in range(1, PLAYERS + 1):
            body = {"seat": seat, "player": f"P{seat}", "buy_in": 100}
            (await self.post("/api/seats", body)).raise_for_status()

    async def load(self, cards: list[Card]) -> None:
        await self.shoe.command("load cards=" + ",".join(str(int(card)) for card in cards))
        await self.until(lambda: self.service.table.deck_ready, "the deck is loaded")

    async def draw(self) -> None:
        before = self.service.position
        await self.shoe.command("draw")
        await self.shoe.settled()
        await self.until(lambda: self.service.position > before, "the card is journaled")

    async def play_hand(
        self,
        script: Script,
        each: Callable[[], Any] | None = None,
        stop: Callable[[Table], bool] | None = None,
    ) -> None:
        """Stack the deck, start the hand, and play it as ``script`` says (until ``stop``
        holds for the table, if given: the move it waits for is left to the caller)."""
        await self.load(script.deck(self.service.table))
        (await self.post("/api/hands")).raise_for_status()
        await self.play_on(script, each, stop)

    async def play_on(
        self,
        script: Script,
        each: Callable[[], Any] | None = None,
        stop: Callable[[Table], bool] | None = None,
    ) -> None:
        """Play the hand in progress on as ``script`` says (``each``, ``stop``: as
        ``play_hand``'s)."""
        while (move := script.move(self.service.table)) is not None:
            if stop is not None and stop(self.service.table):
                return
            if move == "deal":
                await self.draw()
            elif move == "void":
                body = {**SUPERVISOR, "why": "misdeal"}
                (await self.post("/api/supervisor/void", body)).raise_for_status()
            else:
                assert isinstance(move, Decide)
                body = {"seat": move.seat, "do": move.do.value}
                body |= {"to": move.to} if move.to is not None else {}
                body |= {"accept": move.accept} if move.accept is not None else {}
                response = await self.post("/api/decisions", body)
                assert response.status_code == 200, response.text
            if each is not None:
                await each()

    async def until(self, check: Callable[[], bool], what: str) -> None:
        await async_wait_until(check, what, TIMEOUT, poll=0.01)


@contextlib.asynccontextmanager
async def live_table(
    folder: Path,
    shoe: Any,
    *,
    game: str = 'showdown = "manual"',
    table: str = "",
    before_serve: Callable[[TableService], None] | None = None,
    auth: Callable[[TableService], Auth] | None = None,
    api: dict[str, Any] | None = None,
    journal_lines: str = "",
    clock: Callable[[], float] = time.time,
    shoe_lines: str = "",
    protection: str = "tag_checks = false",
) -> AsyncIterator[LiveTable]:
    """The service on ``shoe`` (a simulator process), settled, with the console served
    (``auth``: the app's sign-in, made from the service; the configuration's by default;
    ``api``: settings of ``[api]`` other than the defaults; ``clock``: the service's wall
    clock; ``protection``: the lines of ``[protection]``)."""
    settings = config(
        folder,
        shoe.port,
        game=game,
        table=table,
        link=LINK,
        journal_lines=journal_lines,
        shoe_lines=shoe_lines,
        protection=protection,
    )
    settings = replace(settings, api=replace(settings.api, port=0, **(api or {})))

    async def served_on(service: TableService, port: int) -> Served:
        if before_serve is not None:
            before_serve(service)
        return await serve(service, port=port, auth=None if auth is None else auth(service))

    async def start(port: int) -> tuple[TableService, Served]:
        service = TableService(settings, clock=clock)
        await service.start()
        try:
            return service, await served_on(service, port)
        except BaseException:
            await service.stop()
            raise

    async with TableService(settings, clock=clock) as service:
        control = await Control.connect(shoe.announced["control"])
        await control.settled()
        served = await served_on(service, 0)
        live = LiveTable(service, served, control, start)
        try:
            await live.sign_in()
            yield live
        finally:
            await live.http.aclose()
            await live.served.stop()
            await control.close()
            await live.service.stop()  # restarted: not the one this block stops


async def dealer_signed_in(page: Any) -> None:
    """The dealer signs in at the console's ``page``: the id and PIN filled in, Sign in
    tapped (clicked, on a page without a touchscreen); until the page is live."""
    await page.get_by_label("Dealer id").fill(DEALER["id"])
    await page.get_by_label("PIN", exact=True).fill(DEALER["pin"])
    sign_in = page.get_by_role("button", name="Sign in")
    if await page.evaluate("navigator.maxTouchPoints > 0"):
        await sign_in.tap()
    else:
        await sign_in.click()
    await page.get_by_text("live", exact=True).wait_for()


def card_names(payload: Any) -> set[str]:
    """Every card name in ``payload`` (JSON), leaving out what a wild card plays as."""
    found: set[str] = set()
    if isinstance(payload, dict):
        for key, value in payload.items():
            if key != "as":
                found |= card_names(value)
    elif isinstance(payload, list):
        for value in payload:
            found |= card_names(value)
    elif isinstance(payload, str):
        found.update(CARD.findall(payload))
    return found
