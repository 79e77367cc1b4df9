package store

import (
	"context"
	"time"
)

// PoolStats describes one database connection pool at a moment, for the
// metrics.
type PoolStats struct {
	// Pool names the pool: "read" and "write" on SQLite, "main" on
	// PostgreSQL.
	Pool string
	// MaxOpen is the most connections the pool may open.
	MaxOpen int
	// Open, InUse and Idle count the pool's connections.
	Open, InUse, Idle int
	// WaitCount and WaitDuration total the waits for a free connection.
	WaitCount    int64
	WaitDuration time.Duration
}

// Health is implemented by stores that can report on themselves to the
// readiness check and the metrics. Kept out of Store: only the server's
// operations endpoints need it.
type Health interface {
	// Ping checks that the database answers, without waiting for the
	// write lock.
	Ping(ctx context.Context) error
	// SchemaVersion returns the schema version the database is at and
	// the latest one this binary knows.
	SchemaVersion(ctx context.Context) (current, latest int64, err error)
	// PoolStats describes the connection pools.
	PoolStats() []PoolStats
	// PendingDeliveries counts the webhook deliveries not yet delivered
	// nor given up (the outbox depth). It only reads.
	PendingDeliveries(ctx context.Context) (int64, error)
}
