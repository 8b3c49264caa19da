"""On a live table (the shoe simulator, the service, the console served): the scramble of
the burn cards shown on the console until the shoe reports the reload, and the
supervisor's wrong-face input through the API."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from controller.rules import Card, Do
from tests.console_kit import SUPERVISOR, LiveTable, live_table
from tests.service_kit import simulator

pytestmark = (
    pytest.mark.slow
)  # a live table: the simulator's process, the service, the console served

SHOWN = "SCRAMBLE: the 3 burn cards with the stub, then load them in the shoe"


async def play_to_the_scramble(live: LiveTable) -> None:
    """Eight players check and call to seventh street: the burn cards are scrambled."""
    for seat in range(1, 9):
        body = {"seat": seat, "player": f"P{seat}", "buy_in": 100}
        (await live.post("/api/seats", body)).raise_for_status()
    await live.load([Card(code) for code in range(52)])
    (await live.post("/api/hands")).raise_for_status()
    while not live.service.table.scramble_due:
        waiting = live.service.table.hand.waiting_for
        if waiting.kind == "card":
            await live.draw()
            continue
        legal = {choice.do for choice in waiting.legal}
        do = next(do for do in (Do.CHECK, Do.CALL, Do.BRING_IN) if do in legal)
        response = await live.post("/api/decisions", {"seat": waiting.seat, "do": do.value})
        assert response.status_code == 200, response.text


def test_the_console_shows_the_scramble_until_the_shoe_reports_the_reload(tmp_path: Path) -> None:
    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe, game="") as live:
            await play_to_the_scramble(live)
            seen = (await live.http.get("/api/view", headers=live.dealer)).json()
            assert seen["display"] == SHOWN
            assert seen["lamps"] == {"bonus": False, "seats": []}
            hand = live.service.table.hand
            back = [int(card) for card in hand.burns] + [51]  # the burns and the stub
            await live.shoe.command("load cards=" + ",".join(str(code) for code in back))
            await live.until(
                lambda: live.service.table.signals.display == "COMMUNITY CARD", "the reload"
            )
            seen = (await live.http.get("/api/view", headers=live.dealer)).json()
            assert seen["display"] == "COMMUNITY CARD"

            first = live.service.table.hand.player(1).cards[0].card
            body = {**SUPERVISOR, "why": "dealt face up", "seat": 1, "card": str(first)}
            response = await live.post("/api/supervisor/wrong-face", body)
            assert response.status_code == 200, response.text
            public = (await live.http.get("/api/view")).json()
            seat_1 = next(entry for entry in public["seats"] if entry["seat"] == 1)
            assert seat_1["cards"][0]["card"] == str(first)  # everybody sees it now
            wrong = await live.post("/api/supervisor/wrong-face", {**body, "card": "Zz"})
            assert wrong.status_code in (400, 422)

    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(shoe), 240))
