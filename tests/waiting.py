"""Waiting in tests: one deadline helper, for plain code and for asyncio.

A test waits for a condition, never for a fixed time: ``wait_until(check, what)`` calls
``check()`` until it returns something true, and returns that; after ``timeout`` seconds it
fails, saying what it waited for (and, with ``detail``, what it saw instead). ``await
async_wait_until(...)`` is its twin on an event loop, whose ``check`` may also be a
coroutine function (an HTTP request, a device's status).

The timeouts are generous (a loaded 2-core machine can leave a process without the
processor for seconds): a condition that holds returns at once, so a long deadline costs
nothing. A sleep that is itself the scenario (a silence that must last, a pace to keep, a
stall to survive) stays a sleep, with a comment saying so.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from firmware_sim.device import SimulatedDevice as Retransmitting

T = TypeVar("T")

#: The default deadline, in seconds.
TIMEOUT = 30.0
#: How often the condition is looked at, in seconds.
POLL = 0.02


def failure(what: str, timeout: float, detail: Callable[[], object] | None) -> AssertionError:
    seen = f" (seen: {detail()})" if detail is not None else ""
    return AssertionError(f"not within {timeout:g} s: {what}{seen}")


def wait_until(
    check: Callable[[], T],
    what: str,
    timeout: float = TIMEOUT,
    *,
    poll: float = POLL,
    detail: Callable[[], object] | None = None,
) -> T:
    """``check()``'s first true result, looked at every ``poll`` seconds; an
    AssertionError naming ``what`` when none comes within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() >= deadline:
            raise failure(what, timeout, detail)
        time.sleep(poll)


async def async_wait_until(
    check: Callable[[], T | Awaitable[T]],
    what: str,
    timeout: float = TIMEOUT,
    *,
    poll: float = POLL,
    detail: Callable[[], object] | None = None,
) -> T:
    """:func:`wait_until` on the running event loop: the loop runs on between looks, and
    ``check`` may return an awaitable (then its result is what counts)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        result = check()
        if inspect.isawaitable(result):
            result = await result
        if result:
            return result
        if loop.time() >= deadline:
            raise failure(what, timeout, detail)
        await asyncio.sleep(poll)


async def retransmitted_twice(device: Retransmitting, timeout: float = TIMEOUT) -> None:
    """Until a simulated device (on a runner in this process) has sent every event it holds
    unacknowledged twice more: a host that was going to acknowledge the first copies has
    had a whole retransmission period to do it. For tests that show what a host does NOT
    acknowledge."""
    before = device.stats.retransmissions
    await async_wait_until(
        lambda: device.stats.retransmissions >= before + 2 * device.pending,
        "the device's unacknowledged events retransmitted twice",
        timeout,
        detail=lambda: f"{device.stats.retransmissions - before} retransmissions",
    )
