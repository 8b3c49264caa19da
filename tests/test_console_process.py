"""The console end to end on the real service process: ``luck-table serve`` (its own
process) on the shoe simulator (its own process, on a pty), driven by Debian's Chromium
through Playwright. A whole hand dealt with the console's buttons (the bonus banner while
the bonus card is due), the service killed and started again (the page comes back, signed
in again, on the recovered table), an unread card acknowledged and resolved with the
supervisor's PIN, and after every step no card in the dealer's page that the dealer's
view does not show; then the past hands (surveillance's), and SIGTERM: status 0.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Page, async_playwright

from controller.config import load_config
from controller.table import Mode, SitDown, Table, apply
from firmware_sim.process import AsyncControl as Control
from tests.console_kit import DEALER, SUPERVISOR, Script, card_names
from tests.service_kit import simulator
from tests.test_console_browser import sit_down
from tests.test_serve_console import free_port, with_api
from tests.waiting import async_wait_until

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = [
    pytest.mark.slow,  # Chromium
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="Debian's Chromium is not installed (apt-get install -y chromium)",
    ),
]
LUCK_TABLE = str(Path(sys.executable).parent / "luck-table")
TIMEOUT = 60.0
TIMEOUT_MS = 30_000
PLAYERS = 3
PREFERRED = ("bonus", "check", "call", "bring_in", "show")


@contextmanager
def service_process(config: Path, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``luck-table serve`` in its own process, its log in ``log``."""
    with log.open("ab") as out:
        process = subprocess.Popen([LUCK_TABLE, "serve", "--config", str(config)], stderr=out)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(30)


