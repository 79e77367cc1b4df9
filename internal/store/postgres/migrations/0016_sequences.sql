-- Writers on every node run side by side: nothing every write must update
-- in the same row any more.
--
-- Ids come from a sequence per table (<table>_id_seq, the column's
-- default), started after the last id id_counters handed out. A sequence
-- never hands out an id twice and never waits for another transaction,
-- but an insert that rolls back leaves a gap: ids are unique and
-- increasing in the order they are taken, not gap-free, and transactions
-- may commit in another order than their ids.
--
-- Nodes of the previous release keep serving during a rolling upgrade
-- (docs/operations.md, "Upgrading"): they take ids with
-- `UPDATE id_counters SET last = last + 1 ... RETURNING last` and bump and
-- read `store_version`. Both names stay, as views over the sequences
-- whose updates take the sequences' next values, so an old node's ids never
-- collide with a new node's and its write still retires every node's
-- caches. The release after next drops the views.
DO $$
DECLARE
	r record;
	cols text[] := '{}';
BEGIN
	FOR r IN SELECT name, last FROM id_counters LOOP
		EXECUTE format('CREATE SEQUENCE %I AS bigint OWNED BY %I.id', r.name || '_id_seq', r.name);
		PERFORM setval(quote_ident(r.name || '_id_seq'), GREATEST(r.last, 1), r.last > 0);
		EXECUTE format('ALTER TABLE %I ALTER COLUMN id SET DEFAULT nextval(%L)', r.name, r.name || '_id_seq');
		cols := cols || format('SELECT %L::text AS name, (SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM %I) AS last',
			r.name, r.name || '_id_seq');
	END LOOP;
	DROP TABLE id_counters;
	EXECUTE 'CREATE VIEW id_counters AS ' || array_to_string(cols, ' UNION ALL ');
END $$;

CREATE FUNCTION folio_id_counters_take() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.last := nextval(quote_ident(OLD.name || '_id_seq'));
	RETURN NEW;
END $$;
CREATE TRIGGER id_counters_take INSTEAD OF UPDATE ON id_counters
	FOR EACH ROW EXECUTE FUNCTION folio_id_counters_take();

-- The write version is a sequence too: a write takes the next value
-- inside its transaction and again once it has committed (the store does
-- both), and readers read its last value. No write waits for another's
-- commit to take it.
CREATE SEQUENCE store_version_seq AS bigint;
SELECT setval('store_version_seq', version + 1) FROM store_version;
DROP TABLE store_version;
-- (The views read their sequences in subqueries: an update of a view that
-- selects from a sequence would try to lock the sequence's row.)
CREATE VIEW store_version AS SELECT 1 AS id, (SELECT last_value FROM store_version_seq) AS version;

CREATE FUNCTION folio_store_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.version := nextval('store_version_seq');
	RETURN NEW;
END $$;
CREATE TRIGGER store_version_bump INSTEAD OF UPDATE ON store_version
	FOR EACH ROW EXECUTE FUNCTION folio_store_version_bump();
