package store

import "context"

// Optimizer is implemented by stores whose query planner needs its
// statistics refreshed by the application while it runs (SQLite; a
// PostgreSQL server's autovacuum analyzes on its own). A long-running
// server calls Optimize from time to time, so that a site that grew (a
// bulk import by another process, say) does not keep the plans made for
// the empty tables of its first start. Kept out of Store: only the
// server's maintenance loop needs it.
type Optimizer interface {
	// Optimize refreshes the planner statistics that are stale, with a
	// bounded amount of work.
	Optimize(ctx context.Context) error
}
