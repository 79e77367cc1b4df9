// Package sqlstore is Folio's store logic on an SQL database, written once
// for every database it runs on: the statements for posts, terms,
// comments, users, media, sessions, application passwords, meta, options,
// the webhook outbox, exports, copies and the import map; the scanning of
// their rows; and the mapping of errors to the store's.
//
// A database package (store/sqlite, store/postgres) gives it a Dialect (the
// few expressions that differ, and the classes of errors) and its Conns
// (the pools and transactions statements run on, and how writes are
// serialised), and keeps for itself only what is its own: opening and
// tuning connections, migrations, and its writers' discipline.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/folio-server/folio/internal/store"
)

// Conn runs statements: a connection pool or a transaction.
type Conn interface {
	Exec(ctx context.Context, query string, args ...any) (sql.Result, error)
	Query(ctx context.Context, query string, args ...any) (Rows, error)
}

// Rows is the result of a query, read as database/sql's rows are.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	// Columns names the result's columns.
	Columns() []string
	Err() error
	Close()
}

// Tx is an open transaction.
type Tx interface {
	Conn
	Commit(ctx context.Context) error
	// Rollback ends the transaction; after Commit it does nothing and
	// returns nil.
	Rollback(ctx context.Context) error
	// Guard runs fn so that a statement of fn that fails leaves the
	// transaction usable: under a savepoint where a failed statement
	// aborts the whole transaction, directly where it does not.
	Guard(ctx context.Context, fn func(Conn) error) error
}

// Conns is how a database package runs the store's statements.
type Conns interface {
	// Reader is the Conn reads outside a transaction run on.
	Reader() Conn
	// Begin starts a write transaction. serial is set for Store.Tx, whose
	// function reads and then writes: where the Conns are no KeyLocker,
	// its transaction must run alone among the write transactions of
	// every process using the database; a KeyLocker's transactions run
	// side by side, and guard what they read and then write with
	// LockKeys (store.LockKeys).
	Begin(ctx context.Context, serial bool) (Tx, error)
	// Snapshot starts a read-only transaction whose reads all see the
	// database as it was at its first read, without blocking writers.
	Snapshot(ctx context.Context) (Tx, error)
	// Importer returns the store.Importer of Copier.Import, writing in tx;
	// count is called once for each statement it runs.
	Importer(tx Tx, count func()) store.Importer
	// Close closes the pools.
	Close() error
}

// DB is a store on an SQL database. It is safe for concurrent use.
type DB struct {
	ops
	d     Dialect
	c     Conns
	stmts atomic.Int64
	// searchFew and searchMany are the numbers of matches at which a
	// search page changes plans (adaptiveMatches, windowMatches);
	// windowGated is the size of a search window past which reading it
	// takes a turn with the search counts (windowGated).
	searchFew, searchMany, windowGated int
	// deepGated is the offset past which a page not found by its month
	// takes a turn with the search counts (deepPageTurn).
	deepGated int
	// relevanceRanked is how many matches a search by relevance ranks.
	relevanceRanked int
	// reserved holds the post ids ReservePostID handed out outside a
	// transaction that no InsertPost used yet.
	reserved sync.Map
	// substringWindow and substringShare choose the plans of the
	// substring searches of users, terms and comments (shortSearchRows,
	// seekShare; SetSubstringPlans).
	substringWindow, substringShare int
	// slugHints are where FreeSlug starts reading a base's suffixes.
	slugHints slugHints
	// searchCounts lets SearchCountSlots counts of searches run at once
	// (gate.go); Conns that count searches themselves (SearchTotals) are
	// handed it (SearchCountGater).
	searchCounts *Gate
	// termSlot is the dialect's TermCountSlot ("" where a term's count is
	// its row's alone); termCols and termColsT are the terms columns
	// read in scanTerm's order, unqualified and qualified by t, the count
	// as termCount gives it.
	termSlot            string
	termCols, termColsT string
	// lastVersion is the version Version last read, with the Conns'
	// ChangeMark taken before it (ChangeMarker).
	lastVersion atomic.Pointer[versionAt]
	// versionReads share the version reads of concurrent requests where
	// there is no ChangeMark (versionreads.go).
	versionReads versionReads
	// signIns are the sign-in reads (AuthGeneration) of the last
	// ChangeMark, by counter key.
	signIns signInReads
}

