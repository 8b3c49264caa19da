"""The ``luck-table`` command line.

Each subcommand lives in its own module with ``add_parser(subparsers)``, which
registers the subcommand and sets its ``handler``; ``main`` dispatches to it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from types import ModuleType

from controller.cli import (
    eval_command,
    hil_command,
    history_command,
    monitor_command,
    replay_command,
    serve_command,
)

SUBCOMMANDS: tuple[ModuleType, ...] = (
    eval_command,
    replay_command,
    monitor_command,
    serve_command,
    history_command,
    hil_command,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="luck-table",
        description="Luck of the Irish table controller.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in SUBCOMMANDS:
        module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    status: int = args.handler(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
