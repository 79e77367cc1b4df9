-- post_counts holds how many posts there are per type, status and month of
-- their date (date_trunc('month', date)), kept exact by a trigger inside
-- the writing transaction. Collection totals that filter on type and
-- status alone add these rows instead of counting posts, and deep pages in
-- date order find the month their first row is in, then skip only inside
-- that month (docs/search.md, docs/performance.md). It is derived data:
-- copies leave it out and the trigger rebuilds it.
CREATE TABLE post_counts (
	type   text      COLLATE "C" NOT NULL,
	status text      COLLATE "C" NOT NULL,
	month  timestamp NOT NULL,
	n      bigint    NOT NULL DEFAULT 0,
	PRIMARY KEY (type, status, month)
);

INSERT INTO post_counts (type, status, month, n)
	SELECT type, status, date_trunc('month', date), COUNT(*) FROM posts GROUP BY 1, 2, 3;

CREATE FUNCTION folio_post_counts_sync() RETURNS trigger
	LANGUAGE plpgsql
	AS $$
BEGIN
	IF TG_OP IN ('UPDATE', 'DELETE') THEN
		UPDATE post_counts SET n = n - 1
			WHERE type = OLD.type AND status = OLD.status AND month = date_trunc('month', OLD.date);
	END IF;
	IF TG_OP IN ('INSERT', 'UPDATE') THEN
		INSERT INTO post_counts (type, status, month, n)
			VALUES (NEW.type, NEW.status, date_trunc('month', NEW.date), 1)
			ON CONFLICT (type, status, month) DO UPDATE SET n = post_counts.n + 1;
	END IF;
	RETURN NULL;
END
$$;

CREATE TRIGGER posts_counts_insert AFTER INSERT ON posts
	FOR EACH ROW EXECUTE FUNCTION folio_post_counts_sync();
CREATE TRIGGER posts_counts_update AFTER UPDATE OF type, status, date ON posts
	FOR EACH ROW
	WHEN (OLD.type IS DISTINCT FROM NEW.type OR OLD.status IS DISTINCT FROM NEW.status
		OR date_trunc('month', OLD.date) IS DISTINCT FROM date_trunc('month', NEW.date))
	EXECUTE FUNCTION folio_post_counts_sync();
CREATE TRIGGER posts_counts_delete AFTER DELETE ON posts
	FOR EACH ROW EXECUTE FUNCTION folio_post_counts_sync();