// A ChangeMarker is Conns that can tell, without a statement, that no
// transaction has committed since an earlier moment: two equal marks
// taken at two moments mean that nothing committed between them, in this
// process or any other. ok is false when it cannot tell.
type ChangeMarker interface {
	ChangeMark() (mark ChangeMark, ok bool)
}

// ChangeMark is a ChangeMarker's picture of the database's committed
// state (SQLite: its WAL-index header).
type ChangeMark [48]byte

type versionAt struct {
	mark ChangeMark
	v    int64
}

// SearchCountGater is Conns that count searches themselves
// (SearchTotals): New hands them the store's gate of search counts, for
// a count to wait for a slot before it takes a connection.
type SearchCountGater interface {
	SetSearchCountGate(g *Gate)
}

// SetSearchPlans sets the numbers of matches up to which a search page
// looks its matches up by id (few) and walks the order checking each post
// against them (many), beyond which it goes through windows of the order
// (listSearchWindowed). Tests lower them to run every plan on a small
// site; a server keeps the defaults.
func (db *DB) SetSearchPlans(few, many int) {
	db.searchFew, db.searchMany = few, many
}

// SetSearchWindowsGated sets the size of a search window past which
// reading it takes a turn with the search counts (the gate of
// SearchCountSlots). Tests lower it to gate the windows of a small site;
// a server keeps the default.
func (db *DB) SetSearchWindowsGated(posts int) { db.windowGated = posts }

// SetDeepPagesGated sets the offset past which a page of posts that its
// month does not find (deepPageTurn) takes a turn with the search counts.
// Tests lower it to gate the pages of a small site; a server keeps the
// default (deepGated).
func (db *DB) SetDeepPagesGated(offset int) { db.deepGated = offset }

var (
	_ store.Store          = (*DB)(nil)
	_ store.CommentPager   = (*DB)(nil)
	_ store.Exporter       = (*DB)(nil)
	_ store.Snapshotter    = (*DB)(nil)
	_ store.Copier         = (*DB)(nil)
	_ store.Store          = (*txStore)(nil)
	_ store.Exporter       = (*txStore)(nil)
	_ store.Committer      = (*DB)(nil)
	_ store.Committer      = (*txStore)(nil)
	_ store.PostIDReserver = (*txStore)(nil)
)

// New returns the store that runs its statements on c in dialect d.
func New(d Dialect, c Conns) *DB {
	db := &DB{d: d, c: c, searchFew: adaptiveMatches, searchMany: windowMatches, windowGated: windowGated, deepGated: deepGated, relevanceRanked: relevanceRanked,
		substringWindow: shortSearchRows, substringShare: seekShare}
	db.ops = ops{db: db}
	if ts, ok := d.(TermCountSlotter); ok {
		db.termSlot = ts.TermCountSlot()
	}
	db.termCols = `id, taxonomy, name, slug, description, parent, ` + db.termCount("terms")
	db.termColsT = `t.id, t.taxonomy, t.name, t.slug, t.description, t.parent, ` + db.termCount("t")
	db.searchCounts = NewGate(SearchCountSlots())
	if g, ok := c.(SearchCountGater); ok {
		g.SetSearchCountGate(db.searchCounts)
	}
	return db
}

// SetSearchCountSlots sets how many counts of searches run at once
// (SearchCountSlots by default).
func (db *DB) SetSearchCountSlots(n int) { db.searchCounts.SetLimit(n) }

// SearchCountPeak returns the most counts of searches that have run at
// once, for tests.
func (db *DB) SearchCountPeak() int { return db.searchCounts.Peak() }

// SearchCountStats returns the counts of searches running and waiting now,
// and how many have waited (the metrics).
func (db *DB) SearchCountStats() GateStats { return db.searchCounts.Stats() }

// Statements returns how many SQL statements (queries and executions, not
// BEGIN, COMMIT or locks) the store has run since New.
func (db *DB) Statements() int64 { return db.stmts.Load() }

// Close closes the database package's pools.
func (db *DB) Close() error { return db.c.Close() }

