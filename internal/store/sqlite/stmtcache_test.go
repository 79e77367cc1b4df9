package sqlite

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/folio-server/folio/internal/store"
)

// scalar runs query (one integer column, one row) through c.
func scalar(t *testing.T, c *stmtCache, query string) int64 {
	t.Helper()
	rs, err := c.query(context.Background(), query, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	var n int64
	if !rs.Next() {
		t.Fatalf("%s: no row (%v)", query, rs.Err())
	}
	if err := rs.Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestStatementCacheIsBounded: however many different statements run, the
// cache holds at most its bound; the statements it evicts are closed, and
// every query still answers right.
func TestStatementCacheIsBounded(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	c := newStmtCache(db.c.read, 4)
	t.Cleanup(c.close)
	var first *cachedStmt
	for i := range 20 {
		q := fmt.Sprintf("SELECT %d", i)
		if n := scalar(t, c, q); n != int64(i) {
			t.Fatalf("%s = %d", q, n)
		}
		if i == 0 {
			first = c.get(context.Background(), q)
		}
		if c.len() > 4 {
			t.Fatalf("after %d statements the cache holds %d, want at most 4", i+1, c.len())
		}
	}
	if !first.evicted.Load() {
		t.Fatal("the first statement is still cached after 19 others")
	}
	if _, err := first.st.Query(); err == nil {
		t.Fatal("an evicted statement was not closed")
	}
	if n := scalar(t, c, "SELECT 0"); n != 0 {
		t.Fatalf("SELECT 0 after its eviction = %d", n)
	}
	// A query whose statement is evicted between its lookup and its run
	// runs unprepared.
	rs, err := c.run(context.Background(), first, "SELECT 0", nil)
	if err != nil {
		t.Fatalf("run on an evicted statement: %v", err)
	}
	var n int64
	if !rs.Next() || rs.Scan(&n) != nil || n != 0 {
		t.Fatalf("run on an evicted statement gave %d", n)
	}
	rs.Close()
}

// TestStatementCacheKeepsStatementsInUse: a statement run between every
// new one survives the evictions that the new ones cause (least recently
// used goes first).
func TestStatementCacheKeepsStatementsInUse(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	c := newStmtCache(db.c.read, 3)
	t.Cleanup(c.close)
	const hot = "SELECT 1000"
	scalar(t, c, hot)
	want := c.get(context.Background(), hot)
	for i := range 30 {
		scalar(t, c, fmt.Sprintf("SELECT %d", i))
		scalar(t, c, hot)
	}
	if got := c.get(context.Background(), hot); got != want || got.evicted.Load() {
		t.Fatal("the statement used all along was evicted")
	}
}

// TestStatementCacheEvictsWhileQueriesRun: goroutines running more
// statement shapes than the cache holds, so that statements are evicted
// under queries that just looked them up, all get their answers.
func TestStatementCacheEvictsWhileQueriesRun(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	c := newStmtCache(db.c.read, 2)
	t.Cleanup(c.close)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				want := int64((g + i) % 7)
				rs, err := c.query(context.Background(), fmt.Sprintf("SELECT %d", want), nil)
				if err != nil {
					errs <- err
					return
				}
				var n int64
				if !rs.Next() || rs.Scan(&n) != nil || n != want {
					rs.Close()
					errs <- fmt.Errorf("SELECT %d gave %d", want, n)
					return
				}
				rs.Close()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if c.len() > 2 {
		t.Fatalf("cache holds %d statements, want at most 2", c.len())
	}
}

// TestStoreReadsThroughABoundedCache: the store's reads of many shapes go
// through the reader pool's bounded cache and answer right.
func TestStoreReadsThroughABoundedCache(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	db.c.stmts.close()
	db.c.stmts = newStmtCache(db.c.read, 3)
	p := &store.Post{Type: "post", Status: "publish", Title: "one two three four five six"}
	if err := db.InsertPost(ctx, p); err != nil {
		t.Fatal(err)
	}
	words := []string{"one", "two", "three", "four", "five", "six"}
	for n := 1; n <= len(words); n++ {
		// n search words: a statement of its own shape.
		got, err := db.CountPosts(ctx, store.PostQuery{Search: strings.Join(words[:n], " ")})
		if err != nil || got != 1 {
			t.Fatalf("%d words: %d posts (%v)", n, got, err)
		}
		if c := db.c.stmts.len(); c > 3 {
			t.Fatalf("cache holds %d statements, want at most 3", c)
		}
	}
}
