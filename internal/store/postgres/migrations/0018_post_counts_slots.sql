-- post_counts keeps one row per type, status, month and slot instead of
-- one per type, status and month: the trigger adds a post to (or takes it
-- out of) the row of its connection's slot (the backend's process id
-- modulo 32), so that concurrent creates of this month's posts update
-- different rows instead of queueing on one row lock until each create
-- commits. A slot's n may go below zero (a post counted in one slot and
-- unpublished through another); readers already add the rows up
-- (SUM(n) ... GROUP BY month), so totals stay exact. The rows a slot can
-- have are bounded (32 per type, status and month), so nothing needs
-- folding.
ALTER TABLE post_counts ADD COLUMN slot smallint NOT NULL DEFAULT 0;
ALTER TABLE post_counts DROP CONSTRAINT post_counts_pkey;
ALTER TABLE post_counts ADD PRIMARY KEY (type, status, month, slot);

CREATE OR REPLACE FUNCTION folio_post_counts_sync() RETURNS trigger
	LANGUAGE plpgsql
	AS $$
DECLARE
	s smallint := pg_backend_pid() % 32;
BEGIN
	IF TG_OP IN ('UPDATE', 'DELETE') THEN
		INSERT INTO post_counts (type, status, month, slot, n)
			VALUES (OLD.type, OLD.status, date_trunc('month', OLD.date), s, -1)
			ON CONFLICT (type, status, month, slot) DO UPDATE SET n = post_counts.n - 1;
	END IF;
	IF TG_OP IN ('INSERT', 'UPDATE') THEN
		INSERT INTO post_counts (type, status, month, slot, n)
			VALUES (NEW.type, NEW.status, date_trunc('month', NEW.date), s, 1)
			ON CONFLICT (type, status, month, slot) DO UPDATE SET n = post_counts.n + 1;
	END IF;
	RETURN NULL;
END
$$;
