"""Hands dealt in simulation for the surveillance statistics (controller.floor.surveillance):
seven-card stud at 8 seats from a shuffled deck of 52, seeded, honest or with a dealer
who feeds the four of clubs face up to one seat."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from controller.floor.surveillance import SeatHand

DECK = [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"]
#: Third street down, down, up; fourth to sixth up; seventh down.
STREETS = ((False, False, True), (True,), (True,), (True,), (False,))
FOLD = 0.2  # a player's chance to fold before each street after the third


@dataclass(frozen=True, slots=True)
class Feeder:
    """A dealer who, dealing ``seat`` an up card at ``table_id``, turns the four of clubs
    up there with chance ``chance`` while it is still in the deck."""

    dealer: str
    table_id: str
    seat: int
    chance: float


def hands(
    seed: int,
    count: int,
    tables: tuple[str, ...] = ("t1",),
    feeder: Feeder | None = None,
    seats: int = 8,
) -> Iterator[SeatHand]:
    """``count`` hands at each table, dealt in turn, each seat's part in each."""
    rng = random.Random(seed)
    dealers = [f"dealer-{n}" for n in range(1, 6)]
    for number in range(1, count + 1):
        for table_id in tables:
            # a dealer push every 40 hands; the feeder deals every hand of their table
            dealer = dealers[(number // 40 + tables.index(table_id)) % len(dealers)]
            if feeder is not None and feeder.table_id == table_id:
                dealer = feeder.dealer
            feeds = feeder is not None and dealer == feeder.dealer and feeder.table_id == table_id
            yield from _hand(rng, table_id, number, dealer, seats, feeder if feeds else None)


def _hand(
    rng: random.Random,
    table_id: str,
    number: int,
    dealer: str,
    seats: int,
    feeder: Feeder | None,
) -> Iterator[SeatHand]:
    deck = DECK[:]
    rng.shuffle(deck)
    dealt: dict[int, list[tuple[str, bool, bool]]] = {seat: [] for seat in range(1, seats + 1)}
    live = list(dealt)

    def deal(seat: int, up: bool, bonus: bool = False) -> None:
        if not deck:
            return
        feeds = up and feeder is not None and seat == feeder.seat and "4c" in deck
        if feeds and feeder is not None and rng.random() < feeder.chance:
            deck.remove("4c")
            deck.append("4c")
        card = deck.pop()
        dealt[seat].append((card, up, bonus))
        if up and card == "4c":
            deal(seat, False, bonus=True)  # the bonus card, face down, at once

    for street, faces in enumerate(STREETS):
        if street:
            live = [seat for seat in live if len(live) == 1 or rng.random() > FOLD] or live[:1]
        for up in faces:
            for seat in live:
                deal(seat, up)
    winner = rng.choice(live)
    for seat, cards in dealt.items():
        yield SeatHand(
            table_id,
            number,
            seat,
            f"player-{(seat + number // 500) % 12}",  # players change seats every 500 hands
            dealer,
            seats,
            True,
            len(cards),
            sum(up for _, up, _ in cards),
            sum(up and card == "4c" for card, up, _ in cards),
            sum(bonus for _, _, bonus in cards),
            sum(card[0] == "4" for card, _, _ in cards),
            1.0 if seat == winner else 0.0,
        )
