"""Game protection in the table core: decks registered by their tags, every card checked
as it is dealt and where it lands, and the deck's life; each threat caught, each remedy
applied, the journal replayed to the same table, and no hidden card named to the dealer."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from controller.history.script import Script, play
from controller.rules import Action, Deal, Dest, Do, parse_card
from controller.table import (
    AlertKind,
    Clearance,
    Cleared,
    ClockStepped,
    Configure,
    CorrectCard,
    Decide,
    EnterCard,
    LinkUp,
    Mode,
    NewHand,
    Refuse,
    ResolveAlert,
    Table,
    TableSettings,
    Tick,
    VoidHand,
)
from controller.table.alerts import (
    Alert,
    CardMoved,
    CardNotInDeck,
    DeckDue,
    DeckRejected,
    ForeignCard,
    Lay,
    Named,
    Tamper,
    UnverifiedRead,
    WrongCardNamed,
)
from controller.table.alerts import ClockStepped as Stepped
from controller.table.inputs import Remedy
from controller.table.protection import Deck, DeckRegistered
from controller.table.settings import Protection, SettingsError
from dealer_ui.views import Role, effects_view, view
from drivers.protocol import DeviceKind, Disposition
from tests.device_inputs import card_at_seat, card_read, card_unreadable, deck_card, deck_loaded
from tests.hypothesis_profiles import examples
from tests.table_driver import TableDriver, code

CHECKS = Protection(tag_checks=True)
SIGNED = {"who": "S100", "why": "inspected"}


def tag(card: int, deck: int = 1) -> str:
    """The tag UID of card code ``card`` in deck ``deck`` (lowercase hex, as the shoe gives it)."""
    return f"04{deck:02x}{card:02x}5ac3e1"


def tags(deck: int = 1) -> list[tuple[int, str]]:
    return [(card, tag(card, deck)) for card in range(52)]


def register(
    driver: TableDriver, cards: list[tuple[int, str]], deck: int = 1, count: int | None = None
) -> None:
    """The shoe registers ``cards`` (code, UID) of deck ``deck``, then reports it loaded."""
    for card, uid in cards:
        driver.ok(deck_card, deck=deck, code=card, uid=uid)
    driver.ok(deck_loaded, count=len(cards) if count is None else count, deck=deck)


def protected(protection: Protection = CHECKS, seat_board: bool = True) -> TableDriver:
    """A table of two with tag checks and a registered deck, a hand started."""
    driver = TableDriver.make(seat_board, protection).seat({1: 500, 2: 500})
    register(driver, tags())
    driver.ok(NewHand)
    return driver


def draw(driver: TableDriver, cards: str, deck: int = 1, confirm: bool = True) -> None:
    """The shoe reads each card with its own tag; the seat board confirms it at its seat."""
    for name in cards.split():
        waiting = driver.table.hand.waiting_for  # type: ignore[union-attr]
        driver.ok(card_read, code=code(name), uid=tag(code(name), deck))
        if confirm and waiting is not None and waiting.seat is not None:
            driver.ok(card_at_seat, seat=waiting.seat, code=code(name), uid=tag(code(name), deck))


def only(driver: TableDriver, kind: AlertKind) -> Any:
    found = [alert.facts for alert in driver.table.alerts if alert.kind is kind]
    assert len(found) == 1, driver.table.alerts
    return found[0]


def replays(driver: TableDriver) -> None:
    assert driver.replayed() == driver.dump()
    assert Table.from_json(driver.table.to_json()) == driver.table
    assert Table.from_json(json.loads(driver.dump())).to_json() == driver.table.to_json()


# Deck registration ------------------------------------------------------------------------


def test_a_whole_registered_deck_is_accepted_and_its_tags_go_out() -> None:
    driver = TableDriver.make(protection=CHECKS).seat({1: 500, 2: 500})
    register(driver, tags(), deck=7)
    assert driver.table.deck_ready and driver.table.alerts == ()
    deck = driver.table.deck
    assert deck is not None and deck.deck == 7 and deck.tags == tuple(tag(c) for c in range(52))
    (registered,) = [e for e in driver.effects if isinstance(e, DeckRegistered)]
    assert registered.data["deck"] == 7 and registered.data["tags"]["Ks"] == tag(code("Ks"))
    assert len(registered.data["tags"]) == 52 and driver.table.registering is None
    driver.ok(NewHand)
    replays(driver)


def _rejected(cards: list[tuple[int, str]], count: int | None = None) -> DeckRejected:
    driver = TableDriver.make(protection=CHECKS).seat({1: 500, 2: 500})
    register(driver, cards, count=count)
    assert not driver.table.deck_ready
    assert driver.refused(NewHand) is Refuse.ALERTS_OPEN
    facts = only(driver, AlertKind.DECK_REJECTED)
    alert = driver.table.alerts[0]
    assert alert.rule.blocking and alert.rule.remedies == ()
    register(driver, tags(2), deck=2)  # the remedy: another deck, whole
    assert driver.table.deck_ready and driver.table.alerts == ()
    cleared = [e for e in driver.effects if isinstance(e, Cleared)]
    assert [c.by for c in cleared] == [Clearance.FULL_DECK]
    replays(driver)
    assert isinstance(facts, DeckRejected)
    return facts


def test_a_deck_missing_a_card_is_rejected_naming_it() -> None:
    facts = _rejected(tags()[1:])
    assert facts.missing == (parse_card("2c"),) and facts.reads == 51
    assert facts.say() == "deck 1 is rejected: 1 card missing (2c)"
    assert "load another deck" in facts.todo()


def test_a_53rd_card_is_rejected_as_a_card_twice() -> None:
    facts = _rejected([*tags(), (code("As"), "04ffee0000")])
    assert facts.twice == (parse_card("As"),) and not facts.missing
    assert facts.say() == "deck 1 is rejected: 1 card more than once (As)"


def test_a_card_of_another_code_is_rejected_as_extra() -> None:
    facts = _rejected([*tags()[:-1], (77, "04ffee0001")])
    assert facts.extra == (77,) and facts.missing == (parse_card("As"),)
    assert facts.say() == "deck 1 is rejected: 1 card missing (As); 1 code of no card (77)"


def test_a_cloned_tag_in_the_deck_is_rejected() -> None:
    cards = tags()
    cards[5] = (5, tag(9))  # card 5 carries card 9's tag
    facts = _rejected(cards)
    assert facts.cloned == (tag(9),) and facts.missing == () and facts.twice == ()
    assert facts.say() == "deck 1 is rejected: 1 tag on more than one card"  # no UID: plain words


def test_a_card_without_a_tag_and_a_count_that_differs_are_rejected() -> None:
    cards = tags()
    cards[0] = (0, "")
    facts = _rejected(cards, count=53)
    assert facts.untagged == (parse_card("2c"),)
    assert facts.say() == (
        "deck 1 is rejected: 1 card without a tag (2c); the shoe counted 53, registered 52"
    )


def test_the_cards_of_another_deck_id_do_not_count_for_this_one() -> None:
    driver = TableDriver.make(protection=CHECKS).seat({1: 500, 2: 500})
    for card, uid in tags()[:30]:
        driver.ok(deck_card, deck=1, code=card, uid=uid)
    for card, uid in tags(2):
        driver.ok(deck_card, deck=2, code=card, uid=uid)  # a new deck: the first one dropped
    driver.ok(deck_loaded, count=52, deck=1)  # ...but the shoe closes deck 1
    assert only(driver, AlertKind.DECK_REJECTED).reads == 0


def test_a_flood_of_registered_cards_is_bounded_and_rejected() -> None:
    driver = TableDriver.make(protection=CHECKS).seat({1: 500, 2: 500})
    for round_ in range(5):
        for card, uid in tags(round_ + 1):
            driver.ok(deck_card, deck=1, code=card, uid=uid)
    registering = driver.table.registering
    assert registering is not None and len(registering.cards) == 104
    driver.ok(deck_loaded, count=260, deck=1)
    facts = only(driver, AlertKind.DECK_REJECTED)
    assert facts.reads == 104 and len(facts.twice) == 52


def test_an_unregistered_deck_at_a_table_with_tag_checks_is_rejected() -> None:
    driver = TableDriver.make(protection=CHECKS).seat({1: 500, 2: 500})
    driver.ok(deck_loaded, count=52)
    facts = only(driver, AlertKind.DECK_REJECTED)
    assert facts.deck is None and "without its registration" in facts.say()
    assert not driver.table.deck_ready
    replays(driver)


def test_without_tag_checks_an_unregistered_deck_is_counted_as_before() -> None:
    driver = TableDriver.make().seat({1: 500, 2: 500})  # a journal from before: no checks
    assert driver.table.settings.protection == Protection()
    driver.ok(deck_loaded, count=52)
    assert driver.table.deck_ready and driver.table.deck == Deck(None, (), driver.clock)
    driver.ok(NewHand)
    driver.read("Qh 9s", confirm=True)
    assert driver.table.alerts == ()
    driver.ok(VoidHand, who="S100", why="end")
    driver.ok(deck_loaded, count=51)
    assert only(driver, AlertKind.BAD_DECK).count == 51  # today's alert, as before


def test_without_tag_checks_a_registration_checks_the_codes_only() -> None:
    driver = TableDriver.make(protection=Protection(tag_checks=False)).seat({1: 500, 2: 500})
    register(driver, [(card, "") for card in range(52)])  # an optical shoe: no UIDs
    assert driver.table.deck_ready and driver.table.alerts == ()
    assert not any(isinstance(e, DeckRegistered) for e in driver.effects)
    driver.ok(NewHand)
    driver.ok(card_read, code=code("Qh"))  # no UID: not checked
    assert driver.table.alerts == ()
    driver.ok(VoidHand, who="S100", why="end")
    register(driver, [(card, "") for card in range(51)], deck=2)
    assert only(driver, AlertKind.DECK_REJECTED).missing == (parse_card("As"),)


# Every card checked as it is dealt --------------------------------------------------------


@pytest.mark.parametrize(
    ("uid", "tamper", "registered", "words"),
    [
        ("04ffee9999", Tamper.FOREIGN, None, "with a tag that is not of this table's deck"),
        (tag(code("Ad")), Tamper.RETAGGED, "Ad", "a re-tagged card"),
        ("", Tamper.UNTAGGED, None, "without a tag"),
    ],
)
def test_a_card_not_of_the_deck_pauses_the_table_and_is_taken_out_of_play(
    uid: str, tamper: Tamper, registered: str | None, words: str
) -> None:
    driver = protected()
    draw(driver, "Qh")
    driver.ok(card_read, code=code("As"), uid=uid)  # for seat 2, face down
    facts = only(driver, AlertKind.FOREIGN_CARD)
    assert facts == ForeignCard(
        tamper, parse_card("As"), uid, None, None if registered is None else parse_card(registered)
    )
    assert words in facts.say() and (not uid or uid not in facts.say())  # the UID: in the facts
    assert driver.table.paused and driver.table.signals.mode is Mode.PAUSED
    assert driver.table.hand.player(2).cards == ()  # type: ignore[union-attr]  # not dealt
    dealer = view(driver.table, Role.DEALER)
    (shown,) = dealer["alerts"]
    assert shown["remedies"] == ["dead", "replace_deck"] and "card" not in shown
    assert "As" not in json.dumps(dealer) and "Qh" not in json.dumps(dealer)
    assert "As" in json.dumps(view(driver.table, Role.SURVEILLANCE))  # surveillance sees it
    driver.resolve(AlertKind.FOREIGN_CARD, Remedy.DEAD)  # the card taken away
    assert not driver.table.paused
    draw(driver, "As")  # the deck's own As: dealt to seat 2, as it was due
    assert [str(d.card) for d in driver.table.hand.player(2).cards] == ["As"]  # type: ignore[union-attr]
    replays(driver)


def test_a_tag_of_no_card_of_the_deck_read_as_no_card_is_a_foreign_card_too() -> None:
    """A reader that knows a card only by its tag (PC/SC) reads another deck's card as no
    card (code 255): the same ``foreign_card`` as a wire shoe's read of that card, with no
    card named, taken out of play as it is. Without tag checks: a card no deck has."""
    driver = protected()
    draw(driver, "Qh")
    driver.ok(card_read, code=255, uid="04ffee9999")  # for seat 2, face down
    facts = only(driver, AlertKind.FOREIGN_CARD)
    assert facts == ForeignCard(Tamper.FOREIGN, None, "04ffee9999")
    assert facts.say() == "the shoe read a card with a tag that is not of this table's deck"
    assert driver.table.paused and driver.table.hand.player(2).cards == ()  # type: ignore[union-attr]
    driver.resolve(AlertKind.FOREIGN_CARD, Remedy.DEAD)
    draw(driver, "As")  # the card due, dealt to seat 2
    assert [str(d.card) for d in driver.table.hand.player(2).cards] == ["As"]  # type: ignore[union-attr]
    replays(driver)
    unchecked = protected(Protection())
    unchecked.ok(card_read, code=255, uid="04ffee9999")
    assert only(unchecked, AlertKind.CARD_NOT_IN_DECK) == CardNotInDeck(255)


def test_a_cloned_tag_dealt_twice_is_caught_and_the_deck_replaced() -> None:
    driver = protected()
    draw(driver, "Qh 9s")
    driver.ok(card_read, code=code("Qh"), uid=tag(code("Qh")))  # its clone
    facts = only(driver, AlertKind.FOREIGN_CARD)
    assert facts.tamper is Tamper.CLONED and facts.registered == parse_card("Qh")
    assert facts.say(lambda _: "a card") == (
        "the shoe read a card with a tag already dealt from this deck: a cloned tag"
    )
    step = driver.resolve(AlertKind.FOREIGN_CARD, Remedy.REPLACE_DECK)
    assert [e.kind for e in step.effects if e.kind in ("hand_over", "deck")] == [
        "hand_over",
        "deck",
    ]
    table = driver.table
    assert not table.in_hand and table.hand.phase.value == "void"  # type: ignore[union-attr]
    assert table.deck is None and not table.deck_ready and table.alerts == ()
    assert driver.refused(NewHand) is Refuse.NO_DECK
    register(driver, tags(2), deck=2)
    driver.ok(NewHand)
    replays(driver)


def test_a_void_clears_a_foreign_card_and_the_next_deck_starts_clean() -> None:
    driver = protected()
    driver.ok(card_read, code=code("Qh"), uid="04ffee9999")
    assert driver.table.paused
    driver.ok(VoidHand, **SIGNED)
    assert driver.table.alerts == () and not driver.table.in_hand
    register(driver, tags())  # the same deck, reloaded: its tags dealt are back in the shoe
    assert driver.table.deck is not None and driver.table.deck.dealt == ()
    driver.ok(NewHand)
    draw(driver, "Qh")
    assert driver.table.alerts == ()


def test_a_card_drawn_between_hands_is_checked_too() -> None:
    driver = TableDriver.make(protection=CHECKS).seat({1: 500, 2: 500})
    register(driver, tags())
    driver.ok(card_read, code=code("Qh"), uid="04ffee9999")
    assert only(driver, AlertKind.FOREIGN_CARD).tamper is Tamper.FOREIGN
    assert "voids the hand" in driver.table.alerts[0].remedy
    driver.resolve(AlertKind.FOREIGN_CARD, Remedy.DEAD)
    driver.ok(NewHand)


def test_a_table_whose_settings_turn_checks_off_checks_no_card() -> None:
    driver = TableDriver.make(protection=CHECKS).seat({1: 500, 2: 500})
    register(driver, tags())
    off = TableSettings(min_buy_in=100, max_buy_in=1000)
    driver.ok(Configure, settings=off)
    driver.ok(NewHand)
    driver.ok(card_read, code=code("Qh"), uid="04ffee9999")
    assert driver.table.alerts == ()


def _scramble(driver: TableDriver, order: list[int]) -> None:
    """Check and call with eight players to seventh street: the engine scrambles the burns."""
    while not driver.table.scramble_due:
        waiting = driver.table.hand.waiting_for  # type: ignore[union-attr]
        assert waiting is not None
        if waiting.kind == "card":
            card = order.pop()
            driver.ok(card_read, code=card, uid=tag(card))
            continue
        legal = {choice.do for choice in waiting.legal}
        do = next(d for d in (Do.CHECK, Do.CALL, Do.BRING_IN) if d in legal)
        driver.act(waiting.seat, do.value)


def test_the_burn_cards_scrambled_back_are_not_clones_when_dealt_again() -> None:
    driver = TableDriver.make(False, CHECKS).seat({seat: 500 for seat in range(1, 9)})
    register(driver, tags())
    driver.ok(NewHand)
    order = list(range(52))
    _scramble(driver, order)
    hand = driver.table.hand
    assert hand is not None
    count = next(n for n in range(53) if hand.expects_reload(n))
    driver.ok(deck_loaded, count=count)
    burn = hand.burns[0]
    driver.ok(card_read, code=int(burn), uid=tag(int(burn)))  # a burn card, out again
    assert not [a for a in driver.table.alerts if a.kind is AlertKind.FOREIGN_CARD]
    replays(driver)


def _cheated(data: st.DataObject, shoe: list[tuple[int, str]], most: int) -> int:
    """Put 1 to ``most`` cheats at random places of the load (a foreign card, a re-tagged
    card, a copy of an earlier card's tag), each in place of the card there; how many."""
    places = data.draw(st.sets(st.integers(1, 51), min_size=1, max_size=most), label="places")
    for place in places:
        card, uid = shoe[place]
        match data.draw(st.sampled_from(["foreign", "retagged", "cloned"]), label="cheat"):
            case "foreign":
                shoe[place] = (card, f"04ffee{place:02x}")
            case "retagged":
                shoe[place] = ((card + 1) % 52, uid)
            case _:
                shoe[place] = shoe[data.draw(st.integers(0, place - 1), label="copied")]
    return len(places)


def _eight_to_the_end(data: st.DataObject, most: int) -> tuple[TableDriver, int]:
    """Eight players checking and calling to the end, so the stub runs short and the burns
    go back into the shoe, with 1 to ``most`` cheats at random places of the load, each
    taken out of play (dead) as it is caught; a shoe left with no card for the hand
    (``shoe_empty``) voided. The hand counts the cards in the shoe exactly at every card.
    The table and how many cheats were put in."""
    driver = TableDriver.make(False, CHECKS).seat({seat: 500 for seat in range(1, 9)})
    register(driver, tags())
    driver.ok(NewHand)
    shoe = list(data.draw(st.permutations(tags()), label="shuffle"))
    cheats = _cheated(data, shoe, most)
    burns: dict[int, tuple[int, str]] = {}  # the physical burn cards, by the code read
    while driver.table.in_hand:
        table = driver.table
        hand = table.hand
        assert hand is not None
        if table.alerts:
            (alert,) = table.alerts
            if alert.kind is AlertKind.SHOE_EMPTY:
                assert not shoe and hand.stub == 0 and hand.gone > 0, alert.message
                driver.ok(ResolveAlert, alert=alert.id, remedy=Remedy.VOID, **SIGNED)
                continue
            assert alert.kind is AlertKind.FOREIGN_CARD, alert.message
            driver.ok(ResolveAlert, alert=alert.id, remedy=Remedy.DEAD, **SIGNED)
            continue
        if table.scramble_due:  # the dealer puts the burns back with the stub, shuffled
            shoe += [burns[int(card)] for card in hand.scrambled_burns]
            shoe = list(data.draw(st.permutations(shoe), label="scramble"))
            driver.ok(deck_loaded, count=len(shoe))
            continue
        waiting = hand.waiting_for
        assert waiting is not None
        if waiting.kind == "card":
            assert len(shoe) == hand.stub  # the hand knows the shoe's count
            card, uid = shoe.pop(0)
            driver.ok(card_read, code=card, uid=uid)
            if waiting.destination is Dest.BURN and not driver.table.alerts:
                burns[card] = (card, uid)
        elif waiting.kind == "action":
            legal = {choice.do for choice in waiting.legal}
            do = next(d for d in (Do.CHECK, Do.CALL, Do.BRING_IN) if d in legal)
            driver.act(waiting.seat, do.value)  # type: ignore[arg-type]
        elif waiting.kind == "bonus":
            driver.ok(Decide, seat=waiting.seat, do=Do.BONUS, accept=True)
        else:
            driver.ok(Decide, seat=waiting.seat, do=Do.SHOW)
    return driver, cheats


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_cheats_taken_out_of_play_leave_the_short_deck_counted_right(data: st.DataObject) -> None:
    """Up to two cheats (issue 34): the short deck is decided on the shoe's real stub, the
    scramble's reload is accepted, no genuine card is taken for a clone beyond the pair a
    clone makes, and the hand ends complete."""
    driver, cheats = _eight_to_the_end(data, 2)
    hand = driver.table.hand
    assert hand is not None and hand.phase.value == "complete"
    assert hand.scrambled  # eight players always reach the short deck
    raised = [e for e in driver.effects if getattr(e, "kind", "") == "alert"]
    assert {e.data["kind"] for e in raised} <= {"foreign_card"}  # type: ignore[attr-defined]
    assert len(raised) <= cheats
    event(f"cheats caught: {len(raised)}")
    replays(driver)
    log = driver.table.hand_log  # the hand's script (luck-table history) plays the same hand
    cards = tuple(item.card for item in log if isinstance(item, Deal))
    actions = tuple(item for item in log if isinstance(item, Action))
    assert play(Script(hand.rules, hand.starting_stacks(), cards, actions)).hand == hand


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_more_cards_out_of_play_than_burns_end_in_a_void_not_a_wait(data: st.DataObject) -> None:
    """Up to eight cheats taken out of play in an 8-handed hand that goes to the end: the
    hand counts the shoe exactly at every card (``_eight_to_the_end``); where the cards
    left, the burns scrambled back included, cannot finish the deal, the table says so
    (``shoe_empty``, blocking: void) instead of waiting on an empty shoe; else it ends
    complete."""
    driver, cheats = _eight_to_the_end(data, 8)
    hand = driver.table.hand
    assert hand is not None and not driver.table.in_hand and driver.table.alerts == ()
    empty = [e for e in driver.effects if getattr(e, "kind", "") == "alert"]
    empty = [e for e in empty if e.data["kind"] == "shoe_empty"]  # type: ignore[attr-defined]
    assert hand.phase.value == ("void" if empty else "complete")
    assert len(empty) <= 1 and (not empty or hand.gone >= 3) and hand.gone <= cheats
    event(f"cards out of play: {hand.gone}; {'void' if empty else 'complete'}")
    replays(driver)


# Corrections and entries checked against the deck ------------------------------------------


def test_a_correction_to_a_card_still_in_the_shoe_is_not_applied_and_says_so() -> None:
    """7h -> 4c on a face-down card while the deck's 4c has not come out of the shoe: an
    alert for surveillance, nothing changed; the real 4c, drawn later, is dealt as usual."""
    driver = protected()
    draw(driver, "7h")  # seat 1, face down
    before = driver.table.hand
    step = driver.ok(CorrectCard, wrong=parse_card("7h"), right=parse_card("4c"), **SIGNED)
    assert not [e for e in step.effects if e.kind == "supervised"]  # no correction made
    facts = only(driver, AlertKind.WRONG_CARD_NAMED)
    assert facts == WrongCardNamed(parse_card("4c"), Named.IN_SHOE, "S100", parse_card("7h"))
    assert facts.say() == (
        "supervisor S100 corrected 7h to 4c, but the deck's 4c has not come out of the shoe: "
        "its tag is in it"
    )
    assert "call surveillance" in facts.todo()
    assert driver.table.hand == before and driver.table.paused
    dealer = json.dumps(view(driver.table, Role.DEALER))
    assert "4c" not in dealer and "7h" not in dealer  # a hole card's names stay hidden
    shown = view(driver.table, Role.DEALER)["alerts"][0]
    assert shown["remedies"] == ["done", "void"]
    driver.resolve(AlertKind.WRONG_CARD_NAMED, Remedy.DONE)
    draw(driver, "Qd 4c")  # the deck's own 4c: dealt, not taken for a card in play
    assert driver.table.alerts == ()
    assert [str(d.card) for d in driver.table.hand.player(1).cards] == ["7h", "4c"]  # type: ignore[union-attr]
    replays(driver)


def test_a_wrong_card_named_may_void_the_hand() -> None:
    driver = protected()
    draw(driver, "7h")
    driver.ok(CorrectCard, wrong=parse_card("7h"), right=parse_card("4c"), **SIGNED)
    driver.resolve(AlertKind.WRONG_CARD_NAMED, Remedy.VOID)
    assert not driver.table.in_hand and driver.table.alerts == ()
    assert driver.table.hand.phase.value == "void"  # type: ignore[union-attr]
    replays(driver)


def test_an_unread_card_entered_as_a_card_in_play_is_not_entered() -> None:
    driver = protected(seat_board=False)
    draw(driver, "7h 8h", confirm=False)
    driver.ok(card_unreadable, disposition=Disposition.DEALT_UNREAD)
    driver.ok(EnterCard, card=parse_card("8h"), **SIGNED)
    facts = only(driver, AlertKind.WRONG_CARD_NAMED)
    assert facts == WrongCardNamed(parse_card("8h"), Named.IN_PLAY, "S100")
    assert only(driver, AlertKind.UNREAD_CARD).due  # still to be entered
    driver.resolve(AlertKind.WRONG_CARD_NAMED, Remedy.DONE)
    driver.ok(EnterCard, card=parse_card("2c"), **SIGNED)
    assert driver.table.alerts == ()
    replays(driver)


def test_a_wrong_entry_is_found_when_the_cards_own_tag_comes_out() -> None:
    """An unread card entered as the 4c while the deck's 4c is in the shoe: nothing can
    check the entry, but when the 4c's own tag comes out the alert says the card in play
    was named without its tag; the supervisor corrects that card (a card with no tag read
    is not checked against the tags) and the 4c goes where it is due."""
    driver = protected(seat_board=False)
    draw(driver, "7h", confirm=False)
    driver.ok(card_unreadable, disposition=Disposition.DEALT_UNREAD)  # seat 2's: the 9s
    driver.ok(EnterCard, card=parse_card("4c"), **SIGNED)  # the supervisor's mistake
    assert driver.table.alerts == ()
    driver.ok(card_read, code=code("4c"), uid=tag(code("4c")))  # the deck's own 4c
    facts = only(driver, AlertKind.CARD_IN_PLAY)
    assert facts.own_tag and "named without its tag and is another card" in facts.say()
    assert "corrects it to the card it is" in facts.todo()
    driver.ok(CorrectCard, wrong=parse_card("4c"), right=parse_card("9s"), **SIGNED)
    assert driver.table.alerts == ()
    hand = driver.table.hand
    assert hand is not None
    assert [str(d.card) for d in hand.player(2).cards] == ["9s"]
    assert [str(d.card) for d in hand.player(1).cards] == ["7h", "4c"]  # the 4c, due there
    replays(driver)


# Cards at the seats -------------------------------------------------------------------------


def test_a_hole_card_switched_for_its_twin_is_caught_at_the_seat() -> None:
    driver = protected()
    draw(driver, "Qh")
    driver.ok(card_read, code=code("9s"), uid=tag(code("9s")))  # seat 2, face down
    driver.ok(card_at_seat, seat=2, code=code("9s"), uid="04beef0001")  # another 9s there
    facts = only(driver, AlertKind.FOREIGN_CARD)
    assert facts == ForeignCard(Tamper.SWITCHED, parse_card("9s"), "04beef0001", 2, None)
    assert driver.table.paused and driver.table.unconfirmed == ()
    dealer = view(driver.table, Role.DEALER)
    assert "9s" not in json.dumps(dealer)  # seat 2's hole card: never named to the dealer
    assert dealer["alerts"][0]["message"] == (
        "the card at seat 2 (a card) is not the card the shoe dealt there: a switched card"
    )
    for role in (Role.DEALER, Role.PUBLIC):
        assert "9s" not in str(effects_view(driver.effects, driver.table, role))
    assert view(driver.table, Role.PUBLIC)["alerts"] == []
    driver.ok(card_at_seat, seat=2, code=code("9s"), uid="04beef0001")  # reported again: once
    assert len(driver.table.alerts) == 1
    driver.ok(VoidHand, **SIGNED)
    assert driver.table.alerts == ()
    replays(driver)


def test_a_hole_card_switched_for_another_face_is_caught_not_taken_for_a_misread() -> None:
    driver = protected()
    draw(driver, "Qh")
    driver.ok(card_read, code=code("9s"), uid=tag(code("9s")))
    driver.ok(card_at_seat, seat=2, code=code("Ac"), uid="04beef0002")  # an ace from a sleeve
    facts = only(driver, AlertKind.FOREIGN_CARD)
    assert (facts.tamper, facts.seat, facts.card) == (Tamper.SWITCHED, 2, parse_card("Ac"))
    assert not [a for a in driver.table.alerts if a.kind is AlertKind.CARD_MISMATCH]


def test_a_card_the_shoe_never_dealt_at_a_seat() -> None:
    driver = protected()
    draw(driver, "Qh 9s")
    driver.ok(card_at_seat, seat=1, code=code("Kd"), uid=tag(code("Kd")))  # this deck's Kd
    facts = only(driver, AlertKind.FOREIGN_CARD)
    assert (facts.tamper, facts.seat, facts.registered) == (
        Tamper.NOT_DEALT,
        1,
        parse_card("Kd"),
    )
    assert facts.say() == "a card the shoe never dealt is at seat 1 (Kd)"
    driver.resolve(AlertKind.FOREIGN_CARD, Remedy.DEAD)
    assert not driver.table.paused


def test_a_seat_report_before_the_shoes_is_checked_once_the_shoe_reports() -> None:
    driver = TableDriver.make(protection=CHECKS).seat({1: 500, 2: 500})
    driver.ok(LinkUp, device=DeviceKind.SHOE, boot=1, next_seq=1, pending=0)
    register(driver, tags())
    driver.ok(NewHand)
    driver.ok(card_at_seat, seat=1, code=code("Qh"), uid=tag(code("Qh")))  # the seat board first
    assert driver.table.streams.waiting and driver.table.alerts == ()
    driver.ok(card_read, code=code("Qh"), uid=tag(code("Qh")), seq=1)
    assert driver.table.alerts == () and driver.table.unconfirmed == ()
    driver.ok(card_at_seat, seat=2, code=code("9s"), uid="04beef0003")  # waits for the shoe
    driver.ok(card_read, code=code("9s"), uid=tag(code("9s")), seq=2)
    assert only(driver, AlertKind.FOREIGN_CARD).tamper is Tamper.SWITCHED
    driver.ok(Tick)
    replays(driver)


@pytest.mark.parametrize("reads", ["Qh", None])
def test_a_seat_read_without_a_tag_is_not_a_confirmation(reads: str | None) -> None:
    """The seat's reader reports the card dealt there (its face, or nothing) without a tag:
    a card with a shielded or dead tag may be there instead. Surveillance is told, the
    seat's count goes up; the dealing goes on (the house's default)."""
    driver = protected()
    driver.ok(card_read, code=code("Qh"), uid=tag(code("Qh")))
    step = driver.ok(card_at_seat, seat=1, code=None if reads is None else code(reads))
    facts = only(driver, AlertKind.UNVERIFIED_READ)
    assert facts == UnverifiedRead(1, parse_card("Qh"), 1)
    assert "without a readable tag (1 at this seat): not confirmed" in facts.say()
    assert "surveillance reviews seat 1" in facts.todo()
    assert not [e for e in step.effects if getattr(e, "by", None) == Clearance.CONFIRMED_AT_SEAT]
    assert driver.table.unconfirmed == () and not driver.table.paused
    assert driver.table.unverified == (1, 0, 0, 0, 0, 0, 0, 0)
    assert "Qh" not in json.dumps(view(driver.table, Role.DEALER))  # a hole card
    draw(driver, "9s")  # the dealing goes on
    driver.ok(card_read, code=code("8d"), uid=tag(code("8d")))
    driver.ok(card_at_seat, seat=1, code=code("8d"))
    assert driver.table.unverified[0] == 2
    for alert in driver.table.alerts:
        driver.ok(ResolveAlert, alert=alert.id, remedy=Remedy.DONE, **SIGNED)
    assert driver.table.alerts == () and driver.table.unverified[0] == 2  # the count stays
    replays(driver)


def test_the_house_may_make_a_read_without_a_tag_pause_the_dealing() -> None:
    driver = protected(Protection(tag_checks=True, unverified_blocks=True))
    driver.ok(card_read, code=code("Qh"), uid=tag(code("Qh")))
    driver.ok(card_at_seat, seat=1, code=code("Qh"))
    assert driver.table.paused
    assert driver.table.signals.mode is Mode.PAUSED
    driver.resolve(AlertKind.UNVERIFIED_READ, Remedy.DONE)
    assert not driver.table.paused


def test_an_unread_card_named_at_its_seat_without_a_tag_is_unverified() -> None:
    driver = protected()
    driver.ok(card_unreadable, disposition=Disposition.DEALT_UNREAD)
    driver.ok(card_at_seat, seat=1, code=code("Qh"))  # its face, no tag
    assert [str(d.card) for d in driver.table.hand.player(1).cards] == ["Qh"]  # type: ignore[union-attr]
    assert only(driver, AlertKind.UNVERIFIED_READ) == UnverifiedRead(1, parse_card("Qh"), 1)
    replays(driver)


def test_without_tag_checks_a_read_without_a_tag_confirms_as_before() -> None:
    driver = TableDriver.make().start({1: 500, 2: 500})
    driver.ok(card_read, code=code("Qh"))
    driver.ok(card_at_seat, seat=1, code=code("Qh"))
    assert driver.table.alerts == () and driver.table.unconfirmed == ()


# Cards that move after they were dealt ------------------------------------------------------


def third_street(stacks: dict[int, int], cards: str) -> TableDriver:
    """A hand dealt to third street, every card confirmed at its seat by the seat board."""
    driver = TableDriver.make().start(stacks)
    driver.read(cards, confirm=True)
    assert driver.table.alerts == () and driver.table.unconfirmed == ()
    return driver


def test_a_confirmed_hole_card_read_at_another_seat_is_a_card_moved() -> None:
    driver = third_street({1: 500, 2: 500}, "As Ks Ad Kd 2c 3c")
    driver.ok(card_at_seat, seat=2, code=code("As"))  # seat 1's hole card, passed to seat 2
    facts = only(driver, AlertKind.CARD_MOVED)
    assert facts == CardMoved(2, parse_card("As"), Lay.SEAT, 1)
    assert facts.say() == "a card moved: seat 2's reader sees As, seat 1's card, confirmed there"
    assert facts.todo().startswith("keep every card where it is; call surveillance")
    assert not [a for a in driver.table.alerts if a.kind is AlertKind.MISPLACED_CARD]
    assert driver.table.paused
    dealer = view(driver.table, Role.DEALER)
    assert dealer["alerts"][0]["remedies"] == ["hold", "void"]
    assert "As" not in json.dumps(dealer)  # a hole card stays unnamed
    driver.ok(card_at_seat, seat=2, code=code("As"))  # reported again: no second alert
    before = driver.table.hand
    driver.resolve(AlertKind.CARD_MOVED, Remedy.HOLD)  # the hand goes on as the table has it
    assert driver.table.alerts == () and driver.table.hand == before and not driver.table.paused
    assert driver.table.held == ()
    replays(driver)


def test_a_folded_hands_card_at_a_live_seat_is_a_card_moved_and_may_void() -> None:
    driver = third_street({1: 500, 2: 500, 3: 500}, "As Ks Qs Ad Kd Qd 2c 3c 4d")
    assert driver.act(1, "bring_in").refused is None
    assert driver.act(2, "fold").refused is None
    driver.ok(card_at_seat, seat=3, code=code("Ks"))  # seat 2's mucked hole card
    assert only(driver, AlertKind.CARD_MOVED) == CardMoved(3, parse_card("Ks"), Lay.FOLDED, 2)
    assert "a card of seat 2, which folded" in driver.table.alerts[0].message
    driver.resolve(AlertKind.CARD_MOVED, Remedy.VOID)
    assert not driver.table.in_hand and driver.table.alerts == ()
    replays(driver)


def test_a_burn_card_at_a_seat_is_a_card_moved() -> None:
    driver = third_street({1: 500, 2: 500}, "As Ks Ad Kd 2c 3c")
    assert driver.act(1, "bring_in").refused is None
    assert driver.act(2, "call").refused is None
    driver.read("5h")  # the burn before fourth street
    driver.ok(card_at_seat, seat=1, code=code("5h"))
    assert only(driver, AlertKind.CARD_MOVED) == CardMoved(1, parse_card("5h"), Lay.BURN)
    assert "a burn card" in driver.table.alerts[0].message


def test_a_card_landing_at_the_wrong_seat_as_it_is_dealt_is_still_misplaced() -> None:
    driver = TableDriver.make().start({1: 500, 2: 500})
    driver.ok(card_read, code=code("As"))  # for seat 1
    driver.ok(card_at_seat, seat=2, code=code("As"))
    assert only(driver, AlertKind.MISPLACED_CARD).belongs == 1
    assert not [a for a in driver.table.alerts if a.kind is AlertKind.CARD_MOVED]


# The deck's life -----------------------------------------------------------------------------


def _hand(driver: TableDriver, deck: int = 1) -> None:
    """A hand on a deck registered again (shuffled, reloaded), voided at once."""
    if not driver.table.deck_ready:
        register(driver, tags(deck), deck=deck)
    driver.ok(NewHand)
    driver.ok(VoidHand, who="S100", why="next")


def test_a_deck_past_its_hands_is_due_at_the_hands_end_without_pausing() -> None:
    driver = TableDriver.make(protection=Protection(True, deck_hands=2)).seat({1: 500, 2: 500})
    _hand(driver)
    assert driver.table.deck is not None and driver.table.deck.hands == 1
    assert driver.table.alerts == ()
    _hand(driver)  # the same deck again: its second hand
    facts = only(driver, AlertKind.DECK_DUE)
    assert facts == DeckDue(2, 0, 2, None)
    assert facts.say() == (
        "the deck is due for replacement: 2 hands in 0 h 00 min (its life: 2 hands)"
    )
    assert not driver.table.paused
    _hand(driver)  # it may still deal: one alert in its life
    assert len(driver.table.alerts) == 1
    assert (
        driver.refused(ResolveAlert, alert=driver.table.alerts[0].id, remedy=Remedy.DONE, **SIGNED)
        is Refuse.DECK_TAGGED
    )
    _hand(driver, deck=2)  # a new deck (other tags): the alert clears
    assert driver.table.alerts == ()
    clear = [e for e in driver.effects if isinstance(e, Cleared)][-1]
    assert clear.by is Clearance.NEW_DECK
    assert driver.table.deck is not None and driver.table.deck.hands == 1
    replays(driver)


def test_a_deck_past_its_hours_is_due_by_the_inputs_times() -> None:
    protection = Protection(True, deck_hours=0.5)
    driver = TableDriver.make(protection=protection).seat({1: 500, 2: 500})
    _hand(driver)
    driver.clock += 29 * 60_000
    _hand(driver)
    assert driver.table.alerts == ()
    driver.clock += 60_000
    _hand(driver)
    facts = only(driver, AlertKind.DECK_DUE)
    assert (facts.hands, facts.minutes, facts.limit_hours) == (3, 30, 0.5)
    assert "3 hands in 0 h 30 min (its life: 0.5 hours)" in facts.say()


def test_a_step_of_the_wall_clock_moves_no_deck_age_and_no_seat_reports_wait() -> None:
    """The service journals a step of its wall clock (``ClockStepped``): the deck's life and
    a seat report's wait go on by the time that really passed, and the step is a
    non-blocking alert."""
    protection = Protection(True, deck_hours=0.5)
    driver = TableDriver.make(protection=protection).seat({1: 500, 2: 500})
    _hand(driver)
    driver.clock += 3_600_000  # the clock stepped an hour forward
    driver.ok(ClockStepped, step=3_600_000)
    _hand(driver)
    assert [a.kind for a in driver.table.alerts] == [AlertKind.CLOCK_STEPPED]  # no deck_due
    stepped = only(driver, AlertKind.CLOCK_STEPPED)
    assert stepped == Stepped(3_600_000)
    assert stepped.say().startswith("the computer's clock jumped forward 1 h 0 min")
    assert not driver.table.paused
    driver.clock -= 7_200_000  # and two hours back
    driver.ok(ClockStepped, step=-7_200_000)
    driver.clock += 30 * 60_000
    _hand(driver)  # 30 minutes of the deck's life have passed, whatever the clock said
    assert (only(driver, AlertKind.DECK_DUE).minutes, len(driver.table.alerts)) == (30, 3)
    assert driver.table.alerts[1].facts == Stepped(-7_200_000)  # back two hours
    assert driver.refused(ClockStepped, step=0) is Refuse.MALFORMED
    replays(driver)

    waits = TableDriver.make(protection=CHECKS).seat({1: 500, 2: 500})
    waits.ok(LinkUp, device=DeviceKind.SHOE, boot=1, next_seq=1, pending=0)
    register(waits, tags())
    waits.ok(NewHand)
    waits.ok(card_at_seat, seat=1, code=code("Qh"), uid=tag(code("Qh")))  # waits for the shoe
    reported = waits.table.streams.waiting[0].at
    waits.clock -= 3_600_000
    waits.ok(ClockStepped, step=-3_600_000)
    assert waits.table.streams.waiting[0].at == reported - 3_600_000
    replays(waits)


def test_without_tag_checks_the_supervisor_says_when_a_new_deck_is_in() -> None:
    driver = TableDriver.make(protection=Protection(deck_hands=1)).seat({1: 500, 2: 500})
    driver.ok(deck_loaded, count=52)
    driver.ok(NewHand)
    driver.ok(VoidHand, who="S100", why="next")
    assert only(driver, AlertKind.DECK_DUE).hands == 1
    driver.ok(deck_loaded, count=52)  # the table cannot tell: the same deck's life goes on
    assert len(driver.table.alerts) == 1
    driver.resolve(AlertKind.DECK_DUE, Remedy.DONE)
    deck = driver.table.deck
    assert deck is not None and (deck.hands, deck.due, deck.since) == (0, False, driver.clock)
    replays(driver)


# Settings -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"tag_checks": "yes"}, "protection.tag_checks"),
        ({"deck_hands": 0}, "protection.deck_hands"),
        ({"deck_hands": True}, "protection.deck_hands"),
        ({"deck_hours": 0}, "protection.deck_hours"),
        ({"deck_hours": 200}, "protection.deck_hours"),
        ({"deck_life": 3}, None),  # unknown: the words name it
    ],
)
def test_bad_protection_settings_are_refused_naming_them(
    data: dict[str, Any], field: str | None
) -> None:
    with pytest.raises(SettingsError) as refused:
        TableSettings.from_json({"protection": data})
    assert refused.value.field == field


