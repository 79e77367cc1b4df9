-- Writers on every node run side by side: nothing every write must update
-- in the same row any more.
--
-- Ids come from a sequence per table (<table>_id_seq, the column's
-- default), started after the last id id_counters handed out. A sequence
-- never hands out an id twice and never waits for another transaction,
-- but an insert that rolls back leaves a gap: ids are unique and
-- increasing in the order they are taken, not gap-free, and transactions
-- may commit in another order than their ids.
DO $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT name, last FROM id_counters LOOP
		EXECUTE format('CREATE SEQUENCE %I AS bigint OWNED BY %I.id', r.name || '_id_seq', r.name);
		PERFORM setval(quote_ident(r.name || '_id_seq'), GREATEST(r.last, 1), r.last > 0);
		EXECUTE format('ALTER TABLE %I ALTER COLUMN id SET DEFAULT nextval(%L)', r.name, r.name || '_id_seq');
	END LOOP;
END $$;
DROP TABLE id_counters;

-- The write version is a sequence too: a write takes the next value
-- inside its transaction and again once it has committed (the store does
-- both), and readers read its last value. No write waits for another's
-- commit to take it.
CREATE SEQUENCE store_version_seq AS bigint;
SELECT setval('store_version_seq', version + 1) FROM store_version;
DROP TABLE store_version;
