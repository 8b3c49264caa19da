"""The root of the project's errors.

Every error the project raises on purpose (a bad configuration, a refused input, a
journal that cannot be read, a driver's lost link, a refused sign-in...) is a
:class:`LuckTableError`, so that a caller may tell the project's errors, each with a
message saying what was wrong and where, from a fault in the code. An error that is also
a bad value or a failed operation in Python's terms stays one too (``ConfigError`` is a
``ValueError``, ``TableStopped`` a ``RuntimeError``).

A package of its own below every layer, importing nothing: the engine, the drivers, the
simulated firmware and the consoles each derive their errors from it without importing
anything of one another (docs/architecture.md, "The error root").
"""


class LuckTableError(Exception):
    """Base of every error the project raises: its message says what was wrong."""
