"""The dealer console in a real browser (Debian's Chromium driven by Playwright) against the
table service on the shoe simulator: a whole hand dealt with the console's buttons, the
bonus banner, the seat ring marking where the next card and the bonus card go, the
supervisor's PIN dialog, a reconnect, New hand waiting while the table is not ready,
every control's label whole at 1280x800 and 1920x1080, and never a hole card in the page.

Screenshots are saved in the folder named by ``LUCK_SCREENSHOTS`` (else the test's
temporary folder).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import async_playwright

from controller.journal import Journal, JournalError
from controller.rules import Dest, Do, Rules
from controller.service import Halted, TableService
from controller.table import Decide, Mode, NewHand, SitDown, Table, TableSettings, apply
from controller.table.settings import Protection
from dealer_ui.auth import Auth
from dealer_ui.views import view
from drivers.protocol import Disposition
from tests.console_kit import (
    DEALER,
    SUPERVISOR,
    LiveTable,
    Script,
    card_names,
    dealer_signed_in,
    live_table,
)
from tests.device_inputs import card_read, card_unreadable, deck_loaded
from tests.service_kit import simulator
from tests.test_dealer_ui_leaks import forbidden

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = [
    pytest.mark.slow,  # Chromium
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="Debian's Chromium is not installed (apt-get install -y chromium)",
    ),
]
TIMEOUT_MS = 20_000
SIZES = ({"width": 1280, "height": 800}, {"width": 1920, "height": 1080})
RING_MARKS = """() => Object.fromEntries(['next-card', 'bonus-due'].map((mark) => [mark,
    [...document.querySelectorAll(`#ring .seat.${mark}`)].map((seat) => +seat.dataset.seat)]))"""


async def opened(
    browser: Any, url: str, size: dict[str, int] = SIZES[0], touch: bool = False
) -> Any:
    """A new page on ``url``, 1280x800 unless ``size`` says otherwise (``touch``: a
    touchscreen's, ``page.touchscreen`` taps)."""
    page = await browser.new_page(viewport=dict(size), has_touch=touch)
    page.set_default_timeout(TIMEOUT_MS)
    await page.goto(url)
    return page


@contextlib.asynccontextmanager
async def console(
    tmp_path: Path,
    shoe: Any,
    path: str = "",
    api: dict[str, Any] | None = None,
    table: str = "",
    game: str = 'showdown = "manual"',
    size: dict[str, int] = SIZES[0],
    touch: bool = False,
    auth: Callable[[TableService], Auth] | None = None,
) -> AsyncIterator[tuple[Any, ...]]:
    """The live table on ``shoe`` (``api``: settings of ``[api]`` other than the
    defaults; ``table``, ``game``: lines of the table's configuration; ``auth``: the
    console's sign-in, made from the service), a Chromium, and a page (1280x800 unless
    ``size`` says otherwise; ``touch``: a touchscreen's) on the console's ``path``: (live
    table, browser, page)."""
    async with (
        live_table(tmp_path, shoe, api=api, table=table, game=game, auth=auth) as live,
        async_playwright() as playwright,
    ):
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox"]
        )
        try:
            yield live, browser, await opened(browser, live.served.url + path, size, touch)
        finally:
            await browser.close()


def on_the_shoe(scenario: Callable[[Any], Awaitable[None]]) -> None:
    """Run ``scenario`` with the shoe simulator (its own process)."""
    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(shoe), 300))


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


async def labels_fit(page: Any) -> None:
    """Every control's label is whole: nothing spills out of its box (scrollWidth <=
    clientWidth) and no label ends in an ellipsis, which reads as a label cut short."""
    cut = await page.evaluate(
        """() => [...document.querySelectorAll('button, input, select, a')]
            .filter((node) => node.clientWidth > 0)
            .filter((node) => node.scrollWidth > node.clientWidth
                || /(…|[.][.][.])$/.test(node.textContent.trim()))
            .map((node) => `${node.id || node.textContent.trim()}: ${node.scrollWidth} px`
                + ` in ${node.clientWidth} px, "${node.textContent.trim()}"`)"""
    )
    assert cut == [], cut


