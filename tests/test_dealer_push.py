"""The dealer on every hand at a live table: a dealer push at the console names the dealer
of the hands after it (journal, history, archive) and signs the outgoing dealer out; and a
shoe whose serial is not the configured one pauses the table until a supervisor accepts it."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from controller.config_file import Credential
from controller.floor import facts as f
from controller.floor.derive import Point, derive
from controller.history.hands import recorded_hands
from controller.journal import Journal
from controller.records import ACCESS, TABLE
from controller.recovery import initial_table
from controller.rules import DECK
from controller.service import TableService
from controller.table import Refuse
from controller.table.alerts import DeviceReplaced
from dealer_ui.auth import Auth, hash_pin
from dealer_ui.kept_sessions import EPOCH  # each run's: not an attempt
from drivers.protocol import DeviceKind
from tests.console_kit import DEALER, SUPERVISOR, LiveTable, Script, live_table
from tests.service_kit import simulator

pytestmark = (
    pytest.mark.slow
)  # a live table: the simulator's process, the service, the console served

INCOMING = {"id": "D300", "pin": "246810"}
LUCK_TABLE = str(Path(sys.executable).with_name("luck-table"))


def two_dealers(service: TableService) -> Auth:
    config = service.config
    other = Credential(INCOMING["id"], hash_pin(INCOMING["pin"]))
    return Auth([*config.dealers, other], config.supervisors)


def run(scenario: Any, serial: str | None = None) -> None:
    with simulator("shoe", serial=serial) as shoe:
        asyncio.run(asyncio.wait_for(scenario(shoe), 400))  # generous: a loaded machine


async def push(live: LiveTable, who: dict[str, str]) -> Any:
    return await live.http.post("/api/dealer-push", json=who, headers=live.dealer)


def test_a_dealer_push_names_each_hands_dealer_and_signs_the_outgoing_dealer_out(
    tmp_path: Path,
) -> None:
    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe, auth=two_dealers) as live:
            first = await push(live, DEALER)  # the shift's first dealer names themselves
            assert first.status_code == 200 and first.json()["who"] == "D200"
            assert live.service.table.dealer == "D200"
            live.dealer = {"Authorization": f"Bearer {first.json()['token']}"}
            await live.seat_players()
            script = Script()
            pushed: list[str] = []

            async def push_mid_hand() -> None:  # once, during hand 1: hand 2 is D300's
                if pushed or live.service.table.hand_number != 1:
                    return
                outgoing = live.dealer
                wrong = await push(live, {"id": "D300", "pin": "000000"})
                assert wrong.status_code == 401
                assert live.service.table.dealer == "D200"
                answer = await push(live, INCOMING)
                assert answer.status_code == 200, answer.text
                assert answer.json()["who"] == "D300"
                pushed.append(answer.json()["token"])
                live.dealer = {"Authorization": f"Bearer {pushed[0]}"}
                gone = await live.http.post("/api/hands", headers=outgoing)
                assert gone.status_code == 401, gone.text
                assert (live.service.table.dealer, live.service.table.hand_dealer) == (
                    "D300",
                    "D200",
                )

            await live.play_hand(script, each=push_mid_hand)
            await live.play_hand(script)
            staff = await live.http.post(
                "/api/sessions",
                json={"role": "surveillance", "id": "S100", "pin": SUPERVISOR["pin"]},
            )
            watching = {"Authorization": f"Bearer {staff.json()['token']}"}
            archive = await live.http.get("/api/history", headers=watching)
            assert [(h["hand"], h["dealer"]) for h in archive.json()] == [(1, "D200"), (2, "D300")]
            one = await live.http.get("/api/history/1", headers=watching)
            assert one.json()["dealer"] == "D200"

    run(scenario)
    path = tmp_path / "table.sqlite"
    with Journal.open(path, create=False) as journal:
        entries = list(journal.entries())
        pushes = [e.fields for e in entries if e.source == TABLE and e.type == "dealer_in"]
        assert [(push["who"]) for push in pushes] == ["D200", "D300"]
        attempts = [e.fields for e in entries if e.source == ACCESS and e.type != EPOCH]
        assert [(a["action"], a["who"], a["by"]) for a in attempts] == [
            ("dealer_push", "D300", "D200")
        ]
        assert [hand.dealer for hand in recorded_hands(journal)] == ["D200", "D300"]
        # the floor's facts of each hand name its dealer (the floor's per-dealer reports)
        derived = derive(journal, Point(0, initial_table()), len(entries))
        hands = [fact for fact in derived.facts if isinstance(fact, f.HandStarted | f.HandEnded)]
        assert [(type(fact).__name__, fact.dealer) for fact in hands] == [
            ("HandStarted", "D200"),
            ("HandEnded", "D200"),
            ("HandStarted", "D300"),
            ("HandEnded", "D300"),
        ]
    history = subprocess.run(
        [LUCK_TABLE, "history", "--journal", str(path), "--json"],
        capture_output=True,
        check=True,
        timeout=120,
    )
    assert [hand["dealer"] for hand in json.loads(history.stdout)] == ["D200", "D300"]


def test_a_shoe_with_another_serial_pauses_the_table_until_a_supervisor_accepts_it(
    tmp_path: Path,
) -> None:
    async def scenario(shoe: Any) -> None:
        lines = 'serial = "SHOE-0042"'
        async with live_table(tmp_path, shoe, shoe_lines=lines) as live:
            table = live.service.table
            assert table.settings.serials.shoe == "SHOE-0042"
            alerts = [alert for alert in table.alerts if alert.kind.value == "device_replaced"]
            assert [alert.facts for alert in alerts] == [
                DeviceReplaced(DeviceKind.SHOE, "SIM-OTHER-7", "SHOE-0042")
            ]
            await live.seat_players()
            await live.load(list(DECK))
            refused = await live.post("/api/hands")
            assert refused.status_code == 409 and refused.json()["code"] == Refuse.ALERTS_OPEN
            body = {**SUPERVISOR, "why": "checked the shoe", "alert": alerts[0].id}
            accepted = await live.post("/api/supervisor/resolve", {**body, "remedy": "done"})
            assert accepted.status_code == 200, accepted.text
            assert live.service.table.expected_serial(DeviceKind.SHOE) == "SIM-OTHER-7"
            started = await live.post("/api/hands")
            assert started.status_code == 200, started.text

    run(scenario, serial="SIM-OTHER-7")
    with Journal.open(tmp_path / "table.sqlite", create=False) as journal:
        resolved = [
            e.fields for e in journal.entries() if e.source == TABLE and e.type == "resolve_alert"
        ]
        assert [(r["remedy"], r["who"]) for r in resolved] == [("done", "S100")]
