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
