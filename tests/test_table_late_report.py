"""The seat board reports a hand's last card after the hand is over."""

from __future__ import annotations

from controller.table import (
    AlertKind,
    LinkUp,
    NewHand,
    SitDown,
    Table,
    TableInput,
    TableSettings,
    apply,
)
from drivers.protocol import DeviceKind
from tests.device_inputs import card_at_seat, card_read, deck_loaded


def take(table: Table, item: TableInput) -> Table:
    step = apply(table, item)
    assert step.refused is None, step.refused
    return step.table


def play_all_in_hand() -> tuple[Table, int, int]:
    """Two players all in on their antes: the hand ends as the last card is read, before
    the seat board reports it. The table after that report, the last card and its seat."""
    table = Table(TableSettings(min_buy_in=1))
    for device in DeviceKind:
        table = take(table, LinkUp(at=1, device=device))
    for seat in (2, 5):
        table = take(table, SitDown(at=2, seat=seat, player=f"P{seat}", buy_in=1))
    table = take(table, deck_loaded(at=3, count=52))
    table = take(table, NewHand(at=4))
    deck = iter(range(51, -1, -1))
    last = seat = 0
    while table.in_hand:
        assert table.hand is not None and table.hand.waiting_for is not None
        waiting = table.hand.waiting_for
        assert waiting.kind == "card"  # nobody has chips left to bet
        last, seat = next(deck), waiting.seat or 0
        table = take(table, card_read(at=5, code=last))
        if seat:
            table = take(table, card_at_seat(at=6, seat=seat, code=last))
    return table, last, seat


def test_the_last_card_reported_at_its_seat_after_the_hand_changes_nothing() -> None:
    table, _, seat = play_all_in_hand()
    assert seat and not table.in_hand
    assert table.alerts == ()


def test_the_last_card_reported_at_another_seat_is_a_card_at_an_empty_seat() -> None:
    table, last, seat = play_all_in_hand()
    other = 8 if seat != 8 else 1
    step = apply(table, card_at_seat(at=7, seat=other, code=last))
    assert [alert.kind for alert in step.table.alerts] == [AlertKind.CARD_AT_EMPTY_SEAT]
    assert step.table.alerts[0].belongs == seat
    moved = apply(step.table, card_at_seat(at=8, seat=seat, code=last))
    assert moved.table.alerts == ()
