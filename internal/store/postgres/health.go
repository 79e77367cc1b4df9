package postgres

import (
	"context"

	"github.com/folio-server/folio/internal/store"
)

var _ store.Health = (*DB)(nil)

// Ping checks that the server answers on a pool connection.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.c.pool.Ping(ctx); err != nil {
		return fail("ping", err)
	}
	return nil
}

// PoolStats describes the connection pool ("main").
func (db *DB) PoolStats() []store.PoolStats {
	s := db.c.pool.Stat()
	return []store.PoolStats{{
		Pool:         "main",
		MaxOpen:      int(s.MaxConns()),
		Open:         int(s.TotalConns()),
		InUse:        int(s.AcquiredConns()),
		Idle:         int(s.IdleConns()),
		WaitCount:    s.EmptyAcquireCount(),
		WaitDuration: s.EmptyAcquireWaitTime(),
	}}
}
