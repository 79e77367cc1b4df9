package sqlstore

import "context"

// PendingDeliveries counts the webhook deliveries still pending (the
// outbox depth), with the index on (status, next_attempt).
func (db *DB) PendingDeliveries(ctx context.Context) (int64, error) {
	var n int64
	if err := db.reader().queryRow(ctx, `SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'pending'`).Scan(&n); err != nil {
		return 0, db.fail("count pending deliveries", err)
	}
	return n, nil
}