def test_settings_without_protection_read_back_as_a_table_without_checks() -> None:
    settings = TableSettings(protection=Protection(True, 200, 4.5))
    assert TableSettings.from_json(settings.to_json()) == settings
    old = settings.to_json()
    del old["protection"]  # as a journal written before game protection holds it
    assert TableSettings.from_json(old).protection == Protection()


def test_the_console_views_say_whether_the_table_checks_tags() -> None:
    checked = TableDriver.make(protection=CHECKS).table
    unchecked = TableDriver.make(protection=Protection(tag_checks=False)).table
    for role in (Role.DEALER, Role.SURVEILLANCE):
        assert view(checked, role)["tag_checks"] is True
        assert view(unchecked, role)["tag_checks"] is False


def test_no_protection_words_name_a_card_but_through_the_readers_name() -> None:
    """With every card hidden, no words of the new alerts name a card (the dealer's view
    of a rejected deck counts the cards; surveillance's names them)."""
    hidden = "<hidden>"
    card_name = re.compile(r"\b[2-9TJQKA][cdhs]\b")
    kd, as_ = parse_card("Kd"), parse_card("As")
    every = [
        DeckRejected(3, 53, 53, (kd,), (as_,), (77,), ("04aa",), (kd,)),
        DeckRejected(None, 52),
        DeckDue(300, 95, 300, 8.0),
        *(ForeignCard(tamper, as_, "04aa", None, kd) for tamper in Tamper),
        *(ForeignCard(tamper, as_, "04aa", 3, kd) for tamper in Tamper),
    ]
    for facts in every:
        for words in (facts.say(lambda _: hidden), facts.todo(lambda _: hidden)):
            assert not card_name.search(words), (facts, words)
    assert every[0].say() == (
        "deck 3 is rejected: 1 card missing (Kd); 1 card more than once (As); 1 code of no "
        "card (77); 1 tag on more than one card; 1 card without a tag (Kd)"
    )


