"""The table's past hands, as hand scripts played through the engine (docs/replay.md).

:mod:`.script` reads a hand script, plays it through the rules engine and gives the
outcome (``luck-table replay``); :mod:`.hands` takes each hand of a journal as the table
recorded it, with its script (``luck-table history``, the console's archive, the floor's
``hand_over`` facts). The package imports neither: ``luck-table replay`` loads only the
engine, and the journal and the table core come with :mod:`.hands`.
"""
