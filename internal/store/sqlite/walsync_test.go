package sqlite

import (
	"context"
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store/sqlstore"
)

// pragma reads an integer PRAGMA through q.
func pragma(t *testing.T, q interface {
	Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error)
}, name string) int64 {
	t.Helper()
	rs, err := q.Query(context.Background(), `PRAGMA `+name)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	var v int64
	if !rs.Next() {
		t.Fatalf("PRAGMA %s: no row", name)
	}
	if err := rs.Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// newGroupDB opens a database with the gc table and returns its writer's
// group.
func newGroupDB(t *testing.T) (*DB, *group) {
	t.Helper()
	db := newDB(t)
	groupTable(t, db)
	return db, db.c.group
}

// gcWrite writes v into gc in a write transaction of its own.
func gcWrite(t *testing.T, db *DB, v string) {
	t.Helper()
	ctx := context.Background()
	tx, err := db.c.Begin(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO gc (v) VALUES (?)`, v); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// writerPragma reads an integer PRAGMA on the writer connection outside
// any batch.
func writerPragma(t *testing.T, db *DB, name string) int64 {
	t.Helper()
	var v int64
	if err := db.c.write.QueryRow(`PRAGMA ` + name).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestGroupCommitAcknowledgesOnlyAfterTheWALSync: a batch's members return
// from Commit only once the WAL is synced after the batch committed; the
// next batch runs its statements meanwhile (at synchronous=NORMAL, without
// automatic checkpoints), and its own sync follows. Outside a batch the
// writer connection is back at synchronous=FULL.
func TestGroupCommitAcknowledgesOnlyAfterTheWALSync(t *testing.T) {
	t.Parallel()
	db, g := newGroupDB(t)
	ctx := context.Background()
	entered := make(chan struct{}, 4)
	release := make(chan struct{})
	g.syncWAL = func() error {
		entered <- struct{}{}
		<-release
		return g.walSync()
	}
	syncs := g.stats.Syncs.Load()
	commit := func(v string, check func(m *member)) chan error {
		t.Helper()
		tx, err := db.c.Begin(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO gc (v) VALUES (?)`, v); err != nil {
			t.Fatal(err)
		}
		if check != nil {
			check(tx.(*member))
		}
		done := make(chan error, 1)
		go func() { done <- tx.Commit(ctx) }()
		return done
	}
	first := commit("first", nil)
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the first batch was not synced")
	}
	// Committed, visible, not yet durable: its Commit has not returned.
	if got := committedValues(t, db); !got["first"] {
		t.Fatalf("committed %v, want first", got)
	}
	// The next batch runs while the first one's sync is under way.
	second := commit("second", func(m *member) {
		if v := pragma(t, m, "synchronous"); v != 1 {
			t.Errorf("synchronous in a batch = %d, want 1 (NORMAL)", v)
		}
		if v := pragma(t, m, "wal_autocheckpoint"); v != 0 {
			t.Errorf("wal_autocheckpoint in a batch = %d, want 0", v)
		}
	})
	time.Sleep(20 * time.Millisecond)
	for name, done := range map[string]chan error{"first": first, "second": second} {
		select {
		case err := <-done:
			t.Fatalf("the %s Commit returned (%v) before the WAL was synced", name, err)
		default:
		}
	}
	close(release)
	for _, done := range []chan error{first, second} {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if n := g.stats.Syncs.Load() - syncs; n != 2 {
		t.Errorf("%d syncs, want 2", n)
	}
	if v := writerPragma(t, db, "synchronous"); v != 2 {
		t.Errorf("synchronous outside a batch = %d, want 2 (FULL)", v)
	}
	if v := writerPragma(t, db, "wal_autocheckpoint"); v != 1000 {
		t.Errorf("wal_autocheckpoint outside a batch = %d, want 1000", v)
	}
}

// TestGroupCommitFailedSyncFailsEveryLaterWrite: when the WAL cannot be
// synced, the batch's members fail, and so does every later write: a sync
// that succeeds after a failed one says nothing of the pages the failed
// one could not write.
func TestGroupCommitFailedSyncFailsEveryLaterWrite(t *testing.T) {
	t.Parallel()
	db, g := newGroupDB(t)
	ctx := context.Background()
	g.syncWAL = func() error { return errors.New("disk gone") }
	tx, err := db.c.Begin(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO gc (v) VALUES ('lost')`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err == nil || !strings.Contains(err.Error(), "disk gone") {
		t.Fatalf("Commit = %v, want the sync's error", err)
	}
	g.syncWAL = g.walSync
	if _, err := db.c.Begin(ctx, true); err == nil || !strings.Contains(err.Error(), "disk gone") {
		t.Fatalf("Begin after a failed sync = %v, want the sync's error", err)
	}
}

// TestCheckpointerKeepsTheWALSmall: the writer's batches do not
// checkpoint (wal_autocheckpoint=0); the checkpointer copies the WAL into
// the database file on its own connection and has the writer finish what
// it could not copy in time, so the WAL restarts from its beginning
// instead of growing with every write.
func TestCheckpointerKeepsTheWALSmall(t *testing.T) {
	t.Parallel()
	db, g := newGroupDB(t)
	g.checkpoints.interval.Store(int64(time.Millisecond))
	// A checkpoint behind the writes asks the writer to finish it past
	// 64 frames, as past restartFrames on a real site.
	g.checkpoints.restartAt.Store(64)
	runs := g.checkpoints.runs.Load()
	value := strings.Repeat("x", 16<<10) // four pages a row
	for i := range 400 {                 // 1,600 pages: 6.4 MB of WAL unchecked
		gcWrite(t, db, strconv.Itoa(i)+value)
		if i%20 == 19 { // a checkpoint's time: until the checkpointer ran
			n := g.checkpoints.runs.Load()
			for deadline := time.Now().Add(2 * time.Second); g.checkpoints.runs.Load() == n && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
		}
	}
	if n := g.checkpoints.runs.Load() - runs; n == 0 {
		t.Fatal("the checkpointer never ran")
	}
	fi, err := os.Stat(db.c.path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 3<<20 {
		t.Errorf("WAL of %d bytes after 6.4 MB written, want it restarted (under 3 MB)", fi.Size())
	}
}

// TestCheckpointerAsksTheWriterToFinishALongWAL: past restartAt frames the
// checkpointer asks the writer to copy the rest of the WAL itself, which
// it does after its next batch, so that the batch after it can start the
// WAL again from its beginning.
func TestCheckpointerAsksTheWriterToFinishALongWAL(t *testing.T) {
	t.Parallel()
	db, g := newGroupDB(t)
	cp := g.checkpoints
	cp.interval.Store(int64(time.Millisecond))
	cp.restartAt.Store(1)
	write := func(v string) { gcWrite(t, db, v) }
	write("a")
	deadline := time.Now().Add(10 * time.Second)
	for !cp.restart.Load() {
		if time.Now().After(deadline) {
			t.Fatal("the checkpointer did not ask for a restart")
		}
		write(time.Now().String())
		time.Sleep(2 * time.Millisecond)
	}
	cp.restartAt.Store(math.MaxInt64) // asks no more
	time.Sleep(5 * time.Millisecond)
	finished := g.stats.Finished.Load()
	cp.restart.Store(true)
	write("b")
	if cp.restart.Load() {
		t.Error("the writer left the restart asked for")
	}
	if n := g.stats.Finished.Load() - finished; n != 1 {
		t.Errorf("the writer finished %d checkpoints after the batch, want 1", n)
	}
}
