"""The console under attack from the casino network (docs/security.md): PIN guesses sent at
once, an id locked out from elsewhere, forged forwarded addresses, big and slow requests,
too many connections, foreign Origin and Host headers, and the pages' security headers."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import websockets
from websockets.exceptions import InvalidStatus

from controller.config_file import Api, Credential
from controller.floor import facts
from controller.floor.derive import derive, point_at
from controller.journal import Journal
from controller.journal.snapshots import Snapshots
from controller.records import ACCESS
from controller.table import AlertKind
from dealer_ui.auth import LOCKED, Attack, Auth, AuthError, Denied, hash_pin, verify_pin
from dealer_ui.codes import Declined
from dealer_ui.guard import CSP
from dealer_ui.kept_sessions import EPOCH  # each run's: not an attempt
from dealer_ui.pit.app import create_app as create_pit
from dealer_ui.pit.config import FloorConfig
from dealer_ui.refusals import LogFold
from dealer_ui.relay import Relay, server_url
from tests.console_kit import DEALER, PLAYERS, LiveTable, Script, live_table
from tests.service_kit import simulator
from tests.waiting import async_wait_until


def one_thread() -> ThreadPoolExecutor:
    """The PIN checker of these tests: a thread, for their checks are functions of theirs."""
    return ThreadPoolExecutor(1)


#: A PIN check: (pin_hash, pin).
Verify = Callable[[str, str], bool]

DEADLINE = 240


def run(scenario: Callable[[Any], Awaitable[None]]) -> None:
    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(shoe), DEADLINE))


def counted(who: str, pin: str) -> tuple[Credential, dict[str, int], Verify]:
    """A credential, and a PIN check that counts its checks and how many ran at once."""
    tally = {"checks": 0, "now": 0, "most": 0, "on_loop": 0}
    guard = threading.Lock()

    def verify(pin_hash: str, pin: str) -> bool:
        with guard:
            tally["on_loop"] += threading.current_thread() is threading.main_thread()
            tally["checks"] += 1
            tally["now"] += 1
            tally["most"] = max(tally["most"], tally["now"])
        try:
            return verify_pin(pin_hash, pin)
        finally:
            with guard:
                tally["now"] -= 1

    return Credential(who, hash_pin(pin)), tally, verify


@pytest.mark.slow
def test_a_burst_of_guesses_checks_at_most_the_allowed_number_off_the_event_loop() -> None:
    dealer, tally, verify = counted("D200", "567890")
    auth = Auth([dealer], [dealer], verify=verify, checker=one_thread)

    async def burst() -> list[int]:
        async def attempt(pin: str) -> int:
            try:
                await auth.sign_in("dealer", "D200", pin, "10.0.0.7")
            except AuthError as error:
                return error.status
            return 200

        pins = [f"{n:04d}" for n in range(39)] + ["567890"]
        return list(await asyncio.gather(*(attempt(pin) for pin in pins)))

    statuses = asyncio.run(burst())  # the event loop runs in this (the main) thread
    assert tally["checks"] == 5  # counted before checked: the burst checks the allowed number
    assert tally["most"] == 1  # the hash checks: one at a time
    # the checker's own priority and CPU: test_pins_are_checked_in_a_process_of_their_own_...
    assert statuses.count(401) == 5 and statuses.count(429) == 35
    assert 200 not in statuses  # the right PIN came after the five: refused unchecked
    assert tally["on_loop"] == 0  # every check in a thread of its own, off the event loop


@pytest.mark.slow
def test_an_id_under_attack_is_slowed_down_and_told_once() -> None:
    dealer = Credential("D200", hash_pin("567890"))
    told: list[Attack] = []

    async def tell(attack: Attack) -> None:
        told.append(attack)

    auth = Auth([dealer], [dealer], attack_delay=0.5, on_attack=tell)

    async def scenario() -> float:
        for n in range(5):  # five addresses, one wrong PIN each
            with pytest.raises(AuthError):
                await auth.sign_in("dealer", "D200", "0000", f"10.0.0.{n}")
        assert auth.under_attack("dealer", "D200")
        started = time.monotonic()
        await auth.sign_in("dealer", "D200", "567890", "10.0.1.1")  # never refused
        return time.monotonic() - started

    took = asyncio.run(scenario())
    assert took >= 0.5  # slowed down
    assert told == [Attack("dealer", "D200", 5, 60.0, tuple(f"10.0.0.{n}" for n in range(5)))]


def slow_verify(pin_hash: str, pin: str) -> bool:
    """A PIN check that takes 0.2 s (no hash), so that the order of checks shows."""
    time.sleep(0.2)
    return pin == "567890"


@pytest.mark.slow
def test_the_dealer_is_not_queued_behind_a_flood_of_guesses_from_many_addresses() -> None:
    dealer = Credential("D200", "")
    # the id's hourly bound (40 wrong PINs lock it) is not what this test is about
    auth = Auth(
        [dealer],
        [dealer],
        attack_delay=0.0,
        max_waiting=30,
        verify=slow_verify,
        checker=one_thread,
        guesses_per_hour=100,
    )

    async def guess(address: str) -> None:
        with pytest.raises(AuthError):
            await auth.sign_in("dealer", "D200", "0000", address)

    async def scenario() -> tuple[float, float]:
        addresses = [f"10.0.0.{n}" for n in range(10)]
        for address in addresses:  # each has failed once
            await guess(address)
        started = time.monotonic()
        flood = asyncio.gather(*(guess(address) for address in addresses for _ in range(3)))
        await async_wait_until(lambda: len(auth._waiting) >= 20, "the flood queued", DEADLINE)
        await auth.sign_in("dealer", "D200", "567890", "10.0.1.1")
        signed_in = time.monotonic() - started
        await flood
        return signed_in, time.monotonic() - started

    signed_in, flooded = asyncio.run(scenario())
    assert flooded >= 5  # 30 checks of 0.2 s, one after the other
    assert signed_in < 3, f"the dealer waited {signed_in:.1f} s behind the flood"


async def attempt(auth: Auth, pin: str, client: str) -> tuple[int, float]:
    """One dealer sign-in: the status answered and how long the answer took."""
    started = time.monotonic()
    try:
        await auth.sign_in("dealer", "D200", pin, client)
    except AuthError as error:
        return error.status, time.monotonic() - started
    return 200, time.monotonic() - started


@pytest.mark.slow
def test_the_dealer_at_the_kiosk_signs_in_within_a_bound_while_many_addresses_guess() -> None:
    dealer, tally, verify = counted("D200", "567890")
    checks: list[float] = []

    def timed(pin_hash: str, pin: str) -> bool:
        started = time.monotonic()
        try:
            return verify(pin_hash, pin)
        finally:
            checks.append(time.monotonic() - started)

    auth = Auth([dealer], [dealer], attack_delay=0.5, verify=timed, checker=one_thread)

    async def scenario() -> tuple[list[tuple[int, float]], tuple[int, float]]:
        # the kiosk signs in at the shift's start
        assert (await attempt(auth, "567890", "10.0.9.9"))[0] == 200
        guesses = [
            attempt(auth, f"{n:04d}", f"10.0.{n % 40}.1")  # 40 addresses, 3 wrong PINs each
            for n in range(120)
        ]
        flood = asyncio.gather(*guesses[:60])
        await asyncio.sleep(0)  # the first 60 are in: the checker busy, the waiting ones full
        assert len(auth._waiting) == auth.max_waiting
        right = asyncio.gather(attempt(auth, "567890", "10.0.9.9"), *guesses[60:])
        answers = await flood + await right
        return answers, answers[60]

    answers, (status, took) = asyncio.run(asyncio.wait_for(scenario(), DEADLINE))
    assert status == 200
    # the bound: the id's slowdown, the check under way, its own; nothing else goes first
    assert auth.under_attack("dealer", "D200")
    bound = auth.attack_delay + 2 * max(checks) + 1.0
    assert took < bound, f"the dealer waited {took:.1f} s (bound {bound:.1f} s)"
    guessed = [answer for n, answer in enumerate(answers) if n != 60]
    assert {status for status, _ in guessed} <= {401, 503}  # no right guess, none let in
    assert tally["most"] == 1  # one check at a time, however many wait
    assert tally["checks"] == 1 + len([s for s, _ in answers if s != 503])  # 503: unchecked


def slow_wrong(pin_hash: str, pin: str) -> bool:
    time.sleep(0.4)
    return False


def test_pins_beyond_the_waiting_bound_or_its_deadline_are_refused_unchecked() -> None:
    dealer = Credential("D200", "")
    auth = Auth(
        [dealer], [dealer], max_waiting=2, check_wait=0.5, verify=slow_wrong, checker=one_thread
    )

    async def scenario() -> list[tuple[int, float]]:
        answers = await asyncio.gather(*(attempt(auth, "0000", f"10.0.0.{n}") for n in range(6)))
        assert not auth._waiting and not auth._checking  # nothing left waiting
        return list(answers)

    answers = asyncio.run(asyncio.wait_for(scenario(), DEADLINE))
    statuses = [status for status, _ in answers]
    # the first checked at once, the second when it is done (0.4 s), the third waited 0.5 s
    # and was refused; the other three found two waiting and were refused at once
    assert statuses == [401, 401, 503, 503, 503, 503]
    assert all(took < 0.45 for _, took in answers[3:])  # before any wait could end
    assert 0.45 < answers[2][1] < 2.0  # at its deadline
    # a refusal is no failure: those addresses are not counted towards their lockout
    assert [auth._count(f"client:10.0.0.{n}", auth.clock()) for n in range(6)] == [1, 1, 0, 0, 0, 0]


@pytest.mark.slow
def test_wrong_pins_from_one_address_do_not_lock_the_dealer_out_at_another(
    tmp_path: Path,
) -> None:
    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe) as live:
            app = live.served.app
            attacker = client_at(app, "10.0.0.7")
            dealer = client_at(app, "10.0.0.8")
            async with attacker, dealer:
                wrong = {"role": "dealer", "id": DEALER["id"], "pin": "0000"}
                for _ in range(5):
                    assert (await attacker.post("/api/sessions", json=wrong)).status_code == 401
                right = {"role": "dealer", **DEALER}
                locked = await attacker.post("/api/sessions", json=right)
                assert locked.status_code == 429
                assert locked.json()["code"] == Denied.TOO_MANY_ATTEMPTS  # the address's lockout
                started = time.monotonic()
                signed = await dealer.post("/api/sessions", json=right)
                took = time.monotonic() - started
                assert signed.status_code == 200, signed.text
                assert took < 15, f"the dealer waited {took:.1f} s"
                # the alert: at the table, not pausing it, shown to surveillance
                (alert,) = [a for a in live.service.table.alerts]
                assert alert.kind is AlertKind.SIGN_IN_ATTACK and not alert.rule.blocking
                facts = alert.facts
                assert (facts.role, facts.who, facts.failures) == ("dealer", "D200", 5)  # type: ignore[attr-defined]  # a sign-in alert's
                assert "10.0.0.7" in facts.clients  # type: ignore[attr-defined]
                viewed = await dealer.get("/api/view", headers=bearer(signed))
                assert [a["kind"] for a in viewed.json()["alerts"]] == ["sign_in_attack"]

    run(scenario)
    with Journal.open(tmp_path / "table.sqlite", create=False) as journal:
        entries = list(journal.entries())
        attacks = [e for e in entries if e.type == "sign_in_attack"]
        assert len(attacks) == 1 and attacks[0].fields["clients"] == "10.0.0.7"
        # shipped to the floor like every alert: the floor derives it from the journal
        snapshots = Snapshots(journal.path)
        try:
            derived = derive(journal, point_at(journal, snapshots, 0), len(entries))
        finally:
            snapshots.close()
        raised = [fact for fact in derived.facts if isinstance(fact, facts.AlertRaised)]
        assert [fact.alert["kind"] for fact in raised] == ["sign_in_attack"]
        refused = [e for e in entries if e.source == ACCESS and e.type != EPOCH]
        assert [e.fields["client"] for e in refused] == ["10.0.0.7"] * 6


def client_at(app: Any, address: str) -> httpx.AsyncClient:
    """A client of the app (in this process) that comes from ``address``."""
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://localhost", timeout=60)


def bearer(response: httpx.Response) -> dict[str, str]:
    return {"Authorization": f"Bearer {response.json()['token']}"}


@pytest.mark.slow
def test_forwarded_addresses_are_believed_only_from_trusted_proxies(tmp_path: Path) -> None:
    forged = {"X-Forwarded-For": "10.9.9.9"}
    wrong = {"role": "dealer", "id": DEALER["id"], "pin": "0000"}

    async def untrusted(shoe: Any) -> None:
        async with live_table(tmp_path / "plain", shoe) as live:
            response = await live.http.post("/api/sessions", json=wrong, headers=forged)
            assert response.status_code == 401

    async def behind_proxy(shoe: Any) -> None:
        proxied = {"trusted_proxies": ("127.0.0.0/8",)}
        async with live_table(tmp_path / "proxied", shoe, api=proxied) as live:
            response = await live.http.post("/api/sessions", json=wrong, headers=forged)
            assert response.status_code == 401

    def recorded(folder: str) -> tuple[str, str | None]:
        with Journal.open(tmp_path / folder / "table.sqlite", create=False) as journal:
            (attempt,) = [
                e.fields for e in journal.entries() if e.source == ACCESS and e.type != EPOCH
            ]
        return attempt["client"], attempt.get("peer")

    (tmp_path / "plain").mkdir()
    run(untrusted)
    assert recorded("plain") == ("127.0.0.1", None)  # the forged address is not believed
    (tmp_path / "proxied").mkdir()
    run(behind_proxy)
    assert recorded("proxied") == ("10.9.9.9", "127.0.0.1")  # the proxy's word, and the proxy


class Raw:
    """A raw TCP connection to the console, to send requests a client library would not."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "", parts.port or 80

    async def __aenter__(self) -> Raw:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        return self

    async def __aexit__(self, *_: object) -> None:
        self.writer.close()
        with contextlib.suppress(OSError):
            await self.writer.wait_closed()

    async def send(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def closed_within(self, seconds: float) -> float:
        """How long until the server closes the connection (reading what it sends)."""
        started = time.monotonic()
        async with asyncio.timeout(seconds):
            while await self.reader.read(65536):
                pass
        return time.monotonic() - started


async def card_latencies(live: LiveTable) -> list[float]:
    """Seat the players, start a hand and deal third street: each card's latency (from the
    shoe's draw to its journal entry), in seconds."""
    await live.seat_players()
    script = Script()
    await live.load(script.deck(live.service.table))
    (await live.post("/api/hands")).raise_for_status()
    taken = []
    for _ in range(3 * PLAYERS):
        started = time.monotonic()
        await live.draw()
        taken.append(time.monotonic() - started)
    return taken


@pytest.mark.slow
def test_a_20_mib_body_is_refused_before_it_is_read_and_cards_keep_coming(
    tmp_path: Path,
) -> None:
    big = 20 * 1024 * 1024

    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe) as live:
            head = (
                "POST /api/sessions HTTP/1.1\r\nHost: localhost\r\n"
                f"Content-Type: application/json\r\nContent-Length: {big}\r\n\r\n"
            ).encode()

            async def one_big_body() -> tuple[bytes, float]:
                async with Raw(live.served.url) as raw:
                    started = time.monotonic()
                    await raw.send(head + b"[" + b"0," * 1000)
                    answer = await asyncio.wait_for(raw.reader.readuntil(b"\r\n\r\n"), 10)
                    took = time.monotonic() - started
                    with contextlib.suppress(OSError):  # the rest is not wanted
                        await raw.send(b"0," * 65536)
                    await raw.closed_within(10)
                    return answer, took

            answer, took = await one_big_body()
            assert answer.startswith(b"HTTP/1.1 413"), answer
            assert took < 5
            bodies = asyncio.gather(*(one_big_body() for _ in range(5)))
            latencies = await card_latencies(live)
            assert all(answer.startswith(b"HTTP/1.1 413") for answer, _ in await bodies)
            assert max(latencies) < 2, latencies

            async def pieces() -> AsyncIterator[bytes]:
                yield b"{}"

            chunked = await live.http.post(
                "/api/sessions", content=pieces(), headers={"Content-Type": "application/json"}
            )
            assert chunked.status_code == 411 and chunked.json()["error"] == "invalid"
            assert chunked.json()["code"] == Declined.CHUNKED_BODY

    run(scenario)


