"""Two-person control through the API (``[protection] two_person``): a stack correction and
a void asked for at the table are approved by two supervisors, the second another than the
first and a supervisor; refused clearly otherwise, the request still waiting and the table
unchanged; the input journaled with both ids. The table core's rule:
tests/test_table_two_person.py."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from controller.config_file import Credential
from controller.service import TableService
from controller.table import Refuse
from dealer_ui.auth import Auth, hash_pin
from dealer_ui.codes import Declined
from tests.console_kit import DEALER, SUPERVISOR, LiveTable, Script, live_table
from tests.test_console_browser import on_the_shoe
from tests.test_console_touch import journaled

pytestmark = pytest.mark.slow  # the simulators' processes

SECOND = {"supervisor": "S300", "pin": "246813"}
TWO_PERSON = "tag_checks = false\ntwo_person = true"


def with_a_second_supervisor(service: TableService) -> Auth:
    config = service.config
    second = Credential(SECOND["supervisor"], hash_pin(SECOND["pin"]))
    return Auth(config.dealers, [*config.supervisors, second])


async def approve(live: LiveTable, number: int, who: dict[str, str]) -> Any:
    return await live.post(f"/api/requests/{number}/approve", who)


@contextlib.asynccontextmanager
async def seated(folder: Path, shoe: Any) -> AsyncIterator[LiveTable]:
    """A live table with two-person control and two supervisors, its players seated."""
    async with live_table(
        folder, shoe, protection=TWO_PERSON, auth=with_a_second_supervisor
    ) as live:
        await live.seat_players()
        yield live


def test_a_stack_correction_needs_two_supervisors_and_is_journaled_with_both(
    tmp_path: Path,
) -> None:
    async def scenario(shoe: Any) -> None:
        async with seated(tmp_path, shoe) as live:
            fix = {"seat": 1, "stack": 90, "why": "Chips miscounted"}
            direct = await live.post("/api/supervisor/correct-stack", {**SUPERVISOR, **fix})
            assert direct.status_code == 409, direct.text
            assert direct.json()["code"] == Refuse.SECOND_NEEDED
            asked = await live.post("/api/requests", {"action": "correct-stack", "body": fix})
            number = asked.json()["id"]
            start = live.service.position

            first = await approve(live, number, SUPERVISOR)
            assert first.status_code == 202, first.text
            assert first.json()["approved_by"] == "S100"
            listed = (await live.http.get("/api/requests", headers=live.dealer)).json()
            assert [(r["id"], r["approved_by"]) for r in listed] == [(number, "S100")]
            again = await approve(live, number, SUPERVISOR)  # the same supervisor twice
            assert again.status_code == 409
            assert again.json()["code"] == Refuse.SECOND_SAME
            dealer = {"supervisor": DEALER["id"], "pin": DEALER["pin"]}  # not a supervisor
            assert (await approve(live, number, dealer)).status_code == 401
            assert live.service.table.seat(1).stack == 100  # type: ignore[union-attr]
            listed = (await live.http.get("/api/requests", headers=live.dealer)).json()
            assert [(r["id"], r["approved_by"]) for r in listed] == [(number, "S100")]

            second = await approve(live, number, SECOND)
            assert second.status_code == 200, second.text
            assert live.service.table.seat(1).stack == 90  # type: ignore[union-attr]
            inputs = [fields for kind, fields in journaled(live, start) if kind == "correct_stack"]
            assert inputs == [{"who": "S100", "second": "S300", "why": "Chips miscounted"} | fix]
            gone = await approve(live, number, SECOND)
            assert gone.status_code == 404 and gone.json()["code"] == Declined.REQUEST_GONE

    on_the_shoe(scenario)


def test_a_void_asked_at_the_table_is_void_once_a_second_supervisor_approves(
    tmp_path: Path,
) -> None:
    async def scenario(shoe: Any) -> None:
        async with seated(tmp_path, shoe) as live:
            await live.play_hand(Script(), stop=lambda table: table.in_hand)
            assert live.service.table.in_hand
            body = {"why": "Misdeal", "hand": live.service.table.hand_number}
            number = (await live.post("/api/requests", {"action": "void", "body": body})).json()
            number = number["id"]
            assert (await approve(live, number, SECOND)).status_code == 202
            assert live.service.table.in_hand
            void = await approve(live, number, SUPERVISOR)
            assert void.status_code == 200, void.text
            assert not live.service.table.in_hand
            said = [e["message"] for e in void.json()["events"] if e["kind"] == "supervisor"]
            assert said and "S300 and S100: Misdeal" in said[0], void.json()["events"]

    on_the_shoe(scenario)
