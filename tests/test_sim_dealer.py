"""The automatic dealer and players on the pure table core (``CoreFloor``)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence

import pytest

from controller.rules import Dest, Rules, ShowdownMode, Variant
from controller.sim.dealer import (
    AT_LOAD,
    CHEATS,
    LATE,
    SEAT_CHEATS,
    Dealer,
    FaultRates,
    Injected,
    Place,
    Resolution,
    SoakCheat,
    Tally,
)
from controller.sim.floor import CoreFloor
from controller.table import AlertKind, Clearance, Protection, Remedy, Table, TableSettings
from drivers.protocol import DeviceKind, FaultCode
from tests.device_inputs import device_fault

FAULTS = FaultRates(unreadable=0.05, misplaced=0.05, unplug=0.02)
NO_FAULTS = FaultRates()


def deal(
    seed: int,
    *,
    hands: int = 12,
    seats: int = 6,
    faults: FaultRates = NO_FAULTS,
    settings: TableSettings | None = None,
    kinds: Sequence[SoakCheat] = CHEATS,
) -> tuple[Table, Tally]:
    tally = Tally()
    floor = CoreFloor(settings or TableSettings(), tally.observe)
    dealer = Dealer(floor, tally, seats=seats, hands=hands, seed=seed, faults=faults, kinds=kinds)
    asyncio.run(dealer.run())
    return floor.table, tally


def assert_sound(table: Table, tally: Tally, hands: int) -> None:
    assert tally.hands == hands and table.hand_number == hands
    assert not table.in_hand and not table.alerts
    assert tally.void_hands == 0
    stacks = sum(seat.stack for seat in table.seats)
    assert stacks == table.chips == tally.bought_in  # nobody cashed out: every chip is here
    assert tally.cards >= hands * 6  # third street to two players at least
    assert tally.drawn == tally.cards  # every card drawn went to the hand
    assert not tally.open


@pytest.mark.parametrize("seed", range(12))
def test_hands_complete_and_chips_are_conserved(seed: int) -> None:
    table, tally = deal(seed, seats=2 + seed % 7)
    assert_sound(table, tally, 12)
    assert set(tally.raised) <= {"deck_during_hand"}  # only a short stub's scramble


def test_a_seed_deals_the_same_hands_and_another_seed_others() -> None:
    first, second, other = deal(5)[1], deal(5)[1], deal(6)[1]
    assert first.hand_digest == second.hand_digest
    assert (first.cards, first.decisions) == (second.cards, second.decisions)
    assert other.hand_digest != first.hand_digest


@pytest.mark.parametrize("seed", range(6))
def test_faults_are_raised_resolved_and_change_no_hand(seed: int) -> None:
    table, tally = deal(seed, hands=20, faults=FAULTS)
    assert_sound(table, tally, 20)
    assert tally.injected[Injected.UNREADABLE] > 0 and tally.injected[Injected.MISPLACED] > 0
    assert tally.raised["unread_card"] == tally.injected[Injected.UNREADABLE]
    assert tally.raised["link_down"] == sum(
        tally.injected[what] for what in (Injected.SHOE_UNPLUGGED, Injected.SEAT_BOARD_UNPLUGGED)
    )
    resolved = sum(sum(hows.values()) for hows in tally.resolved.values())
    assert resolved == sum(tally.raised.values())
    assert Resolution.MOVED_CARD in tally.resolved["misplaced_card"]
    assert deal(seed, hands=20)[1].hand_digest == tally.hand_digest


def test_how_an_alert_was_resolved_is_one_value_of_three_kinds_apart() -> None:
    """``Tally.resolved``'s keys, written as their values (``luck-table sim --json``): the
    simulation's act, the supervisor's remedy or the table's clearance, none taken for
    another."""
    values = [how.value for kind in (Resolution, Remedy, Clearance) for how in kind]
    assert len(values) == len(set(values))


def test_without_a_seat_board_the_supervisor_enters_every_unread_card() -> None:
    settings = TableSettings(seat_board=False)
    table, tally = deal(3, hands=15, faults=FaultRates(unreadable=0.1), settings=settings)
    assert_sound(table, tally, 15)
    assert tally.resolved["unread_card"] == {
        Resolution.ENTERED_CARD: tally.injected[Injected.UNREADABLE]
    }


def test_a_priced_bonus_card_is_bought_or_declined_and_manual_showdowns_end() -> None:
    rules = Rules(bonus_price=5, showdown=ShowdownMode.MANUAL)
    table, tally = deal(2, hands=40, seats=8, settings=TableSettings(rules=rules))
    assert_sound(table, tally, 40)
    assert tally.bonus_declined > 0 and tally.bonus_cards > 0


def test_seven_card_stud_deals_no_bonus_card() -> None:
    rules = Rules(variant=Variant.SEVEN_CARD_STUD)
    table, tally = deal(4, hands=20, settings=TableSettings(rules=rules))
    assert_sound(table, tally, 20)
    assert tally.bonus_cards == 0


def test_broke_players_rebuy() -> None:
    settings = TableSettings(min_buy_in=20, max_buy_in=30)
    table, tally = deal(1, hands=60, seats=3, settings=settings)
    assert_sound(table, tally, 60)
    assert tally.bought_in > 3 * 30  # more came in than three buy-ins could


def test_a_short_stub_has_the_burn_cards_scrambled_back_into_the_shoe() -> None:
    table, tally = deal(5, hands=30, seats=8)
    assert_sound(table, tally, 30)
    # Seven or eight players on seventh street with this seed: the burns go back before any
    # community card (the short-deck order); the shoe reports the stub and the burns
    # reloaded, which the table expects: no alert.
    assert tally.scrambles == 5
    assert tally.raised == {}


def test_a_card_the_table_did_not_deal_is_kept_aside_not_pitched_to_a_seat() -> None:
    """The shoe jams as the dealer draws: the card comes out while the table is paused, so
    the table does not deal it (card_out_of_turn) and the dealer does not pitch it."""
    tally = Tally()
    floor = CoreFloor(TableSettings(), tally.observe)
    dealer = Dealer(floor, tally, seats=2, hands=1, seed=1)

    async def draw_while_paused() -> None:
        while not floor.table.in_hand:
            await dealer.move()
        waiting = floor.table.hand.waiting_for
        assert waiting.kind == "card" and waiting.seat is not None
        floor._apply(device_fault(at=floor.now(), device=DeviceKind.SHOE, fault=FaultCode.JAM))
        await dealer._deal(waiting)

    asyncio.run(draw_while_paused())
    assert [alert.kind for alert in floor.table.alerts] == [
        AlertKind.DEVICE_FAULT,
        AlertKind.CARD_OUT_OF_TURN,
    ]
    assert not floor.table.unconfirmed


def test_the_unplug_rate_is_per_card_drawn() -> None:
    table, tally = deal(7, hands=30, faults=FaultRates(unplug=0.05))
    pulls = sum(
        tally.injected[what] for what in (Injected.SHOE_UNPLUGGED, Injected.SEAT_BOARD_UNPLUGGED)
    )
    chances = tally.drawn + pulls  # a card's chance is drawn again after a pull
    assert 0.035 < pulls / chances < 0.065, (pulls, tally.drawn)
    assert tally.raised["link_down"] == pulls
    assert_sound(table, tally, 30)


CHECKED = TableSettings(protection=Protection(tag_checks=True))


@pytest.mark.parametrize("seed", range(4))
def test_every_cheat_is_caught_remedied_and_the_chips_conserved(seed: int) -> None:
    """Cheats at most decks, with the other faults a tag does not hide: each one caught by
    the alert of its kind, each alert resolved, no genuine card taken for a cheat."""
    faults = FaultRates(misplaced=0.05, unplug=0.02, cheats=0.7)
    table, tally = deal(seed, hands=40, faults=faults, settings=CHECKED)
    assert tally.cheats.total() > 10 and not tally.missed and not tally.mistaken
    alerts = ("foreign_card", "deck_rejected", "card_moved", "unverified_read")
    caught = tally.cheats.total() - tally.hidden.total()  # a clone's original left in the shoe
    assert sum(tally.raised[kind] for kind in alerts) == tally.caught.total() == caught
    assert not table.alerts and not tally.open
    assert sum(seat.stack for seat in table.seats) == table.chips == tally.bought_in
    assert (
        tally.void_hands
        == tally.resolved["foreign_card"][Remedy.REPLACE_DECK]
        + (tally.resolved["card_moved"][Remedy.VOID])
    )


def test_cheats_at_a_table_without_tag_checks_are_missed_and_counted_so() -> None:
    """The tally tells a miss: without tag checks only the deck's count and codes are
    checked, so a foreign, switched or held-out card passes; a card that moved after it
    was dealt is caught by the table's record of every card, not by its tag."""
    faults = FaultRates(cheats=0.7)
    _, tally = deal(1, hands=50, faults=faults, settings=TableSettings())
    assert tally.missed["foreign"] > 0 and tally.missed["switched"] > 0
    assert tally.missed["holdout"] > 0
    assert not tally.missed["missing"] and not tally.missed["extra"]  # its codes are checked
    assert tally.caught["passed"] > 0 and tally.caught["mucked"] > 0
    assert not tally.missed["passed"] and not tally.missed["mucked"]
    assert not tally.mistaken


