"""One root for the project's errors: every exception class the project defines is a
``luck_errors.LuckTableError`` (but for the signals that never leave their module)."""

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

from controller.rules import Illegal
from controller.service import Halted
from controller.table import Refuse
from dealer_ui.auth import Denied
from dealer_ui.codes import Declined
from luck_errors import LuckTableError

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("controller", "drivers", "firmware_sim", "dealer_ui", "luck_errors")
#: Not errors: a command's way out of a loop, caught where it is raised.
SIGNALS = {"firmware_sim.control.QuitRequested"}


def project_modules() -> list[str]:
    names = []
    for package in PACKAGES:
        names.append(package)
        path = [str(ROOT / package)]
        names += [info.name for info in pkgutil.walk_packages(path, f"{package}.")]
    return sorted(name for name in names if not name.endswith("__main__"))


def exceptions_of(module_name: str) -> list[type[BaseException]]:
    module = importlib.import_module(module_name)
    return [
        cls
        for name, cls in vars(module).items()
        if inspect.isclass(cls)
        and issubclass(cls, BaseException)
        and cls.__module__ == module_name
        and not name.startswith("_")
        and f"{module_name}.{name}" not in SIGNALS
    ]


@pytest.mark.parametrize("module_name", project_modules())
def test_every_error_of_the_project_derives_from_the_root(module_name):
    strays = [
        cls.__name__ for cls in exceptions_of(module_name) if not issubclass(cls, LuckTableError)
    ]
    assert not strays, f"{module_name}: {strays} do not derive from LuckTableError"


def test_the_check_sees_a_stray_error(tmp_path, monkeypatch):
    (tmp_path / "stray_errors.py").write_text("class Stray(ValueError):\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert [cls.__name__ for cls in exceptions_of("stray_errors")] == ["Stray"]


def test_the_root_imports_nothing():
    tree = ast.parse((ROOT / "luck_errors" / "__init__.py").read_text(encoding="utf-8"))
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)]


def test_a_configuration_error_is_still_a_value_error():
    from controller.config_file import ConfigError  # noqa: PLC0415

    error = ConfigError("table.id", "", "a non-empty string")
    assert isinstance(error, LuckTableError) and isinstance(error, ValueError)


def test_the_api_s_codes_are_each_one_meaning() -> None:
    """An error answer's ``code`` (docs/api.md, "Errors") is the table's (the table core's
    and the engine's, which share the codes of the refusals they share), a credential's, a
    halted table's or the API's own: none of the last three is another's value."""
    table = {code.value for code in (*Refuse, *Illegal)}
    others = [{code.value for code in kind} for kind in (Denied, Halted, Declined)]
    assert sum(map(len, others)) == len(set().union(*others))
    assert not table & set().union(*others)
