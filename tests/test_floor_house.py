"""The house's figures on the floor (PostgreSQL): the rake and the jackpot drop per hand, per
table per hour and per gaming day, per dealer (the dealer named on each hand, and the
dealer's time), and the player card numbers with the cash buy-ins over the house's
threshold (docs/floor.md "The house's figures")."""

from __future__ import annotations

import dataclasses
import random
from collections import defaultdict
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import psycopg
import pytest

from controller.floor import store
from controller.floor.ingest import DEALER_BREAK
from controller.floor.migrate import migrate
from controller.floor.retention import partitions, retire
from controller.history.hands import RecordedHand, recorded_hands
from controller.journal import Journal
from controller.rules import Rules
from controller.table import Configure, Leave, NewHand, Rebuy, SitDown
from tests.device_inputs import deck_loaded
from tests.floor_kit import JournalWriter, floor_database
from tests.pit_kit import SUPERVISOR, TIMEOUT, floor_config, pit_database, start_floor
from tests.pit_kit import ship as ship_to
from tests.test_floor_store import assert_hourly_totals_are_the_hands, batches

pytestmark = pytest.mark.slow  # PostgreSQL

HOUSE = Rules(rake_percent=10, rake_cap=4, jackpot_drop=1, jackpot_drop_at=40)
BREAK = timedelta(minutes=int(DEALER_BREAK.split("'")[1].split()[0]))
ZONE = "America/New_York"
#: 07:55 UTC: the break before the third hand takes the hands into the next hour.
START = 1_800_000_000_000 - 5 * 60 * 1000


@pytest.fixture
def floor():
    with floor_database() as dsn, psycopg.connect(dsn, autocommit=True) as connection:
        migrate(connection)
        yield connection


def write_house_journal(path: Path, start: int = START) -> dict[int, str | None]:
    """A raked table: three players (two with a player card), hands dealt by D1, D1, D1
    (after a break longer than the dealer's), D2, D2, then one not named; a rebuy and a
    cash-out. The dealer of each hand, by number."""
    rng = random.Random(7)
    writer = JournalWriter(path, clock=start)
    writer.ok(Configure(at=0, settings=dataclasses.replace(writer.table.settings, rules=HOUSE)))
    writer.ok(SitDown(at=0, seat=1, player="Ann", buy_in=600, player_id="PC-1001"))
    writer.ok(SitDown(at=0, seat=3, player="Bob", buy_in=400, player_id="PC-2002"))
    writer.ok(SitDown(at=0, seat=5, player="Cy", buy_in=900))
    dealers: dict[int, str | None] = {}
    for number, dealer in enumerate(("D1", "D1", "D1", "D2", "D2", None), start=1):
        if number == 3:
            writer.clock += int((BREAK + timedelta(minutes=1)).total_seconds() * 1000)
        deck = rng.sample(range(52), 52)
        writer.ok(deck_loaded(at=0, count=52))
        writer.ok(NewHand(at=0, dealer=dealer))
        writer.play_on(rng, deck)
        dealers[number] = dealer
        if number == 2:
            seat = writer.table.seat(3)
            assert seat is not None
            writer.ok(Rebuy(at=0, seat=3, chips=1000 - seat.stack))
    writer.ok(Leave(at=0, seat=1))
    writer.close()
    return dealers


def ship(connection: psycopg.Connection, path: Path) -> list[RecordedHand]:
    with Journal.open(path, create=False) as journal:
        for batch in batches(journal, 7):
            store.ingest(connection, batch)
        return list(recorded_hands(journal))


def dealt_seconds(hands: list[RecordedHand], dealers: dict[int, str | None]) -> dict[int, float]:
    """Each hand's dealer's time, from the definition: from the end of the hand before when
    the same dealer dealt it and it ended at most the break before this one started, else
    from this hand's start."""
    out: dict[int, float] = {}
    before: RecordedHand | None = None
    for hand in hands:
        assert hand.ended is not None
        since = hand.started
        if (
            before is not None
            and before.ended is not None
            and dealers[before.number] == dealers[hand.number]
            and hand.started - BREAK.total_seconds() * 1000 <= before.ended <= hand.started
        ):
            since = before.ended
        out[hand.number] = (hand.ended - since) / 1000
        before = hand
    return out


