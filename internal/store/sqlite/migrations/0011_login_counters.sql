-- Sign-in throttling keeps one counter per key (an account, a client
-- address, or both) instead of a row per failure, so that an attempt can
-- be checked and counted in one locked read-modify-write before the
-- password is verified. Past failures are forgotten: throttling starts
-- afresh.
DROP TABLE login_failures;
CREATE TABLE login_counters (
	key      TEXT    PRIMARY KEY,
	failures INTEGER NOT NULL DEFAULT 0,
	last     TEXT    NOT NULL DEFAULT '0000-00-00 00:00:00',
	next     TEXT    NOT NULL DEFAULT '0000-00-00 00:00:00'
) WITHOUT ROWID;
CREATE INDEX login_counters_last ON login_counters (last);
