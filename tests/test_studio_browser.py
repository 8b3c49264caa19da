"""The studio's broadcast overlay (``/studio``) in a real browser (Debian's Chromium driven by
Playwright), as an OBS browser source shows it: every player's name, cards and odds as the
studio feed has them, the bonus-card moment marked, at 1920x1080 and 1280x720, with a
transparent background on request; a bad token shows the refusal and nothing of the table.

Screenshots are saved in the folder named by ``LUCK_SCREENSHOTS`` (else the test's
temporary folder).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import async_playwright

from tests.console_kit import LiveTable, Script, card_names, live_table
from tests.service_kit import simulator
from tests.test_console_browser import CHROMIUM
from tests.test_studio import issue

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian's Chromium is not installed (apt-get install -y chromium)",
)
TIMEOUT_MS = 20_000
DELAY = 1.0
NAMES = ("Aoife", "Brendan", "Ciara", "Declan", "Eimear", "Fionn")
SHOWN = """() => [...document.querySelectorAll('#players li')].map((item) => ({
    seat: +item.dataset.seat,
    name: item.querySelector('.studio-name').firstChild.textContent,
    cards: [...item.querySelectorAll('.studio-card')].map((card) => card.dataset.card),
    odds: item.querySelector('.studio-equity')?.textContent ?? null,
    classes: item.className,
    inside: (() => { const box = item.getBoundingClientRect();
        return box.left >= 0 && box.top >= 0 && box.right <= innerWidth
            && box.bottom <= innerHeight; })(),
}))"""


OVERFLOWING = """() => [...document.querySelectorAll('#players li')]
    .filter((item) => item.scrollWidth > item.clientWidth
        || item.querySelector('.studio-cards').scrollWidth
           > item.querySelector('.studio-cards').clientWidth)
    .map((item) => item.dataset.seat)"""


async def shown_as_released(page: Any, live: LiveTable) -> dict[str, Any]:
    """Wait until the studio feed has released the table's last moment and the page shows
    it; that message."""
    studio = live.served.app.state.table.studio
    position = live.service.position
    deadline = time.monotonic() + 180  # the odds of 8 players, one after the other
    while studio.position < position:
        assert time.monotonic() < deadline, "the studio's release"
        await asyncio.sleep(0.05)
    await page.wait_for_function(
        "seq => +document.body.dataset.seq >= seq", arg=studio.seq, timeout=TIMEOUT_MS
    )
    message: dict[str, Any] = json.loads(studio.current)
    return message


async def as_the_feed(page: Any, message: dict[str, Any]) -> None:
    """The page shows each player of the message: name, every card, the odds."""
    shown = await page.evaluate(SHOWN)
    players = message["table"]["players"]
    assert [p["seat"] for p in shown] == [p["seat"] for p in players]
    for on_page, player in zip(shown, players, strict=True):
        assert on_page["name"] == player["player"]
        assert on_page["cards"] == [c["card"] for c in player["cards"]]
        if player["odds"] is not None and not player["folded"]:
            assert on_page["odds"] == f"{100 * player['odds']['equity']:.1f}%"
        assert on_page["inside"], on_page  # nothing off the screen


def test_the_studio_overlay_at_both_sizes(tmp_path: Path) -> None:
    shots = Path(os.environ.get("LUCK_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    table = f"test_mode = true\n[studio]\ndelay = {DELAY / 60}\n"

    async def scenario(shoe: Any) -> None:
        async with (
            live_table(tmp_path, shoe, table=table) as live,
            async_playwright() as playwright,
        ):
            for seat, name in enumerate(NAMES, start=1):
                body = {"seat": seat, "player": name, "buy_in": 200}
                (await live.post("/api/seats", body)).raise_for_status()
            token = (await issue(live))["token"]
            browser = await playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=["--no-sandbox"]
            )
            try:
                refused = await browser.new_page(viewport={"width": 1280, "height": 720})
                await refused.goto(live.served.url + "/studio?token=forged")
                await refused.get_by_text("refused: not a studio token").wait_for()
                assert await refused.locator("#players li").count() == 0

                big = await browser.new_page(viewport={"width": 1920, "height": 1080})
                big.set_default_timeout(TIMEOUT_MS)
                await big.goto(live.served.url + f"/studio?token={token}")
                small = await browser.new_page(viewport={"width": 1280, "height": 720})
                small.set_default_timeout(TIMEOUT_MS)
                await small.goto(live.served.url + f"/studio?token={token}&transparent=1")
                background = "getComputedStyle(document.body).backgroundColor"
                assert await small.evaluate(background) == "rgba(0, 0, 0, 0)"
                assert await big.evaluate(background) != "rgba(0, 0, 0, 0)"
                taken: set[str] = set()

                async def each() -> None:
                    hand = live.service.table.hand
                    assert hand is not None
                    if "bonus" not in taken and hand.bonus_seats():
                        taken.add("bonus")
                        message = await shown_as_released(big, live)
                        assert message["table"]["bonus"] == {"seat": 1}
                        await big.get_by_text("Bonus card to Aoife").wait_for()
                        marked = await big.evaluate(SHOWN)
                        assert "bonus-moment" in marked[0]["classes"]
                        await as_the_feed(big, message)
                        await big.screenshot(path=str(shots / "studio-bonus-1920x1080.png"))
                    if "fifth" not in taken and hand.street == 5:
                        taken.add("fifth")
                        message = await shown_as_released(small, live)
                        await as_the_feed(small, message)
                        assert card_names(message["table"]) <= card_names(await small.content())
                        await small.screenshot(
                            path=str(shots / "studio-fifth-street-1280x720.png"),
                            omit_background=True,
                        )

                await live.play_hand(Script(fold_seat=4), each)
                assert taken == {"bonus", "fifth"}
                # the showdown: seven cards and the bonus card fit a panel at both sizes
                for page in (big, small):
                    message = await shown_as_released(page, live)
                    assert max(len(p["cards"]) for p in message["table"]["players"]) == 8
                    await as_the_feed(page, message)
                    assert await page.evaluate(OVERFLOWING) == []
            finally:
                await browser.close()

    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(shoe), 240))
