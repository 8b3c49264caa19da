"""The console's layout in a real browser (Debian's Chromium driven by Playwright): a whole
hand at a table of seven played on the shoe simulator, and at every step of it (between
hands, every card, every decision, the showdown, a pause with its alert) the dealer's, the
public's, a player's and surveillance's pages at 1024x768, 1280x800 and 1920x1080: every
seat box (and the tag on it) inside the screen, clear of every other seat, of the side
panel, of the next-card line and of the pots; the dealer's controls whole and at least
44 px. The list of the last events on the public's and the player's pages never names a
card that role may not see (and the page as a whole neither). After the showdown the
winner's seat is marked, and surveillance's past hands name the players. Screenshots of
each page at each size (folder ``LUCK_SCREENSHOTS``, else the test's temporary folder).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from controller.table import Mode
from tests.console_kit import DEALER, SUPERVISOR, LiveTable, Script, card_names
from tests.test_console_browser import (
    TIMEOUT_MS,
    console,
    labels_fit,
    no_hole_card,
    on_the_shoe,
    settled_page,
    touch_targets,
)
from tests.test_dealer_ui_leaks import forbidden

pytestmark = (
    pytest.mark.slow
)  # a live table: the simulator's process, the service, the console served

SCREENS = ((1024, 768), (1280, 800), (1920, 1080))
PLAYER_SEAT = 2
NAMES = ("Siobhan O'Donnell", "Padraig Mac", "Aoife Ní Bhriain", "Cormac", "Eamon Walsh",
         "Grainne Kavanagh-Byrne", "Tadhg")  # fmt: skip

#: Every box that must not overlap: [what, rect] for the seats, their tags, and the boxes a
#: seat must stay clear of; and the screen's size.
BOXES = """() => {
    const box = (what, node) => {
        const r = node.getBoundingClientRect();
        return [what, {left: r.left, top: r.top, right: r.right, bottom: r.bottom}];
    };
    const seats = [...document.querySelectorAll('#ring .seat')].map((seat) =>
        box(`seat ${seat.dataset.pos}`, seat));
    const tags = [...document.querySelectorAll('#ring .seat .mark')].map((tag) =>
        box(`the tag of seat ${tag.closest('.seat').dataset.pos}`, tag));
    const others = ['#side', '#next', '.centre', 'header']
        .map((selector) => document.querySelector(selector))
        .filter((node) => node && node.getBoundingClientRect().width > 0)
        .map((node) => box(node.id || node.className || node.tagName, node));
    return {seats, tags, others, width: innerWidth, height: innerHeight,
        scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight]};
}"""


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return min(a["right"], b["right"]) > max(a["left"], b["left"]) and min(
        a["bottom"], b["bottom"]
    ) > max(a["top"], b["top"])


async def laid_out(page: Any, phase: str) -> None:
    """Every seat box and tag on the screen, none over another box."""
    shown = await page.evaluate(BOXES)
    width, height = shown["width"], shown["height"]
    where = f"{page.url} at {width}x{height}, {phase}"
    assert shown["scroll"] == [width, height], f"{where}: the page scrolls {shown['scroll']}"
    boxes = shown["seats"] + shown["tags"]
    assert len(shown["seats"]) == 8, where
    for what, rect in boxes:
        inside = rect["left"] >= 0 and rect["top"] >= 0
        inside = inside and rect["right"] <= width and rect["bottom"] <= height
        assert inside, f"{where}: {what} leaves the screen: {rect}"
    for index, (what, rect) in enumerate(boxes):
        for other, box in boxes[index + 1 :] + shown["others"]:
            own_tag = other == f"the tag of {what}" or what == f"the tag of {other}"
            assert own_tag or not overlap(rect, box), f"{where}: {what} overlaps {other}"


def test_no_seat_box_overlaps_or_leaves_the_screen_in_any_phase(tmp_path: Path) -> None:
    shots = Path(os.environ.get("LUCK_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)

    async def scenario(shoe: Any) -> None:
        # a dozen pages of one browser: more feeds and connections from one address than
        # [api]'s defaults let a client open
        many = {"max_websockets": 64, "max_connections": 512}
        async with console(tmp_path, shoe, api=many) as (live, browser, first):
            await first.close()
            pages: list[tuple[str, Any]] = []

            async def open_pages(role: str, path: str) -> None:
                for width, height in SCREENS:
                    page = await browser.new_page(viewport={"width": width, "height": height})
                    page.set_default_timeout(TIMEOUT_MS)
                    await page.goto(live.served.url + path)
                    await sign_in(page, role)
                    pages.append((role, page))

            for role in ("dealer", "public", "surveillance"):
                await open_pages(role, "" if role == "dealer" else f"/{role}")

            async def every_page(phase: str) -> None:
                for role, page in pages:
                    await settled_page(page, live)
                    await laid_out(page, phase)
                    if role == "dealer":  # its controls whole and big enough at every size
                        await touch_targets(page)
                        await labels_fit(page)
                    if role in ("dealer", "public"):
                        await no_hole_card(page, live, role)
                    if role in ("public", "player"):
                        await events_hide_hole_cards(page, live, role)

            await every_page("no player seated")
            await seat_seven(live)
            made = await live.post("/api/player-tokens", {"seat": PLAYER_SEAT})
            await open_pages("player", f"/player#token={made.json()['token']}")
            await every_page("between hands")
            steps = 0

            async def each() -> None:
                nonlocal steps
                steps += 1
                table = live.service.table
                await every_page(f"step {steps}: {table.signals.display}")
                if table.signals.mode is Mode.BONUS_CARD:
                    await screenshots(pages, shots, "bonus")

            await live.play_hand(Script(), each)
            hand = live.service.table.hand
            assert hand is not None and hand.phase.value == "complete" and steps > 40
            await every_page("after the showdown")
            winners = sorted({seat for pot in hand.pots for seat in pot.winners})
            for _role, page in pages:
                marked = await page.evaluate(
                    "() => [...document.querySelectorAll('#ring .seat.winner')]"
                    ".map((seat) => [+seat.dataset.seat, seat.querySelector('.mark').textContent])"
                )
                assert marked == [[seat, "WINNER"] for seat in winners], marked
            await screenshots(pages, shots, "showdown")

            # a card out of the shoe between hands: the table paused, the alert listed
            await live.shoe.command("draw")
            await live.shoe.settled()
            await live.until(lambda: live.service.table.paused, "the pause")
            await every_page("paused by an alert")
            await screenshots(pages, shots, "alert")
            for role, page in pages:
                if role in ("public", "player"):
                    assert await page.locator("#events li").count() > 0, role
                if role == "surveillance":
                    past = page.locator('button.past-hand[data-hand="1"]')
                    await past.get_by_text("pot 81").wait_for()
                    assert f"{NAMES[0]} (seat 1)" in (await past.text_content() or "")

    on_the_shoe(scenario)


async def events_hide_hole_cards(page: Any, live: LiveTable, role: str) -> None:
    """The last events, as the page lists them, name no card the role may not see; the
    whole player's page neither (its own hole cards apart)."""
    seat = PLAYER_SEAT if role == "player" else None
    hidden = forbidden(live.service.table, role, seat)
    listed = card_names(await page.locator("#events").inner_text())
    assert not listed & hidden, f"the {role}'s events name {sorted(listed & hidden)}"
    shown = card_names(await page.content())
    assert not shown & hidden, f"the {role}'s page shows {sorted(shown & hidden)}"


async def sign_in(page: Any, role: str) -> None:
    if role in ("public", "player"):
        await page.get_by_text("live", exact=True).wait_for()
        return
    who, pin = (
        (DEALER["id"], DEALER["pin"])
        if role == "dealer"
        else (SUPERVISOR["supervisor"], SUPERVISOR["pin"])
    )
    dialog = page.locator("#sign-in")
    await dialog.locator("input[name=dealer]").fill(who)
    await dialog.get_by_label("PIN", exact=True).fill(pin)
    await dialog.get_by_role("button", name="Sign in").click()
    await page.get_by_text("live", exact=True).wait_for()


async def seat_seven(live: LiveTable) -> None:
    """Seven players with long names at seats 1 to 7 (seat 8 stays empty)."""
    for seat, name in enumerate(NAMES, start=1):
        body = {"seat": seat, "player": name, "buy_in": 100}
        (await live.post("/api/seats", body)).raise_for_status()


async def screenshots(pages: list[tuple[str, Any]], shots: Path, phase: str) -> None:
    for role, page in pages:
        size = page.viewport_size
        name = f"layout-{role}-{phase}-{size['width']}x{size['height']}.png"
        await page.screenshot(path=str(shots / name))
