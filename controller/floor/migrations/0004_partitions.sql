-- Version 4: a floor that runs for years.
--
-- The journal entries are partitioned by the day the floor took them (ingested_at, UTC
-- days) and the hands by the month they started (started_at, UTC months), so that old
-- days and months leave the floor whole: `luck-table floor-retention` detaches them (and
-- archives or drops them) instead of deleting rows. Each partition is in the ledger
-- floor_partitions; floor_make_partition() makes the one a row needs (the ingest calls it,
-- `luck-table floor-retention` makes the coming days ahead of time).
--
-- A floor of an earlier version migrates in place with its data: its entries and its hands
-- become one partition each (from the beginning up to the end of this day, of this month),
-- attached as they are, not copied. That partition leaves the floor like any other once
-- it is older than what is kept.
--
-- A partitioned table's primary key holds its partition key: the entries' key is (table_id,
-- session, position, ingested_at) and the hands' (table_id, session, number, started_at).
-- A position (a hand number) is still held once: the ingest writes a session's entries
-- and hands only under the lock of its floor_table_sessions row, after the position the
-- floor confirmed (controller.floor.ingest).

CREATE TABLE floor_partitions (
    name         text PRIMARY KEY,              -- the partition (a table of this schema)
    parent       text NOT NULL CHECK (parent IN ('floor_journal_entries', 'floor_hands')),
    since        timestamptz,                   -- null: from the beginning
    until        timestamptz NOT NULL,
    made_at      timestamptz NOT NULL DEFAULT now(),
    detached_at  timestamptz                    -- detached, not yet archived or dropped
);
CREATE INDEX floor_partitions_range ON floor_partitions (parent, until);

-- The partition of `parent` that holds rows at `at` (made when there is none), by name.
CREATE FUNCTION floor_make_partition(of_table text, at timestamptz) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    step text := CASE of_table WHEN 'floor_journal_entries' THEN 'day' ELSE 'month' END;
    since_at timestamptz := date_trunc(step, at, 'UTC');
    until_at timestamptz := (date_trunc(step, at, 'UTC') AT TIME ZONE 'UTC'
                             + ('1 ' || step)::interval) AT TIME ZONE 'UTC';
    made text;
BEGIN
    FOR attempt IN 1..2 LOOP
        SELECT p.name INTO made FROM floor_partitions p
        WHERE p.parent = of_table AND p.detached_at IS NULL
          AND coalesce(p.since, '-infinity') <= at AND at < p.until;
        IF made IS NOT NULL THEN
            RETURN made;
        END IF;
        -- one maker at a time; the second look sees what the first made
        PERFORM pg_advisory_xact_lock(x'464C4F4F53'::bigint);
    END LOOP;
    made := of_table || '_' || to_char(since_at AT TIME ZONE 'UTC',
                                       CASE step WHEN 'day' THEN 'YYYYMMDD' ELSE 'YYYYMM' END);
    EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
                   made, of_table, since_at, until_at);
    INSERT INTO floor_partitions (name, parent, since, until)
    VALUES (made, of_table, since_at, until_at);
    RETURN made;
END
$$;

-- The entries ---------------------------------------------------------------------------

ALTER TABLE floor_journal_entries RENAME TO floor_journal_entries_0003;
-- its key is the partitioned table's (built at the attach below: the migration's longest step)
ALTER TABLE floor_journal_entries_0003 DROP CONSTRAINT floor_journal_entries_pkey,
    DROP CONSTRAINT floor_journal_entries_table_id_session_fkey;
CREATE TABLE floor_journal_entries (
    LIKE floor_journal_entries_0003 INCLUDING DEFAULTS INCLUDING CONSTRAINTS
) PARTITION BY RANGE (ingested_at);
ALTER TABLE floor_journal_entries ADD PRIMARY KEY (table_id, session, position, ingested_at);
ALTER TABLE floor_journal_entries ADD CONSTRAINT floor_journal_entries_table_id_session_fkey
    FOREIGN KEY (table_id, session) REFERENCES floor_table_sessions ON UPDATE CASCADE;

-- The hands ------------------------------------------------------------------------------

ALTER TABLE floor_hands RENAME TO floor_hands_0003;
ALTER TABLE floor_hands_0003 DROP CONSTRAINT floor_hands_pkey,
    DROP CONSTRAINT floor_hands_table_id_session_fkey;
DROP INDEX floor_hands_ended;
CREATE TABLE floor_hands (
    LIKE floor_hands_0003 INCLUDING DEFAULTS INCLUDING CONSTRAINTS
) PARTITION BY RANGE (started_at);
ALTER TABLE floor_hands ADD PRIMARY KEY (table_id, session, number, started_at);
ALTER TABLE floor_hands ADD CONSTRAINT floor_hands_table_id_session_fkey
    FOREIGN KEY (table_id, session) REFERENCES floor_table_sessions ON UPDATE CASCADE;
