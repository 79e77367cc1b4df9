package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
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

// TestAnalysisKeepsNoSamples: the full analyses of a migration and of a
// closing store keep no index samples (sqlite_stat4), with which SQLite
// prepares a statement again for every new bound value, and keep the
// row counts (sqlite_stat1).
func TestAnalysisKeepsNoSamples(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "folio.db")
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	when := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 300; i++ {
		p := &store.Post{Type: "post", Status: []string{"publish", "draft"}[i%2], Slug: "p-" + strconv.Itoa(i), Date: when, DateGMT: when}
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 50; i++ {
		if err := db.InsertTerm(ctx, &store.Term{Taxonomy: []string{"category", "post_tag"}[i%2], Name: "T" + strconv.Itoa(i), Slug: "t-" + strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil { // analyzes the whole tables
		t.Fatal(err)
	}
	db = openAt(t, path)
	var samples int
	if err := db.c.read.QueryRow(`SELECT count(*) FROM sqlite_stat4`).Scan(&samples); err != nil || samples != 0 {
		t.Errorf("sqlite_stat4 holds %d rows (%v), want 0", samples, err)
	}
	if n, _ := strconv.Atoi(postsStat(t, db)); n < 300 {
		t.Errorf("posts statistics count %d rows, want at least 300", n)
	}
	// FTS5's own tables keep no statistics (analyzed small, they made the
	// planner scan the whole index to delete a piece of it).
	var fts int
	if err := db.c.read.QueryRow(`SELECT count(*) FROM sqlite_stat1 WHERE tbl LIKE '%fts%' AND tbl NOT LIKE '%queue'`).Scan(&fts); err != nil || fts != 0 {
		t.Errorf("sqlite_stat1 holds %d rows of FTS5 tables (%v), want 0", fts, err)
	}
	for _, q := range []string{
		`DELETE FROM posts_fts_data WHERE id >= ? AND id <= ?`,
		`DELETE FROM comments_fts_data WHERE id >= ? AND id <= ?`,
	} {
		plan := queryPlan(t, db, q)
		if !strings.Contains(plan, "SEARCH") || !strings.Contains(plan, "INTEGER PRIMARY KEY") {
			t.Errorf("plan of %s = %q, want a search of a range of ids", q, plan)
		}
	}
}

// queryPlan returns the details of EXPLAIN QUERY PLAN of query, one line
// each.
func queryPlan(t *testing.T, db *DB, query string) string {
	t.Helper()
	return planOn(t, db.c.read, query)
}

// planOn returns the plan of query (with the arguments 1 and 2) on q, a
// pool or one connection, one line each.
func planOn(t *testing.T, q interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}, query string) string {
	t.Helper()
	rows, err := q.QueryContext(context.Background(), `EXPLAIN QUERY PLAN `+query, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, detail)
	}
	return strings.Join(lines, "\n")
}

// postsSegments returns how many segments posts_fts's index is in.
func postsSegments(t *testing.T, db *DB) int {
	t.Helper()
	n, err := db.searchSegments(context.Background(), "posts_fts")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestCompactSearchIndexMergesSegments: posts written one transaction at a
// time leave the full-text index in several segments; CompactSearchIndex
// leaves one, and every post is still found.
func TestCompactSearchIndexMergesSegments(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	segments := func() int { return postsSegments(t, db) }
	when := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 40; i++ {
		p := &store.Post{Type: "post", Status: "publish", Slug: "p-" + strconv.Itoa(i), Title: "Compact " + strconv.Itoa(i),
			Content: "word" + strconv.Itoa(i), Date: when, DateGMT: when}
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if n := segments(); n < 2 {
		t.Fatalf("%d segments before compacting, want several", n)
	}
	if err := db.CompactSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if n := segments(); n != 1 {
		t.Fatalf("%d segments after compacting, want 1", n)
	}
	q := store.PostQuery{Search: "compact"}
	if n, err := db.CountPosts(ctx, q); err != nil || n != 40 {
		t.Fatalf("search after compacting counts %d (%v), want 40", n, err)
	}
	if got, err := db.ListPosts(ctx, store.PostQuery{Search: "word17"}); err != nil || len(got) != 1 || got[0].Title != "Compact 17" {
		t.Fatalf("search for one post after compacting = %v (%v)", got, err)
	}
}

// TestMigrateForgetsStaleFTSStatistics: a file whose FTS5 tables were
// analyzed nearly empty (as a new site's migration did) gets its writer,
// once opened, planning FTS5's deletes by range of ids, not by scanning
// the index: the statistics are dropped and the connections that loaded
// them replaced.
func TestMigrateForgetsStaleFTSStatistics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "folio.db")
	db := openAt(t, path)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`ANALYZE`,
		`DELETE FROM sqlite_stat1 WHERE tbl = 'posts_fts_data'`,
		`INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES ('posts_fts_data', NULL, '2')`,
	} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stale := func() string {
		var id, parent, unused int
		var detail string
		if err := db.c.write.QueryRow(`EXPLAIN QUERY PLAN DELETE FROM posts_fts_data WHERE id >= ? AND id <= ?`, 1, 2).Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		return detail
	}
	if plan := stale(); !strings.HasPrefix(plan, "SCAN") {
		t.Fatalf("before Migrate the writer plans %q; the test needs the stale statistics loaded", plan)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if plan := stale(); !strings.HasPrefix(plan, "SEARCH") {
		t.Errorf("after Migrate the writer plans %q, want a search of a range of ids", plan)
	}
	var n int
	if err := db.c.read.QueryRow(`SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'posts_fts_data'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("sqlite_stat1 keeps %d rows of posts_fts_data (%v)", n, err)
	}
}

// pageTermsQuery is the query of a page's terms (sqlstore's postTerms),
// for posts 1 and 2.
const pageTermsQuery = `SELECT r.post_id, t.id, t.taxonomy, t.name, t.slug, t.description, t.parent, 0
	FROM term_relationships r JOIN terms t ON t.id = r.term_id WHERE r.post_id IN (?, ?)`

// termsByKey tells whether plan reads a page's links by post and each
// term by its id, not every term.
func termsByKey(plan string) bool {
	return strings.Contains(plan, "SEARCH r USING PRIMARY KEY") && strings.Contains(plan, "SEARCH t USING INTEGER PRIMARY KEY") &&
		!strings.Contains(plan, "SCAN t")
}

// everyReaderPlan returns the plan of query on each of the readers' and
// the writer's connections, all held at once.
func everyReaderPlan(t *testing.T, db *DB, query string) []string {
	t.Helper()
	ctx := context.Background()
	var plans []string
	var held []*sql.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for range db.c.readers {
		c, err := db.c.read.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		plans = append(plans, planOn(t, c, query))
	}
	w, err := db.c.write.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	held = append(held, w)
	return append(plans, planOn(t, w, query))
}

// TestReadersPlanWithTheStatisticsOfAGrownSite: statistics gathered on a
// table of one row (a new site's terms: its one category) made SQLite
// plan a page's terms as a scan of every term, probing the page's links
// for each (8.6 ms a page with 5,000 tags, growing with them). Such
// statistics are not kept; and what Optimize refreshes reaches the
// readers, which serve the pages, and the writer, which checks a new
// post's terms: a connection loads statistics when it opens, and kept
// what it loaded for as long as it lived.
func TestReadersPlanWithTheStatisticsOfAGrownSite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newDB(t)
	var small int
	if err := db.c.read.QueryRow(`SELECT count(*) FROM sqlite_stat1 WHERE CAST(stat AS INTEGER) < ?`, statsMinRows).Scan(&small); err != nil || small != 0 {
		t.Errorf("a new site keeps %d statistics counted on fewer than %d rows (%v)", small, statsMinRows, err)
	}
	for i, plan := range everyReaderPlan(t, db, pageTermsQuery) {
		if !termsByKey(plan) {
			t.Errorf("new site, connection %d: page terms planned\n%s\nwant the links by post and the terms by id", i, plan)
		}
	}
	// Optimize analyzes the small tables again (they have no statistics)
	// and drops what it counted; the connection that counted is not kept.
	if err := db.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	for i, plan := range everyReaderPlan(t, db, pageTermsQuery) {
		if !termsByKey(plan) {
			t.Errorf("new site after Optimize, connection %d: page terms planned\n%s\nwant the links by post and the terms by id", i, plan)
		}
	}

	// The statistics an earlier version kept from a new site's migration:
	// the terms counted with one row (the category).
	for _, st := range [][2]string{
		{"terms_taxonomy_id", "1 1 1"}, {"terms_taxonomy_count", "1 1 1 1"}, {"terms_taxonomy_parent", "1 1 1"},
		{"terms_taxonomy_name", "1 1 1 1"}, {"terms_taxonomy_slug", "1 1 1"},
	} {
		if _, err := db.c.write.ExecContext(ctx, `INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES ('terms', ?, ?)`, st[0], st[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.c.reconnect(ctx); err != nil { // connections that loaded them
		t.Fatal(err)
	}
	if plans := everyReaderPlan(t, db, pageTermsQuery); termsByKey(plans[0]) {
		t.Fatalf("with the terms counted at one row a reader plans\n%s\nthe test needs the scan of the terms", plans[0])
	}
	for i := range 300 {
		if err := db.InsertTerm(ctx, &store.Term{Taxonomy: "post_tag", Name: "Tag " + strconv.Itoa(i), Slug: "tag-" + strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	var stat string
	if err := db.c.read.QueryRow(`SELECT stat FROM sqlite_stat1 WHERE tbl = 'terms' AND idx = 'terms_taxonomy_slug'`).Scan(&stat); err != nil {
		t.Fatal(err)
	}
	if n, _ := strconv.Atoi(strings.Fields(stat)[0]); n < 300 {
		t.Errorf("terms statistics %q after Optimize, want a count of at least 300", stat)
	}
	for i, plan := range everyReaderPlan(t, db, pageTermsQuery) {
		if !termsByKey(plan) {
			t.Errorf("after Optimize, connection %d: page terms planned\n%s\nwant the links by post and the terms by id", i, plan)
		}
	}
}

// TestOptimizeMergesASearchIndexInManySegments: posts written one batch at
// a time leave the full-text index in many segments, each read by every
// search; Optimize merges an index in more than searchSegmentsMax of them
// into one, in steps, and leaves one in fewer alone. Every post is found
// as before.
func TestOptimizeMergesASearchIndexInManySegments(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	segments := func() int { return postsSegments(t, db) }
	when := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	insert := func(from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			p := &store.Post{Type: "post", Status: "publish", Slug: "p-" + strconv.Itoa(i), Title: "Merged " + strconv.Itoa(i),
				Content: "piece" + strconv.Itoa(i), Date: when, DateGMT: when}
			if err := db.InsertPost(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Each post's batch adds a segment (FTS5 merges a level's segments a
	// little with each write, and all of them once it has crisismerge).
	posts := 0
	for ; segments() <= searchSegmentsMax; posts++ {
		if posts == 3*searchSegmentsMax {
			t.Fatalf("%d segments after %d posts, want more than %d", segments(), posts, searchSegmentsMax)
		}
		insert(posts, posts+1)
	}
	if err := db.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	if n := segments(); n != 1 {
		t.Errorf("%d segments after Optimize, want 1", n)
	}
	insert(posts, posts+3)
	posts += 3
	few := segments()
	if few < 2 || few > searchSegmentsMax {
		t.Fatalf("%d segments after 3 more posts, want between 2 and %d", few, searchSegmentsMax)
	}
	if err := db.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	if n := segments(); n != few {
		t.Errorf("Optimize merged an index in %d segments (now %d), want it left alone", few, n)
	}
	if n, err := db.CountPosts(ctx, store.PostQuery{Search: "merged"}); err != nil || n != int64(posts) {
		t.Errorf("search after merging counts %d (%v), want %d", n, err, posts)
	}
	for _, i := range []int{0, posts / 2, posts - 1} {
		got, err := db.ListPosts(ctx, store.PostQuery{Search: "piece" + strconv.Itoa(i)})
		if err != nil || len(got) != 1 || got[0].Title != "Merged "+strconv.Itoa(i) {
			t.Errorf("search for piece%d after merging = %v (%v)", i, got, err)
		}
	}
}
