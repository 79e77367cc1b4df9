-- Retention: old webhook events are removed in small batches, their
-- deliveries with them (ON DELETE CASCADE), which needs the deliveries
-- found by event; and a lease per background job, so that one process at
-- a time runs it (store.RetentionStore). Lease times are Unix
-- milliseconds.
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
CREATE INDEX webhook_events_occurred ON webhook_events (occurred_at);
CREATE TABLE leases (
	name  TEXT    PRIMARY KEY,
	owner TEXT    NOT NULL,
	until INTEGER NOT NULL
) WITHOUT ROWID;
