"""The role views on the pure table core: what each role may see of a hand, and of the
words of alerts and effects."""

from __future__ import annotations

import json

from controller.rules import Reveal, parse_card
from controller.table import AlertKind, Mode, Rebuy, VoidHand
from controller.table.effects import Supervised, Words
from dealer_ui.models import ViewOut
from dealer_ui.views import Role, effects_view, view, visible_cards
from tests.device_inputs import card_read
from tests.table_driver import TableDriver

# seat 1: Kd 2c down, 4c up (its bonus card is due at once); seat 2: Ah Ad down
THIRD_STREET = "Kd Ah 2c Ad 4c"


def third_street() -> TableDriver:
    driver = TableDriver.make(seat_board=False).start({1: 200, 2: 200})
    return driver.read(THIRD_STREET)


def fourth_street_burned() -> TableDriver:
    """Third street dealt (the bonus card Qh to seat 1, 9s up to seat 2), bet, and fourth
    street's burn."""
    driver = third_street().read("Qh 9s")
    while (waiting := driver.table.hand.waiting_for).kind == "action":
        legal = {choice.do.value: choice for choice in waiting.legal}
        do = next((word for word in ("call", "check") if word in legal), waiting.legal[0].do)
        step = driver.act(waiting.seat, str(do), legal[str(do)].to)
        assert step.refused is None, step.refused
    return driver.read("7h")


def names(payload: object) -> str:
    return json.dumps(payload)


def test_only_the_player_and_surveillance_see_hole_cards_and_nobody_else_the_burn() -> None:
    driver = fourth_street_burned()
    hand = driver.table.hand
    assert hand is not None
    holes = {p.seat: [str(d.card) for d in p.cards if not d.up] for p in hand.players}
    ups = [str(d.card) for p in hand.players for d in p.cards if d.up]
    burn = [str(card) for card in hand.burns]
    assert burn == ["7h"] and len(holes[1]) == 3 and len(holes[2]) == 2
    for role, seat in ((Role.PUBLIC, None), (Role.DEALER, None), (Role.PLAYER, 1)):
        shown = names(view(driver.table, role, seat))
        assert all(card in shown for card in ups)
        assert not any(card in shown for card in burn)
        assert not any(card in shown for card in holes[2])
        assert all(card in shown for card in holes[1]) == (role is Role.PLAYER)
    everything = view(driver.table, Role.SURVEILLANCE)
    assert everything["burns"] == burn
    assert all(card in names(everything) for cards in holes.values() for card in cards)


def test_a_wild_up_card_is_marked_and_the_bonus_card_stays_face_down() -> None:
    driver = third_street()
    assert driver.table.signals.mode is Mode.BONUS_CARD
    driver.read("Qh 9s")
    dealer = view(driver.table, Role.DEALER)
    cards = [card for seat in dealer["seats"] for card in seat["cards"]]
    assert [card["card"] for card in cards if card["wild"]] == ["4c"]
    bonus = [card for card in cards if card["bonus"]]
    assert bonus == [
        {"card": None, "face": "down", "street": 3, "bonus": True, "exposed": False, "wild": False}
    ]
    assert "Qh" not in names(dealer) and "Qh" in names(view(driver.table, Role.SURVEILLANCE))


def test_the_choices_go_to_the_dealer_and_to_the_player_to_act_only() -> None:
    driver = third_street().read("Qh 9s")
    hand = driver.table.hand
    assert hand is not None and hand.waiting_for is not None
    actor = hand.waiting_for.seat
    other = 3 - actor
    legal = [choice.to_json() for choice in hand.waiting_for.legal]
    assert view(driver.table, Role.DEALER)["choices"] == legal
    assert view(driver.table, Role.PLAYER, actor)["choices"] == legal
    assert view(driver.table, Role.PLAYER, other)["choices"] == []
    assert view(driver.table, Role.PUBLIC)["choices"] == []
    driver.feed(card_read, code=51)  # drawn while a player is to act: the table pauses
    assert driver.table.paused and hand.waiting_for == driver.table.hand.waiting_for
    for role, seat in ((Role.DEALER, None), (Role.SURVEILLANCE, None), (Role.PLAYER, actor)):
        paused = view(driver.table, role, seat)
        assert paused["choices"] == [] and paused["next"] == hand.waiting_for.to_json()


def test_card_names_in_alerts_and_effects_are_hidden_from_whom_may_not_see_them() -> None:
    driver = third_street().read("Qh 9s")
    step = driver.feed(card_read, code=51)  # drawn while seat 1 is to act
    alert = driver.table.alerts[-1]
    assert alert.kind is AlertKind.CARD_OUT_OF_TURN and str(alert.card) == "As"
    dealer_alert = view(driver.table, Role.DEALER)["alerts"][-1]
    assert "As" not in names(dealer_alert) and "card" not in dealer_alert
    assert view(driver.table, Role.SURVEILLANCE)["alerts"][-1]["card"] == "As"
    assert "As" not in names(effects_view(step.effects, driver.table, Role.PUBLIC))
    assert "As" in names(effects_view(step.effects, driver.table, Role.SURVEILLANCE))


