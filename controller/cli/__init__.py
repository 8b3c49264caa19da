"""The ``luck-table`` command line.

Each subcommand lives in its own module with ``add_parser(subparsers, summary)``, which
registers the subcommand and sets its ``handler``; ``main`` dispatches to it. Only the
module of the subcommand that runs is imported (:data:`COMMANDS` names them with their
one-line help), so that ``luck-table replay`` loads the engine and not the table service,
the simulator or the web framework. Errors are reported with
``controller.cli.common.fail`` (one format for every subcommand).

Exit status: 0 done; 1 the input was refused by the rules (see each subcommand); 2 the
command line or the input is not acceptable (``luck-table`` alone prints the help and
exits 2 too); 130 interrupted (Ctrl-C); 141 the reader of the output went away (``| head``),
as for any Unix tool stopped by SIGPIPE.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence
from importlib import import_module
from typing import Any, NoReturn

PROG = "luck-table"
USAGE_ERROR = 2

#: Every subcommand, in the order of ``luck-table --help``: its module (in this package)
#: and its help line.
COMMANDS: dict[str, tuple[str, str]] = {
    "eval": ("eval_command", "evaluate a hand of 5 to 8 cards"),
    "replay": ("replay_command", "play a hand script through the engine"),
    "odds": (
        "odds_command",
        "the odds of a hand in progress: win, tie and equity of every seat still in",
    ),
    "par": ("par_command", "play whole hands to the showdown and write the par sheet"),
    "sim": (
        "sim_command",
        "run a simulated table: an automatic dealer and players, hand after hand",
    ),
    "serve": ("serve_command", "run the table service"),
    "history": ("history_command", "print the hands of a table's journal"),
    "journal": (
        "journal_command",
        "list, verify, archive or prune the closed segments of a table's journal",
    ),
    "backup": (
        "backup_command",
        "copy a table's journal while it plays, keeping the last N copies",
    ),
    "deploy-files": (
        "deploy_files_command",
        "write the systemd units, example configurations and udev rules into a folder",
    ),
    "devices": ("devices_command", "list the PC/SC card readers pcscd sees, for the configuration"),
    "deck": ("deck_command", "register a tagged deck with the shoe's PC/SC reader"),
    "monitor": ("monitor_command", "print (and journal) the events of the shoe and the seat board"),
    "hil": ("hil_command", "run hardware-in-the-loop scenarios"),
    "floor": ("floor_command", "serve the pit view of the floor store"),
    "floor-bind": (
        "floor_bind_command",
        "bind a table's journal on the floor after a rename, a reset or a restore",
    ),
    "floor-bookmarks": (
        "floor_bookmarks_command",
        "print the floor's protection alerts as bookmarks for the surveillance video",
    ),
    "floor-retention": (
        "floor_retention_command",
        "take old journal entries and hands off the floor store (archived or dropped)",
    ),
    "floor-group": (
        "floor_group_command",
        "replicate each casino's floor store to the group's central database",
    ),
    "relay": ("relay_command", "serve a table's public feed to broadcast viewers"),
    "hash-pin": (
        "hash_pin_command",
        "print the Argon2 hash of a PIN, for a configuration's pin_hash",
    ),
    "hash-badge": (
        "hash_badge_command",
        "print the Argon2 hash of a staff badge's UID, for a configuration's badge",
    ),
}
INTERRUPTED = 128 + signal.SIGINT
OUTPUT_CLOSED = 128 + signal.SIGPIPE


class _Version(argparse.Action):
    """``--version``, worked out only when asked: in a checkout it asks git for the commit,
    and reading the package's metadata takes longer than most of a ``luck-table replay``."""

    def __init__(self, option_strings: list[str], dest: str) -> None:
        super().__init__(
            option_strings,
            dest,
            nargs=0,
            default=argparse.SUPPRESS,
            help="show program's version number and exit",
        )

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option: Any = None
    ) -> NoReturn:
        from controller.version import version  # noqa: PLC0415 (only for --version)

        print(f"{PROG} {version()}")
        parser.exit()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line with subcommand ``command`` in full; every other subcommand is only
    its name and help line (enough for ``--help`` and to find which one is asked for)."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Luck of the Irish table controller.",
    )
    parser.add_argument("--version", action=_Version)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, summary) in COMMANDS.items():
        if name == command:
            import_module(f"{__name__}.{module}").add_parser(subparsers, summary)
        else:
            subparsers.add_parser(name, help=summary, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # first the subcommand's name (--help, --version and an unknown subcommand end here),
    # then the command line again with that subcommand's own arguments
    parser = build_parser()
    command = parser.parse_known_args(argv)[0].command
    if command is not None:
        parser = build_parser(command)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return USAGE_ERROR
    try:
        status: int = args.handler(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`luck-table replay ... | head -2`): stop quietly, as Unix
        # tools do; standard output goes to /dev/null so that the exit flush cannot fail.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return OUTPUT_CLOSED
    except KeyboardInterrupt:
        return INTERRUPTED
    return status


if __name__ == "__main__":
    sys.exit(main())
