"""Surveillance on a real floor (PostgreSQL) and its service: the query that feeds the
statistics (``store.seat_hands``) gives back the hands planted in the store, a dealer
feeding the 4c to one seat is flagged by ``GET /api/surveillance`` and on the pit page
(Chromium), and the protection alerts are bookmarks for the video (``GET /api/bookmarks``,
JSON and CSV) at the journal's time of the input that raised them."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import psycopg
import pytest

from controller.floor import store
from controller.floor.surveillance import SeatHand, charts
from tests.floor_kit import write_journal
from tests.pit_kit import (
    LUCK_TABLE,
    SUPERVISOR,
    TIMEOUT,
    FloorService,
    floor_config,
    pit_database,
    ship,
    start_floor,
)
from tests.surveillance_kit import Feeder, hands

pytestmark = pytest.mark.slow
PLANTED = 400  # hands planted after the journal's own
FEEDER = Feeder("dealer-x", "T1", 3, 0.3)  # the 4c fed to seat 3 often: flagged early
START = datetime(2027, 1, 15, 12, tzinfo=UTC)  # the planted hands' first start
CHROMIUM = Path("/usr/bin/chromium")


def _outcome(seats: list[SeatHand]) -> dict[str, object]:
    """An outcome as ``luck-table history --json`` gives it, for the planted seats."""

    def cards(hand: SeatHand) -> list[dict[str, object]]:
        # the fours face up first (the 4c among them), then the rest of the up cards,
        # then the bonus cards and the other down cards; the wilds counted among them
        up = ["4c"] * hand.fours_up + ["4d", "4h", "4s"][: max(0, hand.wilds - hand.fours_up)]
        up = (up + ["9s"] * hand.up_cards)[: hand.up_cards]
        wild_down = max(0, hand.wilds - sum(card[0] == "4" for card in up))
        down = ["4d"] * wild_down + ["Kd"] * (hand.cards - hand.up_cards - wild_down)
        out: list[dict[str, object]] = [{"card": c, "face": "up", "street": 3} for c in up]
        for n, card in enumerate(down):
            item: dict[str, object] = {"card": card, "face": "down", "street": 3}
            if n >= len(down) - hand.bonus_cards:
                item["bonus"] = True
            out.append(item)
        return out

    winners = [hand.seat for hand in seats if hand.won]
    return {
        "status": "complete",
        "seats": {
            str(hand.seat): {"cards": cards(hand), "folded": False, "stack": 100} for hand in seats
        },
        "community": [],
        "burns": [],
        "pots": [
            {"amount": 10, "eligible": [h.seat for h in seats], "winners": winners, "shares": {}}
        ],
    }


class Planted:
    """Table T1 shipped from a journal, then ``PLANTED`` hands of 8 seats put in the store
    as the ingest would (hands, seat sessions, alerts), the feeder dealing them all."""

    def __init__(self, folder: Path, dsn: str) -> None:
        self.dsn = dsn
        ship(dsn, write_journal(folder / "t1.journal", hands=2), "T1")
        dealt = list(hands(seed=3, count=PLANTED, tables=("T1",), feeder=FEEDER))
        with psycopg.connect(dsn, autocommit=True) as connection:
            session, number, position = connection.execute(
                "SELECT t.session, max(h.number), max(h.end_position) FROM floor_tables t "
                "JOIN floor_hands h USING (table_id) WHERE table_id = 'T1' GROUP BY t.session"
            ).fetchone()
            self.first = number + 1
            base = position + 1_000
            connection.execute(  # the journal's players leave, the planted sit down
                "UPDATE floor_seat_sessions SET end_position = %s, left_at = %s, cashed_out = 0 "
                "WHERE table_id = 'T1' AND end_position IS NULL",
                (base, START),
            )
            for seat in range(1, 9):  # each seat's players: the kit's, every 500 hands
                connection.execute(
                    "INSERT INTO floor_seat_sessions (table_id, session, start_position, seat, "
                    "player, sat_down_at, buy_in, end_position, left_at, cashed_out) "
                    "VALUES ('T1', %s, %s, %s, %s, %s, 100, %s, %s, 0)",
                    (session, base + seat, seat, f"player-{seat % 12}", START, base + 10**6, START),
                )
            by_hand: dict[int, list[SeatHand]] = {}
            for hand in dealt:
                by_hand.setdefault(hand.number, []).append(
                    dataclasses.replace(
                        hand, number=hand.number + number, player=f"player-{hand.seat % 12}"
                    )
                )
            self.planted: list[SeatHand] = []
            self.bookmarked: list[tuple[int, int, str]] = []  # seat, ms, kind
            for n, dealt_seats in by_hand.items():
                at = START + timedelta(minutes=n)
                seats = dealt_seats
                number_here = seats[0].number
                start = base + 100 + 10 * n
                connection.execute(
                    "INSERT INTO floor_hands (table_id, session, number, started_at, ended_at, "
                    "seats, start_position, end_position, void, pot, bonus_cards, recorded, "
                    "script, outcome) VALUES ('T1', %s, %s, %s, %s, %s, %s, %s, false, 10, %s, "
                    "true, %s, %s)",
                    (
                        session,
                        number_here,
                        at,
                        at + timedelta(seconds=50),
                        [h.seat for h in seats],
                        start,
                        start + 9,
                        sum(h.bonus_cards for h in seats),
                        json.dumps({"rules": {"variant": "luck-of-the-irish"}}),
                        json.dumps(_outcome(seats)),
                    ),
                )
                if n % 50 == 0:  # an unverified read at seat 3 (a bookmark too)
                    raised = at + timedelta(seconds=12, milliseconds=345)
                    connection.execute(
                        "INSERT INTO floor_alerts (table_id, session, alert_id, kind, severity, "
                        "blocking, message, remedy, seat, hand_number, raised_at, "
                        "raised_position) VALUES ('T1', %s, %s, 'unverified_read', 'abnormal', "
                        "false, %s, 'call surveillance', 3, %s, %s, %s)",
                        (session, 10_000 + n, "=seat 3: no tag", number_here, raised, start + 5),
                    )
                    self.bookmarked.append((3, round(raised.timestamp() * 1000), "unverified_read"))
                    seats = [
                        dataclasses.replace(h, unverified_reads=1) if h.seat == 3 else h
                        for h in seats
                    ]
                self.planted.extend(seats)
        self.service: FloorService = start_floor(floor_config(folder), dsn)
        answer = httpx.post(f"{self.service.url}/api/sessions", json=SUPERVISOR, timeout=TIMEOUT)
        self.token = answer.json()["token"]

    def get(self, path: str, **params: object) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.token}"}
        return httpx.get(self.service.url + path, headers=headers, params=params, timeout=TIMEOUT)


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Planted]:
    with pit_database() as dsn:
        made = Planted(tmp_path_factory.mktemp("surveillance"), dsn)
        try:
            yield made
        finally:
            assert made.service.stop() == 0


def test_the_query_gives_back_the_hands_planted(planted: Planted) -> None:
    with psycopg.connect(planted.dsn) as connection:
        read = store.seat_hands(connection, "T1")
    planted_read = [hand for hand in read if hand.number >= planted.first]
    assert planted_read == [dataclasses.replace(h, dealer=None) for h in planted.planted]
    journal_hands = [hand for hand in read if hand.number < planted.first]
    assert journal_hands and {hand.players for hand in journal_hands} == {3}
    assert {hand.player for hand in journal_hands} <= {"P1", "P2", "P4"}
    with psycopg.connect(planted.dsn) as connection:
        window = store.seat_hands(connection, since=START, until=START + timedelta(minutes=11))
        assert {hand.number - planted.first + 1 for hand in window} == set(range(1, 11))
        assert len(store.seat_hands(connection, limit=5)) == 5 * 8  # the latest 5 hands


def test_the_dealer_is_read_where_the_floor_holds_one(planted: Planted) -> None:
    with psycopg.connect(planted.dsn) as connection:
        connection.execute("ALTER TABLE floor_hands ADD COLUMN IF NOT EXISTS dealer text")
        connection.execute(
            "UPDATE floor_hands SET dealer = %s WHERE number >= %s", (FEEDER.dealer, planted.first)
        )
        read = store.seat_hands(connection, "T1")
        connection.rollback()  # the floor as it was, for the other tests
    assert {hand.dealer for hand in read if hand.number >= planted.first} == {FEEDER.dealer}
    flagged = {(c.grouping.value, c.unit, c.measure.value) for c in charts(read) if c.flagged}
    assert ("dealer_seat", "dealer-x@T1:3", "four_up") in flagged


def test_a_seat_two_stays_could_have_held_names_no_player(planted: Planted) -> None:
    """A stay moved to seat 5 later (the floor keeps only its new seat) overlaps the stay
    that was at seat 5: those hands name no player rather than perhaps the wrong one."""
    with psycopg.connect(planted.dsn) as connection:
        connection.execute(
            "INSERT INTO floor_seat_sessions (table_id, session, start_position, seat, "
            "player, sat_down_at, buy_in) SELECT table_id, session, start_position - 100, 5, "
            "'moved', sat_down_at, 100 FROM floor_seat_sessions WHERE player = 'player-5'"
        )
        read = store.seat_hands(connection, "T1")
        connection.rollback()
    planted_read = [hand for hand in read if hand.number >= planted.first]
    assert {hand.player for hand in planted_read if hand.seat == 5} == {None}
    assert {hand.player for hand in planted_read if hand.seat == 6} == {"player-6"}


def test_the_feeder_is_flagged_by_the_api(planted: Planted) -> None:
    answer = planted.get("/api/surveillance")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["hands"] == PLANTED + 2 and body["threshold"] == 20
    flagged = {(c["grouping"], c["unit"], c["measure"]): c for c in body["charts"] if c["flagged"]}
    assert ("seat", "T1:3", "four_up") in flagged
    reads = next(
        c
        for c in body["charts"]
        if (c["grouping"], c["unit"], c["measure"]) == ("seat", "T1:3", "unverified_reads")
    )
    assert reads["observed"] == PLANTED // 50 and reads["hands"] == PLANTED
    assert flagged["seat", "T1:3", "four_up"]["flagged_at"]["table_id"] == "T1"
    assert not [key for key in flagged if key[0] == "seat" and key[1] != "T1:3"]
    assert body["flagged"] == len(flagged)
    assert body["charts"][0]["flagged"]  # flagged first
    assert planted.get("/api/surveillance", hands=0).status_code == 422
    other = planted.get("/api/surveillance", table_id="T9").json()
    assert other["hands"] == 0 and other["charts"] == []


def test_the_bookmarks_are_the_protection_alerts_at_the_inputs_time(planted: Planted) -> None:
    answer = planted.get("/api/bookmarks")
    assert answer.status_code == 200, answer.text
    marks = answer.json()
    assert [(m["seat"], m["at"], m["kind"]) for m in marks] == planted.bookmarked
    first = marks[0]
    assert first["table_id"] == "T1" and first["table_name"] == "Table T1"
    assert first["time"] == datetime.fromtimestamp(first["at"] / 1000, UTC).isoformat(
        timespec="milliseconds"
    ).replace("+00:00", "Z")
    since = datetime.fromtimestamp(planted.bookmarked[2][1] / 1000, UTC)
    window = planted.get("/api/bookmarks", since=since.isoformat(), table_id="T1").json()
    assert [m["at"] for m in window] == [at for _, at, _ in planted.bookmarked[2:]]
    naive = since.replace(tzinfo=None).isoformat()  # no zone: UTC
    assert planted.get("/api/bookmarks", since=naive).json() == window
    every = planted.get("/api/bookmarks", every="true").json()
    assert len(every) > len(marks)  # the journal's own alerts (a card out of turn) too
    text = planted.get("/api/bookmarks", format="csv")
    assert text.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(text.text)))
    assert [(int(r["seat"]), int(r["at"]), r["kind"]) for r in rows] == planted.bookmarked
    assert rows[0]["message"] == "'=seat 3: no tag"  # never a spreadsheet formula
    assert text.text.endswith("\r\n")
    assert planted.get("/api/bookmarks", format="xml").status_code == 422
    assert httpx.get(planted.service.url + "/api/bookmarks", timeout=TIMEOUT).status_code == 401


@pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's Chromium is not installed (apt-get install -y chromium)"
)
def test_the_pit_page_flags_the_seat(planted: Planted, tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright  # noqa: PLC0415

    shots = Path(os.environ.get("LUCK_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        page.set_default_timeout(TIMEOUT * 1000)
        page.goto(planted.service.url)
        page.get_by_label("Supervisor id").fill(SUPERVISOR["id"])
        page.get_by_label("PIN").fill(SUPERVISOR["pin"])
        page.get_by_role("button", name="Sign in").click()
        expect(page.locator("#stats-flagged")).to_be_visible()
        expect(page.locator("#stats-flagged")).to_contain_text("flagged: call surveillance")
        flagged = page.locator("#stats tbody tr.flagged")
        expect(flagged.filter(has_text="seat T1:3").filter(has_text="4c face up")).to_have_count(1)
        expect(page.locator("#stats-facts")).to_contain_text(f"the last {PLANTED + 2} hands")
        page.screenshot(path=str(shots / "pit-statistics-1600x1000.png"), full_page=True)
        browser.close()


def test_the_command_line_gives_the_same_bookmarks(planted: Planted) -> None:
    def run(*options: str) -> subprocess.CompletedProcess[str]:
        command = [str(LUCK_TABLE), "floor-bookmarks", "--dsn", planted.dsn, *options]
        done = subprocess.run(command, capture_output=True, timeout=TIMEOUT, check=False)
        # bytes as written: the CSV's CRLF kept
        return subprocess.CompletedProcess(
            command, done.returncode, done.stdout.decode(), done.stderr.decode()
        )

    csv_out = run()  # CSV by default
    assert csv_out.returncode == 0, csv_out.stderr
    assert csv_out.stdout == planted.get("/api/bookmarks", format="csv").text
    since = datetime.fromtimestamp(planted.bookmarked[2][1] / 1000, UTC).isoformat()
    json_out = run("--format", "json", "--since", since, "--table", "T1")
    assert json_out.returncode == 0, json_out.stderr
    assert json.loads(json_out.stdout) == planted.get("/api/bookmarks", since=since).json()
    assert len(json.loads(run("--format", "json", "--every").stdout)) > len(planted.bookmarked)
    bad = run("--since", "yesterday")
    assert bad.returncode == 2 and "'yesterday': an ISO 8601 time" in bad.stderr
    gone = subprocess.run(
        [str(LUCK_TABLE), "floor-bookmarks", "--dsn", "host=127.0.0.1 port=1 dbname=floor"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert gone.returncode == 1 and "floor-bookmarks: error:" in gone.stderr
