-- Folio's initial schema. Dates are naive wall-clock TEXT values
-- 'YYYY-MM-DD HH:MM:SS'; '0000-00-00 00:00:00' is the zero date.

-- store_version holds the counter every write transaction bumps; caches key
-- on it.
CREATE TABLE store_version (
	id      INTEGER PRIMARY KEY CHECK (id = 1),
	version INTEGER NOT NULL
);
INSERT INTO store_version (id, version) VALUES (1, 0);

CREATE TABLE posts (
	id               INTEGER PRIMARY KEY AUTOINCREMENT,
	type             TEXT    NOT NULL DEFAULT 'post',
	status           TEXT    NOT NULL DEFAULT 'draft',
	author           INTEGER NOT NULL DEFAULT 0,
	parent           INTEGER NOT NULL DEFAULT 0,
	menu_order       INTEGER NOT NULL DEFAULT 0,
	title            TEXT    NOT NULL DEFAULT '',
	content          TEXT    NOT NULL DEFAULT '',
	excerpt          TEXT    NOT NULL DEFAULT '',
	slug             TEXT    NOT NULL DEFAULT '',
	password         TEXT    NOT NULL DEFAULT '',
	guid             TEXT    NOT NULL DEFAULT '',
	date             TEXT    NOT NULL DEFAULT '0000-00-00 00:00:00',
	date_gmt         TEXT    NOT NULL DEFAULT '0000-00-00 00:00:00',
	modified         TEXT    NOT NULL DEFAULT '0000-00-00 00:00:00',
	modified_gmt     TEXT    NOT NULL DEFAULT '0000-00-00 00:00:00',
	comment_status   TEXT    NOT NULL DEFAULT 'open',
	ping_status      TEXT    NOT NULL DEFAULT 'open',
	sticky           INTEGER NOT NULL DEFAULT 0,
	format           TEXT    NOT NULL DEFAULT '',
	template         TEXT    NOT NULL DEFAULT '',
	featured_media   INTEGER NOT NULL DEFAULT 0,
	mime_type        TEXT    NOT NULL DEFAULT '',
	comment_count    INTEGER NOT NULL DEFAULT 0,
	pre_trash_status TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX posts_type_status_date ON posts (type, status, date DESC, id DESC);
CREATE INDEX posts_date ON posts (date DESC, id DESC);
CREATE INDEX posts_type_slug ON posts (type, slug);
CREATE INDEX posts_slug ON posts (slug);
CREATE INDEX posts_author ON posts (author, type, status);
CREATE INDEX posts_parent ON posts (parent, type);
CREATE INDEX posts_type_menu_order ON posts (type, menu_order, id);
CREATE INDEX posts_type_title ON posts (type, title COLLATE NOCASE, id);
CREATE INDEX posts_type_modified ON posts (type, modified, id);
CREATE INDEX posts_type_mime ON posts (type, mime_type);
CREATE INDEX posts_sticky ON posts (sticky) WHERE sticky = 1;

-- Logins, emails and nicenames compare case-insensitively, as the original's
-- database collation did. An empty email is allowed more than once.
CREATE TABLE users (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	login        TEXT NOT NULL COLLATE NOCASE,
	email        TEXT NOT NULL DEFAULT '' COLLATE NOCASE,
	pass_hash    TEXT NOT NULL DEFAULT '',
	display_name TEXT NOT NULL DEFAULT '',
	nicename     TEXT NOT NULL COLLATE NOCASE,
	first_name   TEXT NOT NULL DEFAULT '',
	last_name    TEXT NOT NULL DEFAULT '',
	nickname     TEXT NOT NULL DEFAULT '',
	url          TEXT NOT NULL DEFAULT '',
	description  TEXT NOT NULL DEFAULT '',
	registered   TEXT NOT NULL DEFAULT '0000-00-00 00:00:00'
);
CREATE UNIQUE INDEX users_login ON users (login);
CREATE UNIQUE INDEX users_email ON users (email) WHERE email <> '';
CREATE UNIQUE INDEX users_nicename ON users (nicename);
CREATE INDEX users_display_name ON users (display_name COLLATE NOCASE, id);
CREATE INDEX users_registered ON users (registered, id);

CREATE TABLE user_roles (
	user_id  INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	role     TEXT    NOT NULL,
	position INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (user_id, role)
) WITHOUT ROWID;
CREATE INDEX user_roles_role ON user_roles (role, user_id);

CREATE TABLE user_caps (
	user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	cap     TEXT    NOT NULL,
	granted INTEGER NOT NULL,
	PRIMARY KEY (user_id, cap)
) WITHOUT ROWID;

CREATE TABLE app_passwords (
	id        INTEGER PRIMARY KEY AUTOINCREMENT,
	uuid      TEXT    NOT NULL UNIQUE,
	user_id   INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	name      TEXT    NOT NULL DEFAULT '',
	hash      TEXT    NOT NULL,
	created   TEXT    NOT NULL DEFAULT '0000-00-00 00:00:00',
	last_used TEXT    NOT NULL DEFAULT '0000-00-00 00:00:00',
	last_ip   TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX app_passwords_user ON app_passwords (user_id, id);

CREATE TABLE options (
	name  TEXT PRIMARY KEY,
	value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE terms (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	taxonomy    TEXT    NOT NULL,
	name        TEXT    NOT NULL DEFAULT '',
	slug        TEXT    NOT NULL,
	description TEXT    NOT NULL DEFAULT '',
	parent      INTEGER NOT NULL DEFAULT 0,
	count       INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX terms_taxonomy_slug ON terms (taxonomy, slug);
CREATE INDEX terms_taxonomy_name ON terms (taxonomy, name COLLATE NOCASE, id);
CREATE INDEX terms_taxonomy_parent ON terms (taxonomy, parent);
CREATE INDEX terms_taxonomy_count ON terms (taxonomy, count, id);

CREATE TABLE term_relationships (
	post_id INTEGER NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
	term_id INTEGER NOT NULL REFERENCES terms (id) ON DELETE CASCADE,
	PRIMARY KEY (post_id, term_id)
) WITHOUT ROWID;
CREATE INDEX term_relationships_term ON term_relationships (term_id, post_id);

-- comments.post_id has no foreign key: comments on post 0 are allowed.
CREATE TABLE comments (
	id                INTEGER PRIMARY KEY AUTOINCREMENT,
	post_id           INTEGER NOT NULL DEFAULT 0,
	parent            INTEGER NOT NULL DEFAULT 0,
	author_id         INTEGER NOT NULL DEFAULT 0,
	author_name       TEXT    NOT NULL DEFAULT '',
	author_email      TEXT    NOT NULL DEFAULT '',
	author_url        TEXT    NOT NULL DEFAULT '',
	author_ip         TEXT    NOT NULL DEFAULT '',
	author_user_agent TEXT    NOT NULL DEFAULT '',
	date              TEXT    NOT NULL DEFAULT '0000-00-00 00:00:00',
	date_gmt          TEXT    NOT NULL DEFAULT '0000-00-00 00:00:00',
	content           TEXT    NOT NULL DEFAULT '',
	karma             INTEGER NOT NULL DEFAULT 0,
	approved          TEXT    NOT NULL DEFAULT '1',
	type              TEXT    NOT NULL DEFAULT 'comment'
);
CREATE INDEX comments_post_approved_date ON comments (post_id, approved, date_gmt, id);
CREATE INDEX comments_approved_date ON comments (approved, date_gmt, id);
CREATE INDEX comments_parent ON comments (parent);
CREATE INDEX comments_author ON comments (author_id);

CREATE TABLE post_meta (
	id      INTEGER PRIMARY KEY AUTOINCREMENT,
	post_id INTEGER NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
	key     TEXT    NOT NULL,
	value   TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX post_meta_post_key ON post_meta (post_id, key);
CREATE INDEX post_meta_key ON post_meta (key);
