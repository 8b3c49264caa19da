"""The casino floor: every table's journal shipped into one PostgreSQL store (docs/floor.md).

- :mod:`.migrate`: the schema, plain SQL files applied in order (``migrations/``);
- :mod:`.facts`: what a table ships: a batch of journal entries and the facts derived
  from them through the table core;
- :mod:`.ingest`: ingest a batch idempotently (the writing side), :mod:`.queries`: the
  pit's typed queries (the reading side), both under the name :mod:`.store`;
- :mod:`.shipper`: the journal shipper; :mod:`.shipper_process`: the same in a process of
  its own, as each table service runs it;
- :mod:`.retention`: partitions made ahead and old ones taken off the floor.

Not to be confused with ``controller.sim.floor``, the simulated dealer's floor of one table.
"""
