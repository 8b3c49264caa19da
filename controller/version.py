"""The version of the installed software with the git commit it was built from:
``0.5.0 (git v0.5.0-0-g1a2b3c4d5e6f)``.

The version is pyproject.toml's, which is the newest release of CHANGELOG.md; each release's
commit is tagged ``vX.Y.Z``. Where it was built from is ``git describe`` of the checkout:
the newest release tag before it, the commits since, and the commit (``-dirty`` when the
work tree has changes), or the commit alone where no tag is known (a clone without tags).
It is read from the package's ``COMMIT`` file, which building a wheel writes
(``setup.py``); in a git checkout (an editable install, ``make run``) it is asked of git.
Without either (a source archive), the version alone.
"""

from __future__ import annotations

import subprocess
from importlib import metadata, resources
from pathlib import Path

#: The file in the ``controller`` package that holds the commit of a built wheel.
COMMIT_FILE = "COMMIT"
_CHECKOUT = Path(__file__).resolve().parent.parent


def commit() -> str | None:
    """Where this software was built from: ``git describe`` of its checkout."""
    packaged = resources.files("controller").joinpath(COMMIT_FILE)
    if packaged.is_file():
        return packaged.read_text(encoding="utf-8").strip() or None
    return git_commit(_CHECKOUT)


def git_commit(folder: Path) -> str | None:
    """``git describe`` of the commit checked out at ``folder``: ``v0.5.0-3-g1a2b3c4d5e6f``
    (the newest release tag, the commits since and the commit's 12 hex digits), the commit
    alone where no release tag is known, ``-dirty`` with changes; None when it is no git
    checkout or git is missing."""
    if not (folder / ".git").exists():
        return None
    try:
        described = subprocess.run(
            [
                "git",
                "-C",
                str(folder),
                "describe",
                "--tags",
                "--match=v[0-9]*",
                "--long",
                "--always",
                "--dirty",
                "--abbrev=12",
            ],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return described.stdout.strip() or None


def version() -> str:
    """The package's version (pyproject.toml's), with where it was built from when known."""
    try:
        number = metadata.version("luck-table")
    except metadata.PackageNotFoundError:
        number = "(not installed)"
    built_from = commit()
    return number if built_from is None else f"{number} (git {built_from})"
