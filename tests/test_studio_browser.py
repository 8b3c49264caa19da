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
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.async_api import async_playwright

from dealer_ui.studio import ISSUED, REVOKED, digest, hand_odds, studio_view
from tests.console_kit import DEALER, SUPERVISOR, LiveTable, Script, live_table
from tests.service_kit import simulator
from tests.test_console_browser import CHROMIUM, console, fits_both_screens
from tests.test_console_dialogs import to_first_decision
from tests.test_studio import issue, journaled, played
from tests.waiting import async_wait_until

pytestmark = [
    pytest.mark.slow,  # Chromium
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="Debian's Chromium is not installed (apt-get install -y chromium)",
    ),
]
TIMEOUT_MS = 20_000
DELAY = 1.0
NAMES = ("Aoife", "Brendan", "Ciara", "Declan", "Eimear", "Fionn")
SHOWN = """() => [...document.querySelectorAll('#players li')].map((item) => ({
    seat: +item.dataset.seat,
    name: item.querySelector('.studio-name').textContent,
    hole: [...item.querySelectorAll('.studio-hole .studio-card')]
        .map((card) => card.dataset.card),
    up: [...item.querySelectorAll('.studio-up .studio-card')].map((card) => card.dataset.card),
    odds: item.querySelector('.studio-equity')?.textContent ?? null,
    won: item.querySelector('.studio-won')?.textContent ?? null,
    tag: item.querySelector('.studio-tag')?.textContent ?? null,
    made: item.querySelector('.studio-made')?.textContent ?? null,
    stack: item.querySelector('.studio-stack')?.textContent ?? null,
    bet: item.querySelector('.studio-bet')?.textContent ?? null,
    classes: item.className,
}))"""

#: What breaks the lower third: a panel or a part of the bar outside the bottom third of
#: the frame, two that overlap, or a panel whose content overflows it.
OUT_OF_PLACE = """() => {
    const third = innerHeight * 2 / 3 - 0.5;
    const boxes = [...document.querySelectorAll('#players li, #bar > p')]
        .filter((node) => getComputedStyle(node).display !== 'none')
        .map((node) => [node.dataset.seat || node.id, node.getBoundingClientRect()]);
    const wrong = [];
    for (const [name, box] of boxes) {
        if (box.top < third || box.left < 0 || box.right > innerWidth + 0.5
            || box.bottom > innerHeight)
            wrong.push(`${name} outside the bottom third: ${JSON.stringify(box)}`);
    }
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
        const [a, b] = [boxes[i][1], boxes[j][1]];
        if (a.left < b.right - 0.5 && b.left < a.right - 0.5
            && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5)
            wrong.push(`${boxes[i][0]} overlaps ${boxes[j][0]}`);
    }
    for (const item of document.querySelectorAll('#players li')) {
        for (const part of [item, ...item.children])
            if (part.scrollWidth > part.clientWidth + 1
                || part.scrollHeight > part.clientHeight + 1)
                wrong.push(`seat ${item.dataset.seat}: ${part.className} overflows`);
    }
    return wrong;
}"""

#: Each time the bonus banner is shown or hidden (performance.now(), ms), from now on.
WATCH_BONUS = """() => {
    window.bonusLog = [];
    const banner = document.getElementById('bonus');
    new MutationObserver(() => window.bonusLog.push([!banner.hidden, performance.now()]))
        .observe(banner, { attributes: true, attributeFilter: ['hidden'] });
}"""


async def shown_as_released(page: Any, live: LiveTable) -> dict[str, Any]:
    """Wait until the studio feed has released the table's last moment and the page shows
    it; that message."""
    studio = live.served.app.state.table.studio
    position = live.service.position
    await async_wait_until(  # the odds of 8 players, one after the other: up to minutes
        lambda: studio.position >= position, "the studio's release", 180, poll=0.05
    )
    await page.wait_for_function(
        "seq => +document.body.dataset.seq >= seq", arg=studio.seq, timeout=TIMEOUT_MS
    )
    message: dict[str, Any] = json.loads(studio.current)
    return message


async def as_the_feed(page: Any, message: dict[str, Any]) -> None:
    """The page shows each player of the message still in the strip (a folded one leaves
    it after their street): name, hole cards apart from up cards, the odds, the stack, the
    bet, the hand's name, the winner and what they won; and the strip in its third."""
    shown = await page.evaluate(SHOWN)
    table = message["table"]
    on_page = {p["seat"]: p for p in shown}
    for player in table["players"]:
        if player["seat"] not in on_page:
            assert player["folded"] or player["mucked"], player
            assert player["player"] in await page.locator("#gone").text_content()
            continue
        seen = on_page[player["seat"]]
        assert seen["name"] == player["player"]
        assert seen["hole"] == [c["card"] for c in player["cards"] if c["face"] == "down"]
        assert seen["up"] == [c["card"] for c in player["cards"] if c["face"] == "up"]
        assert seen["stack"] == str(player["stack"])
        assert seen["bet"] == (f"bet {player['bet']}" if player["bet"] else None)
        if table["phase"] == "complete":  # the odds give way to the result
            assert seen["odds"] is None
        elif player["odds"] is not None and not player["folded"]:
            assert seen["odds"] == f"{100 * player['odds']['equity']:.1f}%"
        if player["made"] is not None and not player["folded"]:
            assert seen["made"] == player["made"]["words"]
        if player["winner"]:
            assert "winner" in seen["classes"] and seen["won"] == f"+{player['won']}"
            assert seen["tag"] == "Winner"
        if player["to_act"]:
            assert "to-act" in seen["classes"] and seen["tag"] == "To act"
    assert [p["seat"] for p in shown] == sorted(on_page)
    assert await page.evaluate(OUT_OF_PLACE) == []


