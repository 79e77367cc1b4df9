package endpoints_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/folio-server/folio/internal/events"
	"github.com/folio-server/folio/internal/store"
)

// trashFixture is a published post (in one category) with comments in
// every status, and a second post with one approved comment.
type trashFixture struct {
	post, other                          *store.Post
	cat                                  int64
	approved, approved2, held, spam, bin int64
	elsewhere                            int64
}

func newTrashFixture(e *commentEnv) *trashFixture {
	e.T.Helper()
	f := &trashFixture{}
	f.cat = int64(e.do("POST", "/api/svc/v2/categories", "editor", map[string]any{"name": "Trash test"}).Object()["id"].(float64))
	f.post = e.createPost("author", "post", map[string]any{"categories": []int64{f.cat}})
	f.other = e.createPost("author", "post", nil)
	f.approved = e.mkComment("editor", map[string]any{"post": f.post.ID, "content": "approved one"})
	f.approved2 = e.mkComment("editor", map[string]any{"post": f.post.ID, "content": "approved two", "parent": f.approved})
	f.held = e.mkComment("subscriber", map[string]any{"post": f.post.ID, "content": "held"})
	f.spam = e.mkComment("editor", map[string]any{"post": f.post.ID, "content": "spam"})
	e.do("POST", cpath(f.spam), "editor", map[string]any{"status": "spam"}).WantStatus(200)
	f.bin = e.mkComment("editor", map[string]any{"post": f.post.ID, "content": "binned"})
	e.do("DELETE", cpath(f.bin), "editor").WantStatus(200)
	f.elsewhere = e.mkComment("editor", map[string]any{"post": f.other.ID, "content": "elsewhere"})
	return f
}

// wantStored checks the stored status and pre-trash status of comments.
func (e *commentEnv) wantStored(want map[int64][2]string) {
	e.T.Helper()
	for id, w := range want {
		c := e.comment(id)
		if c.Approved != w[0] || c.PreTrashStatus != w[1] {
			e.T.Errorf("comment %d: approved %q pre-trash %q, want %q %q", id, c.Approved, c.PreTrashStatus, w[0], w[1])
		}
	}
}

func (e *commentEnv) categoryCount(id int64) float64 {
	e.T.Helper()
	r := e.do("GET", fmt.Sprintf("/api/svc/v2/categories/%d", id), "")
	r.WantStatus(200)
	return r.Object()["count"].(float64)
}

// listIDs returns the sorted ids of a comments collection and its total.
func (e *commentEnv) listIDs(query, login string) ([]int64, string) {
	e.T.Helper()
	r := e.do("GET", comments+query, login)
	r.WantStatus(200)
	got := ids(r.Array())
	slices.Sort(got)
	return got, r.Header.Get("X-API-Total")
}

func (f *trashFixture) before() map[int64][2]string {
	return map[int64][2]string{
		f.approved: {"1", ""}, f.approved2: {"1", ""}, f.held: {"0", ""},
		f.spam: {"spam", "1"}, f.bin: {"trash", "1"}, f.elsewhere: {"1", ""},
	}
}

func (f *trashFixture) trashed() map[int64][2]string {
	return map[int64][2]string{
		f.approved: {"post-trashed", ""}, f.approved2: {"post-trashed", ""}, f.held: {"post-trashed", ""},
		// A comment's own trash and spam memory survives the post's trip.
		f.spam: {"post-trashed", "1"}, f.bin: {"post-trashed", "1"}, f.elsewhere: {"1", ""},
	}
}

