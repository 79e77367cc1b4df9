package postgres

import (
	"context"

	"github.com/folio-server/folio/internal/store/sqlstore"
)

// BeginWrite starts a write transaction as the store's own writes do, for
// tests of what it holds and sends together.
func (db *DB) BeginWrite(ctx context.Context) (sqlstore.Tx, error) { return db.c.Begin(ctx, false) }

// SearchShare is the estimate a search page's and total's plans follow.
func (db *DB) SearchShare(ctx context.Context, words []string) (float64, bool) {
	return db.c.SearchShare(ctx, words)
}

// KeepSearch keeps a search as a count of it does (sqlstore.SearchKeeper).
func (db *DB) KeepSearch(ctx context.Context, words, types, statuses []string) (int64, bool, error) {
	return db.c.KeepSearch(ctx, words, types, statuses)
}

// KeptSearch reads a search's kept total (false: not kept), noting the
// read as a count does.
func (db *DB) KeptSearch(ctx context.Context, words, types, statuses []string) (int64, bool, error) {
	a := &sqlstore.Args{}
	var n *int64
	if err := db.c.pool.QueryRow(ctx, `SELECT (`+db.c.KeptSearch(a, words, types, statuses)+`)`, a.Values()...).Scan(&n); err != nil {
		return 0, false, err
	}
	if n == nil {
		return 0, false, nil
	}
	db.c.SearchRead(words)
	return *n, true, nil
}

// MaxKeptSearches is how many searches are kept at most.
const MaxKeptSearches = maxKeptSearches
