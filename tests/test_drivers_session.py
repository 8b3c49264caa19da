"""The host session (sans-IO): ordering, duplicates, gaps, link state, heartbeats, lamps."""

from collections import Counter
from dataclasses import replace

import pytest

from drivers import events as ev
from drivers.errors import DriverError, ProtocolVersionError, WrongDeviceError
from drivers.protocol import (
    Ack,
    CardMessage,
    DeviceKind,
    Disposition,
    FaultCode,
    FrameDecoder,
    Hello,
    Indicator,
    Resend,
    Reset,
    SeatOccupied,
    Status,
    StatusRequest,
    encode_frame,
    from_dict,
)
from drivers.protocol.codec import CRC, HEADER, cobs_encode, crc16
from drivers.session import HostSession, LinkConfig
from tests.protocol_vectors import VECTOR, VECTOR_V2, VECTORS, VECTORS_V2

SHOE, SEATS = DeviceKind.SHOE, DeviceKind.SEAT_BOARD

CONFIG = LinkConfig(heartbeat_interval=0.5, silence_timeout=2.0, resend_holdoff=0.05)


def hello(next_seq=1, pending=0, boot_id=7, kind=DeviceKind.SHOE, version=1):
    return encode_frame(
        0,
        Hello(version, kind, (1, 2, 3), "SHOE-0001", boot_id, next_seq, pending, 250),
        version,
    )


def card(seq, code=None):
    return encode_frame(seq, CardMessage(seq % 52 if code is None else code, seq))


def sent(session):
    return [f.message for f in FrameDecoder().feed(session.take_output())]


def open_session(now=0.0, config=CONFIG, queue_limit=None, **hello_args):
    kind = hello_args.get("kind", DeviceKind.SHOE)
    session = HostSession("/dev/pts/9", kind, config, queue_limit=queue_limit)
    session.connection_made(now)
    assert sent(session) == [Reset()]
    session.receive(hello(**hello_args), now)
    [up] = session.take_events()
    assert isinstance(up, ev.LinkUp)
    session.take_output()
    return session


def cards_of(events):
    return [e.seq for e in events if isinstance(e, ev.CardRead)]


def test_hello_brings_the_link_up_with_the_device_named():
    session = HostSession("/dev/pts/9", DeviceKind.SHOE, CONFIG)
    session.connection_made(0.0)
    session.take_output()
    session.receive(hello(pending=0), 0.0)
    [up] = session.take_events()
    assert up.device.serial == "SHOE-0001"
    assert up.device.firmware == (1, 2, 3)
    assert (up.device.port, up.pending, up.lost) == ("/dev/pts/9", 0, ())
    assert session.up


def test_in_order_events_are_delivered_and_acknowledged_once_per_chunk():
    session = open_session()
    session.receive(card(1) + card(2) + card(3), 0.1)
    assert cards_of(session.take_events()) == [1, 2, 3]
    assert sent(session) == [Ack(3)]


def test_events_split_across_chunks_byte_by_byte():
    session = open_session()
    data = card(1) + card(2)
    for i in range(len(data)):
        session.receive(data[i : i + 1], 0.1)
    assert cards_of(session.take_events()) == [1, 2]


def test_duplicate_is_dropped_and_acknowledged_again():
    session = open_session()
    session.receive(card(1), 0.1)
    session.take_events(), session.take_output()
    session.receive(card(1), 0.2)
    assert session.take_events() == []
    assert sent(session) == [Ack(1)]
    assert session.stats.duplicates == 1


def test_gap_asks_for_a_resend_once_then_fills_in_order():
    session = open_session()
    session.receive(card(1), 0.1)
    session.take_events(), session.take_output()
    session.receive(card(3) + card(4), 0.2)
    assert session.take_events() == []
    assert sent(session) == [Resend(2)]
    session.receive(card(5), 0.21)  # within the holdoff: no second RESEND
    assert sent(session) == []
    assert session.next_deadline() == pytest.approx(0.25)  # ... but a re-check after it
    session.poll(0.25)
    assert sent(session) == [Resend(2)]
    session.receive(card(6), 0.35)  # holdoff over again, still missing
    assert sent(session) == [Resend(2)]
    session.receive(card(2) + card(3) + card(4) + card(5) + card(6), 0.4)
    assert cards_of(session.take_events()) == [2, 3, 4, 5, 6]
    assert sent(session) == [Ack(6)]


