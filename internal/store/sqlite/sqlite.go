// Package sqlite runs Folio's store (store/sqlstore) on SQLite with the
// pure-Go driver modernc.org/sqlite. It keeps what is SQLite's own: opening
// and tuning the connections, the migrations, the single writer and the
// reader pool's statement cache.
//
// A DB holds two connection pools on the same file: a reader pool of several
// connections for queries and a writer pool of exactly one connection for
// every write and every transaction. The database runs in WAL mode, so
// readers never block the writer, and a write is on disk when its call
// returns: the writer batches write transactions and syncs the WAL after
// each batch's COMMIT, outside the writer's turn (group.go), which is
// synchronous=FULL with the sync moved out of the way of the next batch;
// a checkpointer copies the WAL into the file on a connection of its own
// (checkpoint.go). Write transactions begin IMMEDIATE, so two
// processes writing at once wait for each other (busy_timeout) instead of
// failing with SQLITE_BUSY half-way.
package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/migrate"
	"github.com/folio-server/folio/internal/store/sqlstore"
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

// maxCachedStmts bounds the reader pool's prepared statement cache: past
// it, the statement used least recently is closed to make room.
const maxCachedStmts = 256

// maxWriteStmts bounds the writer's prepared statements (see writeStmts).
const maxWriteStmts = 256

// DB is a Folio store on one SQLite file. It is safe for concurrent use.
type DB struct {
	*sqlstore.DB
	c *conns
}

var (
	_ store.Store          = (*DB)(nil)
	_ store.Optimizer      = (*DB)(nil)
	_ store.BulkLoader     = (*DB)(nil)
	_ store.SearchPreparer = (*DB)(nil)
)

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
	// Temporary tables, sorts and the writer's statement and savepoint
	// journals in memory. A write transaction's journal holds the first
	// prior copy of each page it changes (20 to 30 pages for a create);
	// past 64 KiB a file-backed journal wrote each to a temporary file
	// (8% of a create's CPU). Held in memory, the journal of a large
	// transaction under a savepoint is walked from its start at the end
	// of each statement: bulk loads run their transactions without one
	// (withAlone).
	q.Add("_pragma", "temp_store(MEMORY)")
	// WAL is a property of the file: the writer sets it, readers find it.
	writeQ, readQ := cloneValues(q), cloneValues(q)
	writeQ.Add("_pragma", "journal_mode(WAL)")
	// A WAL that grew under load is cut back to this size once it restarts.
	writeQ.Add("_pragma", "journal_size_limit("+strconv.Itoa(walCheckpointBytes)+")")
	writeQ.Set("_txlock", "immediate")
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
	r.SetConnMaxLifetime(readerMaxLifetime)
	if err := r.PingContext(ctx); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	// The checkpointer's connection: neither a reader (those are
	// query-only) nor the writer.
	cq := cloneValues(q)
	cq.Set("_pragma", "busy_timeout(0)")
	for _, v := range q["_pragma"] {
		if !strings.HasPrefix(v, "busy_timeout") {
			cq.Add("_pragma", v)
		}
	}
	cp, err := sql.Open("sqlite", path+"?"+cq.Encode())
	if err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("sqlite: open checkpointer: %w", err)
	}
	cp.SetMaxOpenConns(1)
	cp.SetMaxIdleConns(1)
	cp.SetConnMaxLifetime(0)
	cp.SetConnMaxIdleTime(0)
	ws := newWriteStmts(w, maxWriteStmts)
	g := newGroup(w, ws, path)
	g.checkpoints = newCheckpointer(cp, checkpointInterval, &g.stats)
	c := &conns{path: path, cacheKiB: opts.CacheSizeKiB, readers: opts.MaxOpenConns, read: r, write: w, stmts: newStmtCache(r, maxCachedStmts), wstmts: ws, group: g}
	// Without the header (a file system without shared memory files),
	// the version is read from the database every time.
	if m, err := openChangeMarks(ctx, path, readQ.Encode()); err == nil {
		c.marks = m
	}
	return &DB{DB: sqlstore.New(dialect{}, c), c: c}, nil
}

