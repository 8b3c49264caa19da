"""A dealer's errors in one tap on the console: an exposed hole card and an up card dealt face
down, each one tap on the card in the seat's sheet, and a misdeal, one tap then a confirmation
armed as a decision's; each a request that the supervisor approves (at the table, or from
surveillance), applied by the table with the stud rules (docs/rules.md, "Corrections") and
journaled with the supervisor's id and the reason. In a real Chromium with a touchscreen at
1024x600 against the table service on the shoe simulator; and the API's refusals of a card
named by its place.

Screenshots are saved in the folder named by ``LUCK_SCREENSHOTS`` (else the test's
temporary folder).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from controller.rules import Phase
from controller.table import Refuse, Table
from dealer_ui.codes import Declined
from tests.console_kit import SUPERVISOR, LiveTable, Script, dealer_signed_in
from tests.test_console_browser import console, on_the_shoe, settled_page
from tests.test_console_taps import ARM_MS, PAUSE_AHEAD_MS
from tests.test_console_touch import SMALL, journaled, keys, reachable

pytestmark = pytest.mark.slow  # a live table

#: No four of clubs face up (no bonus card), nobody folds or bets: only the errors matter.
PLAIN = Script(fold_seat=None, bet_seat=None, up_cards=())


def cards_of(table: Table, seat: int) -> int:
    assert table.hand is not None
    return len(table.hand.player(seat).cards)


async def deal_until(live: LiveTable, done: Any) -> None:
    """Draw cards until ``done(table)`` holds (only cards: no decision is due meanwhile)."""
    while not done(live.service.table):
        hand = live.service.table.hand
        assert hand is not None and hand.waiting_for is not None
        assert hand.waiting_for.kind == "card", hand.waiting_for
        await live.draw()


async def approve_here(page: Any) -> None:
    """The supervisor approves the request waiting, at the table: the id (unless pre-filled)
    and the PIN from the keys."""
    asked = page.locator("#requests li.request")
    await asked.get_by_role("button", name="Approve here").tap()
    approve = page.locator("#approve-dialog")
    supervisor = approve.locator("input[name=supervisor]")
    if await supervisor.input_value() != SUPERVISOR["supervisor"]:  # pre-filled: the last one
        await supervisor.tap()
        await keys(approve, SUPERVISOR["supervisor"])
    await approve.locator("input[name=pin]").tap()
    await keys(approve, SUPERVISOR["pin"])
    await approve.get_by_role("button", name="Approve").tap()
    await approve.wait_for(state="hidden")


def test_an_exposed_card_an_up_card_dealt_down_and_a_misdeal_each_in_one_tap(
    tmp_path: Path,
) -> None:
    shots = Path(os.environ.get("LUCK_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)

    async def scenario(shoe: Any) -> None:
        async with console(tmp_path, shoe, size=SMALL, touch=True) as (live, _browser, page):
            await page.clock.install()  # its time runs as the machine's, until paused
            await dealer_signed_in(page)
            await live.seat_players()
            await live.play_hand(PLAIN, stop=lambda table: cards_of(table, 1) == 1)
            position = live.service.position
            hole = live.service.table.hand.player(1).cards[0].card
            await settled_page(page, live)
            misdeal = page.locator("#misdeal")
            assert await misdeal.is_visible()  # during a hand only

            # seat 1's first hole card lies face up: one tap on it in the seat's sheet; the
            # page's time stands still from the sheet's opening to its tap however slow the
            # machine, so that the tap comes before the sheet is armed
            now = await page.evaluate("Date.now()")  # ms; pause_at takes seconds
            await page.clock.pause_at((now + PAUSE_AHEAD_MS) / 1000)
            await page.locator('li[data-seat="1"]').tap()
            sheet = page.locator("#seat-sheet")
            exposed = sheet.locator('button.dealer-error[data-place="1"]')
            await exposed.tap()  # at once: the sheet is not yet armed, the tap asks nothing
            assert await exposed.get_attribute("data-error") == "exposed"
            assert await exposed.text_content() == "Exposed"
            await reachable(page)
            await page.screenshot(path=str(shots / "console-exposed-card-1024x600.png"))
            await page.clock.run_for(ARM_MS)  # armed now
            await page.clock.resume()
            await exposed.tap()
            await sheet.wait_for(state="hidden")
            asked = page.locator("#requests li.request")
            await asked.wait_for()
            assert "A card dealt with the wrong face (seat 1, card 1, hand 1): Exposed card" in (
                await asked.text_content()
            )
            assert len(live.served.app.state.requests.pending()) == 1  # the early tap: none
            assert not live.service.table.hand.player(1).cards[0].up  # it waits
            await approve_here(page)
            await live.until(
                lambda: live.service.table.hand.player(1).cards[0].exposed, "the card turned"
            )
            turned = live.service.table.hand.player(1).cards[0]
            assert turned.card == hole and turned.up  # on third street: the up card
            # Robert's Rules: the player's up card still to come is dealt face down
            owed = [w for w in live.service.table.hand.queue if w.seat == 1]
            assert owed and not any(w.up for w in owed)
            await settled_page(page, live)
            assert await page.locator(f'li[data-seat="1"] [data-card="{hole}"]').count() == 1

            # third street dealt; seat 2's up card was dealt face down: one tap on it
            await deal_until(live, lambda table: cards_of(table, 3) == 3)
            up = next(d for d in live.service.table.hand.player(2).cards if d.up)
            place = live.service.table.hand.player(2).cards.index(up) + 1
            await settled_page(page, live)
            await page.locator('li[data-seat="2"]').tap()
            down = sheet.locator(f'button.dealer-error[data-place="{place}"]')
            assert await down.get_attribute("data-error") == "down"
            assert await sheet.locator('button[data-error="exposed"]').count() == 2
            await page.wait_for_timeout(400)
            await down.tap()
            await sheet.wait_for(state="hidden")
            await asked.wait_for()
            # surveillance approves it (the supervisor signed in, the PIN with the approval)
            response = await live.http.post(
                "/api/sessions",
                json={
                    "role": "surveillance",
                    "id": SUPERVISOR["supervisor"],
                    "pin": SUPERVISOR["pin"],
                },
            )
            watch = {"Authorization": f"Bearer {response.json()['token']}"}
            (request,) = live.served.app.state.requests.pending()
            assert request.body == {
                "seat": 2,
                "place": place,
                "hand": 1,
                "why": "Up card dealt face down",
            }
            response = await live.http.post(
                f"/api/requests/{request.id}/approve", json=SUPERVISOR, headers=watch
            )
            assert response.status_code == 200, response.text
            await asked.wait_for(state="detached")

            # a misdeal: one tap, a confirmation armed as a decision's, then the request
            await misdeal.tap()
            confirm = page.locator("#confirm")
            assert await confirm.locator("#confirm-text").text_content() == (
                "Misdeal: ask the supervisor to void hand 1?"
            )
            assert await page.locator("#confirm-ok").is_disabled()  # arming
            await page.locator("#confirm-ok:enabled").tap()
            await asked.wait_for()
            assert "Void the hand (hand 1): Misdeal" in await asked.text_content()
            assert len(live.served.app.state.requests.pending()) == 1
            await reachable(page)
            await approve_here(page)
            await live.until(lambda: live.service.table.hand.phase is Phase.VOID, "the void")
            await settled_page(page, live)
            assert await misdeal.is_hidden()

            inputs = journaled(live, position)
            remedies = [
                (kind, fields.get("seat"), fields.get("card"), fields["who"], fields["why"])
                for kind, fields in inputs
                if kind in ("wrong_face", "void_hand")
            ]
            who = SUPERVISOR["supervisor"]
            assert remedies == [
                ("wrong_face", 1, str(hole), who, "Exposed card"),
                ("wrong_face", 2, str(up.card), who, "Up card dealt face down"),
                ("void_hand", None, None, who, "Misdeal"),
            ]

    on_the_shoe(scenario)


def test_a_card_named_by_its_place_is_refused_where_it_must_be(tmp_path: Path) -> None:
    async def scenario(shoe: Any) -> None:
        async with console(tmp_path, shoe) as (live, _browser, _page):
            await live.seat_players()
            await live.play_hand(PLAIN, stop=lambda table: cards_of(table, 1) == 1)
            path = "/api/supervisor/wrong-face"
            signed = {**SUPERVISOR, "why": "Exposed card"}
            response = await live.post(path, {**signed, "seat": 1})
            assert response.status_code == 422, response.text  # neither card nor place
            assert response.json()["code"] == Declined.INVALID_FIELD
            response = await live.post(path, {**signed, "seat": 1, "place": 1, "card": "As"})
            assert response.status_code == 422, response.text  # both
            assert response.json()["code"] == Declined.INVALID_FIELD
            response = await live.post(path, {**signed, "seat": 1, "place": 2})
            assert response.status_code == 409, response.text
            assert response.json()["code"] == Refuse.NOT_SEATS_CARD
            response = await live.post(path, {**signed, "seat": 1, "place": 1, "hand": 7})
            assert response.status_code == 409 and response.json()["error"] == "stale"
            assert response.json()["code"] == Declined.STALE
            # a request by place is well formed when asked, and waits
            body = {"seat": 1, "place": 1, "hand": 1, "why": "Exposed card"}
            response = await live.post("/api/requests", {"action": "wrong-face", "body": body})
            assert response.status_code == 200, response.text
            assert not live.service.table.hand.player(1).cards[0].exposed
            response = await live.post(path, {**signed, "seat": 1, "place": 1, "hand": 1})
            assert response.status_code == 200, response.text
            assert live.service.table.hand.player(1).cards[0].exposed

    on_the_shoe(scenario)
