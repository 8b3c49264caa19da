-- The floor store, version 1: every table's journal as shipped, and the facts derived from it.
-- A table is keyed by its configured id; each journal a table has had is one of its sessions
-- (a new journal, after a reset, is a new session); journal entries are keyed by
-- (table id, session, journal position).

CREATE TABLE floor_tables (
    table_id      text PRIMARY KEY,
    name          text NOT NULL,
    first_seen    timestamptz NOT NULL DEFAULT now(),
    session       integer NOT NULL DEFAULT 0   -- the table's current session (its latest journal)
);

CREATE TABLE floor_table_sessions (
    table_id           text NOT NULL REFERENCES floor_tables,
    session            integer NOT NULL CHECK (session > 0),
    journal_created    double precision NOT NULL,  -- the journal's creation time: its identity
    journal_path       text NOT NULL,
    confirmed_position bigint NOT NULL DEFAULT 0 CHECK (confirmed_position >= 0),
    first_seen         timestamptz NOT NULL DEFAULT now(),
    last_seen          timestamptz NOT NULL DEFAULT now(),  -- the floor's clock, at each batch or heartbeat
    shipper            text NOT NULL DEFAULT '',             -- host and process of the last shipper
    PRIMARY KEY (table_id, session),
    UNIQUE (table_id, journal_created)
);

-- Every journal entry exactly as the table's journal holds it.
CREATE TABLE floor_journal_entries (
    table_id      text NOT NULL,
    session       integer NOT NULL,
    position      bigint NOT NULL CHECK (position > 0),
    recorded_at   double precision NOT NULL,
    source        text NOT NULL,
    type          text NOT NULL,
    fields        jsonb NOT NULL,
    device_kind   text,
    serial        text,
    boot_id       bigint,
    seq           integer,
    event_number  bigint,
    PRIMARY KEY (table_id, session, position),
    FOREIGN KEY (table_id, session) REFERENCES floor_table_sessions
);

CREATE TABLE floor_hands (
    table_id        text NOT NULL,
    session         integer NOT NULL,
    number          integer NOT NULL CHECK (number > 0),
    started_at      timestamptz NOT NULL,
    ended_at        timestamptz,               -- null while the hand is in progress
    seats           integer[] NOT NULL,        -- the seats dealt in
    start_position  bigint NOT NULL,
    end_position    bigint,
    void            boolean,
    pot             integer,                   -- chips in the pots at the end (0 for a void hand)
    bonus_cards     integer,                   -- bonus cards dealt in the hand
    recorded        boolean,                   -- the script replays to the outcome the table recorded
    script          jsonb,                     -- the hand script (docs/replay.md)
    outcome         jsonb,                     -- what `luck-table replay --json` prints for it
    PRIMARY KEY (table_id, session, number),
    FOREIGN KEY (table_id, session) REFERENCES floor_table_sessions
);
CREATE INDEX floor_hands_ended ON floor_hands (ended_at);

-- Buy-ins, rebuys and cash-outs, in journal order.
CREATE TABLE floor_chip_movements (
    table_id   text NOT NULL,
    session    integer NOT NULL,
    position   bigint NOT NULL,
    ordinal    integer NOT NULL,               -- its place among the facts of that position
    kind       text NOT NULL CHECK (kind IN ('buy_in', 'rebuy', 'cash_out')),
    seat       integer NOT NULL,
    player     text NOT NULL,
    chips      integer NOT NULL CHECK (chips >= 0),
    at         timestamptz NOT NULL,
    PRIMARY KEY (table_id, session, position, ordinal),
    FOREIGN KEY (table_id, session) REFERENCES floor_table_sessions
);

-- A player's stay at a seat: from sitting down to leaving.
CREATE TABLE floor_seat_sessions (
    table_id        text NOT NULL,
    session         integer NOT NULL,
    start_position  bigint NOT NULL,
    seat            integer NOT NULL,
    player          text NOT NULL,
    sat_down_at     timestamptz NOT NULL,
    buy_in          integer NOT NULL,
    rebuys          integer NOT NULL DEFAULT 0,
    cashed_out      integer,                   -- null while seated
    left_at         timestamptz,
    end_position    bigint,
    PRIMARY KEY (table_id, session, start_position),
    FOREIGN KEY (table_id, session) REFERENCES floor_table_sessions
);
CREATE UNIQUE INDEX floor_seat_sessions_open ON floor_seat_sessions (table_id, session, seat)
    WHERE end_position IS NULL;
CREATE INDEX floor_seat_sessions_player ON floor_seat_sessions (player);

