"""The simulated players' strategy: legal choices only, seeded."""

from __future__ import annotations

from controller.rules import Choice, Do, Waiting
from controller.sim.players import Strategy

FACING_A_BET = Waiting(
    "action",
    seat=3,
    legal=(Choice(Do.FOLD), Choice(Do.CALL), Choice(Do.RAISE, 10), Choice(Do.RAISE, 15)),
)
FREE_CHECK = Waiting("action", seat=3, legal=(Choice(Do.FOLD), Choice(Do.CHECK), Choice(Do.BET, 5)))


def test_every_choice_is_legal_and_each_legal_choice_is_taken() -> None:
    strategy = Strategy(1)
    taken = {strategy.choose(FACING_A_BET) for _ in range(2000)}
    assert taken == set(FACING_A_BET.legal)


def test_a_player_never_folds_when_checking_is_free() -> None:
    strategy = Strategy(2)
    taken = {strategy.choose(FREE_CHECK) for _ in range(2000)}
    assert taken == {Choice(Do.CHECK), Choice(Do.BET, 5)}


def test_a_priced_bonus_card_is_bought_or_declined_and_a_showdown_shown_or_mucked() -> None:
    strategy = Strategy(3)
    offers = [strategy.choose(Waiting("bonus", seat=2, price=5)) for _ in range(1000)]
    assert set(offers) == {True, False} and 600 < offers.count(True) < 800
    shows = {strategy.choose(Waiting("show", seat=2)) for _ in range(200)}
    assert shows == {Choice(Do.SHOW), Choice(Do.MUCK)}


def test_the_same_seed_makes_the_same_decisions() -> None:
    first, second = Strategy(9), Strategy(9)
    assert [first.choose(FACING_A_BET) for _ in range(50)] == [
        second.choose(FACING_A_BET) for _ in range(50)
    ]
    assert [first.buy_in(100, 1000) for _ in range(20)] == [
        second.buy_in(100, 1000) for _ in range(20)
    ]


def test_buy_ins_stay_within_the_table_limits() -> None:
    strategy = Strategy(4)
    amounts = {strategy.buy_in(100, 1000) for _ in range(500)}
    assert min(amounts) == 100 and max(amounts) == 1000 and len(amounts) == 11
    assert {strategy.buy_in(7, 7) for _ in range(10)} == {7}
