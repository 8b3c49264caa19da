"""The insider's and the LAN stranger's ways to the hole cards, closed (issue 33): a player
token is a hole-card credential (one per sitting, a second only with a supervisor's PIN,
every issue journaled without the token, ended with its sitting); an id guessed from many
addresses is locked for all but the kiosks until a supervisor unlocks it, with a blocking
alert; made-up ids raise one alert; PINs have 6 digits at least; sessions end when idle;
``/metrics`` and ``/health``'s details go only to the addresses and tokens configured;
the floor service's sign-in locks an id for the hour and ends idle sessions too."""

from __future__ import annotations

import asyncio
import hashlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from argon2 import PasswordHasher
from fastapi.testclient import TestClient

from controller.config import load_config
from controller.config_file import Api, ConfigError, Credential
from controller.journal import Journal
from controller.records import ACCESS
from controller.table import AlertKind
from dealer_ui.auth import NOT_CONFIGURED, Auth, AuthError, Denied, hash_pin
from dealer_ui.codes import Declined
from dealer_ui.pit import create_app as create_pit
from dealer_ui.pit.config import FloorConfig
from tests.console_kit import DEALER, SUPERVISOR, LiveTable, live_table
from tests.pit_kit import SUPERVISOR as PIT
from tests.pit_kit import pit_database
from tests.service_kit import simulator, write_config

WAIT = 30.0
KIOSK = "10.0.9.9"
SCRAPER = "a monitoring system's token"