def test_a_dealt_tag_on_another_face_at_a_seat_is_taken_for_a_misread() -> None:
    """The limit docs/game-protection.md states: the tag came out of the shoe, so the seat's
    other face is one of the two readers' misread, and the supervisor looks."""
    driver = protected()
    draw(driver, "Qh")
    driver.ok(card_read, code=code("9s"), uid=tag(code("9s")))
    driver.ok(card_at_seat, seat=2, code=code("9d"), uid=tag(code("9s")))
    assert [a.kind for a in driver.table.alerts] == [AlertKind.CARD_MISMATCH]


def test_a_deck_replaced_mid_hand_is_not_due_at_the_void() -> None:
    driver = TableDriver.make(protection=Protection(True, deck_hands=1)).seat({1: 500, 2: 500})
    register(driver, tags())
    driver.ok(NewHand)
    driver.ok(card_read, code=code("Qh"), uid="04ffee9999")
    driver.resolve(AlertKind.FOREIGN_CARD, Remedy.REPLACE_DECK)
    assert driver.table.alerts == () and driver.table.deck is None
    register(driver, tags(2), deck=2)
    _hand(driver, deck=2)
    assert only(driver, AlertKind.DECK_DUE).hands == 1


def test_a_card_that_left_the_shoe_unread_is_checked_by_the_seats_reader() -> None:
    driver = protected()
    driver.ok(card_unreadable, disposition=Disposition.DEALT_UNREAD)  # seat 1's, unread
    driver.ok(card_at_seat, seat=1, code=code("Qh"), uid=tag(code("Qh")))  # its own tag
    assert driver.table.alerts == () and driver.table.unconfirmed == ()
    assert tag(code("Qh")) in driver.table.deck.dealt  # type: ignore[union-attr]
    driver.ok(card_unreadable, disposition=Disposition.DEALT_UNREAD)  # seat 2's, unread
    driver.ok(card_at_seat, seat=2, code=code("9s"), uid="04beef0004")  # a foreign tag
    facts = only(driver, AlertKind.FOREIGN_CARD)
    assert (facts.tamper, facts.seat) == (Tamper.FOREIGN, 2)
    assert facts.say(lambda _: "a card") == (
        "seat 2's reader read a card with a tag that is not of this table's deck"
    )
    assert "leave every card at seat 2" in facts.todo()
    replays(driver)


