-- Version 5 (additive): game protection. Every deck a table registered (its tag UIDs by
-- card), each table's live deck (the last one it registered) with its tags indexed by
-- UID, so that a tag in the live decks of two tables is found at once; and each table's
-- tag checks and deck life in its live status.

CREATE TABLE floor_decks (
    table_id       text NOT NULL,
    session        integer NOT NULL,
    position       bigint NOT NULL,                -- the journal entry that registered it
    deck           bigint NOT NULL,                -- the shoe's id of the deck
    registered_at  timestamptz NOT NULL,           -- the table's clock
    tags           jsonb NOT NULL,                 -- {"2c": "04a1...", ...}: 52 tag UIDs by card
    PRIMARY KEY (table_id, session, position),
    FOREIGN KEY (table_id, session) REFERENCES floor_table_sessions ON UPDATE CASCADE
);

-- The tags of each table's live deck: replaced whole when the table registers another.
CREATE TABLE floor_live_tags (
    table_id  text NOT NULL REFERENCES floor_tables ON UPDATE CASCADE,
    uid       text NOT NULL,
    card      text NOT NULL,
    session   integer NOT NULL,
    position  bigint NOT NULL,                     -- the deck's registration
    PRIMARY KEY (table_id, uid)
);
CREATE INDEX floor_live_tags_uid ON floor_live_tags (uid);

-- A tag in the live decks of two tables (each pair both ways): a card of one deck in
-- another's, or a cloned tag.
CREATE VIEW floor_shared_tags AS
SELECT a.uid, a.table_id, a.card, b.table_id AS other_table_id, b.card AS other_card
FROM floor_live_tags a
JOIN floor_live_tags b ON b.uid = a.uid AND b.table_id <> a.table_id;

ALTER TABLE floor_table_status ADD COLUMN tag_checks boolean;   -- null: shipped before
ALTER TABLE floor_table_status ADD COLUMN deck_hands integer;   -- null: no deck loaded
ALTER TABLE floor_table_status ADD COLUMN deck_since timestamptz;

CREATE OR REPLACE VIEW floor_table_overview AS
SELECT t.table_id, t.name, st.session, st.state, st.hand_number, st.display, st.alert_id,
       st.alert_kind, st.alert_message, st.open_alerts, st.seats, st.last_position,
       st.last_entry_at, ss.last_seen, ss.confirmed_position, st.hand,
       st.tag_checks, st.deck_hands, st.deck_since,
       (SELECT count(DISTINCT s.uid) FROM floor_shared_tags s
        WHERE s.table_id = t.table_id)::integer AS shared_tags
FROM floor_tables t
JOIN floor_table_status st USING (table_id)
JOIN floor_table_sessions ss ON ss.table_id = t.table_id AND ss.session = st.session;
