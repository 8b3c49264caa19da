-- Version 7 (additive): a shipper's next batch in one round trip.
--
-- A shipper that committed a batch on a connection knows where its journal's session stands
-- (its confirmed position and chain, whether it is the table's current session). Its next
-- batch is sent whole, in one pipeline, after floor_ship_on(), which takes the same locks
-- as a batch's first look at its session (the session's row, then the table's) and raises
-- (SQLSTATE LF001) when the session is not where the shipper left it: another shipper
-- shipped meanwhile, the table was renamed, a journal bound. The ingest then rolls the
-- batch back and sends it the long way (controller.floor.ingest), which looks at
-- everything again.

CREATE FUNCTION floor_ship_on(of_table text, of_session integer, of_journal text,
                              at_position bigint, at_chain bytea, current boolean)
RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM floor_table_sessions
    WHERE table_id = of_table AND session = of_session AND journal_id = of_journal
      AND confirmed_position = at_position AND chain IS NOT DISTINCT FROM at_chain
    FOR UPDATE;
    IF FOUND THEN
        PERFORM 1 FROM floor_tables
        WHERE table_id = of_table AND (session = of_session) = current
        FOR UPDATE;
    END IF;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'table % session %: not at position % any more', of_table,
            of_session, at_position USING ERRCODE = 'LF001';
    END IF;
END
$$;
