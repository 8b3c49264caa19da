"""The effects are records: a kind from an enum, a frozen dataclass per kind, and what
reads them for their meaning (the floor, the simulator's tally) reads the record, never
the words."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

from controller.floor import facts as f
from controller.floor.derive import facts_of
from controller.history.hands import HandRecorder
from controller.journal import Entry
from controller.rules import Effect, Told
from controller.rules import effects as engine_effects
from controller.sim.dealer import Dealer, FaultRates, Tally
from controller.sim.floor import CoreFloor
from controller.table import (
    CorrectStack,
    NewHand,
    Rebuy,
    Remedy,
    ResolveAlert,
    SitDown,
    Table,
    TableSettings,
    VoidHand,
)
from controller.table import effects as table_effects
from controller.table.told import TableTold
from tests.device_inputs import deck_loaded
from tests.table_driver import TableDriver

RECORDS = [
    kind
    for module in (engine_effects, table_effects)
    for kind in vars(module).values()
    if isinstance(kind, type) and issubclass(kind, Effect) and kind is not Effect
]


def _dealt(seed: int) -> tuple[Table, Tally, list[Effect]]:
    """A simulated table's run with faults: its effects, in order."""
    seen: list[Effect] = []
    tally = Tally()

    def observe(table: Table, effects: Any) -> None:
        tally.observe(table, effects)
        seen.extend(effects)

    floor = CoreFloor(TableSettings(), observe)
    faults = FaultRates(unreadable=0.1, misplaced=0.1, unplug=0.03)
    asyncio.run(Dealer(floor, tally, seats=6, hands=8, seed=seed, faults=faults).run())
    return floor.table, tally, seen


def test_every_effect_is_a_frozen_record_of_an_enumerated_kind() -> None:
    _, _, seen = _dealt(3)
    kinds = {str(effect.kind) for effect in seen}
    assert kinds <= {*Told, *TableTold}
    assert len(kinds) >= 15, kinds
    for effect in seen:
        assert dataclasses.is_dataclass(effect), effect
        with pytest.raises(dataclasses.FrozenInstanceError):
            effect.__setattr__(dataclasses.fields(effect)[0].name, None)
    for record in RECORDS:
        assert dataclasses.is_dataclass(record), record
        assert record.__dataclass_params__.frozen, record


def _reworded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every record says something else: the words carry no meaning."""
    for record in RECORDS:
        monkeypatch.setattr(record, "say", lambda self, name=str: "reworded")


def test_the_simulators_tally_reads_the_records_not_the_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, before, _ = _dealt(5)
    _reworded(monkeypatch)
    _, after, seen = _dealt(5)
    assert {effect.message for effect in seen if effect.kind == TableTold.HAND_OVER} == {"reworded"}
    for name in ("hands", "cards", "bonus_cards", "bought_in", "cashed_out", "scrambles"):
        assert getattr(after, name) == getattr(before, name), name
    assert after.raised == before.raised and after.resolved == before.resolved
    assert after.hand_digest == before.hand_digest


def _floor_facts() -> list[f.Fact]:
    """The floor's facts of two players seated, a rebuy, a hand voided and a stack
    corrected."""
    driver = TableDriver.make(seat_board=False)
    recorder = HandRecorder(0)
    facts: list[f.Fact] = []
    for number, (make, fields) in enumerate(
        (
            (SitDown, {"seat": 1, "player": "Ann", "buy_in": 500}),
            (SitDown, {"seat": 2, "player": "Bob", "buy_in": 500}),
            (Rebuy, {"seat": 2, "chips": 100}),
            (deck_loaded, {"count": 52}),
            (NewHand, {}),
            (VoidHand, {"who": "S100", "why": "a misdeal"}),
            (CorrectStack, {"seat": 1, "stack": 480, "who": "S100", "why": "a chip fell"}),
        ),
        start=1,
    ):
        before = driver.table
        step = driver.ok(make, **fields)
        kind = driver.inputs[-1].to_json()["type"]
        entry = Entry(number, 1_700_000_000.0 + number, "console", kind, {}, None, None, None)
        facts += facts_of(entry, before, step, recorder)
    return facts


def test_the_floors_facts_are_the_records_whatever_the_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    facts = _floor_facts()
    _reworded(monkeypatch)
    reworded = _floor_facts()
    said = [fact for fact in reworded if isinstance(fact, f.SupervisorAction)]
    assert [fact.message for fact in said] == ["reworded", "reworded"]
    assert [dataclasses.replace(fact, message="") for fact in said] == [
        dataclasses.replace(fact, message="")
        for fact in facts
        if isinstance(fact, f.SupervisorAction)
    ]
    plain = [_unworded(fact) for fact in facts if not isinstance(fact, f.SupervisorAction)]
    assert plain == [
        _unworded(fact) for fact in reworded if not isinstance(fact, f.SupervisorAction)
    ]
    assert {type(fact) for fact in plain} >= {f.ChipMovement, f.HandStarted, f.HandEnded}


def _unworded(fact: f.Fact) -> f.Fact:
    """The fact without the events' words a hand's outcome keeps (the replay's output)."""
    if isinstance(fact, f.HandEnded):
        events = [{**event, "message": ""} for event in fact.outcome["events"]]
        return dataclasses.replace(fact, outcome={**fact.outcome, "events": events})
    return fact


def test_a_supervisor_s_remedy_is_said_in_words_not_its_code() -> None:
    """The remedy as the console says it ("take the card out"), never its code
    (``replace_deck``): no underscore reaches a page (docs/console.md, "Plain words")."""
    said = {
        remedy: table_effects.Supervised.of(
            ResolveAlert(at=0, alert=3, remedy=remedy, who="S100", why="checked")
        ).say()
        for remedy in Remedy
    }
    assert said[Remedy.REPLACE_DECK] == (
        "alert 3 resolved: replace the deck (supervisor S100: checked)"
    )
    assert said[Remedy.DEAD] == "alert 3 resolved: take the card out (supervisor S100: checked)"
    for remedy, words in said.items():
        assert "_" not in words and remedy.words in words, words
    assert len({remedy.words for remedy in Remedy}) == len(Remedy)
