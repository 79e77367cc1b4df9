package sqlite

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/sqlstore"
)

// TestSearchTextsAreTakenOnceAndBounded: a text split ahead is found
// once for the same fields and never for others; past maxSearchTexts
// the oldest ones are dropped.
func TestSearchTextsAreTakenOnceAndBounded(t *testing.T) {
	var s searchTexts
	s.prepare("Title", "", "<p>Some words</p>")
	if _, ok := s.take("Title", "", "<p>Other words</p>"); ok {
		t.Fatal("a text was taken for other fields")
	}
	text, ok := s.take("Title", "", "<p>Some words</p>")
	if want := sqlstore.SearchText("Title", "", "<p>Some words</p>"); !ok || text != want {
		t.Fatalf("take = %q, %v; want %q", text, ok, want)
	}
	if _, ok := s.take("Title", "", "<p>Some words</p>"); ok {
		t.Fatal("a text was taken twice")
	}
	for i := range maxSearchTexts + 10 {
		s.prepare(fmt.Sprintf("Post %d", i), "", "")
	}
	if len(s.m) != maxSearchTexts {
		t.Fatalf("%d texts kept, want %d", len(s.m), maxSearchTexts)
	}
	if _, ok := s.take("Post 9", "", ""); ok {
		t.Fatal("an old text was kept past the bound")
	}
	if _, ok := s.take(fmt.Sprintf("Post %d", maxSearchTexts+9), "", ""); !ok {
		t.Fatal("the newest text was dropped")
	}

	// Large posts: the bytes kept stay bounded, the newest is kept, and a
	// post over maxSearchTextPost is left to the writer.
	body := strings.Repeat("word ", maxSearchTextPost/5-10)
	for i := range 200 {
		s.prepare(fmt.Sprintf("Large %d", i), "", body)
		if s.bytes > maxSearchTextBytes {
			t.Fatalf("after %d large posts %d bytes kept, bound %d", i+1, s.bytes, maxSearchTextBytes)
		}
	}
	if _, ok := s.take("Large 199", "", body); !ok {
		t.Fatal("the newest large text was dropped")
	}
	if _, ok := s.take("Large 0", "", body); ok {
		t.Fatal("the oldest large text was kept past the byte bound")
	}
	huge := strings.Repeat("x", maxSearchTextPost+1)
	s.prepare("Huge", "", huge)
	if _, ok := s.take("Huge", "", huge); ok {
		t.Fatal("a post over maxSearchTextPost was split ahead")
	}
	total := 0
	for _, e := range s.m {
		total += e.size()
	}
	if total != s.bytes {
		t.Fatalf("bytes counted %d, kept %d", s.bytes, total)
	}
}

// TestPreparedSearchTextsIndexWhatIsStored: a post whose text was split
// ahead is found by its words; a text split ahead that is not the one
// stored changes nothing (the stored text is indexed).
func TestPreparedSearchTextsIndexWhatIsStored(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	db.PrepareSearch("Prepared", "", "<p>ahead walrus</p>")
	db.PrepareSearch("Changed", "", "<p>stale narwhal</p>")
	a := &store.Post{Type: "post", Status: "publish", Title: "Prepared", Slug: "prepared", Content: "<p>ahead walrus</p>"}
	b := &store.Post{Type: "post", Status: "publish", Title: "Changed", Slug: "changed", Content: "<p>fresh dugong</p>"}
	for _, p := range []*store.Post{a, b} {
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(db.c.group.texts.m); n != 1 {
		t.Fatalf("%d texts kept after the writes, want 1 (the one no write stored)", n)
	}
	for word, want := range map[string]int64{"walrus": a.ID, "dugong": b.ID, "narwhal": 0} {
		got, err := db.ListPosts(ctx, store.PostQuery{Types: []string{"post"}, Search: word})
		if err != nil {
			t.Fatal(err)
		}
		if want == 0 && len(got) != 0 || want != 0 && (len(got) != 1 || got[0].ID != want) {
			t.Errorf("search %q found %d posts, want post %d", word, len(got), want)
		}
	}
}
