package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/sqlstore"
)

// TestCommonSearchesReadAWindowAndCountFromTheIndex: once ANALYZE has
// seen the posts' words, a search the statistics call common is listed
// from a window of the newest posts (falling back to its matches when the
// window does not hold the page) and counted from post_search; every page
// and total equals what the matching rules give, for protected posts,
// drafts and callers who may or may not read a protected post's text,
// whose totals are kept once counted.
func TestCommonSearchesReadAWindowAndCountFromTheIndex(t *testing.T) {
	t.Parallel()
	db := openOneConn(t) // the statements it prepared are read below
	ctx := context.Background()

	const n = 240
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	var posts []*store.Post
	for i := range n {
		p := &store.Post{Type: "post", Status: "publish", Title: fmt.Sprintf("Post %d", i), Content: "alpha"}
		if i < 150 {
			p.Content += " omega"
		}
		if i < 30 {
			p.Content += " late"
		}
		if i%2 == 0 {
			p.Excerpt = "pair"
		}
		if i%17 == 0 {
			p.Status = "draft"
		}
		if i%13 == 0 {
			p.Password = "pw"
			p.Title = "Locked"
			if i%26 == 0 {
				p.Title = "Locked omega"
			}
		}
		// Dates go with ids, except a few that tie with the post before.
		p.Date = start.Add(time.Duration(i-i%7/6) * time.Hour)
		p.DateGMT = p.Date
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
		posts = append(posts, p)
	}
	if _, err := db.Pool().Exec(ctx, `ANALYZE post_search`); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		words    []string
		min, max float64
	}{
		{[]string{"alpha"}, 0.99, 1},
		{[]string{"alp"}, 0.99, 1},
		{[]string{"late"}, 0.1, 0.15},
		{[]string{"alpha", "pair"}, 0.45, 0.55},
		{[]string{"zebra"}, 0, 0},
	} {
		share, ok := db.SearchShare(ctx, c.words)
		if !ok || share < c.min || share > c.max {
			t.Errorf("share of %q: %.3f (%v), want %.2f to %.2f", c.words, share, ok, c.min, c.max)
		}
	}

	// want lists the posts q selects by the rules of docs/search.md, in
	// date order (newest first).
	want := func(q store.PostQuery, readable bool) []int64 {
		words := sqlstore.SearchWords(q.Search)
		var ids []int64
		for i := len(posts) - 1; i >= 0; i-- {
			p := posts[i]
			if p.Status != "publish" {
				continue
			}
			fields := []string{p.Title}
			if p.Password == "" || readable || q.SearchPassword == p.Password {
				fields = append(fields, p.Excerpt, p.Content)
			}
			if sqlstore.SearchFieldsMatch(words, fields...) {
				ids = append(ids, p.ID)
			}
		}
		// Posts of one date: the higher id first.
		slices.SortStableFunc(ids, func(a, b int64) int {
			pa, pb := posts[slices.IndexFunc(posts, func(p *store.Post) bool { return p.ID == a })],
				posts[slices.IndexFunc(posts, func(p *store.Post) bool { return p.ID == b })]
			if c := pb.Date.Compare(pa.Date); c != 0 {
				return c
			}
			return int(b - a)
		})
		return ids
	}
	callers := []struct {
		name     string
		q        store.PostQuery
		readable bool
	}{
		{"anonymous", store.PostQuery{}, false},
		{"with the password", store.PostQuery{SearchPassword: "pw"}, false},
		{"who may read protected text", store.PostQuery{SearchProtected: &store.Visibility{Public: []string{"publish"}}}, true},
	}
	for _, search := range []string{"alpha", "omega", "late", "alpha pair", "omega late", "Locked omega"} {
		for _, caller := range callers {
			q := caller.q
			q.Types, q.Statuses, q.Search = []string{"post"}, []string{"publish"}, search
			all := want(q, caller.readable)
			total, err := db.CountPosts(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if total != int64(len(all)) {
				t.Errorf("%s, %q: total %d, want %d", caller.name, search, total, len(all))
			}
			for _, offset := range []int{0, 10, 25, 150} {
				q.Limit, q.Offset = 10, offset
				got, err := db.ListPosts(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				var ids []int64
				for _, p := range got {
					ids = append(ids, p.ID)
				}
				page := all[min(offset, len(all)):min(offset+10, len(all))]
				if !slices.Equal(ids, page) {
					t.Errorf("%s, %q, offset %d: %v, want %v", caller.name, search, offset, ids, page)
				}
			}
		}
	}
	// The common searches' totals are kept (migration 0034) from their
	// first count on: the totals above were read from the kept counts
	// for the callers after the first.
	var kept []string
	if err := db.Pool().QueryRow(ctx, `SELECT COALESCE(array_agg(array_to_string(words, ' ') ORDER BY array_to_string(words, ' ')), '{}') FROM search_kept WHERE kept`).Scan(&kept); err != nil {
		t.Fatal(err)
	}
	if want := []string{"alpha", "alpha pair", "late", "omega"}; !slices.Equal(kept, want) {
		t.Errorf("kept searches %q, want %q", kept, want)
	}
	// The pages of common words came from windows.
	var windows int64
	if err := db.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_prepared_statements
		WHERE statement LIKE 'WITH cand AS%' AND generic_plans + custom_plans > 0`).Scan(&windows); err != nil {
		t.Fatal(err)
	}
	if windows == 0 {
		t.Error("no search page was read from a window of the newest posts")
	}
}
