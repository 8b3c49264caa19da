"""The supervisor acts where the supervisor is: a remedy asked for at the dealer's console
with one tap waits for a supervisor, who approves it from the surveillance page with their
PIN on the pad (the action then journaled as at the table, with the supervisor's id and the
reason), in a real Chromium with a touchscreen at 1024x600 against the table service on
the shoe simulator; and the requests' API refusals.

Screenshots are saved in the folder named by ``LUCK_SCREENSHOTS`` (else the test's
temporary folder).
"""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path
from typing import Any

import pytest

from controller.table import Refuse
from dealer_ui.approvals import Requests
from dealer_ui.auth import Denied
from dealer_ui.codes import Declined
from tests.console_kit import DEALER, SUPERVISOR, Script, dealer_signed_in
from tests.test_console_browser import console, on_the_shoe, opened, settled_page
from tests.test_console_taps import checks
from tests.test_console_touch import SMALL, journaled, keys, reachable

pytestmark = (
    pytest.mark.slow
)  # a live table: the simulator's process, the service, the console served


async def surveillance_signed_in(browser: Any, url: str) -> Any:
    """The surveillance page at 1024x600 by touch, the supervisor signed in from the keys."""
    watch = await opened(browser, url + "/surveillance", SMALL, touch=True)
    sign_in = watch.locator("#sign-in")
    await sign_in.locator("input[name=dealer]").tap()
    await keys(sign_in, SUPERVISOR["supervisor"])
    await sign_in.locator("input[name=pin]").tap()
    await keys(sign_in, SUPERVISOR["pin"])
    await sign_in.get_by_role("button", name="Sign in").tap()
    await watch.get_by_text("live", exact=True).wait_for()
    return watch


