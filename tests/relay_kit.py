"""A broadcast relay (`luck-table relay`) as a process of its own, for tests and benches."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from types import TracebackType

# top-level, not tests.waiting: bench/feeds.py imports this kit with tests/ on its path
from waiting import wait_until

LUCK_TABLE = Path(sys.executable).with_name("luck-table")
TIMEOUT = 30.0
_URL = re.compile(r" at (wss?://\S+)/ws")


class RelayProcess:
    """``luck-table relay --source SOURCE --port 0`` and more ``options``; ``url`` is where
    it serves (``ws://host:port``) once started; its log is ``log``."""

    def __init__(self, source: str, *options: str) -> None:
        self._argv = [str(LUCK_TABLE), "relay", "--source", source, "--port", "0", *options]
        self._folder = tempfile.TemporaryDirectory(prefix="relay-")
        self.log = Path(self._folder.name) / "relay.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""

    def __enter__(self) -> RelayProcess:
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(self._argv, stdout=out, stderr=subprocess.STDOUT)
        process = self.process

        def started() -> str:
            """The relay's address once it has printed it, else ""."""
            if process.poll() is not None:
                raise AssertionError(f"luck-table relay stopped:\n{self.output()}")
            found = _URL.search(self.output())
            return found.group(1) if found else ""

        try:
            self.url = wait_until(
                started, "luck-table relay starts", TIMEOUT, poll=0.05, detail=self.output
            )
        except AssertionError:
            self.stop()
            raise
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()
        self._folder.cleanup()

    @property
    def http(self) -> str:
        """The relay's address for plain HTTP requests (pages, /health)."""
        return self.url.replace("ws", "http", 1)

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> int | None:
        """SIGTERM, then SIGKILL after a while; the exit status."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode
