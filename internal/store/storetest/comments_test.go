package storetest_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

func commentIDs(cs []*store.Comment) []int64 {
	out := []int64{}
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

// seedComments stores posts 1 (published, author 1), 2 (draft, author 1),
// 3 (published, password, author 2) and comments 1..6.
func seedComments(t *testing.T, db store.Store) {
	t.Helper()
	ctx := context.Background()
	for _, p := range []*store.Post{
		{Type: "post", Status: "publish", Author: 1, Title: "one"},
		{Type: "post", Status: "draft", Author: 1, Title: "two"},
		{Type: "post", Status: "publish", Author: 2, Title: "three", Password: "pw"},
	} {
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []*store.Comment{
		{PostID: 1, AuthorName: "Ann", AuthorEmail: "ann@example.com", AuthorIP: "10.0.0.1", Content: "first apple", Approved: "1", Type: "comment", DateGMT: at(2020, 1, 1, 0), Date: at(2020, 1, 1, 1)},
		{PostID: 1, Parent: 1, AuthorID: 5, AuthorName: "Bob", Content: "reply", Approved: "0", Type: "comment", DateGMT: at(2020, 1, 2, 0), Date: at(2020, 1, 2, 1), Karma: 3},
		{PostID: 2, AuthorName: "Cy", Content: "on draft", Approved: "1", Type: "comment", DateGMT: at(2020, 1, 3, 0), Date: at(2020, 1, 3, 1)},
		{PostID: 3, AuthorName: "Di", Content: "on protected", Approved: "1", Type: "comment", DateGMT: at(2020, 1, 4, 0), Date: at(2020, 1, 4, 1)},
		{PostID: 0, AuthorName: "Ed", Content: "no post", Approved: "spam", Type: "comment", DateGMT: at(2020, 1, 5, 0), Date: at(2020, 1, 5, 1)},
		{PostID: 1, Parent: 2, AuthorName: "Fay", Content: "ping", Approved: "1", Type: "pingback", DateGMT: at(2020, 1, 6, 0), Date: at(2020, 1, 6, 1)},
	} {
		if err := db.InsertComment(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
}

func commentCount(t *testing.T, db store.Store, post int64) int64 {
	t.Helper()
	p, err := db.GetPost(context.Background(), post)
	if err != nil {
		t.Fatal(err)
	}
	return p.CommentCount
}

func TestCommentCountsFollowEveryWrite(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	seedComments(t, db)
	ctx := context.Background()
	if n := commentCount(t, db, 1); n != 2 {
		t.Fatalf("post 1 count = %d, want 2 (approved comment and pingback)", n)
	}
	c, err := db.GetComment(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	c.Approved = "1"
	if err := db.UpdateComment(ctx, c); err != nil {
		t.Fatal(err)
	}
	if n := commentCount(t, db, 1); n != 3 {
		t.Fatalf("after approve count = %d, want 3", n)
	}
	// Moving a comment to another post recounts both.
	c.PostID = 3
	if err := db.UpdateComment(ctx, c); err != nil {
		t.Fatal(err)
	}
	if a, b := commentCount(t, db, 1), commentCount(t, db, 3); a != 2 || b != 2 {
		t.Fatalf("after move counts = %d, %d, want 2, 2", a, b)
	}
	// A post update never overwrites the count.
	p, _ := db.GetPost(ctx, 1)
	p.CommentCount = 99
	p.Title = "changed"
	if err := db.UpdatePost(ctx, p); err != nil {
		t.Fatal(err)
	}
	if n := commentCount(t, db, 1); n != 2 {
		t.Fatalf("UpdatePost changed comment_count to %d", n)
	}
	if err := db.DeleteComment(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if n := commentCount(t, db, 1); n != 1 {
		t.Fatalf("after delete count = %d, want 1", n)
	}
	if err := db.DeletePostComments(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if n := commentCount(t, db, 1); n != 0 {
		t.Fatalf("after deleting the post's comments count = %d", n)
	}
	if err := db.DeleteComment(ctx, 1); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("delete missing: %v", err)
	}
	if err := db.UpdateComment(ctx, &store.Comment{ID: 999}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("update missing: %v", err)
	}
}

func TestDeleteCommentMovesRepliesToItsParent(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	seedComments(t, db)
	ctx := context.Background()
	if err := db.DeleteComment(ctx, 2); err != nil {
		t.Fatal(err)
	}
	c, err := db.GetComment(ctx, 6)
	if err != nil {
		t.Fatal(err)
	}
	if c.Parent != 1 {
		t.Fatalf("reply of deleted comment has parent %d, want 1", c.Parent)
	}
}

func TestListCommentsFilters(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	seedComments(t, db)
	ctx := context.Background()
	after := at(2020, 1, 2, 1)
	karma := int64(3)
	cases := []struct {
		name string
		q    store.CommentQuery
		want []int64
	}{
		{"all by date_gmt asc", store.CommentQuery{}, []int64{1, 2, 3, 4, 5, 6}},
		{"desc", store.CommentQuery{Order: "desc"}, []int64{6, 5, 4, 3, 2, 1}},
		{"approved comments", store.CommentQuery{Approved: []string{"1"}, Types: []string{"comment"}}, []int64{1, 3, 4}},
		{"pings", store.CommentQuery{Types: []string{"pingback", "trackback"}}, []int64{6}},
		{"post 0", store.CommentQuery{Posts: []int64{0}}, []int64{5}},
		{"posts", store.CommentQuery{Posts: []int64{1, 3}}, []int64{1, 2, 4, 6}},
		{"top level", store.CommentQuery{Parents: []int64{0}}, []int64{1, 3, 4, 5}},
		{"parent exclude", store.CommentQuery{ParentExclude: []int64{0}}, []int64{2, 6}},
		{"search", store.CommentQuery{Search: "APPLE"}, []int64{1}},
		{"search ip", store.CommentQuery{Search: "10.0.0", SearchPrivate: true}, []int64{1}},
		{"search ip needs private", store.CommentQuery{Search: "10.0.0"}, []int64{}},
		{"author", store.CommentQuery{Authors: []int64{5}}, []int64{2}},
		{"author exclude", store.CommentQuery{AuthorExclude: []int64{0}}, []int64{2}},
		{"author email", store.CommentQuery{AuthorEmail: "ANN@example.com"}, []int64{1}},
		{"karma", store.CommentQuery{Karma: &karma}, []int64{2}},
		{"after local", store.CommentQuery{After: &after}, []int64{3, 4, 5, 6}},
		{"before local", store.CommentQuery{Before: &after}, []int64{1}},
		{"include order", store.CommentQuery{Include: []int64{4, 1, 2}, OrderBy: "include"}, []int64{4, 1, 2}},
		{"exclude", store.CommentQuery{Exclude: []int64{1, 2}}, []int64{3, 4, 5, 6}},
		{"order by post desc", store.CommentQuery{OrderBy: "post", Order: "desc", Limit: 3}, []int64{4, 3, 6}},
		{"order by id", store.CommentQuery{OrderBy: "id", Order: "desc", Offset: 1, Limit: 2}, []int64{5, 4}},
	}
	for _, tc := range cases {
		got, err := db.ListComments(ctx, tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(commentIDs(got), tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, commentIDs(got), tc.want)
		}
		q := tc.q
		q.Limit, q.Offset = 0, 0
		n, err := db.CountComments(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		all, _ := db.ListComments(ctx, q)
		if n != int64(len(all)) {
			t.Errorf("%s: count %d, list %d", tc.name, n, len(all))
		}
	}
}

func TestListCommentsAccess(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	seedComments(t, db)
	ctx := context.Background()
	public := store.Visibility{Public: []string{"publish"}}
	anon := &store.CommentAccess{Types: []store.CommentTypeAccess{{Type: "post", Read: public}}}
	got, err := db.ListComments(ctx, store.CommentQuery{Access: anon})
	if err != nil {
		t.Fatal(err)
	}
	// Comment 3 is on a draft, 4 on a protected post, 2 is held, 5 spam.
	if want := []int64{1, 6}; !reflect.DeepEqual(commentIDs(got), want) {
		t.Fatalf("anonymous: got %v, want %v", commentIDs(got), want)
	}
	anon.UnlockedPosts = []int64{3}
	got, _ = db.ListComments(ctx, store.CommentQuery{Access: anon, Approved: []string{"1"}})
	if want := []int64{1, 4, 6}; !reflect.DeepEqual(commentIDs(got), want) {
		t.Fatalf("unlocked: got %v, want %v", commentIDs(got), want)
	}
	// User 5 reads its own held reply; user 1 (the author of posts 1 and
	// 2, who may edit them) reads the draft's comment and the held one.
	own := &store.CommentAccess{UserID: 5, Types: []store.CommentTypeAccess{{Type: "post", Read: public}}}
	got, _ = db.ListComments(ctx, store.CommentQuery{Access: own, Posts: []int64{1}})
	if want := []int64{1, 2, 6}; !reflect.DeepEqual(commentIDs(got), want) {
		t.Fatalf("own: got %v, want %v", commentIDs(got), want)
	}
	editor := &store.CommentAccess{UserID: 1, Types: []store.CommentTypeAccess{{
		Type: "post",
		Read: store.Visibility{Public: []string{"publish"}, Owner: 1, OwnStatuses: []string{"draft", "private"}},
		Edit: store.Visibility{Owner: 1, OwnStatuses: []string{"draft", "publish"}},
	}}}
	got, _ = db.ListComments(ctx, store.CommentQuery{Access: editor})
	// The spam comment without a post needs moderate_comments.
	if want := []int64{1, 2, 3, 6}; !reflect.DeepEqual(commentIDs(got), want) {
		t.Fatalf("post author: got %v, want %v", commentIDs(got), want)
	}
	n, _ := db.CountComments(ctx, store.CommentQuery{Access: editor})
	if n != 4 {
		t.Fatalf("post author count = %d", n)
	}
}

func TestCommentDuplicateAndApprovedAuthor(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	seedComments(t, db)
	ctx := context.Background()
	dup, err := db.DuplicateComment(ctx, &store.Comment{PostID: 1, AuthorName: "x", AuthorEmail: "ann@example.com", Content: "first apple"})
	if err != nil || !dup {
		t.Fatalf("duplicate by email = %v, %v", dup, err)
	}
	dup, _ = db.DuplicateComment(ctx, &store.Comment{PostID: 1, Parent: 1, AuthorName: "Ann", Content: "first apple"})
	if dup {
		t.Fatal("a different parent is not a duplicate")
	}
	ok, _ := db.HasApprovedComment(ctx, "Ann", "ann@example.com")
	if !ok {
		t.Fatal("Ann has an approved comment")
	}
	ok, _ = db.HasApprovedComment(ctx, "Bob", "")
	if ok {
		t.Fatal("Bob has none")
	}
	replies, err := db.CommentsWithReplies(ctx, []int64{1, 2, 3})
	if err != nil || !replies[1] || !replies[2] || replies[3] {
		t.Fatalf("replies = %v, %v", replies, err)
	}
	v1, _ := db.Version(ctx)
	if err := db.InsertComment(ctx, &store.Comment{PostID: 1, Content: "x", Approved: "1", Type: "comment", DateGMT: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	if v2, _ := db.Version(ctx); v2 <= v1 {
		t.Fatal("a comment write must bump the store version")
	}
}

func TestListCommentsAccessModerator(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	seedComments(t, db)
	all := store.Visibility{Public: []string{"publish"}, OthersStatuses: []string{"draft", "private", "publish"}}
	mod := &store.CommentAccess{UserID: 9, EditNoPost: true, ModerateNoPost: true,
		Types: []store.CommentTypeAccess{{Type: "post", Read: all, Edit: all}}}
	got, err := db.ListComments(context.Background(), store.CommentQuery{Access: mod})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{1, 2, 3, 4, 5, 6}; !reflect.DeepEqual(commentIDs(got), want) {
		t.Fatalf("moderator: got %v, want %v", commentIDs(got), want)
	}
}

func TestFirstCommentsOfPosts(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	seedComments(t, db)
	pager, ok := db.(store.CommentPager)
	if !ok {
		t.Fatalf("%T is not a store.CommentPager", db)
	}
	pages, totals, err := pager.FirstCommentsOfPosts(context.Background(), store.CommentQuery{Order: "desc", Limit: 2}, []int64{1, 2, 3, 7})
	if err != nil {
		t.Fatal(err)
	}
	if got := commentIDs(pages[1]); !reflect.DeepEqual(got, []int64{6, 2}) || totals[1] != 3 {
		t.Fatalf("post 1: %v total %d", got, totals[1])
	}
	if got := commentIDs(pages[2]); !reflect.DeepEqual(got, []int64{3}) || totals[2] != 1 {
		t.Fatalf("post 2: %v total %d", got, totals[2])
	}
	if _, ok := pages[7]; ok || totals[7] != 0 {
		t.Fatal("post 7 has no comments")
	}
}
