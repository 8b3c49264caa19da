"""The live view of the simulated table, and its plain lines when not on a terminal."""

from __future__ import annotations

import asyncio
import io
import json
import re
from collections.abc import Callable, Sequence

from controller.rules import Effect
from controller.sim.dealer import Dealer, FaultRates, Resolution, Tally
from controller.sim.floor import CoreFloor
from controller.sim.summary import summarize
from controller.sim.view import Event, Progress, View, stopped, summary
from controller.table import Protection, Table, TableSettings

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def plain(text: str) -> str:
    return ANSI.sub("", text)


def until(dealer: Dealer, check: Callable[[Table], object]) -> Table:
    """Moves of the dealer until ``check(table)``; the table then."""

    async def play() -> Table:
        for _ in range(5000):
            table = dealer.floor.table
            if check(table):
                return table
            await dealer.move()
        raise AssertionError("never reached")

    return asyncio.run(play())


def test_the_live_view_shows_the_bonus_card_the_lamps_and_the_seat_to_act() -> None:
    tally = Tally()
    out = io.StringIO()
    view = View(out, live=True, title="Simulated table", hands=5)
    view.tally = tally
    floor = CoreFloor(TableSettings(), tally.observe)
    dealer = Dealer(floor, tally, seats=6, hands=5, seed=1)
    table = until(dealer, lambda table: table.signals.lamps.bonus)
    screen = plain("\n".join(view.render(table)))
    seat = table.signals.lamps.seats[0]
    assert f"Dealer display: BONUS CARD: seat {seat}, face down   BONUS LAMP ON" in screen
    assert re.search(rf"^> {seat} ", screen, re.M)  # the seat's lamp
    assert "4c" in screen.split(f"> {seat} ")[1].splitlines()[0]  # its four of clubs, up
    assert re.search(r"\[#*\.*\] \d/5 hands", screen)
    table = until(dealer, lambda table: table.in_hand and table.hand.waiting_for.kind == "action")
    screen = plain("\n".join(view.render(table)))
    assert table.hand is not None and table.hand.waiting_for is not None
    acting = table.hand.waiting_for.seat
    assert f"BETTING: seat {acting} to act" in screen
    assert re.search(rf"^  {acting} .*<- to act$", screen, re.M)
    view.draw(table)
    assert out.getvalue().startswith("\x1b[H") and out.getvalue().endswith("\x1b[J")


def test_the_live_view_shows_an_alert_with_what_to_do() -> None:
    tally = Tally()
    view = View(io.StringIO(), live=True, title="Simulated table", hands=0)
    floor = CoreFloor(TableSettings(), tally.observe)
    dealer = Dealer(floor, tally, seats=4, hands=5, seed=2, faults=FaultRates(misplaced=0.5))
    table = until(dealer, lambda table: table.alerts)
    screen = plain("\n".join(view.render(table)))
    alert = table.alerts[0]
    assert f"Dealer display: PAUSED: {alert.message}" in screen
    assert f"! {alert.message}" in screen and f"what to do: {alert.remedy}" in screen
    assert "(Ctrl-C to stop)" in screen


def test_off_a_terminal_each_hand_and_alert_is_one_plain_line() -> None:
    tally = Tally()
    out = io.StringIO()
    view = View(out, live=False, title="Simulated table", hands=3)

    def observe(table: Table, effects: Sequence[Effect]) -> None:
        tally.observe(table, effects)
        view.observe(table, effects)

    floor = CoreFloor(TableSettings(), observe)
    faults = FaultRates(unreadable=0.05)
    asyncio.run(Dealer(floor, tally, seats=3, hands=3, seed=4, faults=faults).run())
    lines = out.getvalue().splitlines()
    assert "\x1b" not in out.getvalue()
    assert [line for line in lines if line.endswith(" is over")] == [
        f"hand {n} is over" for n in (1, 2, 3)
    ]
    assert tally.raised["unread_card"] > 0
    assert sum(line.startswith("a card left the shoe unread") for line in lines) == sum(
        tally.raised.values()
    )
    text = "\n".join(summary(summarize(tally, floor.table, 2.0)))
    assert "hands: 3 (0 void)" in text and "conserved" in text
    assert "unread_card: " in text


def test_the_stop_line_says_which_hand_was_in_progress() -> None:
    tally = Tally()
    floor = CoreFloor(TableSettings(), tally.observe)
    dealer = Dealer(floor, tally, seats=3, hands=2, seed=1)
    table = until(dealer, lambda table: table.in_hand and table.hand.street == 4)
    line = stopped(table)
    assert line.startswith(f"stopped (Ctrl-C) during hand {table.hand_number}, fourth street")
    assert "stacks below are as it started" in line
    table = until(dealer, lambda table: not table.in_hand and table.hand_number == 1)
    assert stopped(table) == "stopped (Ctrl-C) between hands"


def test_the_summary_counts_in_the_singular_and_the_plural() -> None:
    table = Table(TableSettings())
    one = "\n".join(summary(summarize(Tally(hands=1, cards=1, decks=1), table, 1.0)))
    assert "cards: 1 dealt from 1 deck;" in one
    two = "\n".join(summary(summarize(Tally(hands=2, cards=60, decks=2), table, 1.0)))
    assert "cards: 60 dealt from 2 decks;" in two
    view = View(io.StringIO(), live=False, title="Simulated table", hands=1)
    assert "0/1 hand " in plain(view.render(table)[0])


def test_for_a_program_each_hand_s_end_is_one_json_line() -> None:
    tally = Tally()
    out = io.StringIO()
    progress = Progress(out)

    def observe(table: Table, effects: Sequence[Effect]) -> None:
        tally.observe(table, effects)
        progress.observe(table, effects)

    floor = CoreFloor(TableSettings(), observe)
    asyncio.run(Dealer(floor, tally, seats=3, hands=3, seed=4).run())
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert lines == [{"event": Event.HAND_OVER, "hand": n, "void": False} for n in (1, 2, 3)]


def test_the_summary_s_data_is_json_and_its_words_are_made_from_it() -> None:
    tally = Tally()
    settings = TableSettings(protection=Protection(tag_checks=True))
    floor = CoreFloor(settings, tally.observe)
    faults = FaultRates(misplaced=0.05, cheats=1.0)
    asyncio.run(Dealer(floor, tally, seats=8, hands=12, seed=5, faults=faults).run())
    made = summarize(tally, floor.table, 3.0)
    data = json.loads(json.dumps(made))
    cheats = data["cheats"]
    assert data["hands"] == 12 and data["chips"]["conserved"] and not cheats["missed"]
    assert sum(cheats["injected"].values()) == tally.cheats.total() > 0
    assert sum(at["cheats"] for at in cheats["dealt_at"]) == tally.cheats.total()
    resolved = data["alerts"]["misplaced_card"]["resolved"]
    assert resolved == {Resolution.MOVED_CARD.value: tally.raised["misplaced_card"]}
    text = "\n".join(summary(made))
    assert f"cheats: {tally.cheats.total()} injected, {tally.caught.total()} caught (" in text
    assert f"hands fingerprint: {data['hands_fingerprint']}" in text
