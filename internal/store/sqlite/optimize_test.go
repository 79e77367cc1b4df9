package sqlite

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
)

// postsStat returns the row count sqlite_stat1 records for the index the
// post lists use ("" when it records none).
func postsStat(t *testing.T, db *DB) string {
	t.Helper()
	var stat string
	err := db.c.read.QueryRow(`SELECT stat FROM sqlite_stat1 WHERE tbl = 'posts' AND idx = 'posts_type_status_date'`).Scan(&stat)
	if err != nil {
		return ""
	}
	n, _, _ := strings.Cut(stat, " ")
	return n
}

// TestOptimizeRefreshesStaleStatistics: the statistics gathered when the
// tables were created (empty) are refreshed by Optimize once the site has
// grown, which the serving node's maintenance loop calls (store.Optimizer).
func TestOptimizeRefreshesStaleStatistics(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	var _ store.Optimizer = db
	ctx := context.Background()
	before := postsStat(t, db)
	if n, _ := strconv.Atoi(before); n >= 300 {
		t.Fatalf("statistics of the empty table already count %s rows", before)
	}
	when := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 300; i++ {
		p := &store.Post{Type: "post", Status: "publish", Slug: "p-" + strconv.Itoa(i), Date: when, DateGMT: when}
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	after := postsStat(t, db)
	if n, _ := strconv.Atoi(after); n < 300 {
		t.Fatalf("posts statistics = %q after Optimize (was %q), want a row count of at least 300", after, before)
	}
	// The limit set for the analysis is not left on the pooled connection.
	var limit int
	if err := db.c.write.QueryRow(`PRAGMA analysis_limit`).Scan(&limit); err != nil || limit != 0 {
		t.Errorf("analysis_limit after Optimize = %d (%v), want 0", limit, err)
	}
}