def test_each_hand_carries_its_take_and_dealer_and_the_totals_are_the_hands(floor, tmp_path):
    dealers = write_house_journal(tmp_path / "t.sqlite")
    hands = ship(floor, tmp_path / "t.sqlite")
    assert len(hands) == 6
    outcomes = {hand.number: hand.history_json()["outcome"] for hand in hands}
    rakes = {number: outcome["rake"] for number, outcome in outcomes.items()}
    drops = {number: outcome["jackpot_drop"] for number, outcome in outcomes.items()}
    assert sum(rakes.values()) > 0 and sum(drops.values()) > 0  # the house took some

    held = {hand.number: hand for hand in store.hands(floor, "T-01")}
    for number, outcome in outcomes.items():
        hand = held[number]
        assert (hand.rake, hand.jackpot_drop, hand.dealer) == (
            rakes[number],
            drops[number],
            dealers[number],
        )
        assert hand.pot == sum(pot["amount"] for pot in outcome["pots"])  # net of the take

    per_hour = store.hands_per_hour(floor, "T-01")
    assert sum(row.rake for row in per_hour) == sum(rakes.values())
    assert sum(row.jackpot_drop for row in per_hour) == sum(drops.values())
    assert_hourly_totals_are_the_hands(floor)
    assert_dealer_totals_are_the_hands(floor)

    day = datetime.fromtimestamp(hands[0].started / 1000, UTC).date()  # gaming day at 0 UTC
    figures = store.dealers(floor, store.GamingDay(0, "UTC"), day)
    seconds = dealt_seconds(hands, dealers)
    by_dealer: dict[str | None, list[int]] = defaultdict(list)
    for number, dealer in dealers.items():
        by_dealer[dealer].append(number)
    assert [(row.dealer, row.table_id) for row in figures] == [
        ("D1", "T-01"),
        ("D2", "T-01"),
        (None, "T-01"),
    ]
    for row in figures:
        numbers = by_dealer[row.dealer]
        assert row.gaming_day == day
        assert row.hands == len(numbers)
        assert row.rake == sum(rakes[n] for n in numbers)
        assert row.jackpot_drop == sum(drops[n] for n in numbers)
        assert row.seconds == pytest.approx(sum(seconds[n] for n in numbers))
        assert row.hands_per_hour == pytest.approx(row.hands * 3600 / row.seconds)
    # the break: D1's third hand counts from its own start, not from the hand before
    assert seconds[3] == (hands[2].ended - hands[2].started) / 1000  # type: ignore[operator]
    assert store.dealers(floor, store.GamingDay(0, "UTC"), day, dealer="D2") == [figures[1]]
    assert store.dealers(floor, store.GamingDay(0, "UTC"), day + timedelta(days=1)) == []