def test_a_table_without_a_seat_board_gets_no_switched_card_and_misses_none() -> None:
    settings = TableSettings(seat_board=False, protection=Protection(tag_checks=True))
    _, tally = deal(2, hands=30, faults=FaultRates(cheats=0.8), settings=settings)
    assert tally.cheats.total() > 10 and "switched" not in tally.cheats
    assert not tally.missed and not tally.mistaken


@pytest.mark.parametrize("seed", range(3))
def test_cheats_at_a_full_table_reach_the_short_deck_and_every_hand_ends(seed: int) -> None:
    """Eight players, so hands reach the short deck on seventh street, and cheats at most
    decks, each foreign or re-tagged card taken out of play: the shoe runs short by those
    cards, which the hand counts (issue 34: the table waited on an empty shoe, or took a
    scrambled burn card for a clone)."""
    table, tally = deal(seed, hands=40, seats=8, faults=FaultRates(cheats=0.7), settings=CHECKED)
    assert tally.hands == 40 and tally.scrambles > 0
    assert tally.resolved["foreign_card"][Remedy.DEAD] > 0
    assert tally.cheats.total() > 10 and not tally.missed and not tally.mistaken
    assert "deck_during_hand" not in tally.raised and not table.alerts
    assert sum(seat.stack for seat in table.seats) == table.chips == tally.bought_in


