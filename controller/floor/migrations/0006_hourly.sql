-- Version 6 (additive): the hands per hour kept as hands end, for the pit's hourly figures.
--
-- floor_hands_hourly holds, per table and UTC hour, the hands that ended in it with their
-- void hands, chips in pots and bonus cards: what the view floor_hands_per_hour gave by
-- grouping every hand. A trigger on the hands keeps it in the transaction that ends a hand
-- (whatever release's ingest ends it), moves a hand's figures when its table is renamed,
-- and fires at a group's central database too (ENABLE ALWAYS: logical replication's
-- apply runs as a replica, where ordinary triggers do not fire). The floor's last hours
-- are then a few rows a table and hour, not every hand of those hours.
--
-- A partition of hands taken off the floor (controller.floor.retention) takes its hands'
-- figures with it, in the transaction that drops it: the totals stay the sums of the hands
-- the floor holds.

CREATE TABLE floor_hands_hourly (
    table_id       text NOT NULL,
    hour           timestamptz NOT NULL,         -- the start of a UTC hour
    hands          integer NOT NULL,
    void_hands     integer NOT NULL,
    chips_in_pots  bigint NOT NULL,
    bonus_cards    integer NOT NULL,
    PRIMARY KEY (table_id, hour)
) WITH (
    -- the current hour's row of each table is a new version at each hand's end
    fillfactor = 80,
    autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 1000
);
-- The floor's last hours (every table): an index-only scan of the hours asked.
CREATE INDEX floor_hands_hourly_hour ON floor_hands_hourly (hour)
    INCLUDE (table_id, hands, void_hands, chips_in_pots, bonus_cards);

CREATE FUNCTION floor_hands_hourly_count() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.ended_at IS NOT NULL THEN
        UPDATE floor_hands_hourly
        SET hands = hands - 1,
            void_hands = void_hands - coalesce(OLD.void, false)::integer,
            chips_in_pots = chips_in_pots - coalesce(OLD.pot, 0),
            bonus_cards = bonus_cards - coalesce(OLD.bonus_cards, 0)
        WHERE table_id = OLD.table_id AND hour = date_trunc('hour', OLD.ended_at, 'UTC');
        DELETE FROM floor_hands_hourly
        WHERE table_id = OLD.table_id AND hour = date_trunc('hour', OLD.ended_at, 'UTC')
          AND hands <= 0;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.ended_at IS NOT NULL THEN
        INSERT INTO floor_hands_hourly AS h
            (table_id, hour, hands, void_hands, chips_in_pots, bonus_cards)
        VALUES (NEW.table_id, date_trunc('hour', NEW.ended_at, 'UTC'), 1,
                coalesce(NEW.void, false)::integer, coalesce(NEW.pot, 0),
                coalesce(NEW.bonus_cards, 0))
        ON CONFLICT (table_id, hour) DO UPDATE
        SET hands = h.hands + 1,
            void_hands = h.void_hands + excluded.void_hands,
            chips_in_pots = h.chips_in_pots + excluded.chips_in_pots,
            bonus_cards = h.bonus_cards + excluded.bonus_cards;
    END IF;
    RETURN NULL;
END
$$;

-- An update of the script alone (a hand in progress) does not fire it.
CREATE TRIGGER floor_hands_hourly
AFTER INSERT OR DELETE OR UPDATE OF table_id, ended_at, void, pot, bonus_cards ON floor_hands
FOR EACH ROW EXECUTE FUNCTION floor_hands_hourly_count();
ALTER TABLE floor_hands ENABLE ALWAYS TRIGGER floor_hands_hourly;

-- The hands the floor holds already (a floor migrated in place).
INSERT INTO floor_hands_hourly (table_id, hour, hands, void_hands, chips_in_pots, bonus_cards)
SELECT table_id, date_trunc('hour', ended_at, 'UTC'), count(*),
       count(*) FILTER (WHERE void), coalesce(sum(pot), 0), coalesce(sum(bonus_cards), 0)
FROM floor_hands
WHERE ended_at IS NOT NULL
GROUP BY 1, 2;

-- The view's rows, from the totals.
CREATE OR REPLACE VIEW floor_hands_per_hour AS
SELECT table_id, hour, hands, void_hands, chips_in_pots, bonus_cards
FROM floor_hands_hourly;
