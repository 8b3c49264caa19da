"""Sessions outlive a restart of the table's service, safely: only a digest of each token is
kept, with its expiry and last use; an expired, idle or signed-out session is not taken back;
and a journal restored from a backup (or the file of another run) revives nothing
(``dealer_ui.kept_sessions``). The restart of the real service process, with the page kept
signed in, is in ``tests/test_console_process.py``.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from controller.config_file import Credential
from dealer_ui.auth import Auth, AuthError, digest_of
from dealer_ui.kept_sessions import sessions_path
from tests.console_kit import DEALER, live_table
from tests.service_kit import simulator

pytestmark = pytest.mark.slow  # a live table


class Clocks:
    def __init__(self) -> None:
        self.mono, self.wall = 100.0, 1_800_000_000.0

    def pass_(self, seconds: float) -> None:
        self.mono += seconds
        self.wall += seconds


def auth(clocks: Clocks) -> Auth:
    return Auth(
        [Credential(DEALER["id"], "-")],
        [],
        clock=lambda: clocks.mono,
        wall=lambda: clocks.wall,
        verify=lambda _hash, pin: pin == DEALER["pin"],
        checker=lambda: ThreadPoolExecutor(1),
        idle_seconds=1800,
    )


def test_a_session_kept_is_a_digest_taken_back_while_it_holds() -> None:
    async def scenario() -> None:
        clocks = Clocks()
        first = auth(clocks)
        told: list[int] = []
        first.on_change = lambda: told.append(1)
        session = await first.sign_in("dealer", DEALER["id"], DEALER["pin"], "127.0.0.1")
        assert told  # a sign-in is kept at once
        player = first.player_session(3, 1)
        kept = first.kept()
        assert session.token not in json.dumps(kept) and player.token not in json.dumps(kept)
        assert [(k["digest"], k["role"], k["who"]) for k in kept] == [
            (digest_of(session.token), "dealer", DEALER["id"])
        ]

        clocks.pass_(600)  # the restart: another process, another monotonic clock
        clocks.mono = 5.0
        second = auth(clocks)
        assert second.restore(kept) == 1
        with pytest.raises(AuthError):
            second.session(player.token)  # a player's token is the dealer's to make again
        with pytest.raises(AuthError):
            second.session("not-a-token")
        taken = second.session(session.token)
        assert taken is not None and (taken.role, taken.who) == ("dealer", DEALER["id"])
        assert taken.expires == pytest.approx(5.0 + 8 * 3600 - 600)
        second.sign_out(session.token)
        assert second.kept() == []

        # expired, or idle longer than the table allows, by the wall clock: not taken back
        clocks.pass_(8 * 3600)
        assert auth(clocks).restore(kept) == 0
        idle = [{**kept[0], "used": clocks.wall - 1800}]
        assert auth(clocks).restore(idle) == 0
        # a restored session not used yet ends with a dealer push or a sign-out too
        third = auth(clocks)
        third.restore([{**kept[0], "expires": clocks.wall + 60, "used": clocks.wall}])
        assert third.end_dealers(but="D999") == 1 and third.kept() == []

    asyncio.run(scenario())


def test_a_restart_keeps_the_sessions_and_a_restored_backup_revives_none(tmp_path: Path) -> None:
    async def run(shoe: Any, *tokens: str) -> tuple[list[int], str]:
        """A run of the service: the status of each of ``tokens`` there, and a new dealer
        token."""
        async with live_table(tmp_path, shoe) as live:
            statuses = []
            for token in tokens:
                headers = {"Authorization": f"Bearer {token}"}
                statuses.append((await live.http.get("/api/view", headers=headers)).status_code)
            return statuses, live.dealer["Authorization"].partition(" ")[2]

    async def scenario(shoe: Any) -> None:
        _, first = await run(shoe)
        journal = tmp_path / "table.sqlite"
        backup = tmp_path / "backup.sqlite"
        shutil.copy(journal, backup)  # the service stopped: the journal is whole
        kept = sessions_path(journal).read_text(encoding="utf-8")
        assert first not in kept and digest_of(first) in kept
        assert sessions_path(journal).stat().st_mode & 0o077 == 0

        statuses, second = await run(shoe, first)
        assert statuses == [200]  # a restart is not a sign-out

        # the backup restored: its last run is the first, the file is the second's
        shutil.copy(backup, journal)
        for extra in ("-wal", "-shm"):
            journal.with_name(journal.name + extra).unlink(missing_ok=True)
        assert digest_of(second) in sessions_path(journal).read_text(encoding="utf-8")
        statuses, _ = await run(shoe, first, second)
        assert statuses == [401, 401]

    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(shoe), 300))
