package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
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
// A batch's COMMIT does not wait for the disk while it holds the turn. The
// writer connection runs a batch at synchronous=NORMAL, where a COMMIT
// writes the batch to the WAL file without syncing it, and the WAL is then
// synced (fdatasync) outside the turn: the next batch runs its statements
// while the last one's sync is under way, and one sync covers every batch
// committed before it began. Every member's Commit returns only once a
// sync that began after its batch committed has completed, so an
// acknowledged write is on disk exactly as with synchronous=FULL (which
// is that same sync, inside COMMIT). Other connections may read a batch
// between its COMMIT and its sync; a power loss in that window takes
// the batch with it, and no request that wrote it has been answered. A
// failed sync fails its batches and every later write (syncErr): after a
// failed fsync the kernel may have dropped the pages it could not write,
// and a later sync that succeeds says nothing about them. Outside a batch
// the writer connection is at synchronous=FULL, for everything that uses
// it directly (migrations, statistics, the search index's compaction).
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
	// texts are posts' texts split ahead of the writer (searchtexts.go).
	texts searchTexts
	// totals keeps search_totals (searchtotals.go).
	totals *searchTotals

	// checkpoints copies the WAL into the database file outside the
	// turn (checkpoint.go).
	checkpoints *checkpointer

	// syncWAL makes everything written to the WAL file so far durable
	// (walSync; tests replace it). syncMu is held while it runs.
	syncWAL func() error
	syncMu  sync.Mutex
	// unsynced are the batches committed since the last sync began;
	// syncErr is the first failed sync's error. Both under queueMu.
	queueMu  sync.Mutex
	unsynced []*batch
	syncErr  error
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
	// Passive counts the checkpointer's checkpoints (checkpoint.go) and
	// the ones the writer finished for it; PassiveBusy the ones that
	// found the file busy; Finished the writer's.
	Passive, PassiveBusy, Finished atomic.Int64
	// Syncs counts the syncs of the WAL that made committed batches
	// durable (one covers every batch committed before it began).
	Syncs atomic.Int64
}

// batch is one SQLite transaction holding several write transactions.
type batch struct {
	conn    *sql.Conn // the writer connection, held from BEGIN to COMMIT
	tx      *sql.Tx
	start   time.Time
	members int // committed members
	seq     int // savepoints begun
	done    chan struct{}
	err     error // set before done is closed
}

// durable returns b's error once b is durable or failed.
func (b *batch) durable() error {
	<-b.done
	return b.err
}

func newGroup(db *sql.DB, w *writeStmts, path string) *group {
	g := &group{db: db, w: w, wal: path + "-wal", maxMembers: groupMaxMembers, maxAge: groupMaxAge,
		walLimit: walCheckpointBytes, checkEvery: walCheckEvery, turn: make(chan struct{}, 1), totals: newSearchTotals()}
	g.syncWAL = g.walSync
	return g
}

// walSync syncs the WAL file. A WAL that is gone was removed by the last
// connection to close, after it checkpointed the WAL into the database
// file and synced that.
func (g *group) walSync() error {
	f, err := os.Open(g.wal)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	return datasync(f)
}

