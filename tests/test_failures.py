"""Failures that must be safe and clear: a configuration that is not UTF-8, an address the
console cannot listen at, the example configuration's published PINs, a journal on a full
disk, and a backup on read-only media or without permission (docs/operations.md).

The full disk and the read-only media are real: a tmpfs of its own, filled to the last
byte or remounted read-only (as root; without root the tests that need a mount are
skipped, and a folder without write permission stands for read-only media)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets.sync.client

from controller.config import load_config
from controller.config_file import EXAMPLE_PIN_HASHES, EXAMPLE_PINS_ENV, ConfigError
from controller.journal import Journal, JournalError
from controller.service import Halted, TableService
from dealer_ui import create_app
from dealer_ui.auth import hash_pin, verify_pin
from dealer_ui.codes import Declined
from dealer_ui.pit.config import load_floor_config
from tests.console_kit import Script, live_table
from tests.service_kit import config, simulator, write_config
from tests.waiting import async_wait_until, wait_until

pytestmark = pytest.mark.slow  # processes

LUCK_TABLE = str(Path(sys.executable).parent / "luck-table")
DEPLOY = Path(__file__).resolve().parent.parent / "deploy"
TIMEOUT = 60.0
DEALER = {"role": "dealer", "id": "D200", "pin": "567890"}
ROOT = os.geteuid() == 0


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LUCK_TABLE, *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
        env=None if env is None else {**os.environ, **env},
    )


def one_line(result: subprocess.CompletedProcess[str], command: str) -> str:
    """The one line of standard error, in the commands' error format."""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"luck-table {command}: error: "), result.stderr
    return lines[0]


def table_config(folder: Path, api: str = "port = 0") -> Path:
    """A table without devices (the shoe's port does not exist), its journal in
    ``folder``, its console at ``[api]`` ``api``."""
    path = write_config(folder, str(folder / "no-shoe"))
    path.write_text(path.read_text() + f"\n[api]\n{api}\n")
    return path


# --- the configuration ----------------------------------------------------------------------


@pytest.mark.parametrize("command", ["serve", "floor"])
def test_a_configuration_that_is_not_utf8_is_one_line_naming_the_byte_and_status_2(
    tmp_path, command
):
    text = table_config(tmp_path).read_bytes()
    offset = text.index(b"[stakes]")
    path = tmp_path / "latin1.toml"
    path.write_bytes(text[:offset] + b"# Ma\xefre's table\n" + text[offset:])
    result = run(command, "--config", str(path))
    assert result.returncode == 2, result.stderr
    line = one_line(result, command)
    assert str(path) in line
    assert f"is not UTF-8 text (byte 0xef at offset {offset + 4})" in line
    assert not (tmp_path / "table.sqlite").exists()


@contextlib.contextmanager
def port_in_use() -> Iterator[int]:
    """A port another program listens at."""
    with socket.create_server(("127.0.0.1", 0)) as other:
        yield other.getsockname()[1]


@pytest.mark.parametrize(
    ("api", "said"),
    [
        ('bind = "999.1.1.1"', "api.bind = '999.1.1.1': an IP address or a host name"),
        ('bind = "192.0.2.1"\nport = 0', "api.bind = '192.0.2.1', api.port = 0: cannot listen"),
        ('bind = "no-such-host.invalid"', "api.bind = 'no-such-host.invalid', api.port = 8080"),
        ("port = IN_USE", "api.port = IN_USE: cannot listen there (Address already in use)"),
    ],
)
def test_an_address_the_console_cannot_listen_at_is_refused_before_the_journal(tmp_path, api, said):
    with port_in_use() as busy:
        path = table_config(tmp_path, api.replace("IN_USE", str(busy)))
        result = run("serve", "--config", str(path))
    assert result.returncode == 2, result.stderr
    line = one_line(result, "serve")
    assert said.replace("IN_USE", str(busy)) in line
    assert str(path) in line
    assert not (tmp_path / "table.sqlite").exists()  # nothing touched: no journal, no device


