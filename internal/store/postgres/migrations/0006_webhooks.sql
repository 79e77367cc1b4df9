-- Outbound webhooks (issue #8): subscriptions, the event outbox written in
-- the same transaction as each change, and one delivery row per event and
-- webhook, which is also the delivery log. Times are Unix milliseconds.
CREATE TABLE webhooks (
	id         bigint  PRIMARY KEY,
	url        text    COLLATE "C" NOT NULL,
	events     text    COLLATE "C" NOT NULL DEFAULT '[]',
	secret     text    COLLATE "C" NOT NULL DEFAULT '',
	active     boolean NOT NULL DEFAULT true,
	config_key text    COLLATE "C",
	created    bigint  NOT NULL DEFAULT 0,
	modified   bigint  NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX webhooks_config_key ON webhooks (config_key) WHERE config_key IS NOT NULL;

CREATE TABLE webhook_events (
	id          bigint PRIMARY KEY,
	name        text   COLLATE "C" NOT NULL,
	kind        text   COLLATE "C" NOT NULL,
	object_type text   COLLATE "C" NOT NULL DEFAULT '',
	object_id   bigint NOT NULL DEFAULT 0,
	snapshot    text   COLLATE "C",
	occurred_at bigint NOT NULL
);

CREATE TABLE webhook_deliveries (
	id           bigint PRIMARY KEY,
	uuid         text   COLLATE "C" NOT NULL,
	webhook_id   bigint NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
	event_id     bigint NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
	event        text   COLLATE "C" NOT NULL,
	status       text   COLLATE "C" NOT NULL DEFAULT 'pending',
	attempts     bigint NOT NULL DEFAULT 0,
	next_attempt bigint NOT NULL,
	lease_owner  text   COLLATE "C" NOT NULL DEFAULT '',
	lease_until  bigint NOT NULL DEFAULT 0,
	body         bytea,
	last_status  bigint NOT NULL DEFAULT 0,
	last_error   text   COLLATE "C" NOT NULL DEFAULT '',
	created      bigint NOT NULL,
	completed_at bigint NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX webhook_deliveries_uuid ON webhook_deliveries (uuid);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, id);
INSERT INTO id_counters (name) VALUES ('webhooks'), ('webhook_events'), ('webhook_deliveries');