def test_corrupted_frame_is_dropped_whole_and_counted():
    session = open_session()
    frame = bytearray(card(1))
    frame[3] ^= 0x40
    session.receive(bytes(frame) + card(2), 0.1)
    assert session.take_events() == []
    assert sent(session) == [Resend(1)]
    assert sum(session.stats.decode_errors.values()) == 1


def test_status_reveals_a_lost_last_event():
    session = open_session()
    session.receive(encode_frame(0, Status(2, 1, (), False, (), (), 40)), 0.1)
    assert sent(session) == [Resend(1)]


def test_silence_takes_the_link_down_and_resets_are_sent_until_hello():
    session = open_session()
    assert session.next_deadline() == pytest.approx(0.5)
    session.poll(0.5)
    assert sent(session) == [StatusRequest()]
    session.poll(2.0)
    [down] = session.take_events()
    assert down.reason is ev.LinkDownReason.SILENCE
    assert "2.00 s" in down.detail
    assert Reset() in sent(session)
    session.receive(card(1), 2.1)  # events while down are not delivered: ask for HELLO
    assert session.take_events() == []
    assert sent(session) == [Reset()]
    session.receive(hello(next_seq=2, pending=1) + card(1), 2.2)
    up, read = session.take_events()
    assert isinstance(up, ev.LinkUp) and (up.next_seq, up.pending, up.lost) == (2, 1, ())
    assert read.seq == 1  # resumed at event 1


def test_hello_of_the_same_boot_while_up_resynchronises_silently():
    session = open_session()
    session.receive(card(1) + card(2), 0.1)
    session.take_events(), session.take_output()
    session.receive(hello(next_seq=3, pending=2) + card(1) + card(2) + card(3), 0.2)
    assert cards_of(session.take_events()) == [3]
    assert sent(session) == [Ack(3)]
    assert session.take_events() == []


def test_restarted_device_is_reported_with_link_down_and_up():
    session = open_session()
    session.receive(card(1), 0.1)
    session.take_events()
    session.receive(hello(next_seq=1, pending=0, boot_id=8), 0.2)
    down, up = session.take_events()
    assert down.reason is ev.LinkDownReason.DEVICE_RESTARTED
    assert (up.previous_boot_id, up.device.boot_id) == (7, 8)
    session.receive(card(1, code=5), 0.3)
    [read] = session.take_events()
    assert (read.seq, read.card) == (1, 5)


def test_connection_lost_reports_the_reason():
    session = open_session()
    session.connection_lost("serial port /dev/pts/9: device reports readiness", 1.0)
    [down] = session.take_events()
    assert down.reason is ev.LinkDownReason.CONNECTION_LOST
    assert "/dev/pts/9" in down.detail
    assert session.next_deadline() is None
    session.connection_made(1.5)
    assert sent(session) == [Reset()]


def test_other_protocol_version_in_the_header_is_a_clear_error():
    session = HostSession("socket://shoe:7000", DeviceKind.SHOE, CONFIG)
    session.connection_made(0.0)
    with pytest.raises(ProtocolVersionError) as caught:
        session.receive(hello(version=3), 0.0)
    assert str(caught.value) == (
        "device on socket://shoe:7000 speaks protocol version 3; this host speaks versions 1, 2"
    )


def other_version_frame(msg_type, payload, version=3):
    """A frame that passes the CRC but carries another protocol version."""
    head = HEADER.pack(version, msg_type, 0) + payload
    return cobs_encode(head + CRC.pack(crc16(head))) + b"\0"


def test_noise_with_the_hello_type_byte_is_no_hello_unless_it_has_the_hello_layout():
    session = open_session()
    short = other_version_frame(Hello.TYPE, b"")  # 6 bytes: a HELLO is 37
    wrong_field = other_version_frame(Hello.TYPE, b"\x07" + bytes(30))  # says version 7
    session.receive(short + card(1) + wrong_field + card(2), 0.1)
    assert cards_of(session.take_events()) == [1, 2]
    assert session.stats.decode_errors == Counter(version=2)