class Clock:
    """The sessions' clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def run(scenario: Any) -> None:
    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(shoe), 400))  # generous: a loaded machine


def client_at(app: Any, address: str) -> httpx.AsyncClient:
    """A client of the app (in this process) that comes from ``address``."""
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://localhost", timeout=60)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def feed_url(live: LiveTable, token: str) -> str:
    return live.served.url.replace("http", "ws", 1) + f"/ws?token={token}"


async def feed_closed(live: LiveTable, token: str) -> int:
    """The close code of the feed opened with ``token``."""
    async with websockets.connect(feed_url(live, token)) as socket:
        with pytest.raises(websockets.ConnectionClosed) as closed:
            while True:
                await asyncio.wait_for(socket.recv(), WAIT)
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code


@pytest.mark.slow
def test_one_player_token_per_sitting_journaled_and_ended_with_the_sitting(
    tmp_path: Path,
) -> None:
    given: list[str] = []

    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe) as live:
            await live.seat_players()
            first = await live.post("/api/player-tokens", {"seat": 1})
            assert first.status_code == 200, first.text
            given.append(first.json()["token"])
            own = await live.http.get("/api/view", headers=bearer(given[0]))
            assert own.status_code == 200 and own.json()["seat"] == 1

            # a second token for the same sitting: not on the dealer's word alone
            again = await live.post("/api/player-tokens", {"seat": 1})
            assert again.status_code == 403, again.text
            assert again.json()["code"] == Denied.SUPERVISOR_NEEDED
            wrong = {"seat": 1, "supervisor": {**SUPERVISOR, "pin": "000000", "why": "lost"}}
            assert (await live.post("/api/player-tokens", wrong)).status_code == 401
            still = await live.http.get("/api/view", headers=bearer(given[0]))
            assert still.status_code == 200  # refusals end nothing

            replaced = {"seat": 1, "supervisor": {**SUPERVISOR, "why": "the phone was lost"}}
            second = await live.post("/api/player-tokens", replaced)
            assert second.status_code == 200, second.text
            given.append(second.json()["token"])
            assert second.json()["sitting"] == first.json()["sitting"]
            ended = await live.http.get("/api/view", headers=bearer(given[0]))
            assert ended.status_code == 401, ended.text
            assert await feed_closed(live, given[0]) == 4401
            assert (await live.http.get("/api/view", headers=bearer(given[1]))).status_code == 200

            # the sitting ends: so does its token, on the feed as on the REST API
            async with websockets.connect(feed_url(live, given[1])) as socket:
                await asyncio.wait_for(socket.recv(), WAIT)  # the snapshot
                (await live.post("/api/seats/1/leave")).raise_for_status()
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    while True:
                        await asyncio.wait_for(socket.recv(), WAIT)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
            left = await live.http.get("/api/view", headers=bearer(given[1]))
            assert left.status_code == 401, left.text  # ended by the feed's check: for good

    run(scenario)
    with Journal.open(tmp_path / "table.sqlite", create=False) as journal:
        issued = [e for e in journal.entries() if e.source == ACCESS and e.type == "player_token"]
    assert [(e.fields["seat"], e.fields["by"]) for e in issued] == [(1, DEALER["id"])] * 2
    assert [e.fields["digest"] for e in issued] == [
        hashlib.sha256(token.encode()).hexdigest() for token in given
    ]
    assert "supervisor" not in issued[0].fields
    assert issued[1].fields["supervisor"] == SUPERVISOR["supervisor"]
    assert (issued[1].fields["replaces"], issued[1].fields["ended"]) == (1, 1)
    assert issued[0].fields["sitting"] == issued[1].fields["sitting"]
    for path in tmp_path.glob("table.sqlite*"):  # the tokens themselves: nowhere
        data = path.read_bytes()
        assert not any(token.encode() in data for token in given), path


@pytest.mark.slow
def test_an_id_guessed_from_many_addresses_is_locked_but_at_the_kiosk(tmp_path: Path) -> None:
    clock = Clock()
    api = {
        "guesses_per_hour": 3,
        "kiosks": (KIOSK,),
        "session_idle": 600.0,
        "operations_from": ("10.0.3.0/24",),
        "operations_tokens": (hashlib.sha256(SCRAPER.encode()).hexdigest(),),
    }

    def with_clock(service: Any) -> Auth:
        config = service.config
        auth = Auth.configured(config.api, config.dealers, config.supervisors)
        auth.clock = clock
        return auth

    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe, api=api, auth=with_clock) as live:
            app = live.served.app
            wrong = {"role": "dealer", "id": DEALER["id"], "pin": "000000"}
            right = {"role": "dealer", **DEALER}
            for n in range(3):  # one guess from each of three addresses: no address lockout
                async with client_at(app, f"10.0.1.{n}") as guesser:
                    answer = await guesser.post("/api/sessions", json=wrong)
                    assert answer.status_code == 401, answer.text
            (alert,) = live.service.table.alerts
            assert alert.kind is AlertKind.SIGN_IN_LOCKED and live.service.table.paused
            facts = alert.facts
            assert (facts.role, facts.who, facts.failures) == ("dealer", DEALER["id"], 3)  # type: ignore[attr-defined]  # a sign-in alert's
            assert all(f"10.0.1.{n}" in facts.clients for n in range(3))  # type: ignore[attr-defined]
            async with client_at(app, "10.0.5.5") as elsewhere, client_at(app, KIOSK) as kiosk:
                locked = await elsewhere.post("/api/sessions", json=right)  # the right PIN
                assert locked.status_code == 423, locked.text
                assert locked.json()["error"] == "locked"
                signed = await kiosk.post("/api/sessions", json=right)
                assert signed.status_code == 200, signed.text
                at_kiosk = bearer(signed.json()["token"])
                unlock = {**SUPERVISOR, "why": "the dealer's id", "role": "dealer", "id": "x"}
                nothing = await kiosk.post("/api/supervisor/unlock", json=unlock, headers=at_kiosk)
                assert nothing.status_code == 404, nothing.text
                assert nothing.json()["code"] == Declined.NOT_LOCKED
                unlock["id"] = DEALER["id"]
                done = await kiosk.post("/api/supervisor/unlock", json=unlock, headers=at_kiosk)
                assert done.status_code == 200 and done.json()["alert"] == alert.id, done.text
                assert not live.service.table.alerts and not live.service.table.paused
                back = await elsewhere.post("/api/sessions", json=right)
                assert back.status_code == 200, back.text

                # an idle session ends on the server; each request keeps it alive
                clock.now += 599
                view = await kiosk.get("/api/view", headers=at_kiosk)
                assert view.status_code == 200
                clock.now += 599
                assert (await kiosk.get("/api/view", headers=at_kiosk)).status_code == 200
                clock.now += 600
                idle = await kiosk.get("/api/view", headers=at_kiosk)
                assert idle.status_code == 401 and idle.json()["code"] == Denied.SESSION_IDLE

            # /metrics and /health's details: only to whom the configuration names
            async with client_at(app, "10.0.4.1") as stranger:
                refused = await stranger.get("/metrics")
                assert refused.status_code == 403
                assert refused.json()["code"] == Denied.NOT_OPERATIONS
                assert (await stranger.get("/health")).json() == {"alive": True}
                scraped = await stranger.get("/metrics", headers=bearer(SCRAPER))
                assert scraped.status_code == 200 and "luck_table_open_alerts" in scraped.text
            async with client_at(app, "10.0.3.7") as monitor:
                assert (await monitor.get("/metrics")).status_code == 200
                assert (await monitor.get("/health")).json()["table"] == "T-TEST"

    run(scenario)
    with Journal.open(tmp_path / "table.sqlite", create=False) as journal:
        entries = list(journal.entries())
    (resolved,) = [e for e in entries if e.type == "resolve_alert"]
    assert resolved.fields["who"] == SUPERVISOR["supervisor"]
    assert resolved.fields["why"] == "the dealer's id"
    assert len([e for e in entries if e.type == "sign_in_locked"]) == 1


@pytest.mark.slow
def test_made_up_ids_raise_one_alert_that_shows_none_of_their_text(tmp_path: Path) -> None:
    made_up = [f"EVIL{n} " + "x" * 40 for n in range(20)]
    spoofing = [f"\u202eEVIL{n}\u200b" for n in range(5)]

    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe) as live:
            app = live.served.app
            for n, who in enumerate(spoofing):  # refused as text: no sign-in is tried
                async with client_at(app, f"10.0.1.{n}") as guesser:
                    body = {"role": "dealer", "id": who, "pin": "000000"}
                    answer = await guesser.post("/api/sessions", json=body)
                    assert answer.status_code == 422 and "U+202E" in answer.text
            assert live.service.table.alerts == ()
            for n, who in enumerate(made_up):  # each from an address of its own
                async with client_at(app, f"10.0.2.{n}") as guesser:
                    body = {"role": "dealer", "id": who[:64], "pin": "000000"}
                    answer = await guesser.post("/api/sessions", json=body)
                    assert answer.status_code == 401, answer.text
            (alert,) = live.service.table.alerts
            assert alert.kind is AlertKind.SIGN_IN_ATTACK and not live.service.table.paused
            assert NOT_CONFIGURED in alert.message
            assert "EVIL" not in alert.message + alert.remedy
            assert "\u202e" not in alert.message and "\u200b" not in alert.message

    run(scenario)
    with Journal.open(tmp_path / "table.sqlite", create=False) as journal:
        attacks = [e for e in journal.entries() if e.type == "sign_in_attack"]
    assert len(attacks) == 1 and attacks[0].fields["who"] == NOT_CONFIGURED


def test_a_configuration_with_a_short_pins_hash_is_refused_naming_the_field(
    tmp_path: Path,
) -> None:
    path = write_config(tmp_path, "/dev/null")
    text = path.read_text()
    start = text.index('pin_hash = "', text.index("[[credentials.dealers]]"))
    end = text.index("\n", start)
    short = PasswordHasher().hash("1234")  # a 4-digit PIN's hash, made without hash-pin
    path.write_text(text[:start] + f'pin_hash = "{short}"' + text[end:])
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    assert refused.value.key == "credentials.dealers[0].pin_hash"
    assert "at least 6 digits" in str(refused.value) and "hash-pin" in str(refused.value)


@pytest.mark.slow
def test_the_floor_services_sign_in_locks_an_id_for_the_hour_and_ends_idle_sessions() -> None:
    clock = Clock()
    pit = Credential(PIT["id"], hash_pin(PIT["pin"]))
    with pit_database() as dsn:
        config = FloorConfig(dsn=dsn, api=Api(guesses_per_hour=2), supervisors=(pit,))
        auth = Auth.configured(config.api, (), config.supervisors)
        auth.clock = clock
        with TestClient(create_pit(config, auth)) as client:
            wrong = {**PIT, "pin": "000000"}
            for _ in range(2):
                assert client.post("/api/sessions", json=wrong).status_code == 401
            locked = client.post("/api/sessions", json=PIT)
            assert locked.status_code == 423 and locked.json()["error"] == "locked"
            clock.now += 3601  # no table to raise an alert at: the hour's failures age out
            signed = client.post("/api/sessions", json=PIT)
            assert signed.status_code == 200, signed.text
            headers = bearer(signed.json()["token"])
            assert client.get("/api/tables", headers=headers).status_code == 200
            clock.now += config.api.session_idle
            idle = client.get("/api/tables", headers=headers)
            assert idle.status_code == 401 and idle.json()["code"] == Denied.SESSION_IDLE


def test_made_up_ids_cost_no_memory_once_their_hour_is_over() -> None:
    clock = Clock()
    dealer = Credential(DEALER["id"], "")
    auth = Auth(
        [dealer],
        [dealer],
        clock=clock,
        attack_delay=0.0,
        verify=lambda _h, _p: False,
        checker=lambda: ThreadPoolExecutor(1),
    )

    async def guess(who: str, client: str) -> None:
        with pytest.raises(AuthError):
            await auth.sign_in("dealer", who, "000000", client)

    async def scenario() -> None:
        for n in range(200):  # each made-up id from an address of its own
            await guess(f"made-up-{n}", f"10.1.{n // 250}.{n % 250}")
        assert len(auth._failures) > 200
        clock.now += 3601
        await guess("one-more", "10.2.0.1")

    asyncio.run(asyncio.wait_for(scenario(), WAIT))
    assert all("10.2.0.1" in {c for _, c in failures} for failures in auth._failures.values())
