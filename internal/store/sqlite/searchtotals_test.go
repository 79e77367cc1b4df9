package sqlite

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/sqlstore"
)

// newTotalsDB is newDB keeping every counted search from its first count.
func newTotalsDB(t *testing.T) *DB {
	t.Helper()
	db := newDB(t)
	db.c.group.totals.from = 0
	db.c.group.totals.asked = 1
	return db
}

var gardenSearch = store.PostQuery{Types: []string{"post"}, Statuses: []string{"publish"}, Search: "garden"}

// keptTotals returns the kept totals other than the version, by key, as
// readers read them (each from its place in the list).
func keptTotals(t *testing.T, db *DB) map[string]int64 {
	t.Helper()
	rs, err := db.c.read.Query(`SELECT t.key, v.list ->> t.slot FROM search_totals t, search_totals v
		WHERE t.key <> '' AND v.key = ''`)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	out := map[string]int64{}
	for rs.Next() {
		var key string
		var n int64
		if err := rs.Scan(&key, &n); err != nil {
			t.Fatal(err)
		}
		out[key] = n
	}
	return out
}

// checkKept fails unless the kept total of gardenSearch is want.
func checkKept(t *testing.T, db *DB, want int64) {
	t.Helper()
	if got, ok := keptTotals(t, db)[gardenKey()]; !ok || got != want {
		t.Fatalf("kept total of garden %d (kept: %v), want %d", got, ok, want)
	}
}

func gardenKey() string {
	return totalKey([]string{"garden"}, []string{sqlstore.SearchKindMark("post", "publish")})
}

