"""The floor service under trouble: a schema of another version, a lock held on the store,
a table gone silent while nothing else changes, a table's sessions, bad bytes in a
parameter, and the drill-down's counts and order (docs/floor.md, "The floor service")."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from fastapi.testclient import TestClient

from controller.config_file import Api, Credential
from controller.floor import store
from controller.floor.migrate import FOLDER, migrate
from dealer_ui.auth import hash_pin
from dealer_ui.codes import Declined
from dealer_ui.pit import create_app
from dealer_ui.pit.config import FloorConfig
from dealer_ui.pit.live import FloorFeed
from tests.floor_kit import floor_database
from tests.pit_kit import (
    LUCK_TABLE,
    SUPERVISOR,
    TIMEOUT,
    floor_config,
    pit_database,
    ship,
    sim_journal,
    start_floor,
    statuses,
)

pytestmark = pytest.mark.slow
HANDS = 12
PIT = Credential(SUPERVISOR["id"], hash_pin(SUPERVISOR["pin"]))


@dataclass
class Dealt:
    """A journal of twelve hands, and the positions of interest in it."""

    journal: Path
    dealing_at: int  # late in the last hand, its cards dealt
    paused_at: int  # at an open blocking alert


@pytest.fixture(scope="module")
def dealt(tmp_path_factory: pytest.TempPathFactory) -> Dealt:
    journal = sim_journal(tmp_path_factory.mktemp("trouble"), hands=HANDS)
    states = statuses(journal)
    dealing_at = max(
        i + 1 for i, s in enumerate(states) if s.state == "dealing" and s.hand_number == HANDS
    )
    paused_at = next(i + 1 for i, s in enumerate(states) if s.state == "paused")
    return Dealt(journal, dealing_at, paused_at)


@pytest.fixture
def dsn() -> Iterator[str]:
    with pit_database() as made:
        yield made


class Pit:
    """The floor service's app in this process, signed in."""

    def __init__(self, dsn: str, **settings: float) -> None:
        config = FloorConfig(dsn=dsn, api=Api(), supervisors=(PIT,))
        self.client = TestClient(create_app(replace(config, **settings)))
        self.client.__enter__()
        answer = self.client.post("/api/sessions", json=SUPERVISOR)
        assert answer.status_code == 200, answer.text
        self.headers = {"Authorization": f"Bearer {answer.json()['token']}"}

    def get(self, path: str, **params: object) -> httpx.Response:
        return self.client.get(path, headers=self.headers, params=params)  # type: ignore[arg-type]

    def close(self) -> None:
        self.client.__exit__(None, None, None)


@pytest.fixture
def pit_of() -> Iterator[Callable[..., Pit]]:
    """Floor services made by the test, closed after it."""
    made: list[Pit] = []

    def make(dsn: str, **settings: float) -> Pit:
        made.append(Pit(dsn, **settings))
        return made[-1]

    yield make
    for pit in made:
        pit.close()


def _without_clock(answer: Any) -> Any:
    """An answer without the floor's clock (``/api/floor``'s ``now``), which moves on."""
    return {k: v for k, v in answer.items() if k != "now"} if isinstance(answer, dict) else answer


@pytest.fixture(scope="module")
def empty_floor() -> Iterator[Pit]:
    """A floor service on a floor that holds no table yet."""
    with pit_database() as dsn:
        pit = Pit(dsn)
        try:
            yield pit
        finally:
            pit.close()


READS = [
    "/api/floor",
    "/api/tables",
    "/api/tables/T1",
    "/api/tables/T1/hands",
    "/api/tables/T1/hands/1",
    "/api/tables/T1/alerts",
    "/api/alerts/open",
    "/api/hands-per-hour",
    "/api/pot-sizes",
    "/api/bonus-cards",
    "/api/supervisor-actions",
]


def test_a_newer_schema_that_added_columns_is_read_as_before(dealt, dsn, pit_of):
    ship(dsn, dealt.journal, "T1")
    ship(dsn, dealt.journal, "T2", upto=dealt.paused_at)
    pit = pit_of(dsn)
    before = {path: pit.get(path).json() for path in READS}
    with psycopg.connect(dsn, autocommit=True) as connection:  # a later release's migration
        views = [
            row[0]
            for row in connection.execute(
                "SELECT viewname FROM pg_views WHERE viewname LIKE 'floor_%'"
            )
        ]
        for view in views:
            (definition,) = connection.execute("SELECT pg_get_viewdef(%s)", (view,)).fetchone()
            connection.execute(
                f"CREATE OR REPLACE VIEW {view} AS SELECT newer.*, 1 AS added_later "
                f"FROM ({definition.rstrip().rstrip(';')}) newer"
            )
        for table in ("floor_alerts", "floor_hands", "floor_supervisor_actions"):
            connection.execute(f"ALTER TABLE {table} ADD COLUMN added_later integer DEFAULT 1")
        connection.execute(
            "INSERT INTO floor_schema_migrations (version, name, checksum) "
            "VALUES (99, 'a_later_release', 'x')"
        )
    assert pit.client.get("/api/health").json() == {"database": "ok"}
    for path in READS:
        answer = pit.get(path)
        assert answer.status_code == 200, (path, answer.text)
        assert _without_clock(answer.json()) == _without_clock(before[path]), path
    player = before["/api/tables/T1"]["chip_movements"][0]["player"]
    assert pit.get(f"/api/players/{player}/sessions").status_code == 200


