"""The sans-IO simulated shoe and seat board, driven by a small host through the codec."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from simhost import SimHost, pump

from drivers.protocol import (
    Ack,
    CardMessage,
    Deck,
    DeckCardMessage,
    DeviceKind,
    Disposition,
    Fault,
    FaultCleared,
    FaultCode,
    FrameDecoder,
    Hello,
    Indicator,
    Resend,
    Reset,
    SeatCard,
    SeatOccupied,
    Status,
    StatusRequest,
    Unreadable,
    encode_frame,
    from_dict,
)
from firmware_sim import (
    Cannot,
    DeviceError,
    FaultSettingError,
    SimulatedSeatBoard,
    SimulatedShoe,
)
from firmware_sim.control import Controller, QuitRequested, card_code, card_name
from firmware_sim.shoe import FOREIGN_DECK, tag_uid
from tests.protocol_vectors import VECTOR, VECTOR_V2, VECTORS


def frames_of(data: bytes) -> list:
    return FrameDecoder().feed(data)


def v1(message) -> bytes:
    """A host's frame to a version 1 device."""
    return encode_frame(0, message, 1)


def cannot(act: Callable[[], object]) -> Cannot:
    """Why the device refuses ``act`` (it must, changing nothing): the refusal's code."""
    with pytest.raises(DeviceError) as refused:
        act()
    return refused.value.code


def connected_shoe(**kw) -> tuple[SimulatedShoe, SimHost]:
    """A connected shoe; by default of protocol version 1 (a load is one DECK event), as the
    link works the same in both versions: the deck registration of version 2 is tested
    under "deck registration and cheats"."""
    kw.setdefault("protocol_version", 1)
    shoe = SimulatedShoe(seed=kw.pop("seed", 1), **kw)
    host = SimHost()
    shoe.connect(0.0)
    host.feed(shoe.transmit(0.0))
    return shoe, host


# --- the vectors --------------------------------------------------------------------------


def test_hello_is_the_golden_vector():
    hello = from_dict(VECTOR["hello-shoe"]["message"])
    shoe = SimulatedShoe(
        serial=hello.serial,
        firmware=hello.firmware,
        boot_id=hello.boot_id,
        heartbeat_ms=1000,
        protocol_version=1,
    )
    shoe.connect(0.0)
    assert shoe.transmit(0.0).hex() == "00" + VECTOR["hello-shoe"]["wire"]


def test_host_vectors_are_understood():
    shoe, host = connected_shoe()
    shoe.load(range(52), deck_id=1)
    for _ in range(3):
        shoe.draw()
    host.deaf = True
    pump(shoe, host, 0.0, lambda: len(host.events) == 4)
    assert shoe.pending == 4
    ack = bytes.fromhex(VECTOR["ack"]["wire"])  # ACK 0x0102: not sent yet, changes nothing
    shoe.receive(ack, 0.1)
    assert shoe.pending == 4
    shoe.receive(bytes.fromhex(VECTOR["indicator-bonus-seat-3"]["wire"]), 0.1)
    assert (shoe.bonus_lamp, shoe.seat_lamps) == (True, {3})
    status = frames_of(shoe.transmit(0.1))[-1].message
    assert isinstance(status, Status) and status.bonus_lamp and status.seat_lamps == {3}
    shoe.receive(bytes.fromhex(VECTOR["status-request"]["wire"]), 0.2)
    assert isinstance(frames_of(shoe.transmit(0.2))[0].message, Status)
    shoe.receive(bytes.fromhex(VECTOR["reset"]["wire"]), 0.3)
    assert not shoe.bonus_lamp
    assert [type(f.message) for f in frames_of(shoe.transmit(0.3))] == [
        Hello,
        Deck,
        CardMessage,
        CardMessage,
        CardMessage,
    ]
    errors = shoe.stats.receive_errors
    expected = sum("error" in e for bad in VECTORS["malformed"] for e in bad["expect"])
    for bad in VECTORS["malformed"]:
        shoe.receive(bytes.fromhex(bad["wire"]), 0.4)
    assert shoe.stats.receive_errors == errors + expected
    assert shoe.pending == 4


# --- ARQ ----------------------------------------------------------------------------------


def test_connect_sends_hello_then_events_are_delivered_in_order():
    shoe, host = connected_shoe()
    assert [h.device_kind for h in host.hellos] == [DeviceKind.SHOE]
    shoe.load(decks=1, shuffle_seed=99)
    order = shoe.upcoming()
    for _ in range(52):
        shoe.draw()
    pump(shoe, host, 0.0, lambda: shoe.pending == 0)
    assert [m.card for m in host.messages()[1:]] == order
    assert [m.read_counter for m in host.messages()[1:]] == list(range(52))
    assert sorted(order) == list(range(52))
    assert shoe.stats.retransmissions == 0


