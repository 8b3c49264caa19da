"""The version of the installed software with the git commit it was built from:
``0.2.0 (commit 1a2b3c4d5e6f)``.

The commit is read from the package's ``COMMIT`` file, which building a wheel writes
(``setup.py``); in a git checkout (an editable install, ``make run``) it is asked of git,
with ``-dirty`` when the work tree has changes. Without either (a source archive), the
version alone.
"""

from __future__ import annotations

import subprocess
from importlib import metadata, resources
from pathlib import Path

#: The file in the ``controller`` package that holds the commit of a built wheel.
COMMIT_FILE = "COMMIT"
_CHECKOUT = Path(__file__).resolve().parent.parent


def commit() -> str | None:
    """The git commit this software was built from (12 hex digits, perhaps ``-dirty``)."""
    packaged = resources.files("controller").joinpath(COMMIT_FILE)
    if packaged.is_file():
        return packaged.read_text(encoding="utf-8").strip() or None
    return git_commit(_CHECKOUT)


def git_commit(folder: Path) -> str | None:
    """The commit checked out at ``folder`` (``-dirty`` with changes), None when it is no
    git checkout or git is missing."""
    if not (folder / ".git").exists():
        return None
    try:
        described = subprocess.run(
            [
                "git",
                "-C",
                str(folder),
                "describe",
                "--always",
                "--dirty",
                "--abbrev=12",
                "--exclude=*",
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
    """The package's version (pyproject.toml's), with the commit when it is known."""
    try:
        number = metadata.version("luck-table")
    except metadata.PackageNotFoundError:
        number = "(not installed)"
    built_from = commit()
    return number if built_from is None else f"{number} (commit {built_from})"
