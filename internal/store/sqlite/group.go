package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/folio-server/folio/internal/store/sqlstore"
)

// Group commit. With synchronous=FULL every COMMIT waits for an fsync, and
// one fsync per write request capped creates at a few hundred a second. The
// writer therefore batches write transactions: the first one begins an
// SQLite transaction (a batch), and each write transaction, its own and the
// ones that arrive while the batch is open, runs inside it under a
// SAVEPOINT of its own. A transaction that rolls back undoes only its
// savepoint; one that commits releases its savepoint and then waits until
// the batch commits: its Commit returns (and its store.AfterCommit work
// runs) only once the batch, and so its writes, are on disk. A batch that
// fails to commit fails the Commit of every member.
//
// Members run one at a time on the single writer connection (the turn).
// A member that commits while other transactions wait for the turn hands
// the turn over and leaves the batch open for them; the last one (nobody
// waiting, or the batch at groupMaxMembers or older than groupMaxAge)
// commits it. A member handing over keeps a timer: when the batch is still
// open after groupMaxAge (the next member runs long, or gave up waiting),
// it waits for the turn and commits the batch itself.
//
// A member's statements run without its context's cancellation: SQLite
// answers an interrupted write inside a transaction by rolling back the
// whole transaction, which would undo the batch's other members. A member
// whose context is cancelled fails at its next statement instead, and its
// caller rolls its savepoint back.

// groupMaxMembers bounds how many write transactions one batch holds.
const groupMaxMembers = 64

// groupMaxAge bounds how long a batch stays open for more members.
const groupMaxAge = 10 * time.Millisecond

// walCheckpointBytes is the size of the WAL file past which the writer,
// after a batch, checkpoints and truncates it (PRAGMA
// wal_checkpoint(TRUNCATE)): under readers that never pause, SQLite's
// automatic checkpoints cannot restart the WAL and it grows without bound.
const walCheckpointBytes = 64 << 20

// walCheckEvery is how often (in batches) the writer looks at the WAL's
// size.
const walCheckEvery = 64

// group is the single writer's batching of write transactions.
type group struct {
	db  *sql.DB
	w   *writeStmts
	wal string // the WAL file's path
	// maxMembers and maxAge bound a batch (groupMaxMembers, groupMaxAge).
	maxMembers int
	maxAge     time.Duration
	// walLimit and checkEvery are walCheckpointBytes and walCheckEvery.
	walLimit   int64
	checkEvery int

	// turn is held (a value sent) by the goroutine using the writer
	// connection; cur and sinceCheck are the turn holder's.
	turn       chan struct{}
	waiting    atomic.Int32
	cur        *batch
	sinceCheck int

	stats     GroupStats
	closeOnce sync.Once
	// searchQueue is set once the schema has posts_fts_queue (after
	// Migrate): each batch then applies it before committing.
	searchQueue atomic.Bool
	// terms is the writer's memory of search_terms (searchindex.go).
	terms searchTerms
	// totals keeps search_totals (searchtotals.go).
	totals *searchTotals
}

// GroupStats counts the writer's batches.
type GroupStats struct {
	// Batches is how many batches committed; Members how many write
	// transactions they held; Shared how many batches held more than one.
	Batches, Members, Shared atomic.Int64
	// Checkpoints counts the WAL truncations the writer completed;
	// CheckpointsBusy the ones readers kept from completing (the WAL was
	// not truncated).
	Checkpoints, CheckpointsBusy atomic.Int64
}

// batch is one SQLite transaction holding several write transactions.
type batch struct {
	tx      *sql.Tx
	start   time.Time
	members int // committed members
	seq     int // savepoints begun
	done    chan struct{}
	err     error // set before done is closed
}

func newGroup(db *sql.DB, w *writeStmts, path string) *group {
	return &group{db: db, w: w, wal: path + "-wal", maxMembers: groupMaxMembers, maxAge: groupMaxAge,
		walLimit: walCheckpointBytes, checkEvery: walCheckEvery, turn: make(chan struct{}, 1), totals: newSearchTotals()}
}

