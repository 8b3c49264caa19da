"""A PostgreSQL server of a test's own: a cluster made with ``initdb`` in a temporary folder,
for what the machine's shared server cannot give (``wal_level = logical``, settings of its
own), stopped and removed when the block ends, whatever happened in it.

The binaries are the newest of ``/usr/lib/postgresql/*/bin`` (Debian's layout), else
``initdb`` on the ``PATH``; with neither the test is skipped with the reason. PostgreSQL
refuses to run as root: run as root (as the tests are here and on CI), the cluster's
programs run as the ``postgres`` system user (else ``nobody``), who owns the folder. The
server listens on a Unix socket in that folder only (no TCP), on a port found free; every
wait has a deadline.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

#: Seconds any one step of the cluster's (initdb, start, stop) may take.
STEP = 60.0
#: What a test cluster may lose: it is thrown away at the end.
FAST = {"fsync": "off", "full_page_writes": "off", "synchronous_commit": "off"}


@dataclass(frozen=True, slots=True)
class Cluster:
    """A running cluster: its folder (the socket is there) and port; its superuser is
    ``postgres``."""

    folder: Path
    port: int

    def dsn(self, dbname: str = "postgres") -> str:
        """The connection string of database ``dbname`` on this cluster."""
        return make_conninfo(host=str(self.folder), port=self.port, user="postgres", dbname=dbname)

    def log(self) -> str:
        """The server's log so far."""
        return (self.folder / "server.log").read_text(errors="replace")

    def create_database(self, name: str) -> str:
        """A new, empty database ``name``: its connection string."""
        with psycopg.connect(self.dsn(), autocommit=True, connect_timeout=5) as connection:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return self.dsn(name)


def binaries() -> Path | None:
    """The folder of the newest PostgreSQL's programs on this machine, or None."""
    found = [path.parent for path in Path("/usr/lib/postgresql").glob("*/bin/initdb")]
    if found:
        return max(found, key=lambda folder: int(folder.parent.name.split(".")[0]))
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _runner() -> str | None:
    """The user the cluster's programs run as: None for the current one (not root)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name).pw_name
    raise AssertionError("run as root, with neither a postgres nor a nobody user to run as")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _run(command: list[str], user: str | None, log: Path) -> None:
    """Run ``command`` as ``user`` within :data:`STEP` seconds; its output appended to
    ``log``, shown when it fails."""
    with log.open("ab") as out:
        done = subprocess.run(
            command,
            user=user,
            group=None if user is None else pwd.getpwnam(user).pw_gid,
            extra_groups=None if user is None else [],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd="/",
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"},
            timeout=STEP,
            check=False,
        )
    if done.returncode != 0:
        raise AssertionError(
            f"{' '.join(command)} failed ({done.returncode}):\n{log.read_text(errors='replace')}"
        )


@contextlib.contextmanager
def private_cluster(settings: Mapping[str, str | int] | None = None) -> Iterator[Cluster]:
    """A new cluster, started with ``settings`` (``postgresql.conf``'s names and values) on
    top of :data:`FAST`; stopped (``pg_ctl stop -m immediate``) and its folder removed when
    the block ends."""
    bin_folder = binaries()
    if bin_folder is None:
        pytest.skip("no PostgreSQL programs (initdb) on this machine for a cluster of its own")
    user = _runner()
    folder = Path(tempfile.mkdtemp(prefix="luck_pg_"))
    data, log = folder / "data", folder / "server.log"
    try:
        if user is not None:
            entry = pwd.getpwnam(user)
            os.chown(folder, entry.pw_uid, entry.pw_gid)
        folder.chmod(0o700)
        initdb = [str(bin_folder / "initdb"), "-D", str(data), "-U", "postgres"]
        setup = ["--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"]
        _run([*initdb, *setup], user, folder / "initdb.log")
        port = _free_port()
        conf = {
            **FAST,
            "listen_addresses": "''",
            "unix_socket_directories": f"'{folder}'",
            "port": port,
            **(settings or {}),
        }
        with (data / "postgresql.conf").open("a") as out:
            out.writelines(f"{name} = {value}\n" for name, value in conf.items())
        pg_ctl = str(bin_folder / "pg_ctl")
        try:
            _run(
                [pg_ctl, "-D", str(data), "-l", str(log), "-w", "-t", str(int(STEP)), "start"],
                user,
                folder / "pg_ctl.log",
            )
            yield Cluster(folder, port)
        finally:
            _stop(pg_ctl, data, user, folder / "pg_ctl.log")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _stop(pg_ctl: str, data: Path, user: str | None, log: Path) -> None:
    """Stop the cluster at once; its postmaster killed should ``pg_ctl`` not do it."""
    pid_file = data / "postmaster.pid"
    if not pid_file.exists():
        return
    try:
        _run([pg_ctl, "-D", str(data), "-m", "immediate", "-w", "-t", "30", "stop"], user, log)
    except (AssertionError, subprocess.TimeoutExpired):
        with contextlib.suppress(OSError, ValueError, IndexError):
            os.kill(int(pid_file.read_text().split()[0]), signal.SIGKILL)
