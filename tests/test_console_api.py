"""What the console page needs of the API: a decision bound to the moment it was asked for
and a void to the hand it names (a stale confirmation refused, nothing journaled), the
console's idle lock setting, the past hands with their players' names, and the public's and
players' events worded as their view (the broadcast line, not the dealer's instruction)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from controller.config import Console
from controller.service import TableService
from controller.table.effects import DisplayChanged
from dealer_ui.codes import Declined
from dealer_ui.views import broadcast_line, effects_view, view
from tests.console_kit import SUPERVISOR, LiveTable, Script, live_table
from tests.service_kit import simulator
from tests.test_console_browser import played

pytestmark = (
    pytest.mark.slow
)  # a live table: the simulator's process, the service, the console served


def run(scenario: Any) -> None:
    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(shoe), 240))


async def first_decision(live: LiveTable) -> dict[str, Any]:
    """Three players seated, a hand started and dealt up to its first decision: the
    dealer's view then."""
    await live.seat_players()
    script = Script()
    await live.load(script.deck(live.service.table))
    (await live.post("/api/hands")).raise_for_status()
    while script.move(live.service.table) == "deal":
        await live.draw()
    response = await live.http.get("/api/view", headers=live.dealer)
    return response.json()


def test_a_decision_asked_before_the_table_moved_on_is_refused(tmp_path: Path) -> None:
    """The console sends the view's hand number and step with a decision: once the table
    has moved on (another decision taken), the old confirmation answers 409 stale, naming
    both moments, and nothing is journaled or changed; the same decision asked now goes
    through."""

    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe) as live:
            asked = await first_decision(live)
            seat = asked["next"]["seat"]
            bring_in = next(c for c in asked["choices"] if c["do"] == "bring_in")
            binding = {"hand": asked["hand_number"], "step": asked["step"]}
            assert binding["step"] > 0
            taken = await live.post(
                "/api/decisions", {"seat": seat, "do": "bring_in", "to": bring_in["to"], **binding}
            )
            assert taken.status_code == 200, taken.text
            now = taken.json()["view"]
            assert now["step"] == asked["step"] + 1
            before = (live.service.position, live.service.table)

            # a fold confirmed for the moment already past: refused, nothing journaled
            stale = await live.post("/api/decisions", {"seat": seat, "do": "fold", **binding})
            assert stale.status_code == 409, stale.text
            assert stale.json()["error"] == "stale" and stale.json()["code"] == Declined.STALE
            reason = stale.json()["reason"]
            assert f"hand 1, step {asked['step']}" in reason, reason
            assert f"hand 1, step {now['step']}" in reason, reason
            assert (live.service.position, live.service.table) == before

            other = now["next"]["seat"]
            wrong_hand = {"hand": 7, "step": now["step"]}
            refused = await live.post("/api/decisions", {"seat": other, "do": "fold", **wrong_hand})
            assert refused.status_code == 409 and refused.json()["error"] == "stale"
            assert refused.json()["code"] == Declined.STALE
            assert (live.service.position, live.service.table) == before

            fresh = {"hand": now["hand_number"], "step": now["step"]}
            call = next(c for c in now["choices"] if c["do"] == "call")
            went = await live.post(
                "/api/decisions", {"seat": other, "do": "call", "to": call["to"], **fresh}
            )
            assert went.status_code == 200, went.text
            assert live.service.position > before[0]

            # a void confirmed for another hand than the one on: refused, nothing journaled
            position = live.service.position
            void = await live.post("/api/supervisor/void", {**SUPERVISOR, "why": "x", "hand": 7})
            assert void.status_code == 409 and void.json()["error"] == "stale", void.text
            assert void.json()["code"] == Declined.STALE
            assert "hand 7" in void.json()["reason"]
            assert live.service.position == position and live.service.table.in_hand

    run(scenario)


def test_the_console_reads_its_idle_lock_and_surveillance_the_players_names(
    tmp_path: Path,
) -> None:
    def short_lock(service: TableService) -> None:
        service.config = replace(service.config, console=Console(42, escalate_after=30))

    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe, before_serve=short_lock) as live:
            settings = await live.http.get("/api/console")
            assert settings.json() == {
                "idle_lock": 42,
                "escalate_after": 30,
                "lacking": ["seat_checks", "player_away"],  # a wire shoe, no seat board
            }
            await live.seat_players()
            await live.play_hand(Script())
            watcher = {"role": "surveillance", "id": SUPERVISOR["supervisor"]}
            session = await live.http.post(
                "/api/sessions", json={**watcher, "pin": SUPERVISOR["pin"]}
            )
            token = {"Authorization": f"Bearer {session.json()['token']}"}
            (hand,) = (await live.http.get("/api/history", headers=token)).json()
            assert hand["players"] == {"1": "P1", "2": "P2", "3": "P3"}

    run(scenario)


def test_the_public_and_players_events_give_the_broadcast_line_not_the_instruction() -> None:
    """At every step of a hand (a pause while the bonus card is due among them), the
    display's event for the public and a player is the broadcast line of their view, never
    the dealer's instruction (a burn, where a card goes face down, an alert's words)."""
    tables = played()
    assert any(table.paused for table in tables)
    instructions = set()
    for table in tables:
        instruction = DisplayChanged(table)
        instructions.add(table.signals.display.split(":")[0])
        for role, seat in (("public", None), ("player", 2)):
            (event,) = effects_view([instruction], table, role, seat)
            assert event == {"kind": "display", "message": view(table, role, seat)["display"]}
            assert event["message"] == broadcast_line(table)
        (dealer,) = effects_view([instruction], table, "dealer")
        assert dealer["message"] == table.signals.display
    assert {"BURN", "DEAL", "PAUSED", "BONUS CARD"} <= instructions, instructions