@pytest.mark.parametrize("seed", [3, 5])
def test_cheats_anywhere_in_a_full_game_are_caught_at_their_card(seed: int) -> None:
    """Cheats at any place of the deck (late streets, burns, the bonus card, a card dealt
    after the short deck's scramble) and at any seat on any street, 8-handed: each caught
    at its card (no card dealt after it before its alert) but a clone dealt before its
    original (caught when the original comes out, or counted as one the table cannot
    catch); a cheat placed where its hand never got to is counted apart, not as injected."""
    table, tally = deal(seed, hands=60, seats=8, faults=FaultRates(cheats=1.0), settings=CHECKED)
    assert tally.cheats.total() > 40 and not tally.missed and not tally.mistaken
    assert (
        tally.after.total() == tally.caught.total() == tally.cheats.total() - tally.hidden.total()
    )
    assert all(set(tally.late[kind]) == {0} for kind in set(tally.late) - LATE), tally.late
    assert tally.places.total() == tally.cheats.total()
    assert {Place(Dest.SEAT, street) for street in (5, 6, 7)} <= set(tally.places)
    assert Place(Dest.BURN) in tally.places and tally.places[AT_LOAD] > 0
    hard = {5: Place(Dest.SEAT, 7, scrambled=True), 3: Place(Dest.BONUS)}[seed]
    assert tally.places[hard] >= 1, tally.places
    assert tally.unreached.total() > 0  # the random places include ones a hand never reached
    assert sum(seat.stack for seat in table.seats) == table.chips == tally.bought_in


#: The hard cases (issue 34): clones of cards still in the shoe (any card, the 4c) and every
#: cheat at a seat: a card switched, passed between players, taken from the muck, a holdout.
HARD = (*sorted(LATE), *SEAT_CHEATS)


@pytest.mark.parametrize("seed", range(4))
def test_the_hard_cheats_at_random_places_at_eight_seats_are_caught_or_cannot_be(
    seed: int,
) -> None:
    """Each of the hard cases placed at random by the seed, 8-handed, a cheat at every deck:
    each caught by the alert of its kind, a cheat at a seat at its card (``card_moved`` for
    a card passed or from the muck, ``unverified_read`` for a shielded tag, ``foreign_card``
    for a switch); a clone dealt before its original when the original comes out (the
    cards between counted), or, when the original stays in the shoe, counted as one the
    table cannot catch (docs/game-protection.md); no genuine card taken for a cheat."""
    table, tally = deal(
        seed, hands=50, seats=8, faults=FaultRates(cheats=1.0), settings=CHECKED, kinds=HARD
    )
    assert set(tally.cheats) == set(HARD), tally.cheats
    assert not tally.missed and not tally.mistaken and not table.alerts
    assert set(tally.hidden) <= LATE
    for kind in HARD:
        assert tally.caught[kind] + tally.hidden[kind] == tally.cheats[kind], kind
    for kind in SEAT_CHEATS:
        assert tally.caught[kind] > 0 and set(tally.late[kind]) == {0}, (kind, tally.late)
    streets = {place for place in tally.places if place.dest is Dest.SEAT}
    assert len(streets) >= 4, tally.places  # any street, not only the first cards
    assert (
        tally.raised["card_moved"]
        == tally.caught[SoakCheat.PASSED] + tally.caught[SoakCheat.MUCKED]
    )
    assert tally.raised["unverified_read"] == tally.caught[SoakCheat.HOLDOUT]
    assert sum(seat.stack for seat in table.seats) == table.chips == tally.bought_in


def test_a_clone_dealt_before_its_original_is_caught_when_the_original_comes_out() -> None:
    """Over seeds, clones of cards still in the shoe (the 4c too): caught cards after their
    own when the original is dealt later in the hand, and not caught when it stays in the
    shoe: both happen, and nothing else."""
    late: Counter[int] = Counter()
    hidden = caught = 0
    for seed in range(4):
        clones = sorted(LATE)
        _, tally = deal(
            seed, hands=30, seats=8, faults=FaultRates(cheats=1.0), settings=CHECKED, kinds=clones
        )
        assert not tally.missed and not tally.mistaken
        assert tally.caught[SoakCheat.CLONED_4C] + tally.hidden[SoakCheat.CLONED_4C] > 0
        caught += tally.caught.total()
        hidden += tally.hidden.total()
        late += tally.after
    assert caught > 0 and hidden > 0
    assert max(late) > 0  # cards dealt between the clone and its original