CREATE TABLE floor_alerts (
    table_id         text NOT NULL,
    session          integer NOT NULL,
    alert_id         integer NOT NULL,
    kind             text NOT NULL,
    severity         text NOT NULL,
    blocking         boolean NOT NULL,
    message          text NOT NULL,
    remedy           text NOT NULL,
    seat             integer,
    card             text,
    device           text,
    hand_number      integer NOT NULL,         -- the table's hand number when it was raised
    raised_at        timestamptz NOT NULL,
    raised_position  bigint NOT NULL,
    cleared_at       timestamptz,              -- null while open
    cleared_position bigint,
    resolution       text,                     -- how it cleared, in words
    resolved_by      text,                     -- the supervisor, when one resolved it
    resolved_why     text,
    resolved_remedy  text,                     -- hold, dead or done, when resolved so
    PRIMARY KEY (table_id, session, alert_id),
    FOREIGN KEY (table_id, session) REFERENCES floor_table_sessions
);
CREATE INDEX floor_alerts_open ON floor_alerts (table_id) WHERE cleared_at IS NULL;

CREATE TABLE floor_supervisor_actions (
    table_id     text NOT NULL,
    session      integer NOT NULL,
    position     bigint NOT NULL,
    ordinal      integer NOT NULL,
    action       text NOT NULL,                -- the input: void_hand, resolve_alert, ...
    who          text NOT NULL,
    why          text NOT NULL,
    message      text NOT NULL,
    hand_number  integer NOT NULL,
    details      jsonb NOT NULL,               -- the input as the journal holds it
    at           timestamptz NOT NULL,
    PRIMARY KEY (table_id, session, position, ordinal),
    FOREIGN KEY (table_id, session) REFERENCES floor_table_sessions
);

-- Each table's live status, as of its last confirmed position.
CREATE TABLE floor_table_status (
    table_id       text PRIMARY KEY REFERENCES floor_tables,
    session        integer NOT NULL,
    state          text NOT NULL CHECK (state IN ('dealing', 'paused', 'idle')),
    hand_number    integer NOT NULL,
    display        text NOT NULL,
    alert_id       integer,                    -- paused: the first blocking alert
    alert_kind     text,
    alert_message  text,
    open_alerts    integer NOT NULL,
    seats          jsonb NOT NULL,             -- [{"seat", "player", "stack", "sitting_out"}]
    last_position  bigint NOT NULL,
    last_entry_at  timestamptz,                -- the table's clock: its last entry's time
    updated_at     timestamptz NOT NULL DEFAULT now()  -- the floor's clock
);

-- What a pit boss asks -------------------------------------------------------------------

CREATE VIEW floor_hands_per_hour AS
SELECT h.table_id,
       date_trunc('hour', h.ended_at) AS hour,
       count(*)::integer AS hands,
       count(*) FILTER (WHERE h.void)::integer AS void_hands,
       coalesce(sum(h.pot), 0)::bigint AS chips_in_pots,
       coalesce(sum(h.bonus_cards), 0)::integer AS bonus_cards
FROM floor_hands h
WHERE h.ended_at IS NOT NULL
GROUP BY h.table_id, date_trunc('hour', h.ended_at);

CREATE VIEW floor_pot_sizes AS
SELECT h.table_id,
       count(*)::integer AS hands,
       coalesce(sum(h.pot), 0)::bigint AS total,
       coalesce(round(avg(h.pot), 2), 0)::double precision AS average,
       coalesce(max(h.pot), 0)::integer AS largest,
       coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY h.pot), 0)::double precision AS median
FROM floor_hands h
WHERE h.ended_at IS NOT NULL AND NOT h.void
GROUP BY h.table_id;

CREATE VIEW floor_bonus_cards AS
SELECT h.table_id,
       count(*)::integer AS hands,
       coalesce(sum(h.bonus_cards), 0)::integer AS bonus_cards,
       count(*) FILTER (WHERE h.bonus_cards > 0)::integer AS hands_with_bonus
FROM floor_hands h
WHERE h.ended_at IS NOT NULL
GROUP BY h.table_id;

CREATE VIEW floor_open_alerts AS
SELECT a.table_id, t.name AS table_name, a.session, a.alert_id, a.kind, a.severity,
       a.blocking, a.message, a.remedy, a.seat, a.card, a.device, a.hand_number,
       a.raised_at, a.raised_position
FROM floor_alerts a
JOIN floor_tables t USING (table_id)
WHERE a.cleared_at IS NULL AND a.session = t.session;

CREATE VIEW floor_player_sessions AS
SELECT s.player, s.table_id, t.name AS table_name, s.session, s.seat, s.start_position,
       s.sat_down_at, s.left_at, s.buy_in, s.rebuys, s.cashed_out,
       (SELECT count(*) FROM floor_hands h
        WHERE h.table_id = s.table_id AND h.session = s.session
          AND s.seat = ANY (h.seats) AND h.start_position > s.start_position
          AND (s.end_position IS NULL OR h.start_position < s.end_position))::integer AS hands
FROM floor_seat_sessions s
JOIN floor_tables t USING (table_id);

CREATE VIEW floor_table_overview AS
SELECT t.table_id, t.name, st.session, st.state, st.hand_number, st.display, st.alert_id,
       st.alert_kind, st.alert_message, st.open_alerts, st.seats, st.last_position,
       st.last_entry_at, ss.last_seen, ss.confirmed_position
FROM floor_tables t
JOIN floor_table_status st USING (table_id)
JOIN floor_table_sessions ss ON ss.table_id = t.table_id AND ss.session = st.session;