def test_a_card_asked_for_at_the_table_is_approved_from_surveillance(tmp_path: Path) -> None:
    shots = Path(os.environ.get("LUCK_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)

    async def scenario(shoe: Any) -> None:
        async with console(tmp_path, shoe, size=SMALL, touch=True) as (live, browser, page):
            await dealer_signed_in(page)
            watch = await surveillance_signed_in(browser, live.served.url)

            await live.seat_players()
            await live.play_hand(Script(), stop=lambda table: table.hand.street >= 4)
            await live.shoe.command("draw unreadable disposition=dealt_unread")
            await live.shoe.settled()
            alert = page.locator("li.alert")
            await alert.wait_for()

            # at the table: the card from the grid, then one tap asks the supervisor
            await alert.get_by_role("button", name="Enter the card").tap()
            dialog = page.locator("#supervisor-dialog")
            in_play = {str(d.card) for p in live.service.table.hand.players for d in p.cards}
            card = next(c for c in ("As", "Kh", "Qd", "Jc") if c not in in_play)
            await dialog.locator(f'.keys button[data-key="{card}"]').tap()
            position = live.service.position
            await dialog.get_by_role("button", name="Ask the supervisor").tap()
            await dialog.wait_for(state="hidden")
            asked = page.locator("#requests li.request")
            await asked.wait_for()
            assert f"Enter the unread card ({card})" in await asked.text_content()
            assert live.service.table.alerts  # nothing done yet: it waits
            await page.get_by_role("button", name="Call the supervisor").tap()
            await page.locator("#requests li.request").nth(1).wait_for()
            await page.screenshot(path=str(shots / "console-request-1024x600.png"))
            await reachable(page)

            # on the surveillance page: both requests, who asked; the call answered
            requests = watch.locator("#requests li.request")
            await requests.nth(1).wait_for()
            assert "asked by D200" in await requests.first.text_content()
            await requests.nth(1).get_by_role("button", name="Answered").tap()
            await live.until(
                lambda: len(live.served.app.state.requests.pending()) == 1, "the call answered"
            )
            await watch.locator("#requests li.request").nth(1).wait_for(state="detached")

            # approved with the supervisor's PIN on the pad: a wrong one first
            await requests.first.get_by_role("button", name="Approve").tap()
            approve = watch.locator("#approve-dialog")
            supervisor = approve.locator("input[name=supervisor]")
            assert await supervisor.input_value() == SUPERVISOR["supervisor"]
            assert await supervisor.evaluate("(input) => input.readOnly")
            await keys(approve, "000000")
            await approve.get_by_role("button", name="Approve").tap()
            await approve.locator(".error").get_by_text("PIN").wait_for()
            assert live.service.table.alerts and live.served.app.state.requests.pending()
            await keys(approve, SUPERVISOR["pin"])
            await reachable(watch)
            await watch.screenshot(path=str(shots / "surveillance-approve-1024x600.png"))
            await approve.get_by_role("button", name="Approve").tap()
            await approve.wait_for(state="hidden")
            await live.until(lambda: not live.service.table.alerts, "the card entered")
            await settled_page(page, live)
            await page.locator("#requests-section").wait_for(state="hidden")

            inputs = journaled(live, position)
            (entered,) = [fields for kind, fields in inputs if kind == "enter_card"]
            assert (entered["card"], entered["who"], entered["why"]) == (
                card,
                SUPERVISOR["supervisor"],
                "The shoe could not read it",
            )
            events = [
                (fields["event"], fields["action"], fields["by"])
                for kind, fields in inputs
                if kind == "supervisor_request"
            ]
            assert events == [
                ("asked", "enter-card", DEALER["id"]),
                ("asked", "call", DEALER["id"]),
                ("cancelled", "call", SUPERVISOR["supervisor"]),
                ("approved", "enter-card", SUPERVISOR["supervisor"]),
            ]

    on_the_shoe(scenario)


def test_the_requests_api_refuses_what_it_must(tmp_path: Path) -> None:
    async def scenario(shoe: Any) -> None:
        async with console(tmp_path, shoe) as (live, _browser, _page):
            http = live.http
            response = await http.post(
                "/api/sessions",
                json={
                    "role": "surveillance",
                    "id": SUPERVISOR["supervisor"],
                    "pin": SUPERVISOR["pin"],
                },
            )
            response.raise_for_status()
            watch = {"Authorization": f"Bearer {response.json()['token']}"}

            assert (await http.get("/api/requests")).status_code == 403  # the public
            bad = {"action": "void", "body": {"why": "misdeal", **SUPERVISOR}}
            response = await live.post("/api/requests", bad)
            assert response.status_code == 422, response.text
            assert response.json()["code"] == Declined.PIN_IN_REQUEST
            response = await live.post("/api/requests", {"action": "shuffle", "body": {}})
            assert response.status_code == 422 and "'shuffle'" in response.json()["reason"]
            assert response.json()["code"] == Declined.UNKNOWN_ACTION
            response = await live.post("/api/requests", {"action": "void", "body": {}})
            assert response.status_code == 422 and "body.why" in response.json()["reason"]
            assert response.json()["code"] == Declined.INVALID_FIELD
            # surveillance asks nothing: the dealer at the table does
            response = await http.post("/api/requests", json={"action": "call"}, headers=watch)
            assert response.status_code == 403

            call = (await live.post("/api/requests", {"action": "call"})).json()
            void = (
                await live.post("/api/requests", {"action": "void", "body": {"why": "Misdeal"}})
            ).json()
            listed = (await http.get("/api/requests", headers=watch)).json()
            assert [r["id"] for r in listed] == [call["id"], void["id"]]
            approve = f"/api/requests/{call['id']}/approve"
            response = await http.post(approve, json=SUPERVISOR, headers=watch)
            assert response.status_code == 409  # a call is answered, not approved
            assert response.json()["code"] == Refuse.NOT_AN_INPUT
            other = {**SUPERVISOR, "supervisor": "S999"}
            response = await http.post(
                f"/api/requests/{void['id']}/approve", json=other, headers=watch
            )
            assert response.status_code == 403 and response.json()["code"] == Denied.NOT_OWN_PIN
            response = await live.post(f"/api/requests/{void['id']}/cancel")
            assert response.status_code == 200
            response = await http.post(
                f"/api/requests/{void['id']}/approve", json=SUPERVISOR, headers=watch
            )
            assert response.status_code == 404 and response.json()["code"] == Declined.REQUEST_GONE
            # a surveillance session may act as the supervisor at the table does
            response = await http.post(
                "/api/supervisor/correct-stack",
                json={**SUPERVISOR, "why": "Chips miscounted", "seat": 1, "stack": 10},
                headers=watch,
            )
            assert response.status_code == 409, response.text  # the table's refusal: no seat 1
            assert response.json()["code"] == Refuse.SEAT_EMPTY

    on_the_shoe(scenario)


def test_a_request_expires_and_the_feeds_are_told() -> None:
    async def scenario() -> None:
        now = [1000.0]
        told: list[int] = []
        requests = Requests(lambda: now[0], lambda: told.append(1), ttl=60)
        first = requests.ask("call", {}, "D200")
        second = requests.ask("void", {"why": "Misdeal"}, "D200")
        assert [r.id for r in requests.pending()] == [first.id, second.id]
        assert len(told) == 2
        now[0] += 60
        assert requests.pending() == [] and requests.take(first.id) is None
        assert len(told) == 3  # the expiry told once
        version, listed = requests.listed()
        assert listed == [] and version == 3

    asyncio.run(scenario())


class HeldFeed:
    """The console's feed through the browser's route: the server's messages held while
    ``holding``, then sent on in order by :meth:`release`."""

    def __init__(self) -> None:
        self.holding = False
        self.held: list[str | bytes] = []
        self.page_side: Any = None

    def route(self, ws: Any) -> None:
        server = ws.connect_to_server()
        self.page_side = ws

        def from_server(message: str | bytes) -> None:
            if self.holding:
                self.held.append(message)
            else:
                ws.send(message)

        server.on_message(from_server)

    def release(self) -> None:
        assert self.held, "the feed's update of the decision was not held"
        self.holding = False
        for message in self.held:
            self.page_side.send(message)
        self.held.clear()


def test_a_decision_undone_with_the_supervisor_s_approval_at_the_table(tmp_path: Path) -> None:
    shots = Path(os.environ.get("LUCK_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)

    async def scenario(shoe: Any) -> None:
        async with console(tmp_path, shoe, size=SMALL, touch=True) as (live, _browser, page):
            feed = HeldFeed()
            await page.route_web_socket(re.compile(r"/ws\?"), feed.route)
            await page.reload()  # the feed through the route
            await dealer_signed_in(page)
            await live.seat_players()
            script = Script(fold_seat=None, bet_seat=None)
            await live.play_hand(script, stop=lambda table: checks(table) is not None)
            seat = checks(live.service.table)
            before = live.service.table
            await settled_page(page, live)
            check = page.locator(f'#choice-buttons button[data-do="check"][data-seat="{seat}"]')
            await check.locator(":scope:enabled").wait_for()
            position = live.service.position
            # the decision's answer before the feed's update of it (a race a busy table or
            # network runs): the undo is offered once the update comes
            feed.holding = True
            await check.tap()
            await page.locator("#message", has_text=f"seat {seat}: Check").wait_for()
            await page.evaluate("() => new Promise((done) => setTimeout(done, 0))")
            feed.release()
            undo = page.locator("#undo")
            await undo.wait_for()
            assert await undo.text_content() == f"Undo seat {seat}: Check"
            await reachable(page)
            await undo.tap()
            asked = page.locator("#requests li.request")
            await asked.wait_for()
            assert f"Undo a decision (seat {seat} check" in await asked.text_content()
            await page.screenshot(path=str(shots / "console-undo-request-1024x600.png"))

            # the supervisor at the table approves it: id and PIN from the keys
            await asked.get_by_role("button", name="Approve here").tap()
            approve = page.locator("#approve-dialog")
            await keys(approve, SUPERVISOR["supervisor"])
            await approve.locator("input[name=pin]").tap()
            await keys(approve, SUPERVISOR["pin"])
            await reachable(page)
            await approve.get_by_role("button", name="Approve").tap()
            await approve.wait_for(state="hidden")
            await live.until(lambda: live.service.table.hand == before.hand, "the check undone")
            assert live.service.table.hand_log == before.hand_log
            await settled_page(page, live)
            await check.locator(":scope:enabled").wait_for()  # the seat decides again
            assert await undo.is_hidden()
            (undone,) = [f for kind, f in journaled(live, position) if kind == "undo_decision"]
            assert (undone["seat"], undone["do"], undone["who"], undone["why"]) == (
                seat,
                "check",
                SUPERVISOR["supervisor"],
                "Wrong button",
            )

            # once a card is dealt, an undo asked for is refused (the decision stands)
            await check.locator(":scope:enabled").tap()
            await undo.wait_for()
            await live.until(lambda: checks(live.service.table) != seat, "the check")
            while live.service.table.hand.waiting_for.kind != "card":
                nxt = checks(live.service.table)
                assert nxt is not None
                response = await live.post("/api/decisions", {"seat": nxt, "do": "check"})
                assert response.status_code == 200, response.text
            last = live.service.table.hand_log[-1]
            await live.draw()
            await undo.wait_for(state="hidden")  # the table moved on: no undo offered
            body = {**SUPERVISOR, "why": "Wrong button", "seat": last.seat, "do": last.do.value}
            response = await live.post("/api/supervisor/undo", body)
            assert response.status_code == 409, response.text
            assert response.json()["code"] == Refuse.DECISION_STANDS

    on_the_shoe(scenario)
