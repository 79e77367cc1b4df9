package sqlite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/store"
)

// searchTermsHave reports which of words search_terms holds.
func searchTermsHave(t *testing.T, db *DB, words ...string) map[string]bool {
	t.Helper()
	have := map[string]bool{}
	for _, w := range words {
		var n int
		if err := db.c.read.QueryRow(`SELECT COUNT(*) FROM search_terms WHERE term = ?`, w).Scan(&n); err != nil {
			t.Fatal(err)
		}
		have[w] = n == 1
	}
	return have
}

// TestWriterIndexesALargeQueueInChunks: a transaction that creates more
// posts than the writer indexes at a time (an import) leaves every post
// searchable, every word listed in search_terms once, and the queue
// empty.
func TestWriterIndexesALargeQueueInChunks(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	n := 2*searchIndexChunk + 17
	posts := make([]*store.Post, n)
	for i := range posts {
		posts[i] = &store.Post{Type: "post", Status: "publish", Title: fmt.Sprintf("Post %d", i),
			Slug: fmt.Sprintf("post-%d", i), Content: fmt.Sprintf("<p>Shared <b>Words</b> and one of its own: w%dx</p>", i)}
	}
	posts[n-1].Password = "secret"
	err := db.Tx(ctx, func(tx store.Store) error {
		return tx.(store.PostBulkInserter).InsertPosts(ctx, posts)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, searchIndexChunk - 1, searchIndexChunk, 2 * searchIndexChunk, n - 2} {
		got, err := db.ListPosts(ctx, store.PostQuery{Types: []string{"post"}, Search: fmt.Sprintf("w%dx", i)})
		if err != nil || len(got) != 1 || got[0].ID != posts[i].ID {
			t.Fatalf("search w%dx found %v (%v), want post %d", i, got, err, posts[i].ID)
		}
	}
	// The protected post's text is indexed with its mark: found only by
	// those who may read it.
	if got, err := db.CountPosts(ctx, store.PostQuery{Types: []string{"post"}, Search: fmt.Sprintf("w%dx", n-1)}); err != nil || got != 0 {
		t.Fatalf("protected post's word counted %d (%v), want 0", got, err)
	}
	if got, err := db.CountPosts(ctx, store.PostQuery{Types: []string{"post"}, Search: "shared words"}); err != nil || got != int64(n-1) {
		t.Fatalf("search of the shared words counts %d (%v), want %d", got, err, n-1)
	}
	var queued, terms int
	if err := db.c.read.QueryRow(`SELECT (SELECT COUNT(*) FROM posts_fts_queue), (SELECT COUNT(*) FROM search_terms)`).Scan(&queued, &terms); err != nil {
		t.Fatal(err)
	}
	// Per post its own word and its number; shared: post, shared, words,
	// and, one, of, its, own.
	if want := 2*n + 8; queued != 0 || terms != want {
		t.Fatalf("%d queued, %d search terms; want 0 and %d", queued, terms, want)
	}
	// A prefix of the own words is looked up in search_terms.
	if got, err := db.CountPosts(ctx, store.PostQuery{Types: []string{"post"}, Search: "w1"}); err != nil || got < 100 {
		t.Fatalf("search w1 counts %d (%v), want the posts of w1…", got, err)
	}
}

// TestWriterForgetsWordsOfABatchThatFails: a word first written by a
// batch that does not commit is not taken for known; the next post with
// it lists it.
func TestWriterForgetsWordsOfABatchThatFails(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	create := func(tx store.Store, title, content string) error {
		return tx.InsertPost(ctx, &store.Post{Type: "post", Status: "publish", Title: title, Slug: strings.ToLower(title), Content: content})
	}

	// A transaction that rolls back: its queued post never reaches the
	// writer's flush.
	boom := errors.New("boom")
	if err := db.Tx(ctx, func(tx store.Store) error {
		if err := create(tx, "Gone", "quixotic"); err != nil {
			return err
		}
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("tx = %v, want boom", err)
	}
	if have := searchTermsHave(t, db, "quixotic"); have["quixotic"] {
		t.Fatal("a rolled-back post's word is in search_terms")
	}

	// A batch whose commit fails after the flush wrote its words: the
	// writer must not remember them.
	g := db.c.group
	g.terms.added = append(g.terms.added, "zymurgy")
	g.terms.rolledBack()
	if _, ok := g.terms.known["zymurgy"]; ok {
		t.Fatal("a word of a batch that rolled back is known")
	}
	if err := db.Tx(ctx, func(tx store.Store) error { return create(tx, "Kept", "quixotic zymurgy") }); err != nil {
		t.Fatal(err)
	}
	if have := searchTermsHave(t, db, "quixotic", "zymurgy"); !have["quixotic"] || !have["zymurgy"] {
		t.Fatalf("search_terms has %v, want both words", have)
	}
	if _, ok := g.terms.known["zymurgy"]; !ok {
		t.Fatal("a committed word is not known")
	}
	for _, s := range []string{"quix", "zym"} {
		if n, err := db.CountPosts(ctx, store.PostQuery{Types: []string{"post"}, Search: s}); err != nil || n != 1 {
			t.Fatalf("search %q counts %d (%v), want 1", s, n, err)
		}
	}

	// A known word whose row a failed batch would have written is still
	// listed (it was committed before): the memory only skips inserts.
	if err := db.Tx(ctx, func(tx store.Store) error { return create(tx, "Again", "zymurgy again") }); err != nil {
		t.Fatal(err)
	}
	if n, err := db.CountPosts(ctx, store.PostQuery{Types: []string{"post"}, Search: "zym"}); err != nil || n != 2 {
		t.Fatalf("search zym counts %d (%v), want 2", n, err)
	}
}

// TestWriterForgetsKnownWordsPastItsBound: the memory of known words
// stays under maxKnownTerms.
func TestWriterForgetsKnownWordsPastItsBound(t *testing.T) {
	var st searchTerms
	for i := range maxKnownTerms + 10 {
		st.added = append(st.added, fmt.Sprint("w", i))
		if len(st.added) == 1000 {
			st.committed()
		}
	}
	st.committed()
	if len(st.known) > maxKnownTerms {
		t.Fatalf("%d known words, want at most %d", len(st.known), maxKnownTerms)
	}
}

// mergeSettings returns posts_fts's automerge and crisismerge (FTS5's
// defaults when unset) and the writer's page cache size.
func mergeSettings(t *testing.T, db *DB) (automerge, crisismerge, cache int) {
	t.Helper()
	automerge, crisismerge = ftsAutomerge, ftsCrisismerge
	rows, err := db.c.read.Query(`SELECT k, v FROM posts_fts_config WHERE k IN ('automerge', 'crisismerge')`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var v int
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		if k == "automerge" {
			automerge = v
		} else {
			crisismerge = v
		}
	}
	if err := db.c.write.QueryRow(`PRAGMA cache_size`).Scan(&cache); err != nil {
		t.Fatal(err)
	}
	return automerge, crisismerge, cache
}

// TestBulkLoadLeavesOneIndexPieceAndTheSettingsAsBefore: during a bulk
// load posts_fts does not merge and the writer's cache is larger; after
// it every post is searchable, the index is one piece and the settings
// are back, also when the load fails.
func TestBulkLoadLeavesOneIndexPieceAndTheSettingsAsBefore(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	var bl store.BulkLoader = db
	before := [3]int{}
	before[0], before[1], before[2] = mergeSettings(t, db)
	if before != [3]int{ftsAutomerge, ftsCrisismerge, -db.c.cacheKiB} {
		t.Fatalf("settings before = %v", before)
	}
	const n = 60
	err := bl.BulkLoad(ctx, func(ctx context.Context) error {
		if a, c, cache := mergeSettings(t, db); a != 0 || c != bulkCrisismerge || cache != -bulkCacheKiB {
			t.Errorf("during the load: automerge %d, crisismerge %d, cache %d", a, c, cache)
		}
		// A write transaction of the load that fails leaves nothing.
		boom := errors.New("boom")
		err := db.Tx(ctx, func(tx store.Store) error {
			if err := tx.InsertPost(ctx, &store.Post{Type: "post", Status: "publish", Title: "Gone", Slug: "gone", Content: "bulky"}); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Errorf("failing transaction = %v, want boom", err)
		}
		// Another writer's transaction meanwhile commits as usual.
		done := make(chan error)
		go func() {
			done <- db.InsertPost(context.Background(), &store.Post{Type: "page", Status: "publish", Title: "Other", Slug: "other"})
		}()
		for i := range n { // a transaction each: a piece of index each
			err := db.InsertPost(ctx, &store.Post{Type: "post", Status: "publish", Title: fmt.Sprintf("Bulk %d", i),
				Slug: fmt.Sprintf("bulk-%d", i), Content: fmt.Sprintf("bulky b%dx", i)})
			if err != nil {
				return err
			}
		}
		return <-done
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := db.CountPosts(ctx, store.PostQuery{Types: []string{"page"}}); err != nil || n != 1 {
		t.Errorf("pages = %d (%v), want the other writer's 1", n, err)
	}
	after := [3]int{}
	after[0], after[1], after[2] = mergeSettings(t, db)
	if after != before {
		t.Fatalf("settings after = %v, want %v", after, before)
	}
	var segments int
	if err := db.c.read.QueryRow(`SELECT COUNT(DISTINCT segid) FROM posts_fts_idx`).Scan(&segments); err != nil {
		t.Fatal(err)
	}
	if segments != 1 {
		t.Fatalf("%d index pieces after the load, want 1", segments)
	}
	if got, err := db.CountPosts(ctx, store.PostQuery{Types: []string{"post"}, Search: "bulky"}); err != nil || got != n {
		t.Fatalf("search counts %d (%v), want %d", got, err, n)
	}
	if got, err := db.CountPosts(ctx, store.PostQuery{Types: []string{"post"}, Search: "b17x"}); err != nil || got != 1 {
		t.Fatalf("search b17x counts %d (%v), want 1", got, err)
	}

	boom := errors.New("boom")
	if err := bl.BulkLoad(ctx, func(context.Context) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("failing load = %v, want boom", err)
	}
	after[0], after[1], after[2] = mergeSettings(t, db)
	if after != before {
		t.Fatalf("settings after a failed load = %v, want %v", after, before)
	}
}

// TestMigrateRestoresMergeSettingsABulkLoadLeft: a bulk load that a crash
// ended leaves FTS5 not merging; the next open sets it back.
func TestMigrateRestoresMergeSettingsABulkLoadLeft(t *testing.T) {
	t.Parallel()
	path := t.TempDir() + "/folio.db"
	ctx := context.Background()
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.setMerges(ctx, 0, bulkCrisismerge); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openAt(t, path)
	if a, c, _ := mergeSettings(t, db); a != ftsAutomerge || c != ftsCrisismerge {
		t.Fatalf("after reopening: automerge %d, crisismerge %d; want %d and %d", a, c, ftsAutomerge, ftsCrisismerge)
	}
}
