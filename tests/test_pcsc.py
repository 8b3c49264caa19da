"""PC/SC card readers through the real smart-card stack: each test starts its own pcscd
(in a private mount namespace) with Debian's virtual readers (vsmartcard-vpcd) for the
shoe, the seats and the console, and virtual tags that come into and leave their fields
(firmware_sim.pcsc_rig, firmware_sim.vtag). Skipped, with the reason, where pcscd, vpcd,
pyscard or the rights for a private mount namespace are missing."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest

from controller.journal import Journal
from controller.sim.dealer import Dealer, Tally
from controller.sim.pcsc_floor import pcsc_floor, random_deck
from controller.table import AlertKind, NewHand, SitDown, TableSettings
from controller.table.alerts import ForeignCard, Tamper
from controller.table.settings import Protection
from drivers import events as ev
from drivers.errors import PortNotFoundError
from drivers.pcsc.deck import read_deck
from drivers.pcsc.device import PcscSeats, PcscShoe
from drivers.pcsc.mapping import UNREGISTERED
from drivers.protocol import DeviceKind, Disposition
from drivers.session import LinkConfig
from firmware_sim import pcsc_rig
from firmware_sim.pcsc_rig import PcscRig
from firmware_sim.vtag import VirtualTag
from tests.service_kit import write_config

pytestmark = [  # a pcscd of its own
    pytest.mark.skipif(pcsc_rig.missing() is not None, reason=str(pcsc_rig.missing())),
    pytest.mark.slow,
]

DECK = random_deck(40)
TAGS = {code: uid for uid, code in DECK.cards.items()}
FOREIGN = bytes.fromhex("04deadbeef0001")
LINK = LinkConfig(backoff_initial=0.05, backoff_max=0.2, handshake_timeout=5.0)
#: pcscd polls a vpcd reader every 400 ms: a tag is seen within two polls and some.
SEEN = 5.0


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[PcscRig]:
    with PcscRig(tmp_path) as running:
        yield running


def run(scenario: Callable[[], Awaitable[None]], timeout: float = 120) -> None:
    asyncio.run(asyncio.wait_for(scenario(), timeout))


async def until(holds: Callable[[], bool], what: str, timeout: float = SEEN) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not holds():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


async def event(driver: PcscShoe | PcscSeats, timeout: float = SEEN) -> ev.Event:
    return await asyncio.wait_for(driver.next_event(), timeout)


async def nothing(driver: PcscShoe | PcscSeats, seconds: float = 1.5) -> None:
    """No event for ``seconds`` (a few of pcscd's polls)."""
    await asyncio.sleep(seconds)
    assert driver.ready_events() == []


async def shown(rig: PcscRig, role: str, uid: bytes, **options: bool) -> VirtualTag:
    tag = VirtualTag(uid, **options)
    await asyncio.to_thread(rig.enter, role, tag)
    return tag


def test_the_shoe_reader_reads_a_tag_once_registers_the_deck_by_the_cut_card_flags_a_foreign_tag(
    rig: PcscRig,
) -> None:
    async def scenario() -> None:
        async with PcscShoe(rig.pattern("shoe"), DECK, LINK) as shoe:
            up = await event(shoe)
            assert isinstance(up, ev.LinkUp) and up.device.serial == rig.reader("shoe")
            cut = await shown(rig, "shoe", DECK.cut or b"")
            loaded = [await event(shoe) for _ in range(53)]
            cut.leave()
            cards = [e for e in loaded if isinstance(e, ev.DeckCard)]
            assert sorted((c.card, c.uid) for c in cards) == sorted(
                (code, uid) for uid, code in DECK.cards.items()
            )
            assert loaded[-1] == ev.DeckLoaded(52, DECK.deck_id, 52, 52, registered=True)
            # a tag held in the field is one card, however long it stays
            tag = await shown(rig, "shoe", TAGS[17])
            read = await event(shoe)
            assert read == ev.CardRead(53, 17, 1, TAGS[17])
            await nothing(shoe)
            tag.leave()
            await nothing(shoe, 1.0)  # leaving says nothing
            # a tag no card of the deck has: the card no code has, its UID kept
            foreign = await shown(rig, "shoe", FOREIGN)
            assert await event(shoe) == ev.CardRead(54, UNREGISTERED, 2, FOREIGN)
            foreign.leave()
            # a tag that does not answer its UID: a card dealt unread
            mute = await shown(rig, "shoe", TAGS[3], mute=True)
            assert await event(shoe) == ev.CardUnreadable(55, 3, Disposition.DEALT_UNREAD)
            mute.leave()
            for read_event in (read, *loaded):
                shoe.acknowledge(read_event)  # type: ignore[arg-type]
            assert shoe.pending == 2

    run(scenario)


def test_two_tags_at_once_are_both_read_in_turn(rig: PcscRig) -> None:
    async def scenario() -> None:
        async with PcscShoe(rig.pattern("shoe"), DECK, LINK) as shoe:
            await event(shoe)
            first = await shown(rig, "shoe", TAGS[1])
            second = VirtualTag(TAGS[2])  # in the field too: the reader answers one at a time
            entering = asyncio.create_task(asyncio.to_thread(rig.enter, "shoe", second))
            assert await event(shoe) == ev.CardRead(0, 1, 1, TAGS[1])
            first.leave()
            await entering
            assert await event(shoe) == ev.CardRead(1, 2, 2, TAGS[2])
            second.leave()

    run(scenario)


def test_a_reader_pulled_and_plugged_back_is_a_lost_link_with_nothing_lost_and_no_card_invented(
    rig: PcscRig,
) -> None:
    async def scenario() -> None:
        seats = PcscSeats({3: rig.pattern("seat 3"), 4: rig.pattern("seat 4")}, DECK, LINK)
        async with seats:
            up = await event(seats)
            assert isinstance(up, ev.LinkUp)
            on_spot = await shown(rig, "seat 3", TAGS[40])
            assert await event(seats) == ev.CardAtSeat(0, 3, 40, TAGS[40])
            await asyncio.to_thread(rig.restart, {"seat 3"})  # seat 3's reader is gone
            down = await event(seats)
            assert isinstance(down, ev.LinkDown)
            assert down.reason is ev.LinkDownReason.CONNECTION_LOST
            await nothing(seats)  # pcscd is back, seat 3's reader is not: still down
            assert not seats.link_up
            await asyncio.to_thread(rig.restart)
            back = await event(seats)
            assert isinstance(back, ev.LinkUp) and back.device.boot_id == up.device.boot_id
            assert back.next_seq == 1 and not back.restarted
            # the card still on seat 3's spot (its tag back in the field) is no new card
            on_spot.leave()
            await shown(rig, "seat 3", TAGS[40])
            await nothing(seats, 2.0)
            assert "3" in seats.held
            # a card that arrives now is read
            await shown(rig, "seat 4", TAGS[41])
            assert await event(seats) == ev.CardAtSeat(1, 4, 41, TAGS[41])

    run(scenario)


def test_a_missing_reader_is_a_missing_port(rig: PcscRig) -> None:
    async def scenario() -> None:
        shoe = PcscShoe("^No such reader$", DECK, LinkConfig(handshake_timeout=1.0))
        with pytest.raises(PortNotFoundError, match="no reader matches"):
            await shoe.open()

    run(scenario)


def test_a_hand_dealt_through_pcscd_to_the_pot_journaled_with_the_tags(tmp_path: Path) -> None:
    journal = tmp_path / "table.sqlite"

    async def scenario() -> None:
        tally = Tally()
        settings = TableSettings(seat_board=True, protection=Protection(tag_checks=True))
        async with pcsc_floor(settings, journal, tally.observe, seed=40) as floor:
            await Dealer(floor, tally, seats=2, hands=1, seed=3).run()
            table = floor.table
            assert (table.hand_number, table.in_hand, table.alerts) == (1, False, ())
            assert sum(seat.stack for seat in table.seats) == table.chips == table.bought_in
            assert table.deck is not None and table.deck.checked
            assert table.unconfirmed == ()  # every card the shoe dealt to a seat, seen there

    run(scenario, timeout=300)
    with Journal.open(journal) as opened:
        entries = list(opened.entries())
    registered = {e.fields["uid"] for e in entries if e.type == "DeckCard"}
    assert registered == {uid.hex() for uid in DECK.cards}  # the deck by its tags, as read
    dealt = [e.fields for e in entries if e.type == "CardRead"]
    assert dealt and all(TAGS[f["card"]].hex() == f["uid"] for f in dealt)
    seen = [e.fields for e in entries if e.type == "CardAtSeat"]
    # every card dealt but the four burns, seen at its seat by its tag (two players, 7 each)
    assert len(seen) == 14 and {f["uid"] for f in seen} < {f["uid"] for f in dealt}
    assert len(dealt) == len(seen) + 4


def test_the_bonus_card_a_reused_tag_and_a_foreign_tag_through_pcscd(tmp_path: Path) -> None:
    journal = tmp_path / "table.sqlite"

    async def scenario() -> None:
        tally = Tally()
        settings = TableSettings(seat_board=False, protection=Protection(tag_checks=True))
        async with pcsc_floor(settings, journal, tally.observe, seed=40) as floor:
            for seat in (1, 2):
                refused = await floor.submit(
                    SitDown(at=0, seat=seat, player=f"P{seat}", buy_in=200)
                )
                assert refused is None
            # third street, two players: down, down, down, down, up (seat 1: the four of clubs)
            first = [45, 20, 3, 31, 8]  # Kd 7c 2s 9h 4c
            await floor.load(first + [c for c in range(52) if c not in first])
            assert floor.table.deck_ready
            assert await floor.submit(NewHand(at=0)) is None
            for _ in first:
                await floor.draw(None)
            signals = floor.table.signals
            assert signals.display == "BONUS CARD: seat 1, face down"
            readers = floor.readers
            # a tag dealt in this hand shown again: a cloned or reused tag, as from a wire shoe
            await asyncio.to_thread(readers.show, "shoe", readers.tags[45])
            await until(lambda: bool(floor.table.alerts), "the reused tag's alert")
            (cloned,) = floor.table.alerts
            assert isinstance(cloned.facts, ForeignCard) and cloned.facts.tamper is Tamper.CLONED
            assert floor.table.paused
            await asyncio.to_thread(readers.show, "shoe", FOREIGN)
            await until(lambda: len(floor.table.alerts) == 2, "the foreign tag's alert")
            alert = floor.table.alerts[1]  # the wire shoe's alert of another deck's card
            assert alert.kind is AlertKind.FOREIGN_CARD
            assert alert.facts == ForeignCard(Tamper.FOREIGN, None, FOREIGN.hex())
            assert DeviceKind.SHOE in floor.table.links
            # words for the dealer: what happened and what to do, with no code in them
            words = f"{alert.message}; {alert.remedy}"
            assert not re.search(r"\d|code", words) and "surveillance" in alert.remedy, words

    run(scenario)


LUCK_TABLE = str(Path(sys.executable).parent / "luck-table")


def test_devices_lists_the_readers_pcscd_sees_and_which_one_each_pattern_matches(
    rig: PcscRig, tmp_path: Path
) -> None:
    listed = subprocess.run(
        [LUCK_TABLE, "devices"], check=False, capture_output=True, text=True, timeout=30
    )
    assert listed.returncode == 0, listed.stderr
    assert "pcscd sees 10 reader(s):" in listed.stdout
    assert f"  {rig.reader('shoe')}\n" in listed.stdout
    config = write_config(tmp_path, "unused")
    serial = 'transport = "serial"\nport = "unused"\nbaud = 115200\n'
    pcsc = f'transport = "pcsc"\nreader = \'{rig.pattern("shoe")}\'\ndeck = "d.csv"\n'
    config.write_text(config.read_text().replace(serial, pcsc))
    matched = subprocess.run(
        [LUCK_TABLE, "devices", "--config", str(config)],
        check=False,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert matched.returncode == 0, matched.stderr
    assert f"[devices.shoe] shoe: {rig.reader('shoe')}" in matched.stdout


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_deck_register_reads_the_deck_in_code_order_then_the_cut_card(
    rig: PcscRig, tmp_path: Path
) -> None:
    out = tmp_path / "deck.csv"
    command = [LUCK_TABLE, "deck", "register", "--reader", rig.pattern("shoe"), "--out", str(out)]
    with subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True
    ) as process:
        assert process.stdout is not None
        assert process.stdout.readline().startswith(f"reader {rig.reader('shoe')!r}: show")
        order = [TAGS[code] for code in range(52)]
        shown = [*order[:5], order[3], *order[5:], DECK.cut]  # a tag shown twice: refused
        for number, uid in enumerate(shown):
            tag = VirtualTag(uid or b"")
            rig.enter("shoe", tag)
            line = process.stdout.readline()
            assert uid is not None and uid.hex() in line, line
            assert ("was read already" in line) == (number == 5), line
            tag.leave()
        assert process.wait(timeout=30) == 0
    assert read_deck(out) == DECK