def test_frames_of_another_version_count_as_in_a_row_only_when_consecutive():
    session = open_session()
    other = encode_frame(1, CardMessage(5, 1), version=3)
    damaged = bytearray(card(1))
    damaged[3] ^= 0x40
    stream = b"".join(other + bytes(damaged) * 1000 for _ in range(50))
    session.receive(stream + card(1), 0.1)  # 50 of them, never two in a row: noise
    assert cards_of(session.take_events()) == [1]
    assert session.stats.decode_errors["version"] == 50


def test_a_lone_frame_of_another_version_is_noise_two_in_a_row_a_device():
    session = open_session()
    other = encode_frame(1, CardMessage(5, 1), version=3)
    session.receive(other + card(1), 0.1)  # noise that passed the CRC, then a valid frame
    assert cards_of(session.take_events()) == [1]
    assert session.stats.decode_errors == Counter(version=1)
    session.receive(other, 0.2)
    with pytest.raises(ProtocolVersionError) as caught:
        session.receive(other, 0.3)
    assert caught.value.device_version == 3


def test_wrong_device_kind_is_a_clear_error():
    session = HostSession("/dev/ttyUSB1", DeviceKind.SHOE, CONFIG)
    session.connection_made(0.0)
    with pytest.raises(WrongDeviceError) as caught:
        session.receive(hello(kind=DeviceKind.SEAT_BOARD), 0.0)
    assert (caught.value.expected, caught.value.answered) == (SHOE, SEATS)


def test_indicator_is_resent_after_hello_and_until_status_shows_it():
    session = open_session()
    session.set_indicator(True, {3}, 0.1)
    assert sent(session) == [Indicator(True, frozenset({3}))]
    session.receive(encode_frame(0, Status(1, 0, (), False, (), (), 40)), 0.2)
    assert sent(session) == [Indicator(True, frozenset({3}))]
    session.receive(encode_frame(0, Status(1, 0, (), True, {3}, (), 40)), 0.3)
    assert sent(session) == []
    session.poll(5.0)
    session.take_events(), session.take_output()
    session.receive(hello(), 5.1)
    assert Indicator(True, frozenset({3})) in sent(session)


def test_seat_events_are_split_into_occupied_and_vacated():
    session = HostSession("/dev/pts/3", DeviceKind.SEAT_BOARD, CONFIG)
    session.connection_made(0.0)
    session.receive(hello(kind=DeviceKind.SEAT_BOARD), 0.0)
    session.receive(
        encode_frame(1, SeatOccupied(4, True)) + encode_frame(2, SeatOccupied(4, False)), 0.1
    )
    _, sat, left = session.take_events()
    assert sat == ev.SeatOccupied(1, 4)
    assert left == ev.SeatVacated(2, 4)


def test_link_config_rejects_nonsense_with_the_setting_named():
    with pytest.raises(DriverError, match="silence_timeout"):
        LinkConfig(heartbeat_interval=1.0, silence_timeout=0.5)
    with pytest.raises(DriverError, match="unknown link setting"):
        LinkConfig.from_mapping({"silence": 3})
    assert LinkConfig.from_mapping({"silence_timeout": 3}).silence_timeout == 3


# --- the golden vectors, as the host session meets them ------------------------------------

