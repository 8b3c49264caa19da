"""Run every benchmark, and write its figures into docs/performance.md from its JSON.

    .venv/bin/python bench/figures.py run [--short] [--only NAME,...] [--results DIR]
    .venv/bin/python bench/figures.py write [--results DIR]
    .venv/bin/python bench/figures.py check [--results DIR]

``run`` runs each benchmark of ``BENCHES`` in turn, with the options its figures are
recorded with (``--short``: the suite's short version of each, a few seconds each), its
readable lines to the standard output and its figures to ``DIR/NAME.json`` (``--json``,
bench/figures_kit.py; ``bench/results`` by default), and fails (status 1) if any benchmark
failed, naming them, after running the rest. ``write`` rewrites the generated parts of
docs/performance.md from the JSON in DIR: the goals table, the machine table and each
benchmark's figures, between the ``<!-- figures: NAME -->`` and ``<!-- /figures: NAME -->``
markers; the prose around them is kept as it is. ``check`` fails if the document differs
from what ``write`` would make (the suite runs it: the figures in the document are those of
the committed JSON).

``make bench`` is ``run``; ``make figures`` is ``run`` then ``write``.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the suite imports this file as bench.figures, without bench/ on sys.path
    from figures_kit import Document, Row

    class Recorded(Document):
        """A benchmark's JSON as ``write`` reads it, with the script that wrote it."""

        script: str


ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
DOCUMENT = ROOT / "docs" / "performance.md"


@dataclass(frozen=True)
class Bench:
    """One benchmark run: its name (the JSON's and the section's), the title of its section
    in docs/performance.md, its script, the options its recorded figures are measured
    with, and the options of its short version."""

    name: str
    title: str
    script: str
    options: str
    short: str

    def command(self, short: bool) -> list[str]:
        return ["bench/" + self.script, *(self.short if short else self.options).split()]


BENCHES = (
    Bench(
        "evaluator", "Hand evaluator", "evaluator.py", "", "--hands 3000 --sample 200 --repeats 1"
    ),
    Bench(
        "engine", "Hand engine", "engine.py", "--hands 1000 --repeat 3", "--hands 100 --repeat 1"
    ),
    Bench(
        "odds",
        "Odds of a hand in progress",
        "odds.py",
        "",
        "--states 1 --baseline-states 0 --repeats 1 --baseline-deals 200",
    ),
    Bench("link", "Link: decoder, CARD latency, TCP", "link.py", "", "--cards 50 --frames 5000"),
    Bench(
        "soak",
        "Link under faults, and the monitor killed",
        "soak.py",
        "",
        "--cards 300 --unplugs 1 --kills 2",
    ),
    Bench(
        "table",
        "Table service: card latency, recovery, journal size",
        "table.py",
        "--attacks 0",
        "--cards 30 --viewers 2 --hands 50 --kills 0 --history 20 --attacks 0 --resume 5"
        " --rotations 5 --sessions 1",
    ),
    Bench(
        "table_attacks",
        "(f) Card latency while the console is under attack",
        "table.py",
        "--cards 0 --hands 0 --kills 0 --history 0 --resume 0 --rotations 0 --viewers 0"
        " --attacks 100 --attack-cards 500",
        "--cards 0 --hands 0 --kills 0 --history 0 --resume 0 --rotations 0 --viewers 0"
        " --attacks 2 --attack-cards 10 --attack-seconds 0.5",
    ),
    Bench(
        "card_trace",
        "Where a card's time goes",
        "card_trace.py",
        "",
        "--cards 30 --viewers 2 --ways alone,floor",
    ),
    Bench(
        "core_journal",
        "The core-only journal writer",
        "core_journal.py",
        "--hands 1000 --rounds 3",
        "--hands 3 --rounds 1",
    ),
    Bench(
        "journal_age",
        "A journal's age",
        "journal_age.py",
        "",
        "--hands 10 30 --segment-hands 10 --rounds 1",
    ),
    Bench("sim", "Simulated table", "sim.py", "", "--hands 3"),
    Bench("startup", "Command-line start-up", "startup.py", "", "--runs 3"),
    Bench("feeds", "Live feeds", "feeds.py", "", "--viewers 4 --hands 1"),
    Bench(
        "long_run",
        "The long run: the service's memory",
        "long_run.py",
        "",
        "--hands 6 --viewers 10 --warm 3 --seats 3",
    ),
    Bench("studio", "The studio's odds", "studio.py", "", "--hands 1 --pace 0.2"),
    Bench("cheat_soak", "Cheats caught", "cheat_soak.py", "", "--hands 12 --cheats 1.0 --seed 5"),
    Bench(
        "dealer_soak",
        "A human dealer through pulls, faults and kills",
        "dealer_soak.py",
        "",
        "--hands 3 --seats 6 --unplugs 0.05 --kills 1 --seed 2",
    ),
    Bench(
        "dealer_soak_mistakes",
        "With the dealer's mistakes",
        "dealer_soak.py",
        "--hands 150 --mistakes 0.02 --seed 3",
        "--hands 4 --unplugs 0.05 --kills 1 --mistakes 0.05 --seed 2",
    ),
    Bench(
        "floor",
        "The casino floor: floor store and floor service",
        "floor.py",
        "",
        "--tables 2 --hands 2 --seconds 2 --casino-tables 4 --casino-seconds 3 --connections 2"
        " --month-tables 3 --month-days 2 --samples 5",
    ),
    Bench(
        "pcsc",
        "PC/SC readers: a card out of the shoe to the table's effect",
        "pcsc.py",
        "",
        "--hands 1",
    ),
)

