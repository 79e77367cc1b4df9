package storetest_test

import (
	"context"
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

// searchCorpus is inserted in order, so post i+1 has id i+1. Every post is
// published, dated one day apart (post 1 the oldest).
var searchCorpus = []struct{ title, excerpt, content, password string }{
	{"Garden notes", "", "<p>Tomatoes in the <strong>garden</strong>.</p>", ""},
	{"Coffee", "Morning coffee", "<!-- wp:paragraph --><p>Strong coffee, no sugar.</p><!-- /wp:paragraph -->", ""},
	{"Ünïcode Straße", "", "ÄPFEL und Birnen; ΣΟΦΙΑΣ σοφίας", ""},
	{"Operators", "", `He said "NEAR" AND then OR NOT -minus *star ^caret col:on`, ""},
	{"Protected garden", "", "secret tulips behind the wall", "pw"},
	{"Numbers", "", "version 3.14 and 2024-05-06, e-mail a.b@example.com", ""},
	{"Gardening tips", "Prune in autumn", "", ""},
	{"Japanese", "", "東京 の 庭園", ""},
	{"Hyphen-ated words", "", "well-known state-of-the-art", ""},
	{"Quotes", "", "it's “curly” and 'straight'", ""},
}

func seedSearchCorpus(t *testing.T, db storetest.Store) {
	t.Helper()
	ctx := context.Background()
	for _, p := range searchCorpusPosts() {
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
}

// searchCorpusPosts returns searchCorpus's posts, not inserted.
func searchCorpusPosts() []*store.Post {
	day := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	out := make([]*store.Post, len(searchCorpus))
	for i, c := range searchCorpus {
		d := day.AddDate(0, 0, i)
		out[i] = &store.Post{Type: "post", Status: "publish", Title: c.title, Excerpt: c.excerpt, Content: c.content,
			Password: c.password, Slug: fmt.Sprintf("p%d", i+1), Date: d, DateGMT: d, Modified: d, ModifiedGMT: d}
	}
	return out
}

// TestSearchBulkInsert inserts the corpus with the bulk insert (SQLite's
// multi-row statements, which bench seeding uses) after a post that the
// transaction then deletes: the ids are the rows', and the full-text index
// and the totals know every post.
func TestSearchBulkInsert(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	ps := searchCorpusPosts()
	ps = append(ps, searchCorpusPosts()...)
	ps = append(ps, searchCorpusPosts()...)
	ps = append(ps, searchCorpusPosts()...) // 40 posts: more than one statement
	err := db.Tx(ctx, func(tx store.Store) error {
		b, ok := tx.(store.PostBulkInserter)
		if !ok {
			return fmt.Errorf("%T has no InsertPosts", tx)
		}
		first := &store.Post{Type: "post", Status: "draft", Title: "first", Slug: "first"}
		if err := tx.InsertPost(ctx, first); err != nil {
			return err
		}
		return b.InsertPosts(ctx, ps)
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range ps {
		got, err := db.GetPost(ctx, p.ID)
		if err != nil || got.Slug != p.Slug || p.ID != int64(i+2) {
			t.Fatalf("post %d: id %d, stored %v (%v)", i, p.ID, got, err)
		}
	}
	for search, want := range map[string]int64{"garden": 12, "tulips": 0, "coffee sugar": 4, "東京": 4, "first": 0} {
		q := store.PostQuery{Types: []string{"post"}, Statuses: []string{"publish"}, Search: search}
		got, err := db.ListPosts(ctx, q)
		n, cerr := db.CountPosts(ctx, q)
		if err != nil || cerr != nil || int64(len(got)) != want || n != want {
			t.Errorf("search %q: %d posts, total %d (%v, %v), want %d", search, len(got), n, err, cerr, want)
		}
	}
	n, err := db.CountPosts(ctx, store.PostQuery{Types: []string{"post"}, Statuses: []string{"publish"}})
	if err != nil || n != 40 {
		t.Errorf("published posts = %d (%v), want 40", n, err)
	}
}

// TestSearchWords runs the same searches on every store: the words, the
// operators of the full-text engines typed as text, case folding beyond
// ASCII and the protected posts all give the same ids and totals.
func TestSearchWords(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	seedSearchCorpus(t, db)
	ctx := context.Background()
	tests := []struct {
		search string
		want   []int64
	}{
		{"garden", []int64{7, 5, 1}},
		{"GARDEN", []int64{7, 5, 1}},
		{"gard", []int64{7, 5, 1}},
		{"arden", []int64{}},
		{"garden tomatoes", []int64{1}},
		{"garden   zebra", []int64{}},
		{"strong", []int64{2}}, // <strong> is a tag in post 1, a word in post 2
		{"paragraph", []int64{}},
		{"wp", []int64{}},
		{"coffee sugar", []int64{2}},
		{"morning", []int64{2}},
		{"äpfel", []int64{3}},
		{"APFEL", []int64{}},
		{"straße ÜNÏCODE", []int64{3}},
		{"σοφιας", []int64{3}}, // ΣΟΦΙΑΣ
		{"σοφίας", []int64{3}},
		{"ΣΟΦΊΑΣ", []int64{3}},
		{"σοφιασ", []int64{3}},
		{`"NEAR"`, []int64{4}},
		{"near AND or not", []int64{4}},
		{"NEAR(", []int64{4}},
		{"-minus", []int64{10, 9, 8, 7, 6, 5, 3, 2, 1}}, // excluded
		{"minus", []int64{4}},
		{"*star", []int64{4}},
		{"star*", []int64{4}},
		{"^caret", []int64{4}},
		{"col:on", []int64{4}},
		{`"unbalanced`, []int64{}},
		{`"`, []int64{}},
		{"*", []int64{}},
		{"-", []int64{}},
		{"AND", []int64{10, 6, 4}},
		{"(", []int64{}},
		{"%", []int64{}},
		{"_", []int64{}},
		{`\`, []int64{}},
		{`'`, []int64{}},
		{"it's", []int64{10}},
		{"curly", []int64{10}},
		{"3.14", []int64{6}},
		{"14", []int64{6}},
		{"2024 05", []int64{6}},
		{"example.com", []int64{6}},
		{"a.b@example", []int64{6}},
		{"well-known", []int64{9}},
		{"art state", []int64{9}},
		{"東京", []int64{8}},
		{"庭園", []int64{8}},
		{"tulips", []int64{}}, // the text of a protected post
		{"protected", []int64{5}},
		{"protected tulips", []int64{}},
		// Phrases: consecutive words, each beginning the word at its place.
		{`"tomatoes in the"`, []int64{1}},
		{`"tom in th"`, []int64{1}},
		{`"in tomatoes"`, []int64{}},
		{`"well-known"`, []int64{9}},
		{`"known well"`, []int64{}},
		{"known well", []int64{9}},
		{`garden "strong coffee"`, []int64{}},
		{`"strong coffee" sugar`, []int64{2}},
		{`"secret tulips"`, []int64{}}, // the text of a protected post
		// Exclusions: a protected post the caller may not read is left out
		// only for what its title says.
		{"garden -tomatoes", []int64{7, 5}},
		{"garden -secret", []int64{7, 5, 1}}, // its hidden text has "secret"
		{"garden -protected", []int64{7, 1}},
		{"-garden", []int64{10, 9, 8, 6, 4, 3, 2}},
		{"-garden -coffee -東京", []int64{10, 9, 6, 4, 3}},
		{`gard -"tomatoes in"`, []int64{7, 5}},
		{"coffee,morning+strong", []int64{2}},
	}
	for _, tt := range tests {
		q := store.PostQuery{Types: []string{"post"}, Search: tt.search}
		got, err := db.ListPosts(ctx, q)
		if err != nil {
			t.Fatalf("search %q: %v", tt.search, err)
		}
		if !reflect.DeepEqual(ids(got), tt.want) {
			t.Errorf("search %q = %v, want %v", tt.search, ids(got), tt.want)
		}
		n, err := db.CountPosts(ctx, q)
		if err != nil || n != int64(len(tt.want)) {
			t.Errorf("count search %q = %d (%v), want %d", tt.search, n, err, len(tt.want))
		}
	}

	// The protected post's text matches for the caller who may read it:
	// with its password or with the visibility that allows it.
	for _, q := range []store.PostQuery{
		{Types: []string{"post"}, Search: "protected tulips", SearchPassword: "pw"},
		{Types: []string{"post"}, Search: `"secret tulips"`, SearchPassword: "pw"},
		{Types: []string{"post"}, Search: "garden -tomatoes -prune", SearchPassword: "pw"},
		{Types: []string{"post"}, Search: "tulips", SearchProtected: &store.Visibility{Public: []string{"publish"}}},
	} {
		got, err := db.ListPosts(ctx, q)
		if err != nil || !reflect.DeepEqual(ids(got), []int64{5}) {
			t.Errorf("search %+v = %v (%v), want [5]", q, ids(got), err)
		}
	}
	// Read with its password, the protected post is left out for its text.
	if got, err := db.ListPosts(ctx, store.PostQuery{Types: []string{"post"}, Search: "garden -secret", SearchPassword: "pw"}); err != nil ||
		!reflect.DeepEqual(ids(got), []int64{7, 1}) {
		t.Errorf("search garden -secret with the password = %v (%v), want [7 1]", ids(got), err)
	}
	got, err := db.ListPosts(ctx, store.PostQuery{Search: "tulips", SearchPassword: "wrong"})
	if err != nil || len(got) != 0 {
		t.Errorf("search with a wrong password = %v (%v), want none", ids(got), err)
	}

	// The index follows updates and deletes.
	p, err := db.GetPost(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	p.Content = "tea now"
	if err := db.UpdatePost(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := db.DeletePost(ctx, 7); err != nil {
		t.Fatal(err)
	}
	for search, want := range map[string][]int64{"sugar": {}, "tea": {2}, "coffee": {2}, "garden": {5, 1}} {
		got, err := db.ListPosts(ctx, store.PostQuery{Search: search})
		if err != nil || !reflect.DeepEqual(ids(got), want) {
			t.Errorf("after writes, search %q = %v (%v), want %v", search, ids(got), err, want)
		}
	}
}

// TestPostCountsAndDeepPages checks the totals post_counts gives and the
// deep pages found through it against the posts themselves, across
// inserts, updates of status, type and date, and deletes.
func TestPostCountsAndDeepPages(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	statuses := []string{"publish", "publish", "publish", "draft", "private"}
	var all []*store.Post
	err := db.Tx(ctx, func(tx store.Store) error {
		for i := range 2400 {
			// Every fifth post shares the date of the one before: ties
			// break on id.
			d := start.Add(time.Duration(i-i%5/4) * 7 * time.Hour)
			p := &store.Post{Type: []string{"post", "page"}[i%7/6], Status: statuses[i%len(statuses)],
				Author: int64(1 + i%3), Slug: fmt.Sprintf("s%d", i), Date: d, DateGMT: d,
				Title: fmt.Sprintf("common tenth%d", i%10)}
			if err := tx.InsertPost(ctx, p); err != nil {
				return err
			}
			all = append(all, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A few writes after the migration-time counts.
	for _, i := range []int{10, 500, 1500} {
		all[i].Status = "private"
		all[i].Date = all[i].Date.AddDate(-1, 0, 0)
		all[i].DateGMT = all[i].Date
		if err := db.UpdatePost(ctx, all[i]); err != nil {
			t.Fatal(err)
		}
	}
	all[20].Type = "page"
	if err := db.UpdatePost(ctx, all[20]); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{30, 31, 2000} {
		if err := db.DeletePost(ctx, all[i].ID); err != nil {
			t.Fatal(err)
		}
	}
	all = slices.Delete(all, 2000, 2001)
	all = slices.Delete(all, 30, 32)

	visible := func(v *store.Visibility, p *store.Post) bool {
		if v == nil {
			return true
		}
		return slices.Contains(v.Public, p.Status) || slices.Contains(v.OthersStatuses, p.Status) ||
			(v.Owner != 0 && p.Author == v.Owner && slices.Contains(v.OwnStatuses, p.Status))
	}
	queries := []store.PostQuery{
		{},
		{Types: []string{"post"}, Statuses: []string{"publish"}, Visibility: &store.Visibility{Public: []string{"publish"}}},
		{Types: []string{"post", "page"}, Statuses: []string{"publish", "private"}},
		{Types: []string{"post"}, Visibility: &store.Visibility{Public: []string{"publish"}, Owner: 2, OwnStatuses: []string{"draft", "private"}}},
		{Types: []string{"post"}, Statuses: []string{"draft"}, Visibility: &store.Visibility{Public: []string{"publish"}, Owner: 2, OwnStatuses: []string{"draft"}}},
		{Types: []string{"page"}, Visibility: &store.Visibility{Public: []string{"publish"}, OthersStatuses: []string{"private"}}},
		{Types: []string{"post"}, Visibility: &store.Visibility{}},
		{Types: []string{"nothing"}},
	}
	// Searches: a word of every post (more than the store looks up by id)
	// and one of a tenth of them.
	for _, q := range slices.Clone(queries) {
		for _, w := range []string{"common", "tenth3", "common tenth7"} {
			q.Search = w
			queries = append(queries, q)
		}
	}
	for qi, q := range queries {
		var want []*store.Post
		for _, p := range all {
			if q.Search != "" && !strings.Contains(q.Search, p.Title[len(p.Title)-6:]) && q.Search != "common" {
				continue
			}
			if (len(q.Types) == 0 || slices.Contains(q.Types, p.Type)) &&
				(len(q.Statuses) == 0 || slices.Contains(q.Statuses, p.Status)) && visible(q.Visibility, p) {
				want = append(want, p)
			}
		}
		n, err := db.CountPosts(ctx, q)
		if err != nil || n != int64(len(want)) {
			t.Errorf("query %d: count = %d (%v), want %d", qi, n, err, len(want))
		}
		for _, order := range []string{"desc", "asc"} {
			sorted := inDateOrder(want, order)
			for _, offset := range []int{0, 999, 1000, 1001, 1234, len(want) - 7, len(want), len(want) + 5} {
				if offset < 0 {
					continue
				}
				pq := q
				pq.Order, pq.Offset, pq.Limit = order, offset, 10
				got, err := db.ListPosts(ctx, pq)
				if err != nil {
					t.Fatalf("query %d %s offset %d: %v", qi, order, offset, err)
				}
				wantIDs := []int64{}
				for _, p := range sorted[min(offset, len(sorted)):min(offset+10, len(sorted))] {
					wantIDs = append(wantIDs, p.ID)
				}
				if !reflect.DeepEqual(ids(got), wantIDs) {
					t.Errorf("query %d %s offset %d = %v, want %v", qi, order, offset, ids(got), wantIDs)
				}
			}
		}
	}
}

// TestSearchWordBeginningManyWords: a searched word finds the posts of
// every word it begins, whether it begins a few (SQLite names them one by
// one) or more than the few a query names (SQLite's prefix query), and a
// word a post gains by an update is found by its prefix too.
func TestSearchWordBeginningManyWords(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	day := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	// Post i+1 has the word "stem<i>": 40 words beginning "stem", 11
	// beginning "stem1" (stem1, stem10 … stem19).
	for i := range 40 {
		d := day.AddDate(0, 0, i)
		p := &store.Post{Type: "post", Status: "publish", Title: fmt.Sprintf("Post %d", i+1),
			Content: fmt.Sprintf("stem%d and more", i), Slug: fmt.Sprintf("s%d", i+1),
			Date: d, DateGMT: d, Modified: d, ModifiedGMT: d}
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	desc := func(from, to int64) []int64 {
		var out []int64
		for id := to; id >= from; id-- {
			out = append(out, id)
		}
		return out
	}
	check := func(search string, want []int64) {
		t.Helper()
		q := store.PostQuery{Search: search}
		got, err := db.ListPosts(ctx, q)
		if err != nil || !reflect.DeepEqual(ids(got), want) {
			t.Errorf("search %q = %v (%v), want %v", search, ids(got), err, want)
		}
		n, err := db.CountPosts(ctx, q)
		if err != nil || n != int64(len(want)) {
			t.Errorf("count of search %q = %d (%v), want %d", search, n, err, len(want))
		}
	}
	check("stem", desc(1, 40))
	check("ste more", desc(1, 40))
	check("stem1", append(desc(11, 20), 2))
	check("stem39", []int64{40})
	check("stem40", []int64{})
	check("stem3 stem39", []int64{40}) // "stem3" begins stem3 and stem30…stem39
	check("stems", []int64{})

	p, err := db.GetPost(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	p.Content = "stemware now"
	if err := db.UpdatePost(ctx, p); err != nil {
		t.Fatal(err)
	}
	check("stemw", []int64{1})
	check("stem0", []int64{})
	check("stem", desc(1, 40))
}

// TestSearchTotalsEqualTheLists counts searches the way the SQLite store
// counts them in its full-text index (the marks of each post's type,
// status and password) and compares every total with the posts the same
// query lists, for protected posts under each way of reading them, and
// after the writes that change the marks: a status, a type, a password
// set and removed, a delete.
func TestSearchTotalsEqualTheLists(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	seedSearchCorpus(t, db) // post 5 "Protected garden" has the password "pw"
	public := &store.Visibility{Public: []string{"publish"}}
	queries := func() []store.PostQuery {
		var out []store.PostQuery
		for _, s := range []string{"garden", "gard", "tulips", "secret", "protected", "coffee sugar", "zebra", "ga tomatoes"} {
			out = append(out,
				store.PostQuery{Types: []string{"post"}, Statuses: []string{"publish"}, Visibility: public, Search: s},
				store.PostQuery{Types: []string{"post"}, Visibility: public, Search: s, SearchPassword: "pw"},
				store.PostQuery{Types: []string{"post"}, Visibility: public, Search: s, SearchPassword: "wrong"},
				store.PostQuery{Types: []string{"post", "page"}, Statuses: []string{"publish", "draft"}, Search: s,
					SearchProtected: &store.Visibility{Public: []string{"publish", "draft"}}},
				store.PostQuery{Types: []string{"page"}, Visibility: &store.Visibility{Public: []string{"publish"}, OthersStatuses: []string{"draft"}}, Search: s},
			)
		}
		return out
	}
	check := func(stage string) {
		t.Helper()
		for i, q := range queries() {
			list, err := db.ListPosts(ctx, q)
			if err != nil {
				t.Fatalf("%s: query %d: %v", stage, i, err)
			}
			n, err := db.CountPosts(ctx, q)
			if err != nil || n != int64(len(list)) {
				t.Errorf("%s: query %d (%q): count %d (%v), list %v", stage, i, q.Search, n, err, ids(list))
			}
		}
	}
	check("seeded")
	want := func(q store.PostQuery, expect []int64) {
		t.Helper()
		got, err := db.ListPosts(ctx, q)
		if err != nil || !reflect.DeepEqual(ids(got), expect) {
			t.Errorf("search %q = %v (%v), want %v", q.Search, ids(got), err, expect)
		}
	}
	// The protected post's text is not found without its password; its
	// title is.
	want(store.PostQuery{Types: []string{"post"}, Visibility: public, Search: "tulips"}, []int64{})
	want(store.PostQuery{Types: []string{"post"}, Visibility: public, Search: "tulips", SearchPassword: "pw"}, []int64{5})
	want(store.PostQuery{Types: []string{"post"}, Visibility: public, Search: "protected"}, []int64{5})

	update := func(id int64, f func(p *store.Post)) {
		t.Helper()
		p, err := db.GetPost(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		f(p)
		if err := db.UpdatePost(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	update(1, func(p *store.Post) { p.Status = "draft" })
	update(7, func(p *store.Post) { p.Type = "page" })
	check("status and type changed")
	want(store.PostQuery{Types: []string{"post"}, Visibility: public, Search: "garden"}, []int64{5})
	want(store.PostQuery{Types: []string{"page"}, Visibility: public, Search: "garden"}, []int64{7})

	update(5, func(p *store.Post) { p.Password = "" })
	update(2, func(p *store.Post) { p.Password = "pw2" })
	check("passwords changed")
	want(store.PostQuery{Types: []string{"post"}, Visibility: public, Search: "tulips"}, []int64{5})
	want(store.PostQuery{Types: []string{"post"}, Visibility: public, Search: "sugar"}, []int64{})
	want(store.PostQuery{Types: []string{"post"}, Visibility: public, Search: "coffee"}, []int64{2}) // its title

	if err := db.DeletePost(ctx, 5); err != nil {
		t.Fatal(err)
	}
	check("deleted")
}

// TestSearchPagesInDateOrder lists every page of searches whose words are
// in all, a fifth, a fiftieth and one of the posts, with dates that do
// not follow ids (SQLite finds these pages through windows of the
// collection in date order and the ids between them: a window too small
// or ids out of date order must not lose or reorder a post), protected
// posts among them, and compares each page with the posts themselves.
func TestSearchPagesInDateOrder(t *testing.T) {
	t.Parallel()
	for _, plans := range []struct {
		name      string
		few, many int
	}{{"defaults", 0, 0}, {"walk", 5, 1000}, {"windows", 5, 10}} {
		t.Run(plans.name, func(t *testing.T) {
			t.Parallel()
			db := openSQL(t)
			if plans.few > 0 {
				db.SetSearchPlans(plans.few, plans.many)
			}
			searchPagesInDateOrder(t, db)
		})
	}
}

func searchPagesInDateOrder(t *testing.T, db store.Store) {
	ctx := context.Background()
	start := time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)
	const n = 600
	var all []*store.Post
	err := db.Tx(ctx, func(tx store.Store) error {
		for i := range n {
			// Dates jump about: (i*37) mod n, so ids do not follow them,
			// and every tenth post shares its date with the one before.
			d := start.Add(time.Duration((i*37)%n-i%10/9) * time.Hour)
			content := fmt.Sprintf("every fifth%d fiftieth%d", i%5, i%50)
			if i == 321 {
				content += " onlyone"
			}
			p := &store.Post{Type: "post", Status: []string{"publish", "publish", "draft"}[i%3], Slug: fmt.Sprintf("w%d", i),
				Title: fmt.Sprintf("Post %d", i), Content: content, Date: d, DateGMT: d}
			if i%7 == 0 {
				p.Password = "pw"
			}
			if err := tx.InsertPost(ctx, p); err != nil {
				return err
			}
			all = append(all, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	public := &store.Visibility{Public: []string{"publish"}}
	for _, search := range []string{"every", "fifth3", "fiftieth12", "onlyone", "every fiftieth7", "post"} {
		for _, password := range []string{"", "pw"} {
			q := store.PostQuery{Types: []string{"post"}, Statuses: []string{"publish"}, Visibility: public,
				Search: search, SearchPassword: password}
			var want []*store.Post
			for _, p := range all {
				readable := p.Password == "" || p.Password == password
				text := p.Title
				if readable {
					text += " " + p.Content
				}
				if p.Status == "publish" && sqlstoreMatch(text, search) {
					want = append(want, p)
				}
			}
			for _, order := range []string{"desc", "asc"} {
				sorted := inDateOrder(want, order)
				for _, limit := range []int{7, 10} {
					for offset := 0; offset <= len(sorted)+limit; offset += limit {
						pq := q
						pq.Order, pq.Offset, pq.Limit = order, offset, limit
						got, err := db.ListPosts(ctx, pq)
						if err != nil {
							t.Fatal(err)
						}
						wantIDs := []int64{}
						for _, p := range sorted[min(offset, len(sorted)):min(offset+limit, len(sorted))] {
							wantIDs = append(wantIDs, p.ID)
						}
						if !reflect.DeepEqual(ids(got), wantIDs) {
							t.Fatalf("search %q password %q %s limit %d offset %d = %v, want %v",
								search, password, order, limit, offset, ids(got), wantIDs)
						}
					}
				}
			}
			if got, err := db.CountPosts(ctx, q); err != nil || got != int64(len(want)) {
				t.Errorf("count of search %q password %q = %d (%v), want %d", search, password, got, err, len(want))
			}
		}
	}
}

// sqlstoreMatch reports whether every word of search begins a word of
// text (the search rule, on plain text).
func sqlstoreMatch(text, search string) bool {
	have := strings.Fields(strings.ToLower(text))
	for _, w := range strings.Fields(strings.ToLower(search)) {
		if !slices.ContainsFunc(have, func(h string) bool { return strings.HasPrefix(h, w) }) {
			return false
		}
	}
	return true
}

// TestBulkInsertManyPosts inserts more posts than one bulk statement holds
// (SQLite: one multi-row statement per 32; PostgreSQL: ids reserved from
// the sequence, then the same statements): every post gets its own id,
// each id holds its own post, and the counts and the index know them all.
func TestBulkInsertManyPosts(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	day := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	var ps []*store.Post
	for i := range 100 {
		d := day.Add(time.Duration(i) * time.Hour)
		ps = append(ps, &store.Post{Type: "post", Status: "publish", Title: fmt.Sprintf("Bulk %d", i),
			Content: fmt.Sprintf("bulkword n%d", i), Slug: fmt.Sprintf("bulk-%d", i), Date: d, DateGMT: d, Modified: d, ModifiedGMT: d})
	}
	err := db.Tx(ctx, func(tx store.Store) error {
		b, ok := tx.(store.PostBulkInserter)
		if !ok {
			t.Fatal("the store has no bulk insert")
		}
		return b.InsertPosts(ctx, ps)
	})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for i, p := range ps {
		if p.ID == 0 || seen[p.ID] || (i > 0 && p.ID <= ps[i-1].ID) {
			t.Fatalf("post %d: id %d (ids must be new, distinct and ascending)", i, p.ID)
		}
		seen[p.ID] = true
		got, err := db.GetPost(ctx, p.ID)
		if err != nil || got.Title != p.Title {
			t.Fatalf("post %d (id %d) reads back as %+v (%v)", i, p.ID, got, err)
		}
	}
	q := store.PostQuery{Types: []string{"post"}, Statuses: []string{"publish"}}
	if n, err := db.CountPosts(ctx, q); err != nil || n != 100 {
		t.Fatalf("count = %d (%v), want 100", n, err)
	}
	q.Search = "bulkword"
	if n, err := db.CountPosts(ctx, q); err != nil || n != 100 {
		t.Fatalf("search count = %d (%v), want 100", n, err)
	}
	q.Search = "n57"
	if got, err := db.ListPosts(ctx, q); err != nil || len(got) != 1 || got[0].ID != ps[57].ID {
		t.Fatalf("search n57 = %v (%v), want post %d", ids(got), err, ps[57].ID)
	}
	// A post inserted after takes an id after them.
	next := &store.Post{Type: "post", Status: "publish", Slug: "after"}
	if err := db.InsertPost(ctx, next); err != nil || next.ID <= ps[99].ID {
		t.Fatalf("next insert: id %d (%v), want after %d", next.ID, err, ps[99].ID)
	}
}

// inDateOrder returns ps sorted as the store sorts by date in order
// ("asc" or "desc"), ties broken on id the same way.
func inDateOrder(ps []*store.Post, order string) []*store.Post {
	sorted := slices.Clone(ps)
	slices.SortFunc(sorted, func(a, b *store.Post) int {
		c := a.Date.Compare(b.Date)
		if c == 0 {
			c = int(a.ID - b.ID)
		}
		if order == "desc" {
			return -c
		}
		return c
	})
	return sorted
}

// TestSearchCountsTakeTurns: the totals of searches counted at once by
// many clients are counted a few at a time (sqlstore.Gate), and each is
// still the number of posts its list has.
func TestSearchCountsTakeTurns(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	gated, ok := db.(interface {
		SetSearchCountSlots(n int)
		SearchCountPeak() int
	})
	if !ok {
		t.Fatalf("%T has no gate of search counts", db)
	}
	ctx := context.Background()
	seedSearchCorpus(t, db)
	public := &store.Visibility{Public: []string{"publish"}}
	searches := []string{"garden", "coffee", "tulips", "gard", "strong", "version", "prune", "known", "curly", "garden tomatoes"}
	run := func(slots int) {
		t.Helper()
		gated.SetSearchCountSlots(slots)
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range 6 {
					q := store.PostQuery{Types: []string{"post"}, Statuses: []string{"publish"}, Visibility: public,
						Search: searches[(i+j)%len(searches)]}
					list, err := db.ListPosts(ctx, q)
					if err != nil {
						t.Error(err)
						return
					}
					if n, err := db.CountPosts(ctx, q); err != nil || n != int64(len(list)) {
						t.Errorf("search %q: total %d (%v), list %v", q.Search, n, err, ids(list))
					}
				}
			}()
		}
		wg.Wait()
	}
	run(1)
	if p := gated.SearchCountPeak(); p != 1 {
		t.Fatalf("one slot: %d search counts ran at once, want 1", p)
	}
	run(3)
	if p := gated.SearchCountPeak(); p > 3 {
		t.Fatalf("three slots: %d search counts ran at once", p)
	}
}

// TestSearchWindowsTakeTurns: a search page whose words are only in the
// oldest posts reads windows of most of the collection; windows past a
// size take turns with the counts of searches (sqlstore.Gate), and every
// page is still the matching posts in date order.
func TestSearchWindowsTakeTurns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		gated int // windows of more posts than this take turns
		peak  int // the most that may be in the gate at once
	}{{"gated", 100, 1}, {"small windows", 100000, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var db *sqlstore.DB
			peak := tc.peak
			if storetest.Backend() == "postgres" {
				db = storetest.OpenPostgres(t, storetest.PostgresURL(t)).DB
				peak = 0 // PostgreSQL's plans read no windows
			} else {
				db = storetest.OpenSQLite(t, t.TempDir()+"/folio.db").DB
			}
			db.SetSearchPlans(1, 3) // past three matches: windows
			db.SetSearchWindowsGated(tc.gated)
			db.SetSearchCountSlots(1)
			ctx := context.Background()
			start := time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)
			const n = 300
			var old []int64 // the matching posts, newest first
			err := db.Tx(ctx, func(tx store.Store) error {
				for i := range n {
					d := start.Add(time.Duration(i) * time.Hour)
					content := "newer words"
					if i < 30 {
						content = "ancient words"
					}
					p := &store.Post{Type: "post", Status: "publish", Slug: fmt.Sprintf("t%d", i),
						Title: fmt.Sprintf("Post %d", i), Content: content, Date: d, DateGMT: d}
					if err := tx.InsertPost(ctx, p); err != nil {
						return err
					}
					if i < 30 {
						old = append([]int64{p.ID}, old...)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			public := &store.Visibility{Public: []string{"publish"}}
			var wg sync.WaitGroup
			for i := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for j := range 3 {
						page := (i + j) % 3
						q := store.PostQuery{Types: []string{"post"}, Statuses: []string{"publish"}, Visibility: public,
							Search: "ancient", Limit: 10, Offset: 10 * page}
						list, err := db.ListPosts(ctx, q)
						if err != nil {
							t.Error(err)
							return
						}
						if want := old[10*page : 10*page+10]; !reflect.DeepEqual(ids(list), want) {
							t.Errorf("page %d: %v, want %v", page+1, ids(list), want)
						}
					}
				}()
			}
			wg.Wait()
			if p := db.SearchCountPeak(); p != peak {
				t.Fatalf("%d searches were in the gate at once, want %d", p, peak)
			}
		})
	}
}