async def fits_both_screens(page: Any) -> None:
    """Touch targets and whole labels at 1280x800 and at 1920x1080; the page's own size
    after."""
    size = page.viewport_size
    for screen in SIZES:
        await page.set_viewport_size(screen)
        await touch_targets(page)
        await labels_fit(page)
    await page.set_viewport_size(size)


def ring_marks(table: Table) -> dict[str, list[int]]:
    """The seats the ring must mark, as the lamps: where the next card goes (a seat's card
    or the bonus card; not while the table is paused, when nothing is dealt) and every seat
    with a bonus card due (to be dealt, or offered at its price)."""
    hand = table.hand
    if hand is None or not table.in_hand:
        return {"next-card": [], "bonus-due": []}
    waiting = hand.waiting_for
    assert waiting is not None
    due = waiting.kind == "card" and waiting.seat is not None and not table.paused
    bonus = {
        entry.seat
        for entry in (waiting, *hand.queue)
        if entry.seat is not None and (entry.kind == "bonus" or entry.destination is Dest.BONUS)
    }
    return {"next-card": [waiting.seat] if due else [], "bonus-due": sorted(bonus)}


async def ring_as_the_table(page: Any, table: Table, role: str = "dealer") -> None:
    """The ring marks the seats the table's lamps light; the public page never says where
    the next card goes, only a bonus card due."""
    marks = ring_marks(table)
    if role == "public":
        marks["next-card"] = []
    assert await page.evaluate(RING_MARKS) == marks, table.signals.display


async def sit_down(page: Any, seat: int) -> None:
    """Player P{seat} sits down at ``seat`` with 100, through the seat's sheet."""
    await page.locator(f'#ring li[data-pos="{seat}"]').click()
    sheet = page.locator("#seat-sheet")
    await sheet.get_by_label("Player", exact=True).fill(f"P{seat}")
    await sheet.get_by_label("Chips", exact=True).fill("100")
    await sheet.get_by_role("button", name=f"Sit P{seat} down with 100").click()
    await page.locator(f'li[data-seat="{seat}"]').wait_for()
    await sheet.wait_for(state="hidden")


async def no_hole_card(page: Any, live: LiveTable, role: str = "dealer") -> None:
    hidden = forbidden(live.service.table, role, None)
    html = await page.content()
    leaked = card_names(html) & hidden
    assert not leaked, f"the {role}'s page shows {sorted(leaked)}"


async def settled_page(page: Any, live: LiveTable) -> None:
    """Wait until the page shows the table's last update (of this run of the service: after
    a restart, the feed numbers its updates again)."""
    feed = live.served.app.state.feed
    await live.until(lambda: feed.current.table is live.service.table, "the feed's update")
    await page.wait_for_function(
        """([epoch, seq]) => document.body.dataset.live === 'true'
            && window.consoleEpoch() === epoch && window.consoleSeq() >= seq""",
        arg=[feed.epoch, feed.current.seq],
        timeout=TIMEOUT_MS,
    )


