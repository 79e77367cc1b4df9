// Package storetest_test is the backend-neutral conformance suite: every
// test here runs on the backend storetest.Open selects (SQLite by default,
// PostgreSQL with FOLIO_TEST_DATABASE_URL), so both must pass it unchanged.
// The SQLite-only tests (pragmas, files, stored text) stay in
// internal/store/sqlite, the PostgreSQL-only ones in internal/store/postgres.
package storetest_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/sqlstore"
	"github.com/folio-server/folio/internal/store/storetest"
)

func at(y, m, d, h int) time.Time { return time.Date(y, time.Month(m), d, h, 0, 0, 0, time.UTC) }

func ptr[T any](v T) *T { return &v }

// fixturePosts is inserted in order, so post i+1 has id i+1.

func fixturePosts() []*store.Post {
	return []*store.Post{
		{Type: "post", Status: "publish", Author: 1, Title: "Alpha apple", Slug: "alpha", Content: "red fruit", Date: at(2020, 1, 1, 10), Modified: at(2021, 1, 5, 0)},
		{Type: "post", Status: "publish", Author: 2, Title: "beta Banana", Slug: "beta", Content: "yellow fruit", Date: at(2020, 2, 1, 10), Modified: at(2021, 1, 3, 0), Sticky: true},
		{Type: "post", Status: "draft", Author: 1, Title: "Gamma", Slug: "gamma", Content: "apple pie 100%", Date: at(2020, 2, 1, 10), Modified: at(2021, 1, 4, 0)},
		{Type: "post", Status: "private", Author: 2, Title: "delta", Slug: "delta", Excerpt: "Apple_Pie", Date: at(2021, 3, 15, 0), Modified: at(2021, 1, 1, 0)},
		{Type: "page", Status: "publish", Author: 1, MenuOrder: 2, Title: "About", Slug: "about", Date: at(2019, 5, 5, 0)},
		{Type: "page", Status: "publish", Author: 1, Parent: 5, MenuOrder: 1, Title: "Team", Slug: "team", Date: at(2019, 5, 6, 0)},
		{Type: "page", Status: "publish", Author: 2, Parent: 5, MenuOrder: 1, Title: "History", Slug: "history", Date: at(2019, 5, 6, 0)},
		{Type: "attachment", Status: "inherit", Author: 1, Parent: 1, Title: "photo", Slug: "photo", MimeType: "image/jpeg", Date: at(2020, 1, 1, 10)},
		{Type: "attachment", Status: "inherit", Author: 2, Title: "clip", Slug: "clip", MimeType: "video/mp4", Date: at(2020, 6, 1, 0)},
		{Type: "attachment", Status: "inherit", Author: 2, Title: "scan", Slug: "scan", MimeType: "application/pdf", Date: at(2020, 6, 1, 0)},
		{Type: "post", Status: "publish", Author: 3, Title: "Ünïcode Straße", Slug: "unicode", Content: "ÄPFEL", Date: at(2022, 1, 1, 0), Modified: at(2021, 1, 3, 0)},
		{Type: "post", Status: "draft", Author: 3, Title: "untitled"},
	}
}

func seedPosts(t *testing.T, db storetest.Store) {
	t.Helper()
	ctx := context.Background()
	for i, p := range fixturePosts() {
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
		if p.ID != int64(i+1) {
			t.Fatalf("post %d got id %d", i+1, p.ID)
		}
	}
}

func ids(ps []*store.Post) []int64 {
	out := []int64{}
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}

func TestListPostsFiltersAndOrders(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	seedPosts(t, db)
	ctx := context.Background()
	post := []string{"post"}
	page := []string{"page"}
	tests := []struct {
		name string
		q    store.PostQuery
		want []int64
	}{
		{"no filter: date desc, ties on id desc, zero date last", store.PostQuery{}, []int64{11, 4, 10, 9, 3, 2, 8, 1, 7, 6, 5, 12}},
		{"type and status", store.PostQuery{Types: post, Statuses: []string{"publish"}}, []int64{11, 2, 1}},
		{"several types", store.PostQuery{Types: []string{"page", "attachment"}, Order: "asc"}, []int64{5, 6, 7, 8, 9, 10}},
		{"date asc, ties on id asc", store.PostQuery{Types: post, Order: "asc"}, []int64{12, 1, 2, 3, 4, 11}},
		{"visibility public + own", store.PostQuery{Types: post, Visibility: &store.Visibility{Public: []string{"publish"}, Owner: 1, OwnStatuses: []string{"draft", "private"}}}, []int64{11, 3, 2, 1}},
		{"visibility public + others", store.PostQuery{Types: post, Visibility: &store.Visibility{Public: []string{"publish"}, OthersStatuses: []string{"private"}}}, []int64{11, 4, 2, 1}},
		{"visibility own without owner is ignored", store.PostQuery{Types: post, Visibility: &store.Visibility{OwnStatuses: []string{"draft"}}}, []int64{}},
		{"visibility empty allows nothing", store.PostQuery{Visibility: &store.Visibility{}}, []int64{}},
		{"statuses and visibility intersect", store.PostQuery{Types: post, Statuses: []string{"publish", "draft"}, Visibility: &store.Visibility{Public: []string{"publish"}}}, []int64{11, 2, 1}},
		{"search title, excerpt or content", store.PostQuery{Search: "apple"}, []int64{4, 3, 1}},
		{"search all words must match", store.PostQuery{Search: "  apple   PIE "}, []int64{4, 3}},
		{"search is case-insensitive", store.PostQuery{Search: "FRUIT"}, []int64{2, 1}},
		{"search percent is literal", store.PostQuery{Search: "100%"}, []int64{3}},
		{"search punctuation alone matches nothing", store.PostQuery{Search: "%"}, []int64{}},
		{"search underscore separates words", store.PostQuery{Search: "pie_apple"}, []int64{4, 3}},
		{"search word prefix", store.PostQuery{Search: "app fru"}, []int64{1}},
		{"search inside a word does not match", store.PostQuery{Search: "pple"}, []int64{}},
		{"search folds non-ASCII case", store.PostQuery{Search: "äpfel"}, []int64{11}},
		{"search non-ASCII in title", store.PostQuery{Search: "STRASSE ünïcode"}, []int64{}},
		{"search non-ASCII title word", store.PostQuery{Search: "straße ÜNÏCODE"}, []int64{11}},
		{"after is exclusive", store.PostQuery{After: ptr(at(2020, 2, 1, 10))}, []int64{11, 4, 10, 9}},
		{"before is exclusive", store.PostQuery{Before: ptr(at(2020, 1, 1, 10))}, []int64{7, 6, 5, 12}},
		{"after and before", store.PostQuery{After: ptr(at(2019, 12, 31, 0)), Before: ptr(at(2020, 6, 1, 0))}, []int64{3, 2, 8, 1}},
		{"authors", store.PostQuery{Authors: []int64{2}}, []int64{4, 10, 9, 2, 7}},
		{"several authors", store.PostQuery{Authors: []int64{2, 3}, Types: post}, []int64{11, 4, 2, 12}},
		{"author exclude", store.PostQuery{AuthorExclude: []int64{1, 2}}, []int64{11, 12}},
		{"author exclude one", store.PostQuery{AuthorExclude: []int64{1}, Types: post}, []int64{11, 4, 2, 12}},
		{"include, unknown ids match nothing", store.PostQuery{Include: []int64{3, 1, 99}}, []int64{3, 1}},
		{"orderby include keeps the given order", store.PostQuery{Include: []int64{5, 1, 3}, OrderBy: "include"}, []int64{5, 1, 3}},
		{"orderby include ignores order", store.PostQuery{Include: []int64{5, 1, 3}, OrderBy: "include", Order: "asc"}, []int64{5, 1, 3}},
		{"orderby include without include is date", store.PostQuery{Types: page, OrderBy: "include"}, []int64{7, 6, 5}},
		{"exclude", store.PostQuery{Types: post, Exclude: []int64{11, 12, 4}}, []int64{3, 2, 1}},
		{"exclude one", store.PostQuery{Types: post, Exclude: []int64{11}}, []int64{4, 3, 2, 1, 12}},
		{"parents", store.PostQuery{ParentsSet: true, Parents: []int64{5}}, []int64{7, 6}},
		{"parent 0", store.PostQuery{Types: []string{"attachment"}, ParentsSet: true, Parents: []int64{0}}, []int64{10, 9}},
		{"several parents", store.PostQuery{ParentsSet: true, Parents: []int64{1, 5}}, []int64{8, 7, 6}},
		{"explicit empty parents match nothing", store.PostQuery{ParentsSet: true}, []int64{}},
		{"parents without ParentsSet are ignored", store.PostQuery{Types: page, Parents: []int64{99}}, []int64{7, 6, 5}},
		{"parent exclude", store.PostQuery{ParentExclude: []int64{0}}, []int64{8, 7, 6}},
		{"slugs", store.PostQuery{Slugs: []string{"beta", "about", "nope"}}, []int64{2, 5}},
		{"one slug", store.PostQuery{Slugs: []string{"team"}}, []int64{6}},
		{"menu order", store.PostQuery{MenuOrder: ptr(int64(1))}, []int64{7, 6}},
		{"menu order 0", store.PostQuery{Types: page, MenuOrder: ptr(int64(0))}, []int64{}},
		{"mime type", store.PostQuery{MimeTypes: []string{"video/mp4"}}, []int64{9}},
		{"mime prefix", store.PostQuery{MimePrefixes: []string{"image/"}}, []int64{8}},
		{"mime prefixes", store.PostQuery{MimePrefixes: []string{"image/", "video/"}}, []int64{9, 8}},
		{"mime type and prefix both apply", store.PostQuery{MimeTypes: []string{"video/mp4"}, MimePrefixes: []string{"image/"}}, []int64{}},
		{"year", store.PostQuery{Year: 2020}, []int64{10, 9, 3, 2, 8, 1}},
		{"year and month", store.PostQuery{Year: 2020, Month: 2}, []int64{3, 2}},
		{"month alone", store.PostQuery{Month: 5}, []int64{7, 6, 5}},
		{"day alone", store.PostQuery{Day: 1}, []int64{11, 10, 9, 3, 2, 8, 1}},
		{"year month day", store.PostQuery{Year: 2020, Month: 6, Day: 1}, []int64{10, 9}},
		{"orderby id asc", store.PostQuery{Types: page, OrderBy: "id", Order: "asc"}, []int64{5, 6, 7}},
		{"orderby id desc", store.PostQuery{Types: page, OrderBy: "id"}, []int64{7, 6, 5}},
		{"orderby title asc, case-insensitive", store.PostQuery{Types: post, OrderBy: "title", Order: "asc"}, []int64{1, 2, 4, 3, 12, 11}},
		{"orderby title desc", store.PostQuery{Types: post, OrderBy: "title", Order: "desc"}, []int64{11, 12, 3, 4, 2, 1}},
		{"orderby slug", store.PostQuery{Types: page, OrderBy: "slug", Order: "asc"}, []int64{5, 7, 6}},
		{"orderby menu_order asc, ties on id asc", store.PostQuery{Types: page, OrderBy: "menu_order", Order: "asc"}, []int64{6, 7, 5}},
		{"orderby menu_order desc, ties on id desc", store.PostQuery{Types: page, OrderBy: "menu_order", Order: "desc"}, []int64{5, 7, 6}},
		{"orderby modified desc", store.PostQuery{Types: post, OrderBy: "modified"}, []int64{1, 3, 11, 2, 4, 12}},
		{"orderby modified asc", store.PostQuery{Types: post, OrderBy: "modified", Order: "asc"}, []int64{12, 4, 2, 11, 3, 1}},
		{"orderby parent asc", store.PostQuery{Types: page, OrderBy: "parent", Order: "asc"}, []int64{5, 6, 7}},
		{"orderby parent desc", store.PostQuery{Types: page, OrderBy: "parent", Order: "desc"}, []int64{7, 6, 5}},
		{"orderby author asc", store.PostQuery{Types: post, OrderBy: "author", Order: "asc"}, []int64{1, 3, 2, 4, 11, 12}},
		{"sticky first", store.PostQuery{Types: post, Statuses: []string{"publish"}, StickyFirst: true}, []int64{2, 11, 1}},
		{"sticky first with asc order", store.PostQuery{Types: post, StickyFirst: true, Order: "asc"}, []int64{2, 12, 1, 3, 4, 11}},
		{"limit and offset", store.PostQuery{Types: post, Limit: 2, Offset: 1}, []int64{4, 3}},
		{"offset without limit", store.PostQuery{Types: post, Offset: 4}, []int64{1, 12}},
		{"offset past the end", store.PostQuery{Types: post, Offset: 40, Limit: 5}, []int64{}},
		{"limit", store.PostQuery{Limit: 3}, []int64{11, 4, 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.ListPosts(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ids(got), tt.want) {
				t.Errorf("ListPosts = %v, want %v", ids(got), tt.want)
			}
			// CountPosts counts every match, ignoring the page.
			all := tt.q
			all.Limit, all.Offset = 0, 0
			full, err := db.ListPosts(ctx, all)
			if err != nil {
				t.Fatal(err)
			}
			n, err := db.CountPosts(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if n != int64(len(full)) {
				t.Errorf("CountPosts = %d, want %d", n, len(full))
			}
		})
	}
}

func TestPostRoundTripKeepsEveryField(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	in := &store.Post{
		Type: "post", Status: "future", Author: 7, Parent: 3, MenuOrder: -2,
		Title: "T", Content: "C", Excerpt: "E", Slug: "s", Password: "pw", GUID: "http://x/?p=1",
		Date: at(2030, 1, 2, 3), DateGMT: at(2030, 1, 2, 2), Modified: at(2029, 12, 31, 23),
		ModifiedGMT: at(2029, 12, 31, 22), CommentStatus: "closed", PingStatus: "open",
		Sticky: true, Format: "aside", Template: "wide.php", FeaturedMedia: 42,
		MimeType: "text/plain", CommentCount: 9, PreTrashStatus: "draft",
	}
	if err := db.InsertPost(ctx, in); err != nil {
		t.Fatal(err)
	}
	got, err := db.GetPost(ctx, in.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, in) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, in)
	}

	// Update writes every column but comment_count (kept by the comment
	// writes), including back to zero values.
	upd := &store.Post{ID: in.ID, Type: "page", Status: "draft", CommentCount: in.CommentCount}
	if err := db.UpdatePost(ctx, upd); err != nil {
		t.Fatal(err)
	}
	got, err = db.GetPost(ctx, in.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, upd) {
		t.Fatalf("after update:\n got %+v\nwant %+v", got, upd)
	}
	if !got.DateGMT.IsZero() || !got.Date.IsZero() {
		t.Fatalf("zero dates read back as %v / %v", got.Date, got.DateGMT)
	}
}

