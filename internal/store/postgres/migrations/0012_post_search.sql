-- Full-text search over posts (docs/search.md). folio_search_words splits
-- a text into the words searches match, exactly as the Go function
-- sqlstore.SearchWords does for the SQLite store: tags stripped, the first
-- 100000 characters, lower case (ICU root), final sigma folded, runs of
-- letters and decimal digits, each cut to 64 characters. post_search holds
-- one tsvector of those words per post, without positions (searches match
-- words by prefix, never phrases), under a GIN index; a trigger keeps it in
-- step with posts inside the writing transaction. It is derived data:
-- copies and exports leave it out and the trigger rebuilds it.
CREATE FUNCTION folio_search_words(s text) RETURNS text[]
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	AS $$
	SELECT coalesce(array_agg(left(w, 64)), '{}')
	FROM regexp_split_to_table(
		translate(lower(left(regexp_replace(s, '<[^>]*>', ' ', 'g'), 100000) COLLATE "und-x-icu"), 'ς', 'σ')
			COLLATE "und-x-icu",
		'[^[:alnum:]]+') AS w
	WHERE w <> ''
	$$;

CREATE FUNCTION folio_search_vector(title text, excerpt text, content text) RETURNS tsvector
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN array_to_tsvector(folio_search_words(title) || folio_search_words(excerpt) || folio_search_words(content));

CREATE TABLE post_search (
	post_id bigint   PRIMARY KEY,
	words   tsvector NOT NULL
);

INSERT INTO post_search (post_id, words)
	SELECT id, folio_search_vector(title, excerpt, content) FROM posts;

CREATE INDEX post_search_words ON post_search USING gin (words);

CREATE FUNCTION folio_post_search_sync() RETURNS trigger
	LANGUAGE plpgsql
	AS $$
BEGIN
	IF TG_OP = 'DELETE' THEN
		DELETE FROM post_search WHERE post_id = OLD.id;
		RETURN NULL;
	END IF;
	INSERT INTO post_search (post_id, words)
		VALUES (NEW.id, folio_search_vector(NEW.title, NEW.excerpt, NEW.content))
		ON CONFLICT (post_id) DO UPDATE SET words = excluded.words;
	RETURN NULL;
END
$$;

CREATE TRIGGER posts_search_insert AFTER INSERT ON posts
	FOR EACH ROW EXECUTE FUNCTION folio_post_search_sync();
CREATE TRIGGER posts_search_update AFTER UPDATE OF title, excerpt, content ON posts
	FOR EACH ROW
	WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.excerpt IS DISTINCT FROM NEW.excerpt
		OR OLD.content IS DISTINCT FROM NEW.content)
	EXECUTE FUNCTION folio_post_search_sync();
CREATE TRIGGER posts_search_delete AFTER DELETE ON posts
	FOR EACH ROW EXECUTE FUNCTION folio_post_search_sync();

-- The password-protected posts, few on most sites: searches check them
-- through this index rather than reading every matching row.
CREATE INDEX posts_protected ON posts (id) WHERE password <> '';
