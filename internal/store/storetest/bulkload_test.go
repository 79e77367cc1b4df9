package storetest_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// bulkLoadPosts returns posts of several types, statuses and months, with
// ASCII text and text in other scripts (whose words the PostgreSQL store
// leaves to the database to split), tags, long words and empty fields.
func bulkLoadPosts() []*store.Post {
	day := time.Date(2023, 11, 20, 8, 30, 0, 0, time.UTC)
	types := []string{"post", "post", "post", "page"}
	statuses := []string{"publish", "publish", "draft", "private", "publish"}
	texts := []struct{ title, excerpt, content string }{
		{"Garden notes", "", "<p>Tomatoes in the <strong>garden</strong>.</p>"},
		{"Coffee", "Morning coffee", "<!-- wp:paragraph --><p>Strong coffee, no sugar.</p><!-- /wp:paragraph -->"},
		{"Ünïcode Straße", "", "ÄPFEL und Birnen; ΣΟΦΙΑΣ σοφίας"},
		{"Numbers", "", "version 3.14 and 2024-05-06, e-mail a.b@example.com"},
		{"", "", ""},
		{"Long", "", "x" + strings.Repeat("0", 80) + " " + strings.Repeat("Abc", 30)},
		{"Unclosed <tag", "a < b > c", "<p>left <open and 1<2</p>"},
		{"Japanese", "", "東京 の 庭園 garden"},
	}
	var ps []*store.Post
	for i := range 700 {
		d := day.Add(time.Duration(i) * 37 * time.Hour)
		tx := texts[i%len(texts)]
		ps = append(ps, &store.Post{Type: types[i%len(types)], Status: statuses[i%len(statuses)], Author: int64(1 + i%3),
			Title: tx.title, Excerpt: tx.excerpt, Content: fmt.Sprintf("%s word%d", tx.content, i),
			Slug: fmt.Sprintf("bulk-%d", i), Date: d, DateGMT: d, Modified: d, ModifiedGMT: d,
			CommentStatus: "open", PingStatus: "open", Format: "standard"})
	}
	return ps
}

// TestBulkLoadMatchesOneByOne loads posts with the bulk insert on one
// store and creates the same posts one by one on another: every list,
// total (X-API-Total's counts) and search answers the same on both.
func TestBulkLoadMatchesOneByOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bulk, single := storetest.Open(t), storetest.Open(t)
	loaded := bulkLoadPosts()
	err := bulk.Tx(ctx, func(tx store.Store) error {
		b, ok := tx.(store.PostBulkInserter)
		if !ok {
			return fmt.Errorf("%T has no InsertPosts", tx)
		}
		// Two calls: the second one's posts join the first's counts.
		if err := b.InsertPosts(ctx, loaded[:450]); err != nil {
			return err
		}
		return b.InsertPosts(ctx, loaded[450:])
	})
	if err != nil {
		t.Fatal(err)
	}
	created := bulkLoadPosts()
	for _, p := range created {
		if err := single.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	for i := range loaded {
		if loaded[i].ID != created[i].ID {
			t.Fatalf("post %d: id %d bulk-loaded, %d created", i, loaded[i].ID, created[i].ID)
		}
	}
	queries := map[string]store.PostQuery{
		"published posts": {Types: []string{"post"}, Statuses: []string{"publish"}},
		"every status":    {Types: []string{"post"}},
		"drafts":          {Types: []string{"post"}, Statuses: []string{"draft"}},
		"pages":           {Types: []string{"page"}, Statuses: []string{"publish", "private"}},
		"a month":         {Types: []string{"post"}, Statuses: []string{"publish"}, Year: 2024, Month: 3},
		"an author":       {Types: []string{"post"}, Statuses: []string{"publish"}, Authors: []int64{2}},
	}
	for _, search := range []string{"garden", "GARD", "coffee sugar", "äpfel", "σοφιας", "ΣΟΦΊΑΣ", "東京", "庭園 garden",
		"word7", "word69", strings.Repeat("abc", 25), "x000", "tag", "left", "unclosed", "b", "2024", "nothinghere"} {
		queries["search "+search] = store.PostQuery{Types: []string{"post", "page"}, Search: search}
	}
	for name, q := range queries {
		for _, offset := range []int{0, 50} {
			q.Offset, q.Limit = offset, 25
			want, err := single.ListPosts(ctx, q)
			if err != nil {
				t.Fatalf("%s: created: %v", name, err)
			}
			got, err := bulk.ListPosts(ctx, q)
			if err != nil {
				t.Fatalf("%s: bulk-loaded: %v", name, err)
			}
			if !reflect.DeepEqual(ids(got), ids(want)) {
				t.Errorf("%s, offset %d: bulk-loaded %v, created %v", name, offset, ids(got), ids(want))
			}
		}
		q.Offset, q.Limit = 0, 0
		want, err := single.CountPosts(ctx, q)
		if err != nil {
			t.Fatalf("%s: count created: %v", name, err)
		}
		got, err := bulk.CountPosts(ctx, q)
		if err != nil || got != want {
			t.Errorf("%s: %d bulk-loaded (%v), %d created", name, got, err, want)
		}
		if want == 0 && name != "search nothinghere" {
			t.Errorf("%s: no posts: the query tests nothing", name)
		}
	}
	for i := range loaded {
		got, err := bulk.GetPost(ctx, loaded[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		want, err := single.GetPost(ctx, created[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("post %d: bulk-loaded %+v, created %+v", i, got, want)
		}
	}
}
