package sqlite

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
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

func seedPosts(t *testing.T, db *DB) {
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
	db := newDB(t)
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
		{"search lone percent", store.PostQuery{Search: "%"}, []int64{3}},
		{"search underscore is literal", store.PostQuery{Search: "_"}, []int64{4}},
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
	db := newDB(t)
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

	// Update writes every column, including back to zero values, except
	// comment_count, which only the comment writes change.
	upd := &store.Post{ID: in.ID, Type: "page", Status: "draft"}
	if err := db.UpdatePost(ctx, upd); err != nil {
		t.Fatal(err)
	}
	got, err = db.GetPost(ctx, in.ID)
	if err != nil {
		t.Fatal(err)
	}
	upd.CommentCount = in.CommentCount
	if !reflect.DeepEqual(got, upd) {
		t.Fatalf("after update:\n got %+v\nwant %+v", got, upd)
	}
	var stored string
	if err := db.read.QueryRowContext(ctx, `SELECT date_gmt FROM posts WHERE id = ?`, in.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != "0000-00-00 00:00:00" {
		t.Fatalf("zero date stored as %q", stored)
	}
	if !got.DateGMT.IsZero() || !got.Date.IsZero() {
		t.Fatalf("zero dates read back as %v / %v", got.Date, got.DateGMT)
	}
}

func TestPostErrors(t *testing.T) {
	t.Parallel()
	db := newDB(t)
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

func TestDeletePostCascades(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	p := &store.Post{Type: "post"}
	if err := db.InsertPost(ctx, p); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO terms (id, taxonomy, name, slug) VALUES (2, 'category', 'C', 'c')`,
		fmt.Sprintf(`INSERT INTO term_relationships (post_id, term_id) VALUES (%d, 2)`, p.ID),
		fmt.Sprintf(`INSERT INTO post_meta (post_id, key, value) VALUES (%d, 'k', 'v')`, p.ID),
	} {
		if _, err := db.write.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.DeletePost(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.read.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM term_relationships) + (SELECT COUNT(*) FROM post_meta)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d dependent rows survived the post", n)
	}
}

func TestGetPosts(t *testing.T) {
	t.Parallel()
	db := newDB(t)
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
	db := newDB(t)
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
		got, err := db.SlugTaken(ctx, tt.slug, tt.types, tt.parent, tt.except)
		if err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("%s: SlugTaken = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestAuthorsWithPublished(t *testing.T) {
	t.Parallel()
	db := newDB(t)
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
