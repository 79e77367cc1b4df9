-- Folio's initial schema on PostgreSQL, the twin of the SQLite one.
--
-- Dates are naive wall-clock "timestamp without time zone" values; the
-- zero time.Time (0001-01-01 00:00:00) stands for SQLite's
-- '0000-00-00 00:00:00' and, like it, sorts before every real date.
-- Text columns use the "C" collation, so that ordering and equality are
-- byte-wise as in SQLite. folio_nocase folds ASCII case only, as SQLite's
-- NOCASE collation does; folio_lower folds Unicode case for searches.
--
-- Ids are not taken from sequences: id_counters holds the last id handed out
-- per table and inserts advance it inside their transaction, so that a
-- failed or rolled back insert leaves no gap and ids never repeat, exactly
-- like SQLite's AUTOINCREMENT.

CREATE FUNCTION folio_nocase(s text) RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN translate(s, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') COLLATE "C";

CREATE FUNCTION folio_lower(s text) RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN lower(s COLLATE "und-x-icu") COLLATE "C";

-- store_version holds the counter every write transaction bumps; caches key
-- on it.
CREATE TABLE store_version (
	id      integer PRIMARY KEY CHECK (id = 1),
	version bigint  NOT NULL
);
INSERT INTO store_version (id, version) VALUES (1, 0);

CREATE TABLE id_counters (
	name text   COLLATE "C" PRIMARY KEY,
	last bigint NOT NULL DEFAULT 0
);
INSERT INTO id_counters (name) VALUES ('posts'), ('users'), ('app_passwords'), ('terms'), ('comments'), ('post_meta');

CREATE TABLE posts (
	id               bigint    PRIMARY KEY,
	type             text      COLLATE "C" NOT NULL DEFAULT 'post',
	status           text      COLLATE "C" NOT NULL DEFAULT 'draft',
	author           bigint    NOT NULL DEFAULT 0,
	parent           bigint    NOT NULL DEFAULT 0,
	menu_order       bigint    NOT NULL DEFAULT 0,
	title            text      COLLATE "C" NOT NULL DEFAULT '',
	content          text      COLLATE "C" NOT NULL DEFAULT '',
	excerpt          text      COLLATE "C" NOT NULL DEFAULT '',
	slug             text      COLLATE "C" NOT NULL DEFAULT '',
	password         text      COLLATE "C" NOT NULL DEFAULT '',
	guid             text      COLLATE "C" NOT NULL DEFAULT '',
	date             timestamp NOT NULL DEFAULT '0001-01-01 00:00:00',
	date_gmt         timestamp NOT NULL DEFAULT '0001-01-01 00:00:00',
	modified         timestamp NOT NULL DEFAULT '0001-01-01 00:00:00',
	modified_gmt     timestamp NOT NULL DEFAULT '0001-01-01 00:00:00',
	comment_status   text      COLLATE "C" NOT NULL DEFAULT 'open',
	ping_status      text      COLLATE "C" NOT NULL DEFAULT 'open',
	sticky           boolean   NOT NULL DEFAULT false,
	format           text      COLLATE "C" NOT NULL DEFAULT '',
	template         text      COLLATE "C" NOT NULL DEFAULT '',
	featured_media   bigint    NOT NULL DEFAULT 0,
	mime_type        text      COLLATE "C" NOT NULL DEFAULT '',
	comment_count    bigint    NOT NULL DEFAULT 0,
	pre_trash_status text      COLLATE "C" NOT NULL DEFAULT ''
);
CREATE INDEX posts_type_status_date ON posts (type, status, date DESC, id DESC);
CREATE INDEX posts_date ON posts (date DESC, id DESC);
CREATE INDEX posts_type_slug ON posts (type, slug);
CREATE INDEX posts_slug ON posts (slug);
CREATE INDEX posts_author ON posts (author, type, status);
CREATE INDEX posts_parent ON posts (parent, type);
CREATE INDEX posts_type_menu_order ON posts (type, menu_order, id);
CREATE INDEX posts_type_title ON posts (type, folio_nocase(title), id);
CREATE INDEX posts_type_modified ON posts (type, modified, id);
CREATE INDEX posts_type_mime ON posts (type, mime_type);
CREATE INDEX posts_sticky ON posts (sticky) WHERE sticky;

-- Logins, emails and nicenames compare case-insensitively (ASCII), as in
-- SQLite. An empty email is allowed more than once.
CREATE TABLE users (
	id           bigint    PRIMARY KEY,
	login        text      COLLATE "C" NOT NULL,
	email        text      COLLATE "C" NOT NULL DEFAULT '',
	pass_hash    text      COLLATE "C" NOT NULL DEFAULT '',
	display_name text      COLLATE "C" NOT NULL DEFAULT '',
	nicename     text      COLLATE "C" NOT NULL,
	first_name   text      COLLATE "C" NOT NULL DEFAULT '',
	last_name    text      COLLATE "C" NOT NULL DEFAULT '',
	nickname     text      COLLATE "C" NOT NULL DEFAULT '',
	url          text      COLLATE "C" NOT NULL DEFAULT '',
	description  text      COLLATE "C" NOT NULL DEFAULT '',
	registered   timestamp NOT NULL DEFAULT '0001-01-01 00:00:00'
);
CREATE UNIQUE INDEX users_login ON users (folio_nocase(login));
CREATE UNIQUE INDEX users_email ON users (folio_nocase(email)) WHERE email <> '';
CREATE UNIQUE INDEX users_nicename ON users (folio_nocase(nicename));
CREATE INDEX users_display_name ON users (folio_nocase(display_name), id);
CREATE INDEX users_registered ON users (registered, id);

CREATE TABLE user_roles (
	user_id  bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	role     text   COLLATE "C" NOT NULL,
	position bigint NOT NULL DEFAULT 0,
	PRIMARY KEY (user_id, role)
);
CREATE INDEX user_roles_role ON user_roles (role, user_id);

CREATE TABLE user_caps (
	user_id bigint  NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	cap     text    COLLATE "C" NOT NULL,
	granted boolean NOT NULL,
	PRIMARY KEY (user_id, cap)
);

CREATE TABLE app_passwords (
	id        bigint    PRIMARY KEY,
	uuid      text      COLLATE "C" NOT NULL,
	user_id   bigint    NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	name      text      COLLATE "C" NOT NULL DEFAULT '',
	hash      text      COLLATE "C" NOT NULL,
	created   timestamp NOT NULL DEFAULT '0001-01-01 00:00:00',
	last_used timestamp NOT NULL DEFAULT '0001-01-01 00:00:00',
	last_ip   text      COLLATE "C" NOT NULL DEFAULT ''
);
CREATE UNIQUE INDEX app_passwords_uuid ON app_passwords (uuid);
CREATE INDEX app_passwords_user ON app_passwords (user_id, id);

CREATE TABLE options (
	name  text COLLATE "C" PRIMARY KEY,
	value text COLLATE "C" NOT NULL
);

CREATE TABLE terms (
	id          bigint PRIMARY KEY,
	taxonomy    text   COLLATE "C" NOT NULL,
	name        text   COLLATE "C" NOT NULL DEFAULT '',
	slug        text   COLLATE "C" NOT NULL,
	description text   COLLATE "C" NOT NULL DEFAULT '',
	parent      bigint NOT NULL DEFAULT 0,
	count       bigint NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX terms_taxonomy_slug ON terms (taxonomy, slug);
CREATE INDEX terms_taxonomy_name ON terms (taxonomy, folio_nocase(name), id);
CREATE INDEX terms_taxonomy_parent ON terms (taxonomy, parent);
CREATE INDEX terms_taxonomy_count ON terms (taxonomy, count, id);

CREATE TABLE term_relationships (
	post_id bigint NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
	term_id bigint NOT NULL REFERENCES terms (id) ON DELETE CASCADE,
	PRIMARY KEY (post_id, term_id)
);
CREATE INDEX term_relationships_term ON term_relationships (term_id, post_id);

-- comments.post_id has no foreign key: comments on post 0 are allowed.
CREATE TABLE comments (
	id                bigint    PRIMARY KEY,
	post_id           bigint    NOT NULL DEFAULT 0,
	parent            bigint    NOT NULL DEFAULT 0,
	author_id         bigint    NOT NULL DEFAULT 0,
	author_name       text      COLLATE "C" NOT NULL DEFAULT '',
	author_email      text      COLLATE "C" NOT NULL DEFAULT '',
	author_url        text      COLLATE "C" NOT NULL DEFAULT '',
	author_ip         text      COLLATE "C" NOT NULL DEFAULT '',
	author_user_agent text      COLLATE "C" NOT NULL DEFAULT '',
	date              timestamp NOT NULL DEFAULT '0001-01-01 00:00:00',
	date_gmt          timestamp NOT NULL DEFAULT '0001-01-01 00:00:00',
	content           text      COLLATE "C" NOT NULL DEFAULT '',
	karma             bigint    NOT NULL DEFAULT 0,
	approved          text      COLLATE "C" NOT NULL DEFAULT '1',
	type              text      COLLATE "C" NOT NULL DEFAULT 'comment'
);
CREATE INDEX comments_post_approved_date ON comments (post_id, approved, date_gmt, id);
CREATE INDEX comments_approved_date ON comments (approved, date_gmt, id);
CREATE INDEX comments_parent ON comments (parent);
CREATE INDEX comments_author ON comments (author_id);

CREATE TABLE post_meta (
	id      bigint PRIMARY KEY,
	post_id bigint NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
	key     text   COLLATE "C" NOT NULL,
	value   text   COLLATE "C" NOT NULL DEFAULT ''
);
CREATE INDEX post_meta_post_key ON post_meta (post_id, key);
CREATE INDEX post_meta_key ON post_meta (key);
