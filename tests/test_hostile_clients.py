"""Hostile clients against a live table (docs/security.md): what a stranger's socket, a
flood of requests and a player's phone may send, and what the table does with it. Every
feed's frames are written by hand on a raw socket (binary, oversized, tiny and many, and
random frames of every kind), so that nothing a client library would refuse to send is
left untried; every wait has a deadline."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from controller.journal import Journal
from controller.records import ACCESS
from controller.table.effects import Refuse
from dealer_ui.codes import Declined
from dealer_ui.refusals import REFUSED_INPUT
from dealer_ui.relay import Relay, server_url
from tests.console_kit import LiveTable, Script, live_table
from tests.service_kit import simulator
from tests.ws_kit import BINARY, CLOSE, CONT, PING, PONG, TEXT, RawFeed, frame

pytestmark = (
    pytest.mark.slow
)  # a live table: the simulator's process, the service, the console served

DEADLINE = 240  # a whole test


def run(scenario: Callable[[Any], Awaitable[None]]) -> None:
    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(shoe), DEADLINE))


@contextlib.asynccontextmanager
async def feed(base: str, path: str = "/ws") -> AsyncIterator[RawFeed]:
    status, raw = await RawFeed.open(base, path)
    assert status == 101, status
    try:
        yield raw
    finally:
        await raw.close()


def tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if record.exc_info or "Traceback" in record.getMessage()
    ]


def resident() -> int:
    """This process's resident memory (the service's: it runs here), in bytes."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


# --- the feeds -----------------------------------------------------------------------------


def test_a_binary_frame_closes_every_feed_with_1003_and_no_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario(shoe: Any) -> None:
        caplog.set_level(logging.INFO)
        async with live_table(tmp_path, shoe) as live:
            base = live.served.url
            async with feed(base) as console:
                await console.send(frame(BINARY, b"\x00\x01binary"))
                assert await console.closed_with() == 1003
            relay = Relay(base)
            async with relay.serving("127.0.0.1", 0) as server:
                await live.until(lambda: relay.following, "the relay follows the table")
                url = server_url(server, tls=False).replace("ws", "http", 1)
                async with feed(url) as viewer:
                    await viewer.send(frame(BINARY, b"\xff" * 10))
                    assert await viewer.closed_with() == 1003
        assert tracebacks(caplog) == []
        assert any("1003" in record.getMessage() for record in caplog.records)

    run(scenario)


def test_an_oversized_frame_is_closed_with_1009_before_it_is_buffered(tmp_path: Path) -> None:
    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe, api={"max_websockets": 64}) as live:
            before = resident()
            for _ in range(16):  # each frame's header says 15 MiB: refused from it
                async with feed(live.served.url) as big:
                    await big.send(frame(TEXT, b"", length=15 << 20))
                    assert await big.closed_with() == 1009
                    await big.send(b"x" * (1 << 20))  # the payload after: never read
            assert resident() - before < 16 << 20  # nothing of the 16 frames was kept

    run(scenario)


def test_a_flood_of_tiny_frames_is_closed_with_1008_and_the_table_deals_on(
    tmp_path: Path,
) -> None:
    async def scenario(shoe: Any) -> None:
        api = {"max_websockets": 2, "feed_penalty": 600.0}
        async with live_table(tmp_path, shoe, api=api) as live:
            await live.seat_players()
            flood = b"".join(frame(TEXT, b"0123456789") for _ in range(5000))
            for _ in range(2):
                async with feed(live.served.url) as tiny:
                    await tiny.send(flood)
                    assert await tiny.closed_with() == 1008
            # each flooding feed stays counted against its address: a third is refused
            status, refused = await RawFeed.open(live.served.url)
            await refused.close()
            assert status == 403
            await live.play_hand(Script())  # the table deals a whole hand on

    run(scenario)


def test_a_read_full_of_tiny_frames_is_parsed_no_further_than_the_refusal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed = []
    handle_text = WebSocketsSansIOProtocol.handle_text

    def counted(protocol: WebSocketsSansIOProtocol, event: Any) -> None:
        parsed.append(len(event.data))
        handle_text(protocol, event)

    monkeypatch.setattr(WebSocketsSansIOProtocol, "handle_text", counted)

    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe) as live, feed(live.served.url) as tiny:
            # 16,384 frames of 10 bytes in one write: a read of the server's holds them all
            await tiny.send(b"".join(frame(TEXT, b"0123456789") for _ in range(16_384)))
            assert await tiny.closed_with() == 1008
            # refused after its burst (20): the rest of the read was not parsed (it was
            # parsed whole, every frame judged after the close, on the table's loop)
            assert 20 <= len(parsed) < 1_000, len(parsed)

    run(scenario)


# --- state-changing requests ---------------------------------------------------------------


def test_state_changing_requests_are_limited_per_session_and_per_address(tmp_path: Path) -> None:
    async def scenario(shoe: Any) -> None:
        api = {
            "write_burst": 5,
            "writes_per_second": 0.01,
            "address_write_burst": 20,
            "address_writes_per_second": 0.01,
        }
        async with live_table(tmp_path, shoe, api=api) as live:  # its sign-in: one
            statuses = [(await live.post("/api/hands")).status_code for _ in range(6)]
            assert 429 not in statuses[:5]
            limited = await live.post("/api/hands")  # the dealer's session: none left
            assert limited.status_code == 429, limited.text
            assert limited.json()["error"] == "rate_limited"
            assert limited.json()["code"] == Declined.TOO_MANY_WRITES
            assert "writes_per_second" in limited.json()["reason"]
            assert int(limited.headers["retry-after"]) >= 1
            assert limited.headers.get("connection") != "close"  # kept: no connection a 429
            assert (await live.http.get("/api/view", headers=live.dealer)).status_code == 200

            # the address: 1 sign-in and 7 of the dealer's so far; 12 more, then none
            for _ in range(12):
                response = await live.http.post("/api/hands")  # no session: 403 each
                assert response.status_code == 403, response.text
            anonymous = await live.http.post("/api/hands")
            assert anonymous.status_code == 429 and int(anonymous.headers["retry-after"]) >= 1
            signing_in = await live.http.post("/api/sessions", json={"id": "x", "pin": "1"})
            assert signing_in.status_code == 429  # sign-in too: the guard counts before it
            assert (await live.http.get("/api/view")).status_code == 200  # reading is not

    run(scenario)


