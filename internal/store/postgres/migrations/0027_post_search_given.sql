-- An insert of one post that writes the post's post_search row itself
-- (sqlstore.PostSearchLoader: a data-modifying WITH before the post) says
-- so in a transaction-local setting, folio.post_search_given, which it
-- sets in the same statement; the statement trigger then takes the
-- setting back and returns at once. It used to look for the new posts
-- that had no row with a query planned at every insert (EXECUTE: a plan
-- kept from the connection's first insert could scan all of post_search),
-- some 0.1 ms of planning for each post created. Any other insert (a
-- COPY, a bulk insert, a previous release's node) leaves the setting
-- unset and is indexed as before. A statement that fails after setting it
-- rolls it back with itself (with its savepoint, or with the transaction).
CREATE OR REPLACE FUNCTION folio_post_search_insert() RETURNS trigger
	LANGUAGE plpgsql
	AS $$
BEGIN
	IF current_setting('folio.post_search_given', true) = 'on' THEN
		PERFORM set_config('folio.post_search_given', '', true);
		RETURN NULL;
	END IF;
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
