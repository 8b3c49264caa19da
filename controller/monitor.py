"""The device monitor: devices -> journal (commit, then acknowledge) -> a report per event.

:class:`Monitor` takes each configured device's events through an
:class:`~controller.intake.Intake`, the table service's own intake: it waits for an absent
device (retrying with backoff and saying so), writes the events waiting in one transaction
and only then acknowledges them to their device, so a crash at any moment loses nothing:
the devices still hold what was not committed and send it again to the next run, and the
journal drops what it already has by (device serial, boot id, seq). Without a journal each
event is acknowledged once reported.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from controller.config import DevicePort
from controller.intake import Arrival, Intake
from controller.journal import Journal, to_input
from controller.table import device_words
from drivers import events as ev
from drivers.errors import DriverError, HandshakeTimeout, PortNotFoundError
from drivers.protocol import DeviceKind


@dataclass(frozen=True, slots=True)
class Observed:
    """An event as the monitor took it: from which device, when, and where it was journaled.

    ``kind``: the device's kind; ``device`` its identity as of the last LinkUp before the
    event (None before the first); ``position`` its journal position; ``duplicate``: the
    journal already held it.
    """

    event: ev.Event
    kind: DeviceKind
    device: ev.DeviceId | None
    received_at: float
    position: int | None = None
    duplicate: bool = False


class Monitor:
    """Watch devices, journal their events (if ``journal``), and ``report`` each one.

    ``devices``: which device is on which port. ``notice`` receives messages for the
    operator (waiting for a device). :meth:`run` returns after :meth:`stop`; it raises the
    error of a device that stopped for good (wrong device, protocol version, a link that
    failed) or of the journal.
    """

    def __init__(
        self,
        devices: Sequence[tuple[DeviceKind, DevicePort]],
        report: Callable[[Observed], None],
        notice: Callable[[str], None],
        journal: Journal | None = None,
        usb_backend: object = None,
    ) -> None:
        self._intakes = [Intake(device, port, usb_backend=usb_backend) for device, port in devices]
        self._report = report
        self._notice = notice
        self._journal = journal
        self._lock = asyncio.Lock()  # one batch at a time in the journal
        self._stopping = asyncio.Event()

    def stop(self) -> None:
        """Stop after the batch in hand is journaled and acknowledged."""
        self._stopping.set()

    async def run(self) -> None:
        tasks = [
            asyncio.create_task(intake.run(self._record, self._absent(intake), self._stopping))
            for intake in self._intakes
        ]
        stopping = asyncio.create_task(self._stopping.wait())
        try:
            done, _ = await asyncio.wait([stopping, *tasks], return_when=asyncio.FIRST_COMPLETED)
            for task in done - {stopping}:
                task.result()  # a device that stopped for good: its error
        finally:
            async with self._lock:  # not in the middle of a batch
                for task in [stopping, *tasks]:
                    task.cancel()
            for task in [stopping, *tasks]:
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    def _absent(self, intake: Intake) -> Callable[[DriverError, float | None], Awaitable[None]]:
        async def absent(error: DriverError, retry: float | None) -> None:
            if retry is None or not isinstance(error, PortNotFoundError | HandshakeTimeout):
                raise error
            self._notice(
                f"waiting for the {device_words(intake.device)} on {intake.port.url}: {error}; "
                f"retry in {retry:g} s"
            )

        return absent

    async def _record(self, batch: Sequence[Arrival]) -> None:
        async with self._lock:
            if self._journal is None:
                positions: list[int | None] = [None] * len(batch)
            else:
                inputs = [to_input(item.event, item.source, item.received_at) for item in batch]
                positions = await asyncio.to_thread(self._journal.append, inputs)
            for item, position in zip(batch, positions, strict=True):
                duplicate = self._journal is not None and position is None
                self._report(
                    Observed(
                        item.event, item.device, item.source, item.received_at, position, duplicate
                    )
                )
