// Package sqlite implements Folio's store interfaces on SQLite with the
// pure-Go driver modernc.org/sqlite.
//
// A DB holds two connection pools on the same file: a reader pool of several
// connections for queries and a writer pool of exactly one connection for
// every write and every transaction. The database runs in WAL mode, so
// readers never block the writer, and with synchronous=FULL, so a write is
// on disk when its call returns. Write transactions begin IMMEDIATE, so two
// processes writing at once wait for each other (busy_timeout) instead of
// failing with SQLITE_BUSY half-way.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/migrate"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Options tunes a DB. The zero value is usable.
type Options struct {
	// MaxOpenConns bounds the reader pool; 0 means twice the number of
	// CPUs, at least 4 (reads are CPU-bound). Writes always use one
	// connection.
	MaxOpenConns int
	// CacheSizeKiB is SQLite's page cache per connection in KiB; 0 means
	// 4000 (about 4 MB). The operating system caches the file as well, so
	// memory is bounded by (MaxOpenConns+1) × CacheSizeKiB.
	CacheSizeKiB int
	// BusyTimeoutMS is how long a connection waits for a lock held by
	// another process, in milliseconds; 0 means 10000.
	BusyTimeoutMS int
}

// maxCachedStmts bounds the reader pool's prepared statement cache; queries
// beyond it still run, unprepared.
const maxCachedStmts = 256

// DB is a Folio store on one SQLite file. It is safe for concurrent use.
type DB struct {
	ops
	path   string
	read   *sql.DB
	write  *sql.DB
	stmts  atomic.Int64
	cacheM sync.RWMutex
	cache  map[string]*sql.Stmt
}

var _ store.Store = (*DB)(nil)

func init() {
	// folio_lower folds case beyond ASCII, which SQLite's lower() and LIKE
	// do not; searches use it only for terms with non-ASCII letters.
	sqlite.MustRegisterDeterministicScalarFunction("folio_lower", 1, foldFunc)
}

// Open opens the database at path, creating the file and its directory when
// missing. Call Migrate before using a new database.
func Open(ctx context.Context, path string, opts Options) (*DB, error) {
	if path == "" {
		return nil, errors.New("sqlite: empty database path")
	}
	if strings.ContainsAny(path, "?#") || strings.HasPrefix(path, "file:") || path == ":memory:" {
		return nil, fmt.Errorf("sqlite: unsupported database path %q", path)
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("sqlite: create directory: %w", err)
		}
	}
	if opts.MaxOpenConns <= 0 {
		opts.MaxOpenConns = max(4, 2*runtime.NumCPU())
	}
	if opts.CacheSizeKiB <= 0 {
		opts.CacheSizeKiB = 4000
	}
	if opts.BusyTimeoutMS <= 0 {
		opts.BusyTimeoutMS = 10000
	}

	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+strconv.Itoa(opts.BusyTimeoutMS)+")")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "cache_size(-"+strconv.Itoa(opts.CacheSizeKiB)+")")
	q.Add("_pragma", "temp_store(MEMORY)")
	// WAL is a property of the file: the writer sets it, readers find it.
	writeQ := cloneValues(q)
	writeQ.Add("_pragma", "journal_mode(WAL)")
	writeQ.Set("_txlock", "immediate")
	readQ := cloneValues(q)
	readQ.Set("_query_only", "1")

	w, err := sql.Open("sqlite", path+"?"+writeQ.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: open writer: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	// The writer connects first so that it switches a new file to WAL
	// before any reader opens it.
	if err := pingRetry(ctx, w, time.Duration(opts.BusyTimeoutMS)*time.Millisecond); err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	r, err := sql.Open("sqlite", path+"?"+readQ.Encode())
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: open readers: %w", err)
	}
	r.SetMaxOpenConns(opts.MaxOpenConns)
	r.SetMaxIdleConns(opts.MaxOpenConns)
	if err := r.PingContext(ctx); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	db := &DB{path: path, read: r, write: w, cache: map[string]*sql.Stmt{}}
	db.ops = ops{db: db}
	return db, nil
}

// pingRetry connects db, retrying while the file is busy: switching a new
// file to WAL needs an exclusive lock and SQLite reports SQLITE_BUSY at once,
// without waiting, when another process is doing the same.
func pingRetry(ctx context.Context, db *sql.DB, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		err := db.PingContext(ctx)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// isBusy reports whether err is SQLITE_BUSY or SQLITE_LOCKED.
func isBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff
	return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED
}

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// Close closes both pools and the cached statements, first letting SQLite
// refresh the planner statistics it finds stale (PRAGMA optimize).
func (db *DB) Close() error {
	_, _ = db.write.Exec(`PRAGMA optimize`) // best effort: only statistics
	db.cacheM.Lock()
	for _, st := range db.cache {
		st.Close()
	}
	db.cache = nil
	db.cacheM.Unlock()
	return errors.Join(db.read.Close(), db.write.Close())
}