// open begins a batch on the writer connection, at synchronous=NORMAL and
// without SQLite's automatic checkpoints (the checkpointer's instead).
func (g *group) open() (*batch, error) {
	g.queueMu.Lock()
	err := g.syncErr
	g.queueMu.Unlock()
	if err != nil {
		return nil, err
	}
	// The batch outlives the context of the member that began it.
	ctx := context.Background()
	conn, err := g.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=0`); err != nil {
		g.closeConn(conn)
		return nil, err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		g.closeConn(conn)
		return nil, err
	}
	return &batch{conn: conn, tx: tx, start: time.Now(), done: make(chan struct{})}, nil
}

// closeConn gives the writer connection back to its pool at
// synchronous=FULL and with SQLite's automatic checkpoints; a connection
// that cannot be set back is discarded (the pool opens a new one, at
// FULL).
func (g *group) closeConn(conn *sql.Conn) {
	if _, err := conn.ExecContext(context.Background(), `PRAGMA synchronous=FULL; PRAGMA wal_autocheckpoint=1000`); err != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	_ = conn.Close()
}

// sync makes b durable: it syncs the WAL for every batch committed so far,
// unless a sync that began after b committed already has. Batches wait
// for it in b.done.
func (g *group) sync(b *batch) {
	g.syncMu.Lock()
	defer g.syncMu.Unlock()
	select {
	case <-b.done:
		return // an earlier sync covered b
	default:
	}
	g.queueMu.Lock()
	batches, err := g.unsynced, g.syncErr
	g.unsynced = nil
	g.queueMu.Unlock()
	if err == nil {
		if err = g.syncWAL(); err != nil {
			err = fmt.Errorf("sync the WAL: %w", err)
			g.queueMu.Lock()
			g.syncErr = err
			g.queueMu.Unlock()
		} else {
			g.stats.Syncs.Add(1)
		}
	}
	for _, q := range batches {
		if err != nil {
			q.err = sqlstore.Fail(dialect{}, "commit", err)
		}
		close(q.done)
	}
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
		b, err := g.open()
		if err != nil {
			g.release()
			return nil, sqlstore.Fail(dialect{}, "begin", err)
		}
		g.cur = b
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

// commit commits the open batch and has it synced (b.done is closed once
// it is durable). The caller holds the turn.
func (g *group) commit() {
	b := g.cur
	g.cur = nil
	committed := false
	if b.members == 0 {
		_ = b.tx.Rollback() // nothing to keep
	} else if err := g.flushSearchQueue(b.tx); err != nil {
		_ = b.tx.Rollback()
		b.err = sqlstore.Fail(dialect{}, "commit", err)
	} else if err := b.tx.Commit(); err != nil {
		b.err = sqlstore.Fail(dialect{}, "commit", err)
	} else {
		committed = true
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
	g.closeConn(b.conn)
	if committed {
		g.queueMu.Lock()
		g.unsynced = append(g.unsynced, b)
		g.queueMu.Unlock()
		go g.sync(b) // the next batch runs meanwhile
		if g.checkpoints != nil {
			g.checkpoints.wake()
		}
	} else {
		close(b.done)
	}
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
	g.closeConn(b.conn)
	close(b.done)
	g.afterBatch()
}

// afterBatch runs with the writer connection free and the turn held: it
// prepares the statements first seen in the batch and keeps the WAL small.
func (g *group) afterBatch() {
	g.w.preparePending()
	if g.checkpoints != nil && g.checkpoints.restart.Swap(false) {
		// What the checkpointer has not copied yet, so that the next
		// batch can start the WAL again from its beginning.
		var busy, frames, copied int64
		err := g.checkpoint(`PASSIVE`, &busy, &frames, &copied)
		if err == nil && busy == 0 {
			g.stats.Passive.Add(1)
		} else {
			g.stats.PassiveBusy.Add(1)
		}
		g.stats.Finished.Add(1)
	}
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
	if err := g.checkpoint(`TRUNCATE`, &busy, &walFrames, &moved); err != nil {
		return
	}
	if busy != 0 {
		g.stats.CheckpointsBusy.Add(1)
	} else {
		g.stats.Checkpoints.Add(1)
	}
}

// checkpoint runs a checkpoint of mode on the writer connection, once no
// checkpoint of the checkpointer's runs.
func (g *group) checkpoint(mode string, busy, frames, copied *int64) error {
	if g.checkpoints != nil {
		g.checkpoints.mu.Lock()
		defer g.checkpoints.mu.Unlock()
	}
	return g.db.QueryRow(`PRAGMA wal_checkpoint(`+mode+`)`).Scan(busy, frames, copied)
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
	return b.durable()
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
		return b.durable()
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
	return b.durable()
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
		if b := g.cur; b != nil {
			g.commit()
			_ = b.durable()
		}
	})
}

// GroupStats returns the writer's batch counters.
func (db *DB) GroupStats() *GroupStats { return &db.c.group.stats }
