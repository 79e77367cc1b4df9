package store

import "context"

// PostBulkInserter is implemented by stores that insert many posts in few
// statements. Bulk loads (folio bench's seeding) use it when the store has
// it: on SQLite the full-text index flushes its pending words at every
// statement that writes it, so one statement per post writes (and merges)
// one index segment per post.
type PostBulkInserter interface {
	// InsertPosts stores every post of ps, in order, and sets their IDs,
	// as InsertPost would one by one.
	InsertPosts(ctx context.Context, ps []*Post) error
}
