-- Kept totals of common searches (docs/search.md, "Totals";
-- internal/store/postgres/searchkept.go). The total of a search for a word
-- in most posts counts its matches in post_search every time it is asked:
-- 70-100 ms at 100,000 posts, seconds at a million. search_kept names the
-- searches whose totals are kept (at most 128, each at a position of its
-- own) and search_kept_counts holds, per type and status of the posts and
-- per slot, an array with at each position the number of posts without a
-- password that the search there matches: a search's total is the sum of
-- its position over the slots of the asked types and statuses.
--
-- Triggers on posts keep the counts in the writing transaction, from each
-- post's post_search row: an insert adds the new posts' matches, a change
-- of text takes out the old words' matches and adds the new ones', a
-- change of type, status or password moves a post's matches, a delete
-- takes them out. As post_counts (migration 0018), concurrent writers add
-- to different rows (the writing backend's pid modulo 32), so creates do
-- not queue on one row lock until each commits; slot -1 is the base that
-- the store writes when it starts keeping a search.
--
-- Starting to keep a search (the store, under an advisory lock): the
-- search is written at its position, not yet kept; once every transaction
-- that was writing posts then has ended (so that every write committing
-- later has seen it and counts it), one snapshot counts its matches per
-- type and status, sets the base to that count minus what the slots hold
-- at its position, and marks it kept. Whatever the slots held there
-- before (a search kept there earlier) is cancelled by the base. Both
-- tables are derived data: copies and exports leave them out.
CREATE TABLE search_kept (
	pos   integer PRIMARY KEY CHECK (pos BETWEEN 1 AND 128),
	words text[]  COLLATE "C" NOT NULL UNIQUE,
	query tsquery NOT NULL,
	kept  boolean NOT NULL DEFAULT false
);

CREATE TABLE search_kept_counts (
	type   text     COLLATE "C" NOT NULL,
	status text     COLLATE "C" NOT NULL,
	slot   smallint NOT NULL,
	n      integer[] NOT NULL,
	PRIMARY KEY (type, status, slot)
);

-- folio_search_kept_add returns counts with d[i] added at each position
-- pos[i] (NULL, or past the end: 0 before): a PL/pgSQL loop over the
-- positions a write changes, on the array expanded once (an SQL function
-- of unnest and generate_series cost a create some 0.4 ms in planning and
-- running). The arrays are as long as the highest position counted, in
-- four bytes a position: each create writes its slot's row anew, and its
-- size is WAL that every create's commit waits for.
CREATE FUNCTION folio_search_kept_add(counts integer[], pos integer[], d integer[]) RETURNS integer[]
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	AS $$
DECLARE
	r integer[] := counts;
BEGIN
	FOR i IN 1 .. COALESCE(array_length(pos, 1), 0) LOOP
		r[pos[i]] := COALESCE(r[pos[i]], 0) + d[i];
	END LOOP;
	RETURN r;
END
$$;

-- folio_search_kept_count adds to the writing backend's slot the matches
-- of the given posts' words (NULL words match nothing), each counted
-- sign times under its type and status: one upsert for each run of posts
-- of one type and status (a create: one; a change of text within a type
-- and status: one). Each post's words are matched against every kept
-- search by a scan of search_kept (128 rows at most). The
-- caller leaves out the words of posts with a password.
CREATE FUNCTION folio_search_kept_count(in_types text[], in_statuses text[], in_words tsvector[], in_signs integer[]) RETURNS void
	LANGUAGE plpgsql
	AS $$
DECLARE
	n integer := COALESCE(array_length(in_types, 1), 0);
	t text;
	s text;
	ps integer[] := '{}';
	ds integer[] := '{}';
	m integer[];
BEGIN
	FOR i IN 1 .. n + 1 LOOP
		IF i > n OR t IS DISTINCT FROM in_types[i] OR s IS DISTINCT FROM in_statuses[i] THEN
			IF array_length(ps, 1) > 0 THEN
				UPDATE search_kept_counts c SET n = folio_search_kept_add(c.n, ps, ds)
					WHERE c.type = t AND c.status = s AND c.slot = pg_backend_pid() % 32;
				IF NOT FOUND THEN
					INSERT INTO search_kept_counts AS c (type, status, slot, n)
						VALUES (t, s, pg_backend_pid() % 32, folio_search_kept_add('{}', ps, ds))
						ON CONFLICT (type, status, slot) DO UPDATE SET n = folio_search_kept_add(c.n, ps, ds);
				END IF;
			END IF;
			EXIT WHEN i > n;
			t := in_types[i];
			s := in_statuses[i];
			ps := '{}';
			ds := '{}';
		END IF;
		CONTINUE WHEN in_words[i] IS NULL;
		SELECT array_agg(k.pos) INTO m FROM search_kept k WHERE in_words[i] @@ k.query;
		IF m IS NOT NULL THEN
			ps := ps || m;
			ds := ds || array_fill(in_signs[i], ARRAY[array_length(m, 1)]);
		END IF;
	END LOOP;
END
$$;

-- folio_search_kept_move takes a post's old words out under its old type
-- and status and adds its new ones under the new (NULL: none); words of
-- a post with a password are not counted. A change that leaves the words
-- and what they count under alone (an edit of markup or punctuation)
-- writes nothing.
CREATE FUNCTION folio_search_kept_move(old_type text, old_status text, old_password text, old_words tsvector,
	new_type text, new_status text, new_password text, new_words tsvector) RETURNS void
	LANGUAGE plpgsql
	AS $$
BEGIN
	IF old_words IS NOT DISTINCT FROM new_words AND old_type IS NOT DISTINCT FROM new_type
		AND old_status IS NOT DISTINCT FROM new_status AND (old_password = '') IS NOT DISTINCT FROM (new_password = '')
		OR NOT EXISTS (SELECT 1 FROM search_kept) THEN
		RETURN;
	END IF;
	PERFORM folio_search_kept_count(ARRAY[old_type, new_type], ARRAY[old_status, new_status],
		ARRAY[CASE WHEN old_password = '' THEN old_words END, CASE WHEN new_password = '' THEN new_words END],
		ARRAY[-1, 1]);
END
$$;

-- The statement trigger of inserts (migrations 0021 and 0027) counts the
-- new posts once their post_search rows are there.
CREATE OR REPLACE FUNCTION folio_post_search_insert() RETURNS trigger
	LANGUAGE plpgsql
	AS $$
BEGIN
	IF current_setting('folio.post_search_given', true) = 'on' THEN
		PERFORM set_config('folio.post_search_given', '', true);
	ELSE
		-- Planned at each statement (EXECUTE), for the rows it has and the
		-- size post_search has then: PL/pgSQL would keep the plan of the
		-- connection's first insert, made when post_search may have been
		-- empty (a scan of all of it, which would then run at every insert).
		EXECUTE 'INSERT INTO post_search (post_id, words)
			SELECT n.id, folio_search_vector(n.title, n.excerpt, n.content) FROM new_posts n
			WHERE NOT EXISTS (SELECT 1 FROM post_search s WHERE s.post_id = n.id)';
	END IF;
	IF EXISTS (SELECT 1 FROM search_kept) THEN
		PERFORM folio_search_kept_count(array_agg(n.type), array_agg(n.status), array_agg(s.words), array_agg(1))
			FROM new_posts n JOIN post_search s ON s.post_id = n.id
			WHERE n.password = '';
	END IF;
	RETURN NULL;
END
$$;

-- The row triggers of changed text and of deletes (migration 0012).
CREATE OR REPLACE FUNCTION folio_post_search_sync() RETURNS trigger
	LANGUAGE plpgsql
	AS $$
DECLARE
	was tsvector;
	became tsvector;
BEGIN
	IF TG_OP = 'DELETE' THEN
		DELETE FROM post_search WHERE post_id = OLD.id RETURNING words INTO was;
		PERFORM folio_search_kept_move(OLD.type, OLD.status, OLD.password, was, NULL, NULL, NULL, NULL);
		RETURN NULL;
	END IF;
	SELECT words INTO was FROM post_search WHERE post_id = NEW.id;
	INSERT INTO post_search (post_id, words)
		VALUES (NEW.id, folio_search_vector(NEW.title, NEW.excerpt, NEW.content))
		ON CONFLICT (post_id) DO UPDATE SET words = excluded.words
		RETURNING words INTO became;
	PERFORM folio_search_kept_move(OLD.type, OLD.status, OLD.password, was, NEW.type, NEW.status, NEW.password, became);
	RETURN NULL;
END
$$;

-- A change of type, status or password alone (a change of text with it
-- is the trigger above's) moves the post's matches.
CREATE FUNCTION folio_post_search_kind() RETURNS trigger
	LANGUAGE plpgsql
	AS $$
BEGIN
	PERFORM folio_search_kept_move(OLD.type, OLD.status, OLD.password, s.words, NEW.type, NEW.status, NEW.password, s.words)
		FROM post_search s WHERE s.post_id = NEW.id;
	RETURN NULL;
END
$$;

CREATE TRIGGER posts_search_kind AFTER UPDATE OF type, status, password ON posts
	FOR EACH ROW
	WHEN ((OLD.type, OLD.status, OLD.password = '') IS DISTINCT FROM (NEW.type, NEW.status, NEW.password = '')
		AND OLD.title IS NOT DISTINCT FROM NEW.title AND OLD.excerpt IS NOT DISTINCT FROM NEW.excerpt
		AND OLD.content IS NOT DISTINCT FROM NEW.content)
	EXECUTE FUNCTION folio_post_search_kind();
