"""The console's REST API and feed on a live table: sign-in, sessions, the supervisor's PIN,
rate limiting, errors as JSON (4xx, never 5xx), and a feed that resumes where it left off."""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import os
import signal
from pathlib import Path
from typing import Any

import pytest
import websockets

from controller.history.hands import recorded_hands
from controller.journal import Journal
from controller.journal.snapshots import Snapshots
from controller.records import ACCESS
from controller.recovery import recover
from controller.rules import Illegal
from controller.service import TableService
from controller.table import Mode, Refuse, Table
from dealer_ui.archive import Archive, Reading
from dealer_ui.auth import Auth, Denied
from dealer_ui.codes import Declined
from tests.console_kit import DEALER, SUPERVISOR, LiveTable, Script, live_table
from tests.service_kit import simulator

pytestmark = (
    pytest.mark.slow
)  # a live table: the simulator's process, the service, the console served


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def run(scenario: Any) -> None:
    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(shoe), 400))  # generous: a loaded machine


def test_sign_in_sessions_expire_and_failed_attempts_are_journaled_and_limited(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    final: list[Table] = []

    def use_clock(service: TableService) -> Auth:
        config = service.config
        return Auth(config.dealers, config.supervisors, session_seconds=60, clock=clock)

    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe, auth=use_clock) as live:
            http = live.http
            no_session = await http.post("/api/hands")
            assert no_session.status_code == 403
            assert no_session.json()["error"] == "forbidden"
            assert no_session.json()["code"] == Denied.SESSION_NEEDED
            bad = await http.post("/api/hands", headers={"Authorization": "Bearer nonsense"})
            assert bad.status_code == 401 and bad.json()["code"] == Denied.UNKNOWN_SESSION

            wrong = {"role": "dealer", "id": DEALER["id"], "pin": "0000"}
            for _ in range(5):
                response = await http.post("/api/sessions", json=wrong)
                assert response.status_code == 401
                assert response.json() == {
                    "error": "unauthorized",
                    "reason": "wrong dealer id or PIN",
                    "code": "wrong_pin",
                }
            limited = await http.post("/api/sessions", json={"role": "dealer", **DEALER})
            assert limited.status_code == 429 and limited.json()["error"] == "rate_limited"
            assert limited.json()["code"] == Denied.TOO_MANY_ATTEMPTS
            clock.now += 61  # the window has passed
            fresh = await http.post("/api/sessions", json={"role": "dealer", **DEALER})
            assert fresh.status_code == 200 and fresh.json()["expires_in"] == 60
            token = {"Authorization": f"Bearer {fresh.json()['token']}"}
            sat = await http.post(
                "/api/seats", json={"seat": 1, "player": "Ann", "buy_in": 100}, headers=token
            )
            assert sat.status_code == 200 and sat.json()["view"]["seats"][0]["player"] == "Ann"
            clock.now += 61
            expired = await http.post(
                "/api/seats", json={"seat": 2, "player": "Bo", "buy_in": 100}, headers=token
            )
            assert expired.status_code == 401
            assert expired.json()["code"] == Denied.SESSION_EXPIRED
            assert live.service.table.seat(2) is None

            await live.sign_in()  # the kit's clock-free dealer session is gone: a new one
            position, table = live.service.position, live.service.table
            void = await live.post(
                "/api/supervisor/void", {"supervisor": "S100", "pin": "9999", "why": "test"}
            )
            assert void.status_code == 401 and void.json()["code"] == Denied.WRONG_PIN
            assert live.service.position == position  # no table input: nothing changed
            assert live.service.table is table
            player = await live.post("/api/player-tokens", {"seat": 1})
            other_seat = await http.post(
                "/api/decisions",
                json={"seat": 2, "do": "fold"},
                headers={"Authorization": f"Bearer {player.json()['token']}"},
            )
            assert other_seat.status_code == 403 and other_seat.json()["code"] == Denied.OTHER_SEAT
            final.append(live.service.table)

    with caplog.at_level(logging.WARNING, logger="dealer_ui.auth"):
        run(scenario)
    failures = [r.getMessage() for r in caplog.records if r.name == "dealer_ui.auth"]
    assert sum("failed dealer PIN for 'D200'" in m for m in failures) == 5
    assert any("too many attempts" in m for m in failures)
    assert any("failed supervisor PIN for 'S100'" in m for m in failures)

    with Journal.open(tmp_path / "table.sqlite", create=False) as journal:
        entries = list(journal.entries())
        attempts = [e for e in entries if e.source == ACCESS and e.type == "failed_attempt"]
        # the five wrong PINs, the first refusal of the lockout, the supervisor's wrong PIN
        assert [(e.type, e.fields["action"], e.fields["status"]) for e in attempts] == [
            *[("failed_attempt", "sign_in", 401)] * 5,
            ("failed_attempt", "sign_in", 429),
            ("failed_attempt", "void_hand", 401),
        ]
        assert attempts[0].fields == {
            "role": "dealer",
            "who": "D200",
            "action": "sign_in",
            "client": "127.0.0.1",
            "status": 401,
            "reason": "wrong dealer id or PIN",
        }
        assert attempts[-1].fields["role"] == "supervisor"
        assert attempts[-1].fields["who"] == "S100" and attempts[-1].fields["by"] == "D200"
        assert all(e.recorded_at > 0 for e in attempts)
        # a failed attempt is no table input: replaying the journal gives the same table
        snapshots = Snapshots(journal.path)
        try:
            recovered = recover(journal, snapshots)
        finally:
            snapshots.close()
        assert recovered.table.to_json() == final[0].to_json()
        assert [hand.number for hand in recorded_hands(journal)] == []


