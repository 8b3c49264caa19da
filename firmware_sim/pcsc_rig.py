"""Virtual PC/SC readers for the shoe, the seats and the console: a private ``pcscd`` with
Debian's virtual reader driver (``vsmartcard-vpcd``), and :class:`VirtualTag` s that come
into and leave the readers' fields. It changes nothing of the system.

How (pcsc-lite 1.9.9, vpcd 3.3, as Debian 12 ships them):

- ``pcscd -f -c DIR`` reads its readers from ``DIR`` (reader.conf entries) and runs in the
  foreground. Debian's pcscd ignores ``PCSCLITE_CSOCK_NAME`` for its own socket and makes
  ``/run/pcscd/pcscd.comm``: the rig starts it in a private mount namespace (``unshare
  -m``, root only) in which a folder of the rig's own is bind-mounted on ``/run``; the
  socket is then ``TMP/luck-table-pcscd-PID/pcscd/pcscd.comm`` for everyone, and the client
  library is pointed at it with ``PCSCLITE_CSOCK_NAME`` (which it does honour, reading it
  once per process: one rig at a time in a process, each at the same path).
- vpcd keeps its readers in one table per loaded library, by slot: each reader entry of
  the configuration gets a copy of the library of its own (pcscd loads a library once per
  path), and each entry has two slots, two readers, ``NAME 00 00`` listening on its TCP
  port and ``NAME 00 01`` on the next. pcscd has room for 16 readers: 8 entries.
- A virtual tag connects to its reader's port to come into the field; vpcd sees it at its
  next poll by pcscd (every 400 ms, pcsc-lite's PCSCLITE_STATUS_POLL_RATE) and pcscd tells
  its clients at once.

    rig = PcscRig(folder)                  # the readers: shoe, console, seat 1..8
    rig.start()                            # raises RigUnavailable saying what is missing
    rig.pattern("shoe")                    # the reader name pattern for the configuration
    tag = rig.tag(uid); rig.enter("seat 3", tag); tag.leave()
    rig.restart(without={"seat 3"})        # that reader is gone (pulled), then rig.restart()
    rig.stop()
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

from firmware_sim.vtag import VirtualTag
from luck_errors import LuckTableError

VPCD_LIBRARY = Path("/usr/lib/pcsc/drivers/serial/libifdvpcd.so")
#: The reader entries (a vpcd library each, two readers each) and their readers' roles.
ENTRIES: dict[str, tuple[str, str]] = {
    "Luck Shoe": ("shoe", "console"),
    "Luck Seats 1-2": ("seat 1", "seat 2"),
    "Luck Seats 3-4": ("seat 3", "seat 4"),
    "Luck Seats 5-6": ("seat 5", "seat 6"),
    "Luck Seats 7-8": ("seat 7", "seat 8"),
}
SOCKET_VARIABLE = "PCSCLITE_CSOCK_NAME"


class RigUnavailable(LuckTableError):
    """What this machine lacks to run the rig (the reason a test is skipped)."""


def missing() -> str | None:
    """Why the rig cannot run here (None: it can)."""
    if shutil.which("pcscd") is None:
        return "pcscd is not installed (Debian: apt-get install pcscd)"
    if not VPCD_LIBRARY.exists():
        return f"{VPCD_LIBRARY} is missing (Debian: apt-get install vsmartcard-vpcd)"
    if shutil.which("unshare") is None or os.geteuid() != 0:
        return "a private pcscd needs a private mount namespace: unshare -m, as root"
    try:
        import smartcard  # noqa: F401, PLC0415  (the `pcsc` extra)
    except ImportError:
        return "pyscard is not installed (pip install 'luck-table[pcsc]': swig, libpcsclite-dev)"
    return None


def _free_pair() -> int:
    """A port P with P and P + 1 free (vpcd's two slots)."""
    for _ in range(100):
        with socket.socket() as first:
            first.bind(("127.0.0.1", 0))
            port: int = first.getsockname()[1]
            if port >= 65535:
                continue
            with socket.socket() as second:
                try:
                    second.bind(("127.0.0.1", port + 1))
                except OSError:
                    continue
            return port
    raise RigUnavailable("no two free TCP ports in a row for a virtual reader")


class PcscRig:
    """A private pcscd with the virtual readers of :data:`ENTRIES`, in ``folder``."""

    def __init__(self, folder: Path, entries: dict[str, tuple[str, str]] | None = None) -> None:
        self.folder = folder
        self.entries = dict(ENTRIES if entries is None else entries)
        self.ports = {name: _free_pair() for name in self.entries}
        # pcsc-lite's library reads the socket's path once per process: every rig of this
        # process puts pcscd's socket at the same path (one rig at a time)
        self.run = Path(tempfile.gettempdir()) / f"luck-table-pcscd-{os.getpid()}"
        self.socket = self.run / "pcscd" / "pcscd.comm"
        self.log = folder / "pcscd.log"
        self._process: subprocess.Popen[bytes] | None = None

    # --- the readers ------------------------------------------------------------------------

    def reader(self, role: str) -> str:
        """The name pcscd gives the reader of ``role`` (``shoe``, ``console``, ``seat N``)."""
        for name, roles in self.entries.items():
            if role in roles:
                return f"{name} 00 0{roles.index(role)}"
        raise KeyError(role)

    def pattern(self, role: str) -> str:
        """A reader-name pattern (a regular expression) that matches ``role``'s reader only."""
        return f"^{re.escape(self.reader(role))}$"

    def port(self, role: str) -> int:
        for name, roles in self.entries.items():
            if role in roles:
                return self.ports[name] + roles.index(role)
        raise KeyError(role)

    def enter(self, role: str, tag: VirtualTag) -> None:
        """``tag`` comes into the field of ``role``'s reader."""
        tag.enter(self.port(role))

    # --- pcscd ------------------------------------------------------------------------------

    def start(self, without: Iterable[str] = ()) -> None:
        """Start pcscd with every entry's readers but those of ``without`` (roles)."""
        why = missing()
        if why is not None:
            raise RigUnavailable(why)
        gone = set(without)
        config = self.folder / "readers"
        shutil.rmtree(config, ignore_errors=True)
        config.mkdir(parents=True)
        libraries = self.folder / "lib"
        libraries.mkdir(exist_ok=True)
        for number, (name, roles) in enumerate(self.entries.items()):
            if gone & set(roles):
                continue
            library = libraries / f"vpcd{number}.so"
            if not library.exists():
                shutil.copyfile(VPCD_LIBRARY, library)
            port = self.ports[name]
            (config / f"reader{number}").write_text(
                f'FRIENDLYNAME "{name}"\nDEVICENAME /dev/null:{port}\n'
                f"LIBPATH {library}\nCHANNELID {port}\n"
            )
        shutil.rmtree(self.run, ignore_errors=True)
        self.run.mkdir(parents=True)
        script = f'mount --bind "{self.run}" /run && exec pcscd --foreground -c "{config}"'
        with self.log.open("ab") as log:
            self._process = subprocess.Popen(
                ["unshare", "-m", "sh", "-c", script], stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + 10
        while not self.socket.exists():
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RigUnavailable(f"pcscd did not start: {self.log.read_text()[-500:]}")
            time.sleep(0.02)
        os.environ[SOCKET_VARIABLE] = str(self.socket)

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        shutil.rmtree(self.run, ignore_errors=True)

    def restart(self, without: Iterable[str] = ()) -> None:
        self.stop()
        self.start(without)

    @staticmethod
    def tag(uid: bytes) -> VirtualTag:
        return VirtualTag(uid)

    def __enter__(self) -> PcscRig:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
