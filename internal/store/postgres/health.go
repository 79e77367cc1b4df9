package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

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

// VacuumOff names what keeps autovacuum away from the site's tables:
// "server" when the server's autovacuum (or track_counts, which it needs)
// is off, and each table of the schema whose autovacuum_enabled storage
// parameter is off. Folio's count and bucket tables (post_counts,
// term_counts, term_post_counts, author_post_counts, comment_counts,
// search_kept_counts, rate_limits, sessions) change a row on most writes
// or requests; without
// vacuum their dead row versions are never reclaimed.
func (db *DB) VacuumOff(ctx context.Context) ([]string, error) {
	var off []string
	var server bool
	if err := db.c.pool.QueryRow(ctx, `SELECT current_setting('autovacuum') = 'off' OR current_setting('track_counts') = 'off'`).Scan(&server); err != nil {
		return nil, fail("read autovacuum", err)
	}
	if server {
		off = append(off, "server")
	}
	rows, err := db.c.pool.Query(ctx, `SELECT c.relname FROM pg_class c
		WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'
		AND EXISTS (SELECT 1 FROM unnest(c.reloptions) o
			WHERE lower(o) IN ('autovacuum_enabled=false', 'autovacuum_enabled=off', 'autovacuum_enabled=0', 'autovacuum_enabled=no', 'autovacuum_enabled=f', 'autovacuum_enabled=n'))
		ORDER BY 1`)
	if err != nil {
		return nil, fail("read tables' autovacuum", err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fail("read tables' autovacuum", err)
	}
	return append(off, tables...), nil
}
