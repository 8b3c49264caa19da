"""The dealer push at the console, by touch at 1024x600 in a real Chromium: the outgoing
dealer taps **Push**, the incoming dealer signs in on the on-screen keys (a wrong PIN is
refused in the dialog, nothing changed), and the console goes on as the incoming dealer's:
``dealer_in`` journaled, the outgoing dealer's sessions ended (docs/game-protection.md,
"The dealer on every hand"; the API: tests/test_dealer_push.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.config_file import Credential
from controller.service import TableService
from dealer_ui.auth import Auth, hash_pin
from tests.console_kit import DEALER
from tests.test_console_browser import console, on_the_shoe
from tests.test_console_touch import SMALL, both_sizes, journaled, keys

INCOMING = {"id": "D300", "pin": "135792"}

pytestmark = pytest.mark.slow  # a browser


def with_a_second_dealer(service: TableService) -> Auth:
    config = service.config
    second = Credential(INCOMING["id"], hash_pin(INCOMING["pin"]))
    return Auth([*config.dealers, second], config.supervisors)


def test_a_dealer_push_by_touch_hands_the_console_to_the_incoming_dealer(tmp_path: Path) -> None:
    async def scenario(shoe: Any) -> None:
        async with console(tmp_path, shoe, size=SMALL, touch=True, auth=with_a_second_dealer) as (
            live,
            _browser,
            page,
        ):
            sign_in = page.locator("#sign-in")
            push = page.get_by_role("button", name="Push", exact=True)
            assert not await push.is_visible()  # nobody signed in: nothing to hand over
            await sign_in.locator("input[name=dealer]").tap()
            await keys(sign_in, DEALER["id"])
            await sign_in.locator("input[name=pin]").tap()
            await keys(sign_in, DEALER["pin"])
            await sign_in.get_by_role("button", name="Sign in").tap()
            await page.get_by_text("live", exact=True).wait_for()
            start = live.service.position

            await push.tap()
            dialog = page.locator("#push-dialog")
            await dialog.wait_for()
            assert "D200 hands the table over" in await dialog.locator("#push-who").inner_text()
            await dialog.locator("input[name=dealer]").tap()
            await keys(dialog, INCOMING["id"])
            await dialog.locator("input[name=pin]").tap()
            await keys(dialog, "999999")  # a wrong PIN: refused, the push not made
            await both_sizes(page)
            await dialog.get_by_role("button", name="Push", exact=True).tap()
            await dialog.locator(".error").filter(has_text="PIN").wait_for()
            assert live.service.table.dealer is None
            assert await page.locator("#signed-in").text_content() == "Signed in: D200"

            await dialog.locator("input[name=pin]").tap()
            await keys(dialog, INCOMING["pin"])
            await dialog.get_by_role("button", name="Push", exact=True).tap()
            await dialog.wait_for(state="hidden")
            await page.locator("#signed-in").filter(has_text="Signed in: D300").wait_for()
            await page.get_by_text("live", exact=True).wait_for()
            assert "Dealer push: D300" in await page.locator("#message").inner_text()
            await live.until(lambda: live.service.table.dealer == "D300", "D300 pushed in")
            assert ("dealer_in", {"who": "D300"}) in journaled(live, start)
            assert (await live.post("/api/hands")).status_code == 401  # D200's sessions end
            await both_sizes(page)

    on_the_shoe(scenario)