#: Every sequenced device-to-host vector, the device that sends it and the event it becomes.
DEVICE_VECTORS = {
    "card-ace-of-spades-rfid": (SHOE, ev.CardRead(3, 51, 7, bytes.fromhex("04a1b2c3d4e5f6"))),
    "card-deuce-of-clubs-optical": (SHOE, ev.CardRead(0, 0, 0, b"")),
    "card-four-of-clubs-seq-wrap": (
        SHOE,
        ev.CardRead(65535, 8, 1 << 24, bytes.fromhex("00112233445566778899")),
    ),
    "unreadable-reject-tray": (SHOE, ev.CardUnreadable(4, 8, Disposition.REJECT_TRAY)),
    "unreadable-dealt": (SHOE, ev.CardUnreadable(5, 9, Disposition.DEALT_UNREAD)),
    "deck-six-decks": (SHOE, ev.DeckLoaded(1, 0xC0FFEE, 312, 312)),
    "fault-jam": (SHOE, ev.DeviceFault(6, FaultCode.JAM)),
    "fault-cleared-lid": (SHOE, ev.DeviceFaultCleared(7, FaultCode.LID_OPEN)),
    "fault-tamper": (SEATS, ev.DeviceFault(8, FaultCode.TAMPER)),
    "seat-occupied": (SEATS, ev.SeatOccupied(1, 1)),
    "seat-vacated": (SEATS, ev.SeatVacated(2, 8)),
    "seat-card-identified": (SEATS, ev.CardAtSeat(3, 4, 12)),
    "seat-card-unidentified": (SEATS, ev.CardAtSeat(256, 5, None)),
}


DEVICE_VECTORS_V2 = {
    "card-ace-of-spades-rfid": DEVICE_VECTORS["card-ace-of-spades-rfid"],
    "card-optical": (SHOE, ev.CardRead(4, 8, 8, b"")),
    "unreadable-dealt": DEVICE_VECTORS["unreadable-dealt"],
    "deck-card-first": (
        SHOE,
        ev.DeckCard(10, 0xC0FFEE01, 0, 8, bytes.fromhex("04c0ffee010008")),
    ),
    "deck-card-last-ten-byte-uid": (
        SHOE,
        ev.DeckCard(61, 0xC0FFEE01, 51, 51, bytes.fromhex("e0040150a1b2c3d4e5f6")),
    ),
    "deck-card-optical": (SHOE, ev.DeckCard(62, 5, 0, 0, b"")),
    "deck-after-registration": (SHOE, ev.DeckLoaded(62, 0xC0FFEE01, 52, 52, registered=True)),
    "fault-tamper": (SHOE, ev.DeviceFault(63, FaultCode.TAMPER)),
    "fault-cleared-tamper": (SHOE, ev.DeviceFaultCleared(64, FaultCode.TAMPER)),
    "seat-occupied-seat-8": (SEATS, ev.SeatOccupied(1, 8)),
    "seat-card-with-uid": (SEATS, ev.CardAtSeat(2, 3, 51, bytes.fromhex("04a1b2c3d4e5f6"))),
    "seat-card-unidentified-v2": (SEATS, ev.CardAtSeat(256, 5, None)),
    "seat-card-uid-only": (SEATS, ev.CardAtSeat(257, 6, None, bytes.fromhex("04deadbeef0001"))),
}


def wire(name):
    return bytes.fromhex(VECTOR[name]["wire"])


def test_every_sequenced_v2_vector_has_its_event():
    sequenced = {v["name"] for v in VECTORS_V2["frames"] if from_dict(v["message"]).SEQUENCED}
    assert set(DEVICE_VECTORS_V2) == sequenced


@pytest.mark.parametrize("name", DEVICE_VECTORS_V2)
def test_v2_device_vector_becomes_its_typed_event_and_the_host_answers_in_v2(name):
    kind, expected = DEVICE_VECTORS_V2[name]
    seq = VECTOR_V2[name]["seq"]
    session = open_session(next_seq=seq, kind=kind, version=2)
    session.receive(bytes.fromhex(VECTOR_V2[name]["wire"]), 0.1)
    assert session.take_events() == [expected]
    [ack] = FrameDecoder().feed(session.take_output())
    assert (ack.message, ack.version) == (Ack(seq), 2)


def test_a_v1_shoe_deck_is_unregistered_and_the_host_answers_it_in_v1():
    session = HostSession("/dev/pts/9", SHOE, CONFIG)
    session.connection_made(0.0)
    [reset] = FrameDecoder().feed(session.take_output())
    assert reset.version == 1  # before a HELLO: the version every device reads
    session.receive(hello(next_seq=1), 0.0)
    [up] = session.take_events()
    assert up.device.protocol_version == 1
    session.take_output()
    session.receive(wire("deck-six-decks"), 0.1)
    assert session.take_events() == [ev.DeckLoaded(1, 0xC0FFEE, 312, 312, registered=False)]
    [ack] = FrameDecoder().feed(session.take_output())
    assert (ack.message, ack.version) == (Ack(1), 1)
    v1_deck_card = bytes.fromhex(VECTORS_V2["malformed"][1]["wire"])  # DECK_CARD in a v1 frame
    session.receive(v1_deck_card, 0.2)
    assert session.take_events() == []
    assert session.stats.decode_errors == Counter(unknown_type=1)


