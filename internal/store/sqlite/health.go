package sqlite

import (
	"context"
	"database/sql"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/sqlstore"
)

var _ store.Health = (*DB)(nil)

// Ping checks that a reader connection answers. It does not touch the
// writer, which a long write may hold.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.c.read.PingContext(ctx); err != nil {
		return sqlstore.Fail(dialect{}, "ping", err)
	}
	return nil
}

// PoolStats describes the reader pool ("read") and the single writer
// connection ("write").
func (db *DB) PoolStats() []store.PoolStats {
	return []store.PoolStats{poolStats("read", db.c.read), poolStats("write", db.c.write)}
}

func poolStats(name string, d *sql.DB) store.PoolStats {
	s := d.Stats()
	return store.PoolStats{Pool: name, MaxOpen: s.MaxOpenConnections, Open: s.OpenConnections,
		InUse: s.InUse, Idle: s.Idle, WaitCount: s.WaitCount, WaitDuration: s.WaitDuration}
}
