"""A token sees the table only from when its session began: a new player at a seat never
gets the previous player's hole cards (not by resuming the feed from an old number, not in
the last hand's view), and a player's token ends with its sitting, also when a player of
the same name sits down there next."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import websockets

from controller.service import Subscription, Update
from controller.table import Leave, SitDown, Table, TableInput, TableSettings, apply
from dealer_ui.auth import Denied
from dealer_ui.feeds import Feed
from dealer_ui.views import Role
from tests.console_kit import DEALER, SUPERVISOR, LiveTable, Script, card_names, live_table
from tests.service_kit import simulator

pytestmark = (
    pytest.mark.slow
)  # a live table: the simulator's process, the service, the console served

WAIT = 30.0


def run(scenario: Any) -> None:
    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(shoe), 240))


def feed_url(live: LiveTable, query: str) -> str:
    return live.served.url.replace("http", "ws", 1) + "/ws?" + query


async def first_snapshot(live: LiveTable) -> dict[str, Any]:
    async with websockets.connect(feed_url(live, "")) as socket:
        message: dict[str, Any] = json.loads(await socket.recv())
    return message


async def resumed(live: LiveTable, query: str) -> list[dict[str, Any]]:
    """Every message of a feed opened with ``query``, up to the update of the dealer's
    next input (seat 1 sits out; then it sits in again)."""
    messages = []
    async with websockets.connect(feed_url(live, query)) as socket:
        messages.append(json.loads(await asyncio.wait_for(socket.recv(), WAIT)))
        (await live.post("/api/seats/1/sit_out")).raise_for_status()
        events = [event["message"] for event in messages[-1].get("events", [])]
        while "seat 1 sits out from the next hand" not in events:
            messages.append(json.loads(await asyncio.wait_for(socket.recv(), WAIT)))
            events = [event["message"] for event in messages[-1].get("events", [])]
        (await live.post("/api/seats/1/sit_in")).raise_for_status()
    return messages


async def sign_in(live: LiveTable, role: str, who: str, pin: str) -> str:
    response = await live.http.post("/api/sessions", json={"role": role, "id": who, "pin": pin})
    response.raise_for_status()
    token: str = response.json()["token"]
    return token


def test_a_new_player_at_a_seat_never_gets_the_previous_players_hole_cards(
    tmp_path: Path,
) -> None:
    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe) as live:
            await live.seat_players()
            old = await first_snapshot(live)
            epoch, first = old["epoch"], old["seq"]
            await live.play_hand(Script())  # seat 3 folds on fourth street: never shown
            hand = live.service.table.hand
            assert hand is not None and hand.over
            hidden = {
                str(dealt.card)
                for dealt in hand.player(3).cards
                if not dealt.up and not dealt.exposed
            }
            assert len(hidden) >= 2
            (await live.post("/api/seats/3/leave")).raise_for_status()
            body = {"seat": 3, "player": "Newcomer", "buy_in": 100}
            (await live.post("/api/seats", body)).raise_for_status()
            token = (await live.post("/api/player-tokens", {"seat": 3})).json()["token"]
            current = live.service.position

            for last in (first, first + 1, 1, 0):
                messages = await resumed(live, f"token={token}&epoch={epoch}&last={last}")
                for message in messages:
                    assert not hidden & card_names(message), (last, message)
                snapshot, update = messages  # nothing from before the token began
                assert snapshot["type"] == "snapshot" and snapshot["view"]["seat"] == 3
                assert update["type"] == "update" and update["seq"] == snapshot["seq"] + 1
                seat = snapshot["view"]["seats"][2]
                assert (seat["player"], seat["cards"]) == ("Newcomer", [])
            assert live.service.position > current
            newcomer = await live.http.get(
                "/api/view", headers={"Authorization": f"Bearer {token}"}
            )
            assert not hidden & card_names(newcomer.json()), newcomer.json()["seats"][2]

            # the same for every role: a session signed in now resumes nothing from before
            sessions = {
                "dealer": await sign_in(live, "dealer", DEALER["id"], DEALER["pin"]),
                "surveillance": await sign_in(
                    live, "surveillance", SUPERVISOR["supervisor"], SUPERVISOR["pin"]
                ),
            }
            for role, session in sessions.items():
                messages = await resumed(live, f"token={session}&epoch={epoch}&last={first}")
                assert [m["type"] for m in messages] == ["snapshot", "update"], role
            # a resume from after the session began gets exactly what it missed
            token_now = sessions["dealer"]
            async with websockets.connect(feed_url(live, f"token={token_now}")) as socket:
                since = json.loads(await socket.recv())["seq"]
            (await live.post("/api/seats/2/sit_out")).raise_for_status()
            messages = await resumed(live, f"token={token_now}&epoch={epoch}&last={since}")
            assert [(m["type"], m["seq"]) for m in messages] == [
                ("update", since + 1),
                ("update", since + 2),
            ]

    run(scenario)


def test_a_player_token_ends_with_its_sitting_also_when_the_same_name_sits_down_again(
    tmp_path: Path,
) -> None:
    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe) as live:
            guest = {"seat": 7, "player": "Guest", "buy_in": 100}
            (await live.post("/api/seats", guest)).raise_for_status()
            first = (await live.post("/api/player-tokens", {"seat": 7})).json()
            (await live.post("/api/seats/7/leave")).raise_for_status()
            (await live.post("/api/seats", guest)).raise_for_status()  # another Guest
            second = (await live.post("/api/player-tokens", {"seat": 7})).json()

            old = {"Authorization": f"Bearer {first['token']}"}
            refused = await live.http.get("/api/view", headers=old)
            assert refused.status_code == 401, refused.text
            assert refused.json()["code"] == Denied.PLAYER_LEFT
            again = await live.http.get("/api/view", headers=old)  # and it stays ended
            assert again.status_code == 401
            decision = await live.http.post(
                "/api/decisions", json={"seat": 7, "do": "fold"}, headers=old
            )
            assert decision.status_code == 401
            async with websockets.connect(feed_url(live, f"token={first['token']}")) as socket:
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    await asyncio.wait_for(socket.recv(), WAIT)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401

            new = {"Authorization": f"Bearer {second['token']}"}
            view = await live.http.get("/api/view", headers=new)
            assert view.status_code == 200 and view.json()["seat"] == 7
            assert first["sitting"] != second["sitting"]

    run(scenario)


class Followed:
    """What the feed needs of a table service: its table, its journal position, a
    subscription the test feeds by hand, and its journal's fault (none)."""

    def __init__(self) -> None:
        self.table = Table(TableSettings())
        self.position = 0
        self.subscription = Subscription(set())
        self.fault_listeners: list[Callable[[], None]] = []
        self.journal_fault: str | None = None

    def updates(self) -> Subscription:
        return self.subscription

    def apply(self, *items: TableInput) -> None:
        """Apply ``items`` at the next journal position; the feed hears of it later."""
        self.position += 1
        for item in items:
            step = apply(self.table, item)
            self.table = step.table
            self.subscription.put(Update(self.position, step.table, step.effects))


def test_a_feed_behind_the_table_makes_nothing_of_it_from_before_a_session_began() -> None:
    async def scenario() -> None:
        service = Followed()
        feed = Feed(service)  # type: ignore[arg-type]
        feed.start()
        service.apply(SitDown(at=0, seat=3, player="First", buy_in=200))
        await asyncio.sleep(0)  # the feed has taken it: update 1
        assert feed.current.seq == 1
        service.apply(Leave(at=0, seat=3))  # taken by the table, not yet by the feed
        service.apply(SitDown(at=0, seat=3, player="Second", buy_in=300))
        since = service.position  # a session begins now
        messages = feed.messages(Role.PLAYER, 3, feed.epoch, 0, since)
        first = json.loads(await anext(messages))  # in this task: the feed has not run
        assert first["type"] == "snapshot" and first["seq"] == 3  # after the feed caught up
        assert [seat["player"] for seat in first["view"]["seats"]] == ["Second"]
        assert feed.missed(feed.epoch, 0, since) is None  # a resume from before: snapshot
        assert feed.missed(feed.epoch, 0) is not None  # (the updates are all kept)
        assert feed.missed(feed.epoch, 3, since) == []
        await feed.stop()

    asyncio.run(asyncio.wait_for(scenario(), WAIT))
