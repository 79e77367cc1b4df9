-- Outbound webhooks (issue #8): subscriptions, the event outbox written in
-- the same transaction as each change, and one delivery row per event and
-- webhook, which is also the delivery log. Times are Unix milliseconds.
CREATE TABLE webhooks (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	url        TEXT    NOT NULL,
	events     TEXT    NOT NULL DEFAULT '[]',
	secret     TEXT    NOT NULL DEFAULT '',
	active     INTEGER NOT NULL DEFAULT 1,
	config_key TEXT,
	created    INTEGER NOT NULL DEFAULT 0,
	modified   INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX webhooks_config_key ON webhooks (config_key) WHERE config_key IS NOT NULL;

CREATE TABLE webhook_events (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	name        TEXT    NOT NULL,
	kind        TEXT    NOT NULL,
	object_type TEXT    NOT NULL DEFAULT '',
	object_id   INTEGER NOT NULL DEFAULT 0,
	snapshot    TEXT,
	occurred_at INTEGER NOT NULL
);

CREATE TABLE webhook_deliveries (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	uuid         TEXT    NOT NULL UNIQUE,
	webhook_id   INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
	event_id     INTEGER NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
	event        TEXT    NOT NULL,
	status       TEXT    NOT NULL DEFAULT 'pending',
	attempts     INTEGER NOT NULL DEFAULT 0,
	next_attempt INTEGER NOT NULL,
	lease_owner  TEXT    NOT NULL DEFAULT '',
	lease_until  INTEGER NOT NULL DEFAULT 0,
	body         BLOB,
	last_status  INTEGER NOT NULL DEFAULT 0,
	last_error   TEXT    NOT NULL DEFAULT '',
	created      INTEGER NOT NULL,
	completed_at INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, id);
