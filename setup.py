"""The build's steps beyond pyproject.toml: the git commit the wheel is built from, written
into the package as ``controller/COMMIT`` (``luck-table --version`` prints it), and the
deploy folder's files as ``controller/deploy/`` (``luck-table deploy-files`` writes them
out)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

sys.path.insert(0, str(Path(__file__).resolve().parent))
from controller.deploy_files import PACKAGED
from controller.version import COMMIT_FILE, git_commit

ROOT = Path(__file__).resolve().parent


class BuildWithCommit(build_py):
    """build_py, then the commit of the checkout (none from a source archive) and the
    deploy files beside the built package; an editable install reads both from the
    checkout."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        package = Path(self.build_lib) / "controller"
        built_from = git_commit(ROOT)
        if built_from is not None:
            (package / COMMIT_FILE).write_text(built_from + "\n", encoding="utf-8")
        (package / PACKAGED).mkdir(exist_ok=True)
        for source in sorted((ROOT / "deploy").iterdir()):
            if source.is_file():
                shutil.copyfile(source, package / PACKAGED / source.name)


setup(cmdclass={"build_py": BuildWithCommit})
