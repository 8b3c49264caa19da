"""A dealer's request approved from the pit page: the table service (its console on a port)
and ``luck-table floor`` (its own process, the table's console in its ``[consoles]``), the
pit page in Chromium. The pit supervisor connects to the table with their PIN (checked by the
table), sees the dealer's request, a wrong PIN is refused at the approval (the request still
waits), the right one applies it at the table, journaled there with the supervisor's id.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import async_playwright

from controller.rules import Phase
from tests.console_kit import SUPERVISOR, live_table
from tests.pit_kit import FloorService, floor_config, pit_database, start_floor
from tests.test_console_browser import CHROMIUM, on_the_shoe, opened
from tests.test_console_errors import PLAIN, cards_of
from tests.test_console_touch import journaled

pytestmark = pytest.mark.slow  # a live table and Chromium

#: The pit's supervisor: one the table knows too (the table checks the PIN).
PIT = {"id": SUPERVISOR["supervisor"], "pin": SUPERVISOR["pin"]}


@contextlib.asynccontextmanager
async def pit_floor(folder: Path, console_url: str) -> AsyncIterator[FloorService]:
    """``luck-table floor`` on a database of its own, with the table T1 whose console is at
    ``console_url`` and the pit supervisor ``PIT``; status 0 when stopped at the end."""
    with pit_database() as dsn:
        config = floor_config(folder, {"T1": console_url}, supervisor=PIT)
        floor = await asyncio.to_thread(start_floor, config, dsn)
        try:
            yield floor
        finally:
            assert await asyncio.to_thread(floor.stop) == 0


async def pit_signed_in(page: Any) -> Any:
    """The pit supervisor signs in at the pit ``page``; table T1's entry in the requests
    (until connected: the PIN to connect with)."""
    await page.locator("#who").fill(PIT["id"])
    await page.locator("#pin").fill(PIT["pin"])
    await page.get_by_role("button", name="Sign in").click()
    table = page.locator('#requests li[data-requests-of="T1"]')
    await table.get_by_role("button", name="Connect").wait_for()
    return table


async def pit_with_pin(entry: Any, field: str, button: str, pin: str) -> None:
    """``pin`` in ``entry``'s PIN ``field``, then ``button`` (Connect, Approve)."""
    await entry.get_by_label(field).fill(pin)
    await entry.get_by_role("button", name=button).click()


def test_a_request_asked_at_the_table_is_approved_from_the_pit_page(tmp_path: Path) -> None:
    shots = Path(os.environ.get("LUCK_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)

    async def scenario(shoe: Any) -> None:
        async with (
            live_table(tmp_path, shoe) as live,
            async_playwright() as playwright,
            pit_floor(tmp_path, live.served.url) as floor,
        ):
            browser = await playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=["--no-sandbox"]
            )
            try:
                page = await opened(browser, floor.url)
                await approved_from_the_pit(live, page, shots)
            finally:
                await browser.close()

    on_the_shoe(scenario)


async def approved_from_the_pit(live: Any, page: Any, shots: Path) -> None:
    table = await pit_signed_in(page)
    await live.seat_players()
    await live.play_hand(PLAIN, stop=lambda table: cards_of(table, 1) == 1)
    position = live.service.position
    body = {"action": "void", "body": {"hand": 1, "why": "Misdeal"}}
    response = await live.post("/api/requests", body)
    assert response.status_code == 200, response.text

    # connected with the PIN the table checks: a wrong one first
    await pit_with_pin(table, "PIN for table T1", "Connect", "000000")
    await table.locator(".error").get_by_text("PIN").wait_for()
    await pit_with_pin(table, "PIN for table T1", "Connect", PIT["pin"])
    request = page.locator('#requests li[data-requests-of="T1"][data-request]')
    await request.wait_for()
    text = await request.text_content()
    assert "Table T1: Void the hand (hand 1): Misdeal · asked by D200" in text
    await page.screenshot(path=str(shots / "pit-approve.png"))

    # a wrong PIN at the approval: refused, the request still waits
    await pit_with_pin(request, "Your PIN", "Approve", "000000")
    await request.locator(".error").get_by_text("PIN").wait_for()
    assert live.served.app.state.requests.pending()
    assert live.service.table.hand.phase is not Phase.VOID
    await pit_with_pin(request, "Your PIN", "Approve", PIT["pin"])
    await live.until(lambda: live.service.table.hand.phase is Phase.VOID, "the void")
    await page.locator('#requests li[data-requests-of="T1"].none').wait_for()
    assert not live.served.app.state.requests.pending()

    inputs = journaled(live, position)
    (void,) = [fields for kind, fields in inputs if kind == "void_hand"]
    assert (void["who"], void["why"]) == (PIT["id"], "Misdeal")
    approvals = [
        (fields["event"], fields["by"], fields["role"])
        for kind, fields in inputs
        if kind == "supervisor_request"
    ]
    assert approvals == [("asked", "D200", "dealer"), ("approved", PIT["id"], "surveillance")]
