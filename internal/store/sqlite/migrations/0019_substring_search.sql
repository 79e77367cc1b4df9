-- Substring search of users, terms and comments (docs/search.md) through
-- trigram indexes. Each FTS5 table holds, per row (rowid = the row's id),
-- its searched columns as folio_search_fold gives them (lower case,
-- strings.ToLower, joined by line feeds) cut into every run of three
-- characters (the trigram tokenizer; case_sensitive 1 since the text is
-- folded already). A search asks for the rows having every trigram of
-- the folded search, then checks those with LIKE as before: the index only
-- narrows down which rows are read. The tables are contentless (the text
-- stays in its table) and keep no positions (detail=none), which makes
-- them less than half the size of the comments they index.
--
-- The columns only some callers may search (a user's login and email:
-- list_users; a comment's author email and IP: moderators) have tables
-- of their own, which other callers' searches never read.
--
-- Written from each transaction, the index gained a segment per
-- transaction (FTS5 writes its pending terms at every savepoint, and each
-- transaction of the writer's batch is one), which took a comment create
-- from about 1,180 to 410 a second. The triggers on users, terms and
-- comments therefore only note the id of a row inserted, changed (in a
-- searched column) or deleted in <table>_fts_queue; when a queue reaches 64
-- ids, a trigger on it writes their rows to the index in one go (one
-- segment for 64 rows) and empties it. A search takes the queued ids as
-- candidates too: what the index says about them may be out of date, and
-- LIKE decides. indexed is 1 when the index holds a row for the id, which
-- the flush then deletes first.
CREATE VIRTUAL TABLE users_fts USING fts5 (
	text, content = '', contentless_delete = 1, detail = none, tokenize = 'trigram case_sensitive 1'
);
CREATE VIRTUAL TABLE users_private_fts USING fts5 (
	text, content = '', contentless_delete = 1, detail = none, tokenize = 'trigram case_sensitive 1'
);
CREATE VIRTUAL TABLE terms_fts USING fts5 (
	text, content = '', contentless_delete = 1, detail = none, tokenize = 'trigram case_sensitive 1'
);
CREATE VIRTUAL TABLE comments_fts USING fts5 (
	text, content = '', contentless_delete = 1, detail = none, tokenize = 'trigram case_sensitive 1'
);
CREATE VIRTUAL TABLE comments_private_fts USING fts5 (
	text, content = '', contentless_delete = 1, detail = none, tokenize = 'trigram case_sensitive 1'
);

INSERT INTO users_fts (rowid, text) SELECT id, folio_search_fold(url, nicename, display_name) FROM users;
INSERT INTO users_private_fts (rowid, text) SELECT id, folio_search_fold(login, email) FROM users;
INSERT INTO terms_fts (rowid, text) SELECT id, folio_search_fold(name, slug) FROM terms;
INSERT INTO comments_fts (rowid, text) SELECT id, folio_search_fold(author_name, author_url, content) FROM comments;
INSERT INTO comments_private_fts (rowid, text) SELECT id, folio_search_fold(author_email, author_ip) FROM comments;
-- One segment each, rather than the many of a large load.
INSERT INTO comments_fts (comments_fts) VALUES ('optimize');
INSERT INTO comments_private_fts (comments_private_fts) VALUES ('optimize');

CREATE TABLE users_fts_queue (
	id      INTEGER PRIMARY KEY,
	indexed INTEGER NOT NULL
);
CREATE TRIGGER users_fts_insert AFTER INSERT ON users BEGIN
	INSERT OR IGNORE INTO users_fts_queue (id, indexed) VALUES (new.id, 0);
END;
CREATE TRIGGER users_fts_update AFTER UPDATE OF url, nicename, display_name, login, email ON users
	WHEN old.url IS NOT new.url OR old.nicename IS NOT new.nicename OR old.display_name IS NOT new.display_name
		OR old.login IS NOT new.login OR old.email IS NOT new.email
BEGIN
	INSERT OR IGNORE INTO users_fts_queue (id, indexed) VALUES (new.id, 1);
END;
CREATE TRIGGER users_fts_delete AFTER DELETE ON users BEGIN
	INSERT OR IGNORE INTO users_fts_queue (id, indexed) VALUES (old.id, 1);
END;
CREATE TRIGGER users_fts_flush AFTER INSERT ON users_fts_queue
	WHEN (SELECT COUNT(*) FROM users_fts_queue) >= 64
BEGIN
	DELETE FROM users_fts WHERE rowid IN (SELECT id FROM users_fts_queue WHERE indexed);
	DELETE FROM users_private_fts WHERE rowid IN (SELECT id FROM users_fts_queue WHERE indexed);
	INSERT INTO users_fts (rowid, text) SELECT u.id, folio_search_fold(u.url, u.nicename, u.display_name)
		FROM users_fts_queue q CROSS JOIN users u ON u.id = q.id;
	INSERT INTO users_private_fts (rowid, text) SELECT u.id, folio_search_fold(u.login, u.email)
		FROM users_fts_queue q CROSS JOIN users u ON u.id = q.id;
	DELETE FROM users_fts_queue;
END;

CREATE TABLE terms_fts_queue (
	id      INTEGER PRIMARY KEY,
	indexed INTEGER NOT NULL
);
CREATE TRIGGER terms_fts_insert AFTER INSERT ON terms BEGIN
	INSERT OR IGNORE INTO terms_fts_queue (id, indexed) VALUES (new.id, 0);
END;
CREATE TRIGGER terms_fts_update AFTER UPDATE OF name, slug ON terms
	WHEN old.name IS NOT new.name OR old.slug IS NOT new.slug
BEGIN
	INSERT OR IGNORE INTO terms_fts_queue (id, indexed) VALUES (new.id, 1);
END;
CREATE TRIGGER terms_fts_delete AFTER DELETE ON terms BEGIN
	INSERT OR IGNORE INTO terms_fts_queue (id, indexed) VALUES (old.id, 1);
END;
CREATE TRIGGER terms_fts_flush AFTER INSERT ON terms_fts_queue
	WHEN (SELECT COUNT(*) FROM terms_fts_queue) >= 64
BEGIN
	DELETE FROM terms_fts WHERE rowid IN (SELECT id FROM terms_fts_queue WHERE indexed);
	INSERT INTO terms_fts (rowid, text) SELECT t.id, folio_search_fold(t.name, t.slug)
		FROM terms_fts_queue q CROSS JOIN terms t ON t.id = q.id;
	DELETE FROM terms_fts_queue;
END;

CREATE TABLE comments_fts_queue (
	id      INTEGER PRIMARY KEY,
	indexed INTEGER NOT NULL
);
CREATE TRIGGER comments_fts_insert AFTER INSERT ON comments BEGIN
	INSERT OR IGNORE INTO comments_fts_queue (id, indexed) VALUES (new.id, 0);
END;
CREATE TRIGGER comments_fts_update AFTER UPDATE OF author_name, author_url, content, author_email, author_ip ON comments
	WHEN old.author_name IS NOT new.author_name OR old.author_url IS NOT new.author_url OR old.content IS NOT new.content
		OR old.author_email IS NOT new.author_email OR old.author_ip IS NOT new.author_ip
BEGIN
	INSERT OR IGNORE INTO comments_fts_queue (id, indexed) VALUES (new.id, 1);
END;
CREATE TRIGGER comments_fts_delete AFTER DELETE ON comments BEGIN
	INSERT OR IGNORE INTO comments_fts_queue (id, indexed) VALUES (old.id, 1);
END;
CREATE TRIGGER comments_fts_flush AFTER INSERT ON comments_fts_queue
	WHEN (SELECT COUNT(*) FROM comments_fts_queue) >= 64
BEGIN
	DELETE FROM comments_fts WHERE rowid IN (SELECT id FROM comments_fts_queue WHERE indexed);
	DELETE FROM comments_private_fts WHERE rowid IN (SELECT id FROM comments_fts_queue WHERE indexed);
	INSERT INTO comments_fts (rowid, text) SELECT c.id, folio_search_fold(c.author_name, c.author_url, c.content)
		FROM comments_fts_queue q CROSS JOIN comments c ON c.id = q.id;
	INSERT INTO comments_private_fts (rowid, text) SELECT c.id, folio_search_fold(c.author_email, c.author_ip)
		FROM comments_fts_queue q CROSS JOIN comments c ON c.id = q.id;
	DELETE FROM comments_fts_queue;
END;

-- A search shorter than three characters reads the newest terms of the
-- taxonomy (docs/search.md): this walks them in id order.
CREATE INDEX terms_taxonomy_id ON terms (taxonomy, id);