TITLES = {bench.name: bench.title for bench in BENCHES}


# --- run -----------------------------------------------------------------------------------


def run(benches: list[Bench], short: bool, results: Path) -> int:
    """Each of ``benches`` in turn; the names of those that failed printed at the end."""
    failed = []
    for bench in benches:
        command = bench.command(short)
        print(f"=== {' '.join(command)}", flush=True)
        started = time.monotonic()
        json_file = results / f"{bench.name}.json"
        done = subprocess.run(
            [sys.executable, *command, "--json", str(json_file)], cwd=ROOT, check=False
        )
        took = time.monotonic() - started
        print(f"=== {bench.name}: status {done.returncode} in {took:.0f} s", flush=True)
        if done.returncode != 0:
            failed.append(bench.name)
    print(f"benchmarks failed: {', '.join(failed)}" if failed else "every benchmark passed")
    return 1 if failed else 0


# --- write -----------------------------------------------------------------------------------


def value_text(row: Row) -> str:
    value = row["value"]
    if value is None:
        return "none"
    if isinstance(value, float):
        digits = (
            0 if abs(value) >= 1000 else 1 if abs(value) >= 100 else 2 if abs(value) >= 1 else 3
        )
        value = f"{value:,.{digits}f}"
    elif isinstance(value, int):
        value = f"{value:,}"
    unit = row["unit"]
    return f"{value} {unit}".strip() if not unit.startswith("x") else f"{value}{unit}"


def met_text(met: bool | None) -> str:
    return "" if met is None else "met" if met else "**not met**"


def when(document: Recorded) -> str:
    load = document["load_average"]
    started = document["started"].replace("T", " ")[:16]
    return (
        f"{started} UTC, commit {document['machine']['commit']}, "
        f"load average {load['before'][0]:.1f} before, {load['after'][0]:.1f} after, "
        f"{document['seconds']:.0f} s"
    )


def command_text(document: Recorded) -> str:
    return " ".join([f".venv/bin/python bench/{document['script']}", *document["command"]])


def section(document: Recorded) -> list[str]:
    """A benchmark's generated part: when, the command, its rows, its checks."""
    lines = [
        f"Measured {when(document)}: `{command_text(document)}`.",
        "",
        "| figure | value | goal | |",
        "| --- | --- | --- | --- |",
    ]
    for row in document["rows"]:
        goal = row["goal"] or ""
        lines.append(f"| {row['what']} | {value_text(row)} | {goal} | {met_text(row['met'])} |")
    if document["checks"]:
        checks = "; ".join(
            f"{name}: {'yes' if ok else '**NO**'}" for name, ok in document["checks"].items()
        )
        lines += ["", f"Checks ({'passed' if document['passed'] else '**FAILED**'}): {checks}."]
    return lines


