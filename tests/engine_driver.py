"""A small driver for engine tests: deal cards by street and act, keeping every effect."""

from __future__ import annotations

from controller.rules import Rules, parse_card
from controller.rules.effects import Effect
from controller.rules.hand import Hand, start_hand
from controller.rules.inputs import Action, Deal, Do, Illegal, IllegalInput, Input


def third_street(hands: dict[int, str]) -> list[str]:
    """Shoe order for third street from each seat's ``"down down up"`` cards."""
    split = {seat: cards.split() for seat, cards in sorted(hands.items())}
    return [split[seat][round_] for round_ in range(3) for seat in split]


def street(cards: dict[int, str], burn: str | None = None) -> list[str]:
    """Shoe order for one card to each seat (in seat order), after the burn if given."""
    return ([burn] if burn else []) + [cards[seat] for seat in sorted(cards)]


class Driver:
    def __init__(self, seats: dict[int, int], **rules: object) -> None:
        step = start_hand(Rules.from_mapping(rules), seats)
        self.hand: Hand = step.hand
        self.effects: list[Effect] = list(step.effects)

    def feed(self, item: Input) -> Driver:
        step = self.hand.apply(item)
        self.hand = step.hand
        self.effects.extend(step.effects)
        return self

    def deal(self, *cards: str) -> Driver:
        for text in cards:
            for token in text.split():
                self.feed(Deal(parse_card(token)))
        return self

    def act(self, seat: int, do: str, to: int | None = None) -> Driver:
        return self.feed(Action(Do(do), seat, to))

    def acts(self, *decisions: tuple) -> Driver:
        for decision in decisions:
            self.act(*decision)
        return self

    def bonus(self, seat: int, accept: bool) -> Driver:
        return self.feed(Action(Do.BONUS, seat, accept=accept))

    def refusal(self, item: Input) -> IllegalInput:
        """The refusal of ``item`` (its code and words); asserts that the state is unchanged."""
        before = self.hand
        try:
            self.hand.apply(item)
        except IllegalInput as error:
            assert self.hand is before
            assert not self.hand.can(item)
            return error
        raise AssertionError(f"{item} was accepted")

    def refused(self, item: Input) -> Illegal:
        """Why ``item`` is refused (see :meth:`refusal`): its code."""
        return self.refusal(item).code

    def refused_act(self, seat: int, do: str, to: int | None = None) -> Illegal:
        return self.refused(Action(Do(do), seat, to))

    def refusal_act(self, seat: int, do: str, to: int | None = None) -> IllegalInput:
        return self.refusal(Action(Do(do), seat, to))

    @property
    def waiting(self) -> dict:
        waiting = self.hand.waiting_for
        assert waiting is not None
        return waiting.to_json()

    @property
    def waiting_for_action(self) -> bool:
        waiting = self.hand.waiting_for
        return waiting is not None and waiting.kind == "action"

    @property
    def legal(self) -> list[tuple[str, int | None]]:
        return [(item["do"], item.get("to")) for item in self.waiting["legal"]]

    @property
    def to_act(self) -> int:
        return self.waiting["seat"]

    def stacks(self) -> dict[int, int]:
        return {p.seat: p.stack for p in self.hand.players}

    def messages(self, kind: str | None = None) -> list[str]:
        return [e.message for e in self.effects if kind is None or e.kind == kind]

    def player(self, seat: int):
        return self.hand.player(seat)