// Version returns the write counter; it is one point read, or none where
// the Conns' ChangeMark shows that nothing committed since the last read.
// The mark is taken before the read, so a read that sees a later commit
// is kept with an earlier mark, and the next mark differs: a version
// returned is never older than the last commit before Version was called.
// Without a mark, concurrent calls share reads that start after them
// (sharedVersion).
func (db *DB) Version(ctx context.Context) (int64, error) {
	cm, ok := db.c.(ChangeMarker)
	if !ok {
		return db.sharedVersion(ctx)
	}
	mark, ok := cm.ChangeMark()
	if !ok {
		return db.sharedVersion(ctx)
	}
	if last := db.lastVersion.Load(); last != nil && last.mark == mark {
		return last.v, nil
	}
	v, err := db.ops.version(ctx)
	if err != nil {
		return 0, err
	}
	db.lastVersion.Store(&versionAt{mark: mark, v: v})
	return v, nil
}

// Tx runs fn in one write transaction (Conns.Begin with serial set): one
// that runs alone among the write transactions of every process, or, where
// the Conns are a KeyLocker, one that locks the keys of what it reads and
// then writes (store.LockKeys) and runs beside the others. fn's store
// reads and writes through the transaction; a Tx inside fn reuses it. The
// transaction commits when fn returns nil and rolls back when fn returns an
// error (which Tx returns unchanged) or panics. When ctx carries an open
// write transaction of db (store.WithTx), fn runs in it instead: the
// transaction commits or rolls back as a whole, with its outermost Tx.
func (db *DB) Tx(ctx context.Context, fn func(store.Store) error) (err error) {
	if t := db.joined(ctx); t != nil {
		return fn(t)
	}
	tx, err := db.begin(ctx, true)
	if err != nil {
		return err
	}
	t := &txStore{ops{db: db, tx: &txState{tx: tx, write: true}}}
	committed := false
	defer func() {
		t.tx.done.Store(true)
		if t.tx.freesSlugs {
			db.slugHints.epoch.Add(1)
		}
		if !committed {
			if rerr := tx.Rollback(context.WithoutCancel(ctx)); rerr != nil && err != nil {
				err = errors.Join(err, db.fail("rollback", rerr))
			}
		}
	}()
	if err := fn(t); err != nil {
		return err
	}
	if err := db.commit(ctx, tx, t.tx.dirty, &t.tx.counts); err != nil {
		return err
	}
	committed = true
	t.tx.done.Store(true)
	for _, f := range t.tx.after {
		f()
	}
	return nil
}

// joined returns the open write transaction of db that ctx carries
// (store.WithTx), or nil.
func (db *DB) joined(ctx context.Context) *txStore {
	s, ok := store.ContextTx(ctx)
	if !ok {
		return nil
	}
	t, ok := s.(*txStore)
	if !ok || t.db != db || !t.tx.write || t.tx.done.Load() {
		return nil
	}
	return t
}

// ReadSnapshot runs fn with a store whose reads all see one snapshot of the
// database, taken before fn runs; writes through it fail, and it blocks no
// writer (Conns.Snapshot).
func (db *DB) ReadSnapshot(ctx context.Context, fn func(store.Store) error) error {
	tx, err := db.c.Snapshot(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }() // nothing to commit
	t := &txStore{ops{db: db, tx: &txState{tx: tx}}}
	// The snapshot starts at the first read, so take it now.
	if _, err := t.version(ctx); err != nil {
		return db.fail("begin snapshot", err)
	}
	return fn(t)
}

// txState is one open transaction; dirty records whether it wrote
// content, after holds what runs once it has committed. write is set for
// the transactions of Tx (not ReadSnapshot's), done once it has ended.
type txState struct {
	tx    Tx
	dirty bool
	after []func()
	write bool
	done  atomic.Bool
	// counts holds the term count changes applied before the commit.
	counts termCounts
	// reserved holds the post ids ReservePostID handed out in the
	// transaction that no InsertPost used yet.
	reserved []int64
	// nextID is a post id PrefetchPostID asked for, nextIDDone set once
	// it came back; ReservePostID hands it out.
	nextID     int64
	nextIDDone *Prefetched
	// freesSlugs is set by a write that can free a slug (freeingSlugs).
	freesSlugs bool
}

// txStore is the store bound to one transaction.
type txStore struct {
	ops
}

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
	// noContent lists posts without their content (cols), for a caller
	// that reads the rest only (listRelevance).
	noContent bool
}

// cols returns the posts columns a listing selects, scanPost's.
func (o ops) cols() string {
	if o.noContent {
		return postColsNoContent
	}
	return postCols
}

