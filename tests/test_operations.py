"""What operations ask of a running table: ``/health``, ``/ready`` (503 naming what is not
ready) and ``/metrics`` (Prometheus' text format)."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from controller.service import TableService
from dealer_ui import serve
from tests.console_kit import live_table
from tests.service_kit import config, simulator
from tests.waiting import async_wait_until

pytestmark = (
    pytest.mark.slow
)  # a live table: the simulator's process, the service, the console served

#: The monitoring system's address the configuration names (/metrics, /health's details).
LOOPBACK = ("127.0.0.1",)
NO_FLOOR = 'dsn = "host=127.0.0.1 port=1 dbname=floor user=luck connect_timeout=1"'


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a /metrics answer: (name, labels) -> value."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_a_table_without_its_shoe_and_its_floor_is_alive_and_not_ready(tmp_path: Path) -> None:
    settings = config(tmp_path, str(tmp_path / "no-shoe"), floor=NO_FLOOR)
    settings = replace(settings, api=replace(settings.api, port=0, operations_from=LOOPBACK))

    async def scenario() -> None:
        async with TableService(settings) as service:
            served = await serve(service)
            try:
                async with httpx.AsyncClient(base_url=served.url, timeout=30) as http:
                    await async_wait_until(
                        lambda: service.table.alerts, "the shoe's absence journaled", 30
                    )
                    health = await http.get("/health")
                    assert health.status_code == 200
                    assert health.json()["alive"] and health.json()["table"] == "T-TEST"
                    ready = await http.get("/ready")
                    assert ready.status_code == 503 and not ready.json()["ready"]
                    reasons = ready.json()["reasons"]
                    assert {"code": "device_missing", "device": "shoe"}.items() <= reasons[
                        0
                    ].items()
                    assert [reason["code"] for reason in reasons] == [
                        "device_missing",
                        "not_shipping",
                    ]
                    assert ready.json()["not_ready"] == [reason["words"] for reason in reasons]
                    metrics = await http.get("/metrics")
                    assert metrics.status_code == 200
                    assert metrics.headers["content-type"].startswith("text/plain")
                    seen = samples(metrics.text)
                    assert seen[("luck_table_link_up", (("device", "shoe"),))] == 0
                    assert seen[("luck_table_open_alerts", (("kind", "link_down"),))] == 1
                    assert seen[("luck_table_open_alerts", (("kind", "unread_card"),))] == 0
                    assert seen[("luck_table_journal_position", ())] == service.position > 0
                    assert seen[("luck_table_ready", ())] == 0
                    assert seen[("luck_table_floor_connected", ())] == 0
                    assert seen[("luck_table_floor_position", ())] == 0
                    lag = seen[("luck_table_floor_lag_entries", ())]
                    assert lag == service.position
                    assert seen[("luck_table_disk_free_bytes", ())] > 0
                    assert seen[("luck_table_journal_commit_seconds_count", ())] >= 1
                    assert ("luck_table_floor_outage_seconds", ()) in seen
            finally:
                await served.stop()

    asyncio.run(asyncio.wait_for(scenario(), 120))


def test_a_table_with_its_shoe_is_ready_and_counts_its_cards(tmp_path: Path) -> None:
    async def scenario(shoe: Any) -> None:
        async with live_table(tmp_path, shoe, api={"operations_from": LOOPBACK}) as live:
            ready = await live.http.get("/ready")
            assert ready.status_code == 200, ready.text
            assert ready.json() == {
                "ready": True,
                "table": "T-TEST",
                "not_ready": [],
                "reasons": [],
            }
            key = ("luck_table_card_seconds_count", ())
            before = samples((await live.http.get("/metrics")).text).get(key, 0)
            await live.seat_players()
            await live.load([*range(52)])
            (await live.post("/api/hands")).raise_for_status()
            await live.draw()
            seen = samples((await live.http.get("/metrics")).text)
            assert seen[key] == before + 1
            assert seen[("luck_table_link_up", (("device", "shoe"),))] == 1
            assert seen[("luck_table_ready", ())] == 1
            assert ("luck_table_floor_connected", ()) not in seen  # no floor configured
            build = [v for (name, _), v in seen.items() if name == "luck_table_build_info"]
            assert build == [1]

    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(shoe), 240))


def logged(log_format: str) -> str:
    program = (
        "import logging; from controller.cli.common import log_to_stderr; "
        f"log_to_stderr('info', {log_format!r}); "
        "logging.getLogger('controller.service').warning('the shoe link is down: %s', 'x')"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=True
    )
    return done.stderr


def test_log_lines_carry_their_time_as_text_or_json() -> None:
    text = logged("text")
    stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"
    assert re.fullmatch(rf"{stamp} WARNING controller\.service: the shoe link is down: x\n", text)
    line = json.loads(logged("json"))
    assert re.fullmatch(stamp, line.pop("time"))
    assert line == {
        "level": "WARNING",
        "logger": "controller.service",
        "message": "the shoe link is down: x",
    }
