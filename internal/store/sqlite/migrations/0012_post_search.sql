-- Full-text search over posts (docs/search.md). posts_fts holds, per post
-- (rowid = posts.id), the words of its title, excerpt and content as
-- folio_search_text (a function the store registers, sqlstore.SearchText)
-- splits and folds them: tags stripped, lower case, letters and digits.
-- The table is contentless (it keeps the index, not the text) and keeps no
-- positions (detail=none): searches match words by prefix, never phrases.
-- Triggers keep it in step with posts inside the writing transaction.
CREATE VIRTUAL TABLE posts_fts USING fts5 (
	words,
	content = '',
	contentless_delete = 1,
	detail = none,
	tokenize = 'unicode61 remove_diacritics 0'
);

INSERT INTO posts_fts (rowid, words)
	SELECT id, folio_search_text(title, excerpt, content) FROM posts;

CREATE TRIGGER posts_fts_insert AFTER INSERT ON posts BEGIN
	INSERT INTO posts_fts (rowid, words)
		VALUES (new.id, folio_search_text(new.title, new.excerpt, new.content));
END;

CREATE TRIGGER posts_fts_update AFTER UPDATE OF title, excerpt, content ON posts
	WHEN old.title IS NOT new.title OR old.excerpt IS NOT new.excerpt OR old.content IS NOT new.content
BEGIN
	UPDATE posts_fts SET words = folio_search_text(new.title, new.excerpt, new.content)
		WHERE rowid = new.id;
END;

CREATE TRIGGER posts_fts_delete AFTER DELETE ON posts BEGIN
	DELETE FROM posts_fts WHERE rowid = old.id;
END;

-- The password-protected posts, few on most sites: searches check them
-- through this index rather than reading every matching row.
CREATE INDEX posts_protected ON posts (id) WHERE password <> '';