// AfterCommit runs fn once the transaction o is bound to has committed,
// or now when o is bound to none (store.Committer).
func (o ops) AfterCommit(fn func()) {
	if o.tx == nil {
		fn()
		return
	}
	o.tx.after = append(o.tx.after, fn)
}

// reader returns the querier reads go through.
func (o ops) reader() querier {
	if o.tx != nil {
		return querier{db: o.db, c: o.tx.tx}
	}
	return querier{db: o.db, c: o.db.c.Reader(), retry: true}
}

// writeTx runs fn in a write transaction: the open one when o is bound to a
// transaction or ctx carries one of o's database (store.WithTx), otherwise
// a new one that bumps the version when fn changed content and commits.
// When guard is set and o is in a transaction, fn runs under Tx.Guard, so
// that an expected failure (a unique violation) leaves the transaction
// usable.
func (o ops) writeTx(ctx context.Context, guard bool, fn func(q querier) (changed bool, err error)) error {
	if o.tx == nil {
		if t := o.db.joined(ctx); t != nil {
			o = t.ops // the request's open transaction (store.WithTx)
		}
	}
	if o.tx != nil {
		if !guard {
			changed, err := fn(querier{db: o.db, c: o.tx.tx, counts: &o.tx.counts})
			if changed {
				o.tx.dirty = true
			}
			return err
		}
		var changed bool
		err := o.tx.tx.Guard(ctx, func(c Conn) (err error) {
			changed, err = fn(querier{db: o.db, c: c, counts: &o.tx.counts})
			return err
		})
		if changed && err == nil {
			o.tx.dirty = true
		}
		return err
	}
	tx, err := o.db.begin(ctx, false)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }() // a no-op after Commit
	var counts termCounts
	changed, err := fn(querier{db: o.db, c: tx, counts: &counts})
	if err != nil {
		return err
	}
	return o.db.commit(ctx, tx, changed, &counts)
}

// Stmt is a statement and its arguments.
type Stmt struct {
	Query string
	Args  []any
	// Wrap, when set, makes the error of a held statement (Deferrer)
	// what its own caller would have returned, since it comes back with
	// a later statement's.
	Wrap func(error) error
}

// BatchCommitter is a Tx that can send statements with its COMMIT, in
// one round trip: before runs in the transaction just before it commits,
// after runs once it has committed, outside it (its errors are ignored,
// as bumpAfter's are). A failed statement of before fails the commit.
type BatchCommitter interface {
	CommitWith(ctx context.Context, before, after []Stmt) error
}

// Deferrer is a Tx that can hold a statement whose result nobody reads
// (a setting, a lock) and send it with the transaction's next statement,
// in that statement's round trip (PostgreSQL's pipelines); what is still
// held when the transaction commits goes with the commit.
type Deferrer interface {
	Defer(st Stmt) error
}

// Prefetcher is a Tx that can hold a query of one row as a Deferrer holds
// a statement, sent with the transaction's next statement, and scan its
// row when that statement's results come back: what the transaction will
// need later (a new post's id) costs no round trip of its own.
type Prefetcher interface {
	// Prefetch holds st and scans its row into dest once it has run.
	Prefetch(st Stmt, dest ...any) (*Prefetched, error)
	// Flush sends what is held now, in a round trip of its own.
	Flush(ctx context.Context) error
}

// Prefetched is the outcome of a query a Prefetcher holds: Done once its
// row was scanned. A transaction that failed, or ended, before sending it
// leaves it not done.
type Prefetched struct {
	Done bool
}

// execSoon runs st in q's transaction before its next statement: held for
// that statement's round trip where the Tx can (Deferrer), at once
// otherwise. Like a lock, it is not counted as a statement.
func execSoon(ctx context.Context, q querier, st Stmt) error {
	if d, ok := q.c.(Deferrer); ok {
		return d.Defer(st)
	}
	_, err := q.c.Exec(ctx, st.Query, st.Args...)
	return err
}

