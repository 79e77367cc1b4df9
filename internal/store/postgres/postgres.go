// Package postgres runs Folio's store (store/sqlstore) on PostgreSQL with
// pgx, so that several stateless `folio serve` processes can share one
// database. It keeps what is PostgreSQL's own: the connection pool, the
// migrations and the advisory locks that serialise writers across nodes.
//
// It behaves like the SQLite store in every observable way: the same
// ordering (text compares byte-wise under the "C" collation, titles and
// names fold ASCII case only, like SQLite's NOCASE), the same
// case-insensitive search, the same zero date (stored as
// 0001-01-01 00:00:00, which sorts first as '0000-00-00 00:00:00' does),
// the same errors and the same statement counts. Ids are never reused but
// not gap-free: they come from a sequence per table, which an insert that
// rolls back does not give back (migration 0016). The write version is a
// sequence as well, advanced inside each write and again after its commit
// (sqlstore.Versioner), so that no two writes update one row.
//
// Write transactions run side by side, on every node. What a transaction
// reads and then writes on the strength of what it read (a free slug, a
// login nobody has, the stored settings it merges into) is guarded by a
// lock on a key naming that thing, taken just before the read
// (store.LockKeys: a transaction-level advisory lock on a hash of the
// schema and the key), by a row lock (SELECT ... FOR UPDATE) or by a
// unique index; everything else is single statements that lock the rows
// they change. Counters that every write of a kind would update (posts
// per type, status and month) are spread over several rows (migration
// 0018), so that concurrent creates do not queue on one row.
//
// Every write transaction also takes this schema's write lock in shared
// mode, which costs nothing while every node runs this release: a node of
// the previous release takes it exclusively for each of its write
// transactions (which relied on running alone), so during a rolling
// upgrade its writes still run alone, beside the new nodes' as among
// themselves.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"hash/fnv"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/migrate"
	"github.com/folio-server/folio/internal/store/sqlstore"
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
	*sqlstore.DB
	c *conns
}

var _ store.Store = (*DB)(nil)

// noJIT turns PostgreSQL's compilation of plans to machine code (JIT) off
// on every connection of cfg's pool, unless the URL sets jit itself
// (jit=on). PostgreSQL compiles any plan it estimates dearer than
// jit_above_cost, each time the statement runs, and keeps nothing of it:
// tens of milliseconds of CPU for a read whose plan only looks dear (at a
// million posts on PostgreSQL 15, a page of comments was compiled at
// every run, some 75 ms each, and ran in 0.01 ms without it). The
// setting is sent after connecting, not as a startup parameter, which
// poolers such as PgBouncer refuse.
func noJIT(cfg *pgxpool.Config) {
	if _, set := cfg.ConnConfig.RuntimeParams["jit"]; set {
		return
	}
	after := cfg.AfterConnect
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		if after != nil {
			if err := after(ctx, c); err != nil {
				return err
			}
		}
		_, err := c.Exec(ctx, `SET jit = off`)
		return err
	}
}

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
	noJIT(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: open pool: %w", err)
	}
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
	c := &conns{
		pool:       pool,
		reader:     runConn{pool},
		writeKey:   lockKey("folio write " + dbName + "." + schema),
		migrateKey: lockKey("folio migrate " + dbName + "." + schema),
		keyPrefix:  "folio key " + dbName + "." + schema + "\x00",
		schema:     schema,
	}
	return &DB{DB: sqlstore.New(dialect{}, c), c: c}, nil
}

// lockKey derives an advisory lock key from a name.
func lockKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return int64(h.Sum64())
}

// fail wraps err as the store does.
func fail(what string, err error) error { return sqlstore.Fail(dialect{}, what, err) }

// Pool returns the connection pool, for tools and tests.
func (db *DB) Pool() *pgxpool.Pool { return db.c.pool }

// migrationRunner returns the runner for the embedded migrations, locked
// with a session advisory lock so that nodes starting at once apply each
// migration exactly once.
func (db *DB) migrationRunner() (*migrate.Runner, error) {
	ms, err := migrate.LoadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	key := db.c.migrateKey
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
	sdb := stdlib.OpenDBFromPool(db.c.pool)
	defer sdb.Close()
	if _, err := r.Up(ctx, sdb); err != nil {
		return fail("migrate", err)
	}
	// Statements cached before the migration may describe old tables.
	db.c.pool.Reset()
	return nil
}

// SchemaVersion returns the schema version the database is at and the
// latest one this binary knows.
func (db *DB) SchemaVersion(ctx context.Context) (current, latest int64, err error) {
	r, err := db.migrationRunner()
	if err != nil {
		return 0, 0, err
	}
	sdb := stdlib.OpenDBFromPool(db.c.pool)
	defer sdb.Close()
	cur, err := r.Current(ctx, sdb)
	if err != nil {
		return 0, 0, fail("schema version", err)
	}
	return cur, r.Latest(), nil
}

// conns runs the store's statements on the pool.
type conns struct {
	pool   *pgxpool.Pool
	reader sqlstore.Conn // the pool, as a Conn
	// writeKey and migrateKey are the advisory lock keys of this schema.
	writeKey, migrateKey int64
	// keyPrefix starts the names of the keys LockKeys locks, so that
	// schemas (and databases) never share a key.
	keyPrefix string
	// schema is the schema the store's tables are in.
	schema string
	// words holds the planner's statistics of the posts' words
	// (SearchShare).
	words wordStats
	// kept is what this process remembers of the kept searches
	// (KeepSearch).
	kept keptSearches
}

var (
	_ sqlstore.KeyLocker    = (*conns)(nil)
	_ sqlstore.SignInGuards = (*conns)(nil)
)

