package sqlite

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/sqlstore"
)

// groupTable makes a table for the group commit tests.
func groupTable(t *testing.T, db *DB) {
	t.Helper()
	if _, err := db.c.write.ExecContext(context.Background(), `CREATE TABLE IF NOT EXISTS gc (v TEXT PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
}

// committedValues returns the values of gc a reader sees.
func committedValues(t *testing.T, db *DB) map[string]bool {
	t.Helper()
	rs, err := db.c.read.Query(`SELECT v FROM gc`)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	out := map[string]bool{}
	for rs.Next() {
		var v string
		if err := rs.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out[v] = true
	}
	return out
}

// waitWaiting waits until n transactions wait for the writer's turn.
func waitWaiting(t *testing.T, g *group, n int32) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for g.waiting.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d transactions wait for the writer, want %d", g.waiting.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestGroupCommitFailingMemberRollsBackAlone: three write transactions
// share one batch; the middle one inserts, then fails and rolls back. The
// other two are committed, its row is absent, and the first one's Commit
// returned only once the batch (with the third) committed.
func TestGroupCommitFailingMemberRollsBackAlone(t *testing.T) {
	t.Parallel()
	db, g := newGroupDB(t)
	g.maxAge = time.Minute // the batch closes when nobody waits, not by age
	ctx := context.Background()
	before := g.stats.Shared.Load()

	first, err := db.c.Begin(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Exec(ctx, `INSERT INTO gc (v) VALUES ('first')`); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	run := func(v string, fail bool) {
		defer wg.Done()
		tx, err := db.c.Begin(ctx, true)
		if err != nil {
			errs <- err
			return
		}
		if _, err := tx.Exec(ctx, `INSERT INTO gc (v) VALUES (?)`, v); err != nil {
			errs <- err
			return
		}
		if fail {
			// A duplicate key fails; the request gives up.
			if _, err := tx.Exec(ctx, `INSERT INTO gc (v) VALUES ('first')`); err == nil {
				errs <- errors.New("duplicate inserted")
			}
			errs <- tx.Rollback(ctx)
			return
		}
		errs <- tx.Commit(ctx)
	}
	wg.Add(1)
	go run("failing", true)
	waitWaiting(t, g, 1)
	wg.Add(1)
	go run("third", false)
	waitWaiting(t, g, 2)
	firstDone := make(chan error, 1)
	go func() { firstDone <- first.Commit(ctx) }()
	wg.Wait()
	if err := <-firstDone; err != nil {
		t.Fatal(err)
	}
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got := committedValues(t, db)
	if !got["first"] || !got["third"] || got["failing"] || len(got) != 2 {
		t.Fatalf("committed %v, want first and third only", got)
	}
	if n := g.stats.Shared.Load() - before; n != 1 {
		t.Fatalf("%d batches held more than one transaction, want 1", n)
	}
}

// TestGroupCommitBatchesConcurrentWrites: writes from many goroutines share
// batches, every acknowledged write is committed, and a write whose
// context is cancelled fails alone.
func TestGroupCommitBatchesConcurrentWrites(t *testing.T) {
	t.Parallel()
	db, g := newGroupDB(t)
	ctx := context.Background()
	const writers, each = 8, 40
	var wg sync.WaitGroup
	var mu sync.Mutex
	acked := map[string]bool{}
	var failures []error
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				v := fmt.Sprintf("w%d-%d", w, i)
				cctx, cancel := context.WithCancel(ctx)
				tx, err := db.c.Begin(cctx, true)
				if err != nil {
					cancel()
					mu.Lock()
					failures = append(failures, err)
					mu.Unlock()
					continue
				}
				_, err = tx.Exec(cctx, `INSERT INTO gc (v) VALUES (?)`, v)
				if err == nil && i%10 == 9 {
					// This request is cancelled half-way: its next
					// statement fails and it rolls back alone.
					cancel()
					_, err = tx.Exec(cctx, `INSERT INTO gc (v) VALUES (?)`, v+"-second")
					if err == nil {
						err = errors.New("a statement ran after its context was cancelled")
					} else if errors.Is(err, context.Canceled) {
						if err := tx.Rollback(ctx); err != nil {
							mu.Lock()
							failures = append(failures, err)
							mu.Unlock()
						}
						continue
					}
				}
				if err == nil {
					err = tx.Commit(ctx)
				} else {
					_ = tx.Rollback(ctx)
				}
				cancel()
				mu.Lock()
				if err != nil {
					failures = append(failures, err)
				} else {
					acked[v] = true
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatal(failures)
	}
	got := committedValues(t, db)
	for v := range acked {
		if !got[v] {
			t.Errorf("acknowledged %s is not committed", v)
		}
	}
	if len(got) != len(acked) || len(acked) != writers*each*9/10 {
		t.Errorf("%d rows committed, %d acknowledged, want %d", len(got), len(acked), writers*each*9/10)
	}
	if g.stats.Shared.Load() == 0 {
		t.Errorf("no batch held more than one transaction (%d batches, %d members)", g.stats.Batches.Load(), g.stats.Members.Load())
	}
	t.Logf("%d batches, %d members, %d shared", g.stats.Batches.Load(), g.stats.Members.Load(), g.stats.Shared.Load())
}

// TestGroupCommitSurvivesKill runs writers in a child process, reads which
// writes it acknowledged, kills it with SIGKILL and checks, after opening
// the database again, that every acknowledged write is there.
func TestGroupCommitSurvivesKill(t *testing.T) {
	if os.Getenv("FOLIO_GROUP_CHILD") != "" {
		groupChild(os.Getenv("FOLIO_GROUP_CHILD"))
		return
	}
	path, db := childProcessFile(t)
	groupTable(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGroupCommitSurvivesKill$", "-test.v=false")
	cmd.Env = append(os.Environ(), "FOLIO_GROUP_CHILD="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := map[string]bool{}
	sc := bufio.NewScanner(out)
	for sc.Scan() && len(acked) < 600 {
		if v, ok := strings.CutPrefix(sc.Text(), "ack "); ok {
			acked[v] = true
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if len(acked) < 600 {
		t.Fatalf("the child acknowledged only %d writes", len(acked))
	}
	db = openAt(t, path)
	got := committedValues(t, db)
	lost := 0
	for v := range acked {
		if !got[v] {
			lost++
		}
	}
	if lost > 0 {
		t.Fatalf("%d of %d acknowledged writes lost", lost, len(acked))
	}
	t.Logf("%d acknowledged, %d committed", len(acked), len(got))
}

// groupChild writes from 8 goroutines until killed, printing each write
// once its Commit returned.
func groupChild(path string) {
	ctx := context.Background()
	db, err := Open(ctx, path, Options{})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	var mu sync.Mutex
	w := bufio.NewWriter(os.Stdout)
	for g := range 8 {
		go func() {
			for i := 0; ; i++ {
				v := strconv.Itoa(g) + "-" + strconv.Itoa(i)
				err := write(ctx, db.c, v)
				mu.Lock()
				if err == nil {
					fmt.Fprintln(w, "ack", v)
				}
				w.Flush()
				mu.Unlock()
			}
		}()
	}
	select {}
}

func write(ctx context.Context, c sqlstore.Conns, v string) error {
	tx, err := c.Begin(ctx, true)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO gc (v) VALUES (?)`, v); err != nil {
		_ = tx.Rollback(ctx)
		return err
	}
	// The request works a little longer inside its transaction, so that
	// its batch is still open well after earlier members committed.
	time.Sleep(time.Millisecond)
	return tx.Commit(ctx)
}

