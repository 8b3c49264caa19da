"""What the hand waits for, worded in one place: every form of every kind of wait."""

from __future__ import annotations

import pytest

from controller.rules import Dest, Form, Wait, Waiting, say_waiting

CARD_UP = Waiting.card(Dest.SEAT, 4, seat=3, up=True)
HOLE = Waiting.card(Dest.SEAT, 7, seat=3)
BONUS = Waiting.card(Dest.BONUS, 3, seat=5)
BURN = Waiting.card(Dest.BURN, 5)
COMMUNITY = Waiting.card(Dest.COMMUNITY, 7)
ACT = Waiting(Wait.ACTION, 2, street=6)
OFFER = Waiting(Wait.BONUS, 5, price=10)
SHOW = Waiting(Wait.SHOW, 1)


@pytest.mark.parametrize(
    ("waiting", "form", "words"),
    [
        (CARD_UP, Form.WAITING, "waiting for a card face up to seat 3"),
        (CARD_UP, Form.WHERE, "a card for seat 3, face up"),
        (CARD_UP, Form.DISPLAY, "DEAL: seat 3, face up"),
        (CARD_UP, Form.BROADCAST, "Fourth street: dealing"),
        (HOLE, Form.DISPLAY, "DEAL: seat 3, face down"),
        (BONUS, Form.WAITING, "waiting for the bonus card face down to seat 5"),
        (BONUS, Form.WHERE, "the bonus card for seat 5, face down"),
        (BONUS, Form.DISPLAY, "BONUS CARD: seat 5, face down"),
        (BONUS, Form.BROADCAST, "Bonus card to seat 5"),
        (BURN, Form.WAITING, "waiting for the burn card"),
        (BURN, Form.WHERE, "the burn card"),
        (BURN, Form.DISPLAY, "BURN"),
        (BURN, Form.BROADCAST, "Fifth street: dealing"),
        (COMMUNITY, Form.WHERE, "the community card"),
        (COMMUNITY, Form.DISPLAY, "COMMUNITY CARD"),
        (COMMUNITY, Form.BROADCAST, "Seventh street: the community card"),
        (ACT, Form.WAITING, "waiting for seat 2 to act"),
        (ACT, Form.WHILE, "while seat 2 is to act"),
        (ACT, Form.DISPLAY, "BETTING: seat 2 to act"),
        (ACT, Form.BROADCAST, "Sixth street: seat 2 to act"),
        (OFFER, Form.WAITING, "waiting for seat 5 to accept or decline the bonus card"),
        (OFFER, Form.WHILE, "while seat 5 decides on the bonus card"),
        (OFFER, Form.DISPLAY, "BONUS CARD: seat 5, accept or decline for 10"),
        (OFFER, Form.BROADCAST, "Seat 5: bonus card, accept or decline"),
        (SHOW, Form.WAITING, "waiting for seat 1 to show or muck"),
        (SHOW, Form.WHILE, "while seat 1 is to show or muck"),
        (SHOW, Form.DISPLAY, "SHOWDOWN: seat 1 to show or muck"),
        (SHOW, Form.BROADCAST, "Showdown: seat 1 to show or muck"),
    ],
)
def test_each_form_of_each_wait(waiting: Waiting, form: Form, words: str) -> None:
    assert say_waiting(waiting, form) == words


def test_a_card_given_is_named_only_face_up_or_as_the_community_card() -> None:
    assert say_waiting(CARD_UP, Form.DEALT, "Kd") == "seat 3 gets Kd face up"
    assert say_waiting(HOLE, Form.DEALT, "Kd") == "seat 3 gets a card face down"
    assert say_waiting(BONUS, Form.DEALT, "Kd") == "seat 5 gets the bonus card face down"
    assert say_waiting(BURN, Form.DEALT, "Kd") == "burn card"
    assert say_waiting(COMMUNITY, Form.DEALT, "Kd") == "community card Kd"


@pytest.mark.parametrize(
    ("waiting", "form"),
    [(CARD_UP, Form.WHILE), (ACT, Form.WHERE), (SHOW, Form.DEALT)],
)
def test_a_form_that_does_not_fit_the_wait_is_refused_by_name(waiting: Waiting, form: Form) -> None:
    with pytest.raises(ValueError, match=f"{form.value}: not a form of {waiting.kind.value}"):
        say_waiting(waiting, form)
