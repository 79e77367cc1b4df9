package postgres

import (
	"context"

	"github.com/folio-server/folio/internal/store/sqlstore"
)

// BeginWrite starts a write transaction as the store's own writes do, for
// tests of what it holds and sends together.
func (db *DB) BeginWrite(ctx context.Context) (sqlstore.Tx, error) { return db.c.Begin(ctx, false) }