def test_every_sequenced_vector_has_its_event():
    sequenced = {v["name"] for v in VECTORS["frames"] if from_dict(v["message"]).SEQUENCED}
    assert set(DEVICE_VECTORS) == sequenced


@pytest.mark.parametrize("name", DEVICE_VECTORS)
def test_device_vector_becomes_its_typed_event_once(name):
    kind, expected = DEVICE_VECTORS[name]
    seq = VECTOR[name]["seq"]
    session = open_session(next_seq=seq, kind=kind)
    session.receive(wire(name), 0.1)
    assert session.take_events() == [expected]
    ack = session.take_output()
    assert FrameDecoder().feed(ack)[0].message == Ack(seq)
    if seq == 65535:
        assert ack == wire("ack-wrap")
    session.receive(wire(name), 0.2)  # the same frame again: a duplicate
    assert session.take_events() == []
    assert session.take_output() == ack


def test_hello_and_status_vectors_bring_the_link_up_and_report_the_state():
    session = HostSession("/dev/pts/9", SEATS, CONFIG)
    session.connection_made(0.0)
    assert session.take_output() == wire("reset")
    session.receive(wire("hello-seat-board-pending"), 0.0)
    [up] = session.take_events()
    assert (up.device.serial, up.device.boot_id) == ("SEATS-42", 7)
    assert up.pending == 3
    session.receive(wire("status-seat-board"), 0.1)
    assert session.status == from_dict(VECTOR["status-seat-board"]["message"])
    shoe = HostSession("/dev/pts/8", SHOE, CONFIG)
    shoe.connection_made(0.0)
    shoe.receive(wire("hello-shoe"), 0.0)
    [up] = shoe.take_events()
    assert (up.device.serial, up.device.firmware) == ("SHOE-000123", (1, 2, 3))
    shoe.take_output()
    shoe.receive(wire("status-shoe"), 0.1)  # events 0..260 exist that the host never saw
    assert shoe.status == from_dict(VECTOR["status-shoe"]["message"])
    assert sent(shoe) == [Resend(0)]


def test_what_the_host_sends_is_the_vectors_byte_for_byte():
    session = open_session(next_seq=258)
    session.receive(card(258), 0.1)
    assert session.take_output() == wire("ack")
    fresh = open_session(next_seq=255)
    fresh.receive(card(256), 0.1)
    assert fresh.take_output() == wire("resend")
    fresh.poll(0.1 + CONFIG.heartbeat_interval)
    assert fresh.take_output() == wire("status-request")
    for name, lamps in [
        ("indicator-bonus-seat-3", (True, {3})),
        ("indicator-off", (False, ())),
        ("indicator-all-seats", (False, range(1, 9))),
    ]:
        fresh.set_indicator(*lamps, 0.5)
        assert fresh.take_output() == wire(name)


# A host of version 2 passes both files' malformed streams, but the version 1 file's HELLO
# of version 2, which is a device it speaks to.
MALFORMED = [(VECTOR, v) for v in VECTORS["malformed"] if v["name"] != "version-2-hello"]
MALFORMED += [(VECTOR_V2, v) for v in VECTORS_V2["malformed"]]


