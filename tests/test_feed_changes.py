"""A feed's changes wake its readers a turn at a time: every reader that waits is woken, in
the order it came, at most ``TURN`` of them in a pass of the event loop (the loop reads the
devices between two turns); a reader that gave up waiting is not woken, nor does it hold
the others back."""

from __future__ import annotations

import asyncio

from dealer_ui.feeds import TURN, Changes


def test_every_reader_is_woken_in_order_a_turn_each_pass_of_the_loop() -> None:
    async def scenario() -> None:
        changes = Changes()
        passes = 0
        woken: list[tuple[int, int]] = []  # reader, the loop's pass

        def count() -> None:
            nonlocal passes
            passes += 1
            loop.call_soon(count)

        async def reader(number: int) -> None:
            await changes.next().wait()
            woken.append((number, passes))

        async def gives_up() -> None:
            try:
                await asyncio.wait_for(changes.next().wait(), 0.01)
            except TimeoutError:
                woken.append((-1, passes))

        loop = asyncio.get_running_loop()
        readers = [asyncio.create_task(reader(n)) for n in range(3 * TURN + 5)]
        quitter = asyncio.create_task(gives_up())
        await asyncio.wait_for(quitter, 5)
        assert woken == [(-1, woken[0][1])]  # it gave up before the change
        loop.call_soon(count)
        changes.changed()
        await asyncio.wait_for(asyncio.gather(*readers), 5)
        woken.pop(0)
        assert [number for number, _ in woken] == list(range(3 * TURN + 5))
        per_pass = [sum(1 for _, at in woken if at == p) for p in sorted({at for _, at in woken})]
        assert per_pass == [TURN, TURN, TURN, 5]

    asyncio.run(scenario())


def test_a_change_taken_before_it_happened_is_already_set_when_looked_at_after() -> None:
    async def scenario() -> None:
        changes = Changes()
        taken = changes.next()
        changes.changed()
        assert taken.is_set()
        await asyncio.wait_for(taken.wait(), 1)
        assert not changes.next().is_set()
        changes.close()
        assert changes.closed

    asyncio.run(scenario())
