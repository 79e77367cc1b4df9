package storetest_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// TestTermCountsFromConcurrentWrites: posts created, unpublished and
// deleted in one category by transactions on many connections at once
// leave the count exact wherever a count is read (the term, a post's
// terms, order by count, hide_empty), and a recount agrees.
func TestTermCountsFromConcurrentWrites(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	busy := mustTerm(t, db, &store.Term{Taxonomy: "category", Name: "Busy", Slug: "busy"})
	quiet := mustTerm(t, db, &store.Term{Taxonomy: "category", Name: "Quiet", Slug: "quiet"})
	empty := mustTerm(t, db, &store.Term{Taxonomy: "category", Name: "Empty", Slug: "empty"})
	const writers, each = 8, 12
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	ids := make([][]int64, writers)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				err := db.Tx(ctx, func(tx store.Store) error {
					p := &store.Post{Type: "post", Status: "publish", Title: fmt.Sprintf("p %d %d", w, i), Slug: fmt.Sprintf("p-%d-%d", w, i)}
					if err := tx.InsertPost(ctx, p); err != nil {
						return err
					}
					ids[w] = append(ids[w], p.ID)
					terms := []int64{busy}
					if i == 0 {
						terms = append(terms, quiet)
					}
					return tx.SetPostTerms(ctx, p.ID, "category", terms)
				})
				if err != nil {
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
	// One post of each writer unpublished, one deleted.
	for w := range writers {
		p, err := db.GetPost(ctx, ids[w][1])
		if err != nil {
			t.Fatal(err)
		}
		p.Status = "draft"
		if err := db.UpdatePost(ctx, p); err != nil {
			t.Fatal(err)
		}
		if err := db.DeletePost(ctx, ids[w][2]); err != nil {
			t.Fatal(err)
		}
	}
	want := map[int64]int64{busy: writers * (each - 2), quiet: writers, empty: 0}
	check := func(stage string) {
		t.Helper()
		for id, n := range want {
			if got := termCount(t, db, id); got != n {
				t.Fatalf("%s: term %d counts %d, want %d", stage, id, got, n)
			}
		}
		pts, err := db.PostTerms(ctx, []int64{ids[0][0]}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tm := range pts[ids[0][0]] {
			if tm.Count != want[tm.ID] {
				t.Fatalf("%s: the post's term %d counts %d, want %d", stage, tm.ID, tm.Count, want[tm.ID])
			}
		}
		byCount, err := db.ListTerms(ctx, store.TermQuery{Taxonomy: "category", OrderBy: "count", Order: "desc", Include: []int64{busy, quiet, empty}})
		if err != nil {
			t.Fatal(err)
		}
		if got := termIDs(byCount); !slices.Equal(got, []int64{busy, quiet, empty}) {
			t.Fatalf("%s: by count %v, want %v", stage, got, []int64{busy, quiet, empty})
		}
		used, err := db.ListTerms(ctx, store.TermQuery{Taxonomy: "category", HideEmpty: true, Include: []int64{busy, quiet, empty}})
		if err != nil {
			t.Fatal(err)
		}
		if got := termIDs(used); slices.Contains(got, empty) || !slices.Contains(got, busy) || !slices.Contains(got, quiet) {
			t.Fatalf("%s: hide_empty %v", stage, got)
		}
	}
	check("written")
	if err := db.RecountTerms(ctx, []int64{busy}); err != nil {
		t.Fatal(err)
	}
	check("busy recounted")
	if err := db.RecountTerms(ctx, nil); err != nil {
		t.Fatal(err)
	}
	check("all recounted")
	// Counted again after the recounts.
	p := &store.Post{Type: "post", Status: "publish", Title: "after", Slug: "after"}
	if err := db.InsertPost(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := db.SetPostTerms(ctx, p.ID, "category", []int64{empty}); err != nil {
		t.Fatal(err)
	}
	want[empty] = 1
	if got := termCount(t, db, empty); got != 1 {
		t.Fatalf("after the recounts: %d, want 1", got)
	}
}