def test_a_card_the_supervisor_entered_is_confirmed_at_its_seat_by_its_own_tag() -> None:
    driver = protected()
    driver.ok(card_unreadable, disposition=Disposition.DEALT_UNREAD)
    driver.ok(EnterCard, card=parse_card("Qh"), **SIGNED)  # the seat's reader was down
    assert driver.table.unconfirmed != ()
    driver.ok(card_at_seat, seat=1, code=code("Qh"), uid=tag(code("Qh")))
    assert driver.table.alerts == () and driver.table.unconfirmed == ()
    driver.ok(card_unreadable, disposition=Disposition.DEALT_UNREAD)
    driver.ok(EnterCard, card=parse_card("9s"), **SIGNED)
    driver.ok(card_at_seat, seat=2, code=code("9s"), uid="04beef0005")  # not the deck's 9s
    assert only(driver, AlertKind.FOREIGN_CARD).tamper is Tamper.SWITCHED


def test_between_hands_the_last_hands_cards_at_the_seats_are_not_checked() -> None:
    driver = protected()
    draw(driver, "Qh 9s", confirm=False)
    driver.ok(VoidHand, **SIGNED)
    register(driver, tags())  # the next load: no tag dealt yet
    driver.ok(card_at_seat, seat=1, code=code("Qh"), uid=tag(code("Qh")))  # reported late
    driver.ok(card_at_seat, seat=2, code=code("Qh"), uid=tag(code("Qh")))  # swept past seat 2
    assert not [a for a in driver.table.alerts if a.kind is AlertKind.FOREIGN_CARD]


