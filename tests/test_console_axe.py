"""axe-core (the engine of the `axe-playwright-python` package, its `axe.min.js`) on the
surveillance page (an alert and a request to the supervisor, its approval, after the
showdown) and the public page (in a hand, after the showdown), in a real Chromium at
1024x600: no violation of impact serious or critical. The dealer's page is audited on every
screen at three sizes by ``tests/test_console_trial.py`` (with ``Audit`` and ``page_on``).

The pages are opened with the page's Content-Security-Policy bypassed: axe is injected as a
script, which the console's policy (script-src 'self') would rightly refuse.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.async_playwright import Axe

from tests.console_kit import SUPERVISOR, LiveTable, Script
from tests.test_console_browser import TIMEOUT_MS, console, on_the_shoe, settled_page
from tests.test_console_touch import SMALL

pytestmark = (
    pytest.mark.slow
)  # a live table: the simulator's process, the service, the console served

#: The impacts that fail the test.
SERIOUS = ("serious", "critical")
#: No decision buttons arming, no seat line flashing (docs/console.md, "Every tap safe").
AT_REST = "() => !document.querySelector('#choice-buttons.arming, #choices.new-seat')"
#: axe on the whole page, every rule, reporting the violations (``Axe.run``'s defaults).
AXE_RUN = "axe.run(document, {resultTypes: ['violations']})"


async def page_on(browser: Any, url: str, size: dict[str, int] = SMALL) -> Any:
    """A page on ``url`` with a touchscreen of ``size``, open to axe's script."""
    page = await browser.new_page(viewport=dict(size), has_touch=True, bypass_csp=True)
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
        # at rest: the new seat's flash (dark on the turn's blue, fading) is over
        await page.wait_for_function(AT_REST)
        # axe's script parsed once a page (``Axe.run`` would inject it again each time)
        if not await page.evaluate("typeof window.axe === 'object'"):
            await page.evaluate(self.axe.axe_script)
        response = await page.evaluate(AXE_RUN)
        self.screens.append(screen)
        for violation in response["violations"]:
            if violation["impact"] in SERIOUS:
                targets = [node["target"] for node in violation["nodes"]][:4]
                self.found.append(f"{screen}: {violation['id']} ({violation['impact']}) {targets}")


def test_no_serious_accessibility_violation_on_surveillance_and_the_public_page(
    tmp_path: Path,
) -> None:
    async def scenario(shoe: Any) -> None:
        async with console(tmp_path, shoe, size=SMALL) as (live, browser, _page):
            audit = Audit()
            url = live.served.url
            watch = await page_on(browser, url + "/surveillance")
            await signed_in(watch, "surveillance", SUPERVISOR["supervisor"], SUPERVISOR["pin"])
            public = await page_on(browser, url + "/public")
            await live.seat_players()
            await live.play_hand(Script(), stop=lambda table: table.hand.street >= 4)
            await audit.check(public, "public in a hand", live)

            await live.shoe.command("draw unreadable disposition=dealt_unread")
            await live.shoe.settled()
            asked = {"action": "void", "body": {"why": "Misdeal"}}
            (await live.post("/api/requests", asked)).raise_for_status()
            await watch.locator("#requests li.request").wait_for()
            await audit.check(watch, "surveillance with an alert and a request", live)
            await watch.get_by_role("button", name="Approve").click()
            await audit.check(watch, "the approval", live)
            await watch.locator("#approve-form input[name=pin]").fill(SUPERVISOR["pin"])
            await watch.locator("#approve-ok").click()
            await watch.locator("#approve-dialog").wait_for(state="hidden")
            await live.until(lambda: not live.service.table.in_hand, "the hand void")

            await live.play_hand(Script())  # the next hand to its showdown
            await audit.check(watch, "surveillance after the showdown", live)
            await audit.check(public, "public after the showdown", live)
            assert audit.found == [], "\n".join(audit.found)

    on_the_shoe(scenario)
