"""The studio feed: its configuration (the delay's floor, test mode), its tokens (issued by a
supervisor, journaled, refused when forged, expired or revoked, kept over a restart), its
view (every card, the odds, the bonus-card moment) and, on a live table, that nothing is
released before its delay, also across a restart mid-hand, and that no other role's token
opens it nor a studio token anything else."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from pathlib import Path
from typing import Any

import pytest
import websockets

from controller.config import MIN_STUDIO_DELAY
from controller.config_file import ConfigError
from controller.history.recent import first_after, recent
from controller.history.recovery import Recovered
from controller.journal import Entry, Journal
from controller.journal.snapshots import Snapshots
from controller.rules import parse_card
from controller.table import CardFromShoe, DeckLoaded, NewHand, SitDown, apply
from dealer_ui.studio import (
    ISSUED,
    REVOKED,
    StudioTokens,
    digest,
    hand_odds,
    hand_started,
    studio_view,
)
from tests.console_kit import DEALER, SUPERVISOR, LiveTable, Script, card_names, live_table
from tests.floor_kit import JournalWriter
from tests.service_kit import config, simulator, write_config

#: A table in test mode with a studio delay of 3 seconds.
DELAY = 3.0
TEST_TABLE = f"test_mode = true\n[studio]\ndelay = {DELAY / 60}\n"


# The configuration -----------------------------------------------------------------------


def test_the_delay_has_a_floor_that_only_a_table_in_test_mode_goes_below(tmp_path: Path) -> None:
    assert config(tmp_path, "/dev/null").studio.delay == MIN_STUDIO_DELAY
    assert config(tmp_path, "/dev/null").test_mode is False
    studio = config(tmp_path, "/dev/null", table="[studio]\ndelay = 30\n").studio
    assert studio.delay_seconds == 1800
    for low in (0, 14.9, 1):
        with pytest.raises(ConfigError, match=r"studio\.delay.*at least 15 minutes"):
            config(tmp_path, "/dev/null", table=f"[studio]\ndelay = {low}\n")
        with pytest.raises(ConfigError, match=r"studio\.delay.*at least 15 minutes"):
            config(tmp_path, "/dev/null", table=f"test_mode = false\n[studio]\ndelay = {low}\n")
    test = config(tmp_path, "/dev/null", table="test_mode = true\n[studio]\ndelay = 0\n")
    assert test.test_mode and test.studio.delay == 0
    for bad, what in (
        ("-1", "studio.delay"),
        ("241", "studio.delay"),
        ('"15"', "studio.delay"),
        ("true", "studio.delay"),
    ):
        with pytest.raises(ConfigError, match=what):
            config(tmp_path, "/dev/null", table=f"test_mode = true\n[studio]\ndelay = {bad}\n")
    with pytest.raises(ConfigError, match=r"table\.test_mode"):
        config(tmp_path, "/dev/null", table='test_mode = "yes"\n')
    with pytest.raises(ConfigError, match=r"studio\.token_hours"):
        config(tmp_path, "/dev/null", table="[studio]\ntoken_hours = 25\n")
    with pytest.raises(ConfigError, match=r"studio\.colour"):
        config(tmp_path, "/dev/null", table="[studio]\ncolour = 1\n")
    write_config(tmp_path, "/dev/null")  # the file the last one wrote is a good one again


# The tokens ------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def entry(position: int, kind: str, fields: dict[str, Any], at: float = 0.0) -> Entry:
    return Entry(position, at, "access", kind, fields, None, None, None)


def test_a_studio_token_is_refused_when_forged_expired_or_revoked_and_never_journaled() -> None:
    clock = Clock()
    tokens = StudioTokens(clock)
    token, made = tokens.new("truck 1", "S100", "D200", hours=2)
    assert made.digest == digest(token) and token not in json.dumps(made.to_json())
    with pytest.raises(Exception, match="not a studio token"):
        tokens.check(token)  # not valid until added (journaled)
    tokens.add(made)
    assert tokens.check(token) == made
    for forged in (token[:-1] + ("A" if token[-1] != "A" else "B"), made.digest, made.id, ""):
        with pytest.raises(Exception, match="studio token"):
            tokens.check(forged)
    with pytest.raises(Exception, match="needs a studio token"):
        tokens.check(None)
    clock.now += 2 * 3600
    with pytest.raises(Exception, match="expired"):
        tokens.check(token)
    assert tokens.held() == []
    clock.now -= 3600
    other, second = tokens.new("truck 2", "S100", "D200", hours=2)
    tokens.add(second)
    assert [p.id for p in tokens.held()] == [made.id, second.id]
    assert tokens.revoke(made.id) == made
    with pytest.raises(Exception, match="revoked"):
        tokens.check(token)
    tokens.add(made)  # a revoked id never comes back
    with pytest.raises(Exception, match="revoked"):
        tokens.check(token)
    assert tokens.check(other) == second

    restored = StudioTokens(clock)  # after a restart: from the journal's records
    restored.restore(
        [
            entry(1, ISSUED, made.to_json(), made.issued),
            entry(2, ISSUED, second.to_json(), second.issued),  # issued: the record's time
            entry(3, REVOKED, {"id": made.id}),
        ]
    )
    assert restored.check(other) == second
    with pytest.raises(Exception, match="revoked"):
        restored.check(token)


# The view --------------------------------------------------------------------------------


def test_the_studio_view_shows_every_card_the_odds_and_the_bonus_moment() -> None:
    table = hand_started((1, 2, 3))
    # third street: down, down, up to each seat in rounds; the four of clubs up to seat 2
    codes = ["Ah", "Kd", "2s", "Ad", "Kh", "3s", "9c", "4c", "7d"]
    effects: tuple[Any, ...] = ()
    for name in codes:
        step = apply(table, CardFromShoe(at=0, code=_code(name)))
        assert not step.refused, step.refused
        table, effects = step.table, step.effects
        if name == "4c":
            moment = studio_view(table, None, effects)
    assert table.hand is not None
    chances = hand_odds(table.hand, seed=1)
    assert chances is not None
    shown = studio_view(table, chances, effects)
    assert set(codes) <= card_names(shown)
    assert [p["player"] for p in shown["players"]] == ["P1", "P2", "P3"]
    equities = [p["odds"]["equity"] for p in shown["players"]]
    assert sum(equities) == pytest.approx(1, abs=1e-9)
    assert shown["bonus"] is None
    assert moment["bonus"] == {"seat": 2}
    assert [p["bonus_due"] for p in moment["players"]] == [False, True, False]
    assert [c["wild"] for c in moment["players"][1]["cards"]] == [False, False, True]
    no_odds = studio_view(table, None)
    assert all(p["odds"] is None for p in no_odds["players"])


def _code(name: str) -> int:
    return int(parse_card(name))


# On a live table -------------------------------------------------------------------------


async def issue(live: LiveTable, label: str = "truck") -> dict[str, Any]:
    body = {**SUPERVISOR, "why": "tonight's broadcast", "label": label}
    response = await live.post("/api/studio-tokens", body)
    assert response.status_code == 200, response.text
    return dict(response.json())


def journaled(live: LiveTable, kind: str) -> list[Entry]:
    with Journal.open(live.service.config.journal, create=False) as journal:
        return [e for e in journal.entries(source="access") if e.type == kind]


async def studio_messages(url: str, token: str, into: list[tuple[float, dict[str, Any]]]) -> None:
    """Every studio message with the time it arrived (seconds since the epoch)."""
    async with websockets.connect(url.replace("http", "ws", 1) + f"/studio/ws?token={token}") as ws:
        async for text in ws:
            into.append((time.time(), json.loads(text)))


async def refused(url: str, path: str) -> tuple[int | None, str]:
    """The close code and reason of a feed opened at ``path`` (one that sends: None)."""
    async with websockets.connect(url.replace("http", "ws", 1) + path) as ws:
        try:
            await asyncio.wait_for(ws.recv(), 5)
        except websockets.ConnectionClosed as closed:
            assert closed.rcvd is not None
            return closed.rcvd.code, closed.rcvd.reason
    return None, ""


async def released(messages: list[tuple[float, dict[str, Any]]], position: int) -> None:
    """Wait until the studio has been sent the moment at ``position`` (its odds are computed
    one after the other in one worker: on a busy machine, many seconds after the hand)."""
    deadline = time.monotonic() + 180
    while not (messages and (messages[-1][1]["position"] or 0) >= position):
        assert time.monotonic() < deadline, f"the studio's moment {position}"
        await asyncio.sleep(0.05)


def released_in_time(messages: list[tuple[float, dict[str, Any]]], delay: float) -> None:
    """No message arrived before the delay had passed since its moment's journaled time."""
    for arrived, message in messages:
        if message["table"] is not None:
            assert arrived >= message["at"] + delay, (arrived - message["at"], message["seq"])


