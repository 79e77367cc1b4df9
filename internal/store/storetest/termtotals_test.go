package storetest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
)

// totalsPosts inserts the posts the tests of kept totals count: 40 posts
// and pages (every fourth is a page), of five statuses and three authors
// in turn, an hour apart.
func totalsPosts(t *testing.T, db store.Store) []*store.Post {
	t.Helper()
	statuses := []string{"publish", "draft", "private", "pending", "trash"}
	var posts []*store.Post
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for k := range 40 {
		d := start.Add(time.Duration(k) * time.Hour)
		p := &store.Post{Type: []string{"post", "page"}[k%4/3], Status: statuses[k%len(statuses)], Author: int64(1 + k%3),
			Title: fmt.Sprintf("Post %d", k), Slug: fmt.Sprintf("post-%d", k), Date: d, DateGMT: d, Modified: d, ModifiedGMT: d}
		if err := db.InsertPost(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		posts = append(posts, p)
	}
	return posts
}

// totalIsListed fails when q's total is not the number of posts q lists.
func totalIsListed(t *testing.T, db store.Store, what string, q store.PostQuery) {
	t.Helper()
	ctx := context.Background()
	n, err := db.CountPosts(ctx, q)
	if err != nil {
		t.Fatalf("%s: count: %v", what, err)
	}
	list, err := db.ListPosts(ctx, q)
	if err != nil {
		t.Fatalf("%s: list: %v", what, err)
	}
	if n != int64(len(list)) {
		t.Errorf("%s, types %v, statuses %v, visibility %+v: total %d, %d posts listed", what, q.Types, q.Statuses, q.Visibility, n, len(list))
	}
}

// updatePost applies change to p and saves it.
func updatePost(t *testing.T, db store.Store, p *store.Post, change func(*store.Post)) {
	t.Helper()
	change(p)
	if err := db.UpdatePost(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}

// changeTotalsPosts publishes the first ten of totalsPosts' posts, makes
// the twelfth a draft, retitles the thirteenth and makes the fifteenth a
// page.
func changeTotalsPosts(t *testing.T, db store.Store, posts []*store.Post) {
	t.Helper()
	for _, p := range posts[:10] {
		updatePost(t, db, p, func(p *store.Post) { p.Status = "publish" })
	}
	updatePost(t, db, posts[11], func(p *store.Post) { p.Status = "draft" })
	updatePost(t, db, posts[12], func(p *store.Post) { p.Title = "Only the title" })
	updatePost(t, db, posts[14], func(p *store.Post) { p.Type = "page" })
}

// TestTermTotalsAreKept: the total of a collection filtered on one term
// comes from the counts kept per term, type and status (migration 0032),
// and stays equal to the posts listed through creates, links, status and
// type changes, unlinks, a link moved, post and term deletions, for every
// visibility.
func TestTermTotalsAreKept(t *testing.T) {
	t.Parallel()
	db, exec := openSQLRaw(t)
	ctx := context.Background()
	news := &store.Term{Taxonomy: "category", Name: "News", Slug: "news"}
	local := &store.Term{Taxonomy: "category", Name: "Local", Slug: "local"}
	red := &store.Term{Taxonomy: "post_tag", Name: "Red", Slug: "red"}
	for _, tm := range []*store.Term{news, local, red} {
		if err := db.InsertTerm(ctx, tm); err != nil {
			t.Fatal(err)
		}
	}
	local.Parent = news.ID
	if err := db.UpdateTerm(ctx, local); err != nil {
		t.Fatal(err)
	}
	posts := totalsPosts(t, db)
	for k, p := range posts {
		var cats []int64
		if k%2 == 0 {
			cats = append(cats, news.ID)
		}
		if k%3 == 0 {
			cats = append(cats, local.ID)
		}
		if err := db.SetPostTerms(ctx, p.ID, "category", cats); err != nil {
			t.Fatal(err)
		}
		if k%5 < 2 {
			if err := db.SetPostTerms(ctx, p.ID, "post_tag", []int64{red.ID}); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := func(step string) {
		t.Helper()
		filters := []store.TermFilter{
			{Taxonomy: "category", IDs: []int64{news.ID}},
			{Taxonomy: "category", IDs: []int64{local.ID}},
			{Taxonomy: "category", Slugs: []string{"news"}},
			{Taxonomy: "post_tag", IDs: []int64{red.ID}},
			{Taxonomy: "post_tag", IDs: []int64{news.ID}}, // a category asked for as a tag
			{Taxonomy: "category", IDs: []int64{99999}},
		}
		for _, f := range filters {
			for _, v := range []*store.Visibility{anonSees, authorSees, adminSees, nil} {
				for _, types := range [][]string{{"post"}, {"page"}, nil} {
					for _, st := range [][]string{nil, {"publish"}, {"draft", "trash"}} {
						q := store.PostQuery{Types: types, Statuses: st, Visibility: v, Terms: []store.TermFilter{f}}
						totalIsListed(t, db, fmt.Sprintf("%s: %+v", step, f), q)
					}
				}
			}
		}
	}
	check("created")

	changeTotalsPosts(t, db, posts)
	check("statuses and a type changed")

	if err := db.SetPostTerms(ctx, posts[0].ID, "category", []int64{local.ID}); err != nil {
		t.Fatal(err)
	}
	if err := db.SetPostTerms(ctx, posts[1].ID, "post_tag", nil); err != nil {
		t.Fatal(err)
	}
	if err := db.SetPostTerms(ctx, posts[7].ID, "category", []int64{news.ID, local.ID}); err != nil {
		t.Fatal(err)
	}
	check("links changed")

	// A link moved to another term in place (the store never does; an
	// operator's SQL may).
	exec(fmt.Sprintf(`UPDATE term_relationships SET term_id = %d WHERE post_id = %d AND term_id = %d`, local.ID, posts[4].ID, news.ID))
	check("a link moved by an UPDATE")

	for _, p := range []*store.Post{posts[2], posts[3], posts[6]} {
		if err := db.DeletePost(ctx, p.ID); err != nil {
			t.Fatal(err)
		}
	}
	check("posts deleted")

	// Local's posts go to News where they have no other category.
	if err := db.DeleteTerm(ctx, local.ID, news.ID); err != nil {
		t.Fatal(err)
	}
	check("a term deleted, its posts reassigned")
	if err := db.DeleteTerm(ctx, red.ID, 0); err != nil {
		t.Fatal(err)
	}
	check("a tag deleted")
	if n, err := db.CountPosts(ctx, store.PostQuery{Terms: []store.TermFilter{{Taxonomy: "post_tag", IDs: []int64{red.ID}}}}); err != nil || n != 0 {
		t.Errorf("deleted tag: total %d (%v), want 0", n, err)
	}
	// A new term with the deleted one's id (PostgreSQL never reuses
	// one; SQLite may) starts from nothing.
	again := &store.Term{Taxonomy: "post_tag", Name: "Blue", Slug: "blue"}
	if err := db.InsertTerm(ctx, again); err != nil {
		t.Fatal(err)
	}
	if err := db.SetPostTerms(ctx, posts[20].ID, "post_tag", []int64{again.ID}); err != nil {
		t.Fatal(err)
	}
	if n, err := db.CountPosts(ctx, store.PostQuery{Terms: []store.TermFilter{{Taxonomy: "post_tag", IDs: []int64{again.ID}}}}); err != nil || n != 1 {
		t.Errorf("new tag on one post: total %d (%v), want 1", n, err)
	}
}
