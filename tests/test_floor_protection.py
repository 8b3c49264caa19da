"""Game protection on the floor (a real PostgreSQL): each table's registered decks are
kept, a tag in the live decks of two tables is flagged, a foreign card's alert reaches the
floor, and each table's status carries its tag checks and its deck's age."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest

from controller.config import DevicePort
from controller.floor import store
from controller.floor.migrate import migrate
from controller.intake import Intake
from controller.journal import Journal
from controller.journal.device_events import to_input
from controller.records import record_of
from controller.table import Configure, NewHand, Remedy, ResolveAlert, SitDown, TableSettings
from controller.table.settings import Protection
from drivers.protocol import DeviceKind
from drivers.session import LinkConfig
from firmware_sim.runner import PtyRunner
from firmware_sim.shoe import SimulatedShoe, tag_uid
from tests.device_inputs import card_read, deck_loaded
from tests.floor_kit import TIMEOUT, JournalWriter, floor_database
from tests.pit_kit import SUPERVISOR, floor_config, pit_database, start_floor
from tests.pit_kit import ship as pit_ship
from tests.test_floor_store import batches
from tests.waiting import async_wait_until

pytestmark = pytest.mark.slow  # PostgreSQL

CLOCK = 1_800_000_000_000


@pytest.fixture
def floor():
    with floor_database() as dsn, psycopg.connect(dsn, autocommit=True) as connection:
        migrate(connection)
        yield connection


def deck_tags(deck: int) -> list[str]:
    return [f"04{deck:02x}{card:02x}77aa10" for card in range(52)]


def table_journal(path: Path, tags: list[str], deck: int, hands: int) -> JournalWriter:
    """A table with tag checks and a deck of ``tags``, ``hands`` hands begun (each voided
    by a foreign card's remedy or its end; the last one left paused by a foreign card)."""
    writer = JournalWriter(path, CLOCK)
    checked = TableSettings(protection=Protection(tag_checks=True, deck_hands=500))
    writer.ok(Configure(at=0, settings=checked))
    for seat in (1, 2):
        writer.ok(SitDown(at=0, seat=seat, player=f"P{seat}", buy_in=500))
    writer.register(deck, tags)
    for _ in range(hands):
        writer.ok(NewHand(at=0))
        writer.ok(card_read(at=0, code=7, uid="04deadbeef"))  # a foreign card: paused
        if writer.table.hand_number < hands:
            alert = writer.table.alerts[-1].id
            writer.ok(replace_deck(alert))
            writer.register(deck, tags)
    return writer


def replace_deck(alert: int) -> ResolveAlert:
    return ResolveAlert(at=0, alert=alert, remedy=Remedy.REPLACE_DECK, who="S100", why="tags")


def ship(connection: psycopg.Connection, journal: Journal, table_id: str) -> None:
    for batch in batches(journal, 40, table_id):
        store.ingest(connection, batch)


def test_decks_are_kept_and_a_tag_in_two_live_decks_is_flagged(floor, tmp_path):
    first = deck_tags(1)
    second = deck_tags(2)
    second[10] = first[20]  # table 2's card 10 carries the tag of table 1's card 20
    one = table_journal(tmp_path / "t1.db", first, deck=1, hands=2)
    two = table_journal(tmp_path / "t2.db", second, deck=2, hands=1)
    ship(floor, one.journal, "T-01")
    ship(floor, two.journal, "T-02")

    shared = store.shared_tags(floor)
    assert [(s.uid, s.table_id, s.card, s.other_table_id, s.other_card) for s in shared] == [
        (first[20], "T-01", "7c", "T-02", "4h"),
        (first[20], "T-02", "4h", "T-01", "7c"),
    ]
    assert [s.table_id for s in store.shared_tags(floor, "T-02")] == ["T-02"]
    tables = {t.table_id: t for t in store.tables(floor)}
    assert (tables["T-01"].shared_tags, tables["T-02"].shared_tags) == (1, 1)

    decks = store.decks(floor, "T-01")
    assert [d.deck for d in decks] == [1, 1]  # registered again after the replacement
    assert decks[0].tags["2c"] == first[0] and len(decks[0].tags) == 52

    one_status = tables["T-01"]
    assert one_status.tag_checks is True and one_status.deck_hands == 1
    assert one_status.state == "paused" and one_status.alert_kind == "foreign_card"
    assert one_status.deck_since is not None
    assert one_status.deck_since > datetime.fromtimestamp(CLOCK / 1000, UTC)
    open_kinds = {(a.table_id, a.kind) for a in store.open_alerts(floor)}
    assert open_kinds == {("T-01", "foreign_card"), ("T-02", "foreign_card")}
    (alert,) = [a for a in store.open_alerts(floor, "T-01")]
    assert alert.kind == "foreign_card" and alert.blocking  # the tag: in the table's facts

    # table 2 loads another deck, without the shared tag: nothing is flagged any more
    two.ok(replace_deck(two.table.alerts[-1].id))
    two.register(3, deck_tags(3))
    for batch in batches(two.journal, 500, "T-02"):
        store.ingest(floor, batch)
    assert store.shared_tags(floor) == []
    assert {t.table_id: t.shared_tags for t in store.tables(floor)} == {"T-01": 0, "T-02": 0}
    one.close()
    two.close()


def test_a_table_without_registered_decks_shows_no_tag_checks_and_its_deck_age(floor, tmp_path):
    writer = JournalWriter(tmp_path / "t.db", CLOCK)
    for seat in (1, 2):
        writer.ok(SitDown(at=0, seat=seat, player=f"P{seat}", buy_in=500))
    writer.ok(deck_loaded(at=0, count=52))  # an old shoe, no tag checks (the default)
    writer.ok(NewHand(at=0))
    ship(floor, writer.journal, "T-09")
    (table,) = store.tables(floor)
    assert (table.tag_checks, table.deck_hands, table.shared_tags) == (False, 1, 0)
    assert table.deck_since == datetime.fromtimestamp((CLOCK + 3000) / 1000, UTC)
    assert store.decks(floor, "T-09") == []
    writer.close()


def test_the_pit_page_flags_a_shared_tag_and_shows_each_deck_s_age(tmp_path):
    from playwright.sync_api import expect, sync_playwright  # noqa: PLC0415

    first, second = deck_tags(1), deck_tags(2)
    second[10] = first[20]
    one = table_journal(tmp_path / "t1.db", first, deck=1, hands=1)
    two = table_journal(tmp_path / "t2.db", second, deck=2, hands=1)
    one.close()
    two.close()
    with pit_database() as dsn:
        pit_ship(dsn, tmp_path / "t1.db", "T-01")
        pit_ship(dsn, tmp_path / "t2.db", "T-02")
        service = start_floor(floor_config(tmp_path), dsn)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path="/usr/bin/chromium", args=["--no-sandbox"]
                )
                page = browser.new_page(viewport={"width": 1600, "height": 1000})
                page.set_default_timeout(TIMEOUT * 1000)
                page.goto(service.url)
                page.get_by_label("Supervisor id").fill(SUPERVISOR["id"])
                page.get_by_label("PIN").fill(SUPERVISOR["pin"])
                page.get_by_role("button", name="Sign in").click()
                card = page.locator('[data-table="T-01"]')
                expect(card.locator(".shared-tags")).to_have_text(
                    "1 tag of its deck in another table's deck"
                )
                expect(card.locator(".deck-line")).to_contain_text(
                    re.compile(r"deck: 1 hand, \d+ h \d\d min")
                )
                expect(card.locator(".deck-line")).not_to_contain_text("NO TAG CHECKS")
                card.click()
                expect(page.locator("#detail-shared")).to_contain_text(
                    f"{first[20]} (7c here, 4h at T-02)"
                )
                browser.close()
        finally:
            assert service.stop() == 0, service.log.read_text(encoding="utf-8")