class Service:
    """The REST API of the service process, as surveillance and as a dealer (the truth the
    page is checked against)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.http = httpx.AsyncClient(base_url=url, timeout=TIMEOUT)
        self.watch: dict[str, str] = {}
        self.dealer: dict[str, str] = {}

    async def answering(self, process: subprocess.Popen[bytes]) -> None:

        async def answers() -> bool:
            assert process.poll() is None, "the service process stopped"
            try:
                return (await self.http.get("/api/view")).status_code == 200
            except httpx.TransportError:
                return False

        await async_wait_until(answers, "the console answers", TIMEOUT, poll=0.1)
        watcher = {"role": "surveillance", "id": SUPERVISOR["supervisor"], "pin": SUPERVISOR["pin"]}
        token = (await self.http.post("/api/sessions", json=watcher)).json()["token"]
        self.watch = {"Authorization": f"Bearer {token}"}
        token = (await self.http.post("/api/sessions", json={"role": "dealer", **DEALER})).json()
        self.dealer = {"Authorization": f"Bearer {token['token']}"}

    async def view(self, who: dict[str, str]) -> dict[str, Any]:
        response = await self.http.get("/api/view", headers=who)
        response.raise_for_status()
        return response.json()

    async def until(self, check: Any, what: str) -> dict[str, Any]:
        """Wait until ``check(surveillance's view)`` holds; that view."""
        seen: dict[str, Any] = {}

        async def holds() -> bool:
            nonlocal seen
            seen = await self.view(self.watch)
            return bool(check(seen))

        await async_wait_until(holds, what, TIMEOUT, poll=0.05)
        return seen


async def no_hidden_card(page: Page, service: Service) -> None:
    """The page shows no card that the dealer's view does not (every card of the table is
    in surveillance's view)."""
    everything = card_names(await service.view(service.watch))
    shown = card_names(await service.view(service.dealer))
    leaked = card_names(await page.content()) & (everything - shown)
    assert not leaked, f"the dealer's page shows {sorted(leaked)}"


async def page_shows(page: Page, display: str) -> None:
    await page.wait_for_function(
        "text => document.getElementById('next').textContent === text", arg=display
    )


async def sign_in(page: Page) -> None:
    dialog = page.locator("#sign-in")
    await dialog.get_by_label("Dealer id").fill(DEALER["id"])
    await dialog.get_by_label("PIN", exact=True).fill(DEALER["pin"])
    await dialog.get_by_role("button", name="Sign in").click()
    await page.get_by_text("live", exact=True).wait_for()


async def draw(shoe: Control, service: Service, command: str = "draw") -> None:
    before = await service.view(service.watch)
    await shoe.command(command)
    await shoe.settled()  # the service acknowledges a card once it is journaled and applied
    await service.until(lambda seen: seen != before, "the card on the table")


def test_the_console_on_the_real_service_process_and_the_simulator(tmp_path: Path) -> None:
    shots = Path(os.environ.get("LUCK_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    port = free_port()

    async def scenario(shoe_process: Any, config: Path) -> None:
        shoe = await Control.connect(shoe_process.announced["control"])
        await shoe.settled()
        service = Service(f"http://127.0.0.1:{port}")
        log = tmp_path / "serve.log"
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=["--no-sandbox"]
            )
            page = await browser.new_page(viewport={"width": 1280, "height": 800})
            page.set_default_timeout(TIMEOUT_MS)
            with service_process(config, log) as process:
                await service.answering(process)
                await page.goto(service.url)
                await sign_in(page)
                table = Table(load_config(config).settings)  # the pure core, played ahead
                for seat in range(1, PLAYERS + 1):
                    await sit_down(page, seat)
                    sat = SitDown(at=0, seat=seat, player=f"P{seat}", buy_in=100)
                    table = apply(table, sat).table
                order = Script().deck(table)  # the four of clubs face up to seat 1
                await shoe.command("load cards=" + ",".join(str(int(card)) for card in order))
                await service.until(lambda seen: seen["deck_ready"], "the deck loaded")
                await page.get_by_role("button", name="New hand").click()
                seen = await service.until(lambda seen: seen["in_hand"], "the hand started")

                bonus_seen = False
                while seen["in_hand"]:
                    dealer = await service.view(service.dealer)
                    await page_shows(page, dealer["display"])
                    await no_hidden_card(page, service)
                    waiting = seen["next"]
                    if waiting["kind"] == "card":
                        if dealer["mode"] == Mode.BONUS_CARD:
                            await page.locator("#next.bonus").wait_for()
                            if not bonus_seen:
                                path = shots / "process-bonus-1280x800.png"
                                await page.screenshot(path=str(path))
                            bonus_seen = True
                        await draw(shoe, service)
                    else:
                        seat = waiting["seat"]
                        await page.get_by_text(f"Seat {seat} (P{seat}) to act").wait_for()
                        choices = {choice["do"]: choice for choice in dealer["choices"]}
                        do = next(word for word in PREFERRED if word in choices)
                        button = f'#choice-buttons button[data-do="{do}"]'
                        if do == "bonus":
                            button += '[data-accept="true"]'
                        before = seen
                        await page.locator(button).first.click()
                        await service.until(lambda now, b=before: now != b, "the decision")
                    seen = await service.view(service.watch)
                assert bonus_seen
                assert seen["phase"] == "complete" and seen["hand_number"] == 1
                stacks = {s["seat"]: s["stack"] for s in seen["seats"]}
                await page.locator(".seat .shown").first.wait_for()
                await no_hidden_card(page, service)

                # the service killed: the page says so; started again, the page comes back
                process.kill()
                process.wait(30)
                await page.get_by_text("reconnecting…").wait_for()
            with service_process(config, log) as process:
                await service.answering(process)
                # a restart is not a sign-out: the page's session was kept
                await page_shows(page, (await service.view(service.dealer))["display"])
                await page.get_by_text("live", exact=True).wait_for()
                assert await page.locator("#sign-in").is_hidden()
                recovered = await service.view(service.watch)
                assert recovered["hand_number"] == 1
                assert {s["seat"]: s["stack"] for s in recovered["seats"]} == stacks
                for seat, stack in stacks.items():
                    await (
                        page.locator(f'li[data-seat="{seat}"]')
                        .get_by_text(f"Stack {stack}")
                        .wait_for()
                    )

                # an unread card: the dealer acknowledges, the supervisor resolves with the PIN
                await shoe.command("load seed=3")
                await service.until(lambda seen: seen["deck_ready"], "the second deck")
                await page.get_by_role("button", name="New hand").click()
                await service.until(lambda seen: seen["in_hand"], "the second hand")
                await draw(shoe, service)
                await draw(shoe, service, "draw unreadable disposition=dealt_unread")
                alert = page.locator("li.alert.action")
                await alert.get_by_role("button", name="Acknowledge").click()
                await alert.get_by_text(f"acknowledged by {DEALER['id']}").wait_for()
                assert (await service.view(service.watch))["paused"]
                await alert.get_by_role("button", name="Take the card out").click()
                dialog = page.locator("#supervisor-dialog")
                await dialog.get_by_label("Why").fill("card taken away")
                await dialog.get_by_label("Supervisor id").fill(SUPERVISOR["supervisor"])
                await dialog.get_by_label("Supervisor PIN").fill(SUPERVISOR["pin"])
                await dialog.get_by_role("button", name="Apply").click()
                await alert.wait_for(state="detached")
                assert not (await service.view(service.watch))["paused"]
                await no_hidden_card(page, service)
                await page.screenshot(path=str(shots / "process-resolved-1280x800.png"))
                # the past hands: replayed by a worker process, which SIGTERM ends too
                past = await service.http.get("/api/history", headers=service.watch)
                assert [hand["hand"] for hand in past.json()] == [1, 2], past.text
                await service.http.aclose()
                process.send_signal(signal.SIGTERM)
                assert process.wait(60) == 0
            await browser.close()
        await shoe.close()

    with simulator("shoe") as shoe_process:
        config = with_api(tmp_path, shoe_process.port, port)
        asyncio.run(asyncio.wait_for(scenario(shoe_process, config), 400))
