"""``controller.service.heap``: the service's C heap has at most two malloc arenas however
many threads come, and its free pages can be given back (glibc only)."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

from controller.service.heap import ARENAS, give_back

pytestmark = [
    pytest.mark.slow,  # a process each
    pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc only"),
]

#: Six threads each allocate (Python objects over 512 bytes come from malloc) and wait for
#: the others before they end, so that each holds its arena; then glibc says its arenas.
THREADS = """
import threading, ctypes, sys
from controller.service.heap import bound_arenas
if sys.argv[1] == "bound":
    assert bound_arenas()
together = threading.Barrier(6)
def work():
    kept = [bytes(200_000) for _ in range(10)]
    together.wait(timeout=30)
threads = [threading.Thread(target=work) for _ in range(6)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join(timeout=30)
ctypes.CDLL(None).malloc_stats()
"""


def arenas(how: str) -> int:
    """The arenas malloc made in a process of six threads (``how``: bound or free)."""
    done = subprocess.run(
        [sys.executable, "-c", THREADS, how],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return sum(line.startswith("Arena ") for line in done.stderr.splitlines())


def test_the_threads_share_two_arenas_where_each_had_its_own() -> None:
    assert arenas("free") > ARENAS  # each thread an arena of its own: what is bounded
    assert arenas("bound") <= ARENAS


def test_the_free_pages_are_given_back() -> None:
    assert give_back()
