"""Zero leaks: whole hands on a live table (a bonus card, a fold, a muck at the showdown, a
void), and for every role every REST view and every WebSocket message is checked against
the true table at that moment: no card that role may not see appears anywhere in it, and
no role's view carries odds (the odds are computed from the hole cards: the studio's
alone). The studio, at a table dealing for real (its delay: the floor, 15 minutes), gets
nothing of those hands while they are played."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import websockets

from controller.history.hands import recorded_hands as hands_of
from controller.journal import Journal
from controller.rules import DECK, Hand, Phase, Reveal
from controller.service import Subscription, TableService
from controller.table import Table
from dealer_ui import view
from dealer_ui.codes import Declined
from tests.console_kit import SUPERVISOR, LiveTable, Script, card_names, live_table
from tests.service_kit import simulator
from tests.test_studio import issue, studio_messages

pytestmark = (
    pytest.mark.slow
)  # a live table: the simulator's process, the service, the console served

ROLES: list[tuple[str, int | None]] = [
    ("public", None),
    ("dealer", None),
    ("player", 1),
    ("player", 2),
    ("player", 3),
    ("surveillance", None),
]


def recorded_hands(service: TableService) -> list[Hand]:
    """The hands of the service's journal as the table recorded them."""
    with Journal.open(service.config.journal, create=False) as journal:
        return [hand.hand for hand in hands_of(journal)]


def forbidden(table: Table, role: str, seat: int | None) -> set[str]:
    """The cards ``role`` may not see in ``table``, worked out here from the game's rules."""
    if role == "surveillance":
        return set()
    hand = table.hand
    out = {str(card) for card in DECK if table.spent >> int(card) & 1}
    out |= {str(card) for card in table.held}
    if hand is None:
        return out
    out |= {str(card) for card in hand.burns}
    allowed = set() if hand.community is None else {str(hand.community)}
    for player in hand.players:
        tabled = player.reveal is Reveal.SHOW and not player.folded
        own = role == "player" and player.seat == seat
        for dealt in player.cards:
            seen = dealt.up or dealt.exposed or tabled or own
            (allowed if seen else out).add(str(dealt.card))
    return out - allowed


async def collect(url: str, token: str | None, into: list[dict[str, Any]]) -> None:
    query = "" if token is None else f"?token={token}"
    async with websockets.connect(url.replace("http", "ws", 1) + "/ws" + query) as socket:
        async for text in socket:
            into.append(json.loads(text))


ODDS_KEYS = frozenset({"odds", "equity", "win", "tie", "standard_error"})


def keys_of(payload: Any) -> set[str]:
    """Every key of every object in ``payload`` (JSON)."""
    if isinstance(payload, dict):
        return set(payload).union(*(keys_of(value) for value in payload.values()))
    if isinstance(payload, list):
        return set().union(*(keys_of(value) for value in payload))
    return set()


async def tokens(live: LiveTable) -> dict[tuple[str, int | None], str | None]:
    out: dict[tuple[str, int | None], str | None] = {("public", None): None}
    out[("dealer", None)] = live.dealer["Authorization"].split()[1]
    for seat in (1, 2, 3):
        response = await live.post("/api/player-tokens", {"seat": seat})
        out[("player", seat)] = response.json()["token"]
    sign_in = {"role": "surveillance", "id": SUPERVISOR["supervisor"], "pin": SUPERVISOR["pin"]}
    response = await live.http.post("/api/sessions", json=sign_in)
    out[("surveillance", None)] = response.json()["token"]
    return out