@pytest.mark.parametrize(("frames", "vector"), MALFORMED, ids=lambda v: v.get("name", ""))
def test_malformed_vectors_are_dropped_whole_and_counted(frames, vector):
    errors = Counter(e["error"] for e in vector["expect"] if "error" in e)
    session = open_session(next_seq=3, version=2 if frames is VECTOR_V2 else 1)
    data = bytes.fromhex(vector["wire"])
    if "version" in errors:
        with pytest.raises(ProtocolVersionError) as caught:
            session.receive(data, 0.1)
        assert caught.value.device_version == 3
        return
    session.receive(data, 0.1)
    assert session.stats.decode_errors == errors
    named = [e["frame"] for e in vector["expect"] if "frame" in e]
    expected = [
        DEVICE_VECTORS[n][1] for n in named if n in DEVICE_VECTORS and frames[n]["seq"] == 3
    ][:1]  # a second frame of seq 3 is a duplicate
    assert session.take_events() == expected  # only the valid frame the session expects next


def test_a_full_consumer_queue_leaves_events_with_the_device_until_taken():
    session = HostSession("/dev/pts/9", DeviceKind.SHOE, CONFIG, queue_limit=2)
    session.connection_made(0.0)
    session.receive(hello(), 0.0)
    session.take_events(), session.take_output()
    session.receive(card(1) + card(2) + card(3) + card(4), 0.1)
    assert cards_of(session.take_events()) == [1, 2]
    assert sent(session) == [Ack(2)]  # 3 and 4 stay in the device's buffer
    assert session.stats.held == 2
    session.receive(encode_frame(0, Status(5, 2, (), False, (), (), 40)) + card(3), 0.2)
    assert session.take_events() == []
    assert sent(session) == []  # no RESEND while there is no room
    session.taken(0.3)
    assert sent(session) == []  # one event still waits for the consumer
    session.taken(0.4)
    assert sent(session) == [Resend(3)]
    session.receive(card(3) + card(4), 0.5)
    assert cards_of(session.take_events()) == [3, 4]
    assert sent(session) == [Ack(4)]


def test_without_a_queue_limit_the_session_never_holds_events_back():
    session = open_session()  # a sans-IO owner that never calls taken()
    session.receive(b"".join(card(seq) for seq in range(1, 2001)), 0.1)
    assert len(cards_of(session.take_events())) == 2000
    assert session.stats.held == 0


# --- acknowledge after commit ---------------------------------------------------------------

COMMIT = replace(CONFIG, ack_on="commit")


def test_restarted_device_says_how_many_events_and_which_were_lost():
    session = open_session()
    session.receive(card(1) + encode_frame(0, Status(5, 4, (), False, (), (), 40)), 0.1)
    session.take_events()
    session.receive(hello(next_seq=3, pending=3, boot_id=8), 0.2)
    _, up = session.take_events()
    assert up.restarted and up.previous_boot_id == 7
    assert up.lost == (ev.LostEvents(7, 2, 3),)  # 2, 3, 4 of boot 7 never arrived
    assert up.lost[0].seqs == [2, 3, 4]
    assert "3 event(s) of boot 7 lost (seq 2..4)" in up.reason
    assert "resuming at event 0" in up.reason


def test_a_restart_found_after_the_connection_was_lost_is_still_reported():
    session = open_session()
    session.receive(card(1), 0.1)
    session.connection_lost("socket://sim:7: connection closed", 0.2)
    session.connection_made(0.3)
    session.receive(hello(next_seq=2, pending=2, boot_id=9), 0.4)
    _, down, up = session.take_events()
    assert down.reason is ev.LinkDownReason.CONNECTION_LOST
    assert up.previous_boot_id == 7 and up.lost == ()
    assert "the device restarted (boot id 7 -> 9): no lost event is known" in up.reason


def test_a_restart_whose_hello_was_lost_shows_in_a_status_numbering_behind():
    """A power cycle shorter than the silence timeout, its HELLO lost: the new boot's STATUS
    numbers behind the events delivered. The link goes down at once (the new boot's event 0
    is neither delivered nor acknowledged as the old boot's) and RESET asks for its HELLO;
    before, the session stayed up taking the new boot's events for duplicates for ever."""
    session = open_session()
    session.receive(card(1) + card(2) + card(3), 0.1)
    session.take_events(), session.take_output()
    session.receive(encode_frame(0, Status(1, 1, (), False, (), (), 40)) + card(0), 0.3)
    [down] = session.take_events()
    assert down.reason is ev.LinkDownReason.DEVICE_RESTARTED
    assert "numbers its events up to 1, behind event 4 already received" in down.detail
    assert sent(session) == [Reset()]
    session.receive(hello(next_seq=1, pending=1, boot_id=9), 0.35)
    [up] = session.take_events()
    assert up.restarted and up.previous_boot_id == 7 and up.lost == ()
    session.receive(card(0, code=9), 0.4)
    [read] = session.take_events()
    assert (read.seq, read.card, read.origin.device.boot_id) == (0, 9, 9)


