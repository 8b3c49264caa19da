"""The simulated table's floor on simulator processes and the table service: a pulled
cable is waited out like a dealer waits out the pause, so the cards drawn next are dealt."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from controller.journal import Journal
from controller.sim.dealer import Tally
from controller.sim.service_floor import service_floor
from controller.table import NewHand, SitDown, TableSettings
from drivers.protocol import DeviceKind

pytestmark = pytest.mark.slow  # the service and the floor store, hands dealt


async def pull_both_cables_then_draw(journal: Path, tally: Tally) -> None:
    async with service_floor(TableSettings(), journal, tally.observe, seed=1) as floor:
        for seat in (1, 2):
            await floor.sit(seat)
            assert (
                await floor.submit(SitDown(at=0, seat=seat, player=f"P{seat}", buy_in=200)) is None
            )
        await floor.load(list(range(52)))
        assert await floor.submit(NewHand(at=0)) is None
        # the shoe's cable, then at once the seat board's (out longer): the table is told of
        # neither before the dealer's next act
        await floor.unplug(DeviceKind.SHOE, 1.0)
        await floor.unplug(DeviceKind.SEAT_BOARD, 2.0)
        assert {DeviceKind.SHOE, DeviceKind.SEAT_BOARD} <= set(floor.table.links)
        card = await floor.draw(None)
        table = floor.table
        assert not table.alerts, [alert.message for alert in table.alerts]
        assert table.hand is not None
        assert card in [dealt.card for player in table.hand.players for dealt in player.cards]


def test_a_card_drawn_after_two_cables_were_pulled_is_dealt_not_out_of_turn(
    tmp_path: Path,
) -> None:
    tally = Tally()
    asyncio.run(pull_both_cables_then_draw(tmp_path / "table.sqlite", tally))
    assert tally.raised["link_down"] == 2  # the table saw each cable go and come back
    assert set(tally.raised) == {"link_down"}
    assert sum(tally.resolved["link_down"].values()) == 2


async def deal_one_card(journal: Path, tally: Tally) -> None:
    async with service_floor(TableSettings(), journal, tally.observe, seed=3) as floor:
        for seat in (1, 2):
            await floor.sit(seat)
            await floor.submit(SitDown(at=0, seat=seat, player=f"P{seat}", buy_in=200))
        await floor.load(list(range(52)))
        await floor.load(list(reversed(range(52))))  # the same deck again, shuffled
        assert await floor.submit(NewHand(at=0)) is None
        card = await floor.draw(None)
        await floor.place(1, card, 1)


def test_the_service_journals_the_registration_and_the_tags_read_at_the_shoe_and_seat(
    tmp_path: Path,
) -> None:
    """Through the simulators, their drivers and the service: each load registered card by
    card with the deck's tags in tag order (the same deck twice: the same tags, whatever its
    order), the card dealt and the
    card at its seat with the same tag."""
    path = tmp_path / "table.sqlite"
    asyncio.run(deal_one_card(path, Tally()))
    with Journal.open_read_only(path) as journal:
        entries = [entry for entry in journal.entries() if entry.source == "device"]
    registered = [e.fields for e in entries if e.type == "DeckCard"]
    first, second = registered[:52], registered[52:]
    assert [f["card"] for f in first] == list(range(52)) and len(second) == 52
    assert second == first  # loaded in reverse, registered as the same set in tag order
    assert {f["card"]: f["uid"] for f in first} == {f["card"]: f["uid"] for f in second}
    assert len({f["uid"] for f in first}) == 52 and {f["deck_id"] for f in registered} == {4}
    decks = [e.fields for e in entries if e.type == "DeckLoaded"]
    assert [(d["deck_id"], d["registered"]) for d in decks] == [(4, True), (4, True)]
    (read,) = [e.fields for e in entries if e.type == "CardRead"]
    (seen,) = [e.fields for e in entries if e.type == "CardAtSeat"]
    assert (seen["card"], seen["uid"]) == (read["card"], read["uid"]) and read["uid"]
