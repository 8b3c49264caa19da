"""The studio's broadcast overlay (``/studio``) in a real browser (Debian's Chromium driven by
Playwright), as an OBS browser source shows it: every player's name, cards and odds as the
studio feed has them, the bonus-card moment marked, at 1920x1080 and 1280x720, with a
transparent background on request; a bad token shows the refusal and nothing of the table.
And its tokens at the surveillance page: a supervisor issues one (the overlay's addresses
shown once, copied), the overlay opened at the address shown gets the feed, the supervisor
revokes it and the overlay is refused; the dealer's console has no such control.

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
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.async_api import async_playwright

from dealer_ui.studio import ISSUED, REVOKED, digest
from tests.console_kit import DEALER, SUPERVISOR, LiveTable, Script, card_names, live_table
from tests.service_kit import simulator
from tests.test_console_browser import CHROMIUM, console, fits_both_screens
from tests.test_console_dialogs import to_first_decision
from tests.test_studio import issue, journaled

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


#: Every text in the page, the values of its fields too (a token set as a field's value is
#: not in the page's HTML).
EVERY_TEXT = """() => document.documentElement.outerHTML + [...document.querySelectorAll(
    'input, textarea, select')].map((node) => node.value).join(' ')"""


async def signed_in(page: Any, url: str, who: str, pin: str) -> None:
    await page.goto(url)
    await page.get_by_label("PIN", exact=True).fill(pin)
    await page.locator("#sign-in input[name=dealer]").fill(who)
    await page.get_by_role("button", name="Sign in").click()
    await page.get_by_text("live", exact=True).wait_for()


def test_a_supervisor_issues_and_revokes_a_studio_token_at_the_surveillance_page(
    tmp_path: Path,
) -> None:
    shots = Path(os.environ.get("LUCK_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    table = f"test_mode = true\n[studio]\ndelay = {DELAY / 60}\n"

    async def scenario(shoe: Any) -> None:
        async with console(tmp_path, shoe, table=table) as (live, browser, dealer):
            tokens = live.served.app.state.table.studio_tokens
            context = await browser.new_context(viewport={"width": 1280, "height": 800})
            context.set_default_timeout(TIMEOUT_MS)
            await context.grant_permissions(
                ["clipboard-read", "clipboard-write"], origin=live.served.url
            )
            # the dealer's console: no studio control, in the page or its dialogs
            await signed_in(dealer, live.served.url, DEALER["id"], DEALER["pin"])
            assert await dealer.locator("#studio-tokens, #studio-dialog").count() == 0
            assert await dealer.get_by_text("Studio tokens").count() == 0
            actions = await dealer.locator("#supervisor-dialog option").all_text_contents()
            assert actions and not [a for a in actions if "studio" in a.lower()], actions

            watch = await context.new_page()
            url = live.served.url + "/surveillance"
            await signed_in(watch, url, SUPERVISOR["supervisor"], SUPERVISOR["pin"])
            await watch.get_by_role("button", name="Studio tokens").click()
            dialog = watch.locator("#studio-dialog")
            await dialog.get_by_text("No studio token holds.").wait_for()
            apply = dialog.get_by_role("button", name="Apply")
            assert await apply.is_disabled()
            supervisor = dialog.get_by_label("Supervisor id")
            assert await supervisor.input_value() == SUPERVISOR["supervisor"]
            await dialog.get_by_label("Action").select_option("issue")
            await dialog.get_by_label("Who it is for").fill("truck 2")
            await dialog.get_by_label("Why").fill("tonight's broadcast")
            await dialog.get_by_label("Supervisor PIN").fill("0000")
            await apply.click()
            await dialog.get_by_text("wrong supervisor id or PIN").wait_for()
            assert tokens.held() == []
            assert await watch.locator("#connection").text_content() == "live"
            await dialog.get_by_label("Supervisor PIN").fill(SUPERVISOR["pin"])
            await apply.click()
            await dialog.get_by_text("Token for truck 2: shown this once").wait_for()

            address = await dialog.locator("#studio-url").input_value()
            transparent = await dialog.locator("#studio-url-transparent").input_value()
            (token,) = parse_qs(urlsplit(address).query)["token"]
            assert address == f"{live.served.url}/studio?token={token}"
            assert transparent == address + "&transparent=1"
            (held,) = tokens.held()
            assert tokens.check(token) == held
            assert (held.label, held.supervisor, held.by) == ("truck 2", "S100", "S100")
            assert [r.fields["id"] for r in journaled(live, ISSUED)] == [held.id]
            # the list: the label, the id, who and when; never the token nor its digest
            row = dialog.locator(f'li.studio-token[data-id="{held.id}"]')
            await row.wait_for()
            listed = await row.text_content() or ""
            assert "truck 2" in listed and held.id in listed and "by S100" in listed
            page_text = await watch.evaluate(EVERY_TEXT)
            assert token not in listed and digest(token) not in page_text
            copy = dialog.get_by_role("button", name="Copy the transparent address")
            await copy.click()
            await dialog.get_by_text("Copied").wait_for()
            assert await watch.evaluate("navigator.clipboard.readText()") == transparent
            await fits_both_screens(watch)
            await watch.screenshot(path=str(shots / "surveillance-studio-token-1280x800.png"))

            # the overlay at the address shown gets the feed: the hand's first cards
            overlay = await context.new_page()
            await overlay.set_viewport_size({"width": 1280, "height": 720})
            await overlay.goto(transparent)
            await to_first_decision(live)
            message = await shown_as_released(overlay, live)
            assert len(message["table"]["players"]) == 3
            await as_the_feed(overlay, message)

            # closing the dialog takes the token out of the page
            await dialog.get_by_role("button", name="Close").click()
            await dialog.wait_for(state="hidden")
            assert token not in await watch.evaluate(EVERY_TEXT)

            # revoked from the list: the overlay is refused, at once and when opened again
            await watch.get_by_role("button", name="Studio tokens").click()
            await dialog.get_by_role("button", name=f"Revoke truck 2 ({held.id})").click()
            assert await dialog.get_by_label("Action").input_value() == "revoke"
            assert await dialog.locator("select[name=token]").input_value() == held.id
            assert "danger" in (await apply.get_attribute("class") or "")
            await dialog.get_by_label("Why").fill("the broadcast ended")
            await dialog.get_by_label("Supervisor PIN").fill(SUPERVISOR["pin"])
            await apply.click()
            await dialog.get_by_text(f"Revoked: truck 2 ({held.id})").wait_for()
            await dialog.get_by_text("No studio token holds.").wait_for()
            assert tokens.held() == []
            assert [r.fields["id"] for r in journaled(live, REVOKED)] == [held.id]
            refusal = "refused: not a studio token, or one revoked"
            await overlay.get_by_text(refusal).wait_for()
            assert await overlay.locator("#players li").count() == 0
            await overlay.goto(address)
            await overlay.get_by_text(refusal).wait_for()

    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(shoe), 240))
