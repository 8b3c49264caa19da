"""The Makefile's venv: made again by itself when another Python made it.

Runs the real ``make`` on a copy of the Makefile in a scratch folder, making real venvs
(without pip, and pip's upgrade skipped, so that no package index is needed and a venv
takes a second).
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYTHON_ID = "import os, sys; print(sys.version.split()[0], os.path.realpath(sys.executable))"

pytestmark = [
    pytest.mark.slow,  # make, venvs
    pytest.mark.skipif(shutil.which("make") is None, reason="needs make"),
]


def make_venv(folder: Path, python: str = sys.executable) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            "make",
            "--no-print-directory",
            ".venv/python-id",
            f"PYTHON={python}",
            f"NEW_VENV={python} -m venv --without-pip",
            "INSTALL=true",
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def made_again(folder: Path) -> bool:
    result = make_venv(folder)
    assert result.returncode == 0, result.stderr
    return "making .venv" in result.stdout


def python_id(python: str) -> str:
    return subprocess.run(
        [python, "-c", PYTHON_ID], capture_output=True, text=True, check=True
    ).stdout


def test_a_venv_made_by_another_python_or_whose_python_is_gone_is_made_again(tmp_path):
    shutil.copy(ROOT / "Makefile", tmp_path)
    shutil.copy(ROOT / "constraints.txt", tmp_path)
    venv = tmp_path / ".venv"
    assert made_again(tmp_path)
    assert (venv / "python-id").read_text() == python_id(sys.executable)
    (venv / "kept").touch()
    assert not made_again(tmp_path)  # the same Python: the venv is kept
    assert (venv / "kept").exists()

    # `make run PYTHON=python3.10` made it; now `make run` with the usual Python.
    (venv / "python-id").write_text("3.10.12 /usr/bin/python3.10\n")
    assert made_again(tmp_path)
    assert not (venv / "kept").exists()
    assert (venv / "python-id").read_text() == python_id(sys.executable)

    # The Python that made it was removed (an upgrade): its link points nowhere.
    python = venv / "bin" / "python"
    python.unlink()
    python.symlink_to("/nonexistent/python")
    assert made_again(tmp_path)
    assert subprocess.run([python, "-c", ""], check=False).returncode == 0

    # A Python that is not there is an error that leaves the venv alone.
    (venv / "kept").touch()
    missing = make_venv(tmp_path, "/nonexistent/python3.10")
    assert missing.returncode != 0
    assert "no Python at '/nonexistent/python3.10'" in missing.stderr
    assert (venv / "kept").exists()


@pytest.mark.parametrize(
    ("port", "address"), [(None, "127.0.0.1:8080"), ("8081", "127.0.0.1:8081")]
)
def test_make_run_serves_the_console_at_the_port_given(port: str | None, address: str) -> None:
    given = [] if port is None else [f"PORT={port}"]
    dry = subprocess.run(
        ["make", "--no-print-directory", "-n", "-W", ".venv/runtime-installed", "run", *given],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert dry.returncode == 0, dry.stderr
    assert f"luck-table sim --hands 5 --speed 4 --console {address}" in dry.stdout