def test_the_studio_overlay_at_both_sizes(tmp_path: Path) -> None:
    """A whole hand of six players on a live table, the four of clubs up to Aoife on fifth
    street (her bonus card), seat 4 folding on fourth street, a showdown; the overlay at
    1920x1080 and at 1280x720 (transparent) follows it in the bottom third of the frame."""
    shots = Path(os.environ.get("LUCK_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    hold = 12.0
    table = f"test_mode = true\n[studio]\ndelay = {DELAY / 60}\nbonus_hold = {hold}\n"

    async def scenario(shoe: Any) -> None:
        async with (
            live_table(tmp_path, shoe, table=table, game='showdown = "auto"') as live,
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
                pages = (big, small)
                # before the first hand is released: how far behind the table it will be
                for page in pages:
                    await page.get_by_text("Starting: 1 s behind the table").wait_for()
                    assert await page.locator("#players li").count() == 0
                    await page.evaluate(WATCH_BONUS)
                taken: set[str] = set()

                async def each() -> None:
                    hand = live.service.table.hand
                    assert hand is not None
                    if "bonus" not in taken and any(d.bonus for d in hand.player(1).cards):
                        # the bonus card just dealt: on the banner, called out on her panel
                        taken.add("bonus")
                        for page in pages:
                            message = await shown_as_released(page, live)
                            bonus = message["table"]["bonus"]
                            assert (bonus["seat"], bonus["player"]) == (1, "Aoife")
                            card = bonus["card"]
                            assert card is not None
                            await page.get_by_text("Bonus card to Aoife").wait_for()
                            banner = page.locator(f'#bonus .studio-card[data-card="{card}"]')
                            await banner.wait_for()
                            panel = page.locator('#players li[data-seat="1"]')
                            assert "bonus-moment" in (await panel.get_attribute("class") or "")
                            await panel.locator(
                                f'.studio-card.bonus[data-card="{card}"]'
                            ).wait_for()
                            await panel.get_by_text("bonus card").wait_for()
                            await as_the_feed(page, message)
                        await big.screenshot(path=str(shots / "studio-overlay-1920x1080.png"))
                    if "sixth" not in taken and hand.street == 6 and hand.phase.value == "betting":
                        taken.add("sixth")
                        for page in pages:
                            await as_the_feed(page, await shown_as_released(page, live))

                await live.play_hand(Script(fold_seat=4, up_cards=((1, 5, "4c"),)), each)
                assert taken == {"bonus", "sixth"}
                # the showdown: the winner marked with what they won, every hand named
                for page in pages:
                    message = await shown_as_released(page, live)
                    end = message["table"]
                    assert end["phase"] == "complete"
                    assert [p["seat"] for p in end["players"] if p["winner"]]
                    await as_the_feed(page, message)
                    await page.get_by_text("Showdown").wait_for()
                    await page.locator("#players li.winner").first.wait_for()
                    await page.locator("#bonus").wait_for(state="hidden", timeout=(hold + 5) * 1000)
                    log = await page.evaluate("window.bonusLog")
                    assert [on for on, _ in log] == [True, False], log  # on once, then off
                    on_air = (log[1][1] - log[0][1]) / 1000
                    assert hold - 0.25 <= on_air <= hold + 1.0, log
                await small.screenshot(
                    path=str(shots / "studio-overlay-1280x720.png"), omit_background=True
                )
            finally:
                await browser.close()

    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(shoe), 300))


def test_eight_players_fit_the_bottom_third_at_both_sizes(tmp_path: Path) -> None:
    """The most a table seats, at the showdown of a hand dealt to eight (the short deck's
    shared card), each player's eight cards at most: the strip keeps to the bottom third
    of the frame at both sizes, nothing overlapping, nothing cut (the page served as is,
    its feed played by the test)."""
    shots = Path(os.environ.get("LUCK_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    moments = played(tuple(range(1, 9)))
    views = []
    for moment in moments[-3:]:
        assert moment.table.hand is not None
        views.append(studio_view(moment.table, hand_odds(moment.table.hand, seed=1)))
    static = Path(__file__).parent.parent / "dealer_ui" / "static"

    async def scenario() -> None:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=["--no-sandbox"]
            )
            try:
                for width, height in ((1920, 1080), (1280, 720)):
                    page = await browser.new_page(viewport={"width": width, "height": height})
                    await page.route(
                        "http://studio.test/studio?token=t",
                        lambda route: route.fulfill(
                            path=static / "studio.html", content_type="text/html"
                        ),
                    )
                    await page.route(
                        "http://studio.test/static/*",
                        lambda route: route.fulfill(path=static / route.request.url.split("/")[-1]),
                    )

                    async def feed(ws: Any) -> None:
                        for seq, view in enumerate(views, start=1):
                            message = {"type": "studio", "epoch": "e", "seq": seq, "delay": 900.0}
                            ws.send(
                                json.dumps(message | {"position": seq, "at": 0.0, "table": view})
                            )

                    await page.route_web_socket("ws://studio.test/studio/ws?token=t", feed)
                    await page.goto("http://studio.test/studio?token=t")
                    await page.wait_for_function(f"+document.body.dataset.seq === {len(views)}")
                    if width == 1920:
                        shot = shots / "studio-eight-players-1920x1080.png"
                        await page.screenshot(path=str(shot))
                    final = {"table": views[-1]}
                    await as_the_feed(page, final)
                    assert await page.locator("#players li").count() >= 5
                    await page.close()
            finally:
                await browser.close()

    asyncio.run(asyncio.wait_for(scenario(), 120))


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
