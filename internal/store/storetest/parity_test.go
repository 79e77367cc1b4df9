package storetest_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// These tests pin down behaviour where SQLite and PostgreSQL differ by
// nature (collation, zero dates, id generation, concurrency), so that a
// backend that drifts fails here.

func TestTitleOrderFoldsASCIICaseOnly(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	for _, title := range []string{"apple", "Banana", "banana", "Äpfel", "zebra", "_under", "Zulu", "äpfel"} {
		if err := db.InsertPost(ctx, &store.Post{Type: "post", Status: "publish", Title: title}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.ListPosts(ctx, store.PostQuery{OrderBy: "title", Order: "asc"})
	if err != nil {
		t.Fatal(err)
	}
	// NOCASE: ASCII letters fold, then bytes compare; ties on id.
	if want := []int64{6, 1, 2, 3, 5, 7, 4, 8}; !reflect.DeepEqual(ids(got), want) {
		t.Fatalf("title asc = %v, want %v", ids(got), want)
	}
	got, err = db.ListPosts(ctx, store.PostQuery{OrderBy: "slug", Order: "asc", Limit: 2})
	if err != nil || len(got) != 2 || got[0].ID != 1 || got[1].ID != 2 {
		t.Fatalf("slug order of equal slugs = %v, %v; want ids 1, 2", ids(got), err)
	}
}

func TestZeroDatesSortFirstAndMatchNoCalendarFilter(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	posts := []*store.Post{
		{Type: "post", Status: "draft", Title: "zero"},
		{Type: "post", Status: "publish", Title: "y1", Date: time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC)},
		{Type: "post", Status: "publish", Title: "jan", Date: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)},
	}
	for _, p := range posts {
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		q    store.PostQuery
		want []int64
	}{
		{"date asc", store.PostQuery{Order: "asc"}, []int64{1, 2, 3}},
		{"month 1", store.PostQuery{Month: 1}, []int64{3, 2}},
		{"day 1", store.PostQuery{Day: 1}, []int64{3, 2}},
		{"before 2000", store.PostQuery{Before: ptr(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC))}, []int64{2, 1}},
		{"after zero", store.PostQuery{After: ptr(time.Time{})}, []int64{3, 2}},
	}
	for _, tt := range tests {
		got, err := db.ListPosts(ctx, tt.q)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ids(got), tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, ids(got), tt.want)
		}
	}
	got, err := db.GetPost(ctx, 1)
	if err != nil || !got.Date.IsZero() || got.Date != (time.Time{}) {
		t.Fatalf("zero date read back as %#v (%v)", got.Date, err)
	}
}

func TestDatesKeepWallClockAndDropZone(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	tokyo := time.FixedZone("JST", 9*3600)
	p := &store.Post{Type: "post", Date: time.Date(2021, 7, 1, 23, 30, 15, 999, tokyo), DateGMT: time.Date(2021, 7, 1, 14, 30, 15, 0, time.UTC)}
	if err := db.InsertPost(ctx, p); err != nil {
		t.Fatal(err)
	}
	got, err := db.GetPost(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2021, 7, 1, 23, 30, 15, 0, time.UTC); got.Date != want {
		t.Fatalf("date = %v, want the wall clock %v in UTC", got.Date, want)
	}
	n, err := db.CountPosts(ctx, store.PostQuery{Year: 2021, Month: 7, Day: 1})
	if err != nil || n != 1 {
		t.Fatalf("local-date filter counts %d (%v), want 1", n, err)
	}
}