@pytest.mark.slow
def test_half_sent_requests_and_idle_connections_are_closed_by_the_deadline(
    tmp_path: Path,
) -> None:
    limits = {"request_timeout": 1.0, "max_header": 4096}

    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe, api=limits) as live:
            url = live.served.url
            async with Raw(url) as half, Raw(url) as idle, Raw(url) as slow_body:
                await half.send(b"GET /api/view HTTP/1.1\r\nHost: localhost\r\n")
                await slow_body.send(
                    b"POST /api/sessions HTTP/1.1\r\nHost: localhost\r\n"
                    b"Content-Length: 100\r\n\r\n{"
                )
                for raw in (half, idle, slow_body):
                    took = await raw.closed_within(20)
                    assert took < 10, took
            async with Raw(url) as large:
                await large.send(b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: " + b"a" * 8192)
                answer = await asyncio.wait_for(large.reader.read(100), 10)
                assert answer.startswith(b"HTTP/1.1 400"), answer
            # a whole request in time is answered; its connection kept for the next
            view = await live.http.get("/api/view")
            assert view.status_code == 200

    run(scenario)


@pytest.mark.slow
def test_foreign_origins_and_hosts_are_refused_and_pages_carry_security_headers(
    tmp_path: Path,
) -> None:
    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe) as live:
            http, url = live.http, live.served.url
            feed = url.replace("http://", "ws://") + "/ws"
            own = url  # the console's own origin: http://127.0.0.1:PORT
            with pytest.raises(InvalidStatus) as refused:
                await websockets.connect(feed, origin="http://evil.example").__aenter__()  # type: ignore[arg-type]
            assert refused.value.response.status_code == 403
            for origin in (own, None):
                async with websockets.connect(feed, origin=origin) as socket:  # type: ignore[arg-type]
                    assert '"snapshot"' in await asyncio.wait_for(socket.recv(), 10)
            # the DNS-rebinding page: the table's address under the attacker's name
            rebound = await http.get("/api/view", headers={"Host": "evil.example"})
            assert rebound.status_code == 400 and rebound.json()["error"] == "invalid"
            assert rebound.json()["code"] == Declined.WRONG_HOST
            assert "evil.example" in rebound.json()["reason"]  # the words name the host
            for name in ("localhost", f"localhost:{urlsplit(url).port}"):
                assert (await http.get("/api/view", headers={"Host": name})).status_code == 200
            posted = await http.post(
                "/api/sessions",
                json={"role": "dealer", **DEALER},
                headers={"Origin": "http://evil.example"},
            )
            assert posted.status_code == 403
            page = await http.get("/")
            assert page.status_code == 200
            assert page.headers["content-security-policy"] == CSP
            assert "frame-ancestors 'none'" in CSP and "'unsafe-inline'" not in CSP
            assert page.headers["x-content-type-options"] == "nosniff"
            assert page.headers["referrer-policy"] == "no-referrer"
            assert (await http.get("/api/view")).headers["cache-control"] == "no-store"
            assert "<script>" not in page.text and " onclick=" not in page.text
            assert (await http.get("/docs")).status_code == 404  # no CDN to reach offline
            assert (await http.get("/openapi.json")).status_code == 200

    run(scenario)