def test_a_shown_hand_is_seen_by_all_and_a_mucked_one_by_nobody_but_its_player() -> None:
    driver = third_street()
    table = driver.table
    hand = table.hand
    assert hand is not None
    shown = hand.players[0].revealed(Reveal.SHOW)
    mucked = hand.players[1].revealed(Reveal.MUCK)
    table = table._replace(hand=hand._replace(players=(shown, mucked)))
    public = visible_cards(table, Role.PUBLIC)
    assert {str(d.card) for d in shown.cards} <= public
    assert not {str(d.card) for d in mucked.cards if not d.up} & public
    assert {str(d.card) for d in mucked.cards} <= visible_cards(table, Role.PLAYER, 2)


def test_peoples_words_name_their_cards_as_the_record_knows_them() -> None:
    """The cards in people's own words are found once, when the record is made; a viewer's
    words hide each one the viewer may not see, by the record's data."""
    assert Words.of("seat 1 shows Ah Ad 4c, Ah first").cards == tuple(
        map(parse_card, ("Ah", "Ad", "4c"))
    )
    assert Words.of("Ten: no card here, 10s").cards == ()
    words = Words.of("seat 1 shows Ah Ad 4c")
    assert words.say(lambda card: str(card) if str(card) == "Ah" else "a card") == (
        "seat 1 shows Ah a card a card"
    )


def test_a_supervisors_why_that_names_a_hole_card_hides_it_from_whom_may_not_see_it() -> None:
    driver = third_street()  # seat 1: Kd 2c down, 4c up; seat 2: Ah Ad down
    step = driver.ok(VoidHand, who="S100", why="Kd and Ah were flashed, 4c is up")
    (said,) = [effect for effect in step.effects if isinstance(effect, Supervised)]
    assert set(said.cards) == set(map(parse_card, ("Kd", "Ah", "4c")))
    told = {role: effects_view(step.effects, driver.table, role, 2) for role in Role}

    def line(role: Role) -> str:
        return next(e["message"] for e in told[role] if e["kind"] == "supervisor")

    assert line(Role.SURVEILLANCE) == said.message
    assert line(Role.DEALER) == (
        "hand 1 is void (supervisor S100: a card and a card were flashed, 4c is up)"
    )
    assert (
        line(Role.PLAYER)
        == "hand 1 is void (supervisor S100: a card and Ah were flashed, 4c is up)"
    )


def test_between_hands_a_seat_shows_its_stack_now_beside_the_last_hands_cards() -> None:
    driver = third_street().read("Qh 9s")  # seat 1's bonus card, seat 2's up card
    while driver.table.in_hand:
        waiting = driver.table.hand.waiting_for
        legal = {choice.do.value: choice for choice in waiting.legal}
        do = "fold" if "fold" in legal else next(iter(legal))
        step = driver.act(waiting.seat, do, legal[do].to)
        assert step.refused is None, step.refused
    driver.ok(Rebuy, seat=2, chips=50)
    seats = {entry["seat"]: entry for entry in view(driver.table, Role.DEALER)["seats"]}
    assert seats[2]["stack"] == driver.table.seat(2).stack
    assert seats[2]["cards"], "the last hand's cards stay on show"


def test_every_role_sees_the_house_s_take_beside_the_pots_net_of_it() -> None:
    driver = TableDriver.make(
        seat_board=False, variant="seven-card-stud", rake_percent=50, rake_cap=10
    ).start({1: 200, 2: 200})
    driver.read("Kd Ah 2c Ad 9c 3s")  # seat 2's 3s brings in
    for seat, do in ((2, "bring_in"), (1, "complete"), (2, "fold")):
        assert driver.act(seat, do).refused is None
    # antes 2, the bring-in 2, the completion to 5 (3 of it uncalled): half of 6 is raked
    for role, seat in ((Role.PUBLIC, None), (Role.DEALER, None), (Role.PLAYER, 2)):
        shown = ViewOut(**view(driver.table, role, seat)).model_dump(exclude_unset=True)
        assert (shown["rake"], shown["jackpot_drop"]) == (3, 0)
        assert shown["pots"] == [
            {"amount": 6, "eligible": [1], "winners": [1], "shares": {"1": 6}, "taken": 3}
        ]
    dealer = view(driver.table, Role.DEALER)
    assert dealer["display"].startswith("RAKE 3: drop 3, then ")
    plain = TableDriver.make(seat_board=False).start({1: 200, 2: 200})
    assert "rake" not in view(plain.table, Role.DEALER)
