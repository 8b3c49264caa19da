"""The build's one step beyond pyproject.toml: the git commit the wheel is built from,
written into the package as ``controller/COMMIT`` (``luck-table --version`` prints it)."""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

sys.path.insert(0, str(Path(__file__).resolve().parent))
from controller.version import COMMIT_FILE, git_commit


class BuildWithCommit(build_py):
    """build_py, then the commit of the checkout beside the built package (none from a
    source archive)."""

    def run(self) -> None:
        super().run()
        built_from = git_commit(Path(__file__).resolve().parent)
        if built_from is not None and not self.editable_mode:
            target = Path(self.build_lib) / "controller" / COMMIT_FILE
            target.write_text(built_from + "\n", encoding="utf-8")


setup(cmdclass={"build_py": BuildWithCommit})
