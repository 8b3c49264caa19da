"""axe-core (the engine of the `axe-playwright-python` package, its `axe.min.js`) on every
screen of the console in a real Chromium at 1024x600: the dealer's page in a hand, with an
alert, the supervisor's dialog, a request to the supervisor and its approval, the showdown;
surveillance; the public page. No violation of impact serious or critical.

The pages are opened with the page's Content-Security-Policy bypassed: axe is injected as a
script, which the console's policy (script-src 'self') would rightly refuse.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.async_playwright import Axe

from tests.console_kit import DEALER, SUPERVISOR, LiveTable, Script
from tests.test_console_browser import TIMEOUT_MS, console, on_the_shoe, settled_page
from tests.test_console_touch import SMALL

pytestmark = (
    pytest.mark.slow
)  # a live table: the simulator's process, the service, the console served

#: The impacts that fail the test.
SERIOUS = ("serious", "critical")


async def page_on(browser: Any, url: str) -> Any:
    page = await browser.new_page(viewport=dict(SMALL), has_touch=True, bypass_csp=True)
    page.set_default_timeout(TIMEOUT_MS)
    await page.goto(url)
    return page


async def signed_in(page: Any, role: str, who: str, pin: str) -> None:
    sign_in = page.locator("#sign-in")
    await sign_in.locator("input[name=dealer]").fill(who)
    await sign_in.locator("input[name=pin]").fill(pin)
    await sign_in.get_by_role("button", name="Sign in").click()
    await page.get_by_text("live", exact=True).wait_for()


class Audit:
    """axe run on each screen; the serious and critical violations found, by screen."""

    def __init__(self) -> None:
        self.axe = Axe()
        self.found: list[str] = []
        self.screens: list[str] = []

    async def check(self, page: Any, screen: str, live: LiveTable | None) -> None:
        if live is not None:  # signed in: the page shows the table's last update
            await settled_page(page, live)
        results = await self.axe.run(page)
        self.screens.append(screen)
        for violation in results.response["violations"]:
            if violation["impact"] in SERIOUS:
                targets = [node["target"] for node in violation["nodes"]][:4]
                self.found.append(f"{screen}: {violation['id']} ({violation['impact']}) {targets}")


def test_no_serious_accessibility_violation_on_any_screen(tmp_path: Path) -> None:
    async def scenario(shoe: Any) -> None:
        async with console(tmp_path, shoe, size=SMALL) as (live, browser, _page):
            audit = Audit()
            url = live.served.url
            dealer = await page_on(browser, url)
            await audit.check(dealer, "sign-in", None)
            await signed_in(dealer, "dealer", DEALER["id"], DEALER["pin"])
            watch = await page_on(browser, url + "/surveillance")
            await signed_in(watch, "surveillance", SUPERVISOR["supervisor"], SUPERVISOR["pin"])
            public = await page_on(browser, url + "/public")
            await live.seat_players()
            await audit.check(dealer, "between hands", live)
            await live.play_hand(Script(), stop=lambda table: table.hand.street >= 4)
            await audit.check(dealer, "betting", live)
            await audit.check(public, "public in a hand", live)

            await live.shoe.command("draw unreadable disposition=dealt_unread")
            await live.shoe.settled()
            await dealer.locator("li.alert").wait_for()
            await audit.check(dealer, "an alert", live)
            await dealer.get_by_role("button", name="Supervisor actions").click()
            await audit.check(dealer, "the supervisor's dialog", live)
            await dealer.locator("#supervisor-form select[name=act]").select_option("void")
            await dealer.get_by_role("button", name="Ask the supervisor").click()
            await dealer.locator("#requests li.request").wait_for()
            await audit.check(dealer, "a request", live)
            await watch.locator("#requests li.request").wait_for()
            await audit.check(watch, "surveillance with a request", live)
            await watch.get_by_role("button", name="Approve").click()
            await audit.check(watch, "the approval", live)
            await watch.locator("#approve-form input[name=pin]").fill(SUPERVISOR["pin"])
            await watch.locator("#approve-ok").click()
            await watch.locator("#approve-dialog").wait_for(state="hidden")
            await live.until(lambda: not live.service.table.in_hand, "the hand void")

            await live.play_hand(Script())  # the next hand to its showdown
            await audit.check(dealer, "showdown", live)
            await audit.check(watch, "surveillance after the showdown", live)
            await audit.check(public, "public after the showdown", live)
            assert audit.found == [], "\n".join(audit.found)

    on_the_shoe(scenario)
