-- Version 3 (additive): each journal's identity, bound to one table id; the hash chain of
-- its entries, checked as they arrive; alerts the floor raises about a table's journal;
-- table ids that follow a rename (luck-table floor-bind --renamed-from).

-- The journal's own id (made with the journal; null: shipped by an earlier release, taken
-- on at its next connection) and the chain at confirmed_position (null: none yet).
ALTER TABLE floor_table_sessions ADD COLUMN journal_id text;
ALTER TABLE floor_table_sessions ADD COLUMN chain bytea;
CREATE UNIQUE INDEX floor_table_sessions_journal ON floor_table_sessions (journal_id);
-- The id names a journal now: a journal restored from a backup and given a new id is a new
-- session with its creation time unchanged.
ALTER TABLE floor_table_sessions DROP CONSTRAINT floor_table_sessions_table_id_journal_created_key;

-- Each entry's link in its journal's hash chain (null: written before the journal had one).
ALTER TABLE floor_journal_entries ADD COLUMN chain bytea;

-- An alert the floor raised about a journal (refused, diverged) names it; its alert_id is
-- negative (a table's own alerts count up from 1).
ALTER TABLE floor_alerts ADD COLUMN journal_id text;
CREATE INDEX floor_alerts_journal ON floor_alerts (journal_id) WHERE cleared_at IS NULL;

-- A table id changes with everything under it. NOT VALID: the constraints these replace
-- held for every row, so the rows are not read again (a large floor upgrades at once).
ALTER TABLE floor_table_sessions DROP CONSTRAINT floor_table_sessions_table_id_fkey,
    ADD CONSTRAINT floor_table_sessions_table_id_fkey FOREIGN KEY (table_id)
        REFERENCES floor_tables ON UPDATE CASCADE NOT VALID;
ALTER TABLE floor_table_status DROP CONSTRAINT floor_table_status_table_id_fkey,
    ADD CONSTRAINT floor_table_status_table_id_fkey FOREIGN KEY (table_id)
        REFERENCES floor_tables ON UPDATE CASCADE NOT VALID;
ALTER TABLE floor_journal_entries DROP CONSTRAINT floor_journal_entries_table_id_session_fkey,
    ADD CONSTRAINT floor_journal_entries_table_id_session_fkey FOREIGN KEY (table_id, session)
        REFERENCES floor_table_sessions ON UPDATE CASCADE NOT VALID;
ALTER TABLE floor_hands DROP CONSTRAINT floor_hands_table_id_session_fkey,
    ADD CONSTRAINT floor_hands_table_id_session_fkey FOREIGN KEY (table_id, session)
        REFERENCES floor_table_sessions ON UPDATE CASCADE NOT VALID;
ALTER TABLE floor_chip_movements DROP CONSTRAINT floor_chip_movements_table_id_session_fkey,
    ADD CONSTRAINT floor_chip_movements_table_id_session_fkey FOREIGN KEY (table_id, session)
        REFERENCES floor_table_sessions ON UPDATE CASCADE NOT VALID;
ALTER TABLE floor_seat_sessions DROP CONSTRAINT floor_seat_sessions_table_id_session_fkey,
    ADD CONSTRAINT floor_seat_sessions_table_id_session_fkey FOREIGN KEY (table_id, session)
        REFERENCES floor_table_sessions ON UPDATE CASCADE NOT VALID;
ALTER TABLE floor_alerts DROP CONSTRAINT floor_alerts_table_id_session_fkey,
    ADD CONSTRAINT floor_alerts_table_id_session_fkey FOREIGN KEY (table_id, session)
        REFERENCES floor_table_sessions ON UPDATE CASCADE NOT VALID;
ALTER TABLE floor_supervisor_actions
    DROP CONSTRAINT floor_supervisor_actions_table_id_session_fkey,
    ADD CONSTRAINT floor_supervisor_actions_table_id_session_fkey FOREIGN KEY (table_id, session)
        REFERENCES floor_table_sessions ON UPDATE CASCADE NOT VALID;