func TestTrashingAPostTrashesItsCommentsAndRestoringRestoresThem(t *testing.T) {
	for _, restore := range []string{"publish", "draft"} {
		t.Run(restore, func(t *testing.T) {
			e := newCommentEnv(t)
			f := newTrashFixture(e)
			e.wantStored(f.before())
			if n := e.commentCount(f.post.ID); n != 2 {
				t.Fatalf("comment count before: %d", n)
			}
			if n := e.categoryCount(f.cat); n != 1 {
				t.Fatalf("category count before: %v", n)
			}
			pub, _ := e.listIDs("", "")
			if want := []int64{f.approved, f.approved2, f.elsewhere}; !reflect.DeepEqual(pub, want) {
				t.Fatalf("public list before: %v, want %v", pub, want)
			}

			// The post's author trashes it.
			e.do("DELETE", fmt.Sprintf("%s/%d", posts, f.post.ID), "author").WantStatus(200)
			e.wantStored(f.trashed())
			if n := e.commentCount(f.post.ID); n != 0 {
				t.Errorf("comment count of a trashed post: %d", n)
			}
			if n := e.commentCount(f.other.ID); n != 1 {
				t.Errorf("comment count of the other post: %d", n)
			}
			if n := e.categoryCount(f.cat); n != 0 {
				t.Errorf("category count with the post in the trash: %v", n)
			}
			// Nobody lists post-trashed comments by default; the public
			// cannot read them one by one.
			for _, role := range allRoles {
				got, total := e.listIDs("", role)
				if want := []int64{f.elsewhere}; !reflect.DeepEqual(got, want) || total != "1" {
					t.Errorf("%q list with the post in the trash: %v total %s, want %v", role, got, total, want)
				}
			}
			e.do("GET", cpath(f.approved), "").WantError(401, "rest_cannot_read")
			e.do("GET", cpath(f.held), "subscriber").WantError(403, "rest_cannot_read")
			e.do("GET", fmt.Sprintf("%s?status=post-trashed", comments), "").WantError(401, "rest_forbidden_param")
			// Moderators see the status.
			for _, role := range []string{"administrator", "editor"} {
				r := e.do("GET", cpath(f.approved)+"?context=edit", role)
				r.WantStatus(200)
				if st := r.Object()["status"]; st != "post-trashed" {
					t.Errorf("%s: status %v, want post-trashed", role, st)
				}
				got, total := e.listIDs("?status=post-trashed", role)
				if want := []int64{f.approved, f.approved2, f.held, f.spam, f.bin}; !reflect.DeepEqual(got, want) || total != "5" {
					t.Errorf("%s: post-trashed list %v total %s, want %v", role, got, total, want)
				}
			}
			// Trashing again changes nothing.
			e.do("DELETE", fmt.Sprintf("%s/%d", posts, f.post.ID), "editor").WantError(410, "rest_already_trashed")
			e.wantStored(f.trashed())

			// Restoring the post from the trash restores every status.
			r := e.do("POST", fmt.Sprintf("%s/%d", posts, f.post.ID), "editor", map[string]any{"status": restore})
			r.WantStatus(200)
			e.wantStored(f.before())
			if n := e.commentCount(f.post.ID); n != 2 {
				t.Errorf("comment count after the restore: %d", n)
			}
			wantCat, wantPub := float64(1), []int64{f.approved, f.approved2, f.elsewhere}
			if restore == "draft" {
				wantCat, wantPub = 0, []int64{f.elsewhere}
			}
			if n := e.categoryCount(f.cat); n != wantCat {
				t.Errorf("category count after the restore: %v, want %v", n, wantCat)
			}
			if got, _ := e.listIDs("", ""); !reflect.DeepEqual(got, wantPub) {
				t.Errorf("public list after the restore: %v, want %v", got, wantPub)
			}
			// The comment that was in the trash on its own still untrashes
			// to its own status.
			e.do("POST", cpath(f.bin), "editor", map[string]any{"status": "untrash"}).WantStatus(200)
			e.wantStored(map[int64][2]string{f.bin: {"1", ""}})
			if n := e.commentCount(f.post.ID); n != 3 {
				t.Errorf("comment count after untrashing a comment: %d", n)
			}
		})
	}
}

func TestPostTrashedCommentsOfAPageFollowIt(t *testing.T) {
	e := newCommentEnv(t)
	page := e.createPost("editor", "page", map[string]any{"comment_status": "open"})
	id := e.mkComment("editor", map[string]any{"post": page.ID, "content": "on a page"})
	e.do("DELETE", fmt.Sprintf("/api/svc/v2/pages/%d", page.ID), "editor").WantStatus(200)
	e.wantStored(map[int64][2]string{id: {"post-trashed", ""}})
	if n := e.commentCount(page.ID); n != 0 {
		t.Errorf("comment count of a trashed page: %d", n)
	}
	e.do("POST", fmt.Sprintf("/api/svc/v2/pages/%d", page.ID), "editor", map[string]any{"status": "publish"}).WantStatus(200)
	e.wantStored(map[int64][2]string{id: {"1", ""}})
	if n := e.commentCount(page.ID); n != 1 {
		t.Errorf("comment count of a restored page: %d", n)
	}
}

