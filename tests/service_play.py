"""The recovery test's player: the table service on simulators that another process
started, played by the simulated table's automatic dealer, supervisor and players
(``controller.sim``), hand after hand, from wherever the journal left the table.

The simulators are driven through their control channels (``HOST:PORT``), so they outlive
the process that plays (the recovery test kills it). It prints one line when the service
has recovered its journal, ``{"recovered": POSITION, "state": TABLE_JSON}``, then plays
until the table has had ``--hands`` hands and none is in play (a service restarted in its
last hand finishes it), then prints ``{"done": POSITION}``::

    python -m tests.service_play CONFIG --shoe-control H:P [--seats-control H:P]
        [--hands N] [--seed S]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys

from controller.config import load_config
from controller.service import TableService
from controller.sim.dealer import Dealer, Tally
from controller.sim.service_floor import ServiceFloor
from firmware_sim.process import Control as SyncControl

PLAYERS = 4


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="service_play")
    parser.add_argument("config")
    parser.add_argument("--shoe-control", required=True)
    parser.add_argument("--seats-control")
    parser.add_argument("--hands", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    shoe = SyncControl(args.shoe_control)
    seats = None if args.seats_control is None else SyncControl(args.seats_control)
    async with TableService(load_config(args.config)) as service:
        recovered = service.recovered
        assert recovered is not None
        state = json.dumps(recovered.table.to_json())
        print(json.dumps({"recovered": recovered.position, "state": state}), flush=True)
        tally = Tally()
        floor = ServiceFloor(service, shoe, seats, tally.observe)
        try:
            await floor.ready()
            hands = args.hands - service.table.hand_number  # the hand in play, then these
            seed = args.seed + recovered.position
            dealer = Dealer(floor, tally, seats=PLAYERS, hands=max(hands, 1), seed=seed)
            if hands > 0:  # (a dealer of 0 hands deals for ever)
                await dealer.run()
            while service.table.in_hand:  # none left to start: the hand in play is finished
                await dealer.move()
        finally:
            await floor.close()
    print(json.dumps({"done": service.position}), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