def test_the_live_table_keeps_its_shoe_through_a_stalled_simulator(tmp_path: Path) -> None:
    """On a loaded machine the shoe simulator's process (or the service's loop) can go
    without the processor for a second or two: the console's tests must not see the shoe's
    link drop then (a link_down alert and its updates would change the alerts and the feed
    they check)."""

    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe) as live:
            position = live.service.position
            os.kill(shoe.process.pid, signal.SIGSTOP)  # not scheduled, as under heavy load
            try:
                await asyncio.sleep(2.0)  # the scenario: a stall of two seconds
            finally:
                os.kill(shoe.process.pid, signal.SIGCONT)
            await live.shoe.settled()
            assert live.service.table.alerts == ()
            with Journal.open(live.service.config.journal, create=False) as journal:
                assert [e.type for e in journal.entries(position) if e.type == "link_down"] == []

    run(scenario)


async def deal_to_a_decision(live: LiveTable) -> None:
    while live.service.table.hand.waiting_for.kind == "card":
        await live.draw()


async def own_decision(live: LiveTable) -> int:
    """The player to act checks or calls with their own token (the status), after a token
    for another seat is refused."""
    waiting = live.service.table.hand.waiting_for
    seat = waiting.seat
    legal = {choice.do.value: choice for choice in waiting.legal}
    do = next(word for word in ("check", "call", "bring_in") if word in legal)
    body = {"seat": seat, "do": do} | ({"to": legal[do].to} if legal[do].to else {})
    tokens = {}
    for number in (seat, seat % 3 + 1):
        response = await live.post("/api/player-tokens", {"seat": number})
        tokens[number] = {"Authorization": f"Bearer {response.json()['token']}"}
    other = await live.http.post("/api/decisions", json=body, headers=tokens[seat % 3 + 1])
    assert other.status_code == 403 and other.json()["code"] == Denied.OTHER_SEAT
    own = await live.http.post("/api/decisions", json=body, headers=tokens[seat])
    if own.status_code == 403:  # refused at the API: never reaches the table
        assert own.json()["code"] == Refuse.DEALER_DECIDES, own.text
    return own.status_code


def test_players_decide_with_their_token_at_a_table_that_allows_it(tmp_path: Path) -> None:
    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe, table="player_decisions = true") as live:
            await live.seat_players()
            await live.load(Script().deck(live.service.table))
            (await live.post("/api/hands")).raise_for_status()
            await deal_to_a_decision(live)
            position = live.service.position
            assert await own_decision(live) == 200
            assert live.service.position == position + 3  # the two tokens' records, the decision
            with Journal.open(live.service.config.journal, create=False) as journal:
                decision = [e for e in journal.entries(position) if e.type == "decide"]
            assert decision[-1].fields["by"] == "player"

    run(scenario)