// optimizeAnalysisLimit bounds the rows ANALYZE samples per index when
// Optimize refreshes statistics, so that it holds the writer briefly even
// on a large site (SQLite's own recommendation for periodic runs).
const optimizeAnalysisLimit = 1000

// Optimize refreshes the planner statistics SQLite finds stale (PRAGMA
// optimize, with a bounded analysis), as SQLite recommends doing from time
// to time in long-running applications. It implements store.Optimizer.
func (db *DB) Optimize(ctx context.Context) error {
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlite: optimize: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA analysis_limit=`+strconv.Itoa(optimizeAnalysisLimit)); err != nil {
		return fmt.Errorf("sqlite: optimize: %w", err)
	}
	_, err = conn.ExecContext(ctx, `PRAGMA optimize=0x10002`) // every table, not only those this connection queried
	// The connection goes back to the pool: leave it without a limit.
	if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA analysis_limit=0`); err == nil && rerr != nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("sqlite: optimize: %w", err)
	}
	return nil
}

// Path returns the database file's path.
func (db *DB) Path() string { return db.path }

// Statements returns how many SQL statements (queries and executions, not
// BEGIN or COMMIT) the store has run since Open.
func (db *DB) Statements() int64 { return db.stmts.Load() }

// migrationRunner returns the runner for the embedded migrations.
func migrationRunner() (*migrate.Runner, error) {
	sub, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		return nil, fmt.Errorf("sqlite: migrations: %w", err)
	}
	ms, err := migrate.Load(sub)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	return &migrate.Runner{Migrations: ms}, nil
}

// Migrate brings the schema up to date. It is safe to run from several
// processes at once and refuses (with migrate.ErrSchemaNewer) a database
// that a newer binary migrated.
func (db *DB) Migrate(ctx context.Context) error {
	r, err := migrationRunner()
	if err != nil {
		return err
	}
	applied, err := r.Up(ctx, db.write)
	if err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	if len(applied) > 0 {
		// New tables and indexes: gather planner statistics now.
		if _, err := db.write.ExecContext(ctx, `PRAGMA optimize=0x10002`); err != nil {
			return fmt.Errorf("sqlite: optimize: %w", err)
		}
	}
	return nil
}

// SchemaVersion returns the schema version the database is at and the
// latest one this binary knows.
func (db *DB) SchemaVersion(ctx context.Context) (current, latest int64, err error) {
	r, err := migrationRunner()
	if err != nil {
		return 0, 0, err
	}
	cur, err := r.Current(ctx, db.write)
	if err != nil {
		return 0, 0, fmt.Errorf("sqlite: %w", err)
	}
	return cur, r.Latest(), nil
}

// Version returns the write counter; it is one point read.
func (db *DB) Version(ctx context.Context) (int64, error) {
	return db.ops.version(ctx)
}

// Tx runs fn in one write transaction on the writer connection. fn's store
// reads and writes through the transaction; a Tx inside fn reuses it. The
// transaction commits when fn returns nil and rolls back when it returns an
// error (which Tx returns unchanged) or panics. fn must not use db itself
// for writes: the writer connection is taken.
func (db *DB) Tx(ctx context.Context, fn func(store.Store) error) (err error) {
	sqlTx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: begin: %w", err)
	}
	t := &txStore{}
	t.ops = ops{db: db, tx: &txState{tx: sqlTx}}
	committed := false
	defer func() {
		if !committed {
			if rerr := sqlTx.Rollback(); rerr != nil && !errors.Is(rerr, sql.ErrTxDone) && err != nil {
				err = errors.Join(err, fmt.Errorf("sqlite: rollback: %w", rerr))
			}
		}
	}()
	if err := fn(t); err != nil {
		return err
	}
	if t.tx.dirty {
		if err := t.bump(ctx); err != nil {
			return err
		}
	}
	if err := sqlTx.Commit(); err != nil {
		return fmt.Errorf("sqlite: commit: %w", err)
	}
	committed = true
	return nil
}

