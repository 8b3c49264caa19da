"""``python -m firmware_sim shoe|seats --pty | --tcp HOST:PORT``: a simulator as its own process.

On start it prints, one per line and flushed: ``pty PATH`` or ``tcp HOST:PORT``
(the device's end), ``control HOST:PORT`` (the control channel), then ``ready``.
It runs until the control command ``quit``, SIGINT or SIGTERM. See docs/simulator.md.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from collections.abc import Sequence

from drivers.protocol import PROTOCOL_VERSION
from firmware_sim.device import DeviceError, SimulatedDevice
from firmware_sim.runner import ControlServer, DeviceRunner, PtyRunner, TcpRunner, address_text
from firmware_sim.seats import SimulatedSeatBoard
from firmware_sim.shoe import SimulatedShoe


def host_port(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(
            f"expected HOST:PORT, such as 127.0.0.1:5555, not {text!r}"
        )
    return host, int(port)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m firmware_sim",
        description="Simulated card shoe or seat-sensor board speaking the table protocol.",
    )
    parser.add_argument("device", choices=("shoe", "seats"), help="which device to simulate")
    link = parser.add_mutually_exclusive_group(required=True)
    link.add_argument("--pty", action="store_true", help="create a pseudo-terminal")
    link.add_argument("--tcp", type=host_port, metavar="HOST:PORT", help="serve TCP (port 0: any)")
    parser.add_argument(
        "--control",
        type=host_port,
        default=("127.0.0.1", 0),
        metavar="HOST:PORT",
        help="control channel address (default 127.0.0.1 and any free port)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of everything random")
    parser.add_argument("--serial", help="serial number reported in HELLO")
    parser.add_argument("--heartbeat-ms", type=int, default=1000)
    parser.add_argument("--retransmit-timeout", type=float, default=0.5, metavar="SECONDS")
    parser.add_argument("--baud", type=int, help="pace output at this line speed (8N1)")
    parser.add_argument(
        "--protocol-version",
        type=int,
        default=PROTOCOL_VERSION,
        help=(
            "speak as a device of this protocol version: 1 (no deck registration, no seat "
            "UIDs), or another (to test how hosts refuse it)"
        ),
    )
    parser.add_argument("--decks", type=int, help="shoe: load this many shuffled decks at start")
    parser.add_argument("--seats", type=int, default=8, help="seats: how many seats (1..8)")
    return parser


def make_device(args: argparse.Namespace) -> SimulatedDevice:
    common = {
        "seed": args.seed,
        "heartbeat_ms": args.heartbeat_ms,
        "retransmit_timeout": args.retransmit_timeout,
        "baud": args.baud,
        "protocol_version": args.protocol_version,
    }
    if args.serial:
        common["serial"] = args.serial
    if args.device == "shoe":
        shoe = SimulatedShoe(**common)
        if args.decks:
            shoe.load(decks=args.decks)
        return shoe
    return SimulatedSeatBoard(seats=args.seats, **common)


async def run(args: argparse.Namespace) -> int:
    device = make_device(args)
    runner: DeviceRunner = PtyRunner(device) if args.pty else TcpRunner(device, *args.tcp)
    async with runner:
        control = ControlServer(runner)
        await control.start(*args.control)
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, control.quit_requested.set)
        if isinstance(runner, PtyRunner):
            print(f"pty {runner.path}")
        elif isinstance(runner, TcpRunner):
            print(f"tcp {address_text(runner.address)}")
        print(f"control {address_text(control.address)}")
        print("ready", flush=True)
        await control.quit_requested.wait()
        await control.close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return asyncio.run(run(args))
    except (DeviceError, OSError) as exc:
        print(f"firmware_sim: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
