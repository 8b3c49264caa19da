"""The floor service (``luck-table floor``) against a real PostgreSQL: its pit API, two
services on one floor seeing the same thing, the live feed, and 503 while the database is
unreachable (a relay cut as if PostgreSQL restarted), recovered without a restart."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect as ws_connect

from dealer_ui.codes import Declined
from dealer_ui.pit.live import FloorFeed
from tests.floor_kit import wait_for
from tests.pit_kit import (
    LUCK_TABLE,
    SUPERVISOR,
    TIMEOUT,
    FloorService,
    floor_config,
    pit_database,
    relay,
    ship,
    sim_journal,
    start_floor,
    statuses,
)

pytestmark = pytest.mark.slow
CONSOLE = "https://t1.floor.example:8080"


class Floor:
    """Three tables from one dealt journal: T1 all of it (idle), T2 stopped late in hand 3
    (dealing), T3 stopped at an open blocking alert (paused); two floor services."""

    def __init__(self, folder: Path, dsn: str) -> None:
        self.journal = sim_journal(folder)
        self.dsn = dsn
        states = statuses(self.journal)
        self.paused_at = next(i + 1 for i, s in enumerate(states) if s.state == "paused")
        self.dealing_at = max(  # hand 3, its cards dealt
            i + 1 for i, s in enumerate(states) if s.state == "dealing" and s.hand_number == 3
        )
        self.states = states
        ship(dsn, self.journal, "T1")
        ship(dsn, self.journal, "T2", upto=self.dealing_at)
        ship(dsn, self.journal, "T3", upto=self.paused_at)
        self.proxy, relayed = relay(dsn)
        self.services: list[FloorService] = []
        for dsn_of in (dsn, relayed):
            config = floor_config(folder, {"T1": CONSOLE})
            self.services.append(start_floor(config, dsn_of, poll=0.2))
        self.tokens = [sign_in(service.url) for service in self.services]

    def get(self, path: str, service: int = 0, **params: object) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.tokens[service]}"}
        url = self.services[service].url + path
        return httpx.get(url, headers=headers, params=params, timeout=TIMEOUT)

    def close(self) -> None:
        for service in self.services:
            assert service.stop() == 0, service.log.read_text(encoding="utf-8")
        self.proxy.close()


def sign_in(url: str, pin: str = SUPERVISOR["pin"]) -> str:
    answer = httpx.post(f"{url}/api/sessions", json={**SUPERVISOR, "pin": pin}, timeout=TIMEOUT)
    assert answer.status_code == 200, answer.text
    return answer.json()["token"]


@pytest.fixture(scope="module")
def floor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Floor]:
    with pit_database() as dsn:
        made = Floor(tmp_path_factory.mktemp("pit"), dsn)
        try:
            yield made
        finally:
            made.close()


def test_the_pit_needs_a_supervisor(floor):
    url = floor.services[0].url
    answer = httpx.get(f"{url}/api/tables", timeout=TIMEOUT)
    assert answer.status_code == 401
    assert answer.json()["error"] == "unauthorized"
    wrong = httpx.post(f"{url}/api/sessions", json={**SUPERVISOR, "pin": "0000"}, timeout=TIMEOUT)
    assert wrong.status_code == 401
    assert wrong.json() == {
        "error": "unauthorized",
        "reason": "wrong surveillance id or PIN",
        "code": "wrong_pin",
    }
    forged = httpx.get(
        f"{url}/api/tables", headers={"Authorization": "Bearer nope"}, timeout=TIMEOUT
    )
    assert forged.status_code == 401
    assert httpx.get(f"{url}/api/health", timeout=TIMEOUT).json() == {"database": "ok"}


def test_every_table_live_state(floor):
    tables = {table["table_id"]: table for table in floor.get("/api/tables").json()}
    assert sorted(tables) == ["T1", "T2", "T3"]
    assert tables["T1"]["state"] == "idle"
    assert tables["T1"]["hand_number"] == 6
    assert tables["T1"]["last_position"] == len(floor.states)
    assert tables["T2"]["state"] == "dealing"
    assert tables["T2"]["hand_number"] == 3
    assert any(seat["in_hand"] for seat in tables["T2"]["seats"])
    assert tables["T2"]["hand"]["players"]  # every card: for supervisors only
    assert tables["T1"]["hand"] is None
    for table in tables.values():  # one journal shipped as three tables: one deck at three
        assert (table["tag_checks"], table["shared_tags"]) == (True, 52)
        # the simulated shoe loads the same deck (the same tags) every hand: one deck's life
        assert table["deck_hands"] == table["hand_number"] and table["deck_since"] is not None
    shared = floor.get("/api/tags/shared").json()
    assert len(shared) == 52 * 3 * 2  # each tag, at each table, seen at the two others
    paused = tables["T3"]
    expected = floor.states[floor.paused_at - 1]
    assert paused["state"] == "paused"
    assert paused["alert_kind"] == expected.alert_kind
    assert paused["alert_message"] == expected.alert_message
    open_alerts = floor.get("/api/alerts/open").json()
    assert any(alert["table_id"] == "T3" and alert["blocking"] for alert in open_alerts)
    assert not any(alert["table_id"] == "T1" for alert in open_alerts)


def test_two_floor_services_see_the_same_floor(floor):
    for path in ("/api/tables", "/api/alerts/open", "/api/tables/T1", "/api/pot-sizes"):
        assert floor.get(path, 0).json() == floor.get(path, 1).json(), path
    one, two = (floor.get("/api/floor", service).json() for service in (0, 1))
    assert one["tables"] == two["tables"]
    assert one["open_alerts"] == two["open_alerts"]


def test_a_tables_hands_are_its_journals(floor):
    history = subprocess.run(
        [str(LUCK_TABLE), "history", "--journal", str(floor.journal), "--json"],
        check=True,
        capture_output=True,
        text=True,
    )
    expected = json.loads(history.stdout)
    hands = floor.get("/api/tables/T1/hands").json()
    assert [hand["number"] for hand in hands] == [item["hand"] for item in expected]
    for hand, item in zip(hands, expected, strict=True):
        assert hand["script"] == item["script"]
        assert hand["outcome"] == item["outcome"]
    two = floor.get("/api/tables/T1/hands", after=2, limit=2).json()
    assert [hand["number"] for hand in two] == [3, 4]
    one = floor.get("/api/tables/T1/hands/4").json()
    assert one == hands[3]


def test_the_drill_down(floor):
    detail = floor.get("/api/tables/T1").json()
    assert detail["table"]["table_id"] == "T1"
    assert detail["console"] == CONSOLE
    assert detail["current_hand"] is None
    assert [hand["number"] for hand in detail["recent_hands"]] == [6, 5, 4, 3, 2, 1]
    assert all(hand["script"] for hand in detail["recent_hands"])
    alerts = detail["alerts"]
    assert alerts and all(alert["cleared_at"] and alert["resolution"] for alert in alerts)
    assert any(action["action"] == "enter_card" for action in detail["supervisor_actions"])
    assert detail["decks"] and {deck["table_id"] for deck in detail["decks"]} == {"T1"}
    assert len(detail["shared_tags"]) == 52 * 2
    assert {tag["other_table_id"] for tag in detail["shared_tags"]} == {"T2", "T3"}
    buy_ins = [move for move in detail["chip_movements"] if move["kind"] == "buy_in"]
    assert len(buy_ins) == 6
    dealing = floor.get("/api/tables/T2").json()
    assert dealing["console"] is None
    assert dealing["current_hand"]["number"] == 3
    assert dealing["current_hand"]["ended_at"] is None
    assert [hand["number"] for hand in dealing["recent_hands"]] == [2, 1]


def test_the_drill_down_s_chip_movements_page_back_to_the_first(floor):
    """The drill-down holds the latest buy-ins and cash-outs; the pages before them, each
    asked from the first position of the one after, lead back to the first without a
    movement missed or twice."""
    detail = floor.get("/api/tables/T1").json()
    latest = floor.get("/api/tables/T1/chip-movements", limit=1000).json()
    assert detail["chip_movements"] == latest[-50:]
    pages = [floor.get("/api/tables/T1/chip-movements", limit=2).json()]
    while len(pages[0]) == 2:
        before = pages[0][0]["position"]
        pages.insert(0, floor.get("/api/tables/T1/chip-movements", limit=2, before=before).json())
    assert [move for page in pages for move in page] == latest
    assert len(latest) > 4
    assert [m["position"] for m in latest] == sorted(m["position"] for m in latest)
    answer = floor.get("/api/tables/T1/chip-movements", before=0)
    assert answer.status_code == 422 and answer.json()["code"] == Declined.INVALID_FIELD
    unknown = floor.get("/api/tables/T9/chip-movements")
    assert unknown.status_code == 404 and unknown.json()["code"] == Declined.UNKNOWN_TABLE


def test_the_pit_bosses_questions(floor):
    hourly = floor.get("/api/hands-per-hour", table_id="T1").json()
    assert sum(row["hands"] for row in hourly) == 6
    assert floor.get("/api/hands-per-hour", since="2100-01-01T00:00:00Z").json() == []
    pots = {row["table_id"]: row for row in floor.get("/api/pot-sizes").json()}
    hands = floor.get("/api/tables/T1/hands").json()
    assert pots["T1"]["total"] == sum(hand["pot"] for hand in hands if not hand["void"])
    assert pots["T1"]["largest"] == max(hand["pot"] for hand in hands)
    bonus = {row["table_id"]: row for row in floor.get("/api/bonus-cards").json()}
    assert bonus["T1"]["bonus_cards"] == sum(hand["bonus_cards"] for hand in hands)
    player = floor.get("/api/tables/T1").json()["chip_movements"][0]["player"]
    sessions = floor.get(f"/api/players/{player}/sessions").json()
    assert {row["table_id"] for row in sessions} == {"T1", "T2", "T3"}
    t1 = next(row for row in sessions if row["table_id"] == "T1")
    assert t1["hands"] == 6
    assert floor.get("/api/players/nobody/sessions").json() == []
    actions = floor.get("/api/supervisor-actions", table_id="T1", limit=1).json()
    assert len(actions) == 1


@pytest.mark.parametrize(
    ("path", "params", "status", "code"),
    [
        ("/api/tables/T9", {}, 404, Declined.UNKNOWN_TABLE),
        ("/api/tables/T9/hands", {}, 404, Declined.UNKNOWN_TABLE),
        ("/api/tables/T1/hands/999", {}, 404, Declined.UNKNOWN_HAND),
        ("/api/tables/T1/hands/0", {}, 422, Declined.INVALID_FIELD),
        ("/api/tables/T1/hands", {"limit": 0}, 422, Declined.INVALID_FIELD),
        ("/api/tables/T1/hands", {"after": "x"}, 422, Declined.INVALID_FIELD),
        ("/api/tables/T1/hands", {"session": -1}, 422, Declined.INVALID_FIELD),
        ("/api/hands-per-hour", {"since": "yesterday"}, 422, Declined.INVALID_FIELD),
        ("/api/tables/" + "x" * 65, {}, 422, Declined.INVALID_FIELD),
        ("/api/no-such-thing", {}, 404, Declined.NO_PATH),
    ],
)
def test_bad_input_is_a_4xx_with_the_reason(floor, path, params, status, code):
    answer = floor.get(path, **params)
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert set(body) == {"error", "reason", "code"}
    assert body["reason"] and body["code"] == code


CHROMIUM = Path("/usr/bin/chromium")


@pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's Chromium is not installed (apt-get install -y chromium)"
)
def test_the_pit_page_in_a_browser(floor, tmp_path):
    from axe_playwright_python.sync_playwright import Axe  # noqa: PLC0415
    from playwright.sync_api import expect, sync_playwright  # noqa: PLC0415

    axe, found = Axe(), []

    def audit(screen: str) -> None:
        """axe-core on the page (docs/console.md, "One palette"): its serious and critical
        violations kept, to fail the test once every screen is seen."""
        for violation in axe.run(page).response["violations"]:
            if violation["impact"] in ("serious", "critical"):
                targets = [node["target"] for node in violation["nodes"]][:4]
                found.append(f"{screen}: {violation['id']} {targets}")

    shots = Path(os.environ.get("LUCK_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        # the policy bypassed only so that axe can be injected
        page = browser.new_page(viewport={"width": 1600, "height": 1000}, bypass_csp=True)
        page.set_default_timeout(TIMEOUT * 1000)
        page.goto(floor.services[1].url)
        audit("sign-in")
        page.get_by_label("Supervisor id").fill(SUPERVISOR["id"])
        page.get_by_label("PIN").fill("0000")
        page.get_by_role("button", name="Sign in").click()
        expect(page.locator("#sign-in-error")).to_have_text("wrong surveillance id or PIN")
        page.get_by_label("PIN").fill(SUPERVISOR["pin"])
        page.get_by_role("button", name="Sign in").click()
        expect(page.locator("#connection")).to_have_text("live")
        expect(page.locator("#sign-in")).to_be_hidden()
        cards = page.locator(".table-card")
        expect(cards).to_have_count(3)
        expect(page.locator('[data-table="T1"] .state')).to_have_text("idle")
        expect(page.locator('[data-table="T2"] .state')).to_have_text("dealing")
        paused = floor.states[floor.paused_at - 1]
        expect(page.locator('[data-table="T3"] .state')).to_have_text("paused")
        expect(page.locator('[data-table="T3"] .shared-tags')).to_contain_text("52 tags")
        expect(page.locator('[data-table="T3"] .alert-line:not(.shared-tags)')).to_contain_text(
            str(paused.alert_message)
        )
        expect(page.locator("#alerts li").first).to_contain_text("Table T3")
        expect(page.locator('[data-table="T1"] .deck-line')).to_contain_text(
            re.compile(r"deck: 6 hands, \d+ h \d\d min$")
        )
        page.screenshot(path=str(shots / "pit-floor-1600x1000.png"), full_page=True)
        audit("the floor")
        page.locator('[data-table="T1"]').click()
        expect(page.locator("#detail-title")).to_contain_text("Table T1 (T1) · idle · hand 6")
        expect(page.locator("#hands > li")).to_have_count(6)
        expect(page.locator("#console-link")).to_have_attribute("href", f"{CONSOLE}/surveillance")
        expect(page.locator("#seats tbody tr")).to_have_count(6)
        page.locator("#hands summary").first.click()
        expect(page.locator("#hands pre").first).to_contain_text('"rules"')
        page.screenshot(path=str(shots / "pit-table-1600x1000.png"), full_page=True)
        page.locator("#close-detail").click()
        page.locator('[data-table="T2"]').click()
        expect(page.locator("#detail-title")).to_contain_text("Table T2 (T2) · dealing · hand 3")
        expect(page.locator("#current-hand")).to_contain_text("hand 3, started")
        expect(page.locator("#seats td.cards").first).to_contain_text("[")  # a hole card
        page.screenshot(path=str(shots / "pit-dealing-1600x1000.png"), full_page=True)
        audit("a table dealing")
        floor.proxy.cut()
        try:
            expect(page.locator("#unreachable")).to_be_visible()
            expect(page.locator("#unreachable")).to_contain_text("floor database unreachable")
            page.screenshot(path=str(shots / "pit-unreachable-1600x1000.png"))
        finally:
            floor.proxy.restore()
        expect(page.locator("#unreachable")).to_be_hidden()
        expect(cards).to_have_count(3)
        browser.close()
    assert found == [], "\n".join(found)


def feed_message(url: str, token: str, until: object, timeout: float = TIMEOUT) -> dict:
    """The first message of the live feed for which ``until(message)`` holds."""
    with ws_connect(url.replace("http", "ws", 1) + f"/ws?token={token}") as socket:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = json.loads(socket.recv(timeout=deadline - time.monotonic()))
            if until(message):  # type: ignore[operator]
                return message
    raise AssertionError("the feed never showed it")


def _position(message: dict, table_id: str) -> int | None:
    return next(
        (t["last_position"] for t in message.get("tables", ()) if t["table_id"] == table_id),
        None,
    )


def test_the_live_feed_follows_the_floor_on_both_services(floor):
    first = feed_message(floor.services[0].url, floor.tokens[0], lambda m: True)
    assert first["type"] == "floor" and first["ok"] is True
    assert all("hand" not in table for table in first["tables"])  # the cards: drill down
    before = _position(first, "T2")
    assert before == floor.dealing_at
    ship(floor.dsn, floor.journal, "T2")
    for service, token in zip(floor.services, floor.tokens, strict=True):
        later = feed_message(service.url, token, lambda m: _position(m, "T2") == len(floor.states))
        assert next(t for t in later["tables"] if t["table_id"] == "T2")["state"] == "idle"
    bad = floor.services[0].url.replace("http", "ws", 1) + "/ws?token=bad"
    with ws_connect(bad) as socket, pytest.raises(Exception, match="4401"):
        socket.recv(timeout=TIMEOUT)


def test_a_notified_batch_is_on_the_feed_before_the_next_poll(floor):
    async def scenario() -> None:
        feed = FloorFeed(floor.dsn, poll=60.0)
        feed.start()
        messages = feed.messages()
        try:
            first = json.loads(await asyncio.wait_for(anext(messages), TIMEOUT))
            assert _position(first, "T4") is None
            await asyncio.to_thread(ship, floor.dsn, floor.journal, "T4", 5)
            later = json.loads(await asyncio.wait_for(anext(messages), TIMEOUT))
            assert _position(later, "T4") == 5
            assert feed.looks == 2 and feed.wakes >= 1  # woken: the poll is a minute away
        finally:
            await feed.stop()

    asyncio.run(scenario())


def test_unreachable_database_is_503_and_recovers(floor):
    cut = 1  # the service behind the relay
    floor.proxy.cut()
    try:
        answer = floor.get("/api/tables", cut)
        assert answer.status_code == 503
        body = answer.json()
        assert body["error"] == "unavailable" and body["code"] == Declined.FLOOR_UNREACHABLE
        assert body["reason"].startswith("floor database unreachable")  # for people
        for path in ("/api/health", "/api/tables/T1"):
            down = floor.get(path, cut)
            assert down.status_code == 503 and down.json()["code"] == Declined.FLOOR_UNREACHABLE
        down = feed_message(floor.services[cut].url, floor.tokens[cut], lambda m: not m["ok"])
        assert down["code"] == Declined.FLOOR_UNREACHABLE
        assert floor.get("/api/tables", 0).status_code == 200  # the other service is fine
    finally:
        floor.proxy.restore()
    wait_for(lambda: floor.get("/api/tables", cut).status_code == 200, "the service back")
    up = feed_message(floor.services[cut].url, floor.tokens[cut], lambda m: m["ok"])
    assert {"T1", "T2", "T3"} <= {t["table_id"] for t in up["tables"]}


def test_the_command_line_errors(tmp_path, floor):
    config = floor_config(tmp_path)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(LUCK_TABLE), "floor", "--config", str(config), "--port", "0", *args],
            check=False,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )

    missing = run()
    assert missing.returncode == 2
    assert "floor.dsn = (missing)" in missing.stderr
    bad = run("--dsn", "host=127.0.0.1 password=s3cr3t port")
    assert bad.returncode == 2
    shown = "--dsn = 'host=127.0.0.1 password=********'"  # the rest of it taken as the password
    assert bad.stderr.startswith(f"luck-table floor: error: {shown}: a PostgreSQL")
    assert "s3cr3t" not in bad.stderr
    assert len(bad.stderr.splitlines()) == 1
    proxy, relayed = relay(floor.dsn)
    proxy.cut()
    down = run("--dsn", relayed)
    proxy.close()
    assert down.returncode == 1
    assert "floor database unreachable" in down.stderr
    assert len(down.stderr.splitlines()) == 1
    (tmp_path / "bad.toml").write_text("[floor]\npoll = 0\n", encoding="utf-8")
    config = tmp_path / "bad.toml"
    assert "floor.poll = 0: seconds, 0.1..60" in run("--dsn", floor.dsn).stderr
