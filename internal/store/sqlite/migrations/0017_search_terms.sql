-- The words posts_fts holds, each once (docs/search.md). A searched word
-- matches every indexed word it begins; FTS5 finds those by merging the
-- lists of all of them into a new list on every query (a prefix query),
-- which costs ten times a plain lookup for a word in most posts. Looking
-- the words up here first, a search asks the index for them by name
-- ("garden" OR "gardens"), which FTS5 reads without building a list.
-- Words are added by the triggers on posts and never removed: a word no
-- post has any more matches nothing and costs one lookup.
CREATE TABLE search_terms (
	term TEXT PRIMARY KEY
) WITHOUT ROWID;

-- The words already indexed, read from the index itself.
CREATE VIRTUAL TABLE temp.posts_fts_vocabulary USING fts5vocab(main, posts_fts, row);
INSERT OR IGNORE INTO search_terms (term) SELECT term FROM temp.posts_fts_vocabulary;
DROP TABLE temp.posts_fts_vocabulary;

CREATE TRIGGER search_terms_insert AFTER INSERT ON posts BEGIN
	INSERT OR IGNORE INTO search_terms (term)
		SELECT value FROM json_each(folio_search_terms(new.title, new.excerpt, new.content));
END;

CREATE TRIGGER search_terms_update AFTER UPDATE OF title, excerpt, content ON posts
	WHEN old.title IS NOT new.title OR old.excerpt IS NOT new.excerpt OR old.content IS NOT new.content
BEGIN
	INSERT OR IGNORE INTO search_terms (term)
		SELECT value FROM json_each(folio_search_terms(new.title, new.excerpt, new.content));
END;
