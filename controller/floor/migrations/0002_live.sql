-- Version 2 (additive): when the floor took each entry (the lag from a table's commit to
-- the floor is ingested_at - to_timestamp(recorded_at)), and the hand in progress in each
-- table's live status (the engine's hand, every card included: for surveillance).

ALTER TABLE floor_journal_entries ADD COLUMN ingested_at timestamptz NOT NULL DEFAULT now();
ALTER TABLE floor_table_status ADD COLUMN hand jsonb;

CREATE OR REPLACE VIEW floor_table_overview AS
SELECT t.table_id, t.name, st.session, st.state, st.hand_number, st.display, st.alert_id,
       st.alert_kind, st.alert_message, st.open_alerts, st.seats, st.last_position,
       st.last_entry_at, ss.last_seen, ss.confirmed_position, st.hand
FROM floor_tables t
JOIN floor_table_status st USING (table_id)
JOIN floor_table_sessions ss ON ss.table_id = t.table_id AND ss.session = st.session;
