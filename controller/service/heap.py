"""The service's C heap (glibc's malloc, on Linux): few arenas, and their free pages given
back.

The service's threads (asyncio's pool, which commits the journal and rotates it, the
links' writers) allocate outside Python's own allocator: SQLite's page caches, and every
Python object over 512 bytes. glibc gives each new thread an arena of its own, up to eight
for each CPU, and keeps the pages freed in them: over a long run the service's memory grew
by steps of some 6 MiB, one for each thread that came (docs/performance.md, "The long run").
So the service allows two arenas (:func:`bound_arenas`, before its threads start) and gives
the free pages back after each rotation of its journal (:func:`give_back`). Where the C
library is not glibc, both do nothing.
"""

from __future__ import annotations

import ctypes
import logging

log = logging.getLogger(__name__)

#: glibc's ``mallopt`` parameter: the most arenas malloc makes.
M_ARENA_MAX = -8
#: The arenas the service allows: the event loop's and one the threads share.
ARENAS = 2


def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None)  # the process's own symbols: the C library's among them
    except OSError:
        return None


def bound_arenas(most: int = ARENAS) -> bool:
    """Let malloc make at most ``most`` arenas from now on (those that exist stay); whether
    the C library took it."""
    libc = _libc()
    mallopt = getattr(libc, "mallopt", None)
    taken = mallopt is not None and mallopt(M_ARENA_MAX, most) == 1
    if not taken:
        log.info("the C library bounds no malloc arenas: the memory may grow with threads")
    return taken


def give_back() -> bool:
    """Give the C library's free pages, in every arena, back to the system; whether it
    could (glibc's ``malloc_trim``)."""
    trim = getattr(_libc(), "malloc_trim", None)
    return trim is not None and trim(0) in (0, 1)
