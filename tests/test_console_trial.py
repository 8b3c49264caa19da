"""The dealer's console tried as issue #39 asks, by touch in Chromium at 1024x600, 1280x800 and
1920x1080 at once (a page at each size on one table, the table service on the shoe
simulator): a whole hand with a bonus card, a double tap on each page (one decision
each), an unread card whose remedy the dealer asks of the supervisor in one tap and the pit
page approves (the floor service, its own process), a restart of the service (every page
still signed in, on the recovered table), the showdown, and a seat change from the seat's
sheet. On every screen at every size: every control on the screen and none under another,
no code or browser error in the words, and axe-core with no serious or critical violation;
the bonus prompt as large as the largest type and an ordinary deal prompt, the seats' tags
at least 16 px, the cards at least 24 px from 800 px high (docs/console.md).

Screenshots, one at each size (``console-bonus-1280x800.png``, ``console-alert-1920x1080.png``,
``console-showdown-1024x600.png``), are saved in the folder named by ``LUCK_SCREENSHOTS``
(else the test's temporary folder).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from math import inf
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import async_playwright

from controller.table import Table
from tests.console_kit import DEALER, LiveTable, Script, dealer_signed_in, live_table
from tests.pit_kit import FloorService
from tests.test_console_axe import Audit, page_on
from tests.test_console_bonus_fit import PROMPT
from tests.test_console_browser import CHROMIUM, on_the_shoe
from tests.test_console_taps import checks_twice, double_tapped
from tests.test_console_touch import MID, SIZES_SEEN, SMALL, journaled, reachable
from tests.test_pit_approve import PIT, pit_floor, pit_signed_in, pit_with_pin

pytestmark = pytest.mark.slow  # a live table, the floor service, Chromium

LARGE = {"width": 1920, "height": 1080}


def at(page: Any) -> str:
    return "{width}x{height}".format(**page.viewport_size)


async def screen(pages: list[Any], audit: Audit, name: str, live: LiveTable | None) -> None:
    """Each page at its size on the screen ``name``: the table's last update shown (when
    signed in, ``live``), every control on the screen (the open dialog's) and none under
    another, no code in the words, and axe's serious and critical violations noted."""
    for page in pages:
        await audit.check(page, f"{name} at {at(page)}", live)
        await reachable(page)


def card_due(table: Table) -> bool:
    hand = table.hand
    return hand is not None and hand.waiting_for is not None and hand.waiting_for.kind == "card"


def test_a_whole_hand_by_touch_at_three_sizes(tmp_path: Path) -> None:
    shots = Path(os.environ.get("LUCK_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)

    async def scenario(shoe: Any) -> None:
        async with (
            live_table(tmp_path, shoe) as live,
            async_playwright() as playwright,
            contextlib.AsyncExitStack() as stack,
        ):
            # the floor service starts while the hand is played (the pit comes in later)
            floor = asyncio.create_task(
                stack.enter_async_context(pit_floor(tmp_path, live.served.url))
            )
            browser = await playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=["--no-sandbox"]
            )
            try:
                await trial(live, browser, floor, shots)
            finally:
                await browser.close()
                await asyncio.wait([floor])  # started (the stack stops it), or failed

    on_the_shoe(scenario)


async def trial(
    live: LiveTable, browser: Any, floor: asyncio.Task[FloorService], shots: Path
) -> None:
    audit = Audit()
    pages = [await page_on(browser, live.served.url, size) for size in (SMALL, MID, LARGE)]
    small, mid, large = pages
    for page in pages:
        await page.clock.install()  # the page's time runs as the machine's, until paused
    await screen(pages, audit, "sign-in", None)
    for page in pages:
        await dealer_signed_in(page)
    await live.seat_players()
    await screen(pages, audit, "between hands", live)

    # the bonus card due: its prompt in the largest type, the cards and tags large enough
    script = Script(fold_seat=None, bet_seat=None)  # the four of clubs up to seat 1
    await live.play_hand(script, stop=lambda table: table.signals.display.startswith("BONUS"))
    await screen(pages, audit, "the bonus card", live)
    for page in pages:
        prompt = await page.evaluate(PROMPT)
        assert prompt["text"] == live.service.table.signals.display, prompt
        assert prompt["inside"] and prompt["whole"], (at(page), prompt)
        assert prompt["size"] >= max(prompt["deal"], prompt["largest"]), (at(page), prompt)
        seen = await page.evaluate(SIZES_SEEN)  # none seen: infinite
        assert 16 <= seen["marks"] < inf and seen["bonus"] >= seen["deal"], (at(page), seen)
        assert seen["cards"] >= (24 if page.viewport_size["height"] >= 800 else 18), seen
    await mid.screenshot(path=str(shots / "console-bonus-1280x800.png"))

    # a double tap on each page: one decision each
    for page in pages:
        await live.play_on(script, stop=checks_twice)
        await double_tapped(page, live)

    # an unread card: its remedy asked of the supervisor with one tap, at 1024x600
    await live.play_on(script, stop=card_due)
    await live.shoe.command("draw unreadable disposition=dealt_unread")
    await live.shoe.settled()
    await screen(pages, audit, "an alert", live)
    await large.screenshot(path=str(shots / "console-alert-1920x1080.png"))
    for page in pages:
        await page.locator("li.alert").get_by_role("button", name="Enter the card").tap()
    await screen(pages, audit, "the supervisor's dialog", live)
    for page in (mid, large):
        await page.locator("#supervisor-dialog").get_by_role("button", name="Cancel").tap()
    dialog = small.locator("#supervisor-dialog")
    hand = live.service.table.hand
    in_play = {str(dealt.card) for player in hand.players for dealt in player.cards}
    card = next(name for name in ("As", "Kh", "Qd", "Jc") if name not in in_play)
    await dialog.locator(f'.keys button[data-key="{card}"]').tap()
    position = live.service.position
    await dialog.get_by_role("button", name="Ask the supervisor").tap()
    await live.until(lambda: bool(live.served.app.state.requests.pending()), "the request")
    for page in pages:
        await page.locator("#requests li.request").wait_for()
    await screen(pages, audit, "a request", live)

    # the pit page approves it with the PIN (connected to the table with it first)
    pit = await page_on(browser, (await floor).url, MID)
    table = await pit_signed_in(pit)
    await pit_with_pin(table, "PIN for table T1", "Connect", PIT["pin"])
    request = pit.locator('#requests li[data-requests-of="T1"][data-request]')
    await request.wait_for()
    await audit.check(pit, "the pit page with a request", None)
    await pit_with_pin(request, "Your PIN", "Approve", PIT["pin"])
    await live.until(lambda: not live.service.table.alerts, "the card entered")
    (entered,) = [fields for kind, fields in journaled(live, position) if kind == "enter_card"]
    assert (entered["card"], entered["who"]) == (card, PIT["id"])

    # the service restarted: every page still signed in, on the table recovered
    before = live.service.table
    await live.restart()
    assert live.service.table.hand == before.hand
    await live.play_on(script, stop=lambda table: not card_due(table))  # a seat to act
    await screen(pages, audit, "betting after a restart", live)
    for page in pages:
        assert await page.locator("#sign-in").is_hidden()
        assert await page.locator("#signed-in").text_content() == f"Signed in: {DEALER['id']}"
        assert 16 <= (await page.evaluate(SIZES_SEEN))["tags"] < inf  # TO ACT

    # the hand to its showdown, then seat 3 moves to seat 6 with its stack
    await live.play_on(script)
    await small.locator(".seat .shown").first.wait_for()
    await screen(pages, audit, "the showdown", live)
    await small.screenshot(path=str(shots / "console-showdown-1024x600.png"))
    stack = live.service.table.seat(3).stack
    for page in pages:
        await page.locator('#ring li[data-pos="3"]').tap()
        sheet = page.locator("#seat-sheet")
        await sheet.get_by_role("button", name="Change seat").tap()
        await sheet.get_by_role("button", name="Seat 6", exact=True).tap()
    await screen(pages, audit, "a seat change", live)
    position = live.service.position
    await small.locator("#seat-sheet").get_by_role("button", name="Move to seat 6").tap()
    await live.until(lambda: live.service.table.seat(6) is not None, "the move")
    moved = live.service.table.seat(6)
    assert (moved.player, moved.stack, live.service.table.seat(3)) == ("P3", stack, None)
    assert journaled(live, position) == [("change_seat", {"seat": 3, "to": 6})]
    assert audit.found == [], "\n".join(audit.found)
