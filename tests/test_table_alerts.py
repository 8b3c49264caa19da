"""Alerts are records: their words are made from their facts, so that an alert saved by an
earlier release reads back, no wording can name a card its reader may not see, and the
floor and the simulator read what happened from the record, never from the words."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from controller.floor import facts as f
from controller.floor.derive import facts_of
from controller.history.hands import HandRecorder
from controller.journal import Entry
from controller.journal.snapshots import Snapshots
from controller.recovery import Recovered, from_snapshot
from controller.rules import Dest, parse_card
from controller.sim.dealer import Tally
from controller.table import (
    Alert,
    AlertFacts,
    AlertKind,
    Clearance,
    Cleared,
    CorrectCard,
    Table,
    VoidHand,
    WrongFace,
)
from controller.table.alerts import (
    FACTS,
    BadDeck,
    Busy,
    CardAtEmptySeat,
    CardInPlay,
    CardMismatch,
    CardNotDealt,
    CardNotInDeck,
    CardOutOfTurn,
    DeadCard,
    DeckDuringHand,
    DeviceFault,
    EventsLost,
    LinkDown,
    MisplacedCard,
    NotDue,
    PlayerAway,
    SignInAttack,
    UnreadCard,
)
from dealer_ui.views import Role, effects_view, view
from drivers.protocol import DeviceKind, FaultCode
from tests.device_inputs import card_at_seat, card_read, seat_vacated
from tests.table_driver import TableDriver, code

CARD_NAME = re.compile(r"\b[2-9TJQKA][cdhs]\b")  # the oracle: any card's name in a text
c = parse_card


def old(kind: str, message: str, remedy: str, **flat: Any) -> dict[str, Any]:
    """An alert as the release before the records wrote it: words and flat fields only."""
    fields = {"seat": None, "belongs": None, "card": None, "device": None, "fault": None}
    return {
        "id": 7,
        "kind": kind,
        "severity": "abnormal",
        "blocking": True,
        "message": message,
        "remedy": remedy,
        "remedies": [],
        "raised_at": 1_700_000_000_000,
        **fields,
        "due": False,
        "acknowledged_by": None,
        "acknowledged_at": None,
    } | flat


_OUT_OF_TURN = (
    "keep the card face down aside; the supervisor holds it (it is dealt as the next card "
    "due) or takes it out of play (dead)"
)
_STRAY = "move it where it belongs; the supervisor resolves (done) once it is there"

#: Alerts of every kind as that release wrote them, and the facts they hold.
OLD_ALERTS: list[tuple[dict[str, Any], AlertFacts]] = [
    (
        old(
            "card_out_of_turn",
            "a card came out of the shoe while seat 3 is to act",
            _OUT_OF_TURN,
            card="As",
        ),
        CardOutOfTurn(c("As"), NotDue(Busy.ACT, 3)),
    ),
    (
        old("card_out_of_turn", "a card came out of the shoe unread", _OUT_OF_TURN, card="2c"),
        CardOutOfTurn(c("2c"), NotDue(Busy.UNREAD)),
    ),
    (
        old(
            "card_out_of_turn",
            "a card came out of the shoe with no hand in progress",
            _OUT_OF_TURN,
            card="Td",
        ),
        CardOutOfTurn(c("Td"), NotDue(Busy.NO_HAND)),
    ),
    (
        old(
            "card_in_play",
            "the card read is already in play (a second copy, or a misread)",
            "take the card away and check the deck; the supervisor takes it out of play "
            "(dead) or voids the hand",
            card="Kd",
        ),
        CardInPlay(c("Kd")),
    ),
    (
        old(
            "card_not_in_deck",
            "the shoe read card code 77, which is not in a deck of 52",
            "take the card away; the supervisor takes it out of play (dead) or voids the hand",
        ),
        CardNotInDeck(77),
    ),
    (
        old(
            "bad_deck",
            "a deck of 51 cards was loaded: a deck has 52",
            "remove the deck and load a full deck of 52",
        ),
        BadDeck(51),
    ),
    (
        old(
            "deck_during_hand",
            "a deck of 52 cards was loaded during hand 12",
            "take the new deck out of the shoe; the supervisor resolves (done) or voids the hand",
        ),
        DeckDuringHand(52, 12),
    ),
    (
        old(
            "unread_card",
            "a card left the shoe unread while seat 2 decides on the bonus card",
            "keep the card face down aside; the supervisor enters it, or takes it out of play "
            "(dead)",
        ),
        UnreadCard(NotDue(Busy.BONUS, 2)),
    ),
    (
        old(
            "unread_card",
            "a card left the shoe unread: it is a card for seat 4, face down",
            "deal it to seat 4: the seat's reader identifies it, or the supervisor enters it",
            belongs=4,
            due=True,
        ),
        UnreadCard(None, Dest.SEAT, 4, False, True),
    ),
    (
        old(
            "unread_card",
            "a card left the shoe unread: it is the burn card",
            "the supervisor enters it (or takes it out of play: dead)",
            due=True,
        ),
        UnreadCard(None, Dest.BURN),
    ),
    (
        old(
            "unread_card",
            "a card left the shoe unread: it is the community card",
            "the supervisor enters it (or takes it out of play: dead)",
            due=True,
        ),
        UnreadCard(None, Dest.COMMUNITY, None, True),
    ),
    (
        old(
            "unread_card",
            "a card left the shoe unread: it is the bonus card for seat 5, face down",
            "the supervisor enters it (or takes it out of play: dead)",
            belongs=5,
            due=True,
        ),
        UnreadCard(None, Dest.BONUS, 5),
    ),
    (
        old(
            "misplaced_card",
            "a card landed at seat 2; it belongs to seat 3",
            "move it to seat 3: the seat board confirms it there",
            seat=2,
            belongs=3,
            card="9h",
        ),
        MisplacedCard(2, c("9h"), 3),
    ),
    (
        old(
            "card_at_empty_seat",
            "a card landed at seat 7, where no one is in the hand",
            _STRAY,
            seat=7,
        ),
        CardAtEmptySeat(7, None, None),
    ),
    (
        old(
            "card_not_dealt",
            "a card the shoe did not deal this hand is at seat 1",
            "take the card away from the seat; the supervisor resolves (done) or voids the hand",
            seat=1,
            card="Jc",
        ),
        CardNotDealt(1, c("Jc")),
    ),
    (
        old(
            "card_mismatch",
            "the shoe read Qs for seat 1; seat 1's reader sees Qh",
            "check the card at seat 1 and leave it there: if it is the Qh, the supervisor "
            "corrects Qs to Qh; if it is the Qs, the supervisor resolves (done)",
            seat=1,
            belongs=1,
            card="Qh",
        ),
        CardMismatch(1, c("Qs"), c("Qh")),
    ),
    (
        old(
            "dead_card",
            "seat 6's bonus card was not earned: it is a dead card",
            "take the face-down bonus card away from seat 6 unseen, with the discards; the "
            "supervisor resolves (done)",
            seat=6,
            card="4c",
        ),
        DeadCard(6, c("4c")),
    ),
    (
        old(
            "device_fault",
            "shoe: a card is jammed in the shoe's exit",
            "clear the jam; the table goes on when the device reports the fault cleared",
            device="shoe",
            fault="jam",
        ),
        DeviceFault(DeviceKind.SHOE, FaultCode.JAM),
    ),
    (
        old(
            "link_down",
            "the seat board is not connected (connection reset (peer): closed)",
            "check its cable and power; the table goes on when the link is back",
            device="seat_board",
        ),
        LinkDown(DeviceKind.SEAT_BOARD, "connection reset (peer): closed"),
    ),
    (
        old(
            "link_down",
            "the shoe is not connected",
            "check its cable and power; the table goes on when the link is back",
            device="shoe",
        ),
        LinkDown(DeviceKind.SHOE),
    ),
    (
        old(
            "events_lost",
            "the shoe restarted and lost 1 event: cards or seat reports may be missing",
            "check every card on the table against the console; the supervisor resolves "
            "(done) or voids the hand",
            device="shoe",
        ),
        EventsLost(DeviceKind.SHOE, 1),
    ),
    (
        old(
            "events_lost",
            "the seat board restarted and may have lost events: cards or seat reports may be "
            "missing",
            "check every card on the table against the console; the supervisor resolves "
            "(done) or voids the hand",
            device="seat_board",
        ),
        EventsLost(DeviceKind.SEAT_BOARD, None),
    ),
    (
        old(
            "player_away",
            "the player at seat 3 left the seat during hand 8",
            "the hand stays live: the player comes back, or folds (said to the dealer) when it "
            "is their turn",
            seat=3,
        ),
        PlayerAway(3, 8),
    ),
    (
        old(
            "sign_in_attack",
            "sign-in attack: 5 wrong PINs for dealer D 12 within 60 s, from 10.0.0.7, 10.0.0.8",
            "those addresses are refused for a while and the id's sign-ins slowed down (the "
            "dealer still signs in); find who is trying, then resolve it (done)",
        ),
        SignInAttack(5, "dealer", "D 12", 60, "10.0.0.7, 10.0.0.8"),
    ),
]


#: The kinds made after alerts kept their facts: no release wrote one as words alone.
RECORDS_ONLY = {
    AlertKind.DECK_REJECTED,
    AlertKind.FOREIGN_CARD,
    AlertKind.DECK_DUE,
    AlertKind.CLOCK_STEPPED,
    AlertKind.DECK_NOT_SHUFFLED,
    AlertKind.DEVICE_REPLACED,
    AlertKind.SIGN_IN_LOCKED,
    AlertKind.WRONG_CARD_NAMED,
    AlertKind.UNVERIFIED_READ,
    AlertKind.CARD_MOVED,
    AlertKind.SHOE_EMPTY,
}


def test_every_kind_has_its_record_and_an_old_alert_of_each() -> None:
    assert set(FACTS) == set(AlertKind)
    assert {facts.kind for _, facts in OLD_ALERTS} == set(AlertKind) - RECORDS_ONLY


@pytest.mark.parametrize(("saved", "facts"), OLD_ALERTS, ids=lambda x: getattr(x, "kind", ""))
def test_an_alert_saved_before_the_records_reads_back_with_its_facts(
    saved: dict[str, Any], facts: AlertFacts
) -> None:
    """The facts and the flat fields read back; the words are today's, made from the facts
    (plain words since: no "(dead)", "(done)", tag UIDs or the driver's words)."""
    alert = Alert.from_json(saved)
    assert alert == Alert(7, facts, 1_700_000_000_000)
    assert Alert.from_json(alert.to_json()) == alert  # and written as a record from now on
    written = alert.to_json()
    made_up = ("severity", "blocking", "remedies", "message", "remedy")
    assert {key: written[key] for key in saved if key not in made_up} == {
        key: value for key, value in saved.items() if key not in made_up
    }


def test_a_card_no_deck_has_is_said_in_the_games_words_its_code_kept_in_the_facts() -> None:
    """Earlier releases said "card code 255" to the dealer (the legacy words still read
    back, above); the words now say what happened and what to do, the code stays a fact."""
    facts = CardNotInDeck(255)
    words = f"{facts.say()}; {facts.todo()}"
    assert not re.search(r"\d|code", words) and "surveillance" in words, words
    assert Alert.from_json(Alert(7, facts, 0).to_json()).facts == facts


def test_words_no_release_wrote_are_refused_and_recovery_replays_instead(tmp_path: Path) -> None:
    saved, _ = OLD_ALERTS[0]
    with pytest.raises(ValueError, match="no release wrote"):
        Alert.from_json(saved | {"message": "a card came out of the shoe at noon"})
    with pytest.raises(ValueError, match="no release wrote"):
        Alert.from_json(OLD_ALERTS[15][0] | {"message": "the shoe and the seat disagree"})
    table = Table.from_json(TableDriver.make().table.to_json())
    state = Recovered(table).state()
    state["table"]["alerts"] = [saved | {"message": "reworded"}]  # type: ignore[index]
    snapshots = Snapshots(tmp_path / "journal.db")
    snapshots.save(5, 0, state)
    assert from_snapshot(snapshots, 5).position == 0  # not usable: replayed from the start
    snapshots.close()


def _with_alerts() -> TableDriver:
    """A hand with a card out of turn (a hole card's name), a card at the wrong seat and a
    card the shoe read one way and the seat's reader another."""
    driver = TableDriver.make().start({1: 500, 2: 500, 3: 500})
    driver.read("Qh 9s")  # seat 1 down, seat 2 down
    driver.ok(card_at_seat, seat=1, code=code("Qh"))
    driver.ok(card_at_seat, seat=2, code=code("9d"))  # seat 2's reader: 9d, the shoe read 9s
    driver.ok(seat_vacated, seat=3)
    return driver


def test_an_old_snapshot_loads_as_the_table_it_was(tmp_path: Path) -> None:
    driver = _with_alerts()
    table = driver.table
    assert {alert.kind for alert in table.alerts} >= {
        AlertKind.CARD_MISMATCH,
        AlertKind.PLAYER_AWAY,
    }
    state = Recovered(table, 9).state()
    for alert in state["table"]["alerts"]:  # type: ignore[index]
        del alert["facts"]  # as the release before the records wrote it
    snapshots = Snapshots(tmp_path / "journal.db")
    snapshots.save(9, table.hand_number, state)
    recovered = from_snapshot(snapshots, 9)
    snapshots.close()
    assert recovered.position == 9 and recovered.table == table
    assert recovered.table.to_json() == table.to_json()
    assert driver.replayed() == driver.dump()


def test_no_wording_can_name_a_card_its_reader_may_not_see(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every card reaches the words through the reader's name for it: with every card
    hidden, no alert's words and no record effect's message name one; and an alert
    reworded to name its cards another way names none the dealer may not see."""
    hidden = "<hidden>"
    for _, facts in OLD_ALERTS:
        for words in (facts.say(lambda _: hidden), facts.todo(lambda _: hidden)):
            assert not CARD_NAME.search(words), (facts, words)
    driver = _with_alerts()
    mismatch = next(a for a in driver.table.alerts if a.kind is AlertKind.CARD_MISMATCH)
    assert {str(card) for card in mismatch.facts.cards} == {"9s", "9d"}

    def reworded(self: CardMismatch, name: Any = str) -> str:
        return f"MISMATCH {name(self.read)}/{name(self.card)} at {self.seat}"

    monkeypatch.setattr(CardMismatch, "say", reworded)
    monkeypatch.setattr(CardMismatch, "todo", reworded)
    dealer = view(driver.table, Role.DEALER)
    shown = next(a for a in dealer["alerts"] if a["kind"] == "card_mismatch")
    assert shown["message"] == shown["remedy"] == "MISMATCH a card/a card at 2"
    assert "9s" not in dealer["display"] and "9d" not in dealer["display"]
    watcher = view(driver.table, Role.SURVEILLANCE)
    assert "MISMATCH 9s/9d at 2" in [a["message"] for a in watcher["alerts"]]
    step = driver.ok(card_read, code=code("As"))  # out of turn: the pause
    for role in (Role.DEALER, Role.PUBLIC):
        said = str(effects_view(step.effects, driver.table, role))
        assert not {"As", "9s", "9d"} & set(CARD_NAME.findall(said)), (role, said)


def _void(driver: TableDriver) -> list[Any]:
    before = driver.table
    step = driver.ok(VoidHand, who="S100", why="a misdeal")
    entry = Entry(42, 1_700_000_100.0, "console", "void_hand", {}, None, None, None)
    return facts_of(entry, before, step, HandRecorder(1))


def test_a_reworded_clearance_does_not_change_what_the_floor_and_simulator_record(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The floor says who cleared an alert from the record's clearance: a void's clears
    are the supervisor's, whatever the words."""
    cleared = [fact for fact in _void(_with_alerts()) if isinstance(fact, f.AlertCleared)]
    said = [(fact.how, fact.who, fact.why) for fact in cleared]
    assert said == [  # the player away as the hand ends; the mismatch by the supervisor's void
        ("the hand is over", None, None),
        ("the hand is void", "S100", "a misdeal"),
    ]
    monkeypatch.setattr(Cleared, "how", property(lambda self: f"gone ({self.by.value})"))
    reworded = [fact for fact in _void(_with_alerts()) if isinstance(fact, f.AlertCleared)]
    assert [(fact.how, fact.who, fact.why) for fact in reworded] == [
        ("gone (hand_over)", None, None),
        ("gone (hand_void)", "S100", "a misdeal"),
    ]
    assert [fact.alert_id for fact in reworded] == [fact.alert_id for fact in cleared]

    tally = Tally()
    driver = TableDriver.make().start({1: 500, 2: 500})
    driver.read("Qh")
    driver.ok(card_at_seat, seat=2, code=code("Qh"))  # at seat 2: it belongs to seat 1
    step = driver.ok(card_at_seat, seat=1, code=code("Qh"))  # moved: the seat board sees it
    tally.observe(driver.table, [*driver.effects])
    (how,) = [effect for effect in step.effects if isinstance(effect, Cleared)]
    assert how.by is Clearance.CONFIRMED_AT_SEAT
    assert tally.resolved == {"misplaced_card": {Clearance.CONFIRMED_AT_SEAT: 1}}


def test_every_card_an_effect_names_is_one_it_lists() -> None:
    """A viewer's words name cards from the effect's own list: every card name in a
    message (a card dealt up, a misread corrected, a hole card exposed) is
    one of the effect's ``cards``, so naming those the viewer's way hides them all."""
    driver = TableDriver.make(seat_board=False).start({1: 500, 2: 500})
    driver.read("Qh 9s 2d 3c Kd 8h")  # third street: two down, one up each
    signed = {"who": "S100", "why": "checked at the table"}
    driver.ok(CorrectCard, wrong=c("Qh"), right=c("Qd"), **signed)
    driver.ok(WrongFace, seat=2, card=c("9s"), **signed)  # a hole card lies face up
    named = 0
    for effect in driver.effects:
        said = set(CARD_NAME.findall(effect.message))
        assert said <= {str(card) for card in effect.cards}, (effect.kind, effect.message)
        assert not CARD_NAME.findall(effect.say(lambda _: "a card")), effect.message
        named += bool(said)
    assert {"correct", "expose", "supervisor", "card"} <= {
        effect.kind for effect in driver.effects if CARD_NAME.search(effect.message)
    }
    assert named >= 5
