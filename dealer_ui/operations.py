"""What operations ask of a running table, beside the console: ``GET /health`` (the process
answers), ``GET /ready`` (the devices, the journal and the floor shipping are as they should
be; 503 naming what is not) and ``GET /metrics`` (Prometheus' text format, from the
``prometheus_client`` library). None needs a session and none shows a card: a monitoring
system or a load balancer asks them. ``/metrics`` (which alerts are open: a cheat caught, a
sign-in attack) and ``/health``'s details (the table, its journal position, the version)
answer only the addresses in ``[api] operations_from`` and the bearer tokens whose SHA-256
digests are ``[api] operations_tokens``: anyone else gets 403, and ``/health`` only
``{"alive": true}``. Names and meanings: docs/operations.md.
"""

from __future__ import annotations

import shutil
import time
from collections import Counter
from collections.abc import Iterable
from enum import StrEnum
from typing import Any, NotRequired, TypedDict

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse, PlainTextResponse
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, InfoMetricFamily, Metric
from prometheus_client.registry import Collector

from controller.service import TableService
from controller.table import AlertKind, device_words
from controller.version import commit, version
from dealer_ui.auth import Denied, in_networks
from dealer_ui.studio import digest
from dealer_ui.web import client_of, error_body
from drivers.protocol import DeviceKind

#: Below this much free space on the journal's disk the table is not ready (bytes).
LOW_DISK = 100 * 1024 * 1024


def _devices(service: TableService) -> list[DeviceKind]:
    """The devices the table's configuration has."""
    config = service.config
    return [DeviceKind.SHOE] + ([DeviceKind.SEAT_BOARD] if config.seat_board is not None else [])


def _free_disk(service: TableService) -> int:
    return shutil.disk_usage(service.config.journal.parent).free


class NotReady(StrEnum):
    """Why the table is not ready, as data (``GET /ready``'s ``reasons``: docs/api.md)."""

    JOURNAL_CLOSED = "journal_closed"  # the journal is not open yet (recovery under way)
    DISK_LOW = "disk_low"  # the journal's disk has less than LOW_DISK free
    DEVICE_MISSING = "device_missing"  # a configured device is not connected
    NOT_SHIPPING = "not_shipping"  # a floor is configured and the journal is not shipping


class ReadyReason(TypedDict):
    """One thing that keeps the table from being ready: its code, the device it names (for
    ``device_missing``), and the words for people."""

    code: NotReady
    device: NotRequired[DeviceKind]
    words: str


def not_ready(service: TableService) -> list[ReadyReason]:
    """What keeps the table from being ready (none: ready)."""
    reasons: list[ReadyReason] = []
    if service.recovered is None:
        reasons.append({"code": NotReady.JOURNAL_CLOSED, "words": "the journal is not open yet"})
    else:
        free = _free_disk(service)
        if free < LOW_DISK:
            where = service.config.journal.parent
            words = f"the journal's disk is nearly full: {free // 2**20} MB free at {where}"
            reasons.append({"code": NotReady.DISK_LOW, "words": words})
    links = set(service.table.links)
    reasons += [
        {
            "code": NotReady.DEVICE_MISSING,
            "device": device,
            "words": f"the {device_words(device)} is not connected",
        }
        for device in _devices(service)
        if device not in links
    ]
    shipper = service.shipper
    if service.config.floor is not None and (shipper is None or not shipper.connected):
        words = "the journal is not shipping to the floor (the floor is not reachable)"
        reasons.append({"code": NotReady.NOT_SHIPPING, "words": words})
    return reasons


