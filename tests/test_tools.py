"""The suite's and the benchmarks' own footing: a time limit on every test, and benchmarks
that run with the ``bench`` install alone (no test tools)."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_every_test_has_a_time_limit(pytestconfig: pytest.Config) -> None:
    """No test hangs the suite: pytest-timeout ends any test past the limit of pyproject's
    pytest settings."""
    assert pytestconfig.pluginmanager.hasplugin("timeout")
    assert 60 <= float(pytestconfig.getini("timeout")) <= 900


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[\[<>=~!; ]", line, maxsplit=1)[0].lower() for line in requirements}


def test_only_test_tools() -> None:
    """What the check below hides: the test extra's packages that neither the runtime nor
    the bench extra installs."""
    extras = PROJECT["optional-dependencies"]
    only = _names(extras["test"]) - _names(extras["bench"]) - _names(PROJECT["dependencies"])
    assert {"pytest", "playwright", "hypothesis"} <= only
    assert "httpx" not in only  # bench/table.py asks the console over HTTP


@pytest.mark.slow
@pytest.mark.parametrize("bench", sorted(p.name for p in (ROOT / "bench").glob("*.py")))
def test_a_benchmark_needs_no_test_tool(bench: str) -> None:
    """Each benchmark loads (its imports, its helpers' imports) with every package that only
    the test extra installs out of reach, as on a clone with ``make bench``'s install."""
    extras = PROJECT["optional-dependencies"]
    only = _names(extras["test"]) - _names(extras["bench"]) - _names(PROJECT["dependencies"])
    hidden = sorted({name.replace("-", "_") for name in only} | {"_pytest"})
    program = (  # run as `python bench/NAME.py` runs it: its folder first on the path
        "import runpy, sys\n"
        f"sys.path.insert(0, {str(ROOT / 'bench')!r})\n"
        f"for name in {hidden!r}: sys.modules[name] = None\n"
        f"runpy.run_path({str(ROOT / 'bench' / bench)!r}, run_name='bench')\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=False
    )
    missing = re.search(r"No module named '(\w+)'", loaded.stderr)
    if missing and missing.group(1).lower() in _names(extras["bench"]):
        pytest.skip(f"the bench extra is not installed here ({missing.group(1)})")
    assert loaded.returncode == 0, loaded.stderr
