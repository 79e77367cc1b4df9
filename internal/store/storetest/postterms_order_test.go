package storetest_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// TestPostTermsOrderAndTaxonomies checks PostTerms on several posts at
// once: per post, terms in case-insensitive name order then id, only of
// the asked taxonomies, and posts without terms absent.
func TestPostTermsOrderAndTaxonomies(t *testing.T) {
	db := storetest.Open(t)
	ctx := context.Background()
	tagB := mustTerm(t, db, &store.Term{Taxonomy: "post_tag", Name: "beta", Slug: "beta"})
	tagA := mustTerm(t, db, &store.Term{Taxonomy: "post_tag", Name: "Alpha", Slug: "alpha"})
	tagA2 := mustTerm(t, db, &store.Term{Taxonomy: "post_tag", Name: "alpha", Slug: "alpha-2"})
	tagAl := mustTerm(t, db, &store.Term{Taxonomy: "post_tag", Name: "alp", Slug: "alp"})
	catZ := mustTerm(t, db, &store.Term{Taxonomy: "category", Name: "Zed", Slug: "zed"})
	catM := mustTerm(t, db, &store.Term{Taxonomy: "category", Name: "mid", Slug: "mid"})
	var posts [3]*store.Post
	for i := range posts {
		posts[i] = &store.Post{Type: "post", Status: "publish"}
		if err := db.InsertPost(ctx, posts[i]); err != nil {
			t.Fatal(err)
		}
	}
	one, two, bare := posts[0].ID, posts[1].ID, posts[2].ID
	for _, s := range []struct {
		post int64
		tax  string
		ids  []int64
	}{
		{one, "post_tag", []int64{tagB, tagA2, tagA, tagAl}},
		{one, "category", []int64{catZ, catM}},
		{two, "post_tag", []int64{tagA}},
	} {
		if err := db.SetPostTerms(ctx, s.post, s.tax, s.ids); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.PostTerms(ctx, []int64{one, two, bare}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ids := termIDs(got[one]); !reflect.DeepEqual(ids, []int64{tagAl, tagA, tagA2, tagB, catM, catZ}) {
		t.Errorf("post one: %v", ids)
	}
	if ids := termIDs(got[two]); !reflect.DeepEqual(ids, []int64{tagA}) {
		t.Errorf("post two: %v", ids)
	}
	if len(got[bare]) != 0 {
		t.Errorf("post without terms: %v", termIDs(got[bare]))
	}
	got, err = db.PostTerms(ctx, []int64{one, two}, []string{"category"})
	if err != nil {
		t.Fatal(err)
	}
	if ids := termIDs(got[one]); !reflect.DeepEqual(ids, []int64{catM, catZ}) || len(got[two]) != 0 {
		t.Errorf("categories only: %v and %v", ids, termIDs(got[two]))
	}
	got, err = db.PostTerms(ctx, []int64{one}, []string{"post_tag", "category"})
	if err != nil {
		t.Fatal(err)
	}
	if ids := termIDs(got[one]); !reflect.DeepEqual(ids, []int64{tagAl, tagA, tagA2, tagB, catM, catZ}) {
		t.Errorf("one post, both taxonomies: %v", ids)
	}
}

// TestPostTermsOrderIsTheDatabaseNameOrder: PostTerms sorts a post's terms
// in Go; the order must be the one the database gives a term list ordered
// by name (ASCII case folded, byte-wise otherwise, ties by id), for names
// that differ only in case, prefixes, punctuation and non-ASCII letters.
func TestPostTermsOrderIsTheDatabaseNameOrder(t *testing.T) {
	db := storetest.Open(t)
	ctx := context.Background()
	names := []string{"beta", "Alpha", "alpha", "ALPHA", "alp", "a b", "ab", "Ärger", "ärger", "zeta", "Zeta_", "_under",
		"[x]", "`tick", "Ω", "", "b", "B", "ba", "Ba", "a", "A"}
	var ids []int64
	for i, n := range names {
		ids = append(ids, mustTerm(t, db, &store.Term{Taxonomy: "post_tag", Name: n, Slug: fmt.Sprintf("s-%d", i)}))
	}
	p := &store.Post{Type: "post", Status: "publish"}
	if err := db.InsertPost(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := db.SetPostTerms(ctx, p.ID, "post_tag", ids); err != nil {
		t.Fatal(err)
	}
	list, err := db.ListTerms(ctx, store.TermQuery{Taxonomy: "post_tag", OrderBy: "name"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.PostTerms(ctx, []int64{p.ID}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := termIDs(list); !reflect.DeepEqual(termIDs(got[p.ID]), want) {
		t.Fatalf("PostTerms order %v, the database's name order %v", termIDs(got[p.ID]), want)
	}
}

// TestSetPostTermsLinked: SetPostTermsLinked returns the terms it linked
// the post to that it was not linked to before, ascending, skipping ids
// that are missing or of another taxonomy, alone and in a transaction,
// for published posts (whose terms are counted) and drafts.
func TestSetPostTermsLinked(t *testing.T) {
	db := storetest.Open(t)
	ctx := context.Background()
	linker, ok := db.(store.PostTermsLinker)
	if !ok {
		t.Fatalf("%T does not tell the terms it links", db)
	}
	c := mustTerm(t, db, &store.Term{Taxonomy: "category", Name: "c", Slug: "c"})
	b := mustTerm(t, db, &store.Term{Taxonomy: "category", Name: "b", Slug: "b"})
	a := mustTerm(t, db, &store.Term{Taxonomy: "category", Name: "a", Slug: "a"})
	tag := mustTerm(t, db, &store.Term{Taxonomy: "post_tag", Name: "t", Slug: "t"})
	for _, status := range []string{"publish", "draft"} {
		for _, inTx := range []bool{false, true} {
			name := fmt.Sprintf("%s, in a transaction %v", status, inTx)
			p := &store.Post{Type: "post", Status: status}
			if err := db.InsertPost(ctx, p); err != nil {
				t.Fatal(err)
			}
			link := func(ids ...int64) []int64 {
				t.Helper()
				var got []int64
				var err error
				if inTx {
					err = db.Tx(ctx, func(tx store.Store) error {
						var err error
						got, err = tx.(store.PostTermsLinker).SetPostTermsLinked(ctx, p.ID, "category", ids)
						return err
					})
				} else {
					got, err = linker.SetPostTermsLinked(ctx, p.ID, "category", ids)
				}
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				return got
			}
			if got, want := link(c, 999999, tag, a), []int64{min(a, c), max(a, c)}; !reflect.DeepEqual(got, want) {
				t.Errorf("%s: a new post linked %v, want %v", name, got, want)
			}
			// A change links only what the post was not linked to.
			if got, want := link(a, b), []int64{b}; !reflect.DeepEqual(got, want) {
				t.Errorf("%s: the change linked %v, want %v", name, got, want)
			}
			if got := link(a, b); len(got) != 0 {
				t.Errorf("%s: the same terms again linked %v", name, got)
			}
			terms, err := db.PostTerms(ctx, []int64{p.ID}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := termIDs(terms[p.ID]), []int64{a, b}; !reflect.DeepEqual(got, want) {
				t.Errorf("%s: the post's terms are %v, want %v", name, got, want)
			}
		}
	}
	counts, err := db.GetTerms(ctx, []int64{a, b, c})
	if err != nil {
		t.Fatal(err)
	}
	if counts[a].Count != 2 || counts[b].Count != 2 || counts[c].Count != 0 {
		t.Errorf("counts a %d, b %d, c %d; want 2, 2, 0 (the published posts)", counts[a].Count, counts[b].Count, counts[c].Count)
	}
}