class TableCollector(Collector):
    """The table's gauges, read from the service at each scrape."""

    def __init__(self, service: TableService) -> None:
        self.service = service

    def collect(self) -> Iterable[Metric]:
        service, table = self.service, self.service.table
        info = InfoMetricFamily("luck_table_build", "The software's version and commit")
        info.add_metric([], {"version": version().split(" ")[0], "commit": commit() or ""})
        yield info
        yield GaugeMetricFamily(
            "luck_table_journal_position",
            "The journal's last position (inputs journaled)",
            value=service.position,
        )
        yield GaugeMetricFamily(
            "luck_table_hand_number", "The table's hand number", value=table.hand_number
        )
        links = GaugeMetricFamily(
            "luck_table_link_up", "1 while the device's link is up", labels=["device"]
        )
        for device in _devices(service):
            links.add_metric([device.value], 1 if device in table.links else 0)
        yield links
        alerts = GaugeMetricFamily(
            "luck_table_open_alerts", "Alerts open at the table, by kind", labels=["kind"]
        )
        counted = Counter(alert.kind for alert in table.alerts)
        for kind in AlertKind:
            alerts.add_metric([kind.value], counted[kind])
        yield alerts
        yield GaugeMetricFamily(
            "luck_table_ready", "1 when GET /ready says ready", value=0 if not_ready(service) else 1
        )
        yield GaugeMetricFamily(
            "luck_table_disk_free_bytes",
            "Free space on the journal's disk",
            value=_free_disk(service),
        )
        shipper = service.shipper
        if shipper is not None:
            yield GaugeMetricFamily(
                "luck_table_floor_connected",
                "1 while the journal ships to the floor",
                value=1 if shipper.connected else 0,
            )
            yield GaugeMetricFamily(
                "luck_table_floor_position",
                "The last journal position the floor confirmed",
                value=shipper.confirmed,
            )
            yield GaugeMetricFamily(
                "luck_table_floor_lag_entries",
                "Journal entries the floor does not have yet",
                value=max(0, service.position - shipper.confirmed),
            )
            yield GaugeMetricFamily(
                "luck_table_floor_outage_seconds",
                "How long shipping to the floor has not worked (0 while it works)",
                value=shipper.outage_seconds(time.monotonic()),
            )


def router(service: TableService) -> APIRouter:
    """``/health``, ``/ready`` and ``/metrics`` for ``service``."""
    routes = APIRouter(tags=["operations"])
    registry = CollectorRegistry()
    registry.register(TableCollector(service))

    api = service.config.api

    def named(request: Request) -> bool:
        """The caller is one the configuration names for the operations' details."""
        if in_networks(client_of(request), api.operations_from):
            return True
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        return scheme.lower() == "bearer" and digest(token) in api.operations_tokens

    @routes.get("/health")
    async def health(request: Request) -> dict[str, Any]:
        """The process answers (a liveness probe): 200 whenever it runs; the table, its
        journal position and the version only to those ``[api] operations_from`` and
        ``operations_tokens`` name."""
        if not named(request):
            return {"alive": True}
        return {
            "alive": True,
            "table": service.config.table_id,
            "position": service.position,
            "version": version(),
        }

    @routes.get("/ready", responses={503: {"description": "not ready: what is not"}})
    async def ready() -> JSONResponse:
        """The devices connected, the journal open with room on its disk, and the floor
        shipping (when configured): 200, else 503 with what is not."""
        reasons = not_ready(service)
        body = {
            "ready": not reasons,
            "table": service.config.table_id,
            "not_ready": [reason["words"] for reason in reasons],
            "reasons": reasons,
        }
        return JSONResponse(body, status_code=503 if reasons else 200)

    @routes.get(
        "/metrics",
        response_class=PlainTextResponse,
        responses={403: {"description": "not an address or token named"}},
    )
    async def metrics(request: Request) -> Response:
        """Prometheus' text format: the table's gauges and the service's histograms (only
        to those ``[api] operations_from`` and ``operations_tokens`` name)."""
        if not named(request):
            reason = "/metrics: not an address or token the configuration names (operations_from)"
            return JSONResponse(error_body("forbidden", reason, Denied.NOT_OPERATIONS), 403)
        text = generate_latest(registry) + generate_latest(REGISTRY)
        return Response(text, media_type=CONTENT_TYPE_LATEST)

    return routes