// GuardsSignIn reports that the write transactions check a request's
// sign-in with their first statement (writeTx.GuardSignIn).
func (c *conns) GuardsSignIn() bool { return true }

// Reader returns the pool.
func (c *conns) Reader() sqlstore.Conn { return c.reader }

// Begin starts a write transaction on a connection of the pool. Every
// write transaction, serial or not, takes this schema's write lock in
// shared mode: it never waits for this release's writers, only for those
// of the previous release, which take it exclusively (a rolling upgrade).
// BEGIN and that lock are sent with the transaction's first statement, in
// its round trip (writeTx). A serial transaction guards what it reads and
// then writes with LockKeys.
func (c *conns) Begin(ctx context.Context, serial bool) (sqlstore.Tx, error) {
	conn, err := c.pool.Acquire(ctx)
	if err != nil {
		return nil, fail("begin", err)
	}
	return &writeTx{conn: conn, pending: []held{
		{Stmt: sqlstore.Stmt{Query: `BEGIN`}},
		{Stmt: sqlstore.Stmt{Query: `SELECT pg_advisory_xact_lock_shared($1)`, Args: []any{c.writeKey}}},
	}}, nil
}

// LockKeys takes a transaction-level advisory lock on each of keys, in
// the order given (sorted by the caller, so two transactions never wait
// for each other in a cycle over their keys), in one statement. In a
// write transaction the statement goes with the transaction's next one
// (writeTx), which runs once the locks are held; a failure to lock (a
// deadlock) is then that statement's error.
func (c *conns) LockKeys(ctx context.Context, tx sqlstore.Tx, keys []string) error {
	return c.lockKeys(ctx, tx, keys, `pg_advisory_xact_lock`)
}

// ShareKeys takes the locks LockKeys does in shared mode.
func (c *conns) ShareKeys(ctx context.Context, tx sqlstore.Tx, keys []string) error {
	return c.lockKeys(ctx, tx, keys, `pg_advisory_xact_lock_shared`)
}

// lockKeys locks keys with the advisory lock function fn (LockKeys).
func (c *conns) lockKeys(ctx context.Context, tx sqlstore.Tx, keys []string, fn string) error {
	ids := make([]int64, len(keys))
	for i, k := range keys {
		ids[i] = lockKey(c.keyPrefix + k)
	}
	st := sqlstore.Stmt{Query: `SELECT ` + fn + `($1)`, Args: []any{ids[0]}}
	if len(ids) > 1 {
		// unnest yields the keys in array order, and each row's lock is
		// taken as the row is produced.
		st = sqlstore.Stmt{Query: `SELECT ` + fn + `(k) FROM unnest($1::bigint[]) AS u(k)`, Args: []any{ids}}
	}
	if wt, ok := tx.(*writeTx); ok {
		return wt.lock(st)
	}
	_, err := tx.Exec(ctx, st.Query, st.Args...)
	return err
}

// Snapshot starts a REPEATABLE READ, READ ONLY transaction: every read
// sees the snapshot taken by its first statement, and writes fail. It
// takes no lock, so writers on every node go on; while it is open, VACUUM
// cannot remove row versions the snapshot may still see.
func (c *conns) Snapshot(ctx context.Context) (sqlstore.Tx, error) {
	tx, err := c.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, fail("begin snapshot", err)
	}
	return pgTx{tx}, nil
}

// Close closes the pool.
func (c *conns) Close() error {
	c.pool.Close()
	return nil
}

// runner is what pgxpool.Pool and pgx.Tx have in common.
type runner interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// runConn runs statements on the pool or a transaction.
type runConn struct{ r runner }

func (c runConn) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	tag, err := c.r.Exec(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return result(tag.RowsAffected()), nil
}

func (c runConn) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	rs, err := c.r.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return rows{rs}, nil
}

// pgTx is a read-only snapshot transaction (Snapshot).
type pgTx struct{ tx pgx.Tx }

func (t pgTx) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return runConn{t.tx}.Exec(ctx, query, args...)
}

func (t pgTx) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	return runConn{t.tx}.Query(ctx, query, args...)
}

func (t pgTx) Commit(ctx context.Context) error { return t.tx.Commit(ctx) }

func (t pgTx) Rollback(ctx context.Context) error {
	if err := t.tx.Rollback(ctx); err != nil && !errors.Is(err, pgx.ErrTxClosed) {
		return err
	}
	return nil
}

// Guard runs fn under a savepoint: a failed statement aborts a PostgreSQL
// transaction, and rolling back to the savepoint makes it usable again.
func (t pgTx) Guard(ctx context.Context, fn func(sqlstore.Conn) error) error {
	sp, err := t.tx.Begin(ctx)
	if err != nil {
		return fail("savepoint", err)
	}
	if err := fn(pgTx{sp}); err != nil {
		if rerr := sp.Rollback(ctx); rerr != nil {
			return errors.Join(err, fail("rollback to savepoint", rerr))
		}
		return err
	}
	if err := sp.Commit(ctx); err != nil {
		return fail("release savepoint", err)
	}
	return nil
}

// result is the sql.Result of a statement: rows affected, no insert id
// (statements return generated ids with RETURNING).
type result int64

func (r result) LastInsertId() (int64, error) {
	return 0, errors.New("postgres: no last insert id; use RETURNING")
}

func (r result) RowsAffected() (int64, error) { return int64(r), nil }

// rows adapts pgx's rows.
type rows struct{ pgx.Rows }

func (r rows) Columns() []string {
	fields := r.FieldDescriptions()
	cols := make([]string, len(fields))
	for i, f := range fields {
		cols[i] = f.Name
	}
	return cols
}
