-- Version 10 (additive): the house's side of the floor: the rake, the jackpot drop and the
-- time charges of each hand, the dealer who dealt it, and the player card numbers given at
-- sit-down.
--
-- floor_hands gains the hand's rake and jackpot drop (as the table took them: 0 for a void
-- hand, whose take was given back; null where the rules set no take, and for the hands of
-- earlier releases), the time charges collected as it began (`time_charge`, null where
-- none were), its dealer (the id the table's console signed in with, null when the journal does
-- not name one) and `dealt`, the dealer's time on the hand: from the end of the table's
-- hand before when the same dealer dealt it and it ended at most 10 minutes before this
-- one started, else from this hand's own start (set as the hand ends, docs/floor.md).
--
-- The hourly totals (floor_hands_hourly) gain the rake, the drop and the time charges;
-- floor_dealer_hourly keeps, per dealer, table and UTC hour, the hands ended, their rake,
-- drop and time charges and the
-- dealer's time: the same trigger keeps both in the transaction that ends a hand. A
-- dealer of '' is a hand whose journal names none.
--
-- floor_seat_sessions and floor_chip_movements gain the player card number (`player_id`)
-- given at sit-down (null when none): a rebuy and the cash-out carry the sitting's.

ALTER TABLE floor_hands
    ADD COLUMN rake integer,
    ADD COLUMN jackpot_drop integer,
    ADD COLUMN time_charge integer,
    ADD COLUMN dealer text,
    ADD COLUMN dealt interval;

ALTER TABLE floor_hands_hourly
    ADD COLUMN rake bigint NOT NULL DEFAULT 0,
    ADD COLUMN jackpot_drop bigint NOT NULL DEFAULT 0,
    ADD COLUMN time_charge bigint NOT NULL DEFAULT 0;

CREATE TABLE floor_dealer_hourly (
    dealer         text NOT NULL,                -- '' when the journal names none
    table_id       text NOT NULL,
    hour           timestamptz NOT NULL,         -- the start of a UTC hour
    hands          integer NOT NULL,
    void_hands     integer NOT NULL,
    rake           bigint NOT NULL,
    jackpot_drop   bigint NOT NULL,
    time_charge    bigint NOT NULL,
    dealt          interval NOT NULL,            -- the dealer's time on those hands
    PRIMARY KEY (dealer, table_id, hour)
) WITH (fillfactor = 80, autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 1000);
-- A gaming day's dealers (every table): an index-only scan of the hours asked.
CREATE INDEX floor_dealer_hourly_hour ON floor_dealer_hourly (hour)
    INCLUDE (dealer, table_id, hands, void_hands, rake, jackpot_drop, time_charge, dealt);

CREATE OR REPLACE FUNCTION floor_hands_hourly_count() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.ended_at IS NOT NULL THEN
        UPDATE floor_hands_hourly
        SET hands = hands - 1,
            void_hands = void_hands - coalesce(OLD.void, false)::integer,
            chips_in_pots = chips_in_pots - coalesce(OLD.pot, 0),
            bonus_cards = bonus_cards - coalesce(OLD.bonus_cards, 0),
            rake = rake - coalesce(OLD.rake, 0),
            jackpot_drop = jackpot_drop - coalesce(OLD.jackpot_drop, 0),
            time_charge = time_charge - coalesce(OLD.time_charge, 0)
        WHERE table_id = OLD.table_id AND hour = date_trunc('hour', OLD.ended_at, 'UTC');
        DELETE FROM floor_hands_hourly
        WHERE table_id = OLD.table_id AND hour = date_trunc('hour', OLD.ended_at, 'UTC')
          AND hands <= 0;
        UPDATE floor_dealer_hourly
        SET hands = hands - 1,
            void_hands = void_hands - coalesce(OLD.void, false)::integer,
            rake = rake - coalesce(OLD.rake, 0),
            jackpot_drop = jackpot_drop - coalesce(OLD.jackpot_drop, 0),
            time_charge = time_charge - coalesce(OLD.time_charge, 0),
            dealt = dealt - coalesce(OLD.dealt, interval '0')
        WHERE dealer = coalesce(OLD.dealer, '') AND table_id = OLD.table_id
          AND hour = date_trunc('hour', OLD.ended_at, 'UTC');
        DELETE FROM floor_dealer_hourly
        WHERE dealer = coalesce(OLD.dealer, '') AND table_id = OLD.table_id
          AND hour = date_trunc('hour', OLD.ended_at, 'UTC') AND hands <= 0;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.ended_at IS NOT NULL THEN
        INSERT INTO floor_hands_hourly AS h
            (table_id, hour, hands, void_hands, chips_in_pots, bonus_cards, rake, jackpot_drop,
             time_charge)
        VALUES (NEW.table_id, date_trunc('hour', NEW.ended_at, 'UTC'), 1,
                coalesce(NEW.void, false)::integer, coalesce(NEW.pot, 0),
                coalesce(NEW.bonus_cards, 0), coalesce(NEW.rake, 0),
                coalesce(NEW.jackpot_drop, 0), coalesce(NEW.time_charge, 0))
        ON CONFLICT (table_id, hour) DO UPDATE
        SET hands = h.hands + 1,
            void_hands = h.void_hands + excluded.void_hands,
            chips_in_pots = h.chips_in_pots + excluded.chips_in_pots,
            bonus_cards = h.bonus_cards + excluded.bonus_cards,
            rake = h.rake + excluded.rake,
            jackpot_drop = h.jackpot_drop + excluded.jackpot_drop,
            time_charge = h.time_charge + excluded.time_charge;
        INSERT INTO floor_dealer_hourly AS d
            (dealer, table_id, hour, hands, void_hands, rake, jackpot_drop, time_charge, dealt)
        VALUES (coalesce(NEW.dealer, ''), NEW.table_id, date_trunc('hour', NEW.ended_at, 'UTC'),
                1, coalesce(NEW.void, false)::integer, coalesce(NEW.rake, 0),
                coalesce(NEW.jackpot_drop, 0), coalesce(NEW.time_charge, 0),
                coalesce(NEW.dealt, interval '0'))
        ON CONFLICT (dealer, table_id, hour) DO UPDATE
        SET hands = d.hands + 1,
            void_hands = d.void_hands + excluded.void_hands,
            rake = d.rake + excluded.rake,
            jackpot_drop = d.jackpot_drop + excluded.jackpot_drop,
            time_charge = d.time_charge + excluded.time_charge,
            dealt = d.dealt + excluded.dealt;
    END IF;
    RETURN NULL;
