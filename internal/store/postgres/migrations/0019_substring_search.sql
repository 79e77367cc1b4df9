-- Substring search of users, terms and comments (docs/search.md) through
-- pg_trgm's GIN indexes on the searched columns, folded and joined
-- (folio_search_fold: folio_lower of them joined by line feeds). A search
-- asks for the rows whose folded columns are LIKE the folded search, which
-- the index answers from the search's trigrams (PostgreSQL checks the LIKE
-- on each row the index finds), then checks those rows as before. The
-- columns only some callers may search (a user's login and email, a
-- comment's author email and IP) have indexes of their own, which other
-- callers' searches never read.
--
-- pg_trgm is an extension (a trusted one since PostgreSQL 13: a user with
-- the CREATE privilege on the database may create it; its files come with
-- PostgreSQL's contrib package). The migration uses it wherever it is
-- installed in the database, or creates it in the schema public, shared by
-- every schema of the database (a site's own schema would take it, and the
-- indexes of the other schemas' sites, with it when dropped). When it can
-- do neither the migration fails, and the site stays at the previous
-- version, with a message saying what to do (docs/operations.md).

CREATE FUNCTION folio_search_fold(a text, b text) RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN folio_lower(a || E'\n' || b);

CREATE FUNCTION folio_search_fold(a text, b text, c text) RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN folio_lower(a || E'\n' || b || E'\n' || c);

DO $$
DECLARE
	ext text;
BEGIN
	-- The schemas of a database share the extension: one migration at a
	-- time looks for it and creates it.
	PERFORM pg_advisory_xact_lock(7036526816427151719);
	SELECT n.nspname INTO ext FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
		WHERE e.extname = 'pg_trgm';
	IF ext IS NULL THEN
		BEGIN
			CREATE EXTENSION pg_trgm SCHEMA public;
		EXCEPTION WHEN OTHERS THEN
			-- The client shows the message, not the hint: it says it all.
			RAISE EXCEPTION 'search indexes need the pg_trgm extension, which is not installed in database "%" and could not be created (%): run CREATE EXTENSION pg_trgm; in that database as a user with the CREATE privilege on it (the extension comes with PostgreSQL''s contrib package), then start Folio again; see docs/operations.md',
				current_database(), SQLERRM;
		END;
		ext := 'public';
	END IF;
	EXECUTE format('CREATE INDEX users_search ON users USING gin (folio_search_fold(url, nicename, display_name) %I.gin_trgm_ops)', ext);
	EXECUTE format('CREATE INDEX users_search_private ON users USING gin (folio_search_fold(login, email) %I.gin_trgm_ops)', ext);
	EXECUTE format('CREATE INDEX terms_search ON terms USING gin (folio_search_fold(name, slug) %I.gin_trgm_ops)', ext);
	EXECUTE format('CREATE INDEX comments_search ON comments USING gin (folio_search_fold(author_name, author_url, content) %I.gin_trgm_ops)', ext);
	EXECUTE format('CREATE INDEX comments_search_private ON comments USING gin (folio_search_fold(author_email, author_ip) %I.gin_trgm_ops)', ext);
END
$$;

-- A search shorter than three characters reads the newest terms of the
-- taxonomy (docs/search.md): this walks them in id order.
CREATE INDEX terms_taxonomy_id ON terms (taxonomy, id);