def test_duplicates_of_acknowledged_events_for_a_silence_timeout_ask_for_hello():
    """A device busy resending (no STATUS between its rounds) that does not take the ACKs:
    its HELLO after a restart was lost, or the ACKs are. Each duplicate is acknowledged
    again; once they have come for a silence timeout (2 s) with nothing delivered, RESET
    asks for the HELLO, which tells which; then again only after another silence timeout."""
    session = open_session()
    session.receive(card(1) + card(2) + card(3), 0.1)
    session.take_events(), session.take_output()
    for at in (1.0, 1.5, 2.0, 2.5):
        session.receive(card(0) + card(1) + card(2), at)  # a restarted shoe's round
        assert sent(session) == [Ack(3)]
    session.receive(card(0) + card(1), 3.0)
    assert sent(session) == [Reset(), Ack(3)]
    session.receive(card(0), 3.5)
    assert sent(session) == [Ack(3)]
    assert session.up and session.take_events() == []
    session.receive(hello(next_seq=2, pending=2, boot_id=9), 3.6)
    down, up = session.take_events()
    assert down.reason is ev.LinkDownReason.DEVICE_RESTARTED and up.restarted


def test_duplicates_only_of_events_not_yet_acknowledged_never_ask_for_hello():
    """With ack_on="commit", a device resends what the application has not acknowledged
    yet: it rightly keeps those, however long the application takes."""
    session = open_session(config=COMMIT)
    session.receive(card(1) + card(2), 0.1)
    session.take_events(), session.take_output()
    for at in range(1, 12):
        session.receive(card(1) + card(2), float(at))
    assert Reset() not in sent(session)
    assert session.up


def test_commit_mode_acknowledges_only_what_the_application_acknowledges():
    session = open_session(config=COMMIT)
    session.receive(card(1) + card(2) + card(3), 0.1)
    one, two, three = session.take_events()
    assert sent(session) == []  # delivered, not acknowledged
    session.acknowledge(one, 0.2)
    session.acknowledge(two, 0.2)
    assert session.next_deadline() == 0.2  # due at once; the two make one ACK
    session.poll(0.2)
    assert sent(session) == [Ack(2)]
    session.acknowledge(one, 0.3)  # covered already: nothing to send
    session.poll(0.3)
    assert sent(session) == []
    session.receive(card(3), 0.4)  # a duplicate of an unacknowledged event
    assert sent(session) == [Ack(2)]  # acknowledged again only as far as the application did
    session.acknowledge(three, 0.5)
    session.poll(0.5)
    assert sent(session) == [Ack(3)]


def test_commit_mode_hello_after_a_reconnect_acknowledges_only_what_was_acknowledged():
    session = open_session(config=COMMIT)
    session.receive(card(1) + card(2), 0.1)
    one, _ = session.take_events()
    session.acknowledge(one, 0.1)
    session.poll(0.1)
    session.take_output()
    session.receive(hello(next_seq=3, pending=2) + card(1) + card(2), 0.2)  # ACK(1) was lost
    assert session.take_events() == []
    assert sent(session) == [Ack(1)]


def test_acknowledging_a_foreign_or_stale_event_is_refused_clearly():
    session = open_session(config=COMMIT)
    session.receive(card(1), 0.1)
    [old] = session.take_events()
    with pytest.raises(DriverError, match="this driver did not deliver it"):
        session.acknowledge(ev.CardRead(1, 1, 1, b""), 0.2)
    other = open_session(config=COMMIT)
    other.receive(card(1), 0.1)
    with pytest.raises(DriverError, match="this driver did not deliver it"):
        session.acknowledge(other.take_events()[0], 0.2)
    session.receive(hello(next_seq=1, pending=0, boot_id=8), 0.3)
    with pytest.raises(DriverError) as caught:
        session.acknowledge(old, 0.4)
    assert str(caught.value) == (
        "/dev/pts/9: cannot acknowledge event 1 of boot 7 of SHOE-0001: the device restarted "
        "since (now boot 8) and no longer holds it"
    )
    delivery = open_session()
    delivery.receive(card(1), 0.1)
    with pytest.raises(DriverError, match="needs link setting ack_on='commit'"):
        delivery.acknowledge(delivery.take_events()[0], 0.2)


