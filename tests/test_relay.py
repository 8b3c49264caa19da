"""The broadcast relay (``dealer_ui.relay``, ``luck-table relay``): the mirror of the table's
feed against a reference, then the relay on a live table (in this process, and as its own
process with the public page in Chromium): the same messages as the table's feed, byte for
byte; a viewer resumed after a cut; a viewer that does not read cut off; bad arguments."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from hypothesis import given
from hypothesis import strategies as st
from playwright.async_api import async_playwright
from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed, InvalidStatus

from dealer_ui.relay import (
    CLOSE_TIMEOUT,
    LOST,
    PING_EVERY,
    PING_TIMEOUT,
    REFUSED,
    TOO_SLOW,
    FeedGap,
    Mirror,
    Relay,
    Resume,
    feed_url,
    server_url,
)
from tests.console_kit import SUPERVISOR, LiveTable, Script, card_names, live_table
from tests.relay_kit import RelayProcess
from tests.service_kit import simulator
from tests.tcp_proxy import CutProxy
from tests.test_dealer_ui_leaks import forbidden
from tests.test_studio import (
    DELAY,
    TEST_TABLE,
    issue,
    refused,
    released,
    released_in_time,
    studio_messages,
)
from tests.waiting import async_wait_until

pytestmark = pytest.mark.slow  # processes

CHROMIUM = Path("/usr/bin/chromium")
LUCK_TABLE = str(Path(sys.executable).with_name("luck-table"))
TIMEOUT = 30.0


def message(kind: str, epoch: str, seq: int) -> str:
    text = {"type": kind, "epoch": epoch, "seq": seq, "view": {"hand": seq}}
    if kind == "update":
        text["events"] = [{"kind": "card", "seq": seq}]
    return json.dumps(text)


def mirror_of(updates: int, kept: int, epoch: str = "e1") -> Mirror:
    mirror = Mirror(kept)
    mirror.take(message("snapshot", epoch, 0))
    for seq in range(1, updates + 1):
        mirror.take(message("update", epoch, seq))
    return mirror


# --- the mirror, pure --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "url"),
    [
        ("http://10.0.4.7:8080", "ws://10.0.4.7:8080/ws"),
        ("https://table-7.pit:8443/", "wss://table-7.pit:8443/ws"),
        ("ws://127.0.0.1:8080/ws", "ws://127.0.0.1:8080/ws"),
        ("https://casino/table/7", "wss://casino/table/7/ws"),
    ],
)
def test_the_feed_url_of_a_table_service(source: str, url: str) -> None:
    assert feed_url(source) == url


@pytest.mark.parametrize("source", ["10.0.4.7:8080", "ftp://x/ws", "http://", "table"])
def test_a_source_that_is_not_a_table_service_url_is_refused(source: str) -> None:
    with pytest.raises(ValueError, match="expected the table service's"):
        feed_url(source)


def test_where_a_viewer_resumes() -> None:
    assert Resume.of("") == Resume(None, None)
    assert Resume.of("epoch=ab12&last=17") == Resume("ab12", 17)
    for query, wrong in (
        ("last=-1", "last='-1'"),
        ("last=seven", "last='seven'"),
        ("last=", "last=''"),
        ("token=abc", "token: the relay serves the public feed"),
        ("seat=3", "seat: not a parameter"),
    ):
        with pytest.raises(ValueError, match=wrong):
            Resume.of(query)


@given(
    updates=st.integers(0, 40),
    kept=st.integers(1, 16),
    last=st.integers(0, 45) | st.none(),
    same_epoch=st.booleans(),
)
def test_a_viewer_gets_exactly_what_it_missed_or_a_snapshot(
    updates: int, kept: int, last: int | None, same_epoch: bool
) -> None:
    mirror = mirror_of(updates, kept)
    sent = mirror.catch_up(Resume("e1" if same_epoch else "e0", last))
    # the reference: the updates after `last` when every one of them is still kept
    oldest_kept = max(1, updates - kept + 1)
    if same_epoch and last is not None and oldest_kept - 1 <= last <= updates:
        assert sent == [message("update", "e1", seq) for seq in range(last + 1, updates + 1)]
    else:
        (snapshot,) = sent
        assert json.loads(snapshot) == json.loads(message("snapshot", "e1", updates)) | {
            "view": {"hand": updates}
        }


@pytest.mark.parametrize(
    "text",
    [
        message("update", "e1", 5),  # a number skipped
        message("update", "e1", 3),  # a number again
        message("update", "e2", 4),  # another feed's update without its snapshot
        "not json",
        json.dumps({"type": "update", "epoch": "e1"}),
        json.dumps([1, 2]),
    ],
)
def test_what_does_not_follow_is_refused_and_changes_nothing(text: str) -> None:
    mirror = mirror_of(3, 8)
    before = (mirror.epoch, mirror.seq, mirror.snapshot(), mirror.catch_up(Resume("e1", 0)))
    with pytest.raises(FeedGap):
        mirror.take(text)
    assert (mirror.epoch, mirror.seq, mirror.snapshot(), mirror.catch_up(Resume("e1", 0))) == before


def test_a_snapshot_of_a_new_epoch_starts_again() -> None:
    mirror = mirror_of(5, 8)
    restarted = message("snapshot", "e2", 0)
    assert mirror.take(restarted) == restarted
    assert (mirror.epoch, mirror.seq) == ("e2", 0)
    assert mirror.catch_up(Resume("e1", 5)) == [restarted]  # the old epoch's viewers
    mirror.take(message("update", "e2", 1))
    assert mirror.catch_up(Resume("e2", 0)) == [message("update", "e2", 1)]


# --- the relay on a live table ------------------------------------------------------------


def feed_of(url: str) -> str:
    return url.replace("http", "ws", 1) + "/ws"


async def follow(url: str, into: list[str]) -> None:
    """Every message of the feed at ``url`` into ``into``, until the feed closes."""
    async with websockets.connect(url, max_size=None) as feed:
        async for text in feed:
            into.append(str(text))


def seq_of(text: str) -> int:
    return int(json.loads(text)["seq"])


async def until(check: Any, what: str) -> None:
    await async_wait_until(check, what, TIMEOUT, poll=0.01)


@asynccontextmanager
async def relay_of(
    live: LiveTable, source: str, **options: Any
) -> AsyncIterator[tuple[Relay, str]]:
    """A relay in this process following ``source``, once it follows; with its URL."""
    relay = Relay(source, **options)
    async with relay.serving("127.0.0.1", 0) as server:
        await until(lambda: relay.following, "the relay follows the table")
        yield relay, server_url(server, tls=False)


@asynccontextmanager
async def relayed_through_a_proxy(
    folder: Path, shoe: Any
) -> AsyncIterator[tuple[LiveTable, CutProxy, Relay, str]]:
    """A live table and a relay following its feed through a proxy that can cut it."""
    async with live_table(folder, shoe) as live:
        host, port = live.served.url.removeprefix("http://").split(":")
        with CutProxy((host, int(port))) as proxy:
            async with relay_of(live, f"http://127.0.0.1:{proxy.port}") as (relay, url):
                yield live, proxy, relay, url


def on_a_shoe(scenario: Any) -> None:
    """Run ``scenario(shoe)`` with a shoe simulator process."""
    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(shoe), 300))


def test_relay_viewers_get_the_tables_feed_byte_for_byte(tmp_path: Path) -> None:
    async def scenario(shoe: Any) -> None:
        async with (
            live_table(tmp_path, shoe) as live,
            relay_of(live, live.served.url) as (
                relay,
                url,
            ),
        ):
            await live.seat_players()
            direct: list[str] = []
            relayed: list[str] = []
            followers = [
                asyncio.create_task(follow(feed_of(live.served.url), direct)),
                asyncio.create_task(follow(url + "/ws", relayed)),
            ]
            await until(lambda: direct and relayed, "both viewers have a snapshot")
            await live.play_hand(Script())
            feed = live.served.app.state.feed
            last = feed.current.seq
            await until(lambda: relayed and seq_of(relayed[-1]) == last, "the relay's last")
            await until(lambda: seq_of(direct[-1]) == last, "the table's last")
            assert json.loads(relayed[0])["type"] == "snapshot"
            first = seq_of(relayed[0])
            assert relay.health() | {"seq": first} == {
                "source": feed_of(live.served.url),
                "following": True,
                "epoch": feed.epoch,
                "seq": first,
                "viewers": 1,
                "studio_viewers": 0,
                "studio_waiting": 0,
            }
            from_table = [text for text in direct if seq_of(text) > first]
            assert relayed[1:] == from_table  # the same bytes, none lost, none twice
            assert len(from_table) > 30  # a whole hand
            for task in followers:
                task.cancel()

    on_a_shoe(scenario)


def test_a_cut_feed_closes_the_viewers_who_then_resume_exactly(tmp_path: Path) -> None:
    async def scenario(shoe: Any) -> None:
        async with relayed_through_a_proxy(tmp_path, shoe) as (live, proxy, relay, url):
            await live.seat_players()
            feed = live.served.app.state.feed
            seen: list[str] = []
            async with websockets.connect(url + "/ws") as viewer:
                seen.append(str(await viewer.recv()))
                proxy.cut()
                with pytest.raises(ConnectionClosed) as closed:
                    while True:
                        seen.append(str(await viewer.recv()))
            assert closed.value.rcvd is not None and closed.value.rcvd.code == LOST
            assert not relay.following
            async with httpx.AsyncClient(base_url=url.replace("ws", "http", 1)) as http:
                health = await http.get("/health")
                assert health.status_code == 503 and not health.json()["following"]
            with pytest.raises(InvalidStatus) as refused:
                async with websockets.connect(url + "/ws"):
                    pass
            assert refused.value.response.status_code == 503
            assert json.loads(refused.value.response.body)["code"] == "not_following"
            epoch, last = json.loads(seen[-1])["epoch"], seq_of(seen[-1])
            await live.load(Script().deck(live.service.table))
            (await live.post("/api/hands")).raise_for_status()  # the table moves on
            await live.draw()
            assert feed.current.seq > last
            proxy.restore()
            await until(lambda: relay.following, "the relay follows again")
            await until(lambda: relay.mirror.seq == feed.current.seq, "caught up")
            missed: list[str] = []
            resumed = f"{url}/ws?epoch={epoch}&last={last}"
            async with websockets.connect(resumed) as viewer:
                while not missed or seq_of(missed[-1]) < feed.current.seq:
                    missed.append(str(await viewer.recv()))
            kinds = {json.loads(text)["type"] for text in missed}
            assert kinds == {"update"}  # what it missed, no snapshot
            assert [seq_of(text) for text in missed] == list(range(last + 1, feed.current.seq + 1))

    on_a_shoe(scenario)


def test_a_table_gone_silent_closes_the_viewers_within_seconds(tmp_path: Path) -> None:
    async def scenario(shoe: Any) -> None:
        async with relayed_through_a_proxy(tmp_path, shoe) as (_, proxy, relay, url):
            async with websockets.connect(url + "/ws") as viewer:
                await viewer.recv()
                proxy.silence()  # no update, no reset: only the pings tell
                started = asyncio.get_running_loop().time()
                with pytest.raises(ConnectionClosed) as closed:
                    await asyncio.wait_for(viewer.recv(), PING_EVERY + PING_TIMEOUT + 5)
                waited = asyncio.get_running_loop().time() - started
            assert closed.value.rcvd is not None and closed.value.rcvd.code == LOST
            assert waited <= PING_EVERY + PING_TIMEOUT + CLOSE_TIMEOUT + 0.5, waited
            assert not relay.following
            proxy.restore()
            await until(lambda: relay.following, "the relay follows again")

    on_a_shoe(scenario)


def test_a_viewer_that_does_not_read_is_cut_off_and_the_others_get_everything() -> None:
    big = "x" * 60_000  # a table's view is a few kB: big updates fill a socket sooner
    go = asyncio.Event()

    async def table_feed(connection: Any) -> None:  # a table's feed, as fast as it goes
        await connection.send(message("snapshot", "e1", 0))
        await go.wait()
        for seq in range(1, 301):
            update = json.loads(message("update", "e1", seq)) | {"view": {"hand": big}}
            await connection.send(json.dumps(update))
            await asyncio.sleep(0.002)  # the scenario: the feed's pace
        await connection.wait_closed()

    async def scenario() -> None:
        async with serve(table_feed, "127.0.0.1", 0) as table:
            relay = Relay(server_url(table, tls=False), backlog=256 * 1024)
            async with relay.serving("127.0.0.1", 0) as server:
                await until(lambda: relay.following, "the relay follows the table")
                url = server_url(server, tls=False)
                host, port = url.removeprefix("ws://").split(":")
                stuck = socket.create_connection((host, int(port)))
                stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                key = base64.b64encode(os.urandom(16)).decode()
                stuck.sendall(
                    f"GET /ws HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
                    f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                    "Sec-WebSocket-Version: 13\r\n\r\n".encode()
                )  # and never reads again
                reader: list[str] = []
                task = asyncio.create_task(follow(url + "/ws", reader))
                await until(lambda: len(relay.viewers) == 2, "both viewers follow")
                go.set()
                await until(lambda: relay.mirror.seq == 300, "the table's last update")
                await until(lambda: seq_of(reader[-1]) == 300, "the reader's last update")
                assert len(relay.viewers) == 1, "the viewer that does not read is still fed"
                numbers = [seq_of(text) for text in reader]
                assert numbers == list(range(numbers[0], 301))
                task.cancel()
                stuck.close()

    asyncio.run(scenario())


# --- the relay as its own process ---------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "wrong"),
    [
        (["--source", "table-7:8080"], "expected the table service's http(s)"),
        (["--source", "http://x:1", "--port", "70000"], "--port 70000: a TCP port"),
        (["--source", "http://x:1", "--tls-cert", "c.pem"], "--tls-cert and --tls-key go"),
        (["--source", "http://x:1", "--tls-cert", "no.pem", "--tls-key", "no.key"], "no.pem"),
        (["--source", "https://x:1", "--source-ca", "/nonexistent/ca.pem"], "--source-ca"),
        (["--source", "http://x:1", "--studio-viewers", "-1"], "--studio-viewers -1: 0..64"),
    ],
)
def test_the_relay_command_refuses_bad_arguments(argv: list[str], wrong: str) -> None:
    done = subprocess.run(
        [LUCK_TABLE, "relay", *argv], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 2, done
    assert done.stderr.startswith("luck-table relay: error: "), done.stderr
    assert wrong in done.stderr


@pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's Chromium is not installed (apt-get install -y chromium)"
)
def test_the_public_page_through_the_relay_process(tmp_path: Path) -> None:
    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe) as live, async_playwright() as playwright:
            await live.seat_players()
            with RelayProcess(live.served.url) as relay:
                async with httpx.AsyncClient(base_url=relay.http) as http:
                    await until_following(http)
                    home = await http.get("/")
                    assert (home.status_code, home.headers["location"]) == (302, "/public")
                    missing = await http.get("/api/view")
                    assert missing.status_code == 404 and missing.json()["reason"]
                    assert missing.json()["code"] == "no_path"
                browser = await playwright.chromium.launch(
                    executable_path=str(CHROMIUM), args=["--no-sandbox"]
                )
                page = await browser.new_page(viewport={"width": 1280, "height": 800})
                page.set_default_timeout(20_000)
                await page.goto(relay.http + "/public")
                await page.get_by_text("live", exact=True).wait_for()
                feed = live.served.app.state.feed

                async def shows_the_table() -> None:
                    seq = feed.current.seq
                    await page.wait_for_function(
                        "seq => window.consoleSeq() >= seq", arg=seq, timeout=20_000
                    )
                    hidden = forbidden(live.service.table, "public", None)
                    leaked = card_names(await page.content()) & hidden
                    assert not leaked, f"the public page shows {sorted(leaked)}"

                await live.play_hand(Script(), shows_the_table)
                await shows_the_table()
                for seat in (1, 2, 3):
                    await page.locator(f'li[data-seat="{seat}"]').wait_for()
                await browser.close()
                # SIGTERM; the table is served by this loop, which must go on meanwhile
                status = await asyncio.to_thread(relay.stop)
                assert status == 0, relay.output()

    on_a_shoe(scenario)


async def until_following(http: httpx.AsyncClient) -> None:
    async def following() -> bool:
        return (await http.get("/health")).status_code == 200

    await async_wait_until(following, "the relay follows", TIMEOUT, poll=0.05)


def test_the_relays_answers_say_the_connection_closes_so_clients_never_send_on_it_again() -> None:
    """The relay's server closes the connection after a page or /health: the answer says so,
    else a client keeping connections (a load balancer's checks, httpx) sends its next
    request on a closed one and loses it ("server disconnected") when the close is late."""

    async def table_feed(connection: Any) -> None:
        await connection.send(message("snapshot", "e1", 0))
        await connection.wait_closed()

    async def scenario() -> None:
        async with serve(table_feed, "127.0.0.1", 0) as table:
            relay = Relay(server_url(table, tls=False))
            async with relay.serving("127.0.0.1", 0) as server:
                await until(lambda: relay.following, "the relay follows the table")
                base = server_url(server, tls=False).replace("ws://", "http://", 1)
                async with httpx.AsyncClient(base_url=base, timeout=TIMEOUT) as http:
                    for path in ("/health", "/", "/health", "/nowhere", "/health"):
                        answer = await http.get(path)
                        assert answer.headers["connection"] == "close", path

    asyncio.run(asyncio.wait_for(scenario(), 60))


def test_a_studio_slot_is_given_only_once_the_table_accepts_the_token() -> None:
    """Against a table that judges tokens as the service does (it accepts the socket, then
    sends its latest message or closes with 4401), one studio slot: a token the table is
    slow to judge and a forged one hold no slot, so the genuine viewer gets in; a second
    genuine token the table accepts after the slot was taken is closed with 1013; a token
    the table never answers is closed with 1013 after the answer's time; the waiting
    tokens are bounded too."""
    answer = asyncio.Event()  # the table judges the "slow" token once set

    async def table_feed(connection: Any) -> None:
        path = connection.request.path
        if path.startswith("/ws"):
            await connection.send(message("snapshot", "e1", 0))
        elif "token=forged" in path:
            await connection.close(REFUSED, "not a studio token")
            return
        elif "token=never" in path:
            pass
        elif "token=slow" in path:
            await answer.wait()
            await connection.send(json.dumps({"type": "studio", "seq": 1}))
        else:
            await connection.send(json.dumps({"type": "studio", "seq": 1}))
        await connection.wait_closed()

    async def closed_with(viewer: Any) -> tuple[int, str]:
        with pytest.raises(ConnectionClosed) as closed:
            await asyncio.wait_for(viewer.recv(), TIMEOUT)
        assert closed.value.rcvd is not None
        return closed.value.rcvd.code, closed.value.rcvd.reason

    async def scenario() -> None:
        async with serve(table_feed, "127.0.0.1", 0) as table:
            relay = Relay(server_url(table, tls=False), studio_viewers=2, studio_answer=TIMEOUT)
            async with relay.serving("127.0.0.1", 0) as server:
                await until(lambda: relay.following, "the relay follows the table")
                url = server_url(server, tls=False) + "/studio/ws?token="
                async with websockets.connect(url + "forged") as forged:
                    assert await closed_with(forged) == (REFUSED, "not a studio token")
                async with (
                    websockets.connect(url + "slow") as one,
                    websockets.connect(url + "slow") as two,
                ):
                    await until(lambda: len(relay.studio_waiting) == 2, "two tokens wait")
                    await refused_503(url + "genuine")  # as many wait as the relay takes
                    assert relay.health()["studio_viewers"] == 0
                    answer.set()
                    for viewer in (one, two):
                        assert json.loads(await asyncio.wait_for(viewer.recv(), TIMEOUT))
                    assert relay.health()["studio_viewers"] == 2
                    await refused_503(url + "genuine")  # the slots are taken
                await until(lambda: not relay.studio_viewers, "the slots given back")
                answer.clear()
                async with websockets.connect(url + "genuine") as first:
                    assert json.loads(await asyncio.wait_for(first.recv(), TIMEOUT))
                    async with websockets.connect(url + "slow") as late:
                        await until(lambda: relay.studio_waiting, "the slow token waits")
                        async with websockets.connect(url + "genuine") as second:
                            assert json.loads(await asyncio.wait_for(second.recv(), TIMEOUT))
                            answer.set()  # accepted too, after the last slot was taken
                            code, reason = await closed_with(late)
                            assert code == TOO_SLOW and "studio viewers already" in reason
                            assert relay.health()["studio_viewers"] == 2
        async with serve(table_feed, "127.0.0.1", 0) as table:
            relay = Relay(server_url(table, tls=False), studio_viewers=1, studio_answer=0.5)
            async with relay.serving("127.0.0.1", 0) as server:
                await until(lambda: relay.following, "the relay follows the table")
                url = server_url(server, tls=False) + "/studio/ws?token="
                async with websockets.connect(url + "never") as never:
                    assert (await closed_with(never))[0] == TOO_SLOW
                await until(lambda: not relay.studio_waiting, "no token waits")

    async def refused_503(url: str) -> None:
        with pytest.raises(InvalidStatus) as status:
            async with websockets.connect(url):
                pass
        assert status.value.response.status_code == 503

    asyncio.run(asyncio.wait_for(scenario(), 60))


def test_the_relay_serves_the_studio_feed_only_with_a_studio_token(tmp_path: Path) -> None:
    """Through the relay: no token, another role's, a forged one, a revoked one: nothing of
    the studio feed; a studio token: the table's studio messages, after their delay, and
    no more studio viewers than the relay takes. The public feed has no odds."""

    async def scenario(shoe: Any) -> None:
        async with (
            live_table(tmp_path, shoe, table=TEST_TABLE) as live,
            relay_of(live, live.served.url, studio_viewers=2) as (relay, url),
        ):
            await live.seat_players()
            issued = await issue(live)
            token = issued["token"]
            with pytest.raises(InvalidStatus) as status:
                async with websockets.connect(url + "/studio/ws"):
                    pass
            assert status.value.response.status_code == 401
            assert json.loads(status.value.response.body)["code"] == "no_studio_token"
            async with httpx.AsyncClient(base_url=url.replace("ws", "http", 1)) as http:
                page = await http.get("/studio")
                assert page.status_code == 200 and "/static/studio.js" in page.text
                assert (await http.get("/static/studio.js")).status_code == 200
            dealer = live.dealer["Authorization"].split()[1]
            for other in (dealer, token[:-3] + "abc", issued["id"]):
                code, reason = await refused(url, f"/studio/ws?token={other}")
                assert code == 4401 and "studio token" in reason, (other, code, reason)
            studio: list[tuple[float, dict[str, Any]]] = []
            second: list[tuple[float, dict[str, Any]]] = []
            public: list[str] = []
            followers = [
                asyncio.create_task(studio_messages(url, token, studio)),
                asyncio.create_task(studio_messages(url, token, second)),
                asyncio.create_task(follow(url + "/ws", public)),
            ]
            await until(lambda: studio and second and public, "every viewer's first message")
            with pytest.raises(InvalidStatus) as status:  # a third studio viewer
                async with websockets.connect(url + f"/studio/ws?token={token}"):
                    pass
            assert status.value.response.status_code == 503
            assert json.loads(status.value.response.body)["code"] == "studio_slots_taken"
            assert relay.health()["studio_viewers"] == 2
            await live.play_hand(Script())
            last = live.service.position
            await released(studio, last)
            released_in_time(studio, DELAY)
            table = live.service.table
            assert table.hand is not None
            every = {str(d.card) for p in table.hand.players for d in p.cards}
            assert every <= card_names(studio[-1][1]["table"])
            assert all("equity" not in text and "odds" not in text for text in public)
            revoke = {**SUPERVISOR, "why": "the broadcast ended"}
            response = await live.post(f"/api/studio-tokens/{issued['id']}/revoke", revoke)
            assert response.status_code == 200, response.text
            for follower in followers[:2]:
                with pytest.raises(ConnectionClosed) as closed:
                    await asyncio.wait_for(follower, 5)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
            code, _ = await refused(url, f"/studio/ws?token={token}")
            assert code == 4401
            followers[2].cancel()

    on_a_shoe(scenario)
