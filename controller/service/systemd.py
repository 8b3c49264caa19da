"""The service's side of systemd's ``Type=notify``: ``READY=1`` once the table is open and
its console listens, ``STATUS=`` lines, ``EXTEND_TIMEOUT_USEC=`` while a start waits
for the journal's disk, ``WATCHDOG=1`` from the event loop at half the
unit's ``WatchdogSec=`` (a loop that stops turning stops the pings, and systemd restarts
the service), ``STOPPING=1`` on the way out.

The protocol is one datagram per message to the Unix socket named by ``$NOTIFY_SOCKET``
(``@name``: an abstract socket); without it (not under systemd) every call does nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket

log = logging.getLogger(__name__)


class Notifier:
    """systemd's notification socket, from the environment (or ``address``)."""

    def __init__(self, environ: dict[str, str] | None = None) -> None:
        environ = dict(os.environ) if environ is None else environ
        address = environ.get("NOTIFY_SOCKET", "")
        self.address = "\0" + address[1:] if address.startswith("@") else address
        self.watchdog = _watchdog_seconds(environ)

    @property
    def active(self) -> bool:
        return bool(self.address)

    def send(self, *lines: str) -> None:
        """One notification (``KEY=value`` lines); a failure is logged, never raised: the
        table deals on."""
        if not self.address:
            return
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as notify:
            try:
                notify.sendto("\n".join(lines).encode(), self.address)
            except OSError as error:
                log.warning("cannot notify systemd at %s: %s", self.address, error)

    def ready(self, status: str) -> None:
        self.send("READY=1", f"STATUS={status}")

    def status(self, status: str) -> None:
        self.send(f"STATUS={status}")

    def waiting(self, status: str, seconds: float) -> None:
        """Still starting, for ``seconds`` more at least (the start's timeout is extended by
        that much): ``EXTEND_TIMEOUT_USEC=`` with why, in ``STATUS=``."""
        self.send(f"EXTEND_TIMEOUT_USEC={round(seconds * 1_000_000)}", f"STATUS={status}")

    def stopping(self) -> None:
        self.send("STOPPING=1", "STATUS=stopping")

    async def keep_alive(self) -> None:
        """``WATCHDOG=1`` at half the watchdog's time, for as long as the loop turns (until
        cancelled); nothing when the unit has no watchdog."""
        if self.watchdog is None:
            return
        while True:
            self.send("WATCHDOG=1")
            await asyncio.sleep(self.watchdog / 2)


def _watchdog_seconds(environ: dict[str, str]) -> float | None:
    """The unit's watchdog time for this process (``WATCHDOG_USEC``, when ``WATCHDOG_PID``
    is unset or this process)."""
    with contextlib.suppress(ValueError):
        usec = int(environ.get("WATCHDOG_USEC", "0"))
        pid = environ.get("WATCHDOG_PID")
        if usec > 0 and (pid is None or int(pid) == os.getpid()):
            return usec / 1_000_000
    return None
