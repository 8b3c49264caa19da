"""The invariants every HIL scenario is checked against: each one found when broken."""

from __future__ import annotations

from controller.hil.invariants import Felt, problems
from controller.rules import parse_card
from controller.table import Alert, AlertFacts, Table, TableSettings
from controller.table.alerts import (
    Busy,
    CardNotDealt,
    CardOutOfTurn,
    LinkDown,
    MisplacedCard,
    NotDue,
)
from drivers.protocol import DeviceKind

KD = parse_card("Kd")


def felt() -> Felt:
    world = Felt()
    world.draw(KD)
    world.place(100.0, KD, 1)  # the Kd lies at seat 1 from t = 100 s
    return world


def alert(facts: AlertFacts, at_s: float) -> Alert:
    return Alert(1, facts, int(at_s * 1000))


def test_a_sound_run_has_no_problem():
    assert problems(Table(TableSettings()), [], felt()) == []


def test_each_contradicted_remedy_is_found():
    raised = [
        alert(CardNotDealt(1, KD), 101),
        alert(MisplacedCard(2, KD, 1), 101),
        alert(CardOutOfTurn(KD, NotDue(Busy.ACT, 3)), 101),
    ]
    found = problems(Table(TableSettings()), raised, felt())
    assert len(found) == 3
    assert "the shoe dealt Kd" in found[0]
    assert "Kd already lay at seat 1" in found[1]
    assert "Kd had been pitched to seat 1" in found[2]


def test_a_remedy_true_when_raised_is_no_contradiction():
    raised = [alert(MisplacedCard(2, KD, 1), 99)]  # before it was moved
    assert problems(Table(TableSettings()), raised, felt()) == []


def test_an_alert_left_open_and_chips_not_conserved_are_found():
    table = Table(TableSettings())._replace(
        alerts=(alert(LinkDown(DeviceKind.SHOE), 1),), bought_in=5
    )
    found = problems(table, [], Felt())
    assert any("alerts left open at the end: link_down" in line for line in found)
    assert any("chips not conserved" in line for line in found)