// txState is one open transaction; dirty records whether it wrote.
type txState struct {
	tx    *sql.Tx
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

// querier runs statements on one pool or transaction and counts them.
type querier struct {
	db     *DB
	tx     *sql.Tx
	pool   *sql.DB
	cached bool // use the prepared statement cache (reader pool only)
}

// reader returns the querier reads go through.
func (o ops) reader() querier {
	if o.tx != nil {
		return querier{db: o.db, tx: o.tx.tx}
	}
	return querier{db: o.db, pool: o.db.read, cached: true}
}

// writeTx runs fn in a write transaction: the open one when o is bound to
// a transaction, otherwise a new one that bumps the version and commits.
// fn returns whether it changed anything.
func (o ops) writeTx(ctx context.Context, fn func(q querier) (changed bool, err error)) error {
	if o.tx != nil {
		changed, err := fn(querier{db: o.db, tx: o.tx.tx})
		if changed {
			o.tx.dirty = true
		}
		return err
	}
	sqlTx, err := o.db.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: begin: %w", err)
	}
	defer func() { _ = sqlTx.Rollback() }() // a no-op after Commit
	q := querier{db: o.db, tx: sqlTx}
	changed, err := fn(q)
	if err != nil {
		return err
	}
	if changed {
		if _, err := q.exec(ctx, `UPDATE store_version SET version = version + 1 WHERE id = 1`); err != nil {
			return fmt.Errorf("sqlite: bump version: %w", err)
		}
	}
	if err := sqlTx.Commit(); err != nil {
		return fmt.Errorf("sqlite: commit: %w", err)
	}
	return nil
}

// bump increases the version inside o's transaction.
func (o ops) bump(ctx context.Context) error {
	q := querier{db: o.db, tx: o.tx.tx}
	if _, err := q.exec(ctx, `UPDATE store_version SET version = version + 1 WHERE id = 1`); err != nil {
		return fmt.Errorf("sqlite: bump version: %w", err)
	}
	return nil
}

func (o ops) version(ctx context.Context) (int64, error) {
	var v int64
	if err := o.reader().queryRow(ctx, `SELECT version FROM store_version WHERE id = 1`).Scan(&v); err != nil {
		return 0, fmt.Errorf("sqlite: read version: %w", err)
	}
	return v, nil
}

// stmt returns the cached prepared statement for query on the reader pool,
// preparing it on first use; nil when the cache is full or preparing fails
// (the caller then runs the query unprepared).
func (db *DB) stmt(ctx context.Context, query string) *sql.Stmt {
	db.cacheM.RLock()
	st, ok := db.cache[query]
	n := len(db.cache)
	db.cacheM.RUnlock()
	if ok {
		return st
	}
	if n >= maxCachedStmts {
		return nil
	}
	st, err := db.read.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	db.cacheM.Lock()
	defer db.cacheM.Unlock()
	if prev, ok := db.cache[query]; ok {
		st.Close()
		return prev
	}
	if db.cache == nil {
		// Closed meanwhile.
		st.Close()
		return nil
	}
	db.cache[query] = st
	return st
}

func (q querier) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	q.db.stmts.Add(1)
	if q.tx != nil {
		return q.tx.ExecContext(ctx, query, args...)
	}
	return q.pool.ExecContext(ctx, query, args...)
}

func (q querier) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	q.db.stmts.Add(1)
	if q.tx != nil {
		return q.tx.QueryContext(ctx, query, args...)
	}
	if q.cached {
		if st := q.db.stmt(ctx, query); st != nil {
			return st.QueryContext(ctx, args...)
		}
	}
	return q.pool.QueryContext(ctx, query, args...)
}

func (q querier) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	q.db.stmts.Add(1)
	if q.tx != nil {
		return q.tx.QueryRowContext(ctx, query, args...)
	}
	if q.cached {
		if st := q.db.stmt(ctx, query); st != nil {
			return st.QueryRowContext(ctx, args...)
		}
	}
	return q.pool.QueryRowContext(ctx, query, args...)
}

// isUnique reports whether err is a unique or primary key violation.
func isUnique(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	return se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
}

// conflict turns a unique violation into store.ErrConflict naming the
// column ("store: conflict: users.login") and wraps other errors with what.
func conflict(err error, what string) error {
	if isUnique(err) {
		msg := err.Error()
		col := ""
		if i := strings.LastIndex(msg, "constraint failed: "); i >= 0 {
			col = strings.TrimSpace(msg[i+len("constraint failed: "):])
			if j := strings.IndexAny(col, " ("); j >= 0 {
				col = col[:j]
			}
		}
		if col == "" {
			return fmt.Errorf("sqlite: %s: %w", what, store.ErrConflict)
		}
		return fmt.Errorf("%w: %s", store.ErrConflict, col)
	}
	return fmt.Errorf("sqlite: %s: %w", what, err)
}
