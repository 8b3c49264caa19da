"""The dealer console in a real browser (Debian's Chromium driven by Playwright) against the
table service on the shoe simulator: a whole hand dealt with the console's buttons, the
bonus banner, the supervisor's PIN dialog, a reconnect, and never a hole card in the page.

Screenshots are saved in the folder named by ``LUCK_SCREENSHOTS`` (else the test's
temporary folder).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import async_playwright

from controller.rules import Do
from controller.table import Decide
from tests.console_kit import DEALER, SUPERVISOR, LiveTable, Script, card_names, live_table
from tests.service_kit import simulator
from tests.test_dealer_ui_leaks import forbidden

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian's Chromium is not installed (apt-get install -y chromium)",
)
TIMEOUT_MS = 20_000


def button_for(move: Decide) -> str:
    selector = f'#choice-buttons button[data-do="{move.do.value}"]'
    if move.to is not None:
        selector += f'[data-to="{move.to}"]'
    if move.accept is not None:
        selector += f'[data-accept="{str(move.accept).lower()}"]'
    return selector


async def touch_targets(page: Any) -> None:
    """Every control on the screen is at least 44 px high and wide (a finger's touch
    target); the skip link waits off the screen until it has the focus."""
    small = await page.evaluate(
        """() => [...document.querySelectorAll('button, input, select, a')]
            .map((node) => [node.id || node.textContent.trim(), node.getBoundingClientRect()])
            .filter(([, box]) => box.width > 0 && box.height > 0 && box.right > 0 && box.bottom > 0)
            .filter(([, box]) => box.width < 44 || box.height < 44)
            .map(([name, box]) => `${name}: ${box.width}x${box.height}`)"""
    )
    assert small == [], small


async def sit_down(page: Any, seat: int) -> None:
    """Player P{seat} sits down at ``seat`` with 100, through the console's form."""
    form = page.locator("#sit-down")
    await form.get_by_label("Seat").fill(str(seat))
    await form.get_by_label("Player").fill(f"P{seat}")
    await form.get_by_label("Buy-in").fill("100")
    await form.get_by_role("button", name="Sit down").click()
    await page.locator(f'li[data-seat="{seat}"]').wait_for()


async def no_hole_card(page: Any, live: LiveTable, role: str = "dealer") -> None:
    hidden = forbidden(live.service.table, role, None)
    html = await page.content()
    leaked = card_names(html) & hidden
    assert not leaked, f"the {role}'s page shows {sorted(leaked)}"


async def settled_page(page: Any, live: LiveTable) -> None:
    """Wait until the page shows the table's last update."""
    feed = live.served.app.state.feed
    await live.until(lambda: feed.current.table is live.service.table, "the feed's update")
    seq = feed.current.seq
    await page.wait_for_function(
        "seq => document.body.dataset.live === 'true' && window.consoleSeq() >= seq",
        arg=seq,
        timeout=TIMEOUT_MS,
    )