def goals(documents: dict[str, Recorded]) -> list[str]:
    """Every figure that has a goal, of every benchmark: the summary table."""
    lines = ["| benchmark | figure | value | goal | |", "| --- | --- | --- | --- | --- |"]
    for name, document in documents.items():
        for row in document["rows"]:
            if row["goal"] is not None:
                link = f"[{TITLES[name]}](#{anchor(TITLES[name])})"
                lines.append(
                    f"| {link} | {row['what']} | {value_text(row)} | {row['goal']} "
                    f"| {met_text(row['met'])} |"
                )
    return lines


def anchor(title: str) -> str:
    """The anchor of a heading, as GitHub makes it."""
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def machines(documents: dict[str, Recorded]) -> list[str]:
    """The machines the figures were measured on (one row each), and when."""
    seen: dict[tuple[str, ...], list[str]] = {}
    for name, document in documents.items():
        machine = document["machine"]
        key = tuple(
            str(value)
            for value in (
                machine["cpu"],
                machine["cpus"],
                machine["memory_gib"],
                machine["kernel"],
                machine["python"],
            )
        )
        seen.setdefault(key, []).append(name)
    lines = ["| CPU | CPUs | memory (GiB) | kernel | Python | benchmarks |"]
    lines.append("| --- | --- | --- | --- | --- | --- |")
    for key, names in seen.items():
        which = "every one" if len(seen) == 1 else ", ".join(names)
        lines.append(f"| {' | '.join(key)} | {which} |")
    return lines


def documents_in(results: Path) -> dict[str, Recorded]:
    """The JSON of every benchmark of BENCHES found in ``results``, in BENCHES' order."""
    found: dict[str, Recorded] = {}
    for bench in BENCHES:
        path = results / f"{bench.name}.json"
        if path.exists():
            document: Document = json.loads(path.read_text(encoding="utf-8"))
            found[bench.name] = {**document, "script": bench.script}
    return found


def rewritten(text: str, documents: dict[str, Recorded]) -> str:
    """``text`` with each marked part made anew from ``documents``."""
    parts = {"goals": goals(documents), "machine": machines(documents)}
    for name, document in documents.items():
        parts[name] = section(document)

    def made(found: re.Match[str]) -> str:
        name = found.group(1)
        if name not in parts:
            return found.group(0)  # no JSON for it: kept as it is
        body = "\n".join(parts[name])
        return f"{found.group(0).split(chr(10))[0]}\n{body}\n<!-- /figures: {name} -->"

    return MARKED.sub(made, text)


MARKED = re.compile(r"<!-- figures: ([\w-]+) [^>]*-->\n.*?<!-- /figures: \1 -->", re.S)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("run", "write", "check"))
    parser.add_argument("--short", action="store_true", help="each benchmark's short version")
    parser.add_argument("--only", help="these benchmarks (comma-separated names)")
    parser.add_argument("--results", type=Path, default=RESULTS, help="the JSON's folder")
    args = parser.parse_args(argv)
    if args.action == "run":
        names = set(args.only.split(",")) if args.only else {bench.name for bench in BENCHES}
        unknown = names - {bench.name for bench in BENCHES}
        if unknown:
            parser.error(f"no benchmark {', '.join(sorted(unknown))}")
        return run([b for b in BENCHES if b.name in names], args.short, args.results)
    text = DOCUMENT.read_text(encoding="utf-8")
    made = rewritten(text, documents_in(args.results))
    if args.action == "write":
        DOCUMENT.write_text(made, encoding="utf-8")
        return 0
    if made != text:
        print(f"{DOCUMENT}: not what `bench/figures.py write` makes: run it", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