def test_the_hand_names_the_signed_in_dealer_and_a_player_card_is_kept(tmp_path: Path) -> None:
    """The console journals the signed-in dealer on each hand it starts, and the player
    card number a player gives at sit-down (a sit-down without one journals none)."""

    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe) as live:
            carded = {"seat": 1, "player": "P1", "buy_in": 100, "player_id": "PC-1001"}
            (await live.post("/api/seats", carded)).raise_for_status()
            for seat in (2, 3):
                body = {"seat": seat, "player": f"P{seat}", "buy_in": 100}
                (await live.post("/api/seats", body)).raise_for_status()
            bad = await live.post("/api/seats", {**carded, "seat": 4, "player_id": "x" * 65})
            assert bad.status_code == 422 and bad.json()["code"] == Declined.INVALID_FIELD
            await live.load(Script().deck(live.service.table))
            (await live.post("/api/hands")).raise_for_status()
            assert live.service.table.seat(1).player_id == "PC-1001"
            with Journal.open(live.service.config.journal, create=False) as journal:
                entries = list(journal.entries(0))
            sat = [e.fields for e in entries if e.type == "sit_down"]
            assert [fields.get("player_id") for fields in sat] == ["PC-1001", None, None]
            assert all("player_id" not in fields for fields in sat[1:])
            (started,) = [e.fields for e in entries if e.type == "new_hand"]
            assert started["dealer"] == DEALER["id"]

    run(scenario)


def test_a_paused_table_refuses_decisions_and_journals_none(tmp_path: Path) -> None:
    """A card out of turn pauses the table: a decision, the dealer's (asked at this very
    moment) or the player's own, answers 409 "paused" with the reason, and the journal
    gets nothing; the supervisor's remedy is taken, then the decision."""

    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe, table="player_decisions = true") as live:
            await live.seat_players()
            await live.load(Script().deck(live.service.table))
            (await live.post("/api/hands")).raise_for_status()
            await deal_to_a_decision(live)
            waiting = live.service.table.hand.waiting_for
            legal = {choice.do.value: choice for choice in waiting.legal}
            do = next(word for word in ("check", "call", "bring_in") if word in legal)
            await live.draw()  # a card out of the shoe while a player is to act
            table = live.service.table
            assert table.paused and table.alerts[0].kind.value == "card_out_of_turn"
            asked = {"hand": table.hand_number, "step": len(table.hand_log)}
            body = {"seat": waiting.seat, "do": do} | ({"to": legal[do].to} if legal[do].to else {})
            token = (await live.post("/api/player-tokens", {"seat": waiting.seat})).json()
            player = {"Authorization": f"Bearer {token['token']}"}
            position = live.service.position
            with Journal.open(live.service.config.journal, create=False) as journal:
                before = len(list(journal.entries(0)))
            for answer in (
                await live.post("/api/decisions", {**body, **asked}),
                await live.post("/api/decisions", {"seat": waiting.seat, "do": "fold"}),
                await live.http.post("/api/decisions", json=body, headers=player),
            ):
                assert answer.status_code == 409, answer.text
                refusal = answer.json()
                assert refusal["error"] == "paused", refusal
                assert refusal["code"] == Refuse.PAUSED and refusal["reason"], refusal
            assert live.service.position == position and live.service.table is table
            with Journal.open(live.service.config.journal, create=False) as journal:
                assert len(list(journal.entries(0))) == before
            resolved = await live.post(
                "/api/supervisor/resolve",
                {**SUPERVISOR, "why": "taken away", "alert": table.alerts[0].id, "remedy": "dead"},
            )
            assert resolved.status_code == 200, resolved.text
            asked["step"] = len(live.service.table.hand_log)
            taken = await live.post("/api/decisions", {**body, **asked})
            assert taken.status_code == 200, taken.text
            with Journal.open(live.service.config.journal, create=False) as journal:
                decided = [e for e in journal.entries(position) if e.type == "decide"]
            assert [e.fields["do"] for e in decided] == [do]

    run(scenario)