-- The pit's hands per hour (the floor's last hours: an index-only scan of the hours asked),
-- and the hands of a player's stay at a seat.
CREATE INDEX floor_hands_ended ON floor_hands (ended_at)
    INCLUDE (table_id, void, pot, bonus_cards) WHERE ended_at IS NOT NULL;
CREATE INDEX floor_hands_start ON floor_hands (table_id, session, start_position);

-- The views on the hands: the same, on the partitioned table -----------------------------

CREATE OR REPLACE VIEW floor_hands_per_hour AS
SELECT h.table_id,
       date_trunc('hour', h.ended_at) AS hour,
       count(*)::integer AS hands,
       count(*) FILTER (WHERE h.void)::integer AS void_hands,
       coalesce(sum(h.pot), 0)::bigint AS chips_in_pots,
       coalesce(sum(h.bonus_cards), 0)::integer AS bonus_cards
FROM floor_hands h
WHERE h.ended_at IS NOT NULL
GROUP BY h.table_id, date_trunc('hour', h.ended_at);

CREATE OR REPLACE VIEW floor_pot_sizes AS
SELECT h.table_id,
       count(*)::integer AS hands,
       coalesce(sum(h.pot), 0)::bigint AS total,
       coalesce(round(avg(h.pot), 2), 0)::double precision AS average,
       coalesce(max(h.pot), 0)::integer AS largest,
       coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY h.pot), 0)::double precision AS median
FROM floor_hands h
WHERE h.ended_at IS NOT NULL AND NOT h.void
GROUP BY h.table_id;

CREATE OR REPLACE VIEW floor_bonus_cards AS
SELECT h.table_id,
       count(*)::integer AS hands,
       coalesce(sum(h.bonus_cards), 0)::integer AS bonus_cards,
       count(*) FILTER (WHERE h.bonus_cards > 0)::integer AS hands_with_bonus
FROM floor_hands h
WHERE h.ended_at IS NOT NULL
GROUP BY h.table_id;

CREATE OR REPLACE VIEW floor_player_sessions AS
SELECT s.player, s.table_id, t.name AS table_name, s.session, s.seat, s.start_position,
       s.sat_down_at, s.left_at, s.buy_in, s.rebuys, s.cashed_out,
       (SELECT count(*) FROM floor_hands h
        WHERE h.table_id = s.table_id AND h.session = s.session
          AND s.seat = ANY (h.seats) AND h.start_position > s.start_position
          AND (s.end_position IS NULL OR h.start_position < s.end_position))::integer AS hands
FROM floor_seat_sessions s
JOIN floor_tables t USING (table_id);

-- The rows of an earlier version: one partition each, attached as they are (up to the end
-- of this day, of this month, or of the latest row's); none when there are no rows --------

DO $$
DECLARE
    old record;
    latest timestamptz;
    until_at timestamptz;
BEGIN
    FOR old IN SELECT * FROM (VALUES
        ('floor_journal_entries_0003', 'floor_journal_entries', 'ingested_at', 'day'),
        ('floor_hands_0003', 'floor_hands', 'started_at', 'month')) AS o(name, parent, at, step)
    LOOP
        EXECUTE format('SELECT max(%I) FROM %I', old.at, old.name) INTO latest;
        IF latest IS NULL THEN
            EXECUTE format('DROP TABLE %I', old.name);
            CONTINUE;
        END IF;
        until_at := (date_trunc(old.step, greatest(now(), latest), 'UTC') AT TIME ZONE 'UTC'
                     + ('1 ' || old.step)::interval) AT TIME ZONE 'UTC';
        EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%L)',
                       old.parent, old.name, until_at);
        INSERT INTO floor_partitions (name, parent, since, until)
        VALUES (old.name, old.parent, NULL, until_at);
    END LOOP;
END
$$;

-- The pit's other queries ---------------------------------------------------------------

-- The floor's latest supervisor actions, newest first.
CREATE INDEX floor_supervisor_actions_at ON floor_supervisor_actions (at DESC, position DESC,
    ordinal DESC);

-- The rows updated at every batch: each table's status and session (one row each, a new
-- version at each update). Room on each page for the next versions (an update in place,
-- no index touched), and a vacuum after a few hundred updates rather than after a fifth of
-- the table: these tables stay a few pages whatever the uptime.
ALTER TABLE floor_table_status SET (
    fillfactor = 50,
    autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 500,
    autovacuum_vacuum_cost_delay = 0, autovacuum_analyze_scale_factor = 0,
    autovacuum_analyze_threshold = 5000,
    toast.autovacuum_vacuum_scale_factor = 0, toast.autovacuum_vacuum_threshold = 500,
    toast.autovacuum_vacuum_cost_delay = 0
);
ALTER TABLE floor_table_sessions SET (
    fillfactor = 70,
    autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_cost_delay = 0
);
ALTER TABLE floor_tables SET (
    fillfactor = 70,
    autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000
);
