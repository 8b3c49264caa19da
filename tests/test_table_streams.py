"""Two devices, one table: the shoe's and the seat board's streams reconciled by their own
sequence numbers and the links' state (docs/table.md, "Two devices, one table").

Each test of a cable pull or a restart failed on the table that took the two devices as one
ordered stream: the seat board's reports that came first became ``card_not_dealt``, the
shoe's backlog then ``card_out_of_turn``; a card drawn while the seat board was away was
out of turn."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.journal import Input, event_of, to_input
from controller.journal.store import Entry
from controller.records import table_inputs
from controller.rules import parse_card
from controller.table import (
    AlertKind,
    LinkDown,
    LinkUp,
    NewHand,
    Refuse,
    SitDown,
    Table,
    TableInput,
    TableSettings,
    Tick,
    VoidHand,
    apply,
)
from controller.table.streams import WAIT_MS, Stream, seq_after
from drivers import events as ev
from drivers.protocol import DeviceKind
from tests.device_inputs import card_at_seat, card_read, deck_loaded
from tests.hypothesis_profiles import examples
from tests.table_driver import code

# Third street for seats 2 and 5: down, down, up to each.
THIRD = ["As", "Ks", "Ad", "Kd", "2c", "9h"]
SEATS = [2, 5, 2, 5, 2, 5]


@dataclass
class Devices:
    """A table with both devices linked, their events numbered as the devices number them,
    and every input kept (for replay)."""

    table: Table
    clock: int = 1_700_000_000_000
    seqs: dict[DeviceKind, int] = field(default_factory=lambda: {d: 0 for d in DeviceKind})
    inputs: list[TableInput] = field(default_factory=list)
    effects: list[str] = field(default_factory=list)

    def feed(self, item: TableInput) -> None:
        step = apply(self.table, item)
        assert step.refused is None, step.refused
        self.inputs.append(item)
        self.table = step.table
        self.effects.extend(effect.kind for effect in step.effects)

    def later(self, ms: int = 100) -> int:
        self.clock += ms
        return self.clock

    def numbered(self, device: DeviceKind) -> int:
        seq = self.seqs[device]
        self.seqs[device] += 1
        return seq

    def up(self, device: DeviceKind, pending: int = 0) -> None:
        next_seq = self.seqs[device]
        self.feed(
            LinkUp(at=self.later(), device=device, boot=7, next_seq=next_seq, pending=pending)
        )

    def down(self, device: DeviceKind) -> None:
        self.feed(LinkDown(at=self.later(), device=device, reason="unplugged"))

    def read(self, card: str, seq: int | None = None) -> None:
        seq = self.numbered(DeviceKind.SHOE) if seq is None else seq
        self.feed(card_read(at=self.later(), code=code(card), seq=seq))

    def lands(self, seat: int, card: str | None, seq: int | None = None) -> None:
        seq = self.numbered(DeviceKind.SEAT_BOARD) if seq is None else seq
        self.feed(
            card_at_seat(
                at=self.later(), seat=seat, code=None if card is None else code(card), seq=seq
            )
        )

    def kinds(self) -> list[AlertKind]:
        return [alert.kind for alert in self.table.alerts]

    def replayed(self) -> str:
        table = Table(self.table.settings)
        for item in self.inputs:
            table = apply(table, item).table
        return json.dumps(table.to_json())


def dealing() -> Devices:
    """Both devices linked (nothing pending), seats 2 and 5 seated, a hand started."""
    devices = Devices(Table(TableSettings()))
    devices.up(DeviceKind.SHOE)
    devices.up(DeviceKind.SEAT_BOARD)
    for seat in (2, 5):
        devices.feed(SitDown(at=devices.later(), seat=seat, player=f"P{seat}", buy_in=200))
    devices.feed(deck_loaded(at=devices.later(), count=52, seq=devices.numbered(DeviceKind.SHOE)))
    devices.feed(NewHand(at=devices.later()))
    return devices


def dealt_and_confirmed(devices: Devices, cards: list[str], seats: list[int]) -> None:
    hand = devices.table.hand
    assert hand is not None
    for card, seat in zip(cards, seats, strict=True):
        assert any(d.card == parse_card(card) for d in hand.player(seat).cards), (card, seat)
    assert devices.table.unconfirmed == ()
    assert devices.table.streams.waiting == ()


def test_the_shoes_cable_out_for_3_s_while_the_dealer_deals_two_cards():
    devices = dealing()
    devices.down(DeviceKind.SHOE)
    shoe_seqs = [devices.numbered(DeviceKind.SHOE) for _ in range(2)]  # the shoe keeps them
    devices.lands(2, "As")
    devices.lands(5, "Ks")
    assert devices.kinds() == [AlertKind.LINK_DOWN]  # nothing else: the reports wait
    assert devices.effects.count("waiting") == 2
    devices.clock += 3000
    devices.up(DeviceKind.SHOE, pending=2)
    assert len(devices.table.streams.waiting) == 2  # the backlog is not in yet
    for card, seq in zip(["As", "Ks"], shoe_seqs, strict=True):
        devices.read(card, seq)
    assert devices.kinds() == []
    dealt_and_confirmed(devices, ["As", "Ks"], [2, 5])
    assert devices.table.signals.display == "DEAL: seat 2, face down"
    assert devices.replayed() == json.dumps(devices.table.to_json())


def test_the_seat_boards_cable_out_while_a_card_is_drawn_in_order():
    devices = dealing()
    devices.down(DeviceKind.SEAT_BOARD)
    devices.read("As")  # in order: dealt, not out of turn
    assert devices.kinds() == [AlertKind.LINK_DOWN]
    assert not devices.table.paused
    assert devices.table.signals.display == "DEAL: seat 5, face down"
    seq = devices.numbered(DeviceKind.SEAT_BOARD)
    devices.seqs[DeviceKind.SEAT_BOARD] = seq + 1
    devices.up(DeviceKind.SEAT_BOARD, pending=1)
    devices.lands(2, "As", seq)  # its backlog: the card confirmed where it was dealt
    assert devices.kinds() == []
    dealt_and_confirmed(devices, ["As"], [2])


def test_the_next_hand_waits_for_the_seat_board():
    devices = dealing()
    devices.down(DeviceKind.SEAT_BOARD)
    step = apply(devices.table, NewHand(at=devices.later()))
    assert step.refusal is not None and step.refusal.code is Refuse.HAND_IN_PROGRESS
    table = devices.table
    assert [a for a in table.alerts if a.kind is AlertKind.LINK_DOWN]
    # between hands (the hand voided: the refusal is what counts)
    devices.feed(VoidHand(at=devices.later(), who="S1", why="test"))
    devices.feed(deck_loaded(at=devices.later(), count=52, seq=devices.numbered(DeviceKind.SHOE)))
    step = apply(devices.table, NewHand(at=devices.later()))
    assert step.refusal is not None and step.refusal.code is Refuse.SEAT_BOARD_DOWN


def test_the_controller_restarts_while_the_dealer_deals_two_cards():
    devices = dealing()
    # the service is down: both links journaled as down at its start
    for device in DeviceKind:
        devices.feed(LinkDown(at=devices.later(), device=device, reason="the service restarted"))
    shoe_seqs = [devices.numbered(DeviceKind.SHOE) for _ in range(2)]
    board_seqs = [devices.numbered(DeviceKind.SEAT_BOARD) for _ in range(2)]
    devices.up(DeviceKind.SEAT_BOARD, pending=2)  # the seat board connects first
    devices.lands(2, "As", board_seqs[0])
    devices.lands(5, "Ks", board_seqs[1])
    assert devices.kinds() == [AlertKind.LINK_DOWN]  # the shoe's, only
    devices.up(DeviceKind.SHOE, pending=2)
    devices.read("As", shoe_seqs[0])
    devices.read("Ks", shoe_seqs[1])
    assert devices.kinds() == []
    dealt_and_confirmed(devices, ["As", "Ks"], [2, 5])


def test_a_restart_with_reports_waiting_decides_nothing_before_the_shoe_is_back():
    """The service dies with the seat board's reports in and the shoe's in flight; it comes
    back 8 s later and journals the links it lost, the seat board's first: that says
    nothing of the shoe (the soak found the reports decided there as cards not dealt)."""
    devices = dealing()
    shoe_seqs = [devices.numbered(DeviceKind.SHOE) for _ in range(2)]
    devices.lands(2, "As")
    devices.lands(5, "Ks")
    devices.clock += 8000
    for device in (DeviceKind.SEAT_BOARD, DeviceKind.SHOE):
        devices.feed(LinkDown(at=devices.later(), device=device, reason="the service restarted"))
    assert devices.kinds() == [AlertKind.LINK_DOWN] * 2
    devices.up(DeviceKind.SEAT_BOARD)
    devices.up(DeviceKind.SHOE, pending=2)
    for card, seq in zip(["As", "Ks"], shoe_seqs, strict=True):
        devices.read(card, seq)
    assert devices.kinds() == []
    dealt_and_confirmed(devices, ["As", "Ks"], [2, 5])


def test_a_shoe_report_spoilt_on_the_line_comes_after_the_seat_boards():
    devices = dealing()
    devices.lands(2, "As")  # the shoe's frame was corrupted: resent 500 ms later
    assert devices.kinds() == []
    devices.read("As")
    assert devices.kinds() == []
    dealt_and_confirmed(devices, ["As"], [2])


def test_a_card_the_shoe_did_not_deal_once_the_shoe_owes_nothing():
    devices = dealing()
    devices.lands(2, "7h")
    devices.feed(Tick(at=devices.later(WAIT_MS - 200)))
    assert devices.kinds() == []  # not yet: a frame may come again
    devices.feed(Tick(at=devices.later(300)))
    (alert,) = devices.table.alerts
    assert alert.kind is AlertKind.CARD_NOT_DEALT and alert.card == parse_card("7h")
    assert devices.table.streams.waiting == ()


def test_a_card_the_shoe_did_not_deal_waits_while_the_shoes_backlog_is_out():
    devices = dealing()
    devices.down(DeviceKind.SHOE)
    devices.lands(2, "7h")
    devices.feed(Tick(at=devices.later(10 * WAIT_MS)))
    assert devices.kinds() == [AlertKind.LINK_DOWN]  # the shoe may still have it
    devices.up(DeviceKind.SHOE)  # nothing pending: it did not deal it
    assert devices.kinds() == [AlertKind.CARD_NOT_DEALT]


def test_a_misplaced_card_reported_first_is_told_where_it_belongs():
    devices = dealing()
    devices.lands(5, "As")  # the card for seat 2 lands at seat 5, before the shoe's report
    assert devices.kinds() == []
    devices.read("As")
    (alert,) = devices.table.alerts
    assert alert.kind is AlertKind.MISPLACED_CARD and alert.belongs == 2 and alert.seat == 5
    assert "move it to seat 2" in alert.remedy
    devices.lands(2, "As")
    assert devices.kinds() == []


def test_an_unknown_card_reported_first_is_the_seats_oldest_card():
    devices = dealing()
    devices.lands(2, None)  # the seat's reader did not know it; the shoe's report follows
    devices.read("As")
    assert devices.kinds() == []
    dealt_and_confirmed(devices, ["As"], [2])


def test_a_new_hand_waits_for_a_waiting_report():
    devices = dealing()
    devices.feed(VoidHand(at=devices.later(), who="S1", why="test"))
    devices.feed(deck_loaded(at=devices.later(), count=52, seq=devices.numbered(DeviceKind.SHOE)))
    devices.lands(2, "7h")
    step = apply(devices.table, NewHand(at=devices.later()))
    assert step.refusal is not None and step.refusal.code is Refuse.REPORT_WAITS


def test_streams_round_trip_and_a_table_saved_before_them_reads_back():
    devices = dealing()
    devices.down(DeviceKind.SHOE)
    devices.lands(2, "As")
    text = json.dumps(devices.table.to_json())
    assert json.dumps(Table.from_json(json.loads(text)).to_json()) == text
    old = json.loads(text)
    del old["streams"]
    assert Table.from_json(old).streams.waiting == ()


def test_a_stream_completes_at_the_event_its_device_announced():
    stream = Stream().linked(boot=1, next_seq=10, pending=3)
    assert not stream.complete and stream.seq == 6
    assert not stream.saw(8).complete and stream.saw(9).complete
    # the same boot again: what the table already has counts (the journal dropped it again)
    assert stream.saw(9).linked(boot=1, next_seq=10, pending=3).complete
    # a new boot numbers afresh
    assert not stream.saw(9).linked(boot=2, next_seq=2, pending=1).complete
    assert Stream().linked(boot=1, next_seq=0, pending=0).complete
    wrap = Stream().linked(boot=1, next_seq=1, pending=2)  # 65535, 0
    assert not wrap.saw(65535).complete and wrap.saw(65535).saw(0).complete
    assert seq_after(0, 65535) and not seq_after(65535, 0)
    assert Stream(boot=1).linked(boot=1, next_seq=None, pending=None).complete  # not known


# Every order the links allow ------------------------------------------------------------


@st.composite
def deliveries(draw: st.DrawFn) -> list[tuple[str, int]]:
    """The shoe's and the seat board's events of third street at two seats, each device's
    in its own order, interleaved any way; either device's cable may be out for a while
    (its events held and resent after its HELLO). Items: (device, index) or a link event."""
    streams: dict[str, list[tuple[str, int]]] = {}
    for device in ("shoe", "board"):
        events: list[tuple[str, int]] = [(device, i) for i in range(len(THIRD))]
        if draw(st.booleans()):  # out from event ``start``; ``held`` events wait in the device
            start = draw(st.integers(0, len(THIRD) - 1))
            held = draw(st.integers(0, len(THIRD) - start))
            events[start:start] = [(f"{device}-down", start), (f"{device}-up", start + held)]
        streams[device] = events
    merged: list[tuple[str, int]] = []
    shoe, board = streams["shoe"], streams["board"]
    while shoe or board:
        take_shoe = bool(shoe) and (not board or draw(st.booleans()))
        merged.append((shoe if take_shoe else board).pop(0))
    return merged


def _deal(order: list[tuple[str, int]]) -> Devices:
    devices = dealing()
    base = {device: devices.seqs[device] for device in DeviceKind}
    names = {"shoe": DeviceKind.SHOE, "board": DeviceKind.SEAT_BOARD}
    for what, index in order:
        name, _, link = what.partition("-")
        device = names[name]
        at = devices.later(50)
        if link == "down":
            devices.feed(LinkDown(at=at, device=device, reason="unplugged"))
        elif link == "up":  # the device numbered events up to index - 1 and holds them
            next_seq = base[device] + index
            done = _delivered(devices, device, base[device])
            pending = next_seq - done
            devices.feed(LinkUp(at=at, device=device, boot=7, next_seq=next_seq, pending=pending))
        elif device is DeviceKind.SHOE:
            devices.feed(card_read(at=at, code=code(THIRD[index]), seq=base[device] + index))
        else:
            card = code(THIRD[index])
            devices.feed(
                card_at_seat(at=at, seat=SEATS[index], code=card, seq=base[device] + index)
            )
    devices.feed(Tick(at=devices.later(10 * WAIT_MS)))
    return devices


def _delivered(devices: Devices, device: DeviceKind, base: int) -> int:
    """The next sequence number after the device's last event the table has."""
    stream = (
        devices.table.streams.shoe
        if device is DeviceKind.SHOE
        else devices.table.streams.seat_board
    )
    return base if stream.seq is None or stream.seq < base else stream.seq + 1