def test_the_studio_gets_every_card_and_the_odds_only_after_the_delay(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with live_table(tmp_path, shoe, table=TEST_TABLE) as live:
            await live.seat_players()
            url = live.served.url
            wrong = {**SUPERVISOR, "pin": "0000", "why": "x", "label": "truck"}
            response = await live.post("/api/studio-tokens", wrong)
            assert response.status_code == 401, response.text
            public = await live.http.post(
                "/api/studio-tokens", json={**SUPERVISOR, "why": "x", "label": "t"}
            )
            assert public.status_code == 403, public.text
            issued = await issue(live)
            token = issued["token"]
            records = journaled(live, ISSUED)
            assert [r.fields["id"] for r in records] == [issued["id"]]
            assert records[0].fields["digest"] == digest(token)
            assert token not in json.dumps([r.fields for r in records])
            attempts = [e.fields for e in journaled(live, "failed_attempt")]
            assert [a["action"] for a in attempts] == [ISSUED]

            # a studio token opens nothing live; no other token opens the studio feed
            studio = {"Authorization": f"Bearer {token}"}
            assert (await live.http.get("/api/view", headers=studio)).status_code == 401
            assert (await refused(url, f"/ws?token={token}"))[0] == 4401
            dealer_token = live.dealer["Authorization"].split()[1]
            player = (await live.post("/api/player-tokens", {"seat": 1})).json()["token"]
            for other in (dealer_token, player, "", token[:-2], digest(token), issued["id"]):
                code, reason = await refused(url, f"/studio/ws?token={other}")
                assert code == 4401, (other, reason)
                headers = {"Authorization": f"Bearer {other}"} if other else {}
                response = await live.http.get("/api/studio", headers=headers)
                assert response.status_code == 401, response.text

            messages: list[tuple[float, dict[str, Any]]] = []
            collector = asyncio.create_task(studio_messages(url, token, messages))
            await live.play_hand(Script())
            dealt = live.service.table
            last = live.service.position
            await released(messages, last)
            # the studio got it all: every card dealt, odds at every moment with cards
            assert dealt.hand is not None
            every = {str(d.card) for p in dealt.hand.players for d in p.cards}
            assert every <= set().union(
                *(card_names(m["table"]) for _, m in messages if m["table"])
            )
            with_cards = [m for _, m in messages if m["table"] and m["table"]["players"]]
            assert any(m["table"]["bonus"] == {"seat": 1} for m in with_cards)
            for message in with_cards:
                for seat in message["table"]["players"]:
                    if seat["cards"] and not seat["folded"] and message["table"]["phase"] != "void":
                        assert seat["odds"] is not None or seat["mucked"], message["table"]
            released_in_time(messages, DELAY)
            now = await live.http.get("/api/studio", headers=studio)
            assert now.json()["position"] == last
            # surveillance reads the past hands from the journal while the studio follows it
            sign_in = {"role": "surveillance", "id": "S100", "pin": SUPERVISOR["pin"]}
            watcher = (await live.http.post("/api/sessions", json=sign_in)).json()["token"]
            past = await live.http.get(
                "/api/history", headers={"Authorization": f"Bearer {watcher}"}
            )
            assert [hand["hand"] for hand in past.json()] == [1], past.text
            listed = await live.http.get(
                "/api/studio-tokens", headers={"Authorization": f"Bearer {watcher}"}
            )
            assert [(t["id"], t["label"]) for t in listed.json()] == [(issued["id"], "truck")]
            assert token not in listed.text and digest(token) not in listed.text
            assert (
                await live.http.get("/api/studio-tokens", headers=live.dealer)
            ).status_code == 403
            feed = live.served.app.state.table.studio
            assert feed.timings and all(done >= at for _, at, done in feed.timings)

            # revoked: the open feed is closed, and the token opens nothing more
            revoke = {**SUPERVISOR, "why": "the broadcast ended"}
            response = await live.post(f"/api/studio-tokens/{issued['id']}/revoke", revoke)
            assert response.status_code == 200, response.text
            with pytest.raises(websockets.ConnectionClosedError) as closed:
                await asyncio.wait_for(collector, 5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
            assert (await refused(url, f"/studio/ws?token={token}"))[0] == 4401
            again = await live.post(f"/api/studio-tokens/{issued['id']}/revoke", revoke)
            assert again.status_code == 404
            assert [r.fields["id"] for r in journaled(live, REVOKED)] == [issued["id"]]

    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(), 240))


