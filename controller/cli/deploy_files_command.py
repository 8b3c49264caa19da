"""``luck-table deploy-files FOLDER``: write the files that install a table on a machine with
systemd (the units, the example configurations, the udev rules, the sysusers file and
their README, deploy/README.md) into FOLDER, from the installed software itself, so that an
installation needs the wheel only. FOLDER is made when it does not exist (with its parents).
``--list`` prints their names; ``--force`` replaces files already in FOLDER (without it
they are refused, naming them, and nothing is written).
Exit status: 0; 2 for a FOLDER that is a file or cannot be made, or files that would be
replaced.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from controller.cli.common import fail
from controller.deploy_files import deploy_files


def handler(args: argparse.Namespace) -> int:
    files = deploy_files()
    if args.list:
        print("\n".join(sorted(files)))
        return 0
    if args.folder is None:
        return fail("deploy-files", "give the FOLDER to write the files into (or --list)")
    try:
        args.folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:  # a file there, no permission
        return fail("deploy-files", f"{args.folder}: not a folder ({error.strerror})")
    there = sorted(name for name in files if (args.folder / name).exists())
    if there and not args.force:
        named = ", ".join(there)
        return fail("deploy-files", f"{args.folder} has {named} already (--force replaces)")
    for name, source in sorted(files.items()):
        (args.folder / name).write_bytes(source.read_bytes())
        print(args.folder / name)
    return 0


def add_parser(subparsers: Any, summary: str) -> None:
    parser = subparsers.add_parser(
        "deploy-files",
        help=summary,
        description="Write the deployment files (systemd units and timer, example "
        "configurations, udev rules, sysusers file, their README) into FOLDER.",
    )
    parser.add_argument("folder", nargs="?", type=Path, metavar="FOLDER")
    parser.add_argument("--list", action="store_true", help="only print the files' names")
    parser.add_argument("--force", action="store_true", help="replace files already there")
    parser.set_defaults(handler=handler)