def test_a_hand_dealt_with_the_console_buttons(tmp_path: Path) -> None:
    shots = Path(os.environ.get("LUCK_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)

    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe) as live, async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=["--no-sandbox"]
            )
            page = await browser.new_page(viewport={"width": 1280, "height": 800})
            page.set_default_timeout(TIMEOUT_MS)
            await page.goto(live.served.url)
            await page.get_by_label("Dealer id").fill("D200")
            await page.get_by_label("PIN", exact=True).fill("0000")
            await page.get_by_role("button", name="Sign in").click()
            await page.get_by_text("wrong dealer id or PIN").wait_for()
            # then from the keyboard alone: the PIN field, Enter
            await page.get_by_label("PIN", exact=True).focus()
            await page.keyboard.type(DEALER["pin"])
            await page.keyboard.press("Enter")
            await page.get_by_text("live", exact=True).wait_for()
            # landmarks and labels for a screen reader
            for role, name in (("banner", None), ("main", None), ("complementary", "Decisions")):
                assert await page.get_by_role(role, name=name).count() == 1, role
            assert await page.get_by_role("status").count() >= 1
            public = await browser.new_page(viewport={"width": 1280, "height": 800})
            public.set_default_timeout(TIMEOUT_MS)
            await public.goto(live.served.url + "/public")

            for seat in (1, 2, 3):
                await sit_down(page, seat)
            script = Script()
            await live.load(script.deck(live.service.table))
            await page.get_by_role("button", name="New hand").click()
            await live.until(lambda: live.service.table.in_hand, "the hand starts")

            bonus_seen = False
            while (move := script.move(live.service.table)) is not None:
                for shown, role in ((page, "dealer"), (public, "public")):
                    await settled_page(shown, live)
                    await no_hole_card(shown, live, role)
                before = live.service.position
                if move == "deal":
                    if live.service.table.signals.display.startswith("BONUS CARD"):
                        banner = page.locator("#next.bonus")
                        await banner.wait_for()
                        if not bonus_seen:
                            await page.screenshot(path=str(shots / "console-bonus-1280x800.png"))
                        bonus_seen = True
                    await live.draw()
                    continue
                assert isinstance(move, Decide)
                await touch_targets(page)
                if move.do is Do.FOLD:  # from the keyboard: the button, Enter, then confirm
                    await page.locator(button_for(move)).focus()
                    await page.keyboard.press("Enter")
                    await page.locator("#confirm-ok:focus").wait_for()
                    await page.keyboard.press("Enter")
                else:
                    await page.locator(button_for(move)).click()
                await live.until(lambda b=before: live.service.position > b, "the decision")
            assert bonus_seen
            await settled_page(page, live)
            await no_hole_card(page, live)
            await page.locator("#next:not(.bonus)").wait_for()
            await page.screenshot(path=str(shots / "console-showdown-1280x800.png"))
            hand = live.service.table.hand
            assert hand is not None and hand.phase.value == "complete"
            await page.locator(".seat .shown").first.wait_for()
            await settled_page(public, live)
            await no_hole_card(public, live, "public")
            await public.locator(".seat .shown").first.wait_for()
            assert await public.locator("#choice-buttons, #alerts").count() == 0
            await public.screenshot(path=str(shots / "public-showdown-1280x800.png"))

            # surveillance signs in with a supervisor's PIN and sees every hole card
            watch = await browser.new_page(viewport={"width": 1280, "height": 800})
            watch.set_default_timeout(TIMEOUT_MS)
            await watch.goto(live.served.url + "/surveillance")
            await watch.get_by_label("Supervisor id").fill(SUPERVISOR["supervisor"])
            await watch.get_by_label("PIN", exact=True).fill(SUPERVISOR["pin"])
            await watch.get_by_role("button", name="Sign in").click()
            await settled_page(watch, live)
            holes = {str(dealt.card) for p in hand.players for dealt in p.cards if not dealt.up}
            assert holes <= card_names(await watch.content())
            await watch.screenshot(path=str(shots / "surveillance-1280x800.png"))
            # every past hand from the journal: hand 1's history, every hole card in it
            await watch.locator('button.past-hand[data-hand="1"]').click()
            history = watch.locator("#hand-history")
            await history.get_by_text("*** THIRD STREET ***").wait_for()
            assert holes <= card_names(await history.text_content())
            await watch.screenshot(path=str(shots / "surveillance-history-1280x800.png"))
            await watch.keyboard.press("Escape")
            await watch.locator("#hand-dialog").wait_for(state="hidden")
            # the public page reads the table, never the dealer's instructions or an alert
            public_line = await public.locator("#next").text_content()
            assert public_line == "Hand 1 over", public_line

            # a reconnect: the service goes on while the page is away, the page catches up
            await page.evaluate("window.consoleDrop()")
            await live.load(script.deck(live.service.table))
            (await live.post("/api/hands")).raise_for_status()
            for _ in range(4):
                await live.draw()
            await settled_page(page, live)
            await no_hole_card(page, live)
            shown = await page.locator('li[data-seat="1"] .card').count()
            assert shown == len(live.service.table.hand.players[0].cards)

            # an unreadable card dealt: the alert, resolved by the supervisor with the PIN
            await live.shoe.command("draw unreadable disposition=dealt_unread")
            await live.shoe.settled()
            alert = page.locator("li.alert.action")
            await alert.wait_for()
            # the dealer acknowledges it: it stays, and the table stays paused, until resolved
            await alert.get_by_role("button", name="Acknowledge").click()
            await alert.get_by_text(f"acknowledged by {DEALER['id']}").wait_for()
            assert await page.locator("#paused").is_visible()
            assert live.service.table.paused
            await page.set_viewport_size({"width": 1920, "height": 1080})
            await page.screenshot(path=str(shots / "console-alert-1920x1080.png"))
            await alert.get_by_role("button", name="Resolve: dead").click()
            dialog = page.locator("#supervisor-dialog")
            await dialog.get_by_label("Why").fill("card taken away")
            await dialog.get_by_label("Supervisor id").fill(SUPERVISOR["supervisor"])
            await dialog.get_by_label("Supervisor PIN").fill("0000")
            await dialog.get_by_role("button", name="Apply").click()
            await dialog.get_by_text("wrong supervisor id or PIN").wait_for()
            await dialog.get_by_label("Supervisor PIN").fill(SUPERVISOR["pin"])
            await dialog.get_by_role("button", name="Apply").click()
            await alert.wait_for(state="detached")
            assert live.service.table.alerts == ()
            await no_hole_card(page, live)
            await browser.close()

    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(shoe), 300))


def test_every_card_face_fits_inside_its_card(tmp_path: Path) -> None:
    """Each of the 52 faces, as the page draws it (a ten as "10"), stays inside the card."""

    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe) as live, async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=["--no-sandbox"]
            )
            page = await browser.new_page(viewport={"width": 1280, "height": 800})
            page.set_default_timeout(TIMEOUT_MS)
            await page.goto(live.served.url + "/public")
            spilled = await page.evaluate(
                """() => {
                    const row = document.createElement('div');
                    row.className = 'cards';
                    document.querySelector('main').append(row);
                    const faces = [];
                    for (const rank of '23456789TJQKA') for (const suit of 'cdhs') {
                        const card = cardNode({card: rank + suit, face: 'up'});
                        row.append(card);
                        faces.push(card);
                    }
                    return faces.filter((card) => card.scrollWidth > card.clientWidth)
                        .map((card) => `${card.textContent}: ${card.scrollWidth} px`);
                }"""
            )
            await browser.close()
            assert spilled == [], spilled

    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(shoe), 300))
