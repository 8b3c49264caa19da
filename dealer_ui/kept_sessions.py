"""The console's sessions kept across a restart of the table's service (docs/security.md,
"Sessions across a restart"): a restart is not a sign-out.

The file is ``JOURNAL.sessions.json`` beside the journal (mode 0600), written whole (a
temporary file, fsync, rename) by one writer task whenever the dealers' or surveillance's
sessions change (``Auth.on_change``: a sign-in, a sign-out, a session in use at most once a
minute) and when the service stops. It holds the table's id, the run's epoch and
``Auth.kept()``: each token's SHA-256 digest, never the token, with its role, who, expiry
and last use by the wall clock.

The epoch is a random name of one run of the service, journaled as an access record
(``sessions_epoch``) as the run begins. At the next start the file's sessions are taken
back only if the file is this table's and its epoch is the last one the journal holds
(within a session's lifetime): a journal restored from a backup (its last epoch is an
earlier run's), a file of another table, or a file the journal does not end with revives
nothing. What is not expired nor idle by then is taken back (``Auth.restore``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
from pathlib import Path
from typing import Any, TypedDict

from controller.service import TableService
from dealer_ui.access import SessionsEpoch
from dealer_ui.auth import Auth, KeptSessionJson

log = logging.getLogger(__name__)

#: The access record naming each run's epoch.
EPOCH = "sessions_epoch"


class KeptSessionsJson(TypedDict):
    """The file of the sessions kept: the table's id, the run's epoch, the sessions."""

    table: str
    epoch: str
    sessions: list[KeptSessionJson]


def sessions_path(journal: Path) -> Path:
    """Where the sessions of the table with ``journal`` are kept."""
    return journal.with_name(journal.name + ".sessions.json")


class KeptSessions:
    """The sessions of ``auth`` kept in ``path`` for table ``table_id``."""

    def __init__(self, path: Path, table_id: str, auth: Auth) -> None:
        self.path, self.table_id, self.auth = path, table_id, auth
        self.epoch = secrets.token_hex(8)
        self._dirty = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self, service: TableService) -> int:
        """Take back the last run's sessions if the file is theirs, journal this run's
        epoch, and keep the sessions from now on: how many were taken back."""
        since = service.now() - self.auth.session_seconds
        epochs = await service.access_records((EPOCH,), since)
        last = epochs[-1].fields.get("epoch") if epochs else None
        kept = await asyncio.to_thread(_read, self.path)
        taken = 0
        if last is not None and kept.get("table") == self.table_id and kept.get("epoch") == last:
            try:
                taken = self.auth.restore(kept.get("sessions", []))
            except (KeyError, TypeError, ValueError) as error:
                log.warning("the kept sessions in %s are not read: %r", self.path, error)
        elif kept:
            log.info("the sessions in %s are not this journal's last run's: none kept", self.path)
        epoch: SessionsEpoch = {"epoch": self.epoch}
        await service.record_access(EPOCH, epoch)
        self.auth.on_change = self._dirty.set
        await self._write()
        self._task = asyncio.create_task(self._keep())
        return taken

    async def stop(self) -> None:
        """Keep the sessions as they are now (their last use) and stop keeping them."""
        if self._task is None:
            return
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._task = None
        self.auth.on_change = None
        await self._write()

    async def _keep(self) -> None:
        while True:
            await self._dirty.wait()
            self._dirty.clear()
            await self._write()

    async def _write(self) -> None:
        data: KeptSessionsJson = {
            "table": self.table_id,
            "epoch": self.epoch,
            "sessions": self.auth.kept(),
        }
        try:
            await asyncio.to_thread(_write, self.path, data)
        except OSError as error:  # the sessions are not kept: a restart signs them out
            log.error("cannot keep the sessions in %s: %s", self.path, error)


def _read(path: Path) -> dict[str, Any]:  # as the file holds it: checked as it is read
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        log.warning("the kept sessions in %s are not read: %s", path, error)
        return {}
    return data if isinstance(data, dict) else {}


def _write(path: Path, data: KeptSessionsJson) -> None:
    temporary = path.with_name(path.name + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        json.dump(data, out)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, path)