def test_gaming_days_begin_at_the_house_s_hour_in_its_zone(floor, tmp_path):
    write_house_journal(tmp_path / "t.sqlite")
    hands = ship(floor, tmp_path / "t.sqlite")
    zone = ZoneInfo(ZONE)
    # the house's day begins at the hour the fourth hand ended in (New York time): the
    # hands before it are the day before's
    ends = [datetime.fromtimestamp(h.ended / 1000, UTC) for h in hands]  # type: ignore[operator]
    boundary_hour = ends[3].astimezone(zone).replace(minute=0, second=0, microsecond=0)
    assert ends[0] < boundary_hour  # the first hands ended in the hour before
    gaming = store.GamingDay(boundary_hour.hour, ZONE)

    def gaming_day(at: datetime) -> date:
        hour = at.replace(minute=0, second=0, microsecond=0)
        return (hour.astimezone(zone) - timedelta(hours=gaming.starts)).date()

    expected: dict[date, list[RecordedHand]] = defaultdict(list)
    for hand, end in zip(hands, ends, strict=True):
        expected[gaming_day(end)].append(hand)
    assert len(expected) == 2
    first = min(expected)
    days = store.house_days(floor, gaming, first, first + timedelta(days=1), "T-01")
    assert [(row.gaming_day, row.hands) for row in days] == [
        (day, len(expected[day])) for day in sorted(expected)
    ]
    for row in days:
        hours = {h.ended // 3_600_000 for h in expected[row.gaming_day]}  # type: ignore[operator]
        assert row.hours == len(hours)
        assert row.rake_per_hour == pytest.approx(row.rake / row.hours)
        outcomes = [hand.history_json()["outcome"] for hand in expected[row.gaming_day]]
        assert row.rake == sum(outcome["rake"] for outcome in outcomes)
        assert row.jackpot_drop == sum(outcome["jackpot_drop"] for outcome in outcomes)
    assert store.house_days(floor, gaming, first + timedelta(days=2)) == []


def test_players_are_rated_and_cash_over_the_threshold_is_logged(floor, tmp_path):
    write_house_journal(tmp_path / "t.sqlite")
    hands = ship(floor, tmp_path / "t.sqlite")
    sessions = {s.player: s for s in store.player_sessions(floor, table_id="T-01")}
    assert {name: s.player_id for name, s in sessions.items()} == {
        "Ann": "PC-1001",
        "Bob": "PC-2002",
        "Cy": None,
    }
    ann, bob = sessions["Ann"], sessions["Bob"]
    assert ann.left_at is not None and ann.cashed_out is not None
    assert ann.seconds_seated == (ann.left_at - ann.sat_down_at).total_seconds()
    assert ann.hands == len(hands) and bob.hands == len(hands)
    # still seated: to the latest hand the floor holds of the table (its end)
    latest = max(h.ended_at or h.started_at for h in store.hands(floor, "T-01"))
    assert bob.left_at is None
    assert bob.seconds_seated == (latest - bob.sat_down_at).total_seconds()
    moves = store.chip_movements(floor, "T-01")
    assert {m.player_id for m in moves if m.player == "Bob"} == {"PC-2002"}  # the rebuy too
    assert [m.player_id for m in moves if m.kind == "cash_out"] == ["PC-1001"]

    day = bob.sat_down_at.date()
    utc = store.GamingDay(0, "UTC")
    bob_cash = bob.buy_in + bob.rebuys
    assert bob_cash > ann.buy_in  # Bob bought in more than Ann: the threshold between them
    (flag,) = store.cash_log(floor, utc, ann.buy_in, day)
    assert (flag.player_id, flag.gaming_day, flag.chips, flag.transactions, flag.tables) == (
        "PC-2002",
        day,
        bob_cash,
        2,
        ["T-01"],
    )
    assert [t.player_id for t in store.cash_log(floor, utc, 0, day)] == ["PC-2002", "PC-1001"]
    assert store.cash_log(floor, utc, bob_cash, day) == []  # over, not at, the threshold
    assert store.cash_log(floor, utc, 0, day + timedelta(days=1)) == []


def assert_dealer_totals_are_the_hands(connection: psycopg.Connection) -> None:
    """The dealers' hourly totals are the hands the floor holds, grouped."""
    kept = connection.execute(
        "SELECT dealer, table_id, hour, hands, void_hands, rake, jackpot_drop, time_charge, "
        "dealt FROM floor_dealer_hourly ORDER BY 1, 2, 3"
    ).fetchall()
    grouped = connection.execute(
        "SELECT coalesce(dealer, ''), table_id, date_trunc('hour', ended_at, 'UTC'), "
        "count(*)::integer, (count(*) FILTER (WHERE void))::integer, "
        "coalesce(sum(rake), 0)::bigint, coalesce(sum(jackpot_drop), 0)::bigint, "
        "coalesce(sum(time_charge), 0)::bigint, "
        "coalesce(sum(dealt), interval '0') FROM floor_hands WHERE ended_at IS NOT NULL "
        "GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
    ).fetchall()
    assert kept == grouped


def test_retiring_a_month_of_hands_takes_its_take_out_of_the_totals(floor, tmp_path):
    write_house_journal(tmp_path / "t.sqlite")
    ship(floor, tmp_path / "t.sqlite")
    assert floor.execute("SELECT sum(rake) FROM floor_hands_hourly").fetchone()[0] > 0
    for partition in partitions(floor):
        if partition.parent == "floor_hands":
            retire(floor, partition, None)
    assert floor.execute("SELECT count(*) FROM floor_hands").fetchone()[0] == 0
    assert floor.execute("SELECT count(*) FROM floor_hands_hourly").fetchone()[0] == 0
    assert floor.execute("SELECT count(*) FROM floor_dealer_hourly").fetchone()[0] == 0


CHROMIUM = Path("/usr/bin/chromium")


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's Chromium is not installed")
def test_the_pit_page_shows_the_rake_the_dealers_and_the_cash_flags(tmp_path):
    from playwright.sync_api import expect, sync_playwright  # noqa: PLC0415

    now = datetime.now(UTC)
    path = tmp_path / "t.sqlite"
    write_house_journal(path, start=int(now.timestamp() * 1000) - 20 * 60 * 1000)
    starts = (now.hour + 12) % 24  # the gaming day began hours ago and ends hours from now
    with pit_database() as dsn, Journal.open(path, create=False) as journal:
        ship_to(dsn, path, "H1")
        hands = list(recorded_hands(journal))
        config = floor_config(tmp_path)
        text = config.read_text(encoding="utf-8")
        settings = f"[floor]\ngaming_day_starts = {starts}\ncash_log_threshold = 500\n"
        config.write_text(settings + text, encoding="utf-8")
        service = start_floor(config, dsn)
        try:
            token = httpx.post(f"{service.url}/api/sessions", json=SUPERVISOR, timeout=TIMEOUT)
            headers = {"Authorization": f"Bearer {token.json()['token']}"}
            house = httpx.get(f"{service.url}/api/house", headers=headers, timeout=TIMEOUT)
            assert house.status_code == 200, house.text
            body = house.json()
            rake = sum(hand.history_json()["outcome"]["rake"] for hand in hands)
            (table,) = body["tables"]
            assert (table["table_id"], table["hands"], table["rake"]) == ("H1", 6, rake)
            assert [row["dealer"] for row in body["dealers"]] == ["D1", "D2", None]
            assert [flag["player_id"] for flag in body["cash_log"]] == ["PC-2002", "PC-1001"]
            bad = httpx.get(
                f"{service.url}/api/house", headers=headers, params={"day": "x"}, timeout=TIMEOUT
            )
            assert bad.status_code == 422

            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=str(CHROMIUM), args=["--no-sandbox"]
                )
                page = browser.new_page(viewport={"width": 1600, "height": 1000})
                page.set_default_timeout(TIMEOUT * 1000)
                page.goto(service.url)
                page.get_by_label("Supervisor id").fill(SUPERVISOR["id"])
                page.get_by_label("PIN").fill(SUPERVISOR["pin"])
                page.get_by_role("button", name="Sign in").click()
                expect(page.locator('[data-table="H1"] .house-line')).to_contain_text(
                    f"rake {rake} ("
                )
                expect(page.locator("#cash-log li")).to_have_count(2)
                expect(page.locator("#cash-log li").first).to_contain_text("player card PC-2002")
                expect(page.locator("#dealers li").first).to_contain_text("D1 at H1: 3 hands")
                expect(page.locator("#dealers li").first).to_contain_text("hands/h")
                browser.close()
        finally:
            assert service.stop() == 0, service.log.read_text(encoding="utf-8")


