-- term_post_counts holds how many posts each term has per type and status
-- of the post, kept exact by triggers inside the writing transaction, so
-- that the total of a collection filtered on one term (an archive page:
-- ?categories=<id>, filter[tag]=<slug>) adds a few rows instead of
-- reading every post of the term, which cost a second for a term on a
-- million posts after any write. It is derived data: copies leave it out
-- and the triggers rebuild it.
--
-- As post_counts (migration 0018), a term's rows are spread over slots
-- (the writing backend's pid modulo 32) so that concurrent creates in the
-- same category add to different rows instead of queueing on one row
-- lock until each commits; readers add the slots up. Links are counted
-- once a statement, from its new or old links (a transition table), so a
-- bulk insert counts with one upsert per term, type and status.
--
-- A post deleted takes its links with it (ON DELETE CASCADE), after the
-- post's row is gone: the post's counts are taken down before the delete,
-- and the link triggers find no post for those links. Rows of a deleted
-- term are removed by the store, after its links.
CREATE TABLE term_post_counts (
	term_id bigint   NOT NULL,
	type    text     COLLATE "C" NOT NULL,
	status  text     COLLATE "C" NOT NULL,
	slot    smallint NOT NULL,
	n       bigint   NOT NULL DEFAULT 0,
	PRIMARY KEY (term_id, type, status, slot)
);

INSERT INTO term_post_counts (term_id, type, status, slot, n)
	SELECT tr.term_id, p.type, p.status, 0, COUNT(*) FROM term_relationships tr JOIN posts p ON p.id = tr.post_id
	GROUP BY 1, 2, 3;

-- PL/pgSQL keeps each statement's plan for the connection, made at its
-- first run for the sizes the tables had then: on a new site, a scan of
-- the few posts there were, which would then run at every link of a
-- million posts. Planning at each run instead (EXECUTE) cost a create 15%
-- more CPU. The functions run with the planner's other ways of reading
-- posts and term_relationships off, so that the plan kept is the one
-- right at every size: each link's post (or each post's links) looked up
-- by key.
CREATE FUNCTION folio_term_post_counts_links() RETURNS trigger
	LANGUAGE plpgsql
	SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off
	AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO term_post_counts (term_id, type, status, slot, n)
			SELECT l.term_id, p.type, p.status, pg_backend_pid() % 32, COUNT(*)
			FROM new_links l JOIN posts p ON p.id = l.post_id GROUP BY 1, 2, 3
			ON CONFLICT (term_id, type, status, slot) DO UPDATE SET n = term_post_counts.n + excluded.n;
	ELSIF TG_OP = 'DELETE' THEN
		INSERT INTO term_post_counts (term_id, type, status, slot, n)
			SELECT l.term_id, p.type, p.status, pg_backend_pid() % 32, -COUNT(*)
			FROM old_links l JOIN posts p ON p.id = l.post_id GROUP BY 1, 2, 3
			ON CONFLICT (term_id, type, status, slot) DO UPDATE SET n = term_post_counts.n + excluded.n;
	ELSE
		INSERT INTO term_post_counts (term_id, type, status, slot, n)
			SELECT c.term_id, c.type, c.status, pg_backend_pid() % 32, SUM(c.n) FROM (
				SELECT l.term_id, p.type, p.status, -1 AS n FROM old_links l JOIN posts p ON p.id = l.post_id
				UNION ALL
				SELECT l.term_id, p.type, p.status, 1 FROM new_links l JOIN posts p ON p.id = l.post_id) c
			GROUP BY 1, 2, 3
			HAVING SUM(c.n) <> 0
			ON CONFLICT (term_id, type, status, slot) DO UPDATE SET n = term_post_counts.n + excluded.n;
	END IF;
	RETURN NULL;
END
$$;

CREATE FUNCTION folio_term_post_counts_post() RETURNS trigger
	LANGUAGE plpgsql
	SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off
	AS $$
DECLARE
	s smallint := pg_backend_pid() % 32;
BEGIN
	INSERT INTO term_post_counts (term_id, type, status, slot, n)
		SELECT term_id, OLD.type, OLD.status, s, -1 FROM term_relationships WHERE post_id = OLD.id
		ON CONFLICT (term_id, type, status, slot) DO UPDATE SET n = term_post_counts.n - 1;
	IF TG_OP = 'UPDATE' THEN
		INSERT INTO term_post_counts (term_id, type, status, slot, n)
			SELECT term_id, NEW.type, NEW.status, s, 1 FROM term_relationships WHERE post_id = NEW.id
			ON CONFLICT (term_id, type, status, slot) DO UPDATE SET n = term_post_counts.n + 1;
		RETURN NULL;
	END IF;
	RETURN OLD;
END
$$;

CREATE TRIGGER term_post_counts_link AFTER INSERT ON term_relationships
	REFERENCING NEW TABLE AS new_links
	FOR EACH STATEMENT EXECUTE FUNCTION folio_term_post_counts_links();
CREATE TRIGGER term_post_counts_unlink AFTER DELETE ON term_relationships
	REFERENCING OLD TABLE AS old_links
	FOR EACH STATEMENT EXECUTE FUNCTION folio_term_post_counts_links();
CREATE TRIGGER term_post_counts_relink AFTER UPDATE ON term_relationships
	REFERENCING OLD TABLE AS old_links NEW TABLE AS new_links
	FOR EACH STATEMENT EXECUTE FUNCTION folio_term_post_counts_links();
CREATE TRIGGER term_post_counts_post_update AFTER UPDATE OF type, status ON posts
	FOR EACH ROW
	WHEN (OLD.type IS DISTINCT FROM NEW.type OR OLD.status IS DISTINCT FROM NEW.status)
	EXECUTE FUNCTION folio_term_post_counts_post();
CREATE TRIGGER term_post_counts_post_delete BEFORE DELETE ON posts
	FOR EACH ROW EXECUTE FUNCTION folio_term_post_counts_post();