BAD_REQUESTS: list[tuple[str, Any]] = [
    ("/api/decisions", {"seat": 1, "do": "dance"}),
    ("/api/decisions", {"seat": "one", "do": "fold"}),
    ("/api/decisions", {"do": "fold"}),
    ("/api/decisions", [1, 2]),
    ("/api/decisions", "not json"),
    ("/api/seats", {"seat": 99, "player": "X", "buy_in": 100}),
    ("/api/seats", {"seat": 1, "player": "", "buy_in": -5}),
    ("/api/seats/0/sit_out", None),
    ("/api/seats/1/dance", None),
    ("/api/seats/x/rebuy", {"chips": 5}),
    ("/api/seats/1/rebuy", {"chips": 10**30}),
    ("/api/player-tokens", {"seat": 0}),
    ("/api/supervisor/enter-card", {**SUPERVISOR, "why": "w", "card": "Zz"}),
    ("/api/supervisor/correct-card", {**SUPERVISOR, "why": "w", "wrong": "", "right": "Ks"}),
    ("/api/supervisor/resolve", {**SUPERVISOR, "why": "w", "alert": 77, "remedy": "hold"}),
    ("/api/supervisor/resolve", {**SUPERVISOR, "why": "w", "alert": 1, "remedy": "burn"}),
    ("/api/supervisor/correct-stack", {**SUPERVISOR, "why": "w", "seat": 9, "stack": -1}),
    ("/api/sessions", {"role": "king", "id": "D200", "pin": "567890"}),
]


async def bad_requests(live: LiveTable) -> None:
    for path, body in BAD_REQUESTS:
        content = body if isinstance(body, str) else json.dumps(body)
        response = await live.http.post(
            path, content=content, headers={**live.dealer, "Content-Type": "application/json"}
        )
        assert 400 <= response.status_code < 500, (path, body, response.text)
        error = response.json()
        assert error["error"] in ("invalid", "refused") and error["reason"], (path, error)


def test_errors_are_json_with_the_reason_and_the_feed_resumes_after_a_reconnect(
    tmp_path: Path,
) -> None:
    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe) as live:
            await bad_requests(live)
            card = await live.post(
                "/api/supervisor/enter-card", {**SUPERVISOR, "why": "w", "card": "Zz"}
            )
            assert "enter_card.card" in card.json()["reason"]
            await live.seat_players()
            await live.load(Script().deck(live.service.table))
            (await live.post("/api/hands")).raise_for_status()
            out_of_turn = await live.post("/api/decisions", {"seat": 2, "do": "call"})
            assert out_of_turn.status_code == 409
            assert out_of_turn.json() == {
                "error": "refused",
                "reason": out_of_turn.json()["reason"],
                "code": Illegal.NOT_BETTING,
            }
            again = await live.post("/api/hands")
            assert again.status_code == 409 and again.json()["code"] == Refuse.HAND_IN_PROGRESS
            await deal_to_a_decision(live)
            assert await own_decision(live) == 403  # this table's players do not decide

            url = live.served.url.replace("http", "ws", 1) + "/ws"
            async with websockets.connect(url) as socket:
                snapshot = json.loads(await socket.recv())
            assert snapshot["type"] == "snapshot"
            epoch, last = snapshot["epoch"], snapshot["seq"]
            for _ in range(3):
                await live.draw()
            resume = f"{url}?epoch={epoch}&last={last}"
            async with websockets.connect(resume) as socket:
                missed = [json.loads(await socket.recv()) for _ in range(3)]
            assert [m["seq"] for m in missed] == [last + 1, last + 2, last + 3]
            assert {m["type"] for m in missed} == {"update"}
            for query in (f"epoch=other&last={last}", f"epoch={epoch}&last=999999"):
                async with websockets.connect(f"{url}?{query}") as socket:
                    fresh = json.loads(await socket.recv())
                assert fresh["type"] == "snapshot" and fresh["seq"] == last + 3
            async with websockets.connect(f"{url}?token=forged") as socket:
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    await socket.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
            openapi = (await live.http.get("/openapi.json")).json()
            assert "/api/supervisor/void" in openapi["paths"] and "/api/view" in openapi["paths"]

    run(scenario)