IDEAL = _deal([(device, i) for i in range(len(THIRD)) for device in ("shoe", "board")])


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deliveries())
def test_every_interleaving_the_links_allow_gives_the_same_table(order):
    devices = _deal(order)
    table = devices.table
    assert table.alerts == ()
    assert table.unconfirmed == () and table.streams.waiting == ()
    assert table.hand is not None and IDEAL.table.hand is not None
    assert json.dumps(table.hand.to_json()) == json.dumps(IDEAL.table.hand.to_json())
    assert table.signals == IDEAL.table.signals == table.signals
    assert devices.replayed() == json.dumps(table.to_json())


# Journals written before the devices' numbers were kept -----------------------------


def test_a_journal_without_the_hellos_numbers_replays_as_it_was_recorded():
    shoe = ev.DeviceInfo(DeviceKind.SHOE, "SHOE-1", 7, "/dev/x", (1, 0, 0), 1)
    written = to_input(ev.LinkUp(shoe, "HELLO"), None, 1.0)
    old_fields = {k: v for k, v in written.fields.items() if k not in ("next_seq", "pending")}
    old = Input(written.recorded_at, written.source, written.type, old_fields, written.device)
    entry = Entry(1, old.recorded_at, old.source, old.type, old.fields, old.device, None, None)
    assert event_of(entry) == ev.LinkUp(shoe, "HELLO")  # the new fields: not known
    (up,) = table_inputs(old)
    assert (up.boot, up.next_seq, up.pending) == (7, None, None)
    new = to_input(ev.LinkUp(shoe, "HELLO", next_seq=5, pending=2), None, 1.0)
    assert table_inputs(new)[0].next_seq == 5
    # and the table decides a seat report at once, as it did when the journal was written
    table = Table(TableSettings())
    for item in (
        up,
        LinkUp(at=2, device=DeviceKind.SEAT_BOARD),
        SitDown(at=3, seat=2, player="A", buy_in=200),
        SitDown(at=3, seat=5, player="B", buy_in=200),
        deck_loaded(at=4, count=52),
        NewHand(at=5),
        card_at_seat(at=6, seat=2, code=code("7h"), seq=3),
    ):
        table = apply(table, item).table
    assert [alert.kind for alert in table.alerts] == [AlertKind.CARD_NOT_DEALT]
    table = apply(table, LinkDown(at=7, device=DeviceKind.SEAT_BOARD)).table
    assert table.paused and table.blocks(table.alerts[-1])  # the seat board's: as recorded
