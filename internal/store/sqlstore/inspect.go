package sqlstore

import (
	"context"
	"slices"

	"github.com/folio-server/folio/internal/store"
)

var _ store.Inspector = (*DB)(nil)

// Inspect counts the rows of every table of the site and reads the
// webhook outbox's backlog and oldest event. Each count is its own
// statement: the report is not one snapshot.
func (db *DB) Inspect(ctx context.Context) (*store.Inspection, error) {
	q := db.reader()
	var names []string
	err := q.query(ctx, func(rows Rows) error {
		var n string
		if err := rows.Scan(&n); err != nil {
			return err
		}
		names = append(names, n)
		return nil
	}, db.d.Catalog().Tables)
	if err != nil {
		return nil, db.fail("list tables", err)
	}
	slices.Sort(names)
	out := &store.Inspection{}
	for _, n := range names {
		var rows int64
		// The names come from the database's own catalog.
		if err := q.queryRow(ctx, `SELECT COUNT(*) FROM "`+n+`"`).Scan(&rows); err != nil {
			return nil, db.fail("count "+n, err)
		}
		out.Tables = append(out.Tables, store.TableSize{Name: n, Rows: rows})
	}
	var oldest, event int64
	if err := q.queryRow(ctx, `SELECT COUNT(*), COALESCE(MIN(created), 0) FROM webhook_deliveries WHERE status = $1`,
		store.DeliveryPending).Scan(&out.PendingDeliveries, &oldest); err != nil {
		return nil, db.fail("count pending deliveries", err)
	}
	if err := q.queryRow(ctx, `SELECT COALESCE(MIN(occurred_at), 0) FROM webhook_events`).Scan(&event); err != nil {
		return nil, db.fail("oldest webhook event", err)
	}
	out.OldestPending, out.OldestEvent = fromMS(oldest), fromMS(event)
	return out, nil
}