def test_the_dealer_acknowledges_an_alert_which_stays_until_resolved(tmp_path: Path) -> None:
    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe) as live:
            await live.seat_players()
            await live.load(Script().deck(live.service.table))
            (await live.post("/api/hands")).raise_for_status()
            await live.shoe.command("draw unreadable disposition=dealt_unread")
            await live.shoe.settled()
            await live.until(lambda: bool(live.service.table.alerts), "the unread-card alert")
            alert = live.service.table.alerts[0].id
            public = await live.http.post(f"/api/alerts/{alert}/acknowledge")
            assert public.status_code == 403
            seen = await live.post(f"/api/alerts/{alert}/acknowledge")
            assert seen.status_code == 200, seen.text
            body = seen.json()
            assert body["view"]["alerts"][0]["acknowledged_by"] == DEALER["id"]
            assert body["view"]["paused"] and body["view"]["mode"] == Mode.PAUSED
            assert [e["kind"] for e in body["events"]] == ["alert_acknowledged"]
            again = await live.post(f"/api/alerts/{alert}/acknowledge")
            assert again.status_code == 409
            assert again.json()["code"] == Refuse.ALREADY_ACKNOWLEDGED
            unknown = await live.post("/api/alerts/999/acknowledge")
            assert unknown.status_code == 409 and unknown.json()["code"] == Refuse.NO_ALERT
            resolved = await live.post(
                "/api/supervisor/resolve",
                {**SUPERVISOR, "why": "taken away", "alert": alert, "remedy": "dead"},
            )
            assert resolved.status_code == 200 and resolved.json()["view"]["alerts"] == []
            assert not live.service.table.paused

    run(scenario)


def test_a_player_token_ends_when_its_player_leaves_the_seat(tmp_path: Path) -> None:
    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe) as live:
            await live.seat_players()
            empty = await live.post("/api/player-tokens", {"seat": 4})
            assert empty.status_code == 409 and empty.json()["code"] == Refuse.SEAT_EMPTY
            token = (await live.post("/api/player-tokens", {"seat": 3})).json()["token"]
            player = {"Authorization": f"Bearer {token}"}
            assert (await live.http.get("/api/view", headers=player)).json()["seat"] == 3
            url = live.served.url.replace("http", "ws", 1) + f"/ws?token={token}"
            async with websockets.connect(url) as socket:
                assert json.loads(await socket.recv())["type"] == "snapshot"
                (await live.post("/api/seats/3/leave")).raise_for_status()
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    await asyncio.wait_for(socket.recv(), 30)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
            assert "has left" in closed.value.rcvd.reason
            body = {"seat": 3, "player": "Newcomer", "buy_in": 100}
            (await live.post("/api/seats", body)).raise_for_status()
            after = await live.http.get("/api/view", headers=player)
            assert after.status_code == 401 and after.json()["code"] == Denied.UNKNOWN_SESSION

    run(scenario)


