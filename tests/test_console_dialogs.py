"""The console's dialogs in a real browser (Debian's Chromium driven by Playwright) on the
shoe simulator: the supervisor's dialog opens with no action chosen (Apply disabled until
one is), a void asks again naming the hand, a stack corrected from the dialog, "Checking the
PIN…" with every button disabled while a PIN is checked; a fold confirmation withdrawn when
the table moves on (and the decision sent bound to the moment it was asked at); the idle
lock, opened only by the same dealer's PIN (and surveillance's, by the same supervisor's)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from playwright.async_api import async_playwright

from controller.config import Console
from controller.service import TableService
from tests.console_kit import DEALER, SUPERVISOR, LiveTable, Script, live_table
from tests.test_console_browser import CHROMIUM, TIMEOUT_MS, on_the_shoe, pytestmark, settled_page
from tests.waiting import async_wait_until

__all__ = ["pytestmark"]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@contextlib.asynccontextmanager
async def dealer_page(
    tmp_path: Path, shoe: Any, idle_lock: float = 3600, *, surveillance: bool = False
) -> AsyncIterator[tuple[LiveTable, Any]]:
    """The live table (its console locking after ``idle_lock`` s) and a 1280x800 page with
    the dealer signed in (``surveillance``: the surveillance page, a supervisor signed in)."""
    path, who, pin = (
        ("/surveillance", SUPERVISOR["supervisor"], SUPERVISOR["pin"])
        if surveillance
        else ("", DEALER["id"], DEALER["pin"])
    )

    def lock_after(service: TableService) -> None:
        service.config = replace(service.config, console=Console(idle_lock=idle_lock))

    async with (
        live_table(tmp_path, shoe, before_serve=lock_after) as live,
        async_playwright() as playwright,
    ):
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox"]
        )
        try:
            page = await browser.new_page(viewport={"width": 1280, "height": 800})
            page.set_default_timeout(TIMEOUT_MS)
            await page.goto(live.served.url + path)
            await page.locator("#sign-in input[name=dealer]").fill(who)  # the id
            await page.get_by_label("PIN", exact=True).fill(pin)
            await page.get_by_role("button", name="Sign in").click()
            await page.get_by_text("live", exact=True).wait_for()
            yield live, page
        finally:
            await browser.close()


async def to_first_decision(live: LiveTable) -> Script:
    await live.seat_players()
    script = Script()
    await live.load(script.deck(live.service.table))
    (await live.post("/api/hands")).raise_for_status()
    while script.move(live.service.table) == "deal":
        await live.draw()
    return script


async def held(page: Any, pattern: str) -> tuple[asyncio.Event, list[dict[str, Any]]]:
    """Requests to ``pattern`` wait until the event is set; their bodies are kept."""
    release = asyncio.Event()
    bodies: list[dict[str, Any]] = []

    async def hold(route: Any) -> None:
        bodies.append(json.loads(route.request.post_data or "{}"))
        await release.wait()
        await route.continue_()

    await page.route(pattern, hold)
    return release, bodies


def test_the_supervisor_dialog_asks_for_an_action_and_a_void_names_its_hand(
    tmp_path: Path,
) -> None:
    async def scenario(shoe: Any) -> None:
        async with dealer_page(tmp_path, shoe) as (live, page):
            await to_first_decision(live)
            await settled_page(page, live)
            dialog = page.locator("#supervisor-dialog")
            apply = dialog.get_by_role("button", name="Apply")
            await page.get_by_role("button", name="Supervisor actions").click()
            assert await dialog.get_by_label("Action").input_value() == ""
            # who came to enter a card types the reason and the PIN: nothing can be applied
            await dialog.get_by_label("Why").fill("enter the card")
            await dialog.get_by_label("Supervisor id").fill(SUPERVISOR["supervisor"])
            await dialog.get_by_label("Supervisor PIN").fill(SUPERVISOR["pin"])
            assert await apply.is_disabled()
            _, bodies = await held(page, "**/api/supervisor/**")
            await dialog.get_by_label("Supervisor PIN").press("Enter")  # Enter submits nothing
            assert await dialog.locator(".checking").text_content() == ""
            await page.evaluate("() => new Promise((done) => setTimeout(done, 500))")
            assert bodies == [] and live.service.table.in_hand
            await page.unroute("**/api/supervisor/**")

            await dialog.get_by_label("Action").select_option("void")
            assert await apply.is_enabled() and "danger" in (await apply.get_attribute("class"))
            await apply.click()
            confirm = page.locator("#confirm")
            await confirm.get_by_text("Void hand 1?").wait_for()
            await confirm.get_by_role("button", name="Cancel").click()
            assert live.service.table.in_hand and await dialog.is_visible()

            release, bodies = await held(page, "**/api/supervisor/void")
            await apply.click()
            await confirm.get_by_role("button", name="Confirm").click()
            checking = dialog.get_by_text("Checking the PIN…")
            await checking.wait_for()
            for button in await dialog.get_by_role("button").all():
                assert await button.is_disabled()
            assert bodies == [
                {**SUPERVISOR, "why": "enter the card", "hand": 1},
            ]
            release.set()
            await dialog.wait_for(state="hidden")
            await live.until(lambda: not live.service.table.in_hand, "the void")
            assert live.service.table.hand.phase.value == "void"

            # between hands: a stack corrected from the dialog
            await settled_page(page, live)
            await page.get_by_role("button", name="Supervisor actions").click()
            assert await apply.is_disabled()
            await dialog.get_by_label("Action").select_option("correct-stack")
            await dialog.get_by_label("Seat", exact=True).fill("2")
            await dialog.get_by_label("Stack", exact=True).fill("150")
            await dialog.get_by_label("Why").fill("miscounted rebuy")
            await dialog.get_by_label("Supervisor id").fill(SUPERVISOR["supervisor"])
            await dialog.get_by_label("Supervisor PIN").fill(SUPERVISOR["pin"])
            assert "danger" not in (await apply.get_attribute("class") or "")
            await apply.click()
            await dialog.wait_for(state="hidden")
            seat = live.service.table.seat(2)
            assert seat is not None and seat.stack == 150

    on_the_shoe(scenario)


def test_a_fold_confirmation_is_withdrawn_when_the_table_moves_on(tmp_path: Path) -> None:
    async def scenario(shoe: Any) -> None:
        async with dealer_page(tmp_path, shoe) as (live, page):
            await to_first_decision(live)
            await settled_page(page, live)
            bring_in = page.locator('#choice-buttons button[data-do="bring_in"]')
            view = (await live.http.get("/api/view", headers=live.dealer)).json()
            release, bodies = await held(page, "**/api/decisions")
            release.set()
            await bring_in.click()
            taken = view["step"] + 1
            await live.until(lambda: len(live.service.table.hand_log) == taken, "the bring-in")
            await live.until(lambda: len(bodies) == 1, "the decision sent")
            assert (bodies[0]["hand"], bodies[0]["step"]) == (1, view["step"])

            await settled_page(page, live)
            hand = live.service.table.hand
            assert hand is not None and hand.waiting_for is not None
            seat = hand.waiting_for.seat
            await page.locator('#choice-buttons button[data-do="fold"]').click()
            confirm = page.locator("#confirm")
            await confirm.get_by_text(f"Seat {seat}: Fold?").wait_for()
            # meanwhile the seat calls (said at another console): the question is withdrawn
            call = next(c for c in hand.waiting_for.legal if c.do.value == "call")
            body = {"seat": seat, "do": "call", "to": call.to}
            (await live.post("/api/decisions", body)).raise_for_status()
            await confirm.wait_for(state="hidden")
            await page.get_by_text("The table moved on").wait_for()
            player = next(p for p in live.service.table.hand.players if p.seat == seat)
            assert not player.folded
            assert len(bodies) == 1

    on_the_shoe(scenario)


def test_the_idle_console_locks_and_only_the_same_dealers_pin_opens_it(tmp_path: Path) -> None:
    async def scenario(shoe: Any) -> None:
        async with dealer_page(tmp_path, shoe, idle_lock=5) as (live, page):
            token = await page.evaluate("() => sessionStorage.getItem('token:dealer')")
            lock = page.locator("#lock")
            await lock.wait_for()
            assert DEALER["id"] in (await lock.locator("#lock-who").text_content() or "")
            assert await page.locator("#connection").text_content() == "locked"
            assert not await page.locator("main").is_visible()

            # the session ended on the server: the old token opens nothing
            async def ended() -> Any:
                old = await live.http.get("/api/view", headers={"Authorization": f"Bearer {token}"})
                return old if old.status_code == 401 else None

            old = await async_wait_until(ended, "the session ended on the server", 5, poll=0.05)
            assert old.status_code == 401, old.text
            await lock.get_by_label("Your PIN").fill("0000")
            await lock.get_by_role("button", name="Unlock").click()
            await lock.get_by_text("wrong dealer id or PIN").wait_for()
            await live.seat_players()  # the table goes on while the screen is locked
            await lock.get_by_label("Your PIN").fill(DEALER["pin"])
            await lock.get_by_role("button", name="Unlock").click()
            await lock.wait_for(state="hidden")
            await settled_page(page, live)
            assert await page.locator("#ring .seat[data-seat]").count() == 3
            assert await page.locator("main").is_visible()

    on_the_shoe(scenario)


def test_the_idle_surveillance_page_locks_as_the_dealers_does(tmp_path: Path) -> None:
    async def scenario(shoe: Any) -> None:
        async with dealer_page(tmp_path, shoe, idle_lock=5, surveillance=True) as (live, page):
            token = await page.evaluate("() => sessionStorage.getItem('token:surveillance')")
            assert token
            lock = page.locator("#lock")
            await lock.wait_for()
            who = await lock.locator("#lock-who").text_content() or ""
            assert SUPERVISOR["supervisor"] in who
            assert not await page.locator("main").is_visible()

            async def ended() -> Any:
                old = await live.http.get("/api/view", headers=bearer(token))
                return None if old.is_success else old

            old = await async_wait_until(ended, "the session ended", 5, poll=0.05)
            assert old.status_code == 401, old.text  # signed out on the server
            await lock.get_by_role("button", name="Another supervisor").wait_for()
            await lock.get_by_label("Your PIN").fill(SUPERVISOR["pin"])
            await lock.get_by_role("button", name="Unlock").click()
            await lock.wait_for(state="hidden")
            assert await page.locator("main").is_visible()
            assert await page.locator("#connection").text_content() != "locked"

    on_the_shoe(scenario)
