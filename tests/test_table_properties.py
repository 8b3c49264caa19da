"""Property tests of the table core: any sequence of device events, decisions and
supervisor actions (a legal-ish mix with hostile inputs) keeps the chips on the table,
never deals a card twice, refuses without changing anything, and replays byte for byte."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import controller.table as tc
from controller.rules import Card, Do, parse_card
from drivers.protocol import DeviceKind, Disposition, FaultCode
from tests.device_inputs import (
    card_at_seat,
    card_read,
    card_unreadable,
    deck_loaded,
    device_fault,
    device_fault_cleared,
    seat_occupied,
    seat_vacated,
)
from tests.hypothesis_profiles import examples
from tests.table_driver import TableDriver

SIGN = {"who": "S1", "why": "property test"}


class Shoe:
    """The physical shoe: a shuffled deck drawn in order."""

    def __init__(self, order: list[int]) -> None:
        self.order, self.next = order, 0

    def draw(self) -> int | None:
        if self.next >= len(self.order):
            return None
        self.next += 1
        return self.order[self.next - 1]


def _legal(data: st.DataObject, table: tc.Table, shoe: Shoe) -> tuple[type[tc.TableInput], dict]:
    """An input that moves the table on, as a careful dealer and supervisor would."""
    blocking = [alert for alert in table.alerts if alert.rule.blocking]
    if blocking:
        alert = blocking[0]
        if alert.device is not None and not alert.rule.remedies:
            if alert.fault is not None:
                return device_fault_cleared, {"device": alert.device, "fault": alert.fault}
            return tc.LinkUp, {"device": alert.device}
        if alert.belongs is not None and alert.card is not None:
            return card_at_seat, {"seat": alert.belongs, "code": int(alert.card)}
        remedy = data.draw(st.sampled_from(tc.ALERT_RULES[alert.kind].remedies))
        if remedy is tc.Remedy.HOLD and not table.in_hand:
            remedy = tc.Remedy.DEAD
        return tc.ResolveAlert, {"alert": alert.id, "remedy": remedy, **SIGN}
    if not table.in_hand:
        if len(table.eligible) < 2:
            seat = data.draw(st.integers(1, 8))
            return tc.SitDown, {"seat": seat, "player": f"P{seat}", "buy_in": 100}
        if not table.deck_ready:
            return deck_loaded, {"count": 52}
        return tc.NewHand, {}
    waiting = table.hand.waiting_for
    if waiting.kind == "card":
        if table.unconfirmed and data.draw(st.booleans()):
            placement = table.unconfirmed[0]
            lands = data.draw(st.sampled_from([placement.seat] * 5 + [1, 2, 4, 6]))
            return card_at_seat, {"seat": lands, "code": int(placement.card)}
        card = shoe.draw()
        if card is None:
            return tc.VoidHand, SIGN
        return card_read, {"code": card}
    if waiting.kind == "action":
        choice = data.draw(st.sampled_from(waiting.legal))
        return tc.Decide, {"seat": waiting.seat, "do": choice.do, "to": choice.to}
    if waiting.kind == "bonus":
        return tc.Decide, {"seat": waiting.seat, "do": Do.BONUS, "accept": data.draw(st.booleans())}
    return tc.Decide, {"seat": waiting.seat, "do": data.draw(st.sampled_from([Do.SHOW, Do.MUCK]))}


def _card_of_a_seat(data: st.DataObject, table: tc.Table) -> dict[str, Any]:
    """A card of a player in the hand and its seat (any seat and card between hands)."""
    held = [(p.seat, d.card) for p in table.hand.players for d in p.cards] if table.in_hand else []
    if not held:
        return {"seat": data.draw(st.integers(0, 9)), "card": Card(data.draw(st.integers(0, 51)))}
    seat, card = data.draw(st.sampled_from(held))
    return {"seat": seat, "card": card}


def _hostile(data: st.DataObject, table: tc.Table, shoe: Shoe) -> tuple[type[tc.TableInput], dict]:
    """Anything the world or a careless person may send."""
    seat = st.integers(0, 9)
    code = st.integers(0, 63)
    card = st.builds(Card, st.integers(0, 51))
    device = st.sampled_from(list(DeviceKind))
    kind = data.draw(st.integers(-2, 20))
    if kind == 0:
        drawn = shoe.draw()
        return card_read, {"code": drawn if drawn is not None else data.draw(code)}
    # A second copy of a card already out of the shoe: out of play, or in the hand.
    out = table.spent if kind == -2 else table.hand.out if table.in_hand else 0
    if out:
        return card_read, {"code": data.draw(st.sampled_from(_codes(out)))}
    options: list[tuple[type[tc.TableInput], dict[str, Any]]] = [
        (card_read, {"code": data.draw(code)}),
        (card_unreadable, {"disposition": data.draw(st.sampled_from(list(Disposition)))}),
        (card_at_seat, {"seat": data.draw(seat), "code": data.draw(st.none() | code)}),
        (seat_occupied, {"seat": data.draw(seat)}),
        (seat_vacated, {"seat": data.draw(seat)}),
        (deck_loaded, {"count": data.draw(st.sampled_from([52, 51, 53, 0]))}),
        (
            device_fault,
            {"device": data.draw(device), "fault": data.draw(st.sampled_from(FaultCode))},
        ),
        (device_fault_cleared, {"device": data.draw(device), "fault": FaultCode.JAM}),
        (tc.LinkDown, {"device": data.draw(device), "reason": "unplugged"}),
        (
            tc.DeviceRestarted,
            {"device": data.draw(device), "lost": data.draw(st.none() | st.integers(-1, 3))},
        ),
        (tc.Decide, {"seat": data.draw(seat), "do": data.draw(st.sampled_from(list(Do)))}),
        (tc.Decide, {"seat": data.draw(seat), "do": Do.RAISE, "to": data.draw(st.integers(0, 99))}),
        (tc.SitDown, {"seat": data.draw(seat), "player": "X", "buy_in": data.draw(code) * 20}),
        (tc.Leave, {"seat": data.draw(seat)}),
        (tc.SitOut, {"seat": data.draw(seat)}),
        (tc.Rebuy, {"seat": data.draw(seat), "chips": data.draw(st.integers(-5, 900))}),
        (
            tc.CorrectStack,
            {"seat": data.draw(seat), "stack": data.draw(st.integers(-1, 500)), **SIGN},
        ),
        (tc.VoidHand, SIGN),
        (tc.EnterCard, {"card": data.draw(card), **SIGN}),
        (tc.CorrectCard, {"wrong": data.draw(card), "right": data.draw(card), **SIGN}),
        (tc.WrongFace, {**_card_of_a_seat(data, table), **SIGN}),
        (
            tc.ResolveAlert,
            {
                "alert": data.draw(st.integers(0, table.next_alert)),
                "remedy": data.draw(st.sampled_from(list(tc.Remedy))),
                **SIGN,
            },
        ),
    ]
    return options[max(kind, 0)]


def _codes(bits: int) -> list[int]:
    return [code for code in range(52) if bits >> code & 1]


def _check(table: tc.Table) -> None:
    assert sum(seat.stack for seat in table.seats) == table.chips
    if table.in_hand:
        hand = table.hand
        assert sum(p.stack + p.total for p in hand.players) == sum(p.start for p in hand.players)
        for player in hand.players:
            assert table.seat(player.seat).stack == player.start
        held = [dealt.card for p in hand.players for dealt in p.cards]
        held += [hand.community] if hand.community is not None else []
        assert len(held) == len(set(held)), held
        assert not any(table.spent >> card & 1 for card in held)


@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.data(), st.booleans(), st.sampled_from([0, 5]), st.booleans())
def test_any_sequence_conserves_chips_and_never_deals_a_card_twice(
    data, seat_board, bonus_price, burn
):
    driver = TableDriver.make(seat_board=seat_board, bonus_price=bonus_price, burn=burn)
    driver.seat({1: 300, 4: 300, 6: 300})
    shoe = Shoe(list(range(52)))
    dealt: set[Card] = set()  # cards dealt to the hand from this deck
    scrambled: set[Card] = set()
    for _ in range(data.draw(st.integers(50, 250), label="steps")):
        hostile = data.draw(st.integers(0, 9), label="hostile") == 0
        make, fields = (_hostile if hostile else _legal)(data, driver.table, shoe)
        before = driver.table
        step = driver.feed(make, **fields)
        if step.refused is not None:
            assert step.table is before
            continue
        for effect in step.effects:
            if effect.kind == "deck":
                dealt.clear()
                order = data.draw(st.permutations(range(52)), label="shuffle")
                shoe = Shoe(list(order))
            elif effect.kind == "scramble":
                scrambled |= {parse_card(text) for text in effect.data["burns"]}
            elif effect.kind == "hand_over":  # the hand's stacks go back to the seats
                hand = driver.table.hand
                assert sum(p.stack for p in hand.players) == sum(p.start for p in hand.players)
                for player in hand.players:
                    assert driver.table.seat(player.seat).stack == player.stack
            elif effect.kind in ("card", "burn"):
                card = effect.card  # type: ignore[attr-defined]
                assert card not in dealt or card in scrambled, f"{card} dealt twice"
                scrambled.discard(card)
                dealt.add(card)
        if make is tc.CorrectCard:  # the hand was replayed with the right card
            dealt.discard(fields["wrong"])
            dealt.add(fields["right"])
        _check(driver.table)
    event(f"hands started: {min(driver.table.hand_number, 5)}+")
    for kind in {effect.data["kind"] for effect in driver.effects if effect.kind == "alert"}:
        event(f"alert {kind}")
    text = driver.dump()
    assert json.dumps(tc.Table.from_json(json.loads(text)).to_json()) == text
    assert driver.replayed() == text
    lines = [json.dumps(item.to_json()) for item in driver.inputs]
    assert [tc.input_from_json(json.loads(line)) for line in lines] == driver.inputs
    _goes_on_as_applied(driver)


def _goes_on_as_applied(driver: TableDriver) -> None:
    """Each input applied after the last step (its signals known) gives what ``apply``
    gives from the table alone: the same table, effects (the display's and the lamps'
    changes among them) and signals, the table's own."""
    assert driver.first is not None
    step = tc.Step.of(driver.first)
    for item in driver.inputs:
        applied = tc.apply(step.table, item)
        step = step.then(item)
        assert step == applied, item
        assert step.signals == step.table.signals
