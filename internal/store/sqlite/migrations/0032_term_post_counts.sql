-- term_post_counts holds how many posts each term has per type and status
-- of the post, kept exact by triggers inside the writing transaction, so
-- that the total of a collection filtered on one term (an archive page:
-- ?categories=<id>, filter[tag]=<slug>) adds a few rows instead of
-- reading every post of the term, which cost a second for a term on a
-- million posts after any write. It is derived data: copies leave it out
-- and the triggers rebuild it.
--
-- A post deleted takes its links with it (ON DELETE CASCADE), after the
-- post's row is gone: the post's counts are taken down before the delete,
-- and the link trigger leaves links of a post that is no longer there
-- alone. Rows of a deleted term are removed by the store.
CREATE TABLE term_post_counts (
	term_id INTEGER NOT NULL,
	type    TEXT    NOT NULL,
	status  TEXT    NOT NULL,
	n       INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (term_id, type, status)
) WITHOUT ROWID;

INSERT INTO term_post_counts (term_id, type, status, n)
	SELECT tr.term_id, p.type, p.status, COUNT(*) FROM term_relationships tr JOIN posts p ON p.id = tr.post_id
	GROUP BY tr.term_id, p.type, p.status;

CREATE TRIGGER term_post_counts_link AFTER INSERT ON term_relationships BEGIN
	INSERT INTO term_post_counts (term_id, type, status, n)
		SELECT new.term_id, type, status, 1 FROM posts WHERE id = new.post_id
		ON CONFLICT (term_id, type, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER term_post_counts_unlink AFTER DELETE ON term_relationships BEGIN
	UPDATE term_post_counts SET n = n - 1
		WHERE term_id = old.term_id AND (type, status) = (SELECT type, status FROM posts WHERE id = old.post_id);
END;

CREATE TRIGGER term_post_counts_relink AFTER UPDATE OF post_id, term_id ON term_relationships BEGIN
	UPDATE term_post_counts SET n = n - 1
		WHERE term_id = old.term_id AND (type, status) = (SELECT type, status FROM posts WHERE id = old.post_id);
	INSERT INTO term_post_counts (term_id, type, status, n)
		SELECT new.term_id, type, status, 1 FROM posts WHERE id = new.post_id
		ON CONFLICT (term_id, type, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER term_post_counts_post_update AFTER UPDATE OF type, status ON posts
	WHEN old.type IS NOT new.type OR old.status IS NOT new.status
BEGIN
	UPDATE term_post_counts SET n = n - 1
		WHERE type = old.type AND status = old.status
			AND term_id IN (SELECT term_id FROM term_relationships WHERE post_id = new.id);
	INSERT INTO term_post_counts (term_id, type, status, n)
		SELECT term_id, new.type, new.status, 1 FROM term_relationships WHERE post_id = new.id
		ON CONFLICT (term_id, type, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER term_post_counts_post_delete BEFORE DELETE ON posts BEGIN
	UPDATE term_post_counts SET n = n - 1
		WHERE type = old.type AND status = old.status
			AND term_id IN (SELECT term_id FROM term_relationships WHERE post_id = old.id);
END;