// commit ends a write transaction tx: it advances the version when the
// transaction changed content (dirty), applies the term count changes it
// collected (counts; last before the commit, so that the rows they
// change stay locked for the commit alone), commits, and advances the
// version again where the dialect asks for it (bumpAfter). Where tx is a BatchCommitter
// all of it is one round trip.
func (db *DB) commit(ctx context.Context, tx Tx, dirty bool, counts *termCounts) error {
	bc, ok := tx.(BatchCommitter)
	if !ok {
		if dirty {
			if err := db.bump(ctx, tx); err != nil {
				return err
			}
		}
		if err := db.flushTermCounts(ctx, querier{db: db, c: tx, counts: counts}); err != nil {
			return err
		}
		if err := tx.Commit(ctx); err != nil {
			return db.fail("commit", err)
		}
		if dirty {
			db.bumpAfter(ctx)
		}
		return nil
	}
	var before, after []Stmt
	bump, _, again := db.versionStatements()
	if dirty {
		before = append(before, Stmt{Query: bump})
		db.stmts.Add(1)
		if again {
			// Like COMMIT, not counted as a statement.
			after = append(after, Stmt{Query: bump})
		}
	}
	for _, st := range db.termCountStmts(counts) {
		db.stmts.Add(1)
		before = append(before, st)
	}
	if err := bc.CommitWith(ctx, before, after); err != nil {
		return db.fail("commit", err)
	}
	return nil
}

// versionStatements returns the statements that advance and read the
// write version, and whether the advance runs again after the commit
// (Versioner).
func (db *DB) versionStatements() (bump, read string, after bool) {
	if v, ok := db.d.(Versioner); ok {
		bump, read = v.VersionStatements()
		return bump, read, true
	}
	return `UPDATE store_version SET version = version + 1 WHERE id = 1`, `SELECT version FROM store_version WHERE id = 1`, false
}

// bump increases the version inside tx.
func (db *DB) bump(ctx context.Context, tx Tx) error {
	q := querier{db: db, c: tx}
	bump, _, _ := db.versionStatements()
	if _, err := q.exec(ctx, bump); err != nil {
		return db.fail("bump version", err)
	}
	return nil
}

// bumpAfter advances the version once more after a write committed, where
// the dialect asks for it (Versioner). Like COMMIT, it is not counted as
// a statement. The write stands whatever happens here: when this fails,
// only a reader that read between the bump inside the transaction and
// its commit may keep a stale entry, until the next write.
func (db *DB) bumpAfter(ctx context.Context) {
	bump, _, after := db.versionStatements()
	if after {
		_, _ = db.c.Reader().Exec(context.WithoutCancel(ctx), bump)
	}
}

func (o ops) version(ctx context.Context) (int64, error) {
	var v int64
	_, read, _ := o.db.versionStatements()
	if err := o.reader().queryRow(ctx, read).Scan(&v); err != nil {
		return 0, o.db.fail("read version", err)
	}
	return v, nil
}

// fail wraps err with what the store was doing, in the dialect's name.
func (db *DB) fail(what string, err error) error {
	return Fail(db.d, what, err)
}

// Fail wraps err with the dialect's name and what the store was doing; a
// lost connection also wraps store.ErrUnavailable (the API answers 503
// instead of 500), a busy database store.ErrBusy.
func Fail(d Dialect, what string, err error) error {
	switch {
	case d.ConnLost(err):
		return fmt.Errorf("%s: %s: %w: %w", d.Name(), what, store.ErrUnavailable, err)
	case d.Busy(err):
		return fmt.Errorf("%s: %s: %w: %w", d.Name(), what, store.ErrBusy, err)
	}
	return fmt.Errorf("%s: %s: %w", d.Name(), what, err)
}

// conflict is Conflict in db's dialect.
func (db *DB) conflict(err error, what string) error {
	return Conflict(db.d, err, what)
}

// Conflict turns a unique violation into store.ErrConflict naming the
// column ("store: conflict: users.login") and wraps other errors as Fail
// does.
func Conflict(d Dialect, err error, what string) error {
	col, ok := d.Unique(err)
	switch {
	case !ok:
		return Fail(d, what, err)
	case col == "":
		return fmt.Errorf("%s: %s: %w", d.Name(), what, store.ErrConflict)
	}
	return fmt.Errorf("%w: %s", store.ErrConflict, col)
}

// notFound is the error of a missing record.
func (db *DB) notFound(what string) error {
	return fmt.Errorf("%s: %s: %w", db.d.Name(), what, store.ErrNotFound)
}

// errorf formats an error in the dialect's name.
func (db *DB) errorf(format string, args ...any) error {
	return fmt.Errorf(db.d.Name()+": "+format, args...)
}