def test_a_hand_dealt_with_the_console_buttons(tmp_path: Path) -> None:
    shots = Path(os.environ.get("LUCK_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)

    async def scenario(shoe: Any) -> None:
        async with console(tmp_path, shoe) as (live, browser, page):
            await page.get_by_label("Dealer id").wait_for()
            assert not await page.get_by_role("button", name="Sign out").is_visible()
            assert await page.locator("#connection").text_content() == "signed out"
            await fits_both_screens(page)
            await page.get_by_label("Dealer id").fill("D200")
            await page.get_by_label("PIN", exact=True).fill("0000")
            await page.get_by_role("button", name="Sign in").click()
            await page.get_by_text("wrong dealer id or PIN").wait_for()
            # then from the keyboard alone: the PIN field, Enter
            await page.get_by_label("PIN", exact=True).focus()
            await page.keyboard.type(DEALER["pin"])
            await page.keyboard.press("Enter")
            await page.get_by_text("live", exact=True).wait_for()
            assert await page.get_by_role("button", name="Sign out").is_visible()
            # landmarks and labels for a screen reader
            for role, name in (("banner", None), ("main", None), ("complementary", "Decisions")):
                assert await page.get_by_role(role, name=name).count() == 1, role
            assert await page.get_by_role("status").count() >= 1
            public = await opened(browser, live.served.url + "/public")

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
                    await ring_as_the_table(shown, live.service.table, role)
                before = live.service.position
                if move == "deal":
                    if live.service.table.signals.mode is Mode.BONUS_CARD:
                        banner = page.locator("#next.bonus")
                        await banner.wait_for()
                        bonus_seat = page.locator("#ring .seat.next-card.bonus-due .mark")
                        assert await bonus_seat.text_content() == "NEXT: BONUS CARD"
                        bonus_seen = True
                    await live.draw()
                    continue
                assert isinstance(move, Decide)
                await touch_targets(page)
                await labels_fit(page)
                if move.do is Do.FOLD:  # from the keyboard: the button, Enter, then confirm
                    await page.locator(button_for(move) + ":enabled").focus()  # once armed
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
            watch = await opened(browser, live.served.url + "/surveillance")
            sign_in = watch.locator("#sign-in")  # not the studio tokens' dialog, which asks too
            await sign_in.get_by_label("Supervisor id").fill(SUPERVISOR["supervisor"])
            await sign_in.get_by_label("PIN", exact=True).fill(SUPERVISOR["pin"])
            await sign_in.get_by_role("button", name="Sign in").click()
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
            await ring_as_the_table(page, live.service.table)
            await fits_both_screens(page)
            await alert.get_by_role("button", name="Take the card out").click()
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

    on_the_shoe(scenario)


def test_every_card_face_fits_inside_its_card(tmp_path: Path) -> None:
    """Each of the 52 faces, as the page draws it (a ten as "10"), stays inside the card."""

    async def scenario(shoe: Any) -> None:
        async with console(tmp_path, shoe, "/public") as (_live, _browser, page):
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
            assert spilled == [], spilled

    on_the_shoe(scenario)


def played(**rules: Any) -> list[Table]:
    """The table at every step of a hand that the script plays on the pure table core with
    ``rules``, and, when the bonus card is first due to be dealt, the table paused by a card
    that left the shoe unread."""
    table = Table(TableSettings(Rules.from_mapping(rules), seat_board=False))
    for seat in (1, 2, 3):
        table = apply(table, SitDown(at=0, seat=seat, player=f"P{seat}", buy_in=100)).table
    script = Script()
    order = iter(script.deck(table))
    table = apply(apply(table, deck_loaded(at=0, count=52)).table, NewHand(at=0)).table
    tables = [table]
    paused = False
    while (move := script.move(table)) is not None:
        if move == "deal":
            if not paused and table.signals.mode is Mode.BONUS_CARD:
                tables.append(
                    apply(table, card_unreadable(at=0, disposition=Disposition.DEALT_UNREAD)).table
                )
                paused = True
            step = apply(table, card_read(at=0, code=int(next(order))))
        else:
            assert isinstance(move, Decide)
            step = apply(table, move)
        assert step.refused is None, step.refused
        table = step.table
        tables.append(table)
    return tables


def test_the_ring_marks_where_the_next_card_and_the_bonus_card_go(tmp_path: Path) -> None:
    """At every step of a hand, the bonus card dealt at once, at the end of the street, or
    offered at a price: the ring marks the seats the lamps light, apart (next card white,
    bonus card green) and as the banner says; a pause takes the next card's mark away."""
    hands = {
        "at once": played(),
        "end of street": played(bonus_timing="end_of_street"),
        "priced": played(bonus_price=5),
    }
    seen: set[str] = set()

    async def scenario(shoe: Any) -> None:
        async with console(tmp_path, shoe) as (_live, _browser, page):
            await page.get_by_label("Dealer id").wait_for()
            for timing, tables in hands.items():
                for table in tables:
                    shown = await page.evaluate(
                        "view => { render(view); return (" + RING_MARKS + ")(); }",
                        view(table, "dealer"),
                    )
                    marks = ring_marks(table)
                    display = table.signals.display
                    assert shown == marks, (timing, display)
                    if table.paused:
                        seen.add("paused")
                    for seat in marks["next-card"]:
                        assert f"seat {seat}," in display, (timing, display)
                    if marks["next-card"] == marks["bonus-due"] != []:
                        seen.add("bonus card next")
                        assert display.startswith("BONUS CARD"), (timing, display)
                    elif marks["next-card"] and marks["bonus-due"]:
                        seen.add("bonus card due, the next card elsewhere")
                    elif marks["bonus-due"]:
                        seen.add("bonus card due, no card next")

    on_the_shoe(scenario)
    assert len(seen) == 4, seen


def test_new_hand_waits_until_the_table_is_ready(tmp_path: Path) -> None:
    """Between hands, New hand is the green action only when the table says READY: with no
    deck, and while a card out of turn pauses the table, it is disabled and not green, the
    reason beside it; once the supervisor resolves the alert it is ready again. Sign out
    only while signed in."""

    async def scenario(shoe: Any) -> None:
        async with console(tmp_path, shoe) as (live, _browser, page):
            sign_out = page.get_by_role("button", name="Sign out")
            await dealer_signed_in(page)
            new_hand = page.locator("#new-hand")
            why = page.locator("#new-hand-why")

            async def waits(reason: str) -> None:
                await settled_page(page, live)
                assert await new_hand.is_disabled()
                assert "primary" not in (await new_hand.get_attribute("class") or "")
                assert await why.is_visible() and await why.text_content() == reason
                await fits_both_screens(page)

            await waits("Not yet: load a deck")
            await live.seat_players()
            await live.load(Script().deck(live.service.table))
            await settled_page(page, live)
            assert await new_hand.is_enabled()
            assert "primary" in (await new_hand.get_attribute("class") or "")
            assert not await why.is_visible()

            await live.shoe.command("draw")  # a card out of the shoe between hands
            await live.shoe.settled()
            await live.until(lambda: live.service.table.paused, "the pause")
            await waits("Table paused: the alert must be resolved first")

            (alert,) = live.service.table.alerts
            body = {**SUPERVISOR, "why": "card taken away", "alert": alert.id, "remedy": "dead"}
            (await live.post("/api/supervisor/resolve", body)).raise_for_status()
            await live.until(lambda: not live.service.table.paused, "the alert resolved")
            await settled_page(page, live)
            assert await new_hand.is_enabled()

            # signing out asks first: Cancel keeps the dealer signed in
            confirm = page.locator("#confirm")
            await sign_out.click()
            await confirm.get_by_text(f"Sign out {DEALER['id']}?").wait_for()
            await confirm.get_by_role("button", name="Cancel").click()
            await confirm.wait_for(state="hidden")
            assert await sign_out.is_visible() and await new_hand.is_enabled()
            await sign_out.click()
            await confirm.get_by_role("button", name="Confirm").click()
            await page.get_by_label("Dealer id").wait_for()
            assert not await sign_out.is_visible()

    on_the_shoe(scenario)


def test_the_display_says_the_house_s_take_and_new_hand_stays_the_action(tmp_path: Path) -> None:
    """After a raked hand the dealer's display says what to drop in the box, then the next
    step; New hand is still the green action once the table is ready."""
    game = 'showdown = "manual"\nrake_percent = 10\nrake_cap = 5\n'
    game += "jackpot_drop = 1\njackpot_drop_at = 10"

    async def scenario(shoe: Any) -> None:
        async with console(tmp_path, shoe, game=game) as (live, _browser, page):
            await dealer_signed_in(page)
            await live.seat_players()
            await live.play_hand(Script())
            hand = live.service.table.hand
            assert hand is not None and hand.over and hand.rake and hand.jackpot_drop == 1
            took = f"RAKE {hand.rake}, JACKPOT 1: drop {hand.rake + 1}"
            await settled_page(page, live)
            assert await page.locator('#events li[data-kind="rake"]').text_content() == took
            assert await page.locator("#next").text_content() == f"{took}, then LOAD A DECK"
            assert await page.locator("#new-hand").is_disabled()
            await live.load(Script().deck(live.service.table))
            await settled_page(page, live)
            assert await page.locator("#next").text_content() == f"{took}, then READY: NEW HAND"
            assert await page.locator("#new-hand").is_enabled()
            assert not await page.locator("#new-hand-why").is_visible()
            await fits_both_screens(page)  # the longer line too

    on_the_shoe(scenario)


def test_the_console_says_when_the_table_runs_without_tag_checks(tmp_path: Path) -> None:
    """NO TAG CHECKS beside the hand number on the dealer's and surveillance's pages of a
    table without tag checks; never on a table with them, nor on the public's page."""
    checked = Table(TableSettings(protection=Protection(tag_checks=True)))
    unchecked = Table(TableSettings())
    seen: dict[tuple[str, bool], bool] = {}

    async def scenario(shoe: Any) -> None:
        async with console(tmp_path, shoe) as (live, browser, page):
            await page.get_by_label("Dealer id").wait_for()
            pages = {"dealer": page}
            for role in ("surveillance", "public"):
                pages[role] = await opened(browser, live.served.url + f"/{role}")
            for role, shown in pages.items():
                for table in (checked, unchecked):
                    visible = await shown.evaluate(
                        "view => { render(view); return !document.getElementById("
                        "'no-tag-checks').hidden; }",
                        view(table, role),
                    )
                    seen[(role, table.settings.protection.tag_checks)] = visible
            badge = page.locator("#no-tag-checks")
            await page.evaluate("view => render(view)", view(unchecked, "dealer"))
            assert await badge.text_content() == "NO TAG CHECKS"

    on_the_shoe(scenario)
    assert seen == {
        ("dealer", True): False,
        ("dealer", False): True,
        ("surveillance", True): False,
        ("surveillance", False): True,
        ("public", True): False,
        ("public", False): False,
    }


def test_a_journal_that_cannot_be_written_blocks_the_dealer_s_screen_until_it_can(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The journal's disk fills up: the dealer's screen is covered by a blocking alert
    with the reason (no control can be touched); once the journal is written again it
    goes by itself."""
    append = Journal.append

    def full(journal: Journal, _: object) -> list[int | None]:
        raise JournalError(f"cannot write journal {journal.path}: database or disk is full")

    async def scenario(shoe: Any) -> None:
        async with console(tmp_path, shoe) as (live, _browser, page):
            await dealer_signed_in(page)
            blocking = page.locator("#journal-fault")
            assert not await blocking.is_visible()
            monkeypatch.setattr(Journal, "append", full)
            answer = await live.post("/api/seats", {"seat": 1, "player": "P1", "buy_in": 100})
            assert answer.status_code == 503 and answer.json()["code"] == Halted.JOURNAL_FAULT
            await blocking.wait_for(state="visible")
            assert "TABLE STOPPED: DO NOT DEAL" in await blocking.inner_text()
            assert (
                "database or disk is full"
                in await page.locator("#journal-fault-reason").inner_text()
            )
            on_top = await page.evaluate(
                "() => document.elementFromPoint(innerWidth / 2, innerHeight / 2)"
                ".closest('#journal-fault') !== null"
            )
            assert on_top  # over every control
            monkeypatch.setattr(Journal, "append", append)
            await blocking.wait_for(state="hidden")
            await live.seat_players()  # the table takes input again

    on_the_shoe(scenario)