def test_the_floor_service_refuses_an_address_it_cannot_listen_at_with_status_2(tmp_path):
    path = tmp_path / "floor.toml"
    text = (DEPLOY / "floor.example.toml").read_text()
    text = text.replace('bind = "0.0.0.0"', 'bind = "192.0.2.1"')
    for published in EXAMPLE_PIN_HASHES:
        text = text.replace(published, hash_pin("246802"))
    path.write_text(text)
    result = run("floor", "--config", str(path))
    assert result.returncode == 2, result.stderr
    assert "api.bind = '192.0.2.1', api.port = 8090: cannot listen there" in one_line(
        result, "floor"
    )


def _published() -> set[str]:
    found = set()
    for example in DEPLOY.glob("*.example.toml"):
        credentials = tomllib.loads(example.read_text())["credentials"]
        for people in credentials.values():
            found.update(person["pin_hash"] for person in people)
    return found


def test_every_pin_hash_an_example_publishes_is_known_as_published():
    assert _published() and _published() <= set(EXAMPLE_PIN_HASHES)


def test_the_example_configurations_published_pins_are_refused(tmp_path, monkeypatch):
    monkeypatch.delenv(EXAMPLE_PINS_ENV, raising=False)
    with pytest.raises(ConfigError) as table:
        load_config(DEPLOY / "table.example.toml")
    assert table.value.key == "credentials.supervisors[0].pin_hash"
    assert "the example configuration's published hash (PIN 123456)" in str(table.value)
    assert "luck-table hash-pin" in str(table.value)
    with pytest.raises(ConfigError) as floor:
        load_floor_config(DEPLOY / "floor.example.toml")
    assert floor.value.key == "credentials.supervisors[0].pin_hash"
    path = table_config(tmp_path)
    example = (DEPLOY / "table.example.toml").read_text()
    dealers = example[example.index("[[credentials.dealers]]") :]
    text = path.read_text()
    path.write_text(text[: text.index("[[credentials.dealers]]")] + dealers + "\n[api]\nport = 0\n")
    result = run("serve", "--config", str(path))
    assert result.returncode == 2
    assert "credentials.dealers[0].pin_hash = " in one_line(result, "serve")
    assert "(PIN 567890)" in result.stderr
    assert not (tmp_path / "table.sqlite").exists()
    monkeypatch.setenv(EXAMPLE_PINS_ENV, "accept")  # a demonstration, a test: with a warning
    assert verify_pin(load_config(DEPLOY / "table.example.toml").dealers[0].pin_hash, "567890")
    floor = load_floor_config(DEPLOY / "floor.example.toml")
    assert verify_pin(floor.supervisors[0].pin_hash, "999999")


# --- a full disk ----------------------------------------------------------------------------


@contextlib.contextmanager
def tmpfs(folder: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``folder`` (root only: skipped otherwise)."""
    folder.mkdir()
    if not ROOT or shutil.which("mount") is None:
        pytest.skip("mounting a small filesystem needs root")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True)


def fill(folder: Path) -> None:
    """Fill the filesystem of ``folder`` to its last byte."""
    with (folder / "filler").open("wb", buffering=0) as filler:
        for chunk in (65536, 4096, 512, 1):
            with contextlib.suppress(OSError):
                while True:
                    filler.write(b"\0" * chunk)


_URL = re.compile(r"the console is at (https?://\S+)")


@contextlib.contextmanager
def serving(config: Path, log: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``luck-table serve`` on ``config`` (its standard error in ``log``) and its URL."""
    with log.open("w") as out:
        process = subprocess.Popen(
            [LUCK_TABLE, "serve", "--config", str(config)], stderr=out, text=True
        )
    try:

        def started() -> re.Match[str] | None:
            assert process.poll() is None, log.read_text()
            return _URL.search(log.read_text())

        found = wait_until(started, "the console's URL", TIMEOUT, poll=0.05, detail=log.read_text)
        yield process, found.group(1)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=TIMEOUT)