func insertPost(t *testing.T, db *DB, title, content string) *store.Post {
	t.Helper()
	p := &store.Post{Type: "post", Status: "publish", Title: title, Content: content}
	if err := db.InsertPost(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkTotal compares the total of q with the posts q lists and with
// want.
func checkTotal(t *testing.T, db *DB, stage string, q store.PostQuery, want int64) {
	t.Helper()
	ctx := context.Background()
	list, err := db.ListPosts(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	n, err := db.CountPosts(ctx, q)
	if err != nil || n != want || int64(len(list)) != want {
		t.Fatalf("%s: total %d (%v), %d listed, want %d", stage, n, err, len(list), want)
	}
}

// TestSearchTotalsFollowEveryWrite: a counted search is kept in
// search_totals, and the writer keeps its total exact through creates,
// changes of text, status, type and password, and deletes, each of which
// changes what the index matches.
func TestSearchTotalsFollowEveryWrite(t *testing.T) {
	t.Parallel()
	db := newTotalsDB(t)
	ctx := context.Background()
	for i := range 5 {
		insertPost(t, db, fmt.Sprintf("Garden %d", i), "<p>Roses</p>")
	}
	insertPost(t, db, "Kitchen", "<p>No plants</p>")
	checkTotal(t, db, "first count", gardenSearch, 5)
	checkKept(t, db, 5)
	a := insertPost(t, db, "Notes", "<p>The gardens in spring</p>")
	insertPost(t, db, "Other", "<p>Nothing here</p>")
	checkTotal(t, db, "created", gardenSearch, 6)
	update := func(p *store.Post, f func(p *store.Post)) {
		t.Helper()
		got, err := db.GetPost(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		f(got)
		if err := db.UpdatePost(ctx, got); err != nil {
			t.Fatal(err)
		}
	}
	update(a, func(p *store.Post) { p.Content = "<p>Now about kitchens</p>" })
	checkTotal(t, db, "word removed", gardenSearch, 5)
	update(a, func(p *store.Post) { p.Title = "Gardening" })
	checkTotal(t, db, "word added", gardenSearch, 6)
	update(a, func(p *store.Post) { p.Status = "draft" })
	checkTotal(t, db, "unpublished", gardenSearch, 5)
	update(a, func(p *store.Post) { p.Status = "publish"; p.Password = "pw" })
	// The protected post is found by its title, not counted in the
	// index: the total is the same.
	checkTotal(t, db, "protected", gardenSearch, 6)
	checkKept(t, db, 5)
	update(a, func(p *store.Post) { p.Password = ""; p.Type = "page" })
	checkTotal(t, db, "now a page", gardenSearch, 5)
	if err := db.DeletePost(ctx, 1); err != nil {
		t.Fatal(err)
	}
	checkTotal(t, db, "deleted", gardenSearch, 4)
	// Several writes in one batch.
	err := db.Tx(ctx, func(tx store.Store) error {
		for i := range 3 {
			if err := tx.InsertPost(ctx, &store.Post{Type: "post", Status: "publish", Title: fmt.Sprintf("Garden bed %d", i)}); err != nil {
				return err
			}
		}
		return tx.DeletePost(ctx, 2)
	})
	if err != nil {
		t.Fatal(err)
	}
	checkTotal(t, db, "one transaction", gardenSearch, 6)
	// A transaction that rolls back changes nothing.
	_ = db.Tx(ctx, func(tx store.Store) error {
		if err := tx.InsertPost(ctx, &store.Post{Type: "post", Status: "publish", Title: "Garden gone"}); err != nil {
			return err
		}
		return fmt.Errorf("roll back")
	})
	checkTotal(t, db, "rolled back", gardenSearch, 6)
	checkKept(t, db, 6)
}

// TestSearchTotalsCatchUp: a count made on a snapshot older than the
// last batches is kept when those batches only added posts (their
// documents are replayed), and dropped when one changed a post.
func TestSearchTotalsCatchUp(t *testing.T) {
	t.Parallel()
	db := newTotalsDB(t)
	ctx := context.Background()
	for i := range 3 {
		insertPost(t, db, fmt.Sprintf("Garden %d", i), "")
	}
	tot := db.c.group.totals
	version := func() int64 {
		var v int64
		if err := db.c.read.QueryRow(`SELECT n FROM search_totals WHERE key = ''`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	poke := func() {
		m, err := db.c.group.begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	words, kinds := []string{"garden"}, []string{sqlstore.SearchKindMark("post", "publish")}
	v0 := version()
	insertPost(t, db, "Garden 3", "")
	insertPost(t, db, "Kitchen", "")
	insertPost(t, db, "Garden 4", "")
	if version() != v0+3 {
		t.Fatalf("version %d after three creates, want %d", version(), v0+3)
	}
	a := tot.announce(gardenKey(), words, kinds, v0)
	if !tot.counted(a, 3) { // the count on v0's snapshot
		t.Fatal("announcement dropped before a batch")
	}
	poke()
	checkKept(t, db, 5)
	checkTotal(t, db, "caught up", gardenSearch, 5)

	// A change in between: not replayable.
	other := []string{"kitchen"}
	v1 := version()
	p, err := db.GetPost(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	p.Title = "Kitchen garden"
	if err := db.UpdatePost(ctx, p); err != nil {
		t.Fatal(err)
	}
	b := tot.announce(totalKey(other, kinds), other, kinds, v1)
	tot.counted(b, 1)
	poke()
	select {
	case <-b.done:
	default:
		t.Fatal("announcement neither kept nor dropped")
	}
	if !b.dropped {
		t.Fatal("announcement over a changed post kept")
	}
	if _, ok := keptTotals(t, db)[totalKey(other, kinds)]; ok {
		t.Fatal("dropped announcement kept")
	}
	checkTotal(t, db, "after a dropped count", store.PostQuery{Types: []string{"post"}, Statuses: []string{"publish"}, Search: "kitchen"}, 2)
}

// TestSearchTotalsAcrossProcesses: two stores on one file (two
// processes) keep each other's totals exact: each reloads the kept
// searches when it finds a version it did not write.
func TestSearchTotalsAcrossProcesses(t *testing.T) {
	t.Parallel()
	path := t.TempDir() + "/folio.db"
	one := openAt(t, path)
	two := openAt(t, path)
	one.c.group.totals.from, two.c.group.totals.from = 0, 0
	insertPost(t, one, "Garden", "")
	checkTotal(t, one, "one counts", gardenSearch, 1)
	insertPost(t, two, "Garden two", "")
	checkTotal(t, two, "two reads the kept total", gardenSearch, 2)
	insertPost(t, one, "Garden three", "")
	checkTotal(t, one, "one after two wrote", gardenSearch, 3)
	checkTotal(t, two, "two after one wrote", gardenSearch, 3)
	checkKept(t, one, 3)
}

// TestSearchTotalsBounded: past the bound, the least recently read
// searches make room.
func TestSearchTotalsBounded(t *testing.T) {
	t.Parallel()
	db := newTotalsDB(t)
	db.c.group.totals.max = 3
	for _, w := range []string{"alpha", "beta", "gamma", "delta", "epsilon"} {
		insertPost(t, db, w, "")
	}
	ctx := context.Background()
	count := func(w string) {
		t.Helper()
		n, err := db.CountPosts(ctx, store.PostQuery{Types: []string{"post"}, Statuses: []string{"publish"}, Search: w})
		if err != nil || n != 1 {
			t.Fatalf("%s: total %d (%v), want 1", w, n, err)
		}
	}
	for _, w := range []string{"alpha", "beta", "gamma", "alpha", "delta", "epsilon"} {
		count(w)
	}
	kept := keptTotals(t, db)
	kinds := []string{sqlstore.SearchKindMark("post", "publish")}
	if len(kept) != 3 {
		t.Fatalf("%d kept, want 3: %v", len(kept), kept)
	}
	for _, w := range []string{"alpha", "delta", "epsilon"} {
		if _, ok := kept[totalKey([]string{w}, kinds)]; !ok {
			t.Errorf("%s not kept: %v", w, kept)
		}
	}
}

// TestSearchTotalsUnderConcurrentWrites: searches counted while other
// transactions create posts (announcements racing batches) end kept and
// exact.
func TestSearchTotalsUnderConcurrentWrites(t *testing.T) {
	t.Parallel()
	db := newTotalsDB(t)
	ctx := context.Background()
	queries := []store.PostQuery{gardenSearch,
		{Types: []string{"post"}, Statuses: []string{"publish"}, Search: "garden roses"},
		{Types: []string{"post"}, Statuses: []string{"publish"}, Search: "ros"}}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 4 {
		wg.Go(func() {
			for i := range 40 {
				content := "<p>Tulips</p>"
				if i%2 == 0 {
					content = "<p>Garden roses</p>"
				}
				p := &store.Post{Type: "post", Status: "publish", Title: fmt.Sprintf("Post %d-%d", w, i), Content: content}
				if err := db.InsertPost(ctx, p); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for r := range 4 {
		wg.Go(func() {
			for i := range 30 {
				if _, err := db.CountPosts(ctx, queries[(r+i)%len(queries)]); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	insertPost(t, db, "Last", "<p>garden roses</p>") // a batch after every count
	checkTotal(t, db, "garden", queries[0], 81)
	checkTotal(t, db, "garden roses", queries[1], 81)
	checkTotal(t, db, "ros", queries[2], 81)
	if kept := keptTotals(t, db); len(kept) != 3 {
		t.Errorf("%d searches kept, want 3: %v", len(kept), kept)
	}
}

// TestSearchPagesFromAKeptTotal: a search whose kept total is past the
// matches at which pages come from windows of the collection lists those
// pages without counting its matches first, and they are the pages.
func TestSearchPagesFromAKeptTotal(t *testing.T) {
	t.Parallel()
	db := newTotalsDB(t)
	ctx := context.Background()
	for i := range 30 {
		content := "<p>Tulips</p>"
		if i%3 != 0 {
			content = "<p>Garden roses</p>"
		}
		insertPost(t, db, fmt.Sprintf("Post %d", i), content)
	}
	all, err := db.ListPosts(ctx, gardenSearch)
	if err != nil || len(all) != 20 {
		t.Fatalf("%d posts listed (%v), want 20", len(all), err)
	}
	checkTotal(t, db, "kept", gardenSearch, 20)
	db.SetSearchPlans(1, 3) // a total of 20 is past "many"
	idsOf := func(ps []*store.Post) (out []int64) {
		for _, p := range ps {
			out = append(out, p.ID)
		}
		return out
	}
	for off := 0; off < 22; off += 3 {
		q := gardenSearch
		q.Limit, q.Offset = 3, off
		var page []*store.Post
		plans, err := db.Plans(ctx, func(ctx context.Context) (err error) {
			page, err = db.ListPosts(ctx, q)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		want := all[min(off, len(all)):min(off+3, len(all))]
		if !slices.Equal(idsOf(page), idsOf(want)) {
			t.Fatalf("page at %d: %v, want %v", off, idsOf(page), idsOf(want))
		}
		for _, p := range plans {
			if strings.Contains(p.SQL, "UNION ALL") {
				t.Fatalf("page at %d chose its plan by counting the matches:\n%s", off, p.SQL)
			}
		}
	}
}

// TestSearchTotalsKeepOnlyLargeTotals: a search of fewer matches than
// the threshold is never kept, however often it is asked; one of more is
// kept from its first count while the kept searches are few, in the
// batch its count starts.
func TestSearchTotalsKeepOnlyLargeTotals(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	db.c.group.totals.from = 3
	for i := range 4 {
		insertPost(t, db, fmt.Sprintf("Garden %d", i), "<p>roses</p>")
	}
	insertPost(t, db, "Tulips", "<p>roses</p>")
	batches := db.c.group.stats.Batches.Load()
	tulips := store.PostQuery{Types: []string{"post"}, Statuses: []string{"publish"}, Search: "tulips"}
	checkTotal(t, db, "garden", gardenSearch, 4)
	checkTotal(t, db, "tulips", tulips, 1)
	checkTotal(t, db, "tulips again", tulips, 1)
	kept := keptTotals(t, db)
	if len(kept) != 1 || kept[gardenKey()] != 4 {
		t.Fatalf("kept %v, want garden's 4 alone", kept)
	}
	if got := db.c.group.stats.Batches.Load() - batches; got != 1 {
		t.Errorf("%d batches for three counts, want 1 (keeping garden)", got)
	}
	checkTotal(t, db, "garden again", gardenSearch, 4)
}

// TestSearchTotalsKeptFromFirstCountBelowHalf: while fewer than half of
// the bound are kept, a search is kept from its first count; past half,
// from its second.
func TestSearchTotalsKeptFromFirstCountBelowHalf(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	db.c.group.totals.from = 0
	db.c.group.totals.max = 4
	words := []string{"alpha", "beta", "gamma", "delta"}
	for _, w := range words {
		insertPost(t, db, w, "")
	}
	kinds := []string{sqlstore.SearchKindMark("post", "publish")}
	q := func(w string) store.PostQuery {
		return store.PostQuery{Types: []string{"post"}, Statuses: []string{"publish"}, Search: w}
	}
	for _, w := range words[:3] {
		checkTotal(t, db, w, q(w), 1)
	}
	kept := keptTotals(t, db)
	if len(kept) != 2 || kept[totalKey([]string{"alpha"}, kinds)] != 1 || kept[totalKey([]string{"beta"}, kinds)] != 1 {
		t.Fatalf("after one count of alpha, beta and gamma: kept %v, want alpha and beta (half of 4)", kept)
	}
	checkTotal(t, db, "gamma again", q("gamma"), 1)
	if kept := keptTotals(t, db); len(kept) != 3 || kept[totalKey([]string{"gamma"}, kinds)] != 1 {
		t.Fatalf("after gamma's second count: kept %v, want alpha, beta and gamma", kept)
	}
}

// TestSearchTotalsKeepSearchesAskedAgain: searches asked once each, however
// many, do not push out a kept search, and are not kept themselves.
func TestSearchTotalsKeepSearchesAskedAgain(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	db.c.group.totals.from = 0
	db.c.group.totals.max = 3
	words := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"}
	for _, w := range words {
		insertPost(t, db, w, "<p>common</p>")
	}
	q := func(w string) store.PostQuery {
		return store.PostQuery{Types: []string{"post"}, Statuses: []string{"publish"}, Search: w}
	}
	checkTotal(t, db, "common", q("common"), 10)
	checkTotal(t, db, "common again", q("common"), 10)
	kinds := []string{sqlstore.SearchKindMark("post", "publish")}
	common := totalKey([]string{"common"}, kinds)
	if kept := keptTotals(t, db); len(kept) != 1 || kept[common] != 10 {
		t.Fatalf("kept %v, want common's 10 alone", kept)
	}
	for _, w := range words {
		checkTotal(t, db, w, q(w), 1)
	}
	if kept := keptTotals(t, db); len(kept) != 1 || kept[common] != 10 {
		t.Fatalf("after searches asked once: kept %v, want common's 10 alone", kept)
	}
	// A second count keeps them, the least recently read (common) making
	// room.
	for _, w := range words[:3] {
		checkTotal(t, db, w+" again", q(w), 1)
	}
	kept := keptTotals(t, db)
	if len(kept) != 3 {
		t.Errorf("kept %v, want 3", kept)
	}
	for _, w := range words[:3] {
		if kept[totalKey([]string{w}, kinds)] != 1 {
			t.Errorf("%s asked twice: not kept (%v)", w, kept)
		}
	}
}

// TestSearchTotalsListMigrated: migration 0025 moves the totals kept by
// an earlier version (one row each) into the list, each search in a place
// of its own, and moves the version so that a writer reloads them; they
// go on being kept exact.
func TestSearchTotalsListMigrated(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := migratedBefore(t, 25)
	kinds := []string{sqlstore.SearchKindMark("post", "publish")}
	old := map[string]int64{}
	for i, w := range []string{"gamma", "alpha", "beta"} {
		key := totalKey([]string{w}, kinds)
		old[key] = int64(10 * (i + 1))
		if _, err := db.c.write.ExecContext(ctx, `INSERT INTO search_totals (key, words, kinds, n) VALUES (?, ?, ?, ?)`,
			key, `["`+w+`"]`, `["`+kinds[0]+`"]`, old[key]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.c.write.ExecContext(ctx, `UPDATE search_totals SET n = 41 WHERE key = ''`); err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if got := keptTotals(t, db); !maps.Equal(got, old) {
		t.Fatalf("kept after the migration %v, want %v", got, old)
	}
	var version int64
	var slots string
	if err := db.c.read.QueryRow(`SELECT (SELECT n FROM search_totals WHERE key = ''),
		(SELECT group_concat(slot, ',') FROM (SELECT slot FROM search_totals WHERE key <> '' ORDER BY slot))`).Scan(&version, &slots); err != nil {
		t.Fatal(err)
	}
	if version != 42 || slots != "0,1,2" {
		t.Errorf("version %d, slots %s; want 42 and 0,1,2", version, slots)
	}
	// The writer follows them: a post with alpha and beta adds one to each.
	insertPost(t, db, "Alpha and beta", "")
	want := maps.Clone(old)
	want[totalKey([]string{"alpha"}, kinds)]++
	want[totalKey([]string{"beta"}, kinds)]++
	if got := keptTotals(t, db); !maps.Equal(got, want) {
		t.Fatalf("kept after a post %v, want %v", got, want)
	}
}

// TestSearchTotalsSlotsReused: a search kept after another was evicted
// takes its place in the list, and every total stays that of its own
// search through creates.
func TestSearchTotalsSlotsReused(t *testing.T) {
	t.Parallel()
	db := newTotalsDB(t)
	db.c.group.totals.max = 3
	ctx := context.Background()
	kinds := []string{sqlstore.SearchKindMark("post", "publish")}
	words := []string{"alpha", "beta", "gamma", "delta", "epsilon"}
	for i, w := range words {
		for range i + 1 { // alpha in one post, beta in two, …
			insertPost(t, db, w, "")
		}
	}
	want := map[string]int64{}
	for i, w := range words {
		n, err := db.CountPosts(ctx, store.PostQuery{Types: []string{"post"}, Statuses: []string{"publish"}, Search: w})
		if err != nil || n != int64(i+1) {
			t.Fatalf("%s: total %d (%v), want %d", w, n, err, i+1)
		}
		want[totalKey([]string{w}, kinds)] = int64(i + 1)
	}
	insertPost(t, db, "gamma delta epsilon", "") // the three kept: gamma, delta, epsilon
	for _, w := range []string{"gamma", "delta", "epsilon"} {
		want[totalKey([]string{w}, kinds)]++
	}
	got := keptTotals(t, db)
	if len(got) != 3 {
		t.Fatalf("kept %v, want three", got)
	}
	for key, n := range got {
		if want[key] != n {
			t.Errorf("kept total of %q = %d, want %d", key, n, want[key])
		}
	}
	var slots string
	if err := db.c.read.QueryRow(`SELECT group_concat(slot, ',') FROM (SELECT slot FROM search_totals WHERE key <> '' ORDER BY slot)`).Scan(&slots); err != nil {
		t.Fatal(err)
	}
	if slots != "0,1,2" {
		t.Errorf("slots %s, want 0,1,2 (the evicted searches' places taken again)", slots)
	}
	var list string
	if err := db.c.read.QueryRow(`SELECT list FROM search_totals WHERE key = ''`).Scan(&list); err != nil || strings.Count(list, ",") != 2 {
		t.Errorf("list %q (%v), want three totals", list, err)
	}
}
