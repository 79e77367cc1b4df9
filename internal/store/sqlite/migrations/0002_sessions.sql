-- Browser sessions: the token itself is only in the visitor's cookie; the
-- table keeps its SHA-256 hash.
CREATE TABLE sessions (
	token_hash TEXT    PRIMARY KEY,
	user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	created    TEXT    NOT NULL DEFAULT '0000-00-00 00:00:00',
	expires    TEXT    NOT NULL DEFAULT '0000-00-00 00:00:00',
	last_seen  TEXT    NOT NULL DEFAULT '0000-00-00 00:00:00',
	ip         TEXT    NOT NULL DEFAULT '',
	user_agent TEXT    NOT NULL DEFAULT ''
) WITHOUT ROWID;
CREATE INDEX sessions_user ON sessions (user_id, created);
CREATE INDEX sessions_expires ON sessions (expires);

-- Failed sign-ins, keyed by account or by client address, for throttling.
CREATE TABLE login_failures (
	id  INTEGER PRIMARY KEY AUTOINCREMENT,
	key TEXT    NOT NULL,
	at  TEXT    NOT NULL
);
CREATE INDEX login_failures_key_at ON login_failures (key, at);
CREATE INDEX login_failures_at ON login_failures (at);
