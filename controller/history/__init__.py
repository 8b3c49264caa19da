"""The table's past: its recorded hands read back from the journal, and hand scripts played
through the engine (docs/replay.md).

:mod:`.hands` takes each hand of a journal as the table recorded it, with its script
(``luck-table history``, the console's archive, the floor's ``hand_over`` facts),
:mod:`.index` the index of hands, and :mod:`.script` reads a hand script, plays it through
the rules engine and gives the outcome (``luck-table replay``). The live path (a journal
record to the table core's inputs, recovery, the studio's lagging read of the journal) is
not here: it is :mod:`controller.records`, :mod:`controller.recovery` and
:mod:`controller.recovery.lagging`. The package imports none of its modules:
``luck-table replay`` loads only the engine.
"""
