// Package postgres implements Folio's store interfaces on PostgreSQL with
// pgx, so that several stateless `folio serve` processes can share one
// database.
//
// It behaves like the SQLite store in every observable way: the same
// ordering (text compares byte-wise under the "C" collation, titles and
// names fold ASCII case only, like SQLite's NOCASE), the same
// case-insensitive search, the same zero date (stored as
// 0001-01-01 00:00:00, which sorts first as '0000-00-00 00:00:00' does),
// gap-free ids that are never reused (an id_counters row per table,
// advanced inside the inserting transaction), the same errors and the same
// statement counts.
//
// Write transactions are serialized across all nodes: Tx takes a
// transaction-level advisory lock (one per database schema) before running
// its function. That is what SQLite's single writer gives for free and what
// read-then-write logic such as unique slugs relies on. The price is that
// transactions never run in parallel, even on different rows; single-call
// writes outside Tx (one statement plus the version bump) do not take the
// lock, because the version row already orders them and they read nothing
// they then act on.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"net"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/migrate"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Options tunes a DB's connection pool. The zero value is usable; settings
// in the URL (pool_max_conns and the like) win over zero fields.
type Options struct {
	// MaxConns bounds the pool; 0 means four per CPU, at least 8. Every
	// node has its own pool: keep nodes × MaxConns below the server's
	// max_connections.
	MaxConns int
	// MinConns is how many idle connections the pool keeps open; 0 means
	// none.
	MinConns int
	// MaxConnLifetime closes connections older than this; 0 means an hour.
	MaxConnLifetime time.Duration
	// ConnectTimeout bounds one connection attempt, so that requests fail
	// fast while the server is down; 0 means 5 seconds.
	ConnectTimeout time.Duration
}

// DB is a Folio store on one PostgreSQL database (and schema). It is safe
// for concurrent use.
type DB struct {
	ops
	pool  *pgxpool.Pool
	url   string
	stmts atomic.Int64
	// writeKey and migrateKey are the advisory lock keys of this schema.
	writeKey, migrateKey int64
}

var _ store.Store = (*DB)(nil)

// Open connects to the database url names ("postgres://..."). Runtime
// parameters in the URL, such as search_path, apply to every connection.
// Call Migrate before using a new database.
func Open(ctx context.Context, url string, opts Options) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse database url: %w", err)
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = max(8, 4*runtime.NumCPU())
	}
	if opts.MaxConnLifetime <= 0 {
		opts.MaxConnLifetime = time.Hour
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 5 * time.Second
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = int32(opts.MaxConns)
	}
	if !strings.Contains(url, "pool_min_conns") && opts.MinConns > 0 {
		cfg.MinConns = int32(min(opts.MinConns, opts.MaxConns))
	}
	if !strings.Contains(url, "pool_max_conn_lifetime") {
		cfg.MaxConnLifetime = opts.MaxConnLifetime
	}
	if !strings.Contains(url, "connect_timeout") {
		cfg.ConnConfig.ConnectTimeout = opts.ConnectTimeout
	}
	// Dates are naive wall-clock values: keep the session out of it.
	cfg.ConnConfig.RuntimeParams["timezone"] = "UTC"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: open pool: %w", err)
	}
	db := &DB{pool: pool, url: url}
	db.ops = ops{db: db}
	var dbName, schema string
	err = pool.QueryRow(ctx, `SELECT current_database(), COALESCE(current_schema(), '')`).Scan(&dbName, &schema)
	if err != nil {
		pool.Close()
		return nil, fail("connect", err)
	}
	if schema == "" {
		pool.Close()
		return nil, errors.New("postgres: no schema to work in (check search_path)")
	}
	db.writeKey = lockKey("folio write " + dbName + "." + schema)
	db.migrateKey = lockKey("folio migrate " + dbName + "." + schema)
	return db, nil
}

// lockKey derives an advisory lock key from a name.
func lockKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return int64(h.Sum64())
}

// Close closes the pool.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
}

// Statements returns how many SQL statements (queries and executions, not
// BEGIN, COMMIT or locks) the store has run since Open.
func (db *DB) Statements() int64 { return db.stmts.Load() }