def _signed_in(url: str) -> dict[str, str]:
    answer = httpx.post(f"{url}/api/sessions", json=DEALER, timeout=TIMEOUT)
    assert answer.status_code == 200, answer.text
    return {"Authorization": f"Bearer {answer.json()['token']}"}


def _answer(request: object) -> int | None:
    """The status of a request, None when the service is gone already."""
    try:
        return request().status_code  # type: ignore[operator]
    except httpx.TransportError:
        return None


def _until(check: Callable[[], object], what: str) -> Any:
    """Wait for ``check()`` to be true (its value), up to TIMEOUT."""
    return wait_until(check, what, TIMEOUT, poll=0.05)


FULL = "database or disk is full: the table stopped dealing until its journal can be written"


@pytest.mark.parametrize("first", ["a failed sign-in", "a player sits down"])
def test_a_full_disk_stops_the_dealing_keeps_the_console_and_deals_on_once_freed(tmp_path, first):
    """The journal's disk fills up: every request of the console answers 503 with the
    reason (the console stays up), the screens are told (a blocking alert), nobody signs
    in; the service waits for space, and once it is freed the table deals on by itself,
    nothing lost."""
    disk = tmpfs(tmp_path / "disk", "2m")
    with disk as folder:
        config = table_config(folder)
        with serving(config, tmp_path / "serve.log") as (process, url):
            headers = _signed_in(url)
            token = headers["Authorization"].split()[1]
            with Journal.open_read_only(folder / "table.sqlite") as journal:
                before = [entry.type for entry in journal.entries()]
            ws_url = url.replace("http", "ws", 1) + f"/ws?token={token}"
            with websockets.sync.client.connect(ws_url) as feed:
                assert json.loads(feed.recv(TIMEOUT))["type"] == "snapshot"
                fill(folder)
                if first == "a failed sign-in":
                    wrong = {**DEALER, "pin": "0000"}
                    answer = httpx.post(f"{url}/api/sessions", json=wrong, timeout=TIMEOUT)
                else:
                    body = {"seat": 1, "player": "Aoife", "buy_in": 200}
                    answer = httpx.post(
                        f"{url}/api/seats", json=body, headers=headers, timeout=TIMEOUT
                    )
                assert answer.status_code == 503, answer.text
                assert answer.json()["error"] == "unavailable"
                assert answer.json()["code"] == Halted.JOURNAL_FAULT
                assert FULL in answer.json()["reason"]
                told = json.loads(feed.recv(TIMEOUT))  # the screens' blocking alert
                assert told["type"] == "journal" and FULL in told["reason"]
                right = httpx.post(f"{url}/api/sessions", json=DEALER, timeout=TIMEOUT)
                assert right.status_code == 503  # nobody signs in: no attempt is journaled
                assert right.json()["code"] == Halted.JOURNAL_FAULT
                view = httpx.get(f"{url}/api/view", headers=headers, timeout=TIMEOUT)
                assert view.status_code == 503 and view.json()["code"] == Halted.JOURNAL_FAULT
                assert process.poll() is None  # it waits for space
                (folder / "filler").unlink()
                cleared = json.loads(feed.recv(TIMEOUT))
                assert cleared == {"type": "journal", "epoch": told["epoch"], "reason": None}

            def seated() -> bool:
                body = {"seat": 1, "player": "Aoife", "buy_in": 200}
                answer = httpx.post(f"{url}/api/seats", json=body, headers=headers, timeout=TIMEOUT)
                return answer.status_code == 200

            _until(seated, "the table deals on once the disk has space")
            with Journal.open_read_only(folder / "table.sqlite") as journal:
                after = list(journal.entries())
            assert [entry.type for entry in after[: len(before)]] == before  # nothing lost
            faults = [entry for entry in after if entry.type == "journal_fault"]
            assert len(faults) == 1 and "disk is full" in faults[0].fields["error"]
            assert faults[0].fields["seconds"] > 0
            assert after[-1].type == "sit_down"
            process.terminate()
            assert process.wait(timeout=TIMEOUT) == 0
        errors = (tmp_path / "serve.log").read_text()
        assert "Traceback" not in errors, errors
        assert errors.count(FULL) == 1, errors  # said once, not at every try
        assert "the journal is written again after" in errors


