"""The property tests' hypothesis profiles, and how many examples a test asks for.

Two profiles: the default one (hypothesis' own, 100 examples unless a test asks for more),
which ``make test`` runs, and ``fast`` (``pytest --hypothesis-profile=fast``, which
``make test-fast`` runs): a few examples each, to catch a broken property within seconds
while the full suite explores. ``tests/conftest.py`` registers them before the hypothesis
plugin loads the one named on the command line.

A test that wants more examples than the default asks through :func:`examples`, so that the
fast profile still keeps it short::

    @settings(max_examples=examples(500), deadline=None)
"""

from hypothesis import settings

#: The fast loop's examples a test, at most.
FAST_EXAMPLES = 10

settings.register_profile("fast", max_examples=FAST_EXAMPLES)


def examples(wanted: int) -> int:
    """``wanted`` examples; under the fast profile no more than it allows."""
    if settings.get_current_profile_name() == "fast":
        return min(wanted, settings.default.max_examples)
    return wanted