# --- inputs a role may never make here --------------------------------------------------------


def journal_length(live: LiveTable) -> int:
    with Journal.open(live.service.config.journal, create=False) as journal:
        return journal.last_position()


def test_a_players_decision_where_the_dealer_decides_is_refused_and_folded(
    tmp_path: Path,
) -> None:
    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe, api={"refusal_fold": 1.0}) as live:
            await live.seat_players()
            minted = await live.post("/api/player-tokens", {"seat": 1})
            phone = {"Authorization": f"Bearer {minted.json()['token']}"}
            before = journal_length(live)
            decision = {"seat": 1, "do": "fold"}
            refused = await live.http.post("/api/decisions", json=decision, headers=phone)
            assert refused.status_code == 403, refused.text
            assert refused.json() == {
                "error": "forbidden",
                "reason": "players do not enter their own decisions at this table: the dealer does",
                "code": "dealer_decides",
            }
            assert journal_length(live) == before  # not journaled (not yet: the burst)
            for _ in range(49):  # the phone floods
                again = await live.http.post("/api/decisions", json=decision, headers=phone)
                assert again.status_code == 403
            assert journal_length(live) == before  # still nothing written

            def folded() -> list[Any]:
                with Journal.open(live.service.config.journal, create=False) as journal:
                    entries = journal.entries(before, source=ACCESS)
                    return [entry for entry in entries if entry.type == REFUSED_INPUT]

            await live.until(lambda: bool(folded()), "the burst is journaled")
            (record,) = folded()
            assert journal_length(live) == before + 1  # one record for the 50
            assert record.fields["count"] == 50
            assert record.fields["input"] == "decide"
            assert (record.fields["role"], record.fields["seat"]) == ("player", 1)
            assert record.fields["client"] == "127.0.0.1"
            assert record.fields["code"] == Refuse.DEALER_DECIDES and record.fields["reason"]

    run(scenario)


def test_a_burst_still_open_when_the_console_stops_is_journaled(tmp_path: Path) -> None:
    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe, api={"refusal_fold": 3600.0}) as live:
            await live.seat_players()
            minted = await live.post("/api/player-tokens", {"seat": 2})
            phone = {"Authorization": f"Bearer {minted.json()['token']}"}
            for _ in range(3):
                decision = {"seat": 2, "do": "check"}
                refused = await live.http.post("/api/decisions", json=decision, headers=phone)
                assert refused.status_code == 403
            journal_path = live.service.config.journal
        with Journal.open(journal_path, create=False) as journal:
            records = [e for e in journal.entries(source=ACCESS) if e.type == REFUSED_INPUT]
        assert [record.fields["count"] for record in records] == [3]

    run(scenario)


# --- random frames -------------------------------------------------------------------------

OPCODES = (CONT, TEXT, BINARY, 0x3, 0x7, CLOSE, PING, PONG, 0xB, 0xF)
SIZES = (0, 1, 2, 125, 126, 127, 4095, 4096, 4097, 65536, 70000)


def random_frames(chance: random.Random) -> list[bytes]:
    """One to five frames of any opcode, size, fragmenting, mask and reserved bits."""
    frames = []
    for _ in range(chance.randint(1, 5)):
        opcode = chance.choice(OPCODES)
        size = chance.choice(SIZES)
        kind = chance.random()
        if kind < 0.5:
            payload = bytes(chance.getrandbits(8) for _ in range(min(size, 8192)))
        else:  # text, sometimes cut inside a character
            payload = ("é" * size).encode()[:size]
        frames.append(
            frame(
                opcode,
                payload,
                fin=chance.random() < 0.7,
                masked=chance.random() < 0.9,
                rsv=chance.choice((0, 0, 0, 1, 4)),
                length=size if chance.random() < 0.1 else None,
            )
        )
    return frames


def test_random_frames_crash_and_stall_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    chance = random.Random(33)

    async def one(base: str) -> None:
        status, raw = await RawFeed.open(base)
        try:
            assert status == 101, status
            for data in random_frames(chance):
                await raw.send(data)
            with contextlib.suppress(TimeoutError):  # frames the feed lets by: no close
                await raw.closed_with()
        finally:
            await raw.close()

    async def scenario(shoe: Any) -> None:
        caplog.set_level(logging.INFO)
        api = {"max_websockets": 200, "max_connections": 400, "feed_penalty": 0.0}
        async with live_table(tmp_path, shoe, api=api) as live:
            await asyncio.wait_for(asyncio.gather(*(one(live.served.url) for _ in range(60))), 60)
            for _ in range(3):  # the table answers at once afterwards
                view = await asyncio.wait_for(live.http.get("/api/view"), 2.0)
                assert view.status_code == 200
            await live.seat_players()
            assert live.service.table.seat(3) is not None
        assert tracebacks(caplog) == []
        assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []

    run(scenario)
