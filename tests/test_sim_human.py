"""The human dealer (``luck-table sim --dealer human``): cards pitched without waiting for
the table, dealing on through cable pulls and line faults; only the links' alerts, the
chips conserved, the hands those of the automatic dealer on the core."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from controller.rules import Card
from controller.sim.dealer import Dealer, FaultRates, Injected, Pace, Resolution, Tally
from controller.sim.floor import CoreFloor
from controller.sim.human import MISTAKES, HumanDealer
from controller.table import Clearance, Protection, Remedy, Table, TableSettings
from tests.test_sim_command import summarized

LUCK_TABLE = Path(sys.executable).with_name("luck-table")


def deal(
    seed: int, *, human: bool, hands: int = 8, seats: int = 8, **options
) -> tuple[Table, Tally]:
    tally = Tally()
    floor = CoreFloor(TableSettings(), tally.observe)
    kind = HumanDealer if human else Dealer
    dealer = kind(floor, tally, seats=seats, hands=hands, seed=seed, **options)
    asyncio.run(dealer.run())
    return floor.table, tally


@pytest.mark.parametrize("seed", range(4))
def test_cable_pulls_while_dealing_raise_only_the_links_alerts(seed: int) -> None:
    automatic = deal(seed, human=False)[1]
    table, tally = deal(seed, human=True, faults=FaultRates(unplug=0.1))
    assert sum(tally.injected.values()) > 0
    assert set(tally.raised) <= {"link_down", "deck_during_hand"}
    assert 0 < tally.raised["link_down"] <= sum(tally.injected.values())  # a pull may repeat
    assert tally.conserved(table) and not table.alerts
    assert tally.hand_digest == automatic.hand_digest


def test_a_card_to_the_wrong_seat_is_moved_where_the_table_says():
    automatic = deal(2, human=False)[1]
    table, tally = deal(2, human=True, mistakes=0.1)
    assert tally.injected[Injected.WRONG_SEAT] > 0
    strays = ("misplaced_card", "card_at_empty_seat")  # the latter: a folded player's seat
    others = {"card_out_of_turn", "card_mismatch", "deck_during_hand", "dead_card"}
    assert set(tally.raised) <= {*strays, *others}, tally.raised  # the other mistakes
    assert sum(tally.raised[kind] for kind in strays) == tally.injected[Injected.WRONG_SEAT]
    for kind in strays:
        assert set(tally.resolved[kind]) <= {Resolution.MOVED_CARD}
    assert tally.conserved(table) and not table.alerts
    assert tally.hands == automatic.hands  # the wrong faces change hands, not their number


def mistaken(seed: int, hands: int, kind: type[HumanDealer] = HumanDealer) -> HumanDealer:
    tally = Tally()
    floor = CoreFloor(TableSettings(), tally.observe)
    dealer = kind(floor, tally, seats=8, hands=hands, seed=seed, mistakes=0.05)
    asyncio.run(asyncio.wait_for(dealer.run(), timeout=60))
    assert tally.conserved(floor.table) and not floor.table.alerts
    return dealer


def test_a_card_drawn_before_the_betting_is_done_is_held_and_dealt_in_its_turn():
    dealer = mistaken(1, 20)
    tally = dealer.tally
    early = tally.injected[Injected.EARLY]
    assert early > 0 and tally.raised["card_out_of_turn"] == early
    assert tally.resolved["card_out_of_turn"] == {Remedy.HOLD: early}
    assert dealer.cards_checked > 20 * 8 * 3 and dealer.astray == []  # every card where it lies


def test_a_wrong_correction_after_a_seats_misread_is_corrected_back():
    """The seat's reader misreads a card; the supervisor believes it and corrects the shoe's
    card (the mistake), sees the table show another card than the one at the seat, and
    corrects it back: every card where it lies."""
    dealer = mistaken(1, 20)
    tally = dealer.tally
    wrong = tally.injected[Injected.WRONG_CORRECTION]
    assert wrong > 0 and tally.injected[Injected.CORRECTED_BACK] == wrong
    assert tally.resolved["card_mismatch"] == {Clearance.CORRECTED: wrong}
    assert dealer.astray == []


def test_after_a_wrong_correction_the_table_disagrees_with_the_felt_until_corrected_back():
    seen: list[bool] = []

    class Watched(HumanDealer):
        async def _correct_back(self, table: Table) -> None:
            assert self.recorrect is not None and table.hand is not None
            card, wrong = self.recorrect
            seat = self.lies[card]  # where the card lies: the table has the other there
            held = [dealt.card for dealt in table.hand.player(seat).cards]
            seen.append(Card(wrong) in held and Card(card) not in held)
            await super()._correct_back(table)

    dealer = mistaken(1, 10, Watched)
    assert seen and all(seen) and dealer.astray == []


def test_the_world_knows_a_card_the_table_has_elsewhere():
    """The check of the felt against the table can fail: a dealer who moves a card to the
    seat the table says without the world noting it leaves it, in the world, where it landed."""

    class Forgetful(HumanDealer):
        async def _move_card(self, card: int, seat: int) -> None:
            await Dealer._move_card(self, card, seat)

    dealer = mistaken(1, 5, Forgetful)
    moved = dealer.tally.resolved["misplaced_card"][Resolution.MOVED_CARD]
    assert moved > 0 and len(dealer.astray) >= moved  # (with the cards at an empty seat)
    assert "lies at seat" in dealer.astray[0]


def test_a_card_with_the_wrong_face_is_recorded_where_it_lies():
    table, tally = deal(3, human=True, mistakes=0.1, hands=12)
    faced = tally.injected[Injected.EXPOSED] + tally.injected[Injected.DEALT_DOWN]
    assert faced > 0
    not_taken = (Injected.WRONG_FACE_NOT_TAKEN, Injected.WRONG_CORRECTION_NOT_TAKEN)
    assert not any(tally.injected[what] for what in not_taken), tally.injected
    assert tally.conserved(table) and not table.alerts


def test_a_hand_that_ends_on_the_card_pitched_does_not_stop_the_dealer():
    """Seed 26 at 3 seats: in hand 5 a player is all in before sixth street, so the last
    card pitched ends the hand (no betting after it). The dealer must see that the table
    has it and deal on, not wait for the table to take a card it already took."""
    tally = Tally()
    ends: list[str] = []

    def observe(table: Table, effects) -> None:
        tally.observe(table, effects)
        ends.extend(e.message for e in effects if e.kind == "no_betting" and table.in_hand)

    floor = CoreFloor(TableSettings(), observe)
    dealer = HumanDealer(floor, tally, seats=3, hands=6, seed=26)
    asyncio.run(asyncio.wait_for(dealer.run(), timeout=10))
    assert tally.hands == 6 and tally.conserved(floor.table)
    assert any(message.startswith("no betting on sixth street") for message in ends), ends


def test_a_hand_that_ends_on_the_card_pitched_while_the_shoe_is_unplugged():
    """The same hand with cable pulls: the dealer knows the hand is over before the table
    does (the shoe's report is held in it), and waits for the table."""
    tally = Tally()
    floor = CoreFloor(TableSettings(), tally.observe)
    dealer = HumanDealer(floor, tally, seats=3, hands=6, seed=26, faults=FaultRates(unplug=0.3))
    asyncio.run(asyncio.wait_for(dealer.run(), timeout=10))
    assert tally.hands == 6 and tally.conserved(floor.table)


def test_a_dealer_who_waits_for_ever_gives_way_to_a_signal():
    """A floor where nothing comes: the dealer waits (a move at a time), and the event loop
    has its turn between moves, so a deadline (as a signal's handler) stops it."""
    tally = Tally()
    floor = CoreFloor(TableSettings(), tally.observe)
    dealer = HumanDealer(floor, tally, seats=2, hands=1, seed=1)
    dealer.pitched = [0]  # a card the dealer believes pitched that the table never had
    with pytest.raises(TimeoutError):
        asyncio.run(asyncio.wait_for(dealer.run(), timeout=0.5))


def test_the_pace_is_a_persons():
    tally = Tally()
    dealer = HumanDealer(
        CoreFloor(TableSettings(), tally.observe),
        tally,
        seats=2,
        hands=1,
        seed=1,
        pace=Pace.real(1),
    )
    times = [dealer._card_time() for _ in range(2000)]
    assert 0.55 < sum(times) / len(times) < 0.8  # about 0.6 s, with pauses
    assert min(times) < 0.45 and max(times) > 1.5
    assert all(MISTAKES.values()), MISTAKES


@pytest.mark.slow
def test_the_human_dealer_on_the_simulators_and_the_service(tmp_path: Path) -> None:
    """Cable pulls and line faults, the dealer never waiting: only the links' own alerts,
    and the hands of ``--core-only``."""

    args = ("--dealer", "human", "--hands", "3", "--seats", "6", "--speed", "max", "--seed", "4")
    faulty, summary = summarized(*args, "--unplugs", "0.05", "--line-faults", "0.01", cwd=tmp_path)
    assert faulty.returncode == 0, faulty.stderr + faulty.stdout
    injected = summary["faults"]["injected"]
    assert injected.get(Injected.SHOE_UNPLUGGED, 0) + injected.get(Injected.SEAT_BOARD_UNPLUGGED, 0)
    assert set(summary["alerts"]) <= {"link_down"}, summary["alerts"]
    assert summary["chips"]["conserved"]
    _, core = summarized(*args, "--core-only", cwd=tmp_path)
    assert core["hands_fingerprint"] == summary["hands_fingerprint"]


@pytest.mark.slow
def test_mistakes_need_a_human_dealer(tmp_path: Path) -> None:
    result = subprocess.run(
        [str(LUCK_TABLE), "sim", "--mistakes", "0.1", "--core-only"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2 and "--mistakes: only a human dealer" in result.stderr


def test_a_wrong_correction_at_a_table_that_checks_tags_is_stopped_by_the_tags():
    """With tag checks the card the supervisor names is still in the shoe (its tag has not
    come out): the correction is not made, an alert says so, and the shoe's card stays."""
    tally = Tally()
    floor = CoreFloor(TableSettings(protection=Protection(tag_checks=True)), tally.observe)
    dealer = HumanDealer(floor, tally, seats=8, hands=20, seed=1, mistakes=0.05)
    asyncio.run(asyncio.wait_for(dealer.run(), timeout=60))
    stopped = tally.injected[Injected.WRONG_CORRECTION_STOPPED]
    assert stopped > 0 and tally.raised["wrong_card_named"] == stopped
    assert not tally.injected[Injected.WRONG_CORRECTION]  # none made
    assert tally.void_hands == 0 and tally.conserved(floor.table) and not floor.table.alerts
    assert dealer.astray == []  # every card where it lies