@pytest.mark.slow
def test_allowed_origins_and_the_limits_of_feeds_and_connections_per_address(
    tmp_path: Path,
) -> None:
    allowed = {
        "allowed_origins": ("https://pit.example",),
        "max_websockets": 2,
        "max_connections": 3,
    }

    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe, api=allowed) as live:
            http, url = live.http, live.served.url
            feed = url.replace("http://", "ws://") + "/ws"
            async with websockets.connect(feed, origin="https://pit.example") as socket:  # type: ignore[arg-type]
                assert '"snapshot"' in await asyncio.wait_for(socket.recv(), 10)
            # feeds per address: two open, the third refused
            async with (
                websockets.connect(feed) as first,
                websockets.connect(feed) as second,
            ):
                await first.recv()
                await second.recv()
                with pytest.raises(InvalidStatus):
                    await websockets.connect(feed).__aenter__()
            # connections per address: beyond three (the kit's client may hold one), closed
            await http.aclose()
            async with contextlib.AsyncExitStack() as stack:
                raws = [await stack.enter_async_context(Raw(url)) for _ in range(6)]
                for beyond in raws[3:]:
                    assert await beyond.closed_within(5) < 2
                for kept in raws[:2]:
                    with pytest.raises(TimeoutError):
                        await kept.closed_within(0.5)

    run(scenario)


