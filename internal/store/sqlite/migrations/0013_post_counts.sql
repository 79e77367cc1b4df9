-- post_counts holds how many posts there are per type, status and month of
-- their date ('YYYY-MM', the zero date's is '0000-00'), kept exact by
-- triggers inside the writing transaction. Collection totals that filter
-- on type and status alone add these rows instead of counting posts, and
-- deep pages in date order find the month their first row is in, then
-- skip only inside that month (docs/search.md, docs/performance.md). It
-- is derived data: copies leave it out and the triggers rebuild it.
CREATE TABLE post_counts (
	type   TEXT    NOT NULL,
	status TEXT    NOT NULL,
	month  TEXT    NOT NULL,
	n      INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (type, status, month)
) WITHOUT ROWID;

INSERT INTO post_counts (type, status, month, n)
	SELECT type, status, substr(date, 1, 7), COUNT(*) FROM posts GROUP BY type, status, substr(date, 1, 7);

CREATE TRIGGER post_counts_insert AFTER INSERT ON posts BEGIN
	INSERT INTO post_counts (type, status, month, n) VALUES (new.type, new.status, substr(new.date, 1, 7), 1)
		ON CONFLICT (type, status, month) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER post_counts_update AFTER UPDATE OF type, status, date ON posts
	WHEN old.type IS NOT new.type OR old.status IS NOT new.status
		OR substr(old.date, 1, 7) IS NOT substr(new.date, 1, 7)
BEGIN
	UPDATE post_counts SET n = n - 1
		WHERE type = old.type AND status = old.status AND month = substr(old.date, 1, 7);
	INSERT INTO post_counts (type, status, month, n) VALUES (new.type, new.status, substr(new.date, 1, 7), 1)
		ON CONFLICT (type, status, month) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER post_counts_delete AFTER DELETE ON posts BEGIN
	UPDATE post_counts SET n = n - 1
		WHERE type = old.type AND status = old.status AND month = substr(old.date, 1, 7);
END;
