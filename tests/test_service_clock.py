"""The service's clocks: a step of the wall clock is seen against the monotonic clock (a
slow drift is not a step), and the journal's times of a run map to the monotonic clock,
never later than they were; an input of an earlier run counts from the start."""

from __future__ import annotations

from controller.service.clock import DRIFT_SECONDS, ServiceClock


class Fake:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_step_is_seen_and_the_journal_times_map_to_the_monotonic_clock() -> None:
    wall, monotonic = Fake(1_800_000_000.0), Fake(50.0)
    clock = ServiceClock(wall, monotonic)
    clock.started(10)  # inputs 1..10: journaled by an earlier run
    assert clock.journaled(10, wall.now - 3600) == 50.0  # at least as old as the start
    wall.now, monotonic.now = wall.now + 5, 55.0
    assert clock.check(11) is None
    assert clock.journaled(11, wall.now) == 55.0 + DRIFT_SECONDS
    wall.now += 3601  # a second, and stepped an hour forward
    monotonic.now += 1
    assert clock.check(12) == 3600
    assert clock.check(12) is None  # seen once
    assert clock.journaled(12, wall.now) == 56.0 + DRIFT_SECONDS
    assert clock.journaled(11, wall.now - 3601) == 55.0 + DRIFT_SECONDS  # before the step
    wall.now -= 7200  # and back
    assert clock.check(13) == -7200
    assert clock.journaled(13, wall.now) == 56.0 + DRIFT_SECONDS
    for _ in range(100):  # a slew of 10 ms a second: no step, the mapping follows it
        wall.now, monotonic.now = wall.now + 1.01, monotonic.now + 1
        assert clock.check(14) is None
    assert abs(clock.journaled(14, wall.now) - monotonic.now) <= DRIFT_SECONDS * 2
    assert clock.journaled(14, wall.now) >= monotonic.now