def test_time_charges_are_the_hands_and_the_days(floor, tmp_path):
    """At a table collecting time (no rake), each hand carries the charges collected as it
    began, and the hourly, daily and dealers' totals sum them."""
    rng = random.Random(3)
    writer = JournalWriter(tmp_path / "t.sqlite", clock=START)
    settings = dataclasses.replace(writer.table.settings, time_charge=5, time_period=30)
    writer.ok(Configure(at=0, settings=settings))
    for seat in (1, 2, 3):
        writer.ok(SitDown(at=0, seat=seat, player=f"P{seat}", buy_in=500))
    charged: dict[int, int] = {}
    for number in range(1, 5):
        if number == 3:
            writer.clock += 31 * 60 * 1000  # past the next half hour's boundary
        writer.ok(deck_loaded(at=0, count=52))
        before = writer.table.time_collected
        writer.ok(NewHand(at=0, dealer="D1"))
        charged[number] = writer.table.time_collected - before
        writer.play_on(rng, rng.sample(range(52), 52))
    writer.close()
    assert charged == {1: 15, 2: 0, 3: 15, 4: 0}
    ship(floor, tmp_path / "t.sqlite")
    held = {hand.number: hand for hand in store.hands(floor, "T-01")}
    assert {n: hand.time_charge for n, hand in held.items()} == {1: 15, 2: None, 3: 15, 4: None}
    assert all(hand.rake is None for hand in held.values())  # no rake set: none recorded
    assert sum(row.time_charge for row in store.hands_per_hour(floor, "T-01")) == 30
    day = datetime.fromtimestamp(START / 1000, UTC).date()
    utc = store.GamingDay(0, "UTC")
    (today,) = store.house_days(floor, utc, day, day)
    assert (today.time_charge, today.rake) == (30, 0)
    (dealer,) = store.dealers(floor, utc, day)
    assert (dealer.dealer, dealer.hands, dealer.time_charge) == ("D1", 4, 30)
    assert_hourly_totals_are_the_hands(floor)
    assert_dealer_totals_are_the_hands(floor)
