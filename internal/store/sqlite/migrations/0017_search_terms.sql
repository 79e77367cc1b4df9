-- Searches that cost the index, not the posts (docs/search.md).
--
-- search_terms: the words posts_fts holds, each once. A searched word
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

-- posts_fts also holds, after a post's words, marks of its type and
-- status and of its password (folio_search_document,
-- sqlstore.SearchDocument), so that a search's total among the posts a
-- caller may see is counted in the index alone instead of reading every
-- matching post. The index is rebuilt once with them; the triggers follow
-- changes of type, status and password too.
DROP TRIGGER posts_fts_insert;
DROP TRIGGER posts_fts_update;

INSERT INTO posts_fts (posts_fts) VALUES ('delete-all');
INSERT INTO posts_fts (rowid, words)
	SELECT id, folio_search_document(title, excerpt, content, type, status, password) FROM posts;
INSERT INTO posts_fts (posts_fts) VALUES ('optimize');

-- The triggers queue what changed (posts_fts_queue: i a new post, u a
-- changed one, d a deleted one); the writer applies the queue to posts_fts
-- in one go before each commit of a batch of write transactions
-- (internal/store/sqlite/group.go, flushSearchQueue). FTS5 writes its
-- pending words to the file at every savepoint, and every write
-- transaction in a batch is a savepoint: written from the transactions,
-- the index gained (and later merged) one segment per transaction,
-- written from the queue one per batch.
CREATE TABLE posts_fts_queue (
	id INTEGER PRIMARY KEY,
	op TEXT NOT NULL
);

CREATE TRIGGER posts_fts_insert AFTER INSERT ON posts BEGIN
	INSERT INTO posts_fts_queue (id, op) VALUES (new.id, 'i')
		ON CONFLICT (id) DO UPDATE SET op = 'u';
END;

CREATE TRIGGER posts_fts_update AFTER UPDATE OF title, excerpt, content, type, status, password ON posts
	WHEN old.title IS NOT new.title OR old.excerpt IS NOT new.excerpt OR old.content IS NOT new.content
		OR old.type IS NOT new.type OR old.status IS NOT new.status OR old.password IS NOT new.password
BEGIN
	INSERT INTO posts_fts_queue (id, op) VALUES (new.id, 'u')
		ON CONFLICT (id) DO NOTHING;
END;

-- A post deleted before its queued insert reached the index leaves
-- nothing to do; one deleted after, a deletion.
DROP TRIGGER posts_fts_delete;
CREATE TRIGGER posts_fts_delete AFTER DELETE ON posts BEGIN
	INSERT INTO posts_fts_queue (id, op) VALUES (old.id, 'd')
		ON CONFLICT (id) DO UPDATE SET op = 'd' WHERE op = 'u';
	DELETE FROM posts_fts_queue WHERE id = old.id AND op = 'i';
END;
