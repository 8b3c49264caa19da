"""The table's past: its journal read back through the table core, and its hands as hand
scripts played through the engine (docs/replay.md).

:mod:`.records` turns the journal's records into the table core's inputs (and back),
:mod:`.recovery` rebuilds the table from its journal (the service's start, every reader
of a journal), :mod:`.hands` takes each hand of a journal as the table recorded it, with
its script (``luck-table history``, the console's archive, the floor's ``hand_over``
facts), and :mod:`.script` reads a hand script, plays it through the rules engine and
gives the outcome (``luck-table replay``). The package imports none of them:
``luck-table replay`` loads only the engine.
"""
