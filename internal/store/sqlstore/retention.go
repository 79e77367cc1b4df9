package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/folio-server/folio/internal/store"
)

// Retention writes do not bump the store version: nothing the caches
// hold depends on old events, counters or leases.

// TakeLease gives the lease name to owner (see store.RetentionStore): one
// conditional upsert, atomic on both databases.
func (o ops) TakeLease(ctx context.Context, name, owner string, now, until time.Time) (bool, error) {
	got := false
	err := o.writeTx(ctx, false, func(q querier) (bool, error) {
		err := q.query(ctx, func(Rows) error { got = true; return nil },
			`INSERT INTO leases (name, owner, until) VALUES ($1, $2, $3)
			ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, until = excluded.until
			WHERE leases.until < $4 OR leases.owner = excluded.owner
			RETURNING owner`, name, owner, until.UnixMilli(), now.UnixMilli())
		if err != nil {
			return false, o.db.fail("take lease", err)
		}
		return false, nil
	})
	return got, err
}

// PruneWebhookEvents removes up to limit old events and their deliveries.
func (o ops) PruneWebhookEvents(ctx context.Context, cutoff time.Time, keep, limit int) (int64, error) {
	var n int64
	err := o.writeTx(ctx, false, func(q querier) (bool, error) {
		// Events at or below the id of the keep+1-th newest are beyond
		// the count.
		var over int64
		err := q.queryRow(ctx, `SELECT id FROM webhook_events ORDER BY id DESC LIMIT 1 OFFSET $1`, max(keep, 0)).Scan(&over)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return false, o.db.fail("count webhook events", err)
		}
		res, err := q.exec(ctx, `DELETE FROM webhook_events WHERE id IN (
			SELECT e.id FROM webhook_events e
			WHERE (e.occurred_at < $1 OR e.id <= $2)
			AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = $3)
			ORDER BY e.id LIMIT $4)`, ms(cutoff), over, store.DeliveryPending, max(limit, 1))
		if err != nil {
			return false, o.db.fail("prune webhook events", err)
		}
		n, err = o.db.rowsAffected(res, "prune webhook events")
		return false, err
	})
	return n, err
}

// PruneLoginCounters removes up to limit counters unchanged since cutoff.
func (o ops) PruneLoginCounters(ctx context.Context, cutoff time.Time, limit int) (int64, error) {
	return o.sessionWrite(ctx, "prune login counters", false,
		`DELETE FROM login_counters WHERE key IN (SELECT key FROM login_counters WHERE last < $1 LIMIT $2)`,
		o.db.d.Time(cutoff), max(limit, 1))
}