// TestGroupCommitCountsTruncationsAndCheckpointsReadersBlocked: past the
// WAL limit the writer truncates the WAL after a batch; a reader holding a
// snapshot keeps the truncation from completing, which counts as busy and
// leaves the WAL, until the reader ends and the next batch truncates it.
func TestGroupCommitCountsTruncationsAndCheckpointsReadersBlocked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "folio.db")
	// A short busy timeout: the blocked truncation gives up quickly.
	db, err := Open(ctx, path, Options{BusyTimeoutMS: 100})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	groupTable(t, db)
	g := db.c.group
	g.walLimit, g.checkEvery = 1, 1 // look after every batch, truncate any WAL
	write := func(v string) { gcWrite(t, db, v) }
	walSize := func() int64 {
		t.Helper()
		fi, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	stats := db.GroupStats()
	check := func(step string, done, busy int64, walEmpty bool) {
		t.Helper()
		if d, b := stats.Checkpoints.Load(), stats.CheckpointsBusy.Load(); d != done || b != busy {
			t.Errorf("%s: checkpoints done %d busy %d, want %d and %d", step, d, b, done, busy)
		}
		if n := walSize(); (n == 0) != walEmpty {
			t.Errorf("%s: WAL of %d bytes, want empty %v", step, n, walEmpty)
		}
	}

	write("a")
	check("no reader", 1, 0, true)

	snap, err := db.c.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := snap.Query(ctx, `SELECT count(*) FROM gc`)
	if err != nil {
		t.Fatal(err)
	}
	rs.Close() // the snapshot stays open: its read transaction holds it
	write("b")
	check("a reader on a snapshot", 1, 1, false)

	if err := snap.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	write("c")
	check("the reader gone", 2, 1, true)
	if got := committedValues(t, db); len(got) != 3 {
		t.Errorf("rows %v, want a, b and c", got)
	}
}