class Readings:
    """Spies on the archive's readings: what the worker process answered for each (where
    it read from, to where, how many inputs it replayed)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.done: list[Reading] = []
        run = Archive._run

        async def spied(archive: Archive, *question: Any) -> tuple[Reading, Any]:
            reading, answer = await run(archive, *question)
            self.done.append(reading)
            return reading, answer

        monkeypatch.setattr(Archive, "_run", spied)


async def watching(live: LiveTable) -> dict[str, str]:
    watcher = {"role": "surveillance", "id": SUPERVISOR["supervisor"], "pin": SUPERVISOR["pin"]}
    session = await live.http.post("/api/sessions", json=watcher)
    return {"Authorization": f"Bearer {session.json()['token']}"}


async def past_hands(live: LiveTable, watcher: dict[str, str]) -> list[dict[str, Any]]:
    response = await live.http.get("/api/history", headers=watcher)
    assert response.status_code == 200, response.text
    return response.json()


async def next_hand_started(live: LiveTable) -> None:
    """A new hand, and its first card: inputs the archive has not read."""
    await live.load(Script().deck(live.service.table))
    (await live.post("/api/hands")).raise_for_status()
    await live.draw()


async def one_hand_played(live: LiveTable) -> dict[str, str]:
    """Surveillance signed in (its header), and a hand played."""
    watcher = await watching(live)
    await live.seat_players()
    await live.play_hand(Script())
    return watcher


def journaled(live: LiveTable) -> list[dict[str, Any]]:
    """The hands of the journal as ``luck-table history`` reads them."""
    with Journal.open(live.service.config.journal, create=False) as journal:
        return [hand.summary() for hand in recorded_hands(journal)]


def inputs_upto(live: LiveTable, position: int) -> int:
    """The table's inputs in the journal up to ``position`` (the whole journal but the
    access records, such as each run's ``sessions_epoch``)."""
    with Journal.open(live.service.config.journal, create=False) as journal:
        upto = [e for e in journal.entries() if e.position <= position]
    return len([e for e in upto if e.source != ACCESS])


def test_past_hands_say_what_the_house_took_where_the_rules_set_a_take(tmp_path: Path) -> None:
    async def scenario(shoe: Any) -> None:
        game = 'showdown = "manual"\nrake_percent = 10\nrake_cap = 5\n'
        async with live_table(tmp_path, shoe, game=game) as live:
            watcher = await one_hand_played(live)
            shown = await past_hands(live, watcher)
            assert shown == journaled(live)  # the rake and the drop as the journal has them
            assert {"rake", "jackpot_drop"} <= set(shown[-1])

    run(scenario)


def test_past_hands_are_read_on_from_where_the_last_reading_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe) as live:
            watcher = await one_hand_played(live)
            readings = Readings(monkeypatch)
            assert [hand["hand"] for hand in await past_hands(live, watcher)] == [1]
            assert await past_hands(live, watcher) == journaled(live)  # nothing new
            await next_hand_started(live)
            shown = await past_hands(live, watcher)
            assert [(hand["hand"], hand["ended"]) for hand in shown][-1] == (2, "in progress")
            first, again, third = readings.done
            assert first.after == 0 and first.replayed == inputs_upto(live, first.position)
            assert (again.after, again.replayed) == (first.position, 0)
            assert third.after == first.position > 0  # read on, not from the start
            with Journal.open(live.service.config.journal, create=False) as journal:
                since = [e for e in journal.entries(first.position) if e.position <= third.position]
            assert third.replayed == len(since) < first.replayed
            assert shown == journaled(live)
            one = await live.http.get("/api/history/1", headers=watcher)
            with Journal.open(live.service.config.journal, create=False) as journal:
                hand = next(iter(recorded_hands(journal)))
            assert one.json()["script"] == hand.history_json()["script"]
            assert one.json()["recorded_hand"] == hand.hand.to_json()

    run(scenario)


def archive_workers(live: LiveTable) -> list[multiprocessing.Process]:
    """The past hands' worker processes (not the PIN checker's, also a child)."""
    checker = live.served.app.state.auth._checker
    checking = set() if checker is None else set(checker._processes)
    return [child for child in multiprocessing.active_children() if child.pid not in checking]


def test_a_dead_past_hands_worker_is_replaced_by_one_reading_from_the_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe) as live:
            watcher = await one_hand_played(live)
            assert [hand["hand"] for hand in await past_hands(live, watcher)] == [1]
            [worker] = archive_workers(live)
            worker.kill()
            worker.join()
            await next_hand_started(live)
            readings = Readings(monkeypatch)
            shown = await past_hands(live, watcher)
            [reading] = readings.done
            assert reading.after == 0 and reading.replayed == inputs_upto(live, reading.position)
            [replaced] = archive_workers(live)
            assert replaced.pid != worker.pid
            assert shown == journaled(live)
            assert [hand["hand"] for hand in shown] == [1, 2]
        assert multiprocessing.active_children() == []  # the app's end closed the pool

    run(scenario)
