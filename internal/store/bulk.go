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

// BulkLoader is implemented by stores that write a large load (folio
// bench's seeding, a site import) faster when told it is one.
type BulkLoader interface {
	// BulkLoad runs load, which writes through the store as usual (in as
	// many transactions as it likes), with the store set for a bulk load,
	// and sets it back afterwards whatever load returns. Searches and
	// reads stay correct meanwhile; only how the store spends its work
	// changes.
	BulkLoad(ctx context.Context, load func(ctx context.Context) error) error
}