def test_the_relay_refuses_foreign_hosts_and_origins_and_sends_security_headers() -> None:
    async def scenario() -> None:
        relay = Relay("http://127.0.0.1:9/", allowed_origins=["https://tv.example"])
        async with relay.serving("127.0.0.1", 0) as server:
            url = server_url(server, tls=False)
            async with httpx.AsyncClient(base_url=url.replace("ws", "http", 1)) as http:
                page = await http.get("/public")
                assert page.status_code == 200 and page.headers["content-security-policy"] == CSP
                assert page.headers["x-frame-options"] == "DENY"
                rebound = await http.get("/public", headers={"Host": "evil.example"})
                assert rebound.status_code == 400
                upgrade = {
                    "Upgrade": "websocket",
                    "Connection": "Upgrade",
                    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
                    "Sec-WebSocket-Version": "13",
                }
                for origin, status in (
                    ("http://evil.example", 403),
                    ("https://tv.example", 503),  # let through: no table followed yet
                    (url.replace("ws", "http", 1), 503),
                ):
                    feed = await http.get("/ws", headers={**upgrade, "Origin": origin})
                    assert feed.status_code == status, (origin, feed.text)

    asyncio.run(asyncio.wait_for(scenario(), 60))


def test_the_floor_service_gets_the_same_checks_and_headers() -> None:
    config = FloorConfig(dsn="", api=Api(), supervisors=())
    app = create_pit(config)

    async def scenario() -> None:
        async with client_at(app, "10.0.0.9") as http:
            page = await http.get("/")
            assert page.status_code == 200 and page.headers["content-security-policy"] == CSP
            assert "<script>" not in page.text
            assert (await http.get("/", headers={"Host": "evil.example"})).status_code == 400
            assert (await http.get("/docs")).status_code == 404
            big = await http.post("/api/sessions", content=b"0" * (Api.max_body + 1))
            assert big.status_code == 413 and big.json()["error"] == "too_large"
            assert big.json()["code"] == Declined.BODY_TOO_LARGE
            foreign = await http.post(
                "/api/sessions", json={}, headers={"Origin": "http://evil.example"}
            )
            assert foreign.status_code == 403 and foreign.json()["code"] == Declined.WRONG_ORIGIN

    asyncio.run(asyncio.wait_for(scenario(), 60))


