"""The console's sounds and escalation, in a real Chromium at 1024x600 against the table
service on the shoe simulator: the bonus card's chime repeats on the dealer's page until
the bonus card is dealt, an alert sounds its severity's sound, and an alert left open past
`[console] escalate_after` turns the fault's red and sounds again.

Screenshots are saved in the folder named by ``LUCK_SCREENSHOTS`` (else the test's
temporary folder).
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from controller.config import Console
from controller.table import Mode
from tests.console_kit import Script, dealer_signed_in
from tests.test_console_browser import console, on_the_shoe, settled_page
from tests.test_console_touch import SMALL, reachable

pytestmark = (
    pytest.mark.slow
)  # a live table: the simulator's process, the service, the console served

#: The house's escalation time in the test: the least the configuration takes.
ESCALATE_AFTER = 10


def test_the_bonus_chime_repeats_until_dealt_and_an_alert_sounds_and_escalates(
    tmp_path: Path,
) -> None:
    shots = Path(os.environ.get("LUCK_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)

    async def scenario(shoe: Any) -> None:
        async with console(tmp_path, shoe, size=SMALL, touch=True) as (live, _browser, page):
            live.service.config = replace(
                live.service.config, console=Console(escalate_after=ESCALATE_AFTER)
            )
            await page.reload()
            await dealer_signed_in(page)
            await live.seat_players()
            bonus = lambda table: table.signals.mode in (Mode.BONUS_CARD, Mode.BONUS_OFFER)  # noqa: E731
            await live.play_hand(Script(), stop=bonus)
            await settled_page(page, live)
            # the chime at once, and again (every 2.5 s) while the bonus card waits
            chimes = "() => window.consoleSounds().filter((name) => name === 'bonus').length >= 2"
            await page.wait_for_function(chimes, timeout=10_000)
            assert await page.evaluate("window.consoleBonusChiming()")
            await live.draw()  # the bonus card dealt
            await settled_page(page, live)
            await page.wait_for_function("() => !window.consoleBonusChiming()")

            # an unread card: its alert's sound (an action needed), then escalated
            await live.shoe.command("draw unreadable disposition=dealt_unread")
            await live.shoe.settled()
            alert = page.locator("li.alert")
            await alert.wait_for()
            await page.wait_for_function("() => window.consoleSounds().includes('action')")
            assert "escalated" not in await alert.get_attribute("class")
            await page.locator("li.alert.escalated").wait_for(timeout=(ESCALATE_AFTER + 10) * 1000)
            assert (await page.evaluate("window.consoleSounds()")).count("escalated") == 1
            assert (await alert.locator(".what").text_content()).startswith("a card left")
            await reachable(page)
            await page.screenshot(path=str(shots / "console-escalated-1024x600.png"))

    on_the_shoe(scenario)