# Any sequence: every cheat caught, nothing else taken for one --------------------------------


def _settle_alert(data: st.DataObject, driver: TableDriver) -> bool:
    """Resolve the first blocking alert as a supervisor would; False when none is open."""
    blocking = [alert for alert in driver.table.alerts if alert.rule.blocking]
    if not blocking:
        return False
    alert = blocking[0]
    if alert.kind is AlertKind.DECK_REJECTED:
        register(driver, tags())
    elif alert.rule.remedies:
        remedy = data.draw(st.sampled_from(alert.rule.remedies), label="remedy")
        if remedy is Remedy.HOLD and not driver.table.in_hand:
            remedy = Remedy.DEAD
        driver.ok(ResolveAlert, alert=alert.id, remedy=remedy, **SIGNED)
    else:
        driver.ok(VoidHand, **SIGNED)
    return True


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_sequence_catches_every_cheat_and_nothing_else(data: st.DataObject) -> None:
    """Hands dealt from registered decks with cheats mixed in (a foreign, a re-tagged or a
    cloned card out of the shoe, a deck with a card missing or doubled): each cheat raises
    its alert and deals nothing, no genuine card raises one, and the journal replays."""
    protection = Protection(True, deck_hands=data.draw(st.integers(1, 4), label="life"))
    driver = TableDriver.make(False, protection).seat({1: 300, 4: 300, 6: 300})
    order: list[int] = []
    cheats = caught = 0
    for _ in range(data.draw(st.integers(40, 160), label="steps")):
        if _settle_alert(data, driver):
            continue
        table = driver.table
        if not table.in_hand:
            if not table.deck_ready:
                cards = tags()
                if data.draw(st.integers(0, 5), label="bad deck") == 0:
                    cards = cards[1:] if data.draw(st.booleans()) else [*cards, cards[0]]
                    cheats += 1
                before = len(driver.table.alerts)
                register(driver, cards)
                caught += len(driver.table.alerts) > before
                order = list(data.draw(st.permutations(range(52)), label="shuffle"))
            elif len(table.eligible) < 2:
                break
            else:
                driver.ok(NewHand)
            continue
        waiting = table.hand.waiting_for  # type: ignore[union-attr]
        assert waiting is not None
        if waiting.kind == "card":
            deck = table.deck
            assert deck is not None
            cheat = data.draw(st.integers(0, 7), label="cheat")
            if cheat == 0 or (cheat == 1 and deck.dealt):
                code_ = data.draw(st.integers(0, 51), label="code")
                uid = "04ffee" if cheat == 0 else data.draw(st.sampled_from(deck.dealt))
                step = driver.ok(card_read, code=code_, uid=uid)
                cheats += 1
                raised = [e for e in step.effects if getattr(e, "kind", "") == "alert"]
                kinds = {e.data["kind"] for e in raised}  # type: ignore[attr-defined]
                caught += kinds == {"foreign_card"}
                assert not [e for e in step.effects if e.kind in ("card", "burn")]
                continue
            if not order:
                driver.ok(VoidHand, **SIGNED)
                continue
            card = order.pop()
            step = driver.ok(card_read, code=card, uid=tag(card))
            assert not [a for a in driver.table.alerts if a.kind is AlertKind.FOREIGN_CARD]
        elif waiting.kind == "action":
            choice = data.draw(st.sampled_from(waiting.legal), label="choice")
            driver.ok(Decide, seat=waiting.seat, do=choice.do, to=choice.to)
        elif waiting.kind == "bonus":
            driver.ok(Decide, seat=waiting.seat, do=Do.BONUS, accept=True)
        else:
            driver.ok(Decide, seat=waiting.seat, do=Do.SHOW)
    assert caught == cheats
    event(f"cheats: {min(cheats, 5)}+")
    replays(driver)


def test_an_alert_recorded_before_a_field_was_added_reads_back_with_its_default() -> None:
    driver = TableDriver.make().start({1: 500, 2: 500})
    driver.read("As")
    driver.ok(card_read, code=code("As"))  # read again: card_in_play, no tag to tell
    saved = driver.table.alerts[0].to_json()
    del saved["facts"]["own_tag"]  # as written before it was kept
    assert Alert.from_json(saved) == driver.table.alerts[0]
