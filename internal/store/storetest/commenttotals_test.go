package storetest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// TestCommentTotalsAreKept: the total of the comments a visitor may list
// comes from the counts kept per comment status and type and per type,
// status and protection of the post (migration 0033), and stays equal to
// the comments listed through comments added, moderated, moved and
// deleted, and posts published, protected, retyped, trashed and deleted.
func TestCommentTotalsAreKept(t *testing.T) {
	t.Parallel()
	db := openSQL(t)
	ctx := context.Background()
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var posts []*store.Post
	for k, st := range []string{"publish", "publish", "draft", "private", "publish", "publish"} {
		d := start.Add(time.Duration(k) * time.Hour)
		p := &store.Post{Type: "post", Status: st, Author: 2, Title: fmt.Sprintf("Post %d", k), Slug: fmt.Sprintf("post-%d", k),
			Date: d, DateGMT: d, Modified: d, ModifiedGMT: d}
		if k == 4 {
			p.Password = "secret"
		}
		if k == 5 {
			p.Type = "page"
		}
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
		posts = append(posts, p)
	}
	var comments []*store.Comment
	for i := range 60 {
		c := &store.Comment{Content: fmt.Sprintf("comment %d", i), Approved: []string{"1", "1", "0", "spam"}[i%4],
			Type: []string{"comment", "", "pingback"}[i%3], Date: start.Add(time.Duration(i) * time.Minute)}
		c.DateGMT = c.Date
		// Signed-in commenters' own comments.
		c.AuthorID = []int64{0, 2, 9, 0, 3}[i%5]
		if i%7 != 6 { // every seventh comment has no post
			c.PostID = posts[i%len(posts)].ID
		}
		if err := db.InsertComment(ctx, c); err != nil {
			t.Fatal(err)
		}
		comments = append(comments, c)
	}
	// What a visitor may read: posts and pages by their status; what an
	// editor may edit, for the protected ones.
	visitor := &store.CommentAccess{Types: []store.CommentTypeAccess{
		{Type: "post", Read: *anonSees}, {Type: "page", Read: *anonSees}}}
	postsOnly := &store.CommentAccess{Types: []store.CommentTypeAccess{{Type: "post", Read: *anonSees}}}
	privateToo := &store.CommentAccess{Types: []store.CommentTypeAccess{
		{Type: "post", Read: store.Visibility{Public: []string{"publish", "private"}}, Edit: store.Visibility{OthersStatuses: []string{"publish"}}},
		{Type: "page", Read: *anonSees}}}
	// Signed in: an editor (user 9) reads and edits every post of every
	// status and moderates comments without a post; the same editor
	// without moderate_comments; a moderator who may not edit posts
	// without a post; the posts' author (user 2), who edits only its own.
	everyStatus := []string{"private", "draft", "pending", "future", "trash"}
	editorSees := store.Visibility{Public: []string{"publish"}, Owner: 9, OwnStatuses: everyStatus, OthersStatuses: everyStatus}
	editorEdits := store.Visibility{Owner: 9, OwnStatuses: append([]string{"publish"}, everyStatus...), OthersStatuses: append([]string{"publish"}, everyStatus...)}
	editorTypes := []store.CommentTypeAccess{{Type: "post", Read: editorSees, Edit: editorEdits}, {Type: "page", Read: editorSees, Edit: editorEdits}}
	editor := &store.CommentAccess{UserID: 9, Types: editorTypes, EditNoPost: true, ModerateNoPost: true}
	editorNoModeration := &store.CommentAccess{UserID: 9, Types: editorTypes, EditNoPost: true}
	moderatorOnly := &store.CommentAccess{UserID: 9, Types: editorTypes, ModerateNoPost: true}
	author := &store.CommentAccess{UserID: 2, EditNoPost: true, Types: []store.CommentTypeAccess{
		{Type: "post", Read: store.Visibility{Public: []string{"publish"}, Owner: 2, OwnStatuses: []string{"private", "draft"}},
			Edit: store.Visibility{Owner: 2, OwnStatuses: []string{"publish", "draft"}}},
		{Type: "page", Read: *anonSees}}}
	// A reader of its own drafts (user 2's) that may edit every post it
	// reads otherwise: what it sees depends on the author.
	ownDrafts := &store.CommentAccess{UserID: 2, EditNoPost: true, Types: []store.CommentTypeAccess{
		{Type: "post", Read: store.Visibility{Public: []string{"publish"}, Owner: 2, OwnStatuses: []string{"draft"}},
			Edit: store.Visibility{OthersStatuses: []string{"publish"}}},
		{Type: "page", Read: *anonSees, Edit: store.Visibility{OthersStatuses: []string{"publish"}}}}}
	check := func(step string) {
		t.Helper()
		for _, acc := range []*store.CommentAccess{visitor, postsOnly, privateToo, editor, editorNoModeration, moderatorOnly, author, ownDrafts} {
			for _, types := range [][]string{nil, {"comment"}, {"pingback"}} {
				for _, approved := range [][]string{nil, {"1"}, {"0"}} {
					q := store.CommentQuery{Access: acc, Types: types, Approved: approved}
					n, err := db.CountComments(ctx, q)
					if err != nil {
						t.Fatalf("%s: count: %v", step, err)
					}
					list, err := db.ListComments(ctx, q)
					if err != nil {
						t.Fatalf("%s: list: %v", step, err)
					}
					if n != int64(len(list)) {
						t.Errorf("%s: access %+v, types %v, approved %v: total %d, %d comments listed", step, acc.Types, types, approved, n, len(list))
					}
				}
			}
		}
	}
	check("added")

	// The total reads the kept counts alone, in one statement: a
	// visitor's, and an editor's of the comments waiting for moderation.
	keptOnly := func(who string, q store.CommentQuery) {
		t.Helper()
		plan := onePlan(t, db, who+" total", func(ctx context.Context) error {
			_, err := db.CountComments(ctx, q)
			return err
		})
		for _, step := range plan.Steps {
			if readsTable(step, storetest.Backend() == "sqlite", "comments", "posts") {
				t.Errorf("%s total reads comments or posts: %q\n%s\n%s", who, step, plan.SQL, plan.String())
			}
		}
	}
	keptOnly("a visitor's", store.CommentQuery{Access: visitor, Types: []string{"comment"}, Approved: []string{"1"}})
	keptOnly("an editor's", store.CommentQuery{Access: editor, Approved: []string{"0"}})

	moderate := func(c *store.Comment, change func(*store.Comment)) {
		t.Helper()
		change(c)
		if err := db.UpdateComment(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	moderate(comments[2], func(c *store.Comment) { c.Approved = "1" })
	moderate(comments[0], func(c *store.Comment) { c.Approved = "trash" })
	moderate(comments[1], func(c *store.Comment) { c.Type = "pingback" })
	moderate(comments[4], func(c *store.Comment) { c.PostID = posts[2].ID })
	moderate(comments[8], func(c *store.Comment) { c.PostID = 0 })
	moderate(comments[6], func(c *store.Comment) { c.PostID = posts[0].ID })
	moderate(comments[12], func(c *store.Comment) { c.Content = "edited" })
	for _, id := range []int64{comments[5].ID, comments[13].ID} {
		if err := db.DeleteComment(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	check("comments moderated, moved and deleted")

	update := func(p *store.Post, change func(*store.Post)) {
		t.Helper()
		change(p)
		if err := db.UpdatePost(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	update(posts[2], func(p *store.Post) { p.Status = "publish" })
	update(posts[0], func(p *store.Post) { p.Password = "hidden" })
	update(posts[4], func(p *store.Post) { p.Password = "" })
	update(posts[1], func(p *store.Post) { p.Type = "page" })
	update(posts[5], func(p *store.Post) { p.Title = "Only the title" })
	check("posts published, protected and retyped")

	if err := db.TrashPostComments(ctx, posts[1].ID); err != nil {
		t.Fatal(err)
	}
	check("a post's comments trashed")
	if err := db.UntrashPostComments(ctx, posts[1].ID); err != nil {
		t.Fatal(err)
	}
	check("a post's comments untrashed")
	if err := db.DeletePostComments(ctx, posts[3].ID); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*store.Post{posts[3], posts[4]} {
		if err := db.DeletePost(ctx, p.ID); err != nil {
			t.Fatal(err)
		}
	}
	check("posts deleted, one with its comments, one without")
}
