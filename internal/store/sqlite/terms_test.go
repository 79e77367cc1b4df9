package sqlite

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/folio-server/folio/internal/store"
)

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
	db := newDB(t)
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
	db := newDB(t)
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
	db := newDB(t)
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
	got, _ = db.PostTerms(ctx, []int64{p.ID}, []string{"category"})
	if !reflect.DeepEqual(termIDs(got[p.ID]), []int64{c}) {
		t.Errorf("post categories %v", termIDs(got[p.ID]))
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
	db := newDB(t)
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
	db := newDB(t)
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