def test_unacknowledged_events_are_retransmitted_on_timeout():
    shoe, _ = connected_shoe(retransmit_timeout=0.25)
    shoe.load(range(52))
    assert [f.seq for f in frames_of(shoe.transmit(0.1))] == [0]  # lost: nobody answers
    assert shoe.transmit(0.3) == b""
    assert shoe.next_deadline() == pytest.approx(0.35)
    assert [f.seq for f in frames_of(shoe.transmit(0.35))] == [0]
    assert shoe.stats.retransmissions == 1
    shoe.receive(v1(Ack(0)), 0.4)
    assert shoe.pending == 0
    assert shoe.transmit(0.9) == b""  # acknowledged: no retransmission
    assert shoe.stats.retransmissions == 1


def test_resend_retransmits_from_the_asked_number_in_order():
    shoe, _ = connected_shoe()
    shoe.load(range(52))
    for _ in range(5):
        shoe.draw()
    assert len(frames_of(shoe.transmit(0.1))) == 6
    shoe.receive(v1(Ack(1)), 0.2)
    assert shoe.first_unacked == 2
    shoe.receive(v1(Resend(4)), 0.2)
    assert [f.seq for f in frames_of(shoe.transmit(0.2))] == [4, 5]
    shoe.receive(v1(Resend(0)), 0.2)  # already acknowledged: from the oldest
    assert [f.seq for f in frames_of(shoe.transmit(0.2))] == [2, 3, 4, 5]
    shoe.receive(v1(Resend(6)), 0.2)  # not sent yet: nothing
    assert shoe.transmit(0.2) == b""


def test_stale_and_future_acks_change_nothing():
    shoe, _ = connected_shoe(first_seq=100)
    shoe.load(range(52))
    shoe.draw()
    shoe.transmit(0.0)
    for seq in (99, 102, 40000):
        shoe.receive(v1(Ack(seq)), 0.1)
        assert shoe.pending == 2
    shoe.receive(v1(Ack(101)), 0.1)
    assert shoe.pending == 0


def test_sequence_numbers_wrap_and_the_host_follows():
    shoe, host = connected_shoe(first_seq=65533)
    shoe.load(range(52))
    for _ in range(6):
        shoe.draw()
    pump(shoe, host, 0.0, lambda: shoe.pending == 0)
    assert [seq for seq, _ in host.events] == [65533, 65534, 65535, 0, 1, 2, 3]
    assert [m.card for m in host.messages()[1:]] == list(range(6))


def test_heartbeat_when_idle_only():
    shoe, _ = connected_shoe(heartbeat_ms=200)
    assert shoe.next_deadline() == pytest.approx(0.2)
    assert isinstance(frames_of(shoe.transmit(0.2))[0].message, Status)
    shoe.load(range(52))
    assert [type(f.message) for f in frames_of(shoe.transmit(0.3))] == [Deck]
    assert shoe.stats.heartbeats == 1
    shoe.receive(v1(Ack(0)), 0.35)
    status = frames_of(shoe.transmit(0.5))[0].message
    assert status == Status(1, 0, frozenset(), False, frozenset(), frozenset(), 52)


def test_events_while_disconnected_are_kept_and_follow_hello():
    shoe, host = connected_shoe()
    shoe.load(range(52))
    pump(shoe, host, 0.0, lambda: shoe.pending == 0)
    shoe.disconnect()
    for _ in range(3):
        shoe.draw()
    assert shoe.transmit(5.0) == b""
    assert shoe.next_deadline() is None
    shoe.receive(v1(Ack(3)), 5.0)  # nothing heard while unplugged
    assert shoe.pending == 3
    shoe.connect(6.0)
    out = shoe.transmit(6.0)
    assert out.startswith(b"\x00")
    assert [type(f.message) for f in frames_of(out)] == [
        Hello,
        CardMessage,
        CardMessage,
        CardMessage,
    ]
    host.feed(out)
    pump(shoe, host, 6.0, lambda: shoe.pending == 0)
    assert [m.card for m in host.messages()[1:]] == [0, 1, 2]
    assert len(host.hellos) == 2