def test_no_role_sees_a_card_it_may_not_in_any_view_or_message(tmp_path: Path) -> None:
    truth: list[Table] = []
    subscription: list[Subscription] = []

    def before_serve(service: TableService) -> None:
        truth.append(service.table)  # the feed's number 0
        subscription.append(service.updates())

    checked = {role: 0 for role in ROLES}
    leaks: list[str] = []

    def check(role: tuple[str, int | None], table: Table, payload: Any, where: str) -> None:
        hidden = forbidden(table, *role)
        leaked = card_names(payload) & hidden
        if leaked:
            leaks.append(f"{role} {where}: {sorted(leaked)}")
        odds = keys_of(payload) & ODDS_KEYS
        if odds:
            leaks.append(f"{role} {where}: odds {sorted(odds)}")
        checked[role] += bool(hidden) or role[0] == "surveillance"

    async def scenario() -> None:
        async with live_table(tmp_path, shoe, before_serve=before_serve) as live:
            await live.seat_players()
            keys = await tokens(live)
            feeds: dict[tuple[str, int | None], list[dict[str, Any]]] = {r: [] for r in ROLES}
            tasks = [
                asyncio.create_task(collect(live.served.url, keys[role], feeds[role]))
                for role in ROLES
            ]
            studio_token = (await issue(live))["token"]
            studio: list[tuple[float, dict[str, Any]]] = []
            tasks.append(
                asyncio.create_task(studio_messages(live.served.url, studio_token, studio))
            )
            await live.until(lambda: all(feeds.values()) and bool(studio), "every feed's first")

            async def each() -> None:
                table = live.service.table
                for role in ROLES:
                    token = keys[role]
                    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
                    response = await live.http.get("/api/view", headers=headers)
                    assert response.status_code == 200, response.text
                    assert response.json() == view(table, *role)  # the model drops nothing
                    check(role, table, response.json(), "GET /api/view")
                    if role[0] == "surveillance":
                        continue  # its past hands: below, once the hands are played
                    for path in ("/api/history", f"/api/history/{max(table.hand_number, 1)}"):
                        response = await live.http.get(path, headers=headers)
                        assert response.status_code == 403, (role, path, response.text)
                        check(role, table, response.json(), f"GET {path}")

            await live.play_hand(Script(), each)
            await live.play_hand(Script(fold_seat=None, void_hand=2, up_cards=()), each)
            feed = live.served.app.state.feed
            await live.until(
                lambda: all(f[-1]["seq"] == feed.current.seq for f in feeds.values()),
                "every feed caught up",
            )
            watcher = {"Authorization": f"Bearer {keys[('surveillance', None)]}"}
            past = (await live.http.get("/api/history", headers=watcher)).json()
            assert [(h["hand"], h["phase"]) for h in past] == [(1, "complete"), (2, "void")]
            for hand, recorded in zip(past, recorded_hands(live.service), strict=True):
                one = await live.http.get(f"/api/history/{hand['hand']}", headers=watcher)
                assert one.status_code == 200 and one.json()["recorded"], one.text
                holes = {str(d.card) for p in recorded.players for d in p.cards if not d.up}
                assert holes and holes <= card_names(one.json()["recorded_hand"])
                if recorded.phase is Phase.COMPLETE:  # a void hand's script stops at its void
                    assert holes <= card_names(one.json()["history"])
            missing = await live.http.get("/api/history/9", headers=watcher)
            assert missing.status_code == 404 and missing.json()["error"] == "not_found"
            assert missing.json()["code"] == Declined.UNKNOWN_HAND
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            # 15 minutes behind: the studio has had nothing of these hands yet (at most
            # the table before the journal's first input)
            assert studio and all(m["delay"] == 15 * 60 for _, m in studio)
            for _, message in studio:
                shown = message["table"]
                assert shown is None or (shown["hand_number"] == 0 and not shown["players"])
            for _ in range(feed.current.seq):
                truth.append((await asyncio.wait_for(anext(subscription[0]), 5)).table)

        for role, messages in feeds.items():
            first = messages[0]["seq"]
            assert [m["seq"] for m in messages] == list(range(first, len(truth))), role
            assert messages[0]["type"] == "snapshot"
            for message in messages:
                check(role, truth[message["seq"]], message, f"message {message['seq']}")

    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(), 240))

    assert leaks == []
    hands = [table.hand for table in truth if table.hand is not None]
    first = next(hand for hand in reversed(hands) if hand.phase is Phase.COMPLETE)
    assert any(dealt.bonus for player in first.players for dealt in player.cards)
    assert any(player.folded for player in first.players)
    assert {player.reveal for player in first.players} >= {Reveal.SHOW, Reveal.MUCK}
    assert hands[-1].phase is Phase.VOID
    assert all(count > 20 for count in checked.values()), checked


def test_the_views_hide_what_they_must_and_show_what_they_may(tmp_path: Path) -> None:
    """The check above can fail: a player's own hole cards are in their view and in no
    other player's; shown hands are in the dealer's view after the showdown."""

    async def scenario() -> None:
        async with live_table(tmp_path, shoe) as live:
            await live.seat_players()
            keys = await tokens(live)
            await live.play_hand(Script())
            table = live.service.table
            assert table.hand is not None
            views = {}
            for role in ROLES:
                token = keys[role]
                headers = {} if token is None else {"Authorization": f"Bearer {token}"}
                views[role] = (await live.http.get("/api/view", headers=headers)).json()
            players = {player.seat: player for player in table.hand.players}
            holes = {
                seat: {str(d.card) for d in player.cards if not d.up}
                for seat, player in players.items()
            }
            shown = [s for s, p in players.items() if p.reveal is Reveal.SHOW]
            mucked = [s for s, p in players.items() if p.reveal is Reveal.MUCK]
            folded = [s for s, p in players.items() if p.folded]
            assert shown and mucked and folded
            for seat in (1, 2, 3):
                assert holes[seat] <= card_names(views[("player", seat)])
                assert holes[seat] <= card_names(views[("surveillance", None)])
            for seat in mucked + folded:
                for role in ROLES[:2] + [r for r in ROLES if r[0] == "player" and r[1] != seat]:
                    assert not holes[seat] & card_names(views[role]), (seat, role)
            for seat in shown:
                assert holes[seat] <= card_names(views[("dealer", None)])
                assert holes[seat] <= card_names(views[("public", None)])
            bonus = [str(d.card) for p in players.values() for d in p.cards if d.bonus and not d.up]
            assert bonus and set(bonus) <= card_names(views[("surveillance", None)])

    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(), 240))
