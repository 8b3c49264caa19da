"""The design card's import rules, checked on the source: data flows one way.

| package | may import of the project |
| controller/rules | nothing |
| drivers | nothing of controller |
| firmware_sim | only the protocol spec (drivers.protocol), not the drivers' internals |
| luck_errors | nothing |

Every package may import ``luck_errors``, the root of the project's errors, which imports
nothing.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT_PACKAGES = ("controller", "drivers", "firmware_sim", "dealer_ui", "luck_errors")
ERRORS = "luck_errors"  # the error root: imports nothing, so anyone may import it


def imported_project_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return {name for name in names if name.split(".")[0] in PROJECT_PACKAGES}


def sources(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def allowed_for(path: Path) -> tuple[str, ...]:
    """Module prefixes that the file at ``path`` may import."""
    parts = path.relative_to(ROOT).parts
    if parts[0] == ERRORS:
        return ()
    if parts[:2] == ("controller", "rules"):
        return ("controller.rules", ERRORS)
    if parts[:2] == ("drivers", "protocol"):
        return ("drivers.protocol", ERRORS)
    if parts[0] == "drivers":
        return ("drivers", ERRORS)
    if parts[0] == "firmware_sim":
        return ("firmware_sim", "drivers.protocol", ERRORS)
    return PROJECT_PACKAGES


RESTRICTED = [
    path
    for folder in ("controller/rules", "drivers", "firmware_sim", ERRORS)
    for path in sources(folder)
]


@pytest.mark.parametrize("path", RESTRICTED, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_follow_the_design_card(path):
    allowed = allowed_for(path)
    offending = {
        name
        for name in imported_project_modules(path)
        if not any(name == prefix or name.startswith(prefix + ".") for prefix in allowed)
    }
    assert not offending, f"{path.relative_to(ROOT)} imports {sorted(offending)}"


def test_the_check_sees_a_violation(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import os\nfrom controller.cli import main\nimport drivers.serial_link\n")
    assert imported_project_modules(bad) == {"controller.cli", "drivers.serial_link"}
