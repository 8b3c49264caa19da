"""What every benchmark of ``bench/`` shares: its figures as JSON, beside its readable lines.

Each benchmark takes ``--json FILE`` (``add_json_option``): its readable lines still go to
the standard output, and its figures are also written to FILE, as one JSON object:

* ``bench``: the benchmark's name (its file's, without ``.py``); ``command``: its arguments
  (but ``--json FILE``);
* ``started`` (UTC, ISO 8601), ``seconds`` (wall time of the run);
* ``machine``: CPU model, CPUs, memory, kernel, Python, the commit measured;
* ``load_average``: the machine's 1, 5 and 15-minute load averages ``before`` and ``after``;
* ``rows``: the headline figures, each ``{"what", "value", "unit", "goal", "met"}`` (``goal``
  a sentence such as ``"<= 12.08 ms"`` or null; ``met`` true, false or null without a goal);
  ``bench/figures.py`` writes these into docs/performance.md;
* ``checks``: the benchmark's own pass criteria (``{"name": true}``), speed never among them;
* ``passed``: every check true;
* ``figures``: everything else it measured, its own shape for each benchmark.

A benchmark whose check fails says so, writes its JSON all the same and exits with status 1.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

ROOT = Path(__file__).resolve().parent.parent


def add_json_option(parser: argparse.ArgumentParser) -> None:
    """The option every benchmark takes: ``--json FILE``."""
    parser.add_argument(
        "--json", type=Path, metavar="FILE", help="also write the figures as JSON to FILE"
    )


def _cpu_model() -> str:
    """The CPU's model name and, on x86, its family and model (the machine's kind changes)."""
    fields: dict[str, str] = {}
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        return platform.processor() or platform.machine()
    for line in text.splitlines():
        name, _, value = line.partition(":")
        fields.setdefault(name.strip(), value.strip())
    model = fields.get("model name", platform.machine())
    if "cpu family" in fields:
        model += f" (family {fields['cpu family']}, model {fields.get('model', '?')})"
    return model


def _memory_gib() -> float | None:
    try:
        text = Path("/proc/meminfo").read_text(encoding="utf-8")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("MemTotal:"):
            return round(int(line.split()[1]) / 2**20, 1)
    return None


def _commit() -> str | None:
    """The commit measured, ``+`` when the work tree differs from it; None outside git."""
    git = ["git", "-C", str(ROOT)]
    head = subprocess.run(
        [*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    )
    if head.returncode != 0:
        return None
    dirty = subprocess.run(
        [*git, "status", "--porcelain", "--untracked-files=no"], capture_output=True, check=False
    )
    return head.stdout.strip() + ("+" if dirty.stdout.strip() else "")


class Machine(TypedDict):
    """The machine a benchmark ran on (``machine`` of its JSON)."""

    cpu: str
    cpus: int | None
    memory_gib: float | None
    kernel: str
    python: str
    commit: str | None


class LoadAverage(TypedDict):
    before: list[float]
    after: list[float]


class Row(TypedDict):
    """A headline figure (``value`` None: not a finite number, as JSON has none)."""

    what: str
    value: float | str | None
    unit: str
    goal: str | None
    met: bool | None


class Document(TypedDict):
    """A benchmark's JSON, as this module's docstring tells it."""

    bench: str
    command: list[str]
    started: str
    seconds: float
    machine: Machine
    load_average: LoadAverage
    rows: list[Row]
    checks: dict[str, bool]
    passed: bool
    figures: dict[str, object]


def machine() -> Machine:
    """The machine the figures were measured on."""
    return {
        "cpu": _cpu_model(),
        "cpus": os.cpu_count(),
        "memory_gib": _memory_gib(),
        "kernel": f"{platform.system()} {platform.release()}",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "commit": _commit(),
    }


def _without_json(argv: list[str]) -> list[str]:
    """The arguments without ``--json FILE`` (where the figures went is not how)."""
    kept: list[str] = []
    skip = False
    for arg in argv:
        if skip or arg == "--json":
            skip = not skip
            continue
        if not arg.startswith("--json="):
            kept.append(arg)
    return kept


def load_average() -> list[float]:
    return [round(value, 2) for value in os.getloadavg()]


def _finite(value: object) -> object:
    """``value`` with every NaN or infinity (a run with no samples) as None: JSON has none."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(key): _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


@dataclass
class Report:
    """One run's figures, written as JSON to ``path`` (if any) by ``finish``."""

    bench: str
    path: Path | None
    started: datetime.datetime = field(default_factory=lambda: datetime.datetime.now(datetime.UTC))
    clock: float = field(default_factory=time.perf_counter)
    load_before: list[float] = field(default_factory=load_average)
    rows: list[Row] = field(default_factory=list)
    checks: dict[str, bool] = field(default_factory=dict)
    figures: dict[str, object] = field(default_factory=dict)

    @classmethod
    def start(cls, script: str, args: argparse.Namespace) -> Report:
        """The report of the benchmark ``script`` (its ``__file__``), to ``args.json``."""
        return cls(Path(script).stem, args.json)

    def row(
        self,
        what: str,
        value: float | str,
        unit: str = "",
        goal: str | None = None,
        met: bool | None = None,
    ) -> None:
        """A headline figure, with its goal and whether it was met where there is one."""
        if isinstance(value, float):
            value = round(value, 4)
        self.rows.append({"what": what, "value": value, "unit": unit, "goal": goal, "met": met})

    def check(self, name: str, ok: bool) -> bool:
        """One of the benchmark's own pass criteria (one that fails once stays failed);
        ``ok``, returned."""
        self.checks[name] = self.checks.get(name, True) and bool(ok)
        return bool(ok)

    @property
    def passed(self) -> bool:
        return all(self.checks.values())

    def document(self) -> Document:
        return {
            "bench": self.bench,
            "command": _without_json(sys.argv[1:]),
            "started": self.started.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "seconds": round(time.perf_counter() - self.clock, 2),
            "machine": machine(),
            "load_average": {"before": self.load_before, "after": load_average()},
            "rows": self.rows,
            "checks": self.checks,
            "passed": self.passed,
            "figures": self.figures,
        }

    def finish(self) -> int:
        """Write the JSON (when asked); the exit status: 0 if every check passed, else 1."""
        if self.path is not None:
            document = _finite(self.document())
            text = json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(text, encoding="utf-8")
        failed = [name for name, ok in self.checks.items() if not ok]
        if failed:
            print(f"FAILED: {', '.join(failed)}", file=sys.stderr)
        return 1 if failed else 0