func TestPostErrors(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	p := &store.Post{Type: "post"}
	if err := db.InsertPost(ctx, p); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"get missing", func() error { _, err := db.GetPost(ctx, 99); return err }(), store.ErrNotFound},
		{"update missing", db.UpdatePost(ctx, &store.Post{ID: 99}), store.ErrNotFound},
		{"delete missing", db.DeletePost(ctx, 99), store.ErrNotFound},
		{"insert with id", db.InsertPost(ctx, &store.Post{ID: 5}), nil},
		{"delete", db.DeletePost(ctx, p.ID), nil},
		{"get deleted", func() error { _, err := db.GetPost(ctx, p.ID); return err }(), store.ErrNotFound},
	}
	for _, tt := range tests {
		switch {
		case tt.name == "insert with id":
			if tt.err == nil {
				t.Errorf("%s: no error", tt.name)
			}
		case tt.want == nil:
			if tt.err != nil {
				t.Errorf("%s: %v", tt.name, tt.err)
			}
		case !errors.Is(tt.err, tt.want):
			t.Errorf("%s: %v, want %v", tt.name, tt.err, tt.want)
		}
	}
}

func TestGetPosts(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	seedPosts(t, db)
	ctx := context.Background()
	got, err := db.GetPosts(ctx, []int64{2, 5, 99, 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[2].Slug != "beta" || got[5].Slug != "about" {
		t.Fatalf("GetPosts = %v", got)
	}
	if _, ok := got[99]; ok {
		t.Fatal("missing id present")
	}
}

func TestSlugTaken(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	seedPosts(t, db)
	ctx := context.Background()
	tests := []struct {
		name   string
		slug   string
		types  []string
		parent int64
		except int64
		want   bool
	}{
		{"published post", "alpha", []string{"post"}, -1, 0, true},
		{"except itself", "alpha", []string{"post"}, -1, 1, false},
		{"other type", "alpha", []string{"page"}, -1, 0, false},
		{"drafts do not count", "gamma", []string{"post"}, -1, 0, false},
		{"private counts", "delta", []string{"post"}, -1, 0, true},
		{"same parent", "team", []string{"page"}, 5, 0, true},
		{"other parent", "team", []string{"page"}, 0, 0, false},
		{"any type", "photo", nil, -1, 0, true},
		{"unused", "nope", []string{"post", "page"}, -1, 0, false},
	}
	for _, tt := range tests {
		taken, err := db.SlugsTaken(ctx, []string{tt.slug}, tt.types, tt.parent, tt.except)
		if err != nil {
			t.Fatal(err)
		}
		if got := taken[tt.slug]; got != tt.want {
			t.Errorf("%s: SlugsTaken[%s] = %v, want %v", tt.name, tt.slug, got, tt.want)
		}
		// SlugsTaken agrees, asked along with an unused slug.
		set, err := db.SlugsTaken(ctx, []string{"nope-nope", tt.slug}, tt.types, tt.parent, tt.except)
		if err != nil {
			t.Fatal(err)
		}
		if set[tt.slug] != tt.want || set["nope-nope"] || len(set) > 1 {
			t.Errorf("%s: SlugsTaken = %v, want %s taken: %v", tt.name, set, tt.slug, tt.want)
		}
	}
	if set, err := db.SlugsTaken(ctx, nil, nil, -1, 0); err != nil || len(set) != 0 {
		t.Fatalf("no slugs: %v (%v)", set, err)
	}
}

func TestFreeSlug(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	add := func(slug, typ, status string, parent int64) int64 {
		t.Helper()
		p := &store.Post{Type: typ, Status: status, Slug: slug, Parent: parent}
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
		return p.ID
	}
	var queries int64 // the statements of the last free
	free := func(base string, types []string, parent, except int64, reserved bool) string {
		t.Helper()
		var got string
		err := db.Tx(ctx, func(tx store.Store) error {
			before := db.Statements()
			var err error
			got, err = tx.FreeSlug(ctx, base, types, parent, except, reserved)
			queries = db.Statements() - before
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	post := []string{"post"}
	if got := free("walk", post, -1, 0, false); got != "walk" {
		t.Fatalf("unused base: %q", got)
	}
	if got := free("feed", post, -1, 0, true); got != "feed-2" {
		t.Fatalf("reserved base: %q, want feed-2", got)
	}
	add("walk", "post", "publish", 0)
	add("walk-2", "post", "publish", 0)
	self := add("walk-3", "post", "private", 0)
	add("walk-4", "post", "draft", 0)    // drafts do not count
	add("walk-5", "page", "publish", 0)  // another type
	add("walk-6", "post", "publish", 7)  // another parent
	add("walk-07", "post", "publish", 0) // a leading zero: not a suffix
	add("walk-5x", "post", "publish", 0) // not a number
	add("walk-in-9", "post", "publish", 0)
	add("walks-10", "post", "publish", 0) // another base
	add("walk-1", "post", "publish", 0)   // 1 is no candidate
	tests := []struct {
		name   string
		types  []string
		parent int64
		except int64
		// reserved: a suffix even when no other post holds base
		reserved bool
		want     string
	}{
		{"posts", post, -1, 0, false, "walk-4"},
		{"posts except one", post, -1, self, false, "walk-3"},
		{"pages", []string{"page"}, -1, 0, false, "walk"},
		{"pages, reserved", []string{"page"}, -1, 0, true, "walk-2"},
		{"pages and posts", []string{"page", "post"}, -1, 0, false, "walk-4"},
		{"any type", nil, -1, 0, false, "walk-4"},
		{"under parent 7", post, 7, 0, false, "walk"},
		{"under parent 7, reserved", post, 7, 0, true, "walk-2"},
		{"under parent 0", post, 0, 0, false, "walk-4"},
	}
	for _, tt := range tests {
		if got := free("walk", tt.types, tt.parent, tt.except, tt.reserved); got != tt.want {
			t.Errorf("%s: FreeSlug = %q, want %q", tt.name, got, tt.want)
		}
	}
	// The least free suffix past every length that is full (2 to 9, then
	// 10 to 99 and 100 to 199), past more than one read's worth of a
	// length, and past slugs of the same length that are no suffix.
	for n := 2; n < 200; n++ {
		add(fmt.Sprintf("run-%d", n), "post", "publish", 0)
	}
	add("run-1x2", "post", "publish", 0)
	add("run-12x", "post", "publish", 0)
	add("run-250", "post", "publish", 0)
	if got := free("run", post, -1, 0, false); got != "run" {
		t.Fatalf("run: %q", got)
	}
	add("run", "post", "publish", 0)
	if got := free("run", post, -1, 0, false); got != "run-200" || queries < 4 {
		t.Fatalf("run: %q in %d queries, want run-200 in 4 or more", got, queries)
	}
	// Each next new post reads from where the last one found its suffix:
	// one query, also from one length to the next (9 to 10, 99 to 100).
	// SQLite's single writer asks first for a base it has found no
	// suffix of (the base alone, one lookup): one more for cross-2.
	add("cross", "post", "publish", 0)
	for n := 2; n <= 101; n++ {
		got := free("cross", post, -1, 0, false)
		wantQueries := int64(1)
		if n == 2 && storetest.Backend() == "sqlite" {
			wantQueries = 2
		}
		if want := fmt.Sprintf("cross-%d", n); got != want || queries != wantQueries {
			t.Fatalf("cross: %q in %d queries, want %q in %d", got, queries, want, wantQueries)
		}
		add(got, "post", "publish", 0)
	}
	// The query reads the next length too only when what is left of the
	// hint's length fits in one read (the 2 to 9 above, cross-36 to
	// cross-99): from cross-102 it reads the three-digit ones alone.
	planner, ok := db.(interface {
		Plans(context.Context, func(context.Context) error) ([]sqlstore.Plan, error)
	})
	if !ok {
		t.Fatalf("%T records no plans", db)
	}
	lengthsRead := func(base string) int {
		t.Helper()
		plans, err := planner.Plans(ctx, func(ctx context.Context) error {
			return db.Tx(ctx, func(tx store.Store) error {
				_, err := tx.FreeSlug(ctx, base, post, -1, 0, false)
				return err
			})
		})
		// On SQLite the first one, for a base this process has found
		// no suffix of, asks for the base alone.
		if err != nil || len(plans) != 1 && (storetest.Backend() != "sqlite" || len(plans) != 2) {
			t.Fatalf("%s: %d queries, %v", base, len(plans), err)
		}
		return strings.Count(plans[len(plans)-1].SQL, "length(slug) =")
	}
	if n := lengthsRead("cross"); n != 1 {
		t.Errorf("cross-102: the query reads %d lengths, want 1", n)
	}
	add("lone", "post", "publish", 0)
	if n := lengthsRead("lone"); n != 2 {
		t.Errorf("lone-2: the query reads %d lengths, want 2 (2 to 9 and 10 to 99)", n)
	}
	// Suffixes taken here and there, as an import or a seeded site leaves
	// them: the least free one each time, in one query once the first
	// new post has found where to begin.
	add("scatter", "post", "publish", 0)
	for _, n := range []int{2, 3, 4} {
		add(fmt.Sprintf("scatter-%d", n), "post", "publish", 0)
	}
	for n := 7; n < 200; n += 2 {
		add(fmt.Sprintf("scatter-%d", n), "post", "publish", 0)
	}
	for i, want := range []string{"scatter-5", "scatter-6", "scatter-8", "scatter-10"} {
		got := free("scatter", post, -1, 0, false)
		if got != want || (i > 0 && queries != 1) {
			t.Fatalf("scatter: %q in %d queries, want %q (in 1 after the first)", got, queries, want)
		}
		add(got, "post", "publish", 0)
	}
	// A new post takes it; the next one reads on from there (one query),
	// and an update or delete of a post makes it read from the start
	// again.
	add("run-200", "post", "publish", 0)
	if got := free("run", post, -1, 0, false); got != "run-201" || queries != 1 {
		t.Fatalf("run after run-200: %q in %d queries, want run-201 in 1", got, queries)
	}
	gone := add("run-201", "post", "publish", 0)
	var five int64
	err := db.Tx(ctx, func(tx store.Store) error {
		ps, err := tx.ListPosts(ctx, store.PostQuery{Slugs: []string{"run-5"}, Limit: 1})
		if err != nil || len(ps) != 1 {
			return fmt.Errorf("run-5: %v (%d posts)", err, len(ps))
		}
		five = ps[0].ID
		return tx.DeletePost(ctx, five)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := free("run", post, -1, 0, false); got != "run-5" {
		t.Fatalf("after run-5 was deleted: %q, want run-5", got)
	}
	add("run-5", "post", "publish", 0)
	if got := free("run", post, -1, 0, false); got != "run-202" {
		t.Fatalf("run after run-5: %q, want run-202", got)
	}
	p, err := db.GetPost(ctx, gone)
	if err != nil {
		t.Fatal(err)
	}
	p.Status = "draft" // no longer holds its slug
	if err := db.UpdatePost(ctx, p); err != nil {
		t.Fatal(err)
	}
	if got := free("run", post, -1, 0, false); got != "run-201" {
		t.Fatalf("after run-201 became a draft: %q, want run-201", got)
	}
	// A delete forgets even when its transaction rolls back: the next
	// new post reads from the start again, and finds the same suffix.
	add("run-201", "post", "publish", 0)
	if got := free("run", post, -1, 0, false); got != "run-202" {
		t.Fatalf("run: %q, want run-202", got)
	}
	if got := free("run", post, -1, 0, false); got != "run-202" || queries != 1 {
		t.Fatalf("run again: %q in %d queries, want run-202 in 1", got, queries)
	}
	_ = db.Tx(ctx, func(tx store.Store) error {
		p, err := tx.GetPost(ctx, gone)
		if err != nil {
			return err
		}
		if err := tx.DeletePost(ctx, p.ID); err != nil {
			return err
		}
		return errors.New("roll back")
	})
	if got := free("run", post, -1, 0, false); got != "run-202" || queries < 2 {
		t.Fatalf("after a rolled-back delete: %q in %d queries, want run-202 read from the start", got, queries)
	}
}

// TestFreeSlugHintsOutliveTheProcess: what one process learnt of a base's
// suffixes (slug_hints) spares another process, or the same after a
// restart, the walk from base-2; a delete or an update that frees a suffix
// in any process makes a process that remembers nothing find it again.
func TestFreeSlugHintsOutliveTheProcess(t *testing.T) {
	t.Parallel()
	dbs := storetest.OpenN(t, 5)
	a := dbs[0]
	ctx := context.Background()
	post := []string{"post"}
	ids := map[string]int64{}
	add := func(db store.Store, slug string) {
		t.Helper()
		p := &store.Post{Type: "post", Status: "publish", Slug: slug}
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
		ids[slug] = p.ID
	}
	// create takes the free slug of "same" and a post with it, in one
	// transaction, as a create does; it returns the slug and the
	// statements FreeSlug ran.
	create := func(db storetest.Store) (string, int64) {
		t.Helper()
		var got string
		var queries int64
		err := db.Tx(ctx, func(tx store.Store) error {
			before := db.Statements()
			var err error
			if got, err = tx.FreeSlug(ctx, "same", post, -1, 0, false); err != nil {
				return err
			}
			queries = db.Statements() - before
			p := &store.Post{Type: "post", Status: "publish", Slug: got}
			if err := tx.InsertPost(ctx, p); err != nil {
				return err
			}
			ids[got] = p.ID
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got, queries
	}
	add(a, "same")
	for n := 2; n <= 300; n++ {
		add(a, fmt.Sprintf("same-%d", n))
	}
	if got, q := create(a); got != "same-301" || q < 5 {
		t.Fatalf("first create: %q in %d queries, want same-301 walked from same-2 (5 or more)", got, q)
	}
	// Another process (or this one restarted) starts where the first
	// stopped: the hint comes with its first query (on SQLite after the
	// single writer's lookup of the base alone, which it finds taken).
	b := dbs[1]
	wantQueries := int64(2)
	if storetest.Backend() == "sqlite" {
		wantQueries = 3
	}
	if got, q := create(b); got != "same-302" || q != wantQueries {
		t.Fatalf("another process: %q in %d queries, want same-302 in %d", got, q, wantQueries)
	}
	if got, q := create(b); got != "same-303" || q != 1 {
		t.Fatalf("again: %q in %d queries, want same-303 in 1", got, q)
	}
	// A suffix freed by a delete, in any process, is found again by a
	// process that remembers nothing.
	if err := a.DeletePost(ctx, ids["same-150"]); err != nil {
		t.Fatal(err)
	}
	if got, _ := create(dbs[2]); got != "same-150" {
		t.Fatalf("after same-150 was deleted: %q, want same-150", got)
	}
	// The same for an update that gives a post another slug, and one that
	// makes it a draft.
	for i, slug := range []string{"same-77", "same-9"} {
		p, err := a.GetPost(ctx, ids[slug])
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			p.Slug = "elsewhere"
		} else {
			p.Status = "draft"
		}
		if err := a.UpdatePost(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	fresh := dbs[3]
	if got, _ := create(fresh); got != "same-9" {
		t.Fatalf("after same-9 became a draft: %q, want same-9", got)
	}
	if got, _ := create(fresh); got != "same-77" {
		t.Fatalf("after same-77 took another slug: %q, want same-77", got)
	}
	// What does not free a suffix keeps the hint: an edit of a post's
	// text, a post of another base deleted.
	p, err := a.GetPost(ctx, ids["same-200"])
	if err != nil {
		t.Fatal(err)
	}
	p.Title = "Edited"
	if err := a.UpdatePost(ctx, p); err != nil {
		t.Fatal(err)
	}
	add(a, "other-2")
	if err := a.DeletePost(ctx, ids["other-2"]); err != nil {
		t.Fatal(err)
	}
	for n := 304; n <= 370; n++ { // past slugSuffixRows: written again
		if got, _ := create(fresh); got != fmt.Sprintf("same-%d", n) {
			t.Fatalf("create %d: %q", n, got)
		}
	}
	if got, q := create(dbs[4]); got != "same-371" || q != wantQueries {
		t.Fatalf("a last process: %q in %d queries, want same-371 in %d", got, q, wantQueries)
	}
}

func TestAuthorsWithPublished(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	seedPosts(t, db)
	ctx := context.Background()
	tests := []struct {
		name    string
		authors []int64
		types   []string
		want    map[int64]bool
	}{
		{"posts", []int64{1, 2, 3, 4}, []string{"post"}, map[int64]bool{1: true, 2: true, 3: true, 4: false}},
		{"posts and pages", []int64{1, 2}, []string{"post", "page"}, map[int64]bool{1: true, 2: true}},
		{"pages only", []int64{1, 2, 3}, []string{"page"}, map[int64]bool{1: true, 2: true, 3: false}},
		{"any type", []int64{2, 4}, nil, map[int64]bool{2: true, 4: false}},
		{"no authors", nil, []string{"post"}, map[int64]bool{}},
	}
	for _, tt := range tests {
		got, err := db.AuthorsWithPublished(ctx, tt.authors, tt.types)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func fixtureUsers() []*store.User {
	return []*store.User{
		{Login: "admin", Email: "admin@example.com", DisplayName: "Zed Admin", Nicename: "admin", URL: "https://admin.example", Registered: at(2020, 1, 1, 0), Roles: []string{"administrator"}},
		{Login: "ed", Email: "ed@example.org", DisplayName: "alice Editor", Nicename: "ed-nice", Registered: at(2021, 1, 1, 0), Roles: []string{"editor", "author"}},
		{Login: "42", Email: "num@example.net", DisplayName: "Bob", Nicename: "bob", Registered: at(2021, 1, 1, 0), Roles: []string{"subscriber"}},
		{Login: "jörg", Email: "", DisplayName: "Jörg Über", Nicename: "joerg", Registered: at(2019, 6, 1, 0)},
		{Login: "writer", Email: "w@example.com", DisplayName: "bob", Nicename: "writer", Registered: at(2022, 1, 1, 0), Roles: []string{"author"}, Caps: map[string]bool{"upload_files": false, "edit_pages": true}},
	}
}

func seedUsers(t *testing.T, db storetest.Store) {
	t.Helper()
	ctx := context.Background()
	for i, u := range fixtureUsers() {
		if err := db.InsertUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		if u.ID != int64(i+1) {
			t.Fatalf("user %d got id %d", i+1, u.ID)
		}
	}
}

func userIDs(us []*store.User) []int64 {
	out := []int64{}
	for _, u := range us {
		out = append(out, u.ID)
	}
	return out
}

func TestListUsersFiltersAndOrders(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	seedUsers(t, db)
	ctx := context.Background()
	// User 2 and 5 published posts, user 1 only a draft, user 3 a page.
	for _, p := range []*store.Post{
		{Type: "post", Status: "publish", Author: 2},
		{Type: "post", Status: "publish", Author: 5},
		{Type: "post", Status: "draft", Author: 1},
		{Type: "page", Status: "publish", Author: 3},
	} {
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		q    store.UserQuery
		want []int64
	}{
		{"default: name asc, case-insensitive, ties on id", store.UserQuery{}, []int64{2, 3, 5, 4, 1}},
		{"name desc", store.UserQuery{OrderBy: "name", Order: "desc"}, []int64{1, 4, 5, 3, 2}},
		{"id", store.UserQuery{OrderBy: "id"}, []int64{1, 2, 3, 4, 5}},
		{"id desc", store.UserQuery{OrderBy: "id", Order: "desc"}, []int64{5, 4, 3, 2, 1}},
		{"registered_date, ties on id", store.UserQuery{OrderBy: "registered_date"}, []int64{4, 1, 2, 3, 5}},
		{"registered_date desc", store.UserQuery{OrderBy: "registered_date", Order: "desc"}, []int64{5, 3, 2, 1, 4}},
		{"slug", store.UserQuery{OrderBy: "slug"}, []int64{1, 3, 2, 4, 5}},
		{"email", store.UserQuery{OrderBy: "email"}, []int64{4, 1, 2, 3, 5}},
		{"include order", store.UserQuery{Include: []int64{3, 1, 9}, OrderBy: "include"}, []int64{3, 1}},
		{"include", store.UserQuery{Include: []int64{3, 1}}, []int64{3, 1}},
		{"exclude", store.UserQuery{Exclude: []int64{1, 2}, OrderBy: "id"}, []int64{3, 4, 5}},
		{"slugs", store.UserQuery{Slugs: []string{"bob", "writer", "none"}, OrderBy: "id"}, []int64{3, 5}},
		{"roles: any of", store.UserQuery{Roles: []string{"author", "administrator"}, OrderBy: "id"}, []int64{1, 2, 5}},
		{"unknown role", store.UserQuery{Roles: []string{"ghost"}}, []int64{}},
		{"has published posts", store.UserQuery{HasPublishedOfTypes: []string{"post"}, OrderBy: "id"}, []int64{2, 5}},
		{"has published posts or pages", store.UserQuery{HasPublishedOfTypes: []string{"post", "page"}, OrderBy: "id"}, []int64{2, 3, 5}},
		{"search login", store.UserQuery{Search: "WRIT", SearchAccounts: true, OrderBy: "id"}, []int64{5}},
		{"search email", store.UserQuery{Search: "example.org", SearchAccounts: true}, []int64{2}},
		{"search without accounts skips email", store.UserQuery{Search: "example.org"}, []int64{}},
		{"search url", store.UserQuery{Search: "admin.example"}, []int64{1}},
		{"search nicename", store.UserQuery{Search: "ed-ni"}, []int64{2}},
		{"search display name", store.UserQuery{Search: "editor"}, []int64{2}},
		{"search non-ASCII folds case", store.UserQuery{Search: "ÜBER"}, []int64{4}},
		{"search numeric also matches id", store.UserQuery{Search: "4", SearchAccounts: true, OrderBy: "id"}, []int64{3, 4}},
		{"search numeric without accounts matches id", store.UserQuery{Search: "4", OrderBy: "id"}, []int64{4}},
		{"search substring spans words", store.UserQuery{Search: "ice Ed"}, []int64{2}},
		{"search percent literal", store.UserQuery{Search: "%"}, []int64{}},
		{"limit offset", store.UserQuery{OrderBy: "id", Limit: 2, Offset: 1}, []int64{2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.ListUsers(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(userIDs(got), tt.want) {
				t.Errorf("ListUsers = %v, want %v", userIDs(got), tt.want)
			}
			all := tt.q
			all.Limit, all.Offset = 0, 0
			full, err := db.ListUsers(ctx, all)
			if err != nil {
				t.Fatal(err)
			}
			n, err := db.CountUsers(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if n != int64(len(full)) {
				t.Errorf("CountUsers = %d, want %d", n, len(full))
			}
		})
	}
}

func TestUserRoundTripAndLookups(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	seedUsers(t, db)
	ctx := context.Background()
	want := fixtureUsers()[4]
	want.ID = 5
	lookups := []struct {
		name string
		get  func() (*store.User, error)
	}{
		{"id", func() (*store.User, error) { return db.GetUser(ctx, 5) }},
		{"login, any case", func() (*store.User, error) { return db.GetUserByLogin(ctx, "WRITER") }},
		{"email, any case", func() (*store.User, error) { return db.GetUserByEmail(ctx, "W@Example.com") }},
		{"slug", func() (*store.User, error) { return db.GetUserBySlug(ctx, "writer") }},
		{"batch", func() (*store.User, error) {
			m, err := db.GetUsers(ctx, []int64{5, 77})
			if len(m) != 1 {
				return nil, errors.New("GetUsers returned a missing id")
			}
			return m[5], err
		}},
	}
	for _, l := range lookups {
		got, err := l.get()
		if err != nil {
			t.Fatalf("%s: %v", l.name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", l.name, got, want)
		}
	}
	// Role order is kept; no roles and no caps read back as empty.
	ed, err := db.GetUser(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ed.Roles, []string{"editor", "author"}) || len(ed.Caps) != 0 || ed.Caps == nil {
		t.Errorf("user 2 roles %v caps %v", ed.Roles, ed.Caps)
	}
	jorg, err := db.GetUser(ctx, 4)
	if err != nil {
		t.Fatal(err)
	}
	if jorg.Roles == nil || len(jorg.Roles) != 0 {
		t.Errorf("user 4 roles = %#v, want empty", jorg.Roles)
	}

	missing := []struct {
		name string
		get  func() (*store.User, error)
	}{
		{"id", func() (*store.User, error) { return db.GetUser(ctx, 99) }},
		{"login", func() (*store.User, error) { return db.GetUserByLogin(ctx, "nobody") }},
		{"email", func() (*store.User, error) { return db.GetUserByEmail(ctx, "no@x") }},
		{"empty email", func() (*store.User, error) { return db.GetUserByEmail(ctx, "") }},
		{"slug", func() (*store.User, error) { return db.GetUserBySlug(ctx, "nobody") }},
	}
	for _, l := range missing {
		if _, err := l.get(); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("missing %s: %v, want ErrNotFound", l.name, err)
		}
	}
}

func TestUserConflicts(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	seedUsers(t, db)
	ctx := context.Background()
	tests := []struct {
		name string
		u    store.User
		want error
	}{
		{"login taken, other case", store.User{Login: "ADMIN", Email: "x1@x", Nicename: "x1"}, store.ErrConflict},
		{"email taken, other case", store.User{Login: "x2", Email: "Admin@Example.com", Nicename: "x2"}, store.ErrConflict},
		{"nicename taken", store.User{Login: "x3", Email: "x3@x", Nicename: "bob"}, store.ErrConflict},
		{"empty email may repeat", store.User{Login: "x4", Nicename: "x4"}, nil},
	}
	for _, tt := range tests {
		u := tt.u
		err := db.InsertUser(ctx, &u)
		if !errors.Is(err, tt.want) {
			t.Errorf("insert %s: %v, want %v", tt.name, err, tt.want)
		}
		if tt.want != nil && u.ID != 0 {
			t.Errorf("insert %s: failed insert set id %d", tt.name, u.ID)
		}
	}
	// Update conflicts too, and leaves the row as it was.
	bob, err := db.GetUser(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	bob.Email = "ED@example.org"
	if err := db.UpdateUser(ctx, bob); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("update to a taken email: %v", err)
	}
	again, err := db.GetUser(ctx, 3)
	if err != nil || again.Email != "num@example.net" {
		t.Fatalf("after failed update: %+v, %v", again, err)
	}
	if err := db.UpdateUser(ctx, &store.User{ID: 99, Login: "q", Nicename: "q"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("update missing: %v", err)
	}
}

func TestUpdateUserReplacesGrants(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	seedUsers(t, db)
	ctx := context.Background()
	u, err := db.GetUser(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	u.Roles = []string{"subscriber", "contributor"}
	u.Caps = map[string]bool{"moderate_comments": true}
	u.DisplayName = "New"
	u.Registered = time.Time{}
	if err := db.UpdateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	got, err := db.GetUser(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, u) {
		t.Fatalf("got %+v\nwant %+v", got, u)
	}
	tests := []struct {
		role string
		want int64
	}{{"author", 1}, {"subscriber", 2}, {"contributor", 1}, {"administrator", 1}, {"ghost", 0}}
	for _, tt := range tests {
		n, err := db.CountUsersWithRole(ctx, tt.role)
		if err != nil || n != tt.want {
			t.Errorf("CountUsersWithRole(%s) = %d, %v; want %d", tt.role, n, err, tt.want)
		}
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	if _, err := db.GetOption(ctx, "secret"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unset option: %v", err)
	}
	steps := []struct {
		name string
		do   func() (string, error)
		want string
	}{
		{"add new", func() (string, error) { return db.AddOption(ctx, "secret", "first") }, "first"},
		{"add existing keeps the first", func() (string, error) { return db.AddOption(ctx, "secret", "second") }, "first"},
		{"get", func() (string, error) { return db.GetOption(ctx, "secret") }, "first"},
		{"set replaces", func() (string, error) {
			if err := db.SetOption(ctx, "secret", "third"); err != nil {
				return "", err
			}
			return db.GetOption(ctx, "secret")
		}, "third"},
		{"set new", func() (string, error) {
			if err := db.SetOption(ctx, "other", ""); err != nil {
				return "", err
			}
			return db.GetOption(ctx, "other")
		}, ""},
	}
	for _, st := range steps {
		got, err := st.do()
		if err != nil || got != st.want {
			t.Errorf("%s: %q, %v; want %q", st.name, got, err, st.want)
		}
	}
}

func TestAddOptionRaceHasOneWinner(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	const n = 8
	got := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			got[i], errs[i] = db.AddOption(ctx, "nonce_key", string(rune('a'+i)))
		}(i)
	}
	wg.Wait()
	for i := 0; i < n; i++ {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if got[i] != got[0] {
			t.Fatalf("writers saw different values: %v", got)
		}
	}
}

func TestAppPasswords(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	u := &store.User{Login: "u", Nicename: "u"}
	if err := db.InsertUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	a := &store.AppPassword{UUID: "uuid-a", UserID: u.ID, Name: "phone", Hash: "h1", Created: at(2024, 1, 1, 0)}
	b := &store.AppPassword{UUID: "uuid-b", UserID: u.ID, Name: "laptop", Hash: "h2", Created: at(2024, 2, 1, 0)}
	for _, p := range []*store.AppPassword{a, b} {
		if err := db.InsertAppPassword(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.InsertAppPassword(ctx, &store.AppPassword{UUID: "uuid-a", UserID: u.ID, Hash: "x"}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("duplicate uuid: %v", err)
	}
	if err := db.InsertAppPassword(ctx, &store.AppPassword{UUID: "uuid-c", UserID: 99, Hash: "x"}); err == nil {
		t.Fatal("password for a missing user was stored")
	}
	list, err := db.ListAppPasswords(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(list, []*store.AppPassword{a, b}) {
		t.Fatalf("list = %+v", list)
	}
	if list[0].LastUsed != (time.Time{}) {
		t.Fatal("never-used password has a last-used time")
	}

	used := time.Date(2024, 3, 1, 12, 30, 0, 0, time.UTC)
	if err := db.TouchAppPassword(ctx, a.ID, used, "10.0.0.1"); err != nil {
		t.Fatal(err)
	}
	if err := db.TouchAppPassword(ctx, 999, used, "x"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("touch missing: %v", err)
	}
	list, err = db.ListAppPasswords(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !list[0].LastUsed.Equal(used) || list[0].LastIP != "10.0.0.1" {
		t.Fatalf("after touch: %+v", list[0])
	}

	// Basic authentication's one read: the user by login, ASCII
	// case-insensitively, with the same passwords as the list, and the
	// sign-in counter of a key as LoginCounters reads it.
	both, ok := db.(store.UserAppPasswordsStore)
	if !ok {
		t.Fatalf("%T does not load a user with the passwords", db)
	}
	counted := store.LoginCounter{Key: "pair:u", Failures: 3,
		Last: time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC), Next: time.Date(2024, 3, 1, 12, 5, 0, 0, time.UTC)}
	if err := db.UpdateLoginCounters(ctx, []string{counted.Key}, func([]store.LoginCounter) []store.LoginCounter {
		return []store.LoginCounter{counted}
	}); err != nil {
		t.Fatal(err)
	}
	read, err := db.LoginCounters(ctx, []string{counted.Key})
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{counted.Key, "pair:none", ""} {
		r, err := both.GetUserAppPasswords(ctx, "U", key)
		if err != nil {
			t.Fatal(err)
		}
		got, apps, c := r.User, r.Apps, r.Counter
		if got.ID != u.ID || got.Login != "u" || !reflect.DeepEqual(apps, list) {
			t.Fatalf("key %q: user and passwords = %+v, %+v; want user %d, %+v", key, got, apps, u.ID, list)
		}
		want := store.LoginCounter{Key: key}
		if key == counted.Key {
			want = read[0]
			if want.Failures != 3 || !want.Next.Equal(counted.Next) {
				t.Fatalf("LoginCounters = %+v, want %+v", want, counted)
			}
		}
		if !reflect.DeepEqual(c, want) {
			t.Fatalf("key %q: counter = %+v, want %+v", key, c, want)
		}
	}
	lone := &store.User{Login: "lone", Nicename: "lone"}
	if err := db.InsertUser(ctx, lone); err != nil {
		t.Fatal(err)
	}
	alone, err := both.GetUserAppPasswords(ctx, "lone", counted.Key)
	if err != nil || alone.User.ID != lone.ID || alone.Apps == nil || len(alone.Apps) != 0 || !reflect.DeepEqual(alone.Counter, read[0]) {
		t.Fatalf("user without passwords = %+v, %v", alone, err)
	}
	if _, err := both.GetUserAppPasswords(ctx, "nobody", counted.Key); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown login: %v", err)
	}
	// The generation comes with them, and alone with the counter.
	gen, c, err := both.AuthGeneration(ctx, counted.Key)
	if err != nil || gen.Auth != alone.Generation || gen.Site != alone.Site || gen.Site == 0 || !reflect.DeepEqual(c, read[0]) {
		t.Fatalf("AuthGeneration = %+v, %+v, %v; want {%d %d}, %+v", gen, c, err, alone.Generation, alone.Site, read[0])
	}
	if _, c, err := both.AuthGeneration(ctx, "pair:none"); err != nil || !reflect.DeepEqual(c, store.LoginCounter{Key: "pair:none"}) {
		t.Fatalf("AuthGeneration without a counter = %+v, %v", c, err)
	}

	tests := []struct {
		name   string
		user   int64
		uuid   string
		want   error
		remain int
	}{
		{"other user's password", 99, "uuid-a", store.ErrNotFound, 2},
		{"unknown uuid", u.ID, "nope", store.ErrNotFound, 2},
		{"delete", u.ID, "uuid-a", nil, 1},
		{"delete twice", u.ID, "uuid-a", store.ErrNotFound, 1},
	}
	for _, tt := range tests {
		err := db.DeleteAppPassword(ctx, tt.user, tt.uuid)
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
		list, err := db.ListAppPasswords(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != tt.remain {
			t.Errorf("%s: %d left, want %d", tt.name, len(list), tt.remain)
		}
	}
	empty, err := db.ListAppPasswords(ctx, 12345)
	if err != nil || empty == nil || len(empty) != 0 {
		t.Fatalf("list for user without passwords = %#v, %v", empty, err)
	}
}

// newDB opens and migrates a fresh database in a temp dir.

func mustVersion(t *testing.T, s store.Store) int64 {
	t.Helper()
	v, err := s.Version(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestVersionIncreasesOnWritesOnly(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	p := &store.Post{Type: "post", Status: "publish", Title: "x"}
	steps := []struct {
		name  string
		do    func() error
		bumps bool
	}{
		{"insert post", func() error { return db.InsertPost(ctx, p) }, true},
		{"get post", func() error { _, err := db.GetPost(ctx, p.ID); return err }, false},
		{"list posts", func() error { _, err := db.ListPosts(ctx, store.PostQuery{}); return err }, false},
		{"update post", func() error { p.Title = "y"; return db.UpdatePost(ctx, p) }, true},
		{"update missing post", func() error {
			err := db.UpdatePost(ctx, &store.Post{ID: 999})
			if errors.Is(err, store.ErrNotFound) {
				return nil
			}
			return fmt.Errorf("got %v, want ErrNotFound", err)
		}, false},
		{"set option", func() error { return db.SetOption(ctx, "a", "1") }, true},
		{"add existing option", func() error { _, err := db.AddOption(ctx, "a", "2"); return err }, false},
		{"add new option", func() error { _, err := db.AddOption(ctx, "b", "2"); return err }, true},
		{"get option", func() error { _, err := db.GetOption(ctx, "a"); return err }, false},
		{"empty tx", func() error { return db.Tx(ctx, func(store.Store) error { return nil }) }, false},
		{"read-only tx", func() error {
			return db.Tx(ctx, func(s store.Store) error { _, err := s.GetPost(ctx, p.ID); return err })
		}, false},
		{"delete post", func() error { return db.DeletePost(ctx, p.ID) }, true},
	}
	for _, st := range steps {
		before := mustVersion(t, db)
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		after := mustVersion(t, db)
		if st.bumps && !storetest.OneBump(before, after) {
			t.Errorf("%s: version %d → %d, want one bump", st.name, before, after)
		}
		if !st.bumps && after != before {
			t.Errorf("%s: version %d → %d, want unchanged", st.name, before, after)
		}
	}
}

func TestTxCommitsOnceAndBumpsVersionOnce(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	before := mustVersion(t, db)
	var ids []int64
	err := db.Tx(ctx, func(s store.Store) error {
		for i := 0; i < 3; i++ {
			p := &store.Post{Type: "post", Status: "draft", Title: fmt.Sprint(i)}
			if err := s.InsertPost(ctx, p); err != nil {
				return err
			}
			ids = append(ids, p.ID)
		}
		// Reads inside the transaction see its writes.
		got, err := s.GetPosts(ctx, ids)
		if err != nil {
			return err
		}
		if len(got) != 3 {
			return fmt.Errorf("tx sees %d of its 3 posts", len(got))
		}
		// A nested Tx reuses the transaction.
		return s.Tx(ctx, func(inner store.Store) error {
			return inner.SetOption(ctx, "k", "v")
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if after := mustVersion(t, db); !storetest.OneBump(before, after) {
		t.Fatalf("version %d → %d, want one bump per transaction", before, after)
	}
	n, err := db.CountPosts(ctx, store.PostQuery{})
	if err != nil || n != 3 {
		t.Fatalf("CountPosts = %d, %v; want 3", n, err)
	}
	if v, err := db.GetOption(ctx, "k"); err != nil || v != "v" {
		t.Fatalf("option k = %q, %v", v, err)
	}
}

func TestTxRollsBackOnErrorAndPanic(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	boom := errors.New("boom")
	tests := []struct {
		name string
		fn   func(store.Store) error
	}{
		{"error", func(s store.Store) error {
			if err := s.InsertPost(ctx, &store.Post{Type: "post", Title: "lost"}); err != nil {
				return err
			}
			return boom
		}},
		{"nested error", func(s store.Store) error {
			if err := s.SetOption(ctx, "lost", "1"); err != nil {
				return err
			}
			return s.Tx(ctx, func(inner store.Store) error {
				if err := inner.InsertPost(ctx, &store.Post{Type: "post", Title: "lost"}); err != nil {
					return err
				}
				return fmt.Errorf("inner: %w", boom)
			})
		}},
		{"panic", func(s store.Store) error {
			if err := s.InsertPost(ctx, &store.Post{Type: "post", Title: "lost"}); err != nil {
				return err
			}
			panic(boom)
		}},
	}
	for _, tt := range tests {
		before := mustVersion(t, db)
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = r.(error)
				}
			}()
			return db.Tx(ctx, tt.fn)
		}()
		if !errors.Is(err, boom) {
			t.Fatalf("%s: Tx = %v, want boom", tt.name, err)
		}
		if n, err := db.CountPosts(ctx, store.PostQuery{}); err != nil || n != 0 {
			t.Fatalf("%s: %d posts after rollback (%v)", tt.name, n, err)
		}
		if _, err := db.GetOption(ctx, "lost"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("%s: option survived rollback: %v", tt.name, err)
		}
		if after := mustVersion(t, db); after != before {
			t.Fatalf("%s: version %d → %d after rollback", tt.name, before, after)
		}
	}
	// The writer connection is usable again.
	if err := db.InsertPost(ctx, &store.Post{Type: "post"}); err != nil {
		t.Fatal(err)
	}
}

// byStore is lite on SQLite and pg on PostgreSQL.
func byStore(lite, pg int64) int64 {
	if storetest.Backend() == "postgres" {
		return pg
	}
	return lite
}

func TestStatementsCountsEveryStatement(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		if err := db.InsertPost(ctx, &store.Post{Type: "post", Status: "publish"}); err != nil {
			t.Fatal(err)
		}
	}
	cat := &store.Term{Taxonomy: "category", Name: "A", Slug: "a"}
	cat2 := &store.Term{Taxonomy: "category", Name: "B", Slug: "b"}
	for _, c := range []*store.Term{cat, cat2} {
		if err := db.InsertTerm(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		do   func() error
		want int64
	}{
		{"list posts", func() error {
			_, err := db.ListPosts(ctx, store.PostQuery{Types: []string{"post"}, Search: "a b", Limit: 2})
			return err
		}, 1},
		{"count posts", func() error { _, err := db.CountPosts(ctx, store.PostQuery{}); return err }, 1},
		{"get posts", func() error { _, err := db.GetPosts(ctx, []int64{1, 2, 3, 99}); return err }, 1},
		{"get posts empty", func() error { _, err := db.GetPosts(ctx, nil); return err }, 0},
		{"authors with published posts", func() error {
			_, err := db.AuthorsWithPublished(ctx, []int64{1, 2}, []string{"post"})
			return err
		}, 1},
		{"list users", func() error { _, err := db.ListUsers(ctx, store.UserQuery{}); return err }, 1},
		{"version", func() error { _, err := db.Version(ctx); return err }, 1},
		{"insert post (insert + version bump)", func() error { return db.InsertPost(ctx, &store.Post{}) }, 2},
		// A post without terms of the taxonomy: one read, nothing to
		// unlink; linking counts and links (+ version bump). PostgreSQL
		// counts just before the commit, every change in one statement
		// (its slots); it reads the status and links the terms of a
		// post without any in one statement that returns the terms to
		// count (3: that statement, the bump, the count), but reads the
		// terms to count before unlinking: one statement more for
		// removing.
		{"set no terms on a post without any", func() error { return db.SetPostTerms(ctx, 1, "post_tag", nil) }, 1},
		{"set a term on a post without any", func() error { return db.SetPostTerms(ctx, 2, "category", []int64{cat.ID}) }, byStore(4, 3)},
		{"set another term on a post with one", func() error { return db.SetPostTerms(ctx, 2, "category", []int64{cat2.ID}) }, byStore(6, 7)},
		// A post just inserted, linked where the store can skip the read
		// (SQLite: counting, linking, the bump; PostgreSQL: linking,
		// held for the commit, the bump, the count of the links).
		{"link a new post's term", func() error {
			linker, ok := db.(store.NewPostTermsLinker)
			if !ok {
				return fmt.Errorf("%T links no new post's terms", db)
			}
			var linked []int64
			err := linker.LinkNewPostTerms(ctx, 3, true, "category", []int64{cat.ID, cat2.ID}, &linked)
			if err == nil && !slices.Equal(linked, []int64{cat.ID, cat2.ID}) {
				err = fmt.Errorf("linked %v, want %v", linked, []int64{cat.ID, cat2.ID})
			}
			return err
		}, 3},
		{"insert user (user + roles + caps + bump)", func() error {
			return db.InsertUser(ctx, &store.User{Login: "u", Nicename: "u", Roles: []string{"a", "b"}, Caps: map[string]bool{"x": true}})
		}, 4},
	}
	for _, tt := range tests {
		before := db.Statements()
		if err := tt.do(); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := db.Statements() - before; got != tt.want {
			t.Errorf("%s ran %d statements, want %d", tt.name, got, tt.want)
		}
	}
}

func TestConflictNamesColumn(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	if err := db.InsertUser(ctx, &store.User{Login: "a", Nicename: "a"}); err != nil {
		t.Fatal(err)
	}
	err := db.InsertUser(ctx, &store.User{Login: "A", Nicename: "b"})
	if !errors.Is(err, store.ErrConflict) || !strings.Contains(err.Error(), "users.login") {
		t.Fatalf("err = %v, want ErrConflict naming users.login", err)
	}
}

func termIDs(ts []*store.Term) []int64 {
	out := []int64{}
	for _, t := range ts {
		out = append(out, t.ID)
	}
	return out
}

func mustTerm(t *testing.T, db store.Store, tm *store.Term) int64 {
	t.Helper()
	if err := db.InsertTerm(context.Background(), tm); err != nil {
		t.Fatal(err)
	}
	return tm.ID
}

func termCount(t *testing.T, db store.Store, id int64) int64 {
	t.Helper()
	tm, err := db.GetTerm(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return tm.Count
}

func TestDefaultCategoryExistsAfterMigrate(t *testing.T) {
	db := storetest.Open(t)
	tm, err := db.GetTerm(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	want := &store.Term{ID: 1, Taxonomy: "category", Name: "Uncategorized", Slug: "uncategorized"}
	if !reflect.DeepEqual(tm, want) {
		t.Fatalf("default category %+v, want %+v", tm, want)
	}
}

func TestListTermsFiltersAndOrders(t *testing.T) {
	db := storetest.Open(t)
	ctx := context.Background()
	news := mustTerm(t, db, &store.Term{Taxonomy: "category", Name: "News", Slug: "news", Description: "b"})
	local := mustTerm(t, db, &store.Term{Taxonomy: "category", Name: "local", Slug: "local-news", Parent: news, Description: "a"})
	sport := mustTerm(t, db, &store.Term{Taxonomy: "category", Name: "Sport", Slug: "sport", Description: "c"})
	tag := mustTerm(t, db, &store.Term{Taxonomy: "post_tag", Name: "News", Slug: "news"})

	cases := []struct {
		name string
		q    store.TermQuery
		want []int64
	}{
		{"name order", store.TermQuery{Taxonomy: "category"}, []int64{local, news, sport, 1}},
		{"desc", store.TermQuery{Taxonomy: "category", Order: "desc"}, []int64{1, sport, news, local}},
		{"id", store.TermQuery{Taxonomy: "category", OrderBy: "id"}, []int64{1, news, local, sport}},
		{"slug", store.TermQuery{Taxonomy: "category", OrderBy: "slug"}, []int64{local, news, sport, 1}},
		{"description", store.TermQuery{Taxonomy: "category", OrderBy: "description"}, []int64{1, local, news, sport}},
		{"include order", store.TermQuery{Taxonomy: "category", Include: []int64{sport, 1, news}, OrderBy: "include"}, []int64{sport, 1, news}},
		{"exclude", store.TermQuery{Taxonomy: "category", Exclude: []int64{1, local}}, []int64{news, sport}},
		{"search name or slug", store.TermQuery{Taxonomy: "category", Search: "NEWS"}, []int64{local, news}},
		{"slug", store.TermQuery{Taxonomy: "category", Slugs: []string{"sport"}}, []int64{sport}},
		{"names without case", store.TermQuery{Taxonomy: "category", Names: []string{"news"}}, []int64{news}},
		{"top level", store.TermQuery{Taxonomy: "category", ParentSet: true}, []int64{news, sport, 1}},
		{"children", store.TermQuery{Taxonomy: "category", ParentSet: true, Parent: news}, []int64{local}},
		{"other taxonomy", store.TermQuery{Taxonomy: "post_tag"}, []int64{tag}},
		{"page", store.TermQuery{Taxonomy: "category", Limit: 2, Offset: 1}, []int64{news, sport}},
	}
	for _, c := range cases {
		got, err := db.ListTerms(ctx, c.q)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(termIDs(got), c.want) {
			t.Errorf("%s: got %v, want %v", c.name, termIDs(got), c.want)
		}
		c.q.Limit, c.q.Offset = 0, 0
		n, err := db.CountTerms(ctx, c.q)
		if err != nil {
			t.Fatal(err)
		}
		if c.name != "page" && n != int64(len(c.want)) {
			t.Errorf("%s: count %d, want %d", c.name, n, len(c.want))
		}
	}

	// hide_empty keeps an empty parent of a used child when hierarchical.
	p := &store.Post{Type: "post", Status: "publish"}
	if err := db.InsertPost(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := db.SetPostTerms(ctx, p.ID, "category", []int64{local}); err != nil {
		t.Fatal(err)
	}
	got, _ := db.ListTerms(ctx, store.TermQuery{Taxonomy: "category", HideEmpty: true, Hierarchical: true})
	if !reflect.DeepEqual(termIDs(got), []int64{local, news}) {
		t.Errorf("hierarchical hide_empty: %v", termIDs(got))
	}
	got, _ = db.ListTerms(ctx, store.TermQuery{Taxonomy: "category", HideEmpty: true})
	if !reflect.DeepEqual(termIDs(got), []int64{local}) {
		t.Errorf("flat hide_empty: %v", termIDs(got))
	}
	if err := db.InsertTerm(ctx, &store.Term{Taxonomy: "category", Name: "x", Slug: "sport"}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("duplicate slug: %v", err)
	}
}

func TestTermCountsFollowPostWrites(t *testing.T) {
	db := storetest.Open(t)
	ctx := context.Background()
	a := mustTerm(t, db, &store.Term{Taxonomy: "post_tag", Name: "a", Slug: "a"})
	b := mustTerm(t, db, &store.Term{Taxonomy: "post_tag", Name: "b", Slug: "b"})
	c := mustTerm(t, db, &store.Term{Taxonomy: "category", Name: "c", Slug: "c"})
	p := &store.Post{Type: "post", Status: "draft"}
	if err := db.InsertPost(ctx, p); err != nil {
		t.Fatal(err)
	}
	check := func(step string, wa, wb, wc int64) {
		t.Helper()
		if ga, gb, gc := termCount(t, db, a), termCount(t, db, b), termCount(t, db, c); ga != wa || gb != wb || gc != wc {
			t.Fatalf("%s: counts %d %d %d, want %d %d %d", step, ga, gb, gc, wa, wb, wc)
		}
	}
	// A category id given for tags is skipped.
	if err := db.SetPostTerms(ctx, p.ID, "post_tag", []int64{a, b, c}); err != nil {
		t.Fatal(err)
	}
	check("draft", 0, 0, 0)
	p.Status = "publish"
	if err := db.UpdatePost(ctx, p); err != nil {
		t.Fatal(err)
	}
	check("published", 1, 1, 0)
	if err := db.UpdatePost(ctx, p); err != nil {
		t.Fatal(err)
	}
	check("published again", 1, 1, 0)
	if err := db.SetPostTerms(ctx, p.ID, "post_tag", []int64{b}); err != nil {
		t.Fatal(err)
	}
	check("a removed", 0, 1, 0)
	if err := db.SetPostTerms(ctx, p.ID, "category", []int64{c}); err != nil {
		t.Fatal(err)
	}
	check("c added", 0, 1, 1)
	got, err := db.PostTerms(ctx, []int64{p.ID, 999}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(termIDs(got[p.ID]), []int64{b, c}) || len(got[999]) != 0 {
		t.Errorf("post terms %v", got)
	}
	// Without counts: the same terms in the same order, every count 0.
	uncounted, err := db.PostTermsUncounted(ctx, []int64{p.ID, 999}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]store.Term, len(got[p.ID]))
	for i, term := range got[p.ID] {
		want[i] = *term
		want[i].Count = 0
	}
	if gotU := uncounted[p.ID]; len(gotU) != len(want) || len(uncounted[999]) != 0 {
		t.Errorf("uncounted post terms %v", uncounted)
	} else {
		for i := range want {
			if *gotU[i] != want[i] {
				t.Errorf("uncounted term %d = %+v, want %+v", i, *gotU[i], want[i])
			}
		}
	}
	got, _ = db.PostTerms(ctx, []int64{p.ID}, []string{"category"})
	if !reflect.DeepEqual(termIDs(got[p.ID]), []int64{c}) {
		t.Errorf("post categories %v", termIDs(got[p.ID]))
	}
	if got[p.ID][0].Count != 1 {
		t.Errorf("post category's count %d, want 1", got[p.ID][0].Count)
	}
	p.Status = "trash"
	if err := db.UpdatePost(ctx, p); err != nil {
		t.Fatal(err)
	}
	check("trashed", 0, 0, 0)
	p.Status = "publish"
	if err := db.UpdatePost(ctx, p); err != nil {
		t.Fatal(err)
	}
	check("untrashed", 0, 1, 1)
	if err := db.DeletePost(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	check("deleted", 0, 0, 0)
	if err := db.RecountTerms(ctx, nil); err != nil {
		t.Fatal(err)
	}
	check("recounted", 0, 0, 0)
}

func TestDeleteTermReparentsAndReassigns(t *testing.T) {
	db := storetest.Open(t)
	ctx := context.Background()
	top := mustTerm(t, db, &store.Term{Taxonomy: "category", Name: "top", Slug: "top"})
	mid := mustTerm(t, db, &store.Term{Taxonomy: "category", Name: "mid", Slug: "mid", Parent: top})
	leaf := mustTerm(t, db, &store.Term{Taxonomy: "category", Name: "leaf", Slug: "leaf", Parent: mid})
	only := &store.Post{Type: "post", Status: "publish"}
	both := &store.Post{Type: "post", Status: "publish"}
	for _, p := range []*store.Post{only, both} {
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.SetPostTerms(ctx, only.ID, "category", []int64{mid}); err != nil {
		t.Fatal(err)
	}
	if err := db.SetPostTerms(ctx, both.ID, "category", []int64{mid, top}); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteTerm(ctx, mid, 1); err != nil {
		t.Fatal(err)
	}
	if l, _ := db.GetTerm(ctx, leaf); l.Parent != top {
		t.Errorf("leaf parent %d, want %d", l.Parent, top)
	}
	got, _ := db.PostTerms(ctx, []int64{only.ID, both.ID}, nil)
	if !reflect.DeepEqual(termIDs(got[only.ID]), []int64{1}) || !reflect.DeepEqual(termIDs(got[both.ID]), []int64{top}) {
		t.Errorf("after delete: only %v, both %v", termIDs(got[only.ID]), termIDs(got[both.ID]))
	}
	if n := termCount(t, db, 1); n != 1 {
		t.Errorf("default category count %d", n)
	}
	if err := db.DeleteTerm(ctx, mid, 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
}

func TestPostTermFilters(t *testing.T) {
	db := storetest.Open(t)
	ctx := context.Background()
	parent := mustTerm(t, db, &store.Term{Taxonomy: "category", Name: "parent", Slug: "parent"})
	child := mustTerm(t, db, &store.Term{Taxonomy: "category", Name: "child", Slug: "child", Parent: parent})
	tag := mustTerm(t, db, &store.Term{Taxonomy: "post_tag", Name: "t", Slug: "t"})
	var ps []*store.Post
	for i := 0; i < 3; i++ {
		p := &store.Post{Type: "post", Status: "publish"}
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(db.SetPostTerms(ctx, ps[0].ID, "category", []int64{parent}))
	must(db.SetPostTerms(ctx, ps[1].ID, "category", []int64{child}))
	must(db.SetPostTerms(ctx, ps[1].ID, "post_tag", []int64{tag}))
	must(db.SetPostTerms(ctx, ps[2].ID, "post_tag", []int64{tag}))
	cases := []struct {
		name string
		f    []store.TermFilter
		want []int64
	}{
		{"ids without children", []store.TermFilter{{Taxonomy: "category", IDs: []int64{parent}}}, []int64{ps[0].ID}},
		{"slug with children", []store.TermFilter{{Taxonomy: "category", Slugs: []string{"parent"}, IncludeChildren: true}}, []int64{ps[0].ID, ps[1].ID}},
		{"and between taxonomies", []store.TermFilter{{Taxonomy: "category", IDs: []int64{parent, child}}, {Taxonomy: "post_tag", IDs: []int64{tag}}}, []int64{ps[1].ID}},
		{"id of another taxonomy", []store.TermFilter{{Taxonomy: "category", IDs: []int64{tag}}}, []int64{}},
		{"unknown slug", []store.TermFilter{{Taxonomy: "post_tag", Slugs: []string{"nope"}}}, []int64{}},
	}
	for _, c := range cases {
		got, err := db.ListPosts(ctx, store.PostQuery{Terms: c.f, OrderBy: "id", Order: "asc"})
		if err != nil {
			t.Fatal(err)
		}
		if g := ids(got); !reflect.DeepEqual(g, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, g, c.want)
		}
	}
}

// TestSearchMatchesProtectedTextOnlyForReaders: the excerpt and content of
// a password-protected post are matched only for callers who may read them
// (SearchProtected or the right SearchPassword); the title always is.
func TestSearchMatchesProtectedTextOnlyForReaders(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	posts := []*store.Post{
		{Type: "post", Status: "publish", Author: 1, Title: "Open", Slug: "open", Content: "secret word zebra"},
		{Type: "post", Status: "publish", Author: 2, Title: "Locked zebra", Slug: "locked", Password: "sesame", Content: "hidden quokka", Excerpt: "wombat"},
		{Type: "post", Status: "publish", Author: 1, Title: "Mine", Slug: "mine", Password: "pw", Content: "my quokka"},
	}
	for _, p := range posts {
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	all := []string{"publish"}
	tests := []struct {
		name string
		q    store.PostQuery
		want []int64
	}{
		{"content of protected posts is not matched", store.PostQuery{Search: "quokka"}, []int64{}},
		{"excerpt of protected posts is not matched", store.PostQuery{Search: "wombat"}, []int64{}},
		{"title of protected posts is matched", store.PostQuery{Search: "zebra", OrderBy: "id", Order: "asc"}, []int64{1, 2}},
		{"every word must match title or readable text", store.PostQuery{Search: "zebra quokka"}, []int64{}},
		{"the right password unlocks one post", store.PostQuery{Search: "quokka", SearchPassword: "sesame"}, []int64{2}},
		{"a wrong password unlocks nothing", store.PostQuery{Search: "quokka", SearchPassword: "nope"}, []int64{}},
		{"own protected posts for their author", store.PostQuery{Search: "quokka", SearchProtected: &store.Visibility{Owner: 1, OwnStatuses: all}}, []int64{3}},
		{"every protected post for editors", store.PostQuery{Search: "quokka", SearchProtected: &store.Visibility{OthersStatuses: all}, OrderBy: "id", Order: "asc"}, []int64{2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.ListPosts(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ids(got), tt.want) {
				t.Errorf("ListPosts = %v, want %v", ids(got), tt.want)
			}
			n, err := db.CountPosts(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if n != int64(len(tt.want)) {
				t.Errorf("CountPosts = %d, want %d", n, len(tt.want))
			}
		})
	}
}

// TestAuthGenerationMovesWithWhatBasicAuthReads: every change of a user,
// of a user's roles or capabilities, or of an application password moves
// the authentication generation on; recording a password's use, counting
// a failed sign-in and writing anything else do not. Every change of an
// option or a webhook moves the site generation on, and nothing else
// does.
func TestAuthGenerationMovesWithWhatBasicAuthReads(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	both, ok := db.(store.UserAppPasswordsStore)
	if !ok {
		t.Fatalf("%T does not keep an authentication generation", db)
	}
	gen := func() store.Generations {
		t.Helper()
		g, _, err := both.AuthGeneration(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	u := &store.User{Login: "gen", Nicename: "gen", Roles: []string{"author"}, Caps: map[string]bool{}}
	p := &store.AppPassword{UUID: "uuid-gen", Name: "phone", Hash: "h", Created: at(2024, 1, 1, 0)}
	w := &store.Webhook{URL: "https://example.com/hook", Events: []string{"post.created"}, Secret: "s", Active: true,
		Created: at(2024, 1, 1, 0), Modified: at(2024, 1, 1, 0)}
	steps := []struct {
		name       string
		do         func() error
		auth, site bool // which generation moves
	}{
		{"insert user", func() error { return db.InsertUser(ctx, u) }, true, false},
		{"read user and passwords", func() error { _, err := both.GetUserAppPasswords(ctx, "gen", ""); return err }, false, false},
		{"update user's name", func() error { u.DisplayName = "Gen"; return db.UpdateUser(ctx, u) }, true, false},
		{"update user's roles", func() error { u.Roles = []string{"editor"}; return db.UpdateUser(ctx, u) }, true, false},
		{"update user's capabilities", func() error { u.Caps = map[string]bool{"upload_files": false}; return db.UpdateUser(ctx, u) }, true, false},
		{"insert password", func() error { p.UserID = u.ID; return db.InsertAppPassword(ctx, p) }, true, false},
		{"record password's use", func() error { return db.TouchAppPassword(ctx, p.ID, at(2024, 2, 1, 0), "10.0.0.9") }, false, false},
		{"count a failed sign-in", func() error {
			return db.UpdateLoginCounters(ctx, []string{"pair:gen"}, func([]store.LoginCounter) []store.LoginCounter {
				return []store.LoginCounter{{Key: "pair:gen", Failures: 1, Last: at(2024, 2, 1, 0)}}
			})
		}, false, false},
		{"insert post", func() error { return db.InsertPost(ctx, &store.Post{Type: "post", Status: "publish", Author: u.ID}) }, false, false},
		{"set option", func() error { return db.SetOption(ctx, "gen_option", "x") }, false, true},
		{"change option", func() error { return db.SetOption(ctx, "gen_option", "y") }, false, true},
		{"add option", func() error { _, err := db.AddOption(ctx, "gen_added", "1"); return err }, false, true},
		{"read option", func() error { _, err := db.GetOption(ctx, "gen_option"); return err }, false, false},
		{"insert webhook", func() error { return db.InsertWebhook(ctx, w) }, false, true},
		{"list webhooks", func() error { _, err := db.ListWebhooks(ctx); return err }, false, false},
		{"update webhook", func() error { w.Active = false; return db.UpdateWebhook(ctx, w) }, false, true},
		{"enqueue event", func() error {
			return db.EnqueueEvent(ctx, &store.WebhookEvent{Name: "post.created", Kind: "post", ObjectType: "post", ObjectID: 1,
				Snapshot: []byte(`{}`), OccurredAt: at(2024, 2, 1, 0)}, []int64{w.ID})
		}, false, false},
		{"delete webhook", func() error { return db.DeleteWebhook(ctx, w.ID) }, false, true},
		{"revoke password", func() error { return db.DeleteAppPassword(ctx, u.ID, p.UUID) }, true, false},
		{"delete user", func() error { return db.DeleteUser(ctx, u.ID) }, true, false},
	}
	last := gen()
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		now := gen()
		if moved := now.Auth != last.Auth; moved != s.auth {
			t.Errorf("%s: authentication generation %d -> %d, want moved=%v", s.name, last.Auth, now.Auth, s.auth)
		}
		if moved := now.Site != last.Site; moved != s.site {
			t.Errorf("%s: site generation %d -> %d, want moved=%v", s.name, last.Site, now.Site, s.site)
		}
		if now.Auth < last.Auth || now.Site < last.Site {
			t.Errorf("%s: a generation went back from %+v to %+v", s.name, last, now)
		}
		last = now
	}
}
