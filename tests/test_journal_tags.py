"""The tag UIDs and deck registrations in the journal: each device event is journaled as the
driver reported it, the records give the table its inputs with the UIDs and registrations,
and a journal of an earlier release (no seat UID, no registration) replays exactly."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from controller.history.hands import recorded_hands
from controller.journal import Input, Journal
from controller.journal.device_events import event_of, to_input
from controller.journal.snapshots import Snapshots
from controller.records import table_inputs
from controller.recovery import recover
from controller.sim.core_journal import CoreJournal
from controller.sim.dealer import Dealer, Tally
from controller.sim.floor import DECK_ID, CoreFloor
from controller.table import FromDevice, Table, TableSettings
from drivers import events as ev
from drivers.events import DeviceId
from drivers.protocol import DeviceKind
from tests.device_inputs import card_at_seat, card_read, deck_card, deck_loaded

pytestmark = pytest.mark.slow  # a core run and a service's journal

SHOE = DeviceId(DeviceKind.SHOE, "SHOE-1", 7)
BOARD = DeviceId(DeviceKind.SEAT_BOARD, "SEATS-1", 8)


def records(*events: ev.SequencedEvent) -> list[Input]:
    return [
        to_input(event, BOARD if isinstance(event, ev.CardAtSeat) else SHOE, 1.5)
        for event in events
    ]


def test_device_events_with_tags_are_journaled_as_reported_and_give_the_tables_inputs():
    uid = bytes.fromhex("04a1b2c3d4e5f6")
    made = records(
        ev.DeckCard(3, 0xC0FFEE, 0, 51, uid),
        ev.DeckLoaded(4, 0xC0FFEE, 52, 52, registered=True),
        ev.DeckLoaded(5, 9, 52, 52),
        ev.CardRead(6, 51, 0, uid),
        ev.CardAtSeat(7, 2, 51, uid),
        ev.CardAtSeat(8, 3, None),
    )
    assert made[0].fields == {"deck_id": 0xC0FFEE, "index": 0, "card": 51, "uid": uid.hex()}
    assert [item.to_json() for record in made for item in table_inputs(record)] == [
        item.to_json()
        for item in (
            deck_card(at=1500, deck=0xC0FFEE, code=51, uid=uid.hex(), seq=3),
            deck_loaded(at=1500, count=52, deck=0xC0FFEE, seq=4),
            deck_loaded(at=1500, count=52, seq=5),  # not registered: a shoe of version 1
            card_read(at=1500, code=51, uid=uid.hex(), seq=6),
            card_at_seat(at=1500, seat=2, code=51, uid=uid.hex(), seq=7),
            card_at_seat(at=1500, seat=3, code=None, seq=8),
        )
    ]


def test_records_of_an_earlier_release_read_with_the_defaults(tmp_path: Path):
    """A DeckLoaded without ``registered`` and a CardAtSeat without ``uid``, as journals of
    an earlier release hold them, read back as events and as table inputs."""
    deck = {"deck_id": 4, "cards_loaded": 52, "cards_remaining": 52}
    with Journal.open(tmp_path / "old.sqlite3") as journal:
        journal.append(
            [
                Input(1.0, "device", "DeckLoaded", deck, SHOE, 1),
                Input(2.0, "device", "CardAtSeat", {"seat": 2, "card": 12}, BOARD, 1),
            ]
        )
        loaded, seat = list(journal.entries())
    assert event_of(loaded) == ev.DeckLoaded(1, 4, 52, 52, registered=False)
    assert event_of(seat) == ev.CardAtSeat(1, 2, 12, b"")
    assert table_inputs(loaded) == (
        FromDevice(at=1000, device=DeviceKind.SHOE, seq=1, event=event_of(loaded)),
    )
    assert table_inputs(loaded)[0].to_json() == deck_loaded(at=1000, count=52, seq=1).to_json()
    assert table_inputs(seat) == (card_at_seat(at=2000, seat=2, code=12, seq=1),)


def run(path: Path, *, registers: bool, hands: int = 3) -> tuple[Table, list[dict[str, Any]]]:
    """A core run journaled at ``path``: its last table and each hand as it ended."""
    ended: list[dict[str, Any]] = []
    tally = Tally()

    def observe(table: Table, effects: Any) -> None:
        tally.observe(table, effects)
        if any(getattr(e, "kind", None) == "hand_over" for e in effects):
            assert table.hand is not None
            ended.append(table.hand.to_json())

    journal = CoreJournal(path)
    floor = CoreFloor(
        TableSettings(), observe, start=1_700_000_000_000, journal=journal, registers=registers
    )
    try:
        asyncio.run(Dealer(floor, tally, seats=5, hands=hands, seed=4).run())
    finally:
        journal.close()
    return floor.table, ended


def replayed(path: Path) -> tuple[Table, list[dict[str, Any]]]:
    with Journal.open_read_only(path) as journal:
        snapshots = Snapshots(path, durable=False)
        try:
            table = recover(journal, snapshots).table
        finally:
            snapshots.close()
        hands = [hand.hand.to_json() for hand in recorded_hands(journal) if hand.hand]
    return table, hands


def test_a_journal_of_an_earlier_release_replays_exactly(tmp_path: Path):
    """A table whose shoe registers nothing, journaled; then its records made as an earlier
    release wrote them (no ``registered``, no seat ``uid``, no chain, no snapshot): it
    recovers to the same table and replays to the same hands."""
    path = tmp_path / "journal.sqlite3"
    table, hands = run(path, registers=False)
    with sqlite3.connect(path) as db:
        (guard,) = db.execute(
            "SELECT sql FROM sqlite_master WHERE name = 'inputs_no_update'"
        ).fetchone()
        db.execute("DROP TRIGGER inputs_no_update")  # the test rewrites history; no one else
        rows = db.execute("SELECT position, type, fields FROM inputs WHERE source = 'device'")
        for position, kind, text in rows.fetchall():
            fields = json.loads(text)
            assert kind != "DeckCard"
            if kind in ("DeckLoaded", "CardAtSeat"):
                fields.pop("registered" if kind == "DeckLoaded" else "uid")
                db.execute(
                    "UPDATE inputs SET fields = ? WHERE position = ?",
                    (json.dumps(fields), position),
                )
        db.execute("UPDATE inputs SET chain = NULL")
        db.execute(guard)
        db.execute("DELETE FROM table_snapshots")
        db.execute("DROP TABLE hand_index")
    assert replayed(path) == (table, hands)
    assert len(hands) == 3


def test_a_core_run_registers_its_deck_and_replays_with_its_tags(tmp_path: Path):
    path = tmp_path / "journal.sqlite3"
    table, hands = run(path, registers=True, hands=2)
    with Journal.open_read_only(path) as journal:
        entries = list(journal.entries())
    registered = [e for e in entries if e.type == "DeckCard"]
    assert len(registered) >= 52 * 2 and {e.fields["deck_id"] for e in registered} == {DECK_ID}
    assert len({e.fields["uid"] for e in registered}) == 52  # the same deck each hand
    dealt = {e.fields["uid"] for e in entries if e.type == "CardRead"}
    seen = {e.fields["uid"] for e in entries if e.type == "CardAtSeat"}
    assert seen <= dealt <= {e.fields["uid"] for e in registered} and "" not in dealt
    assert replayed(path) == (table, hands)


def test_the_journal_holds_each_registration_in_tag_order_never_the_deal_s(tmp_path: Path):
    """Every deck the simulated table registered is in the journal in tag order exactly
    (the deck as a set: the same whatever its shuffle), while the cards came out of the
    shoe in each shuffle's own order."""
    path = tmp_path / "journal.sqlite3"
    run(path, registers=True, hands=30)
    with Journal.open_read_only(path) as journal:
        entries = [e for e in journal.entries() if e.source == "device"]
    tags = sorted({e.fields["uid"] for e in entries if e.type == "DeckCard"})  # the deck's 52
    loads = [i for i, e in enumerate(entries) if e.type == "DeckLoaded"]
    assert len(loads) >= 30
    deals = []
    for load in loads:
        registered = entries[load - 52 : load]
        assert [e.type for e in registered] == ["DeckCard"] * 52
        assert [e.fields["uid"] for e in registered] == tags
        assert [e.fields["index"] for e in registered] == list(range(52))
        assert [e.seq for e in registered] == sorted(e.seq for e in registered)
        after = entries[load + 1 :]
        deals.append([e.fields["uid"] for e in after if e.type == "CardRead"][:12])
    assert all(len(deal) == 12 and deal != tags[:12] for deal in deals)
    assert len({tuple(deal) for deal in deals}) == len(deals)  # each deck shuffled anew
