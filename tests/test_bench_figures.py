"""``bench/figures.py``: every benchmark is in its list, with a section of docs/performance.md
and its figures in bench/results/; the document's generated parts are those the committed
JSON makes; a generated part is made from its JSON alone, the prose around it kept."""

from __future__ import annotations

import json

from bench import figures
from tests.bench_kit import figures_of

SHARED = {"figures.py", "figures_kit.py"}  # the list and the kit, no benchmark


def test_every_benchmark_is_run_and_has_its_section_and_figures() -> None:
    scripts = {path.name for path in (figures.ROOT / "bench").glob("*.py")} - SHARED
    assert scripts == {bench.script for bench in figures.BENCHES}
    text = figures.DOCUMENT.read_text(encoding="utf-8")
    for bench in figures.BENCHES:
        assert f"<!-- figures: {bench.name} " in text, bench.name
        assert f"\n## {bench.title}\n" in text or f"\n### {bench.title}\n" in text, bench.title
        figures_of(bench.script, figures.RESULTS / f"{bench.name}.json")


def test_the_document_s_figures_are_those_of_the_committed_json() -> None:
    assert figures.main(["check"]) == 0


def test_a_generated_part_is_made_from_its_json_and_the_prose_kept() -> None:
    document = json.loads((figures.RESULTS / "sim.json").read_text(encoding="utf-8"))
    document["rows"] = [
        {"what": "a card", "value": 1234.5678, "unit": "ms", "goal": "<= 2 ms", "met": False},
        {"what": "a ratio", "value": 0.25, "unit": "x eval7", "goal": None, "met": None},
    ]
    document["checks"] = {"the same hands on both": True}
    text = (
        "prose before\n<!-- figures: sim (generated) -->\nold\n<!-- /figures: sim -->\n"
        "<!-- figures: link (generated) -->\nkept: no JSON for it\n<!-- /figures: link -->\n"
        "prose after\n"
    )
    made = figures.rewritten(text, {"sim": document | {"script": "sim.py"}})
    assert made.startswith("prose before\n<!-- figures: sim (generated) -->\nMeasured ")
    assert "| a card | 1,235 ms | <= 2 ms | **not met** |" in made
    assert "| a ratio | 0.250x eval7 |  |  |" in made
    assert "Checks (passed): the same hands on both: yes." in made
    assert "old" not in made
    assert "kept: no JSON for it\n<!-- /figures: link -->\nprose after\n" in made
    assert figures.rewritten(made, {"sim": document | {"script": "sim.py"}}) == made
