-- The search and count triggers of an insert into posts run once a
-- statement instead of once a row, on the statement's new rows (a
-- transition table): a multi-row INSERT or a COPY of thousands of posts
-- writes post_search with one INSERT ... SELECT and post_counts with one
-- upsert per type, status and month (in the connection's slot, as
-- migration 0018's row trigger does), instead of a PL/pgSQL call and an
-- upsert per post. The update and delete triggers stay per row (a trigger
-- with a transition table cannot name the columns it watches).
--
-- The search trigger indexes the new posts that have no post_search row
-- yet: a bulk insert may write the rows of its posts itself, first, from
-- words its client split (sqlstore.PostSearchLoader: the posts whose text
-- is ASCII, whose words the client splits exactly as folio_search_words
-- does). A post that is not there has no row (the delete trigger removes
-- it), so every other insert is indexed as before.
CREATE FUNCTION folio_post_search_insert() RETURNS trigger
	LANGUAGE plpgsql
	AS $$
BEGIN
	-- Planned at each statement (EXECUTE), for the rows it has and the
	-- size post_search has then: PL/pgSQL would keep the plan of the
	-- connection's first insert, made when post_search may have been
	-- empty (a scan of all of it, which would then run at every insert).
	EXECUTE 'INSERT INTO post_search (post_id, words)
		SELECT n.id, folio_search_vector(n.title, n.excerpt, n.content) FROM new_posts n
		WHERE NOT EXISTS (SELECT 1 FROM post_search s WHERE s.post_id = n.id)';
	RETURN NULL;
END
$$;

CREATE FUNCTION folio_post_counts_insert() RETURNS trigger
	LANGUAGE plpgsql
	AS $$
BEGIN
	INSERT INTO post_counts (type, status, month, slot, n)
		SELECT type, status, date_trunc('month', date), pg_backend_pid() % 32, COUNT(*)
		FROM new_posts GROUP BY 1, 2, 3
		ON CONFLICT (type, status, month, slot) DO UPDATE SET n = post_counts.n + excluded.n;
	RETURN NULL;
END
$$;

DROP TRIGGER posts_search_insert ON posts;
CREATE TRIGGER posts_search_insert AFTER INSERT ON posts
	REFERENCING NEW TABLE AS new_posts
	FOR EACH STATEMENT EXECUTE FUNCTION folio_post_search_insert();

DROP TRIGGER posts_counts_insert ON posts;
CREATE TRIGGER posts_counts_insert AFTER INSERT ON posts
	REFERENCING NEW TABLE AS new_posts
	FOR EACH STATEMENT EXECUTE FUNCTION folio_post_counts_insert();
