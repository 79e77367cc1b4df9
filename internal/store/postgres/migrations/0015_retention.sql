-- Retention: old webhook events are removed in small batches, their
-- deliveries with them (ON DELETE CASCADE), which needs the deliveries
-- found by event; and a lease per background job, so that one node at a
-- time runs it (store.RetentionStore). Lease times are Unix milliseconds.
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
CREATE INDEX webhook_events_occurred ON webhook_events (occurred_at);
CREATE TABLE leases (
	name  text   COLLATE "C" PRIMARY KEY,
	owner text   COLLATE "C" NOT NULL,
	until bigint NOT NULL
);