def test_ack_on_takes_only_delivery_or_commit():
    with pytest.raises(DriverError) as caught:
        LinkConfig.from_mapping({"ack_on": "sometimes"})
    assert str(caught.value) == (
        "link setting ack_on must be one of 'delivery', 'commit', not 'sometimes'"
    )
    assert LinkConfig.from_mapping({"ack_on": "commit"}).ack_on == "commit"


def test_commit_mode_back_pressure_counts_unacknowledged_events_as_waiting():
    session = open_session(config=COMMIT, queue_limit=2)
    session.receive(card(1) + card(2) + card(3), 0.1)
    one, two = session.take_events()
    assert session.stats.held == 1
    session.taken(0.2)
    session.taken(0.2)  # taken, but not acknowledged: still waiting
    session.receive(card(3), 0.3)
    assert session.take_events() == [] and session.stats.held == 2
    session.acknowledge(one, 0.4)
    session.poll(0.4)
    assert sent(session) == [Ack(1)]  # one still waits: no RESEND yet
    session.acknowledge(two, 0.5)
    session.poll(0.5)
    assert sent(session) == [Resend(3), Ack(2)]
    session.receive(card(3), 0.6)
    assert cards_of(session.take_events()) == [3]


def test_a_restarted_host_gets_every_unacknowledged_event_again():
    session = open_session(config=COMMIT)
    session.receive(card(1) + card(2) + card(3), 0.1)
    one, _, _ = session.take_events()
    session.acknowledge(one, 0.1)
    session.poll(0.1)
    assert sent(session) == [Ack(1)]
    # the host crashes; the device holds 2 and 3; the new host's RESET brings them again
    again = open_session(config=COMMIT, next_seq=4, pending=2)
    again.receive(card(2) + card(3), 1.0)
    assert cards_of(again.take_events()) == [2, 3]
    assert sent(again) == []


def test_resends_are_paced_by_the_wire_time_of_the_round_on_a_line_of_known_speed():
    session = HostSession("/dev/ttyUSB0", SHOE, CONFIG, baudrate=115200)
    session.connection_made(0.0)
    session.receive(hello(next_seq=1001, pending=1000), 0.0)  # a backlog of 1000 events
    session.take_events(), session.take_output()
    session.receive(card(2), 0.01)  # 1 was lost
    assert sent(session) == [Resend(1)]
    session.receive(card(3), 0.5)  # more of the round the device is sending: no new RESEND
    assert sent(session) == []
    round_time = 0.05 + 1000 * 24 * 10 / 115200  # holdoff + 1000 CARD frames: 2.13 s
    session.poll(0.01 + round_time - 0.01)
    assert Resend(1) not in sent(session)
    session.poll(0.01 + round_time)
    assert Resend(1) in sent(session)  # the round is over and 1 is still missing: ask again
    session.receive(card(1) + card(2), 0.6)
    assert cards_of(session.take_events()) == [1, 2]


def test_a_new_round_without_the_missing_event_asks_for_it_again_at_once():
    session = HostSession("/dev/ttyUSB0", SHOE, CONFIG, baudrate=115200)
    session.connection_made(0.0)
    session.receive(hello(next_seq=1001, pending=1000), 0.0)
    session.take_events(), session.take_output()
    session.receive(card(2) + card(3) + card(4), 0.01)  # 1 lost
    assert sent(session) == [Resend(1)]
    session.receive(card(2), 0.02)  # the device went back, and 1 was lost again
    assert sent(session) == [Resend(1)]
    session.receive(card(3), 0.03)  # the same round goes on: wait for it
    assert sent(session) == []