def test_a_start_on_a_full_disk_waits_for_space_then_opens(tmp_path):
    """Started with the journal's disk full, the service does not exit (no restart loop):
    it waits, says why once, its console's address answering 503 with why meanwhile, and
    opens the table once space is freed."""
    disk = tmpfs(tmp_path / "disk", "2m")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with disk as folder:
        config = table_config(folder, f'bind = "127.0.0.1"\nport = {port}')
        with serving(config, tmp_path / "first.log") as (process, url):
            _signed_in(url)
            process.terminate()
            assert process.wait(timeout=TIMEOUT) == 0
        fill(folder)
        log = tmp_path / "serve.log"
        with log.open("w") as out:
            waiting = subprocess.Popen(
                [LUCK_TABLE, "serve", "--config", str(config)], stderr=out, text=True
            )
        try:
            _until(lambda: "the table waits for its journal" in log.read_text(), "the wait")
            assert waiting.poll() is None, log.read_text()
            url = f"http://127.0.0.1:{port}"
            answer = _until(lambda: _answer(lambda: httpx.get(f"{url}/api/view")), "503")
            assert answer == 503
            said = httpx.post(f"{url}/api/sessions", json=DEALER, timeout=TIMEOUT)
            assert said.status_code == 503 and said.json()["code"] == Declined.JOURNAL_WAITS
            assert "cannot open journal" in said.json()["reason"]
            assert "the table waits for its journal" in said.json()["reason"]
            (folder / "filler").unlink()
            found = _until(lambda: _URL.search(log.read_text()), "the console, once freed")
            _signed_in(found.group(1))
        finally:
            waiting.terminate()
            assert waiting.wait(timeout=TIMEOUT) == 0
        assert "Traceback" not in log.read_text()


def test_a_journal_that_cannot_be_written_stops_the_dealing_until_it_can(tmp_path, monkeypatch):
    """The same in this process, the write failing as SQLite fails on a full disk (for
    machines where no filesystem can be mounted): 503 with the reason while it lasts, then
    the table takes input again, by itself."""
    settings = config(tmp_path, str(tmp_path / "no-shoe"))
    append = Journal.append

    def full(journal: Journal, _: object) -> list[int | None]:
        raise JournalError(f"cannot write journal {journal.path}: database or disk is full")

    async def scenario() -> None:
        async with TableService(settings) as service:
            transport = httpx.ASGITransport(app=create_app(service))
            async with httpx.AsyncClient(transport=transport, base_url="http://table") as client:
                signed = await client.post("/api/sessions", json=DEALER)
                assert signed.status_code == 200
                headers = {"Authorization": f"Bearer {signed.json()['token']}"}
                monkeypatch.setattr(Journal, "append", full)
                wrong = await client.post("/api/sessions", json={**DEALER, "pin": "0000"})
                assert wrong.status_code == 503, wrong.text
                assert FULL in wrong.json()["reason"]
                right = await client.post("/api/sessions", json=DEALER)
                assert right.status_code == 503, right.text
                body = {"seat": 1, "player": "Aoife", "buy_in": 200}
                seated = await client.post("/api/seats", json=body, headers=headers)
                assert seated.status_code == 503, seated.text
                for answer in (wrong, right, seated):
                    assert answer.json()["code"] == Halted.JOURNAL_FAULT
                assert service.journal_fault is not None and FULL in service.journal_fault
                monkeypatch.setattr(Journal, "append", append)
                await async_wait_until(
                    lambda: service.journal_fault is None, "the journal fault cleared", TIMEOUT
                )
                seated = await client.post("/api/seats", json=body, headers=headers)
                assert seated.status_code == 200, seated.text
                assert service.halted is None

    asyncio.run(scenario())