def test_attempts_refused_unchecked_are_refused_before_the_app_reads_them_and_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An id locked and an address locked out: each later attempt is answered as before
    (423 locked, 429 rate_limited) by the app's gate, no PIN check begun, no sign-in run
    (the first 429 of the lockout still is: it is journaled), one log line per burst."""
    asked: list[str] = []

    class Counted(Auth):
        """Counts the attempts the app runs."""

        async def check_pin(self, *args: Any) -> None:
            asked.append(args[2])  # the id
            await super().check_pin(*args)

    pit = Credential("S1", "")
    api = Api(guesses_per_hour=3, refusal_delay=0.0)  # answered late: the next test
    auth = Counted.configured(api, (), [pit])
    auth.verify, auth.attack_delay, auth.max_failures = (lambda _hash, _pin: False), 0.0, 2
    auth.checker = one_thread
    app = create_pit(FloorConfig(dsn="", api=api, supervisors=(pit,)), auth)

    async def scenario() -> None:
        wrong = {"id": "S1", "pin": "000000"}
        for n in range(3):
            async with client_at(app, f"10.0.1.{n}") as guesser:
                assert (await guesser.post("/api/sessions", json=wrong)).status_code == 401
        for n in range(40):  # a sweep from 40 addresses: the id is locked
            async with client_at(app, f"10.0.2.{n}") as guesser:
                locked = await guesser.post("/api/sessions", json=wrong)
                assert locked.status_code == 423
                assert locked.json() == {"error": "locked", "reason": LOCKED, "code": "id_locked"}
        other = {"id": "S2", "pin": "000000"}  # an id not locked, from one address
        async with client_at(app, "10.0.3.1") as guesser:
            for _ in range(2):
                assert (await guesser.post("/api/sessions", json=other)).status_code == 401
            answers = [await guesser.post("/api/sessions", json=other) for _ in range(20)]
        assert {answer.status_code for answer in answers} == {429}
        assert {answer.json()["code"] for answer in answers} == {Denied.TOO_MANY_ATTEMPTS}
        assert "10.0.3.1" in answers[-1].json()["reason"]

    with caplog.at_level(logging.WARNING, logger="dealer_ui.auth"):
        asyncio.run(asyncio.wait_for(scenario(), 60))
    assert asked == ["S1"] * 3 + ["S2"] * 3  # checked; the lockout's first refusal too
    lines = [record.getMessage() for record in caplog.records]
    assert len([line for line in lines if "the id is locked" in line]) == 1
    assert len([line for line in lines if "too many attempts" in line]) == 1


def test_a_guess_refused_unchecked_is_answered_late_and_the_loop_serves_meanwhile() -> None:
    """``[api] refusal_delay``: a guess for a locked id (by the gate) and one from an address
    locked out (the lockout's first, by the app) are each answered no sooner than the delay,
    20 at once from 20 addresses in one delay, not 20; the app answers others meanwhile."""
    pit = Credential("S1", "")
    api = Api(guesses_per_hour=2, refusal_delay=0.6)
    auth = Auth.configured(api, (), [pit])
    auth.verify, auth.attack_delay, auth.max_failures = (lambda _hash, _pin: False), 0.0, 2
    auth.checker = one_thread
    app = create_pit(FloorConfig(dsn="", api=api, supervisors=(pit,)), auth)
    wrong = {"id": "S1", "pin": "000000"}

    async def guess(address: str, body: dict[str, str]) -> tuple[int, float]:
        async with client_at(app, address) as guesser:
            started = time.perf_counter()
            answer = await guesser.post("/api/sessions", json=body)
            return answer.status_code, time.perf_counter() - started

    async def scenario() -> None:
        for n in range(2):  # checked, wrong: the id is locked
            assert (await guess(f"10.0.1.{n}", wrong))[0] == 401
        started = time.perf_counter()
        sweep = [asyncio.create_task(guess(f"10.0.2.{n}", wrong)) for n in range(20)]
        async with client_at(app, "10.0.3.1") as other:
            page = await other.get("/")
            assert page.status_code == 200 and not any(task.done() for task in sweep)
        answers = await asyncio.gather(*sweep)
        assert {status for status, _ in answers} == {423}
        assert min(took for _, took in answers) >= 0.6
        assert time.perf_counter() - started < 0.6 * 5  # waited together, not one by one
        other_id = {"id": "S2", "pin": "000000"}  # an address locked out: through the app
        assert [(await guess("10.0.4.1", other_id))[0] for _ in range(2)] == [401, 401]
        status, took = await guess("10.0.4.1", other_id)
        assert status == 429 and took >= 0.6

    asyncio.run(asyncio.wait_for(scenario(), 60))


def test_a_burst_of_refusals_is_logged_in_two_lines() -> None:
    """:class:`LogFold`: a key's first refusal at once, the rest counted, then one line."""
    lines: list[str] = []

    class Lines(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    logger = logging.getLogger("tests.fold")
    logger.addHandler(handler := Lines())
    try:

        async def scenario() -> None:
            fold = LogFold(logger, 0.2)
            for n in range(50):
                fold.warning("10.0.0.1", "refused %s (%d)", "10.0.0.1", n)
            fold.warning("10.0.0.2", "refused %s (%d)", "10.0.0.2", 0)
            assert lines == ["refused 10.0.0.1 (0)", "refused 10.0.0.2 (0)"]
            await async_wait_until(lambda: len(lines) == 3, "the burst's line", 10)
            await asyncio.sleep(0.3)  # the second key's burst ends with no more line
            fold.warning("10.0.0.1", "refused %s (%d)", "10.0.0.1", 99)  # a new burst

        asyncio.run(asyncio.wait_for(scenario(), 30))
    finally:
        logger.removeHandler(handler)
    assert lines[2].startswith("refused 10.0.0.1 (0) (and 49 more like it within ")
    assert lines[3:] == ["refused 10.0.0.1 (99)"]


@pytest.mark.slow
def test_pins_are_checked_in_a_process_of_their_own_at_the_lowest_priority() -> None:
    """Not a thread of the service's (a check's 64 MiB would stay its memory; a niced
    thread waiting for the interpreter's lock can hold the event loop up): the checker is a
    process, niced, on one CPU; a killed one is replaced; close ends it."""
    dealer = Credential("D200", hash_pin("271828"))
    auth = Auth([dealer], [dealer], attack_delay=0.0)

    def worker() -> int:
        checker = auth._checker
        assert isinstance(checker, ProcessPoolExecutor)
        (pid,) = checker._processes  # one worker
        return pid

    async def scenario() -> None:
        assert (await auth.sign_in("dealer", "D200", "271828", "10.0.0.1")).who == "D200"
        first = worker()
        assert os.getpriority(os.PRIO_PROCESS, first) == 19
        if len(os.sched_getaffinity(0)) > 1:
            assert len(os.sched_getaffinity(first)) == 1
        with pytest.raises(AuthError) as wrong:
            await auth.sign_in("dealer", "D200", "314159", "10.0.0.2")
        assert wrong.value.code is Denied.WRONG_PIN
        os.kill(first, signal.SIGKILL)  # the checker dies (the OOM killer, an operator)
        assert (await auth.sign_in("dealer", "D200", "271828", "10.0.0.3")).who == "D200"
        second = worker()
        assert second != first
        auth.close()
        assert auth._checker is None
        await async_wait_until(lambda: not Path(f"/proc/{second}").exists(), "the end", 10)

    asyncio.run(scenario())