// acquire takes the turn, or fails when ctx ends first.
func (g *group) acquire(ctx context.Context) error {
	g.waiting.Add(1)
	defer g.waiting.Add(-1)
	select {
	case g.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *group) release() { <-g.turn }

// begin starts a write transaction in the open batch, or in a new one.
func (g *group) begin(ctx context.Context) (*member, error) {
	if err := g.acquire(ctx); err != nil {
		return nil, sqlstore.Fail(dialect{}, "begin", err)
	}
	alone := ctx.Value(aloneKey{}) != nil
	if b := g.cur; b != nil && (alone || b.members >= g.maxMembers || time.Since(b.start) >= g.maxAge) {
		g.commit()
	}
	if g.cur == nil {
		// The batch outlives the context of the member that began it.
		tx, err := g.db.BeginTx(context.Background(), nil)
		if err != nil {
			g.release()
			return nil, sqlstore.Fail(dialect{}, "begin", err)
		}
		g.cur = &batch{tx: tx, start: time.Now(), done: make(chan struct{})}
	}
	b := g.cur
	b.seq++
	m := &member{g: g, b: b, sp: "m" + strconv.Itoa(b.seq)}
	if alone {
		m.alone = true // the batch is the member's own: no savepoint
		return m, nil
	}
	if _, err := b.tx.Exec(`SAVEPOINT ` + m.sp); err != nil {
		err = sqlstore.Fail(dialect{}, "begin", err)
		g.abort(err)
		g.release()
		return nil, err
	}
	return m, nil
}

// handOver reports whether the turn holder should leave the batch open for
// a transaction waiting for the turn.
func (g *group) handOver() bool {
	b := g.cur
	return g.waiting.Load() > 0 && b.members < g.maxMembers && time.Since(b.start) < g.maxAge
}

// commit commits the open batch. The caller holds the turn.
func (g *group) commit() {
	b := g.cur
	g.cur = nil
	if b.members == 0 {
		_ = b.tx.Rollback() // nothing to keep
	} else if err := g.flushSearchQueue(b.tx); err != nil {
		_ = b.tx.Rollback()
		b.err = sqlstore.Fail(dialect{}, "commit", err)
	} else if err := b.tx.Commit(); err != nil {
		b.err = sqlstore.Fail(dialect{}, "commit", err)
	} else {
		g.terms.committed()
		g.totals.committed()
		g.stats.Batches.Add(1)
		g.stats.Members.Add(int64(b.members))
		if b.members > 1 {
			g.stats.Shared.Add(1)
		}
	}
	g.terms.rolledBack() // what did not commit (nothing when it did)
	g.totals.rolledBack()
	close(b.done)
	g.afterBatch()
}

// errRolledBack is the error of a batch its only member rolled back.
var errRolledBack = errors.New("sqlite: transaction rolled back")

// abort rolls the open batch back, failing every member with err. The
// caller holds the turn.
func (g *group) abort(err error) {
	b := g.cur
	g.cur = nil
	_ = b.tx.Rollback()
	b.err = err
	g.terms.rolledBack() // what did not commit (nothing when it did)
	g.totals.rolledBack()
	close(b.done)
	g.afterBatch()
}

// afterBatch runs with the writer connection free and the turn held: it
// prepares the statements first seen in the batch and keeps the WAL small.
func (g *group) afterBatch() {
	g.w.preparePending()
	g.sinceCheck++
	if g.sinceCheck < g.checkEvery {
		return
	}
	g.sinceCheck = 0
	if fi, err := os.Stat(g.wal); err != nil || fi.Size() < g.walLimit {
		return
	}
	// Waits (busy_timeout) for the readers still on old WAL frames, then
	// truncates the WAL; a failure leaves it to the next check.
	var busy, walFrames, moved int64
	if err := g.db.QueryRow(`PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &walFrames, &moved); err != nil {
		return
	}
	if busy != 0 {
		g.stats.CheckpointsBusy.Add(1)
	} else {
		g.stats.Checkpoints.Add(1)
	}
}

// wait waits for b to commit, committing it itself when nobody else has
// after groupMaxAge.
func (g *group) wait(b *batch) error {
	t := time.NewTimer(g.maxAge)
	defer t.Stop()
	select {
	case <-b.done:
		return b.err
	case <-t.C:
	}
	select {
	case <-b.done:
	case g.turn <- struct{}{}:
		if g.cur == b {
			g.commit()
		}
		g.release()
	}
	<-b.done
	return b.err
}

// aloneKey marks a context whose write transactions each have a batch of
// their own, without a savepoint (withAlone).
type aloneKey struct{}

// withAlone returns ctx with its write transactions run alone: each one
// commits (or rolls back) its batch itself. A savepoint keeps the first
// prior copy of every page its transaction changes in the statement
// journal, and the journal of a large transaction, kept in memory, is
// walked from its start at the end of each of its statements: bulk loads
// write large transactions, where one batch less is nothing.
func withAlone(ctx context.Context) context.Context {
	return context.WithValue(ctx, aloneKey{}, true)
}

// member is one write transaction inside a batch.
type member struct {
	g     *group
	b     *batch
	sp    string
	ended bool
	// alone is set when the batch is the member's alone (withAlone).
	alone bool
}

func (m *member) conn() sqlTx { return sqlTx{tx: m.b.tx, w: m.g.w} }

func (m *member) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return m.conn().Exec(context.WithoutCancel(ctx), query, args...)
}

func (m *member) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return m.conn().Query(context.WithoutCancel(ctx), query, args...)
}

// Guard runs fn in the transaction itself: a failed statement leaves an
// SQLite transaction usable.
func (m *member) Guard(_ context.Context, fn func(sqlstore.Conn) error) error { return fn(m) }

// Commit releases the member's savepoint and returns once its batch has
// committed, with the batch's error.
func (m *member) Commit(context.Context) error {
	if m.ended {
		return nil
	}
	m.ended = true
	g, b := m.g, m.b
	if m.alone {
		b.members++
		g.commit()
		g.release()
		return b.err
	}
	if _, err := b.tx.Exec(`RELEASE ` + m.sp); err != nil {
		g.abort(sqlstore.Fail(dialect{}, "commit", err))
		g.release()
		return b.err
	}
	b.members++
	if g.handOver() {
		g.release()
		return g.wait(b)
	}
	g.commit()
	g.release()
	return b.err
}

// Rollback undoes the member's savepoint; the batch's other members are
// untouched. It does nothing after Commit.
func (m *member) Rollback(context.Context) error {
	if m.ended {
		return nil
	}
	m.ended = true
	g, b := m.g, m.b
	if m.alone {
		g.abort(errRolledBack)
		g.release()
		return nil
	}
	_, err := b.tx.Exec(`ROLLBACK TO ` + m.sp)
	if err == nil {
		_, err = b.tx.Exec(`RELEASE ` + m.sp)
	}
	if err != nil {
		// The transaction is not what the savepoint left (SQLite rolled it
		// back on an I/O error): the whole batch is lost.
		err = sqlstore.Fail(dialect{}, "rollback", err)
		g.abort(err)
		g.release()
		return err
	}
	if !g.handOver() {
		g.commit()
	}
	g.release()
	return nil
}

// close commits the batch left open, if any, and keeps the turn: later
// write transactions wait for it until their context ends.
func (g *group) close() {
	g.closeOnce.Do(func() {
		g.turn <- struct{}{}
		if g.cur != nil {
			g.commit()
		}
	})
}

// GroupStats returns the writer's batch counters.
func (db *DB) GroupStats() *GroupStats { return &db.c.group.stats }