def test_an_older_schema_stops_the_service_at_start_and_fails_its_health(tmp_path, pit_of):
    older = tmp_path / "migrations"
    older.mkdir()
    shutil.copy(FOLDER / "0001_floor.sql", older)
    with floor_database() as dsn:
        with psycopg.connect(dsn) as connection:
            migrate(connection, older)
        started = subprocess.run(
            [str(LUCK_TABLE), "floor", "--config", str(floor_config(tmp_path)), "--dsn", dsn],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
        assert started.returncode == 2, started.stderr
        lines = started.stderr.splitlines()
        assert len(lines) == 1, started.stderr
        assert lines[0].startswith("luck-table floor: error: ")
        assert "the floor schema is at version 1, this release needs version" in lines[0]
        assert "0002_live" in lines[0]
        health = pit_of(dsn).client.get("/api/health")
        assert health.status_code == 503 and health.json()["code"] == Declined.FLOOR_SCHEMA
        assert "the floor schema is at version 1" in health.json()["reason"]


def _floor(dsn: str, timeout: float) -> Any:
    """The first message of a floor feed on ``dsn`` with this statement timeout."""

    async def first() -> Any:
        feed = FloorFeed(dsn, poll=0.2, listen=False, statement_timeout=timeout)
        feed.start()
        try:
            return json.loads(await asyncio.wait_for(anext(feed.messages()), TIMEOUT))
        finally:
            await feed.stop()

    return asyncio.run(first())


def test_a_lock_on_the_store_answers_unavailable_within_the_statement_timeout(dealt, dsn, pit_of):
    ship(dsn, dealt.journal, "T1", upto=dealt.paused_at)
    pit = pit_of(dsn, statement_timeout=0.5)
    assert pit.get("/api/tables").status_code == 200
    locker = psycopg.connect(dsn)
    locker.execute("LOCK TABLE floor_table_status IN ACCESS EXCLUSIVE MODE")
    # whatever happens, the lock goes after 20 s: a floor service that waits on it answers late
    release = threading.Timer(20, locker.rollback)
    release.start()
    try:
        began = time.monotonic()
        answer = pit.get("/api/tables")
        took = time.monotonic() - began
        assert answer.status_code == 503, answer.text
        assert took < 10, took
        assert answer.json()["code"] == Declined.FLOOR_BUSY
        reason = answer.json()["reason"]
        assert reason.startswith("floor store unavailable: no answer within the statement timeout")
        drill = pit.get("/api/tables/T1")
        assert drill.status_code == 503 and drill.json()["code"] == Declined.FLOOR_BUSY
        message = _floor(dsn, 0.5)
        assert message["ok"] is False and message["code"] == Declined.FLOOR_BUSY
    finally:
        release.cancel()
        locker.rollback()
        locker.close()
    assert pit.get("/api/tables").status_code == 200


def test_a_table_gone_silent_is_flagged_though_nothing_else_changes(dealt, dsn, pit_of):
    ship(dsn, dealt.journal, "T1", upto=dealt.dealing_at)

    async def follow() -> tuple[dict, dict, float]:
        feed = FloorFeed(dsn, poll=0.2, listen=False, silent_after=1.5)
        feed.start()
        messages = feed.messages()
        try:
            first = json.loads(await asyncio.wait_for(anext(messages), TIMEOUT))
            began = time.monotonic()
            later = json.loads(await asyncio.wait_for(anext(messages), TIMEOUT))
            return first, later, time.monotonic() - began
        finally:
            await feed.stop()

    first, later, _ = asyncio.run(follow())
    assert first["tables"][0]["silent"] is False
    assert later["tables"][0]["silent"] is True  # the only change: the floor's clock
    assert later["tables"][0]["last_position"] == first["tables"][0]["last_position"]
    pit = pit_of(dsn, silent_after=1.5)
    detail = pit.get("/api/tables/T1").json()
    assert detail["table"]["silent"] is True  # the drill-down says its cards are stale
    assert detail["table"]["hand"]["players"]  # the hole cards it shows are of then
    ship(dsn, dealt.journal, "T1", upto=dealt.dealing_at + 1)
    assert pit.get("/api/tables/T1").json()["table"]["silent"] is False


def test_the_drill_down_shows_one_session_ten_hands_and_the_paused_table_first(dealt, dsn, pit_of):
    ship(dsn, dealt.journal, "T1")
    with psycopg.connect(dsn) as connection:
        first = store.supervisor_actions(connection, "T1", limit=1000)
    assert first, "the simulated supervisor acted"
    before_any = min(action.position for action in first) - 1
    created = time.time() + 3600  # a newer journal of T1 (the table was reset)
    ship(dsn, dealt.journal, "T1", upto=before_any, created=created)
    ship(dsn, dealt.journal, "T2", upto=dealt.dealing_at)
    ship(dsn, dealt.journal, "T3", upto=dealt.paused_at)
    pit = pit_of(dsn)
    reset = pit.get("/api/tables/T1").json()
    assert reset["table"]["session"] == 2
    assert reset["supervisor_actions"] == []  # session 1's are not this journal's
    assert pit.get("/api/supervisor-actions", table_id="T1").json() == []
    old = pit.get("/api/supervisor-actions", table_id="T1", session=1, limit=1000).json()
    assert len(old) == len(first)
    alone = pit.get("/api/supervisor-actions", session=1)
    assert alone.status_code == 422 and alone.json()["code"] == Declined.TABLE_ID_NEEDED
    dealing = pit.get("/api/tables/T2").json()
    assert dealing["current_hand"]["number"] == HANDS
    assert [hand["number"] for hand in dealing["recent_hands"]] == list(range(HANDS - 1, 1, -1))
    tables = pit.get("/api/tables").json()
    order = [table["table_id"] for table in tables]
    assert [table["state"] for table in tables] == ["paused", "paused", "dealing"]
    assert order == ["T1", "T3", "T2"]  # paused first (T1 waits for its supervisor), then by id
    assert [table["table_id"] for table in pit.get("/api/floor").json()["tables"]] == order


@pytest.mark.parametrize(
    ("path", "params", "name"),
    [
        ("/api/tables/T%001", {}, "table_id"),
        ("/api/tables/T%001/hands", {}, "table_id"),
        ("/api/tables/T%001/hands/1", {}, "table_id"),
        ("/api/tables/T%001/alerts", {}, "table_id"),
        ("/api/alerts/open", {"table_id": "T\x001"}, "table_id"),
        ("/api/hands-per-hour", {"table_id": "\x00"}, "table_id"),
        ("/api/pot-sizes", {"table_id": "\x00"}, "table_id"),
        ("/api/bonus-cards", {"table_id": "\x00"}, "table_id"),
        ("/api/supervisor-actions", {"table_id": "\x00"}, "table_id"),
        ("/api/surveillance", {"table_id": "\x00"}, "table_id"),
        ("/api/bookmarks", {"table_id": "\x00"}, "table_id"),
        ("/api/players/a%00b/sessions", {}, "player"),
    ],
)
def test_a_nul_byte_in_a_parameter_is_refused_by_name(empty_floor, path, params, name):
    answer = empty_floor.get(path, **params)
    assert answer.status_code == 422, answer.text
    body = answer.json()
    assert body["error"] == "invalid" and body["code"] == Declined.INVALID_FIELD
    assert name in body["reason"] and "NUL" in body["reason"]


CHROMIUM = Path("/usr/bin/chromium")


@pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's Chromium is not installed (apt-get install -y chromium)"
)
def test_the_page_marks_a_silent_table_and_its_stale_drill_down(dealt, dsn, tmp_path):
    from playwright.sync_api import expect, sync_playwright  # noqa: PLC0415

    ship(dsn, dealt.journal, "T2", upto=dealt.dealing_at)
    config = floor_config(tmp_path)
    config.write_text("[floor]\nsilent_after = 2\n" + config.read_text(), encoding="utf-8")
    service = start_floor(config, dsn)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=["--no-sandbox"]
            )
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            page.set_default_timeout(TIMEOUT * 1000)
            page.goto(f"{service.url}/#table=T2")
            page.get_by_label("Supervisor id").fill(SUPERVISOR["id"])
            page.get_by_label("PIN").fill(SUPERVISOR["pin"])
            page.get_by_role("button", name="Sign in").click()
            expect(page.locator("#detail-title")).to_contain_text("Table T2 (T2) · dealing")
            expect(page.locator("#seats td.cards").first).to_contain_text("[")  # hole cards
            card = page.locator('[data-table="T2"]')
            expect(card).to_have_class(re.compile(r"\bsilent\b"))  # nothing else changed
            expect(card).to_contain_text("SILENT: heard from")
            stale = page.locator("#detail-stale")
            expect(stale).to_be_visible()
            expect(stale).to_contain_text("STALE: not heard from since")
            expect(stale).to_contain_text("as the table was then, not now")
            browser.close()
    finally:
        assert service.stop() == 0, service.log.read_text(encoding="utf-8")
