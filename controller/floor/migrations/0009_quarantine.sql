-- Version 9 (additive): the journal entries the floor cannot store, kept aside.
--
-- A journal entry the floor cannot hold (PostgreSQL's text and jsonb cannot hold U+0000:
-- a player's name journaled before the console refused such text) or whose facts it cannot
-- apply is not shipped again and again: the shipper keeps it here, with its position and
-- the error, raises the table's alert (kind record_quarantined) and ships on with the next
-- entry (controller.floor.ingest.quarantine, docs/floor.md "Quarantine"). The entry is kept
-- whole: `record` is its fields as JSON text with every character outside ASCII escaped
-- (\u0000 included), which PostgreSQL's text holds and json.loads reads back exactly.

CREATE TABLE floor_quarantine (
    table_id        text NOT NULL,
    session         integer NOT NULL,
    position        bigint NOT NULL CHECK (position > 0),
    recorded_at     double precision NOT NULL,
    source          text NOT NULL,
    type            text NOT NULL,
    record          text NOT NULL,             -- the entry's fields, ASCII JSON
    chain           bytea,
    error           text NOT NULL,             -- why the floor could not store it
    quarantined_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, session, position),
    FOREIGN KEY (table_id, session) REFERENCES floor_table_sessions ON UPDATE CASCADE
);
