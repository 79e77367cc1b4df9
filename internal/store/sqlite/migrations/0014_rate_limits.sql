-- API rate limits shared by every process on the database: one token
-- bucket per key (a class of requests and a client address or a user),
-- kept as the time at which the bucket is full again, in Unix
-- microseconds (store.RateLimitStore).
CREATE TABLE rate_limits (
	key TEXT    PRIMARY KEY,
	tat INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX rate_limits_tat ON rate_limits (tat);
