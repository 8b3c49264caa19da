-- Version 8 (additive): the hourly totals' trigger function finds its table wherever the
-- floor's schema is, whoever runs it.
--
-- Logical replication applies a floor's rows at a group's central database with an empty
-- search_path, and the trigger of the hourly totals fires there (ENABLE ALWAYS, version 6):
-- its function, naming floor_hands_hourly unqualified, failed at the central's first hand
-- ("relation floor_hands_hourly does not exist") and stopped the subscription. It now runs
-- with the search_path the floor's schema was migrated with.

ALTER FUNCTION floor_hands_hourly_count() SET search_path FROM CURRENT;