// TestGroupCommitIndexesSearchesOncePerBatch: posts written by the
// transactions of one batch reach the full-text index when the batch
// commits, in one index segment (not one per transaction), and a
// transaction that rolls back leaves nothing in it.
func TestGroupCommitIndexesSearchesOncePerBatch(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	g := db.c.group
	g.maxAge = time.Minute // the batch closes when nobody waits, not by age
	ctx := context.Background()
	insert := func(tx interface {
		Exec(context.Context, string, ...any) (sql.Result, error)
	}, title string) error {
		_, err := tx.Exec(ctx, `INSERT INTO posts (type, status, title, slug, content) VALUES ('post', 'publish', ?, ?, 'queued words')`,
			title, strings.ToLower(title))
		return err
	}
	first, err := db.c.Begin(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := insert(first, "Alpha"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	run := func(title string, fail bool) {
		defer wg.Done()
		tx, err := db.c.Begin(ctx, true)
		if err != nil {
			errs <- err
			return
		}
		if err := insert(tx, title); err != nil {
			errs <- err
			return
		}
		if fail {
			errs <- tx.Rollback(ctx)
			return
		}
		errs <- tx.Commit(ctx)
	}
	wg.Add(1)
	go run("Beta", true)
	waitWaiting(t, g, 1)
	wg.Add(1)
	go run("Gamma", false)
	waitWaiting(t, g, 2)
	if err := first.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.ListPosts(ctx, store.PostQuery{Search: "queued"})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, p := range got {
		titles = append(titles, p.Title)
	}
	slices.Sort(titles)
	if !slices.Equal(titles, []string{"Alpha", "Gamma"}) {
		t.Fatalf("search found %v, want Alpha and Gamma", titles)
	}
	var queued, segments int
	if err := db.c.read.QueryRow(`SELECT (SELECT COUNT(*) FROM posts_fts_queue), (SELECT COUNT(DISTINCT segid) FROM posts_fts_idx)`).Scan(&queued, &segments); err != nil {
		t.Fatal(err)
	}
	if queued != 0 || segments != 1 {
		t.Fatalf("after the batch: %d queued, %d index segments; want 0 and 1", queued, segments)
	}

	// A post deleted in the batch that inserted it never reaches the
	// index; one deleted later leaves it.
	err = db.Tx(ctx, func(tx store.Store) error {
		p := &store.Post{Type: "post", Status: "publish", Title: "Delta", Content: "queued", Slug: "delta"}
		if err := tx.InsertPost(ctx, p); err != nil {
			return err
		}
		return tx.DeletePost(ctx, p.ID)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.DeletePost(ctx, got[0].ID); err != nil {
		t.Fatal(err)
	}
	if n, err := db.CountPosts(ctx, store.PostQuery{Search: "queued"}); err != nil || n != 1 {
		t.Fatalf("after the deletes, search counts %d (%v), want 1", n, err)
	}
}
