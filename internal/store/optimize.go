package store

import "context"

// Optimizer is implemented by stores that need the application to keep
// them in shape while it runs (SQLite: its query planner's statistics,
// and its full-text indexes, which writes leave in many pieces; a
// PostgreSQL server's autovacuum analyzes on its own). A long-running
// server calls Optimize from time to time, so that a site that grew (a
// bulk import by another process, say) does not keep the plans made for
// the empty tables of its first start, nor searches that read an index
// in many pieces. Kept out of Store: only the server's maintenance loop
// needs it.
type Optimizer interface {
	// Optimize refreshes the planner statistics that are stale and
	// merges the indexes written in many pieces, in bounded steps.
	Optimize(ctx context.Context) error
}