func TestUpdatingATrashedPostWithoutLeavingTheTrashKeepsCommentsTrashed(t *testing.T) {
	e := newCommentEnv(t)
	p := e.createPost("author", "post", nil)
	id := e.mkComment("editor", map[string]any{"post": p.ID, "content": "stays"})
	e.do("DELETE", fmt.Sprintf("%s/%d", posts, p.ID), "editor").WantStatus(200)
	e.do("POST", fmt.Sprintf("%s/%d", posts, p.ID), "editor", map[string]any{"title": "Renamed in the trash"}).WantStatus(200)
	e.wantStored(map[int64][2]string{id: {"post-trashed", ""}})
	if n := e.commentCount(p.ID); n != 0 {
		t.Errorf("comment count: %d", n)
	}
}

func TestTrashRestoreAndDeleteOfAPostFireOnlyThePostChange(t *testing.T) {
	e := newCommentEnv(t)
	p := e.createPost("author", "post", nil)
	id := e.mkComment("editor", map[string]any{"post": p.ID, "content": "watched"})
	var changes []string
	e.site.Hooks().Changed.BindFunc(func(ev *events.ChangeEvent) error {
		ch := ev.Change
		changes = append(changes, fmt.Sprintf("%s %s %d", ch.Kind, ch.Action, ch.ID))
		return ev.Next()
	})
	hooks := 0
	e.site.Hooks().DeleteComment.BindFunc(func(ev *events.DeleteCommentEvent) error { hooks++; return ev.Next() })
	e.site.Hooks().InsertComment.BindFunc(func(ev *events.InsertCommentEvent) error { hooks++; return ev.Next() })

	e.do("DELETE", fmt.Sprintf("%s/%d", posts, p.ID), "editor").WantStatus(200)
	e.do("POST", fmt.Sprintf("%s/%d", posts, p.ID), "editor", map[string]any{"status": "publish"}).WantStatus(200)
	e.wantStored(map[int64][2]string{id: {"1", ""}})
	e.do("DELETE", fmt.Sprintf("%s/%d?force=true", posts, p.ID), "editor").WantStatus(200)
	if _, err := e.db.GetComment(context.Background(), id); err == nil {
		t.Error("the comments of a deleted post are deleted")
	}
	want := []string{
		fmt.Sprintf("post trashed %d", p.ID),
		fmt.Sprintf("post updated %d", p.ID),
		fmt.Sprintf("post deleted %d", p.ID),
	}
	if !reflect.DeepEqual(changes, want) || hooks != 0 {
		t.Errorf("changes %v and %d comment hooks, want %v and none", changes, hooks, want)
	}
	e.do("GET", cpath(id), "editor").WantError(404, "rest_comment_invalid_id")
}

func TestAFailedRestoreLeavesCommentsTrashed(t *testing.T) {
	e := newCommentEnv(t)
	p := e.createPost("author", "post", nil)
	id := e.mkComment("editor", map[string]any{"post": p.ID, "content": "rolled back"})
	e.do("DELETE", fmt.Sprintf("%s/%d", posts, p.ID), "editor").WantStatus(200)
	e.site.Hooks().Changed.BindFunc(func(ev *events.ChangeEvent) error {
		if ev.Change.Action == "updated" {
			return fmt.Errorf("refused")
		}
		return ev.Next()
	})
	if r := e.do("POST", fmt.Sprintf("%s/%d", posts, p.ID), "editor", map[string]any{"status": "publish"}); r.Status < 400 {
		t.Fatalf("restore with a failing change: %d", r.Status)
	}
	e.wantStored(map[int64][2]string{id: {"post-trashed", ""}})
	if n := e.commentCount(p.ID); n != 0 {
		t.Errorf("comment count: %d", n)
	}
}