// Pool returns the connection pool, for tools and tests.
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// migrationRunner returns the runner for the embedded migrations, locked
// with a session advisory lock so that nodes starting at once apply each
// migration exactly once.
func (db *DB) migrationRunner() (*migrate.Runner, error) {
	sub, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		return nil, fmt.Errorf("postgres: migrations: %w", err)
	}
	ms, err := migrate.Load(sub)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	key := db.migrateKey
	return &migrate.Runner{
		Migrations:  ms,
		Placeholder: func(n int) string { return fmt.Sprintf("$%d", n) },
		Lock: func(ctx context.Context, conn *sql.Conn) (func() error, error) {
			if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, key); err != nil {
				return nil, err
			}
			return func() error {
				_, err := conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1)`, key)
				return err
			}, nil
		},
	}, nil
}

// Migrate brings the schema up to date. It is safe to run from several
// processes at once (advisory lock) and refuses, with migrate.ErrSchemaNewer,
// a database that a newer binary migrated.
func (db *DB) Migrate(ctx context.Context) error {
	r, err := db.migrationRunner()
	if err != nil {
		return err
	}
	sdb := stdlib.OpenDBFromPool(db.pool)
	defer sdb.Close()
	if _, err := r.Up(ctx, sdb); err != nil {
		return fail("migrate", err)
	}
	// Statements cached before the migration may describe old tables.
	db.pool.Reset()
	return nil
}

// SchemaVersion returns the schema version the database is at and the
// latest one this binary knows.
func (db *DB) SchemaVersion(ctx context.Context) (current, latest int64, err error) {
	r, err := db.migrationRunner()
	if err != nil {
		return 0, 0, err
	}
	sdb := stdlib.OpenDBFromPool(db.pool)
	defer sdb.Close()
	cur, err := r.Current(ctx, sdb)
	if err != nil {
		return 0, 0, fail("schema version", err)
	}
	return cur, r.Latest(), nil
}

// Version returns the write counter; it is one point read, so every node
// sees every other node's writes at once.
func (db *DB) Version(ctx context.Context) (int64, error) {
	return db.ops.version(ctx)
}

// Tx runs fn in one transaction, after taking this schema's write lock, so
// that transactions from every node run one at a time. fn's store reads
// and writes through the transaction; a Tx inside fn reuses it. The
// transaction commits when fn returns nil and rolls back when it returns an
// error (which Tx returns unchanged) or panics.
func (db *DB) Tx(ctx context.Context, fn func(store.Store) error) (err error) {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return fail("begin", err)
	}
	committed := false
	defer func() {
		if !committed {
			if rerr := tx.Rollback(context.WithoutCancel(ctx)); rerr != nil && !errors.Is(rerr, pgx.ErrTxClosed) && err != nil {
				err = errors.Join(err, fail("rollback", rerr))
			}
		}
	}()
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, db.writeKey); err != nil {
		return fail("write lock", err)
	}
	t := &txStore{}
	t.ops = ops{db: db, tx: &txState{tx: tx}}
	if err := fn(t); err != nil {
		return err
	}
	if t.tx.dirty {
		if err := t.bump(ctx, t.tx.tx); err != nil {
			return err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fail("commit", err)
	}
	committed = true
	return nil
}

// txState is one open transaction; dirty records whether it wrote.
type txState struct {
	tx    pgx.Tx
	dirty bool
}

// txStore is the store bound to one transaction.
type txStore struct {
	ops
}

var _ store.Store = (*txStore)(nil)

// Tx runs fn in the transaction t already is.
func (t *txStore) Tx(ctx context.Context, fn func(store.Store) error) error {
	return fn(t)
}

// Version returns the write counter as the transaction sees it.
func (t *txStore) Version(ctx context.Context) (int64, error) {
	return t.version(ctx)
}

// Close does nothing: the transaction ends when Tx's fn returns.
func (t *txStore) Close() error { return nil }

// ops holds every store method; DB uses it outside transactions and txStore
// inside one.
type ops struct {
	db *DB
	tx *txState // nil outside a transaction
}

// runner is what pgxpool.Pool and pgx.Tx have in common.
type runner interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// querier runs statements on the pool or a transaction and counts them.
type querier struct {
	db *DB
	r  runner
	// retry allows one retry of a read that failed because its pooled
	// connection had died (the server restarted); only outside
	// transactions, where a read is idempotent.
	retry bool
}

// reader returns the querier reads go through.
func (o ops) reader() querier {
	if o.tx != nil {
		return querier{db: o.db, r: o.tx.tx}
	}
	return querier{db: o.db, r: o.db.pool, retry: true}
}

// writeTx runs fn in a write transaction: the open one when o is bound to
// a transaction, otherwise a new one that bumps the version and commits.
// fn returns whether it changed anything. When guard is set and o is in a
// transaction, fn runs under a savepoint, so that an expected failure (a
// unique violation) leaves the transaction usable, as it does in SQLite.
func (o ops) writeTx(ctx context.Context, guard bool, fn func(q querier) (changed bool, err error)) error {
	if o.tx != nil {
		if !guard {
			changed, err := fn(querier{db: o.db, r: o.tx.tx})
			if changed {
				o.tx.dirty = true
			}
			return err
		}
		sp, err := o.tx.tx.Begin(ctx)
		if err != nil {
			return fail("savepoint", err)
		}
		changed, err := fn(querier{db: o.db, r: sp})
		if err != nil {
			if rerr := sp.Rollback(ctx); rerr != nil {
				return errors.Join(err, fail("rollback to savepoint", rerr))
			}
			return err
		}
		if err := sp.Commit(ctx); err != nil {
			return fail("release savepoint", err)
		}
		if changed {
			o.tx.dirty = true
		}
		return nil
	}
	tx, err := o.db.pool.Begin(ctx)
	if err != nil {
		return fail("begin", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }() // a no-op after Commit
	changed, err := fn(querier{db: o.db, r: tx})
	if err != nil {
		return err
	}
	if changed {
		if err := o.bump(ctx, tx); err != nil {
			return err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fail("commit", err)
	}
	return nil
}

// bump increases the version inside tx.
func (o ops) bump(ctx context.Context, tx pgx.Tx) error {
	q := querier{db: o.db, r: tx}
	if _, err := q.exec(ctx, `UPDATE store_version SET version = version + 1 WHERE id = 1`); err != nil {
		return fail("bump version", err)
	}
	return nil
}

func (o ops) version(ctx context.Context) (int64, error) {
	var v int64
	if err := o.reader().queryRow(ctx, `SELECT version FROM store_version WHERE id = 1`).Scan(&v); err != nil {
		return 0, fail("read version", err)
	}
	return v, nil
}

func (q querier) exec(ctx context.Context, query string, args ...any) (pgconn.CommandTag, error) {
	q.db.stmts.Add(1)
	return q.r.Exec(ctx, query, args...)
}

// query runs a query and collects its rows with scan, retrying once outside
// a transaction when the connection turned out to be dead.
func (q querier) query(ctx context.Context, scan func(pgx.Rows) error, query string, args ...any) error {
	for attempt := 0; ; attempt++ {
		q.db.stmts.Add(1)
		err := q.queryOnce(ctx, scan, query, args...)
		if err == nil || !q.retry || attempt > 0 || !deadConn(err) || ctx.Err() != nil {
			return err
		}
	}
}

func (q querier) queryOnce(ctx context.Context, scan func(pgx.Rows) error, query string, args ...any) error {
	rows, err := q.r.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// row is the result of queryRow: its Scan runs the query.
type row struct {
	q     querier
	ctx   context.Context
	query string
	args  []any
}

// Scan runs the query and scans its one row (pgx.ErrNoRows when none).
func (r row) Scan(dest ...any) error {
	found := false
	err := r.q.query(r.ctx, func(rows pgx.Rows) error {
		if found {
			return nil
		}
		found = true
		return rows.Scan(dest...)
	}, r.query, r.args...)
	if err != nil {
		return err
	}
	if !found {
		return pgx.ErrNoRows
	}
	return nil
}

func (q querier) queryRow(ctx context.Context, query string, args ...any) row {
	return row{q: q, ctx: ctx, query: query, args: args}
}

// deadConn reports whether err says the connection (not the statement)
// failed: the server closed it, restarted or cannot be reached.
func deadConn(err error) bool {
	if err == nil {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// 08: connection exception; 57P01-57P03: admin shutdown, crash
		// shutdown, cannot connect now.
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed) {
		return true
	}
	if pgconn.SafeToRetry(err) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "conn closed") || strings.Contains(msg, "connection reset") || strings.Contains(msg, "unexpected EOF")
}

// fail wraps err with what the store was doing; connection failures also
// wrap store.ErrUnavailable, so the API answers 503 instead of 500.
func fail(what string, err error) error {
	if deadConn(err) {
		return fmt.Errorf("postgres: %s: %w: %w", what, store.ErrUnavailable, err)
	}
	return fmt.Errorf("postgres: %s: %w", what, err)
}

// isUnique reports whether err is a unique or primary key violation.
func isUnique(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// conflict turns a unique violation into store.ErrConflict naming the
// column ("store: conflict: users.login", as in SQLite) and wraps other
// errors with what.
func conflict(err error, what string) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" {
		col := strings.TrimPrefix(pe.ConstraintName, pe.TableName+"_")
		col = strings.TrimSuffix(col, "_key")
		if col == "pkey" {
			col = "id"
		}
		if pe.TableName == "" || col == "" {
			return fmt.Errorf("postgres: %s: %w", what, store.ErrConflict)
		}
		return fmt.Errorf("%w: %s.%s", store.ErrConflict, pe.TableName, col)
	}
	return fail(what, err)
}
