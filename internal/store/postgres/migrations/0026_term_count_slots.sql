-- Term counts spread over slots (sqlstore.TermCountSlotter). Every create
-- in the default category updated that term's row and held its lock until
-- the commit's WAL flush, so creates committed one flush at a time; and
-- each one's foreign key check share-locked the same row, which with
-- several transactions at once makes PostgreSQL keep a list of the lockers
-- (a multixact) that every later locker copies and every read of the row
-- looks up. A term's count is now its row's count plus the sum of its
-- rows here, one per slot (the writing backend's pid modulo 64); a write
-- adds its changes to its own slot's rows as it commits, and the term's
-- row is no longer written by posts coming and going (its dead versions
-- no longer fill the table either). Without the foreign key the store
-- removes a deleted term's links itself, and links and deletions of a
-- term take an advisory lock on it (shared to link, exclusive to delete).
-- No foreign key here either: the slots of a deleted term are deleted
-- with it.
DO $$
DECLARE
	fk name;
BEGIN
	FOR fk IN SELECT c.conname FROM pg_constraint c
		WHERE c.contype = 'f' AND c.conrelid = 'term_relationships'::regclass
			AND c.confrelid = 'terms'::regclass
	LOOP
		EXECUTE format('ALTER TABLE term_relationships DROP CONSTRAINT %I', fk);
	END LOOP;
END
$$;

CREATE TABLE term_counts (
	term_id bigint  NOT NULL,
	slot    integer NOT NULL,
	n       bigint  NOT NULL,
	PRIMARY KEY (term_id, slot)
);
