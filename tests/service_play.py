"""An automatic dealer, players and supervisor for a live :class:`TableService` on
simulator processes: hand after hand, as a table would be played.

The simulators are driven through their control channels (``HOST:PORT``), so they outlive
the process that plays (the recovery test kills it). After every physical step (load a
deck, draw a card, place it, sit down) the dealer waits until the device holds no event the
service has not acknowledged: the step's events are journaled and applied, and the table
says what comes next. The players decide at random from the legal choices (seeded).

Run as a process (the recovery test)::

    python -m tests.service_play CONFIG --shoe-control H:P [--seats-control H:P]
        [--hands N] [--seed S]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import sys
from typing import Any

from controller.config import load_config
from controller.rules import Do
from controller.service import TableService
from controller.table import Decide, NewHand, Rebuy, ResolveAlert, SitDown, Table

SETTLE_TIMEOUT = 20.0


class Control:
    """A simulator's control channel (one command at a time)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader, self._writer = reader, writer
        self._lock = asyncio.Lock()

    @classmethod
    async def connect(cls, address: str) -> Control:
        host, port = address.rsplit(":", 1)
        return cls(*await asyncio.open_connection(host, int(port)))

    async def command(self, line: str) -> Any:
        async with self._lock:
            self._writer.write(line.encode() + b"\n")
            await self._writer.drain()
            reply = (await self._reader.readline()).decode().strip()
        status, _, payload = reply.partition(" ")
        if status != "ok":
            raise RuntimeError(f"{line}: {reply or 'no reply'}")
        return json.loads(payload)

    async def settled(self) -> None:
        """Wait until the device is connected and every event it sent is acknowledged."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + SETTLE_TIMEOUT
        while True:
            status = await self.command("status")
            if status["connected"] and status["pending"] == 0:
                return
            if loop.time() > deadline:
                raise TimeoutError(f"the device did not settle: {status}")
            await asyncio.sleep(0.002)

    async def close(self) -> None:
        self._writer.close()


class AutoTable:
    """Plays ``service`` until ``hands`` hands are over (counting the journal's)."""

    def __init__(
        self,
        service: TableService,
        shoe: Control,
        seats: Control | None,
        *,
        players: int = 4,
        seed: int = 0,
    ) -> None:
        self.service = service
        self.shoe = shoe
        self.seats = seats
        self.players = players
        self.random = random.Random(seed)
        self.seed = seed

    async def play(self, hands: int) -> None:
        await self.settle()
        while not self.done(hands):
            await self.step()

    def done(self, hands: int) -> bool:
        table = self.service.table
        return table.hand_number >= hands and not table.in_hand

    async def settle(self) -> None:
        await self.shoe.settled()
        if self.seats is not None:
            await self.seats.settled()

    async def step(self) -> None:
        """One thing a person at the table does next."""
        table = self.service.table
        resolvable = [alert for alert in table.alerts if alert.rule.remedies]
        if resolvable:
            alert = resolvable[0]
            for remedy in alert.rule.remedies:  # the first the table takes
                step = await self.service.submit(
                    ResolveAlert(at=0, who="S1", why="auto", alert=alert.id, remedy=remedy)
                )
                if step.refused is None:
                    return
            raise RuntimeError(f"{alert.message}: {step.refused}")
        if table.paused:  # a device's own alert: it clears when the device says so
            await asyncio.sleep(0.05)
            return
        if not table.in_hand:
            await self.between_hands(table)
            return
        assert table.hand is not None
        waiting = table.hand.waiting_for
        assert waiting is not None
        if waiting.kind == "card":
            await self.deal(waiting.seat)
        elif waiting.kind == "action":
            choice = self.random.choice(
                [c for c in waiting.legal if c.do is not Do.FOLD] or list(waiting.legal)
            )
            await self.decide(waiting.seat, choice.do, to=choice.to)
        elif waiting.kind == "bonus":
            await self.decide(waiting.seat, Do.BONUS, accept=self.random.random() < 0.5)
        else:
            await self.decide(waiting.seat, Do.SHOW)

    async def decide(self, seat: int | None, do: Do, **fields: Any) -> None:
        assert seat is not None
        await self.service.submit(Decide(at=0, seat=seat, do=do, **fields))

    async def deal(self, seat: int | None) -> None:
        drawn = await self.shoe.command("draw")
        await self.shoe.settled()
        if seat is not None and self.seats is not None:
            await self.seats.command(f"place {seat} {drawn['name']}")
            await self.seats.settled()

    async def between_hands(self, table: Table) -> None:
        settings = table.settings
        for number in range(1, self.players + 1):
            seat = table.seat(number)
            if seat is None:
                if self.seats is not None:
                    await self.seats.command(f"sit {number}")
                    await self.seats.settled()
                await self.service.submit(
                    SitDown(at=0, seat=number, player=f"P{number}", buy_in=settings.min_buy_in)
                )
                return
            if seat.stack < settings.min_buy_in // 2:
                chips = settings.min_buy_in - seat.stack
                await self.service.submit(Rebuy(at=0, seat=number, chips=chips))
                return
        if not table.deck_ready:
            await self.shoe.command(f"load seed={self.random.randrange(1 << 30)}")
            await self.shoe.settled()
            return
        step = await self.service.submit(NewHand(at=0))
        if step.refused:
            raise RuntimeError(f"new hand refused: {step.refused}")


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="service_play")
    parser.add_argument("config")
    parser.add_argument("--shoe-control", required=True)
    parser.add_argument("--seats-control")
    parser.add_argument("--hands", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    shoe = await Control.connect(args.shoe_control)
    seats = None if args.seats_control is None else await Control.connect(args.seats_control)
    async with TableService(load_config(args.config)) as service:
        recovered = service.recovered
        assert recovered is not None
        state = json.dumps(recovered.table.to_json())
        print(json.dumps({"recovered": recovered.position, "state": state}), flush=True)
        await AutoTable(service, shoe, seats, seed=args.seed + recovered.position).play(args.hands)
    print(json.dumps({"done": service.position}), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
