"""Every tap safe on the dealer's console, in a real Chromium with a touchscreen at 1024x600
against the table service on the shoe simulator: a double tap on Check records one
decision (the second touch lands on the next seat's buttons while they arm: the touches
150 ms apart by the page's own clock, stopped and moved on by the test, so that a loaded
machine cannot make the second touch late), a paused table shows no decision buttons, and
the kiosk's page selects no text, zooms on no double tap and pulls nothing.

Screenshots are saved in the folder named by ``LUCK_SCREENSHOTS`` (else the test's
temporary folder).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from controller.journal import Journal
from controller.rules import Do
from controller.table import Decide, Table, apply
from tests.console_kit import LiveTable, Script, dealer_signed_in
from tests.test_console_browser import console, on_the_shoe, settled_page

pytestmark = (
    pytest.mark.slow
)  # a live table: the simulator's process, the service, the console served

#: The console's arming time (``ARM_MS`` in console.js), in ms.
ARM_MS = 350
#: The two taps of a double tap, apart, in ms.
DOUBLE_TAP_MS = 150
#: How far ahead the page's clock jumps when it is paused: more than a loaded machine takes
#: between reading the page's time and pausing it (the clock cannot go back).
PAUSE_AHEAD_MS = 10_000
CHECK = '#choice-buttons button[data-do="check"]'
SMALL = {"width": 1024, "height": 600}
KIOSK = """() => {
  const html = getComputedStyle(document.documentElement);
  const body = getComputedStyle(document.body);
  return [html.touchAction, html.overscrollBehaviorY, body.overscrollBehaviorY, body.userSelect];
}"""

#: A decision button arming: disabled, its flash, and the seat line's flash.
ARMING = """(button) => [button.disabled, getComputedStyle(button).animationName,
    document.getElementById('choices').classList.contains('new-seat')]"""


def checks(table: Table) -> int | None:
    """The seat to act now, when it may check; None when no seat may."""
    hand = table.hand
    waiting = None if hand is None or hand.over else hand.waiting_for
    if waiting is None or waiting.kind != "action":
        return None
    return waiting.seat if any(choice.do is Do.CHECK for choice in waiting.legal) else None


def checks_twice(table: Table) -> bool:
    """A seat may check, and after its check another seat may check too."""
    seat = checks(table)
    if seat is None:
        return False
    after = checks(apply(table, Decide(at=0, seat=seat, do=Do.CHECK)).table)
    return after is not None and after != seat


def decisions(live: Any, after: int) -> list[tuple[int, str]]:
    """The decisions journaled after position ``after``: (seat, what)."""
    with Journal.open(live.service.config.journal, create=False) as journal:
        entries = [e for e in journal.entries(after) if e.type == "decide"]
    return [(e.fields["seat"], e.fields["do"]) for e in entries]


async def double_tapped(page: Any, live: LiveTable) -> tuple[int, int]:
    """The seat to act checks by a double tap on its Check, the touches DOUBLE_TAP_MS apart by
    the page's clock (``page.clock`` installed), which stands still meanwhile: the second
    touch lands on the next seat's Check, drawn at the same place and still arming (read from
    the page, not raced), and is ignored: one decision sent and journaled. The clock runs on
    after. The seat that checked and the next seat to act."""
    table = live.service.table
    first = checks(table)
    assert first is not None and checks_twice(table)
    second = checks(apply(table, Decide(at=0, seat=first, do=Do.CHECK)).table)
    await settled_page(page, live)
    first_check = page.locator(f'{CHECK}[data-seat="{first}"]:enabled')
    await first_check.wait_for()  # armed: on the screen for ARM_MS
    sent: list[str] = []

    def decision_sent(request: Any) -> None:
        if request.method == "POST" and request.url.endswith("/api/decisions"):
            sent.append(request.url)

    page.on("request", decision_sent)
    box = await first_check.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    position = live.service.position
    now = await page.evaluate("Date.now()")  # ms; pause_at takes seconds
    await page.clock.pause_at((now + PAUSE_AHEAD_MS) / 1000)  # the page's time stands still
    await page.touchscreen.tap(x, y)
    # the next seat's Check drawn where the first was, arming
    next_check = page.locator(f'{CHECK}[data-seat="{second}"]')
    await next_check.wait_for()
    assert await next_check.bounding_box() == box  # the same place on the screen
    assert await next_check.evaluate(ARMING) == [True, "arming", True]
    # the second touch, DOUBLE_TAP_MS after the first: the buttons still arming
    await page.clock.run_for(DOUBLE_TAP_MS)
    assert await next_check.evaluate(ARMING) == [True, "arming", True]
    await page.touchscreen.tap(x, y)
    await live.until(lambda: live.service.position > position, "the decision")
    await page.clock.run_for(ARM_MS - DOUBLE_TAP_MS)  # armed now
    await next_check.locator(":scope:enabled").wait_for()
    await page.clock.resume()
    await settled_page(page, live)
    page.remove_listener("request", decision_sent)
    assert len(sent) == 1, sent  # one decision sent: the first touch's
    assert decisions(live, position) == [(first, "check")]
    assert checks(live.service.table) == second
    return first, second


def test_a_double_tap_records_one_decision_and_a_pause_shows_none(tmp_path: Path) -> None:
    shots = Path(os.environ.get("LUCK_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)

    async def scenario(shoe: Any) -> None:
        async with console(tmp_path, shoe, size=SMALL, touch=True) as (live, _browser, page):
            await page.clock.install()  # its time runs as the machine's, until paused
            await dealer_signed_in(page)
            assert await page.evaluate(KIOSK) == ["manipulation", "none", "none", "none"]

            await live.seat_players()
            script = Script(fold_seat=None, bet_seat=None)  # everybody checks when they may
            await live.play_hand(script, stop=checks_twice)
            await settled_page(page, live)
            await page.locator(f"{CHECK}:enabled").wait_for()  # armed
            await page.screenshot(path=str(shots / "dealer-double-tap-guard-1024x600.png"))
            position = live.service.position
            first, _ = await double_tapped(page, live)

            # a card out of the shoe while the next seat is to act: the table pauses, and
            # the console shows no decision, only the alert with its remedies
            await live.draw()
            assert live.service.table.paused
            await settled_page(page, live)
            assert await page.locator("#choice-buttons button").count() == 0
            to_act = await page.locator("#to-act").text_content()
            assert to_act == "Table paused: no decision until the alert is resolved"
            assert await page.locator("#alerts li button").count() >= 1
            assert decisions(live, position) == [(first, "check")]

    on_the_shoe(scenario)