def test_an_older_shoe_s_decks_reach_the_floor_as_sets_in_tag_order(floor, tmp_path):
    """A shoe that registers each deck in the order it will deal it, through the drivers,
    the intake and the journal to the floor: the floor's copy of every registration is in
    tag order exactly (the sorted set of the cards then dealt), and its decks are kept by
    card."""
    shoe = SimulatedShoe(seed=31, heartbeat_ms=100, retransmit_timeout=0.2, registers_in="load")
    runner = PtyRunner(shoe)
    link = LinkConfig(resend_holdoff=0.01, reset_interval=0.1, handshake_timeout=5.0)
    journal = Journal.open(tmp_path / "table.db")
    checked = TableSettings(protection=Protection(tag_checks=True))
    journal.append([record_of(Configure(at=CLOCK, settings=checked))])
    dealt: list[list[str]] = []

    async def write(batch):
        journal.append([to_input(a.event, a.source, CLOCK / 1000) for a in batch])

    async def never_absent(error, retry):
        raise error

    async def scenario():
        async with runner:
            intake = Intake(DeviceKind.SHOE, DevicePort(runner.path, link=link))
            stopping = asyncio.Event()
            task = asyncio.create_task(intake.run(write, never_absent, stopping))
            await async_wait_until(
                lambda: intake.driver is not None and intake.driver.link_up, "the link up", 20
            )
            for seed in range(4):
                runner.act(lambda s, seed=seed: s.load(decks=1, shuffle_seed=seed, deck_id=5))
                draws = [runner.act(lambda s: s.draw()) for _ in range(12)]
                dealt.append([draw.message.uid.hex() for draw in draws])
                await async_wait_until(lambda: not shoe.pending, "nothing pending", 20)
            stopping.set()
            await intake.driver.close()
            await asyncio.wait_for(task, 10)

    asyncio.run(scenario())
    ship(floor, journal, "T-09")
    journal.close()
    rows = floor.execute(
        "SELECT fields FROM floor_journal_entries WHERE table_id = 'T-09' AND type = 'DeckCard' "
        "ORDER BY position"
    ).fetchall()
    registered = [row[0] for row in rows]
    tags = sorted(tag_uid(5, code).hex() for code in range(52))
    assert len(registered) == 4 * 52
    for deck, deal in enumerate(dealt):
        cards = registered[deck * 52 : (deck + 1) * 52]
        assert [c["uid"] for c in cards] == tags and [c["index"] for c in cards] == list(range(52))
        assert deal != tags[:12] and set(deal) <= set(tags)
    decks = store.decks(floor, "T-09")
    assert len(decks) == 4 and {d.tags["2c"] for d in decks} == {tag_uid(5, 0).hex()}
