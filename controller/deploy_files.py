"""The files a Linux machine with systemd needs to run a table (the repository's ``deploy``
folder: the units, the example configurations, the udev rules, the sysusers file, its
README), reachable from an installed wheel: building the wheel puts them in the package
as ``controller/deploy`` (``setup.py``); in a checkout they are read from ``deploy/``.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

#: Where the files are in the package of a built wheel.
PACKAGED = "deploy"
_CHECKOUT = Path(__file__).resolve().parent.parent / "deploy"


def deploy_folder() -> Traversable:
    """The deploy files' folder: the package's, else the checkout's."""
    packaged = resources.files("controller").joinpath(PACKAGED)
    if packaged.is_dir():
        return packaged
    return _CHECKOUT


def deploy_files() -> dict[str, Traversable]:
    """Each deploy file by name."""
    folder = deploy_folder()
    return {entry.name: entry for entry in folder.iterdir() if entry.is_file()}
