-- Sign-in throttling keeps one counter per key (an account, a client
-- address, or both) instead of a row per failure, so that an attempt can
-- be checked and counted under a row lock (SELECT ... FOR UPDATE) before
-- the password is verified, by any node. Past failures are forgotten:
-- throttling starts afresh.
DROP TABLE login_failures;
DELETE FROM id_counters WHERE name = 'login_failures';
CREATE TABLE login_counters (
	key      text      COLLATE "C" PRIMARY KEY,
	failures bigint    NOT NULL DEFAULT 0,
	last     timestamp NOT NULL DEFAULT '0001-01-01 00:00:00',
	next     timestamp NOT NULL DEFAULT '0001-01-01 00:00:00'
);
CREATE INDEX login_counters_last ON login_counters (last);
