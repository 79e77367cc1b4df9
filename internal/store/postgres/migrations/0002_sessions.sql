-- Browser sessions: the token itself is only in the visitor's cookie; the
-- table keeps its SHA-256 hash.
CREATE TABLE sessions (
	token_hash text      COLLATE "C" PRIMARY KEY,
	user_id    bigint    NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	created    timestamp NOT NULL DEFAULT '0001-01-01 00:00:00',
	expires    timestamp NOT NULL DEFAULT '0001-01-01 00:00:00',
	last_seen  timestamp NOT NULL DEFAULT '0001-01-01 00:00:00',
	ip         text      COLLATE "C" NOT NULL DEFAULT '',
	user_agent text      COLLATE "C" NOT NULL DEFAULT ''
);
CREATE INDEX sessions_user ON sessions (user_id, created);
CREATE INDEX sessions_expires ON sessions (expires);

-- Failed sign-ins, keyed by account or by client address, for throttling.
CREATE TABLE login_failures (
	id  bigint    PRIMARY KEY,
	key text      COLLATE "C" NOT NULL,
	at  timestamp NOT NULL
);
CREATE INDEX login_failures_key_at ON login_failures (key, at);
CREATE INDEX login_failures_at ON login_failures (at);
INSERT INTO id_counters (name) VALUES ('login_failures');