def test_unplug_reconnects_by_itself():
    shoe, host = connected_shoe()
    shoe.unplug(1.0, 2.5)
    shoe.load(range(52))
    assert not shoe.connected and shoe.next_deadline() == 3.5
    assert shoe.transmit(3.0) == b""
    pump(shoe, host, 3.5, lambda: shoe.pending == 0)
    assert shoe.connected and len(host.hellos) == 2
    assert host.messages() == [Deck(shoe.deck_id, 52, 52)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_nothing_lost_across_wire_faults_and_disconnects(seed):
    shoe, host = connected_shoe(seed=seed, retransmit_timeout=0.2)
    shoe.faults.update(corrupt_rate=0.01, drop_rate=0.02, duplicate_rate=0.02, delay=0.003)
    shoe.load(decks=8)
    order = shoe.upcoming()
    t = 0.0
    for i in range(len(order)):
        draw = shoe.draw()
        if i % 80 == 79:
            shoe.unplug(t, 1.0)
        t = pump(shoe, host, t + 0.001, lambda d=draw: host.messages()[-1:] == [d.message])
    pump(shoe, host, t, lambda: shoe.pending == 0)
    assert [m.card for m in host.messages()[1:]] == order
    assert host.errors and host.duplicates and shoe.stats.retransmissions
    assert shoe.stats.connections == 1 + len(order) // 80 and len(host.hellos) >= 2


def test_runs_are_reproducible_from_the_seed():
    def run() -> bytes:
        shoe = SimulatedShoe(seed=11)
        shoe.faults.update(corrupt_rate=0.05, drop_rate=0.1, duplicate_rate=0.1)
        shoe.connect(0.0)
        shoe.load(decks=2)
        out = bytearray(shoe.transmit(0.0))
        for i in range(104):
            shoe.draw(unreadable=i % 17 == 0)
            out += shoe.transmit(i * 0.01)
        return bytes(out)

    assert run() == run()


def test_delay_holds_frames_in_order():
    shoe, _ = connected_shoe()
    shoe.faults.delay = 0.05
    shoe.load(range(52))
    shoe.draw()
    assert shoe.transmit(1.0) == b""
    assert shoe.next_deadline() == pytest.approx(1.05)
    assert [f.seq for f in frames_of(shoe.transmit(1.05))] == [0, 1]


# --- lamps ---------------------------------------------------------------------------------


def test_indicator_lamps_answered_and_turned_off_when_the_host_falls_silent():
    shoe, _ = connected_shoe(heartbeat_ms=100)
    shoe.receive(v1(Indicator(True, {2, 5})), 1.0)
    status = frames_of(shoe.transmit(1.0))[0].message
    assert (status.bonus_lamp, status.seat_lamps) == (True, {2, 5})
    shoe.receive(v1(StatusRequest()), 1.25)
    shoe.transmit(1.3)
    assert shoe.bonus_lamp
    assert shoe.next_deadline() == pytest.approx(1.4)  # heartbeat; lamps off at 1.55
    shoe.transmit(1.5)
    assert shoe.bonus_lamp
    shoe.transmit(1.55)
    assert (shoe.bonus_lamp, shoe.seat_lamps) == (False, frozenset())


def test_reset_turns_lamps_off_and_resends_everything():
    shoe, _ = connected_shoe()
    shoe.load(range(52))
    shoe.receive(v1(Indicator(True, {1})), 0.0)
    shoe.transmit(0.0)
    shoe.receive(v1(Reset()), 0.1)
    frames = frames_of(shoe.transmit(0.1))
    assert [type(f.message) for f in frames] == [Hello, Deck]
    assert frames[0].message.pending == 1 and not shoe.bonus_lamp


# --- the shoe ------------------------------------------------------------------------------


def test_shoe_loading():
    shoe, _ = connected_shoe()
    assert shoe.load([51, 8, 8], deck_id=7) == Deck(7, 3, 3)
    assert shoe.upcoming() == [51, 8, 8]
    first = shoe.load(decks=6, shuffle_seed=5)
    assert first.cards_loaded == 312 and first.deck_id == 5
    assert sorted(shoe.upcoming()) == sorted(list(range(52)) * 6)
    again = SimulatedShoe(seed=1)
    again.load(decks=6, shuffle_seed=5)
    assert again.upcoming() == shoe.upcoming()
    for bad, reason in [
        ([52], r"0\.\.51"),
        ([], r"1\.\.65535"),
        (["As"], r"0\.\.51"),
    ]:
        with pytest.raises(DeviceError, match=reason) as refused:  # the words name the range
            shoe.load(bad)
        assert refused.value.code is Cannot.BAD_VALUE
    assert cannot(lambda: shoe.load(decks=0)) is Cannot.BAD_VALUE
    assert shoe.cards_remaining == 312 and shoe.pending == 2


def test_draw_reports_card_with_uid_or_unreadable():
    shoe, _ = connected_shoe()
    shoe.load([10, 11, 12, 13])
    first = shoe.draw()
    assert first.card == 10 and first.message.card == 10 and len(first.message.uid) == 7
    unread = shoe.draw(unreadable=True, disposition="dealt_unread")
    assert (unread.card, unread.message) == (11, Unreadable(1, Disposition.DEALT_UNREAD))
    assert (unread.tagged.code, unread.tagged.uid) == (11, tag_uid(shoe.deck_id, 11))
    shoe.unreadable_next()
    assert shoe.draw().message == Unreadable(2, Disposition.REJECT_TRAY)
    assert isinstance(shoe.draw().message, CardMessage)
    assert cannot(shoe.draw) is Cannot.EMPTY
    optical = SimulatedShoe(reader="optical")
    optical.load([3])
    assert optical.draw().message == CardMessage(3, 0, b"")


def test_unreadable_rate():
    shoe, _ = connected_shoe(seed=4)
    shoe.faults.unreadable_rate = 0.25
    shoe.load(decks=4)
    unread = sum(isinstance(shoe.draw().message, Unreadable) for _ in range(208))
    assert 30 < unread < 80


def test_jam_lid_and_reader_faults():
    shoe, host = connected_shoe()
    shoe.load(range(52))
    shoe.jam()
    assert cannot(shoe.draw) is Cannot.JAMMED
    assert cannot(shoe.jam) is Cannot.ALREADY_ACTIVE
    shoe.clear_jam()
    shoe.open_lid()
    assert cannot(shoe.draw) is Cannot.LID_OPEN
    shoe.close_lid()
    shoe.set_fault("reader", True)
    assert isinstance(shoe.draw().message, Unreadable)
    assert cannot(lambda: shoe.set_fault("sensor", True)) is Cannot.NO_SUCH_FAULT
    assert cannot(lambda: shoe.set_fault("smoke", True)) is Cannot.UNKNOWN_NAME
    assert shoe.cards_remaining == 51
    pump(shoe, host, 0.0, lambda: shoe.pending == 0)
    assert host.messages()[1:] == [
        Fault(FaultCode.JAM),
        FaultCleared(FaultCode.JAM),
        Fault(FaultCode.LID_OPEN),
        FaultCleared(FaultCode.LID_OPEN),
        Fault(FaultCode.READER),
        Unreadable(0, Disposition.REJECT_TRAY),
    ]
    assert host.statuses == [] or FaultCode.READER in host.statuses[-1].faults


def test_full_buffer_refuses_the_action_and_changes_nothing():
    shoe, _ = connected_shoe(buffer_size=3)
    shoe.load(range(52))
    shoe.draw()
    shoe.draw()
    assert cannot(shoe.draw) is Cannot.BUFFER_FULL
    assert cannot(shoe.jam) is Cannot.BUFFER_FULL
    assert shoe.cards_remaining == 50 and shoe.read_counter == 2
    assert FaultCode.JAM not in shoe.active_faults
    shoe.receive(v1(Ack(0)), 0.0)
    assert shoe.draw().card == 2


def test_fault_settings_are_checked():
    shoe = SimulatedShoe()
    with pytest.raises(FaultSettingError, match=r"0\.\.1"):
        shoe.faults.drop_rate = 1.5
    with pytest.raises(FaultSettingError, match="unknown fault setting"):
        shoe.faults.update(drop_rate=0.5, smoke=1)
    with pytest.raises(FaultSettingError, match="delay"):
        shoe.faults.update(drop_rate=0.5, delay=-1)
    assert shoe.faults.drop_rate == 0.0
    shoe.faults.update(drop_rate=1, delay=0.1)
    assert shoe.faults.settings()["drop_rate"] == 1.0


def test_other_protocol_version_for_testing_hosts():
    shoe = SimulatedShoe(protocol_version=3)
    shoe.connect(0.0)
    (error,) = FrameDecoder().feed(shoe.transmit(0.0))
    assert (error.code, error.version) == ("version", 3)
    old = SimulatedShoe(protocol_version=1)  # for a host of version 1: no registration
    old.connect(0.0)
    old.load(range(52))
    frames = FrameDecoder(versions=(1,)).feed(old.transmit(0.0))
    assert [type(f.message) for f in frames] == [Hello, Deck]


# --- deck registration and cheats ------------------------------------------------------------


def registered_shoe(**kw) -> tuple[SimulatedShoe, SimHost]:
    """A connected shoe of version 2 (it registers every deck it loads)."""
    shoe = SimulatedShoe(seed=kw.pop("seed", 1), **kw)
    host = SimHost()
    shoe.connect(0.0)
    host.feed(shoe.transmit(0.0))
    return shoe, host


def registration(shoe: SimulatedShoe, host: SimHost) -> tuple[list[DeckCardMessage], Deck]:
    """Deliver what the shoe sent: the registration of its last load, and its DECK."""
    pump(shoe, host, 0.0, lambda: shoe.pending == 0)
    messages = host.messages()
    last = max(i for i, m in enumerate(messages) if isinstance(m, Deck))
    first = last
    while first > 0 and isinstance(messages[first - 1], DeckCardMessage):
        first -= 1
    return messages[first:last], messages[last]


def draw_all(shoe: SimulatedShoe) -> list[CardMessage]:
    return [draw.message for draw in (shoe.draw() for _ in range(shoe.cards_remaining))]


def test_a_v2_shoe_registers_each_deck_card_by_card_in_tag_order_with_stable_tags():
    shoe, host = registered_shoe()
    shoe.load(decks=1, shuffle_seed=9, deck_id=77)
    order = shoe.upcoming()
    cards, deck = registration(shoe, host)
    assert deck == Deck(77, 52, 52)
    by_tag = sorted(order, key=lambda c: tag_uid(77, c))
    assert [(c.deck_id, c.index, c.card) for c in cards] == [
        (77, i, c) for i, c in enumerate(by_tag)
    ]
    assert [c.uid for c in cards] == sorted(tag_uid(77, c) for c in order)
    assert len({c.uid for c in cards}) == 52
    dealt = [m.uid for m in draw_all(shoe)]
    assert sorted(dealt) == [c.uid for c in cards]  # the deck registered, as a set
    assert dealt != [c.uid for c in cards]  # but not the order it is dealt in
    shoe.load(decks=1, shuffle_seed=10, deck_id=77)  # the same deck, shuffled anew
    again, _ = registration(shoe, host)
    assert {c.card: c.uid for c in again} == {c.card: c.uid for c in cards}
    shoe.load(decks=1, shuffle_seed=9, deck_id=78)  # another deck: none of its tags
    other, _ = registration(shoe, host)
    assert not {c.uid for c in other} & {c.uid for c in cards}


def test_registration_of_several_decks_and_of_an_optical_reader():
    shoe, host = registered_shoe()
    shoe.load(decks=2, shuffle_seed=3, deck_id=5)
    cards, deck = registration(shoe, host)
    assert (len(cards), deck.cards_loaded) == (104, 104)
    assert len({c.uid for c in cards}) == 104  # the two copies of a card: two tags
    optical, host = registered_shoe(reader="optical")
    optical.load(range(52), deck_id=6)
    cards, _ = registration(optical, host)
    assert [c.card for c in cards] == list(range(52)) and {c.uid for c in cards} == {b""}
    assert {m.uid for m in draw_all(optical)} == {b""}


def test_a_load_is_refused_whole_when_the_buffer_cannot_take_its_registration():
    shoe = SimulatedShoe(buffer_size=52)
    with pytest.raises(DeviceError, match="53 more needed") as refused:  # 52 cards, 1 load
        shoe.load(range(52))
    assert refused.value.code is Cannot.BUFFER_FULL
    assert (shoe.pending, shoe.cards_remaining) == (0, 0)
    shoe.load(range(51))
    assert shoe.pending == 52


def test_foreign_retagged_and_cloned_cards_are_registered_genuine_then_dealt():
    """The cheat is done after the shoe read the deck: its registration is the genuine deck,
    and only the card dealt at the cheat's place betrays it."""
    for cheat, at in [("foreign", 7), ("retagged", 0), ("cloned", 51)]:
        shoe, host = registered_shoe(seed=4)
        shoe.load(range(52), deck_id=12, cheat=cheat, at=at)
        assert shoe.cheat is not None and (shoe.cheat[0], shoe.cheat[1]) == (cheat, at)
        cards, _ = registration(shoe, host)
        assert [(c.card, c.uid) for c in cards] == [(code, tag_uid(12, code)) for code in range(52)]
        dealt = draw_all(shoe)
        genuine = [(c.card, c.uid) for c in cards]
        tampered = [i for i, m in enumerate(dealt) if (m.card, m.uid) != genuine[i]]
        assert tampered == [at], cheat
        card = dealt[at]
        registered = {c.uid: c.card for c in cards}
        if cheat == "foreign":
            assert card.uid == tag_uid(FOREIGN_DECK, at) and card.card == at
            assert card.uid not in registered
        elif cheat == "retagged":
            assert card.uid == tag_uid(12, 0) and card.card != registered[card.uid]
        else:
            assert card.uid in [m.uid for m in dealt[:at]]  # a tag already dealt


def test_a_clone_of_a_card_still_in_the_shoe_comes_out_before_its_original():
    """``of``: the clone copies the card at that place, here one after it: the clone comes
    out first with the genuine tag, and the original later with the same tag."""
    shoe, host = registered_shoe(seed=4)
    shoe.load(range(52), deck_id=12, cheat="cloned", at=3, of=40)
    cards, _ = registration(shoe, host)
    assert [(c.card, c.uid) for c in cards] == [(code, tag_uid(12, code)) for code in range(52)]
    dealt = draw_all(shoe)
    assert [(m.card, m.uid) for m in dealt if m.card == 40] == [(40, tag_uid(12, 40))] * 2
    assert [i for i, m in enumerate(dealt) if m.card == 40] == [3, 40]
    assert 3 not in [m.card for m in dealt]  # the card the clone took the place of


def test_missing_and_extra_cards_show_in_the_registration():
    shoe, host = registered_shoe(seed=2)
    shoe.load(range(52), deck_id=3, cheat="missing", at=10)
    cards, deck = registration(shoe, host)
    assert (len(cards), deck.cards_loaded) == (51, 51)
    assert 10 not in [c.card for c in cards]
    shoe.load(range(52), deck_id=3, cheat="extra", at=52)
    cards, deck = registration(shoe, host)
    assert (len(cards), deck.cards_loaded) == (53, 53)
    assert (cards[-1].card, cards[-1].uid) == (51, tag_uid(FOREIGN_DECK, 51))
    assert [c.index for c in cards] == list(range(53))


@pytest.mark.parametrize(
    ("kw", "code", "error"),
    [
        ({"cheat": "smoke"}, Cannot.UNKNOWN_NAME, "unknown cheat 'smoke'"),
        ({"at": 3}, Cannot.BAD_VALUE, "give cheat= too"),
        ({"cheat": "cloned", "at": 0}, Cannot.BAD_VALUE, "at must be 1..51"),
        ({"cheat": "foreign", "at": 52}, Cannot.BAD_VALUE, "at must be 0..51"),
        ({"of": 3}, Cannot.BAD_VALUE, "give cheat= too"),
        ({"cheat": "foreign", "at": 3, "of": 5}, Cannot.BAD_VALUE, "of= names the card a clone"),
        ({"cheat": "cloned", "at": 0, "of": 52}, Cannot.BAD_VALUE, "of must be 0..51"),
        ({"cheat": "cloned", "at": 7, "of": 7}, Cannot.BAD_VALUE, "a clone copies another card"),
    ],
)
def test_a_bad_cheat_changes_nothing(kw, code, error):
    shoe = SimulatedShoe()
    shoe.load(range(52), deck_id=1)
    before = (shoe.pending, shoe.upcoming(), shoe.deck_id)
    with pytest.raises(DeviceError, match=error) as refused:  # the words name the argument
        shoe.load(range(52), deck_id=2, **kw)
    assert refused.value.code is code
    assert (shoe.pending, shoe.upcoming(), shoe.deck_id) == before


def test_control_loads_cheats_and_tells_where_and_draw_tells_the_tag():
    shoe = SimulatedShoe(seed=1)
    control = Controller(shoe)
    deck = reply(
        control, "load deck_id=9 cards=" + ",".join(map(str, range(52))) + " cheat=retagged at=4"
    )
    assert deck["cheat"] == {"kind": "retagged", "at": 4, "card": 4} and deck["cards_loaded"] == 52
    assert reply(control, "load cards=As,Kd,2c cheat=missing at=1")["cheat"]["card"] is None
    ahead = reply(control, "load cards=As,Kd,2c cheat=cloned at=0 of=2")["cheat"]
    assert ahead == {"kind": "cloned", "at": 0, "card": 0}  # the 2c's copy, first
    reply(control, "load deck_id=9")
    drawn = reply(control, "draw")
    assert drawn["tag"] == {"code": drawn["event"]["card"], "uid": drawn["event"]["uid"]}
    random = reply(control, "load cheat=cloned")
    assert 1 <= random["cheat"]["at"] <= 51
    assert refusal(control, "load cheat=marked") is Cannot.UNKNOWN_NAME
    assert reply(control, "load")["type"] == "DECK" and shoe.cheat is None


def test_v2_vectors_from_the_simulator():
    shoe = SimulatedShoe(boot_id=0x1A2B3C4D, serial="SHOE-000123", firmware=(2, 0, 0))
    shoe.connect(0.0)
    assert shoe.transmit(0.0).hex() == "00" + VECTOR_V2["hello-shoe-v2"]["wire"]
    board = SimulatedSeatBoard(seed=1, first_seq=2)
    board.connect(0.0)
    board.transmit(0.0)
    board.place(3, 51, uid="04a1b2c3d4e5f6")
    assert board.transmit(0.0).hex() == VECTOR_V2["seat-card-with-uid"]["wire"]


# --- the seat board ------------------------------------------------------------------------


def test_seat_board_occupancy_and_cards():
    board = SimulatedSeatBoard(seed=3)
    host = SimHost()
    board.connect(0.0)
    assert board.sit(3) == SeatOccupied(3, True)
    assert cannot(lambda: board.sit(3)) is Cannot.ALREADY_OCCUPIED
    assert cannot(lambda: board.sit(9)) is Cannot.BAD_VALUE
    assert board.place(3, 51) == SeatCard(3, 51)
    assert board.place(3, 8, lands_at=4) == SeatCard(4, 8)
    board.set_fault("reader", True)
    assert board.place(5, 9) == SeatCard(5, None)
    board.set_fault("reader", False)
    board.set_fault("sensor", True)
    assert board.place(5, 9) is None
    board.set_fault("sensor", False)
    assert board.leave(3) == SeatOccupied(3, False)
    assert cannot(lambda: board.leave(3)) is Cannot.ALREADY_VACANT
    assert cannot(lambda: board.set_fault("jam", True)) is Cannot.NO_SUCH_FAULT
    board.sit(1)
    pump(board, host, 0.0, lambda: board.pending == 0)
    assert host.hellos[0].device_kind == DeviceKind.SEAT_BOARD
    assert [type(m) for m in host.messages()].count(SeatCard) == 3
    assert host.statuses == [] or host.statuses[-1].occupied == {1}
    assert board.status().occupied == {1}


def test_seat_reader_uids_by_version_and_reader():
    board = SimulatedSeatBoard()
    assert board.place(2, 8, uid=b"\x04\x01") == SeatCard(2, 8, b"\x04\x01")
    old = SimulatedSeatBoard(protocol_version=1)  # a version 1 board reads no UID
    assert old.place(2, 8, uid=b"\x04\x01") == SeatCard(2, 8)
    blind = SimulatedSeatBoard(card_reader=False)
    assert blind.place(2, 8, uid=b"\x04\x01") == SeatCard(2, None)
    board.set_fault("reader", True)
    assert board.switch(2, 9) == SeatCard(2, None)
    board.set_fault("sensor", True)
    assert board.switch(2, 9) is None


def test_misplace_rate_lands_cards_at_a_neighbour():
    board = SimulatedSeatBoard(seed=5)
    board.faults.misplace_rate = 1.0
    landed = [board.place(1, 0).seat for _ in range(5)]
    assert landed == [2] * 5
    middle = {board.place(4, 0).seat for _ in range(40)}
    assert middle == {3, 5}
    assert SimulatedSeatBoard(seats=1).place(1, 0) == SeatCard(1, 0)


def test_line_speed_paces_frames_back_to_back():
    shoe = SimulatedShoe(baud=115200, boot_id=1, protocol_version=1)
    shoe.connect(0.0)
    hello_time = 40 * 10 / 115200  # 0x00 + 39-byte HELLO frame, 10 bit times a byte
    assert shoe.transmit(0.0) == b""
    assert shoe.next_deadline() == pytest.approx(hello_time)
    shoe.load([51])
    shoe.draw()
    assert shoe.transmit(0.001) == b""  # the line is still busy with HELLO
    assert len(frames_of(shoe.transmit(hello_time))) == 1
    deck, card = (encode_frame(seq, m, 1) for seq, m in shoe.pending_events())
    assert len(card) == 24  # a CARD frame: 2.08 ms at 115200 baud
    arrival = hello_time + (len(deck) + len(card)) * 10 / 115200
    assert shoe.next_deadline() == pytest.approx(hello_time + len(deck) * 10 / 115200)
    assert shoe.transmit(arrival - 1e-6) != b""
    assert [f.seq for f in frames_of(shoe.transmit(arrival))] == [1]


def test_retransmissions_never_queue_more_than_the_line_carries():
    shoe = SimulatedShoe(seed=1, baud=115200, retransmit_timeout=0.05, protocol_version=1)
    shoe.connect(0.0)
    shoe.load(range(52))
    for _ in range(50):
        shoe.draw()  # 51 events that nobody acknowledges: 106 ms on the line, each round
    card_time = 24 * 10 / 115200
    now, steps = 0.0, 0
    while now < 5.0:
        shoe.transmit(now)
        now, steps = shoe.next_deadline(), steps + 1
    assert shoe.stats.frames_sent * card_time < 5.0 + 52 * card_time  # one round ahead at most
    assert steps < 2 * shoe.stats.frames_sent  # woken for frames, never spinning in between


def test_a_reset_right_after_connecting_restarts_the_hello_round_instead_of_repeating_it():
    shoe = SimulatedShoe(seed=1, baud=115200, boot_id=1, protocol_version=1)
    shoe.load(range(52))
    for _ in range(40):
        shoe.draw()  # 41 events wait while the cable is out
    shoe.connect(0.0)  # HELLO and the 41 events start at once ...
    host = SimHost()
    host.feed(shoe.transmit(0.0))
    shoe.receive(v1(Reset()), 0.003)  # ... and the host's RESET on opening follows
    pump(shoe, host, 0.003, until=lambda: shoe.pending == 0)
    assert len(host.hellos) == 2 and len(host.events) == 41
    assert shoe.stats.retransmissions <= 3  # only what the transmitter already held


def test_a_resend_during_a_round_restarts_it_and_never_queues_a_second_one():
    shoe = SimulatedShoe(seed=2, baud=115200, boot_id=1, protocol_version=1)
    shoe.load(range(52))
    for _ in range(51):
        shoe.draw()  # 52 events: 108 ms a round on the line
    shoe.connect(0.0)
    now, delivered = 0.0, 0
    for k in range(40):  # a host asking for RESEND 0 every 50 ms for 2 s, acknowledging nothing
        shoe.receive(v1(Resend(0)), k * 0.05)
        while (deadline := shoe.next_deadline()) is not None and deadline < (k + 1) * 0.05:
            now = max(now, deadline)
            delivered += len(shoe.transmit(now))
    assert delivered <= 2.0 * 115200 / 10  # never more than the line carries
    shoe.receive(v1(Ack(51)), 2.0)  # everything arrived: what is still to come?
    after = sum(len(shoe.transmit(2.0 + step * 0.002)) for step in range(1, 200))
    assert after <= 64 + 2 * 24  # the frame on the line and the transmit buffer, no rounds


def test_a_restart_loses_what_was_not_acknowledged_and_numbers_afresh():
    shoe, host = connected_shoe(baud=None)
    shoe.load(range(52))
    shoe.draw()
    pump(shoe, host, 0.0, until=lambda: shoe.pending == 0)
    host.deaf = True
    shoe.draw()
    shoe.draw()
    old = shoe.boot_id
    assert shoe.restart(1.0, 0.5) == 2
    assert shoe.transmit(1.2) == b""  # off
    shoe.draw()
    host.deaf = False
    pump(shoe, host, 1.2, until=lambda: len(host.hellos) == 2 and shoe.pending == 0)
    hello = host.hellos[-1]
    assert hello.boot_id not in (old, None)
    assert (hello.next_seq, hello.pending) == (1, 1)
    assert host.events[-1][0] == 0  # the new boot's first event


# --- the control channel (sans-IO) ---------------------------------------------------------


def reply(controller: Controller, line: str, now: float = 0.0) -> object:
    status, _, payload = controller.execute(line, now).partition(" ")
    assert status == "ok", payload
    return json.loads(payload)


def refusal(controller: Controller, line: str) -> Cannot:
    """Why the controller refuses ``line``: the code of its ``error`` reply (words after it)."""
    status, code, reason = controller.execute(line, 0.0).split(" ", 2)
    assert status == "error" and reason, (line, code, reason)
    return Cannot(code)


def test_control_commands_for_the_seat_board():
    board = SimulatedSeatBoard(seed=1)
    control = Controller(board)
    assert reply(control, "sit 2") == {"type": "SEAT_OCCUPIED", "seat": 2, "occupied": True}
    seat_card = {"type": "SEAT_CARD", "uid": ""}
    assert reply(control, "place 2 Qh") == seat_card | {"seat": 2, "card": 42}
    assert reply(control, "place 2 10c lands_at=3") == seat_card | {"seat": 3, "card": 32}
    assert reply(control, "place 5") == seat_card | {"seat": 5, "card": None}
    assert reply(control, "place 4 As uid=04A1B2") == seat_card | {
        "seat": 4,
        "card": 51,
        "uid": "04a1b2",
    }
    switched = reply(control, "switch 4 As")
    assert switched == seat_card | {"seat": 4, "card": 51, "uid": tag_uid(FOREIGN_DECK, 51).hex()}
    assert reply(control, "raise sensor")["type"] == "FAULT"
    assert reply(control, "place 5 2c") is None
    assert reply(control, "status")["occupied"] == [2]
    before = board.pending
    for line, code in [
        ("sit 9", Cannot.BAD_VALUE),
        ("sit two", Cannot.BAD_COMMAND),
        ("place 2 Zz", Cannot.BAD_COMMAND),
        ("place 2 52", Cannot.BAD_COMMAND),
        ("place 2 As lands_at=0", Cannot.BAD_VALUE),
        ("place 2 As uid=xyz", Cannot.BAD_VALUE),
        ("place 2 As uid=" + "00" * 11, Cannot.BAD_VALUE),
        ("switch 2", Cannot.BAD_COMMAND),
        ("switch 9 As", Cannot.BAD_VALUE),
        ("leave 3", Cannot.ALREADY_VACANT),
        ("draw", Cannot.BAD_COMMAND),
        ("set misplace_rate=high", Cannot.BAD_COMMAND),
        ("set unreadable_rate=0.5", Cannot.BAD_COMMAND),
        ('sit "2', Cannot.BAD_COMMAND),
        ("", Cannot.BAD_COMMAND),
    ]:
        assert refusal(control, line) is code, line
    assert board.pending == before and board.occupied == {2}


def test_control_commands_for_the_shoe():
    shoe = SimulatedShoe(seed=1)
    control = Controller(shoe)
    help_lines = reply(control, "help")
    assert [line.split()[0].rstrip(":") for line in help_lines] == list(control.commands)
    deck = reply(control, "load decks=2 seed=5")
    assert deck == {"type": "DECK", "deck_id": 5, "cards_loaded": 104, "cards_remaining": 104}
    twin = SimulatedShoe()
    twin.load(decks=2, shuffle_seed=5)
    assert shoe.upcoming() == twin.upcoming()
    assert refusal(control, "load cards=As decks=2") is Cannot.BAD_COMMAND
    assert refusal(control, "load colour=red") is Cannot.BAD_COMMAND
    assert refusal(control, "raise smoke") is Cannot.UNKNOWN_NAME
    assert reply(control, "set delay=0.01 seed=3")["delay"] == 0.01
    assert refusal(control, "set seed=0.5") is Cannot.BAD_COMMAND
    assert refusal(control, "set misplace_rate=1") is Cannot.BAD_COMMAND
    reply(control, "unreadable_next")
    assert reply(control, "draw")["event"]["type"] == "UNREADABLE"
    drawn = reply(control, "draw disposition=dealt_unread")
    assert drawn["event"]["type"] == "CARD" and drawn["name"] == card_name(drawn["card"])
    assert refusal(control, "draw unreadable disposition=floor") is Cannot.UNKNOWN_NAME
    reply(control, "open_lid")
    assert refusal(control, "draw") is Cannot.LID_OPEN
    reply(control, "close_lid")
    assert reply(control, "unplug 2.5", now=10.0) == {"reconnect_at": 12.5}
    assert not shoe.connected and shoe.next_deadline() == 12.5
    assert reply(control, "status")["read_counter"] == 2
    with pytest.raises(QuitRequested):
        control.execute("quit", 0.0)


def test_card_names():
    assert [card_code(t) for t in ("2c", "4C", "As", "10h", "Td", "51")] == [0, 8, 51, 34, 33, 51]
    assert [card_name(c) for c in (0, 8, 51)] == ["2c", "4c", "As"]