# --- reading a journal: read-only media, permissions -----------------------------------------


@pytest.fixture(scope="module")
def dealt(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A journal of two hands (``luck-table sim``) and its history."""
    path = tmp_path_factory.mktemp("dealt") / "table.sqlite3"
    subprocess.run(
        [LUCK_TABLE, "sim", "--hands", "2", "--speed", "max", "--journal", str(path)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    history = run("history", "--journal", str(path))
    assert history.returncode == 0, history.stderr
    return path, history.stdout


class ReadOnlyMedia:
    """A folder to put files in, then made read-only: a tmpfs remounted read-only as root;
    otherwise a folder without write permission."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._mount = tmpfs(folder, "16m") if ROOT else None
        if self._mount is None:
            folder.mkdir()
        else:
            self._mount.__enter__()

    def seal(self) -> None:
        if self._mount is None:
            self.folder.chmod(0o555)
        else:
            subprocess.run(["mount", "-o", "remount,ro", str(self.folder)], check=True)

    def close(self) -> None:
        if self._mount is None:
            self.folder.chmod(0o755)
        else:
            self._mount.__exit__(None, None, None)


@pytest.fixture
def media(tmp_path: Path) -> Iterator[ReadOnlyMedia]:
    made = ReadOnlyMedia(tmp_path / "media")
    try:
        yield made
    finally:
        made.close()


def test_history_checks_a_backup_on_read_only_media(media, dealt):
    journal, history = dealt
    backup = media.folder / "backup.sqlite3"
    live, copy = sqlite3.connect(journal), sqlite3.connect(backup)
    live.backup(copy)  # as docs/operations.md backs a journal up
    live.close()
    copy.close()
    media.seal()
    result = run("history", "--journal", str(backup))
    assert result.returncode == 0, result.stderr
    assert result.stdout == history
    assert run("history", "--journal", str(backup), "--hand", "2").returncode == 0
    assert sorted(os.listdir(media.folder)) == ["backup.sqlite3"]  # nothing made beside it


def test_a_copy_whose_log_cannot_be_read_there_says_so(media, dealt, tmp_path):
    journal, _ = dealt
    live = tmp_path / "live.sqlite3"
    shutil.copy(journal, live)
    writer = sqlite3.connect(live, isolation_level=None)  # a service that writes on
    try:
        writer.execute("PRAGMA wal_autocheckpoint = 0")
        writer.execute(
            "INSERT INTO table_snapshots SELECT position + 1000000, hand_number, "
            "state FROM table_snapshots LIMIT 1"
        )
        for name in ("live.sqlite3", "live.sqlite3-wal"):  # copied without the service stopped
            shutil.copy(tmp_path / name, media.folder / name)
    finally:
        writer.close()
    media.seal()
    result = run("history", "--journal", str(media.folder / "live.sqlite3"))
    assert result.returncode == 2
    line = one_line(result, "history")
    assert f"error: {media.folder / 'live.sqlite3-wal'}: the journal's write-ahead log" in line
    assert "cannot be read on read-only media" in line
    assert "not a luck-table journal" not in line


def _as_reader() -> list[str]:
    """Run a command so that file permissions hold for it (root: without the capabilities
    that pass them over)."""
    if not ROOT:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv is needed to drop root's file capabilities")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"]


def test_history_without_permission_says_no_permission_and_the_path(tmp_path, dealt):
    journal, _ = dealt
    copy = tmp_path / "copy.sqlite3"
    shutil.copy(journal, copy)
    copy.chmod(0)
    result = subprocess.run(
        [*_as_reader(), LUCK_TABLE, "history", "--journal", str(copy)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert result.returncode == 2
    assert one_line(result, "history") == f"luck-table history: error: no permission to read {copy}"


def test_a_card_read_while_the_journal_cannot_be_written_is_dealt_once_it_can(
    tmp_path, monkeypatch
):
    """Mid-hand the journal takes no write: the card the shoe reads meanwhile is neither
    applied nor acknowledged, the screens are told; once the journal can be written it is
    journaled and dealt, nothing lost, and the hand goes on."""
    append = Journal.append

    def full(journal: Journal, _: object) -> list[int | None]:
        raise JournalError(f"cannot write journal {journal.path}: database or disk is full")

    async def scenario() -> None:
        async with live_table(tmp_path, shoe) as live:
            await live.seat_players()
            script = Script()
            await live.load(script.deck(live.service.table))
            (await live.post("/api/hands")).raise_for_status()
            await live.draw()
            before = live.service.position
            monkeypatch.setattr(Journal, "append", full)
            await live.shoe.command("draw")
            await live.until(lambda: live.service.journal_fault is not None, "the fault")
            assert live.service.position == before
            answer = await live.post("/api/decisions", {"seat": 1, "do": "fold"})
            assert answer.status_code == 503 and FULL in answer.json()["reason"]
            assert answer.json()["code"] == Halted.JOURNAL_FAULT
            monkeypatch.setattr(Journal, "append", append)
            await live.until(lambda: live.service.position > before, "the card, journaled")
            assert live.service.journal_fault is None
            hand = live.service.table.hand
            assert hand is not None and sum(len(p.cards) for p in hand.players) == 2
            await live.draw()  # the hand goes on
            assert sum(len(p.cards) for p in live.service.table.hand.players) == 3  # type: ignore[union-attr]

    with simulator("shoe") as shoe:
        asyncio.run(asyncio.wait_for(scenario(), 120))


def test_serve_check_checks_a_configuration_without_touching_the_journal_or_the_devices(
    tmp_path,
):
    """``luck-table serve --check``: 0 and ``ok`` for a good file; 1 naming each problem
    (every wrong value, each on its line; a journal folder that does not exist, an address
    not of this machine); no journal made, nothing started."""
    good = table_config(tmp_path)
    result = run("serve", "--check", "--config", str(good))
    assert (result.returncode, result.stdout) == (0, f"{good}: ok\n"), result.stderr
    assert not (tmp_path / "table.sqlite").exists()

    text = good.read_text()
    several = tmp_path / "several.toml"  # every wrong value, each on its line
    wrong = text.replace("max_buy_in = ", "max_buy_in = -").replace('name = "', 'nom = "', 1)
    several.write_text(wrong + '\ndocs = "yes"\n[console]\nidle_lock = 5\n')
    result = run("serve", "--check", "--config", str(several))
    lines = result.stderr.splitlines()
    assert result.returncode == 1 and len(lines) == 5, result.stderr
    for line, said in zip(
        lines,
        (
            "table.nom: unknown setting",
            "table.name = (missing): a non-empty string",
            "stakes.max_buy_in = -1000: a whole number, at least min_buy_in (100)",
            "api.docs = 'yes': true or false",
            "console.idle_lock = 5: a number of seconds, 10 to 3600",
        ),
        strict=True,
    ):
        assert line.startswith(f"luck-table serve: error: {several}: {said}"), line
    assert not (tmp_path / "table.sqlite").exists()

    elsewhere = tmp_path / "elsewhere.toml"
    journal = re.search(r'path = "([^"]*)"', text)
    assert journal is not None
    moved = text.replace(journal.group(0), 'path = "no-such-folder/table.sqlite"')
    elsewhere.write_text(moved.replace("port = 0", 'bind = "192.0.2.1"\nport = 0'))
    result = run("serve", "--check", "--config", str(elsewhere))
    lines = result.stderr.splitlines()
    assert result.returncode == 1 and len(lines) == 2, result.stderr
    assert "journal.path" in lines[0] and "does not exist" in lines[0]
    assert "api.bind = '192.0.2.1'" in lines[1] and "cannot listen there" in lines[1]
    assert not (tmp_path / "no-such-folder").exists()
