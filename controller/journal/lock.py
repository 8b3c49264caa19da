"""One writer per journal: an OS lock on a file beside the journal, held while it is written.

A process that writes a journal (the table service, the device monitor) takes an exclusive
``flock`` on ``JOURNAL.lock`` before it touches the journal and keeps it until it closes the
journal; the kernel drops it when the process ends, however it ends, so a lock is never
left behind. The holder writes its process id and command line into the lock file: a
second writer is refused with :class:`LockHeld`, naming them. Readers (``luck-table
history``, replay, the floor shipper) take no lock.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import time
from pathlib import Path

from luck_errors import LuckTableError


class LockHeld(LuckTableError):
    """Another process holds the lock: ``holder`` names it (process id and command)."""

    def __init__(self, holder: str, path: Path) -> None:
        super().__init__(f"{holder} holds {path}")
        self.holder = holder
        self.path = path


def lock_path(journal: str | Path) -> Path:
    """The lock file of the journal at ``journal``."""
    return Path(f"{journal}.lock")


def _command() -> str:
    """This process's command line, short: ``luck-table serve --config FILE`` (a Python
    script is named by its file's name, without the interpreter)."""
    try:
        raw = Path("/proc/self/cmdline").read_bytes().rstrip(b"\0").split(b"\0")
        words = [word.decode(errors="replace") for word in raw]
    except OSError:
        words = [sys.executable, *sys.argv]
    if len(words) > 1 and Path(words[0]).name.startswith("python") and words[1][:1] != "-":
        words = words[1:]  # the interpreter running a script
    return " ".join([Path(words[0]).name, *words[1:]])


class WriterLock:
    """The journal's writer lock, held from :meth:`take` until :meth:`release`."""

    def __init__(self, fd: int, path: Path) -> None:
        self._fd: int | None = fd
        self.path = path

    @classmethod
    def take(cls, journal: str | Path) -> WriterLock:
        """Lock the journal at ``journal`` for this process, or raise :class:`LockHeld`
        naming the process that holds it. Raises ``OSError`` when the lock file cannot be
        made (no such folder, no permission)."""
        path = lock_path(journal)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o640)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise LockHeld(holder, path) from None
        except BaseException:
            os.close(fd)
            raise
        try:
            note = {"pid": os.getpid(), "command": _command(), "since": time.time()}
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps(note).encode() + b"\n", 0)
        except BaseException:
            os.close(fd)
            raise
        return cls(fd, path)

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the only descriptor drops the lock
            self._fd = None


def holder(journal: str | Path) -> str | None:
    """Who holds the writer lock of the journal at ``journal`` now (None: nobody), without
    taking it or making any file."""
    try:
        fd = os.open(lock_path(journal), os.O_RDWR)
    except OSError:
        return None  # no lock file: never written by this release, or not there at all
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return _holder(fd)
    finally:
        os.close(fd)  # and with it the lock, when it was taken
    return None


def held_here(journal: str | Path) -> bool:
    """Whether this process holds the writer lock of the journal at ``journal``."""
    try:
        fd = os.open(lock_path(journal), os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:  # held: by this process when its note says so
        try:
            return int(json.loads(os.pread(fd, 4096, 0))["pid"]) == os.getpid()
        except (OSError, ValueError, KeyError, TypeError):
            return False
    finally:
        os.close(fd)
    return False


def _holder(fd: int) -> str:
    """Who holds the lock, as its note in the lock file says."""
    try:
        note = json.loads(os.pread(fd, 4096, 0))
        pid, command = int(note["pid"]), str(note["command"])
    except (OSError, ValueError, KeyError, TypeError):
        return "another process (it has not said which yet)"
    return f"process {pid} ({command})"