func TestIDsIncreaseAndAreNeverReused(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	mk := func() int64 {
		p := &store.Post{Type: "post"}
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
		return p.ID
	}
	if a, b := mk(), mk(); a != 1 || b != 2 {
		t.Fatalf("first ids %d, %d", a, b)
	}
	if err := db.DeletePost(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if id := mk(); id != 3 {
		t.Fatalf("after deleting the newest post, next id %d, want 3 (never reused)", id)
	}
	// A rolled back insert may leave a gap (PostgreSQL's sequences do;
	// SQLite gives the id back), never a reused id.
	boom := errors.New("boom")
	var rolledBack int64
	if err := db.Tx(ctx, func(s store.Store) error {
		p := &store.Post{Type: "post"}
		if err := s.InsertPost(ctx, p); err != nil {
			return err
		}
		rolledBack = p.ID
		return boom
	}); !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if id := mk(); id <= 3 || id > rolledBack+1 {
		t.Fatalf("after a rollback (of id %d), next id %d, want 4 or %d", rolledBack, id, rolledBack+1)
	}
	// A failed insert (conflict) inside a Tx that goes on and commits
	// leaves the transaction usable, and the next id is larger still.
	a := &store.User{Login: "a", Nicename: "a"}
	if err := db.InsertUser(ctx, a); err != nil {
		t.Fatal(err)
	}
	err := db.Tx(ctx, func(s store.Store) error {
		if err := s.InsertUser(ctx, &store.User{Login: "A", Nicename: "b"}); !errors.Is(err, store.ErrConflict) {
			return fmt.Errorf("duplicate login: %v", err)
		}
		u := &store.User{Login: "c", Nicename: "c"}
		if err := s.InsertUser(ctx, u); err != nil {
			return err
		}
		if u.ID <= a.ID {
			return fmt.Errorf("user after a conflict got id %d, not after %d", u.ID, a.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestConcurrentWritersOnTwoHandles(t *testing.T) {
	t.Parallel()
	// Two handles on one database stand for two processes or nodes.
	dbs := storetest.OpenN(t, 2)
	ctx := context.Background()
	const workers, each = 6, 10
	var wg sync.WaitGroup
	errc := make(chan error, workers*each*2)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			db := dbs[w%len(dbs)]
			for i := 0; i < each; i++ {
				p := &store.Post{Type: "post", Status: "publish", Title: fmt.Sprintf("w%d-%d", w, i)}
				if err := db.InsertPost(ctx, p); err != nil {
					errc <- err
					return
				}
				err := db.Tx(ctx, func(s store.Store) error {
					got, err := s.GetPost(ctx, p.ID)
					if err != nil {
						return err
					}
					got.Title += " updated"
					return s.UpdatePost(ctx, got)
				})
				if err != nil {
					errc <- err
					return
				}
				if _, err := db.AddOption(ctx, "secret", fmt.Sprint(w)); err != nil {
					errc <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	n, err := dbs[0].CountPosts(ctx, store.PostQuery{Search: "updated"})
	if err != nil || n != workers*each {
		t.Fatalf("%d updated posts (%v), want %d", n, err, workers*each)
	}
	if v := mustVersion(t, dbs[1]); v < workers*each*2+1 {
		t.Fatalf("version = %d, want at least %d", v, workers*each*2+1)
	}
}

// TestSlugCheckUnderKeyLockIsSerialized runs the content layer's
// unique-slug pattern (lock the slug's key, SlugsTaken, then insert, in
// one Tx) from many goroutines on two handles: every post must end up
// with its own slug.
func TestSlugCheckUnderKeyLockIsSerialized(t *testing.T) {
	t.Parallel()
	dbs := storetest.OpenN(t, 2)
	ctx := context.Background()
	const n = 12
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = dbs[i%2].Tx(ctx, func(s store.Store) error {
				if err := store.LockKeys(ctx, s, "post-slug:same"); err != nil {
					return err
				}
				slug := "same"
				for k := 2; ; k++ {
					taken, err := s.SlugsTaken(ctx, []string{slug}, []string{"post"}, -1, 0)
					if err != nil {
						return err
					}
					if !taken[slug] {
						break
					}
					slug = fmt.Sprintf("same-%d", k)
				}
				return s.InsertPost(ctx, &store.Post{Type: "post", Status: "publish", Slug: slug})
			})
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	posts, err := dbs[0].ListPosts(ctx, store.PostQuery{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range posts {
		if seen[p.Slug] {
			t.Fatalf("slug %q given twice", p.Slug)
		}
		seen[p.Slug] = true
	}
	if len(seen) != n {
		t.Fatalf("%d slugs, want %d", len(seen), n)
	}
}

func TestWriteOnOneHandleIsSeenOnTheOtherAtOnce(t *testing.T) {
	t.Parallel()
	dbs := storetest.OpenN(t, 2)
	ctx := context.Background()
	before := mustVersion(t, dbs[1])
	p := &store.Post{Type: "post", Status: "publish", Title: "fresh"}
	if err := dbs[0].InsertPost(ctx, p); err != nil {
		t.Fatal(err)
	}
	if v := mustVersion(t, dbs[1]); !storetest.OneBump(before, v) {
		t.Fatalf("other handle's version %d → %d, want one bump", before, v)
	}
	got, err := dbs[1].GetPost(ctx, p.ID)
	if err != nil || got.Title != "fresh" {
		t.Fatalf("other handle reads %+v, %v", got, err)
	}
}

func TestImportWithExplicitIDsMovesIDsOn(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	c, ok := db.(store.Copier)
	if !ok {
		t.Skip("store cannot copy")
	}
	err := c.Import(ctx, func(im store.Importer) error {
		rows := [][]any{{int64(7), "post", "draft", "seven"}, {int64(41), "post", "draft", "forty-one"}}
		if err := im.InsertRows(ctx, "posts", []string{"id", "type", "status", "title"}, rows); err != nil {
			return err
		}
		// The last id the source handed out may be past its largest row.
		return im.SetLastID(ctx, "posts", 50)
	})
	if err != nil {
		t.Fatal(err)
	}
	p := &store.Post{Type: "post", Title: "after"}
	if err := db.InsertPost(ctx, p); err != nil {
		t.Fatal(err)
	}
	if p.ID != 51 {
		t.Fatalf("first id after an import that handed out up to 50: %d, want 51", p.ID)
	}
	// Below the largest id, the largest id wins.
	err = c.Import(ctx, func(im store.Importer) error {
		if err := im.InsertRows(ctx, "posts", []string{"id", "type", "status", "title"}, [][]any{{int64(90), "post", "draft", "ninety"}}); err != nil {
			return err
		}
		return im.SetLastID(ctx, "posts", 3)
	})
	if err != nil {
		t.Fatal(err)
	}
	p = &store.Post{Type: "post", Title: "after again"}
	if err := db.InsertPost(ctx, p); err != nil {
		t.Fatal(err)
	}
	if p.ID <= 90 {
		t.Fatalf("id after importing id 90 with a last id of 3: %d, want more than 90", p.ID)
	}
}