// pingRetry connects db, retrying while the file is busy: switching a new
// file to WAL needs an exclusive lock and SQLite reports SQLITE_BUSY at once,
// without waiting, when another process is doing the same.
func pingRetry(ctx context.Context, db *sql.DB, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		err := db.PingContext(ctx)
		if err == nil || !(dialect{}).Busy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// optimizeAnalysisLimit bounds the rows ANALYZE samples per index when
// Optimize refreshes statistics, so that it holds the writer briefly even
// on a large site (SQLite's own recommendation for periodic runs).
const optimizeAnalysisLimit = 1000

// Optimize refreshes the planner statistics SQLite finds stale
// (refreshStatistics) and merges the full-text indexes written in many
// segments (mergeSearchIndexes), as SQLite recommends doing from time to
// time in long-running applications. It implements store.Optimizer.
func (db *DB) Optimize(ctx context.Context) error {
	if err := db.refreshStatistics(ctx); err != nil {
		return err
	}
	return db.mergeSearchIndexes(ctx)
}

// refreshStatistics runs PRAGMA optimize, with a bounded analysis, and
// has the readers plan with what it gathers. A connection loads the
// statistics when it opens and keeps what it loaded: ANALYZE does not
// change the schema, so the other connections do not read them again.
// The writer's connection analyzes; the idle readers are replaced, and a
// reader busy meanwhile is replaced once it is readerMaxLifetime old.
func (db *DB) refreshStatistics(ctx context.Context) error {
	conn, err := db.c.write.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlite: optimize: %w", err)
	}
	defer conn.Close()
	defer db.c.closeIdleReaders()
	if _, err := conn.ExecContext(ctx, `PRAGMA analysis_limit=`+strconv.Itoa(optimizeAnalysisLimit)); err != nil {
		return fmt.Errorf("sqlite: optimize: %w", err)
	}
	_, err = conn.ExecContext(ctx, `PRAGMA optimize=0x10002`) // every table, not only those this connection queried
	if err == nil {
		// This connection counted the rows of the tables whose statistics
		// are dropped just now: what it keeps of them is right.
		_, err = dropSamples(ctx, conn)
	}
	// The connection goes back to the pool: leave it without a limit.
	if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA analysis_limit=0`); err == nil && rerr != nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("sqlite: optimize: %w", err)
	}
	return nil
}

// CompactSearchIndex merges posts_fts into one segment (FTS5's
// 'optimize'), as a bulk load ends (BulkLoad). It holds the writer for as
// long as that takes.
func (db *DB) CompactSearchIndex(ctx context.Context) error {
	if _, err := db.c.write.ExecContext(ctx, `INSERT INTO posts_fts (posts_fts) VALUES ('optimize')`); err != nil {
		return fmt.Errorf("sqlite: compact search index: %w", err)
	}
	return nil
}

// FTS5's merge settings for posts_fts outside a bulk load: its defaults.
const (
	ftsAutomerge   = 4
	ftsCrisismerge = 16
)

// bulkCrisismerge is FTS5's crisismerge during a bulk load: a level of
// the index that holds this many pieces is merged into one piece of the
// next level as the write that completes it commits (automerge, the
// merging a little at every write, is off meanwhile). Merging by whole
// levels costs less than incremental merging, and it leaves the index in
// levels as a site that grew would have them: the one piece the load
// ends with (CompactSearchIndex) then sits above them all, and the
// creates that follow reach its level only after some 4^levels writes.
// Unmerged during the load, every piece stayed on the lowest level, the
// compacted piece one above it, and it was merged again (the whole index
// rewritten) after the first 16, 64, 256… writes: creates at 1M posts
// fell to 65 a second for thousands of writes after a seeding.
const bulkCrisismerge = 4

// bulkCacheKiB is the writer's page cache during a bulk load: the posts'
// indexes of a large site no longer fit the usual cache, and every page
// read back from the file is a system call.
const bulkCacheKiB = 256 << 10

// BulkLoad runs load with posts_fts set to merge the pieces each write
// transaction adds to it level by level (bulkCrisismerge) instead of a
// little at every write. The writer's page cache grows
// for the load. Afterwards the index is merged into one piece
// (CompactSearchIndex) and the settings are set back; a load that a crash
// ends leaves them for the next Migrate to set back. It implements
// store.BulkLoader.
func (db *DB) BulkLoad(ctx context.Context, load func(ctx context.Context) error) (err error) {
	if err := db.setMerges(ctx, 0, bulkCrisismerge); err != nil {
		return err
	}
	// Each write transaction of the load is a batch of its own (withAlone):
	// its statement journals then hold one statement's pages at a time.
	if _, err := db.c.write.ExecContext(ctx, `PRAGMA cache_size=-`+strconv.Itoa(bulkCacheKiB)); err != nil {
		return fmt.Errorf("sqlite: bulk load: %w", err)
	}
	defer func() {
		ctx := context.WithoutCancel(ctx)
		_, cerr := db.c.write.ExecContext(ctx, `PRAGMA cache_size=-`+strconv.Itoa(db.c.cacheKiB))
		if cerr == nil {
			cerr = db.setMerges(ctx, ftsAutomerge, ftsCrisismerge)
		}
		if err == nil {
			err = cerr
		}
	}()
	if err := load(withAlone(ctx)); err != nil {
		return err
	}
	return db.CompactSearchIndex(ctx)
}

// setMerges sets posts_fts's automerge and crisismerge, in a transaction
// of the writer (its turn: a batch may be open).
func (db *DB) setMerges(ctx context.Context, automerge, crisismerge int) error {
	tx, err := db.c.Begin(ctx, true)
	if err != nil {
		return fmt.Errorf("sqlite: fts5 merge settings: %w", err)
	}
	for _, kv := range [][2]any{{"automerge", automerge}, {"crisismerge", crisismerge}} {
		if _, err := tx.Exec(ctx, `INSERT INTO posts_fts (posts_fts, rank) VALUES (?, ?)`, kv[0], kv[1]); err != nil {
			_ = tx.Rollback(ctx)
			return fmt.Errorf("sqlite: fts5 merge settings: %w", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("sqlite: fts5 merge settings: %w", err)
	}
	return nil
}

// restoreMerges sets posts_fts's merge settings back to ftsAutomerge and
// ftsCrisismerge where a bulk load left others.
func (db *DB) restoreMerges(ctx context.Context) error {
	var odd int
	err := db.c.write.QueryRowContext(ctx, `SELECT COUNT(*) FROM posts_fts_config
		WHERE (k = 'automerge' AND v <> ?) OR (k = 'crisismerge' AND v <> ?)`, ftsAutomerge, ftsCrisismerge).Scan(&odd)
	if err != nil {
		return fmt.Errorf("sqlite: fts5 merge settings: %w", err)
	}
	if odd == 0 {
		return nil
	}
	return db.setMerges(ctx, ftsAutomerge, ftsCrisismerge)
}

// Path returns the database file's path.
func (db *DB) Path() string { return db.c.path }

// migrationRunner returns the runner for the embedded migrations.
func migrationRunner() (*migrate.Runner, error) {
	ms, err := migrate.LoadDir(migrationFiles, "migrations")
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
	applied, err := r.Up(ctx, db.c.write)
	if err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	// The full-text index's changes are queued from here on (migration
	// 0017); what a migration queued is applied with the first batch.
	db.c.group.searchQueue.Store(true)
	// A bulk load a crash ended left its merge settings.
	if err := db.restoreMerges(ctx); err != nil {
		return err
	}
	if len(applied) > 0 {
		// New tables and indexes: gather planner statistics now.
		if _, err := db.c.write.ExecContext(ctx, `PRAGMA optimize=0x10002`); err != nil {
			return fmt.Errorf("sqlite: optimize: %w", err)
		}
	}
	// Also the samples an earlier version's analyses left.
	dropped, err := dropSamples(ctx, db.c.write)
	if err == nil && dropped {
		err = db.c.reconnect(ctx)
	}
	if err != nil {
		return fmt.Errorf("sqlite: optimize: %w", err)
	}
	return nil
}

// analyzer runs statements on the connection that analyzed.
type analyzer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// readerMaxLifetime bounds how long a reader's connection serves: one
// opens with the planner statistics as they are then and keeps them
// (Optimize).
const readerMaxLifetime = 15 * time.Minute

// statsMinRows is the fewest rows a table's statistics are kept for
// (dropSamples).
const statsMinRows = 100

// dropSamples deletes what ANALYZE leaves that misleads the planner, and
// reloads the statistics without it:
//
//   - the index samples this build of SQLite keeps beside its statistics
//     (sqlite_stat4). A statement whose plan consulted samples for a bound
//     value is prepared again every time it runs with another value: a
//     create spent 13% of its CPU preparing the statements of its terms
//     (sampled: the terms table is small enough to be analyzed whole)
//     again. Folio's plans do not rest on samples (a search chooses its
//     plan by counting its matches, indexes are named where a plan
//     matters, and the tests check the plans), and sqlite_stat1's row
//     counts stay.
//   - the statistics of FTS5's own tables (posts_fts_data and the like).
//     Analyzed when they were nearly empty (a new site's migration) and
//     never again, posts_fts_data counted 2 rows at a million posts, and
//     the planner read the whole index (a full scan instead of a range of
//     ids) for each piece a merge deleted: 83% of a create's CPU at 1M
//     posts. FTS5's statements are written for their keys; without
//     statistics the planner takes them.
//   - the statistics of tables analyzed with fewer than statsMinRows
//     rows. SQLite plans a table it knows to hold one row as a scan, and
//     a new site's migration analyzes its terms with one (its category):
//     the terms of a page were a scan of every term, probing the page's
//     links for each, 8.6 ms a page once the site had 5,000 tags and more
//     with each tag, until the next analysis reached the connection. On
//     a table that small any plan is fast; without statistics the planner
//     takes the keys the queries are written for.
//
// The reload leaves a connection the row counts it had loaded (or
// counted, if it analyzed) for tables that no longer have statistics;
// dropped reports whether statistics were dropped, and with them counts
// a connection may still hold: the caller replaces the connections.
func dropSamples(ctx context.Context, db analyzer) (dropped bool, err error) {
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE name = 'sqlite_stat1'`).Scan(&n); err != nil || n == 0 {
		return false, err // nothing analyzed yet
	}
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE name = 'sqlite_stat4'`).Scan(&n); err != nil {
		return false, err
	}
	if n > 0 {
		if _, err := db.ExecContext(ctx, `DELETE FROM sqlite_stat4`); err != nil {
			return false, err
		}
	}
	// sqlite_stat1's stat starts with the table's row count.
	res, err := db.ExecContext(ctx, `DELETE FROM sqlite_stat1 WHERE tbl IN (
		SELECT f.name || s.suffix FROM (`+ftsTablesQuery+`) f,
			(SELECT '_data' AS suffix UNION ALL SELECT '_idx' UNION ALL SELECT '_docsize'
				UNION ALL SELECT '_config' UNION ALL SELECT '_content') s)
		OR tbl IN (SELECT tbl FROM sqlite_stat1 GROUP BY tbl HAVING max(CAST(stat AS INTEGER)) < ?)`, statsMinRows)
	if err != nil {
		return false, err
	}
	rows, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	_, err = db.ExecContext(ctx, `ANALYZE sqlite_schema`) // reload the statistics
	return rows > 0, err
}

// reconnect replaces the writer's connection and the idle readers by new
// ones, which load the statistics as they are now (dropSamples).
func (c *conns) reconnect(ctx context.Context) error {
	conn, err := c.write.Conn(ctx)
	if err != nil {
		return err
	}
	// A connection whose Raw returns ErrBadConn is closed, not pooled.
	if err := conn.Raw(func(any) error { return driver.ErrBadConn }); err != nil && !errors.Is(err, driver.ErrBadConn) {
		conn.Close()
		return err
	}
	conn.Close()
	c.closeIdleReaders()
	return nil
}

// closeIdleReaders closes the readers no query holds; the pool opens new
// ones as queries need them.
func (c *conns) closeIdleReaders() {
	c.read.SetMaxIdleConns(0)
	c.read.SetMaxIdleConns(c.readers)
}

// SchemaVersion returns the schema version the database is at and the
// latest one this binary knows.
func (db *DB) SchemaVersion(ctx context.Context) (current, latest int64, err error) {
	r, err := migrationRunner()
	if err != nil {
		return 0, 0, err
	}
	cur, err := r.Current(ctx, db.c.write)
	if err != nil {
		return 0, 0, fmt.Errorf("sqlite: %w", err)
	}
	return cur, r.Latest(), nil
}

// conns runs the store's statements: reads on the reader pool through the
// statement cache, writes and transactions on the single writer.
type conns struct {
	path string
	// cacheKiB is each connection's page cache (Options.CacheSizeKiB).
	cacheKiB int
	// readers is the reader pool's size (Options.MaxOpenConns).
	readers int
	read    *sql.DB
	write   *sql.DB
	stmts   *stmtCache
	// wstmts are the writer's prepared statements.
	wstmts *writeStmts
	// group batches the write transactions (group commit).
	group *group
	// counts is the store's gate of search counts (SearchTotal).
	counts *sqlstore.Gate
	// marks reads the WAL-index header (ChangeMark); nil where it cannot.
	marks *changeMarks
}

var _ sqlstore.ChangeMarker = (*conns)(nil)

// ChangeMark implements sqlstore.ChangeMarker.
func (c *conns) ChangeMark() (sqlstore.ChangeMark, bool) {
	if c.marks == nil {
		return sqlstore.ChangeMark{}, false
	}
	return c.marks.mark()
}

// SetSearchCountGate implements sqlstore.SearchCountGater.
func (c *conns) SetSearchCountGate(g *sqlstore.Gate) { c.counts = g }

// Reader returns the reader pool.
func (c *conns) Reader() sqlstore.Conn { return readConn{c} }

// Begin starts a write transaction on the writer connection, under a
// savepoint of a batch (see group): the batch's SQLite transaction begins
// IMMEDIATE, so it holds the file's write lock from the start. Being the
// only writer makes every write transaction run alone: serial needs
// nothing more.
func (c *conns) Begin(ctx context.Context, serial bool) (sqlstore.Tx, error) {
	return c.group.begin(ctx)
}

// Snapshot starts a read transaction on a reader connection. In WAL mode
// it reads one snapshot of the file, taken by its first read, and never
// blocks the writer; while it is open, checkpoints cannot recycle the WAL
// past that snapshot, so the WAL file grows with what is written meanwhile.
// Writes through it fail: reader connections are query-only.
func (c *conns) Snapshot(ctx context.Context) (sqlstore.Tx, error) {
	tx, err := c.read.BeginTx(ctx, nil)
	if err != nil {
		return nil, sqlstore.Fail(dialect{}, "begin snapshot", err)
	}
	return sqlTx{tx: tx}, nil
}

// Close closes both pools and the cached statements, first letting SQLite
// refresh the planner statistics it finds stale (PRAGMA optimize).
func (c *conns) Close() error {
	c.group.close()
	if _, err := c.write.Exec(`PRAGMA optimize`); err == nil { // best effort: only statistics
		_, _ = dropSamples(context.Background(), c.write)
	}
	c.stmts.close()
	c.wstmts.close()
	err := errors.Join(c.group.checkpoints.close(), c.read.Close(), c.write.Close())
	if c.marks != nil {
		err = errors.Join(err, c.marks.close()) // last: its connection keeps the -shm file
	}
	return err
}

// readConn runs reads on the reader pool, prepared once through the
// statement cache.
type readConn struct{ c *conns }

func (r readConn) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return r.c.read.ExecContext(ctx, query, args...)
}

func (r readConn) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	rs, err := r.c.stmts.query(ctx, query, args)
	if err != nil {
		return nil, err
	}
	return rows{rs}, nil
}

// sqlTx is a transaction of either pool; w is the writer's statements
// (nil on a reader's snapshot).
type sqlTx struct {
	tx *sql.Tx
	w  *writeStmts
}

// stmt returns the transaction's handle on query's prepared statement, nil
// when it is not prepared (yet).
func (t sqlTx) stmt(ctx context.Context, query string) *sql.Stmt {
	if t.w == nil {
		return nil
	}
	st := t.w.lookup(query)
	if st == nil {
		return nil
	}
	return t.tx.StmtContext(ctx, st)
}

func (t sqlTx) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := t.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, query, args...)
}

func (t sqlTx) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	var rs *sql.Rows
	var err error
	if st := t.stmt(ctx, query); st != nil {
		rs, err = st.QueryContext(ctx, args...)
	} else {
		rs, err = t.tx.QueryContext(ctx, query, args...)
	}
	if err != nil {
		return nil, err
	}
	return rows{rs}, nil
}

// Commit commits, then prepares the statements first seen in the
// transaction (the writer connection is free again).
func (t sqlTx) Commit(context.Context) error {
	err := t.tx.Commit()
	if t.w != nil {
		t.w.preparePending()
	}
	return err
}

func (t sqlTx) Rollback(context.Context) error {
	err := t.tx.Rollback()
	if t.w != nil {
		t.w.preparePending()
	}
	if err != nil && !errors.Is(err, sql.ErrTxDone) {
		return err
	}
	return nil
}

// Guard runs fn in the transaction itself: a failed statement leaves an
// SQLite transaction usable.
func (t sqlTx) Guard(_ context.Context, fn func(sqlstore.Conn) error) error { return fn(t) }

// rows adapts database/sql's rows.
type rows struct{ *sql.Rows }

func (r rows) Columns() []string {
	cols, _ := r.Rows.Columns()
	return cols
}

func (r rows) Close() { r.Rows.Close() }