END
$$;

-- Fired by the house's columns too (an update of the script alone still does not fire it).
DROP TRIGGER floor_hands_hourly ON floor_hands;
CREATE TRIGGER floor_hands_hourly
AFTER INSERT OR DELETE OR UPDATE OF table_id, ended_at, void, pot, bonus_cards, rake,
    jackpot_drop, time_charge, dealer, dealt ON floor_hands
FOR EACH ROW EXECUTE FUNCTION floor_hands_hourly_count();
ALTER TABLE floor_hands ENABLE ALWAYS TRIGGER floor_hands_hourly;

-- The hands the floor holds already (a floor migrated in place): no dealer named, no take,
-- no dealer's time (their `dealt` is null).
INSERT INTO floor_dealer_hourly (dealer, table_id, hour, hands, void_hands, rake, jackpot_drop,
                                 time_charge, dealt)
SELECT '', table_id, date_trunc('hour', ended_at, 'UTC'), count(*),
       count(*) FILTER (WHERE void), 0, 0, 0, interval '0'
FROM floor_hands
WHERE ended_at IS NOT NULL
GROUP BY 2, 3;

ALTER TABLE floor_seat_sessions ADD COLUMN player_id text;
ALTER TABLE floor_chip_movements ADD COLUMN player_id text;
-- The cash a gaming day's identified players bought in with (the multiple-transaction log).
CREATE INDEX floor_chip_movements_cash ON floor_chip_movements (at)
    INCLUDE (player_id, kind, chips, table_id) WHERE player_id IS NOT NULL;

-- A player's stays: with the card number, and the time seated (while seated: to the latest
-- hand the floor holds of that table's session, its end or its start, by the table's clock;
-- from the hands, which a group's central database gathers too, so both say the same).
CREATE OR REPLACE VIEW floor_player_sessions AS
SELECT s.player, s.table_id, t.name AS table_name, s.session, s.seat, s.start_position,
       s.sat_down_at, s.left_at, s.buy_in, s.rebuys, s.cashed_out,
       (SELECT count(*) FROM floor_hands h
        WHERE h.table_id = s.table_id AND h.session = s.session
          AND s.seat = ANY (h.seats) AND h.start_position > s.start_position
          AND (s.end_position IS NULL OR h.start_position < s.end_position))::integer AS hands,
       s.player_id,
       extract(epoch FROM greatest(coalesce(s.left_at,
           (SELECT max(coalesce(h.ended_at, h.started_at)) FROM floor_hands h
            WHERE h.table_id = s.table_id AND h.session = s.session)), s.sat_down_at)
           - s.sat_down_at)::double precision AS seconds_seated
FROM floor_seat_sessions s
JOIN floor_tables t USING (table_id);