def test_only_a_supervisor_issues_lists_and_revokes_studio_tokens(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The public, a player's token and a studio token issue, list and revoke nothing
    (403, 401: a studio token is no session); a dealer's session lists nothing, and at a
    dealer's or surveillance session a dealer's own id and PIN, or a wrong PIN, issue and
    revoke nothing (401, each journaled as a failed attempt); the token issued still holds.
    A refused studio token is logged (never the token), not journaled. A table in test mode
    with a delay under the floor says so in the log when it starts."""

    async def scenario() -> None:
        async with live_table(tmp_path, shoe, table=TEST_TABLE) as live:
            await live.seat_players()
            issued = await issue(live)
            token = issued["token"]
            player = (await live.post("/api/player-tokens", {"seat": 1})).json()["token"]
            sign_in = {"role": "surveillance", "id": "S100", "pin": SUPERVISOR["pin"]}
            watcher = (await live.http.post("/api/sessions", json=sign_in)).json()["token"]
            revoke_path = f"/api/studio-tokens/{issued['id']}/revoke"
            issuing = ("POST", "/api/studio-tokens", {**SUPERVISOR, "why": "x", "label": "mine"})
            revoking = ("POST", revoke_path, {**SUPERVISOR, "why": "x"})
            listing = ("GET", "/api/studio-tokens", None)
            for who, headers, status in (
                ("the public", {}, 403),
                ("a player", bearer(player), 403),
                ("the studio", bearer(token), 401),
            ):
                for method, path, body in (issuing, revoking, listing):
                    response = await live.http.request(method, path, json=body, headers=headers)
                    assert response.status_code == status, (who, path, response.text)
            assert (await live.http.get(listing[1], headers=live.dealer)).status_code == 403

            as_dealer = {"supervisor": DEALER["id"], "pin": DEALER["pin"], "why": "x"}
            wrong = {**SUPERVISOR, "pin": "0000", "why": "x"}
            tries = (  # four: one fewer than the address's lockout
                (live.dealer, issuing[1], {**as_dealer, "label": "mine"}),
                (live.dealer, revoke_path, wrong),
                (bearer(watcher), revoke_path, as_dealer),
                (bearer(watcher), issuing[1], {**wrong, "label": "mine"}),
            )
            for headers, path, body in tries:
                response = await live.http.post(path, json=body, headers=headers)
                assert response.status_code == 401, (path, body, response.text)
                assert "wrong supervisor id or PIN" in response.json()["reason"]
            attempts = [e.fields for e in journaled(live, "failed_attempt")]
            assert [(a["who"], a["action"], a["by"]) for a in attempts] == [
                ("D200", ISSUED, "D200"),
                ("S100", REVOKED, "D200"),
                ("D200", REVOKED, "S100"),
                ("S100", ISSUED, "S100"),
            ]
            assert all(body["pin"] not in json.dumps(attempts) for _, _, body in tries)

            assert [r.fields["id"] for r in journaled(live, ISSUED)] == [issued["id"]]
            assert journaled(live, REVOKED) == []
            listed = await live.http.get("/api/studio-tokens", headers=bearer(watcher))
            assert [t["id"] for t in listed.json()] == [issued["id"]], listed.text
            assert (await live.http.get("/api/studio", headers=bearer(token))).status_code == 200

            with caplog.at_level(logging.WARNING, "dealer_ui.app"):
                forged = await live.http.get("/api/studio", headers=bearer("forged-token-7"))
                code, _ = await refused(live.served.url, "/studio/ws?token=forged-token-8")
            assert forged.status_code == 401 and code == 4401
            started = [r.getMessage() for r in caplog.records if "test mode" in r.getMessage()]
            assert started == [
                "test mode: the studio's delay is 3 s, under the 15 minutes of a table that "
                "deals for real"
            ]
            refusals = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
            assert len(refusals) == 2, refusals
            assert not any("forged-token" in message for message in refusals)
            assert len(journaled(live, "failed_attempt")) == len(tries)

    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(), 240))


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_restart_mid_hand_releases_nothing_early(tmp_path: Path) -> None:
    """The table stops in the middle of a hand and starts again: the studio, which had
    not yet been sent the last moments, gets them after their delay, never before; its
    token still holds."""
    messages: list[tuple[float, dict[str, Any]]] = []

    async def first_half(live: LiveTable) -> tuple[str, str, int]:
        await live.seat_players()
        token = (await issue(live))["token"]
        ended = await issue(live, "truck 2")
        revoke = {**SUPERVISOR, "why": "not needed"}
        response = await live.post(f"/api/studio-tokens/{ended['id']}/revoke", revoke)
        assert response.status_code == 200, response.text
        script = Script()
        await live.load(script.deck(live.service.table))
        (await live.post("/api/hands")).raise_for_status()
        for _ in range(6):  # third street, part of it
            await live.draw()
        return token, ended["token"], live.service.position

    async def scenario() -> None:
        async with live_table(tmp_path, shoe, table=TEST_TABLE) as live:
            token, revoked, stopped_at = await first_half(live)
            stopped = time.time()
        async with live_table(tmp_path, shoe, table=TEST_TABLE) as live:
            code, reason = await refused(live.served.url, f"/studio/ws?token={revoked}")
            assert code == 4401 and "revoked" in reason  # revoked before: still revoked
            collector = asyncio.create_task(studio_messages(live.served.url, token, messages))
            await released(messages, stopped_at)
            collector.cancel()
            await asyncio.gather(collector, return_exceptions=True)
        assert messages[-1][0] >= stopped - 0.5 + DELAY

    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(), 240))
    released_in_time(messages, DELAY)
    six = [
        m
        for _, m in messages
        if m["table"] and sum(len(p["cards"]) for p in m["table"]["players"]) == 6
    ]
    assert six, "the sixth card's moment was released after the restart"


def test_a_flood_of_forged_tokens_and_a_chatty_studio_change_nothing(tmp_path: Path) -> None:
    """Forged tokens by the dozen are each refused (and none is journaled: nobody fills the
    journal by trying), a studio client that sends junk is not listened to (closed with
    1008 once it sends more than the feed's rate: docs/security.md), and the table deals
    on and the real studio, connected again, gets its feed."""

    async def scenario() -> None:
        api = {"max_websockets": 100, "max_connections": 100}  # the guard lets them in
        async with live_table(tmp_path, shoe, table=TEST_TABLE, api=api) as live:
            await live.seat_players()
            token = (await issue(live))["token"]
            before = len(journaled(live, "failed_attempt"))
            url = live.served.url
            forged = [refused(url, f"/studio/ws?token=forged{n}") for n in range(40)]
            codes = await asyncio.gather(*forged)
            assert {code for code, _ in codes} == {4401}
            assert len(journaled(live, "failed_attempt")) == before
            ws_url = url.replace("http", "ws", 1) + f"/studio/ws?token={token}"
            async with websockets.connect(ws_url) as chatty:
                await chatty.recv()
                for _ in range(500):
                    await chatty.send('{"type": "studio", "token": "x", "role": "surveillance"}')
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    while True:
                        await asyncio.wait_for(chatty.recv(), 60)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
            async with websockets.connect(ws_url) as studio:
                first = json.loads(await studio.recv())
                await live.load(Script().deck(live.service.table))
                (await live.post("/api/hands")).raise_for_status()
                await live.draw()
                position = live.service.position
                while True:
                    message = json.loads(await asyncio.wait_for(studio.recv(), 60))
                    if (message["position"] or 0) >= position:
                        break
                assert message["seq"] > first["seq"]
                assert card_names(message["table"])  # the card dealt, after the delay

    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(), 240))


def test_the_journal_read_back_from_a_time_keeps_every_input_after_it(tmp_path: Path) -> None:
    """``recent``: the table at the time asked for and every input journaled after it, in
    journal order; once one input is after the time, every later one is kept, also one
    whose time is earlier (a clock set back): its table holds the inputs before it."""
    path = tmp_path / "t.sqlite"
    writer = JournalWriter(path, clock=1_800_000_000_000)
    for seat in range(1, 9):  # positions 1..8, one second apart
        writer.ok(SitDown(at=0, seat=seat, player=f"P{seat}", buy_in=100))
    writer.ok(DeckLoaded(at=0, count=52))  # position 9
    at_nine = Recovered(writer.table, 9).state()
    writer.clock -= 5000  # the clock set back five seconds
    writer.ok(NewHand(at=0))  # position 10, journaled at 1 s after position 4's time
    writer.clock += 10_000
    writer.ok(CardFromShoe(at=0, code=0))  # position 11, at 16 s
    writer.journal.close()
    base = 1_800_000_000.0
    snapshots = Snapshots(path)
    with Journal.open_read_only(path) as journal:
        replayed = recent(journal, snapshots, base + 10, 11)
        snapshots.save(9, 0, at_nine)  # a snapshot at position 9: read from it on
        assert first_after(journal, base + 10, 11) == 11
        from_nine = recent(journal, snapshots, base + 10, 11)
        assert (from_nine.before.position, from_nine.before.at) == (10, base + 5)
        assert [update.position for update in from_nine.updates] == [11]
        assert from_nine.before.table == replayed.before.table
        assert from_nine.updates == replayed.updates
        assert first_after(journal, base + 6.5, 10) == 7
        read = recent(journal, snapshots, base + 6.5, 10)
        assert (read.before.position, read.before.at) == (6, base + 6)
        assert [update.position for update in read.updates] == [7, 8, 9, 10]
        assert read.updates[-1].at == base + 5  # kept, after the others
        assert read.updates[-1].table.hand is not None
        everything = recent(journal, snapshots, base, 10)
        assert everything.before.position == 0 and len(everything.updates) == 10
        nothing = recent(journal, snapshots, base + 100, 10)
        assert nothing.before.position == 10 and nothing.updates == ()
    snapshots.close()
