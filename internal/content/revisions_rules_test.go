package content_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/store"
)

// TestRevisionIsSavedWhenTitleContentOrExcerptChange: an update that
// changes the title, the content or the excerpt of a post or a page saves
// one revision (by the updater, child of the post, dated when the post was
// modified, holding the new text); an update of anything else, or of a
// type without revisions, saves none. Revisions list newest first.
func TestRevisionIsSavedWhenTitleContentOrExcerptChange(t *testing.T) {
	t.Parallel()
	r := newRulesWith(t, func(c *config.Config) {
		c.PostTypes = []config.PostType{{Name: "note", RestBase: "notes", Supports: []string{"title", "editor"}}}
	})
	p := r.create("author", content.PostInput{Title: ptr("One"), Content: ptr("Body"), Status: ptr("publish")})
	revs := func(id int64) []*store.Post {
		t.Helper()
		out, err := r.site.Revisions(r.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if n := len(revs(p.ID)); n != 0 {
		t.Fatalf("a new post has %d revisions", n)
	}
	update := func(role string, in content.PostInput) {
		t.Helper()
		r.now = r.now.Add(time.Minute)
		if _, err := r.site.UpdatePost(r.ctx, r.users[role], r.get(p.ID), in); err != nil {
			t.Fatal(err)
		}
	}
	update("author", content.PostInput{Title: ptr("Two")})
	update("editor", content.PostInput{Content: ptr("New body")})
	update("author", content.PostInput{Excerpt: ptr("Short")})
	update("author", content.PostInput{Status: ptr("private")})
	update("author", content.PostInput{Slug: ptr("renamed")})
	update("author", content.PostInput{Title: ptr("Short"), Content: nil})
	got := revs(p.ID)
	if len(got) != 4 {
		t.Fatalf("%d revisions, want 4 (title, content, excerpt, title again; not status or slug)", len(got))
	}
	newest := got[0]
	if newest.Type != content.RevisionType || newest.Status != "inherit" || newest.Parent != p.ID || newest.Title != "Short" ||
		newest.Slug != strconv.FormatInt(p.ID, 10)+"-revision-v1" || newest.CommentStatus != "closed" {
		t.Errorf("newest revision = %+v", newest)
	}
	if got[2].Author != r.users["editor"].ID() || got[2].Content != "New body" || got[2].Title != "Two" {
		t.Errorf("the editor's revision: author %d content %q title %q", got[2].Author, got[2].Content, got[2].Title)
	}
	for i := 1; i < len(got); i++ {
		if !got[i-1].DateGMT.After(got[i].DateGMT) {
			t.Errorf("revisions not newest first: %v then %v", got[i-1].DateGMT, got[i].DateGMT)
		}
	}
	if !newest.DateGMT.Equal(r.get(p.ID).ModifiedGMT) {
		t.Errorf("revision dated %v, post modified %v", newest.DateGMT, r.get(p.ID).ModifiedGMT)
	}

	// A page keeps revisions; a type without "revisions" support does not.
	page, _, err := r.site.CreatePost(r.ctx, r.users["editor"], r.typ("page"), content.PostInput{Title: ptr("Page"), Status: ptr("publish")}, "")
	if err != nil {
		t.Fatal(err)
	}
	note, _, err := r.site.CreatePost(r.ctx, r.users["editor"], r.typ("note"), content.PostInput{Title: ptr("Note"), Status: ptr("publish")}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{page.ID, note.ID} {
		if _, err := r.site.UpdatePost(r.ctx, r.users["editor"], r.get(id), content.PostInput{Title: ptr("Changed")}); err != nil {
			t.Fatal(err)
		}
	}
	if !content.SupportsRevisions(r.typ("page")) || content.SupportsRevisions(r.typ("note")) {
		t.Errorf("SupportsRevisions: page %v, note %v", content.SupportsRevisions(r.typ("page")), content.SupportsRevisions(r.typ("note")))
	}
	if len(revs(page.ID)) != 1 || len(revs(note.ID)) != 0 {
		t.Errorf("revisions: page %d (want 1), note %d (want 0)", len(revs(page.ID)), len(revs(note.ID)))
	}
}

// TestRevisionsAreSeenAndDeletedAsTheirParentIsEdited: revisions are shown
// to whoever may edit their post (edit_post on the parent) and deleted by
// whoever may delete it (delete_post on the revision maps to the parent);
// a revision is never read as a post of its own (CanRead), whoever asks,
// so it shows only through its post's revisions. Deleting a post
// takes its revisions along; DeleteRevision refuses anything but a
// revision.
func TestRevisionsAreSeenAndDeletedAsTheirParentIsEdited(t *testing.T) {
	t.Parallel()
	r := newRules(t)
	other := &store.User{Login: "author2", Email: "author2@example.com", Nicename: "author2", Registered: r.now, Roles: []string{"author"}}
	if err := r.site.Storage().InsertUser(r.ctx, other); err != nil {
		t.Fatal(err)
	}
	r.users["author2"] = auth.NewUser(other, r.site.Roles())

	for _, status := range []string{"publish", "draft"} {
		p := r.create("author", content.PostInput{Title: ptr("Mine " + status), Status: ptr(status)})
		if _, err := r.site.UpdatePost(r.ctx, r.users["author"], p, content.PostInput{Content: ptr("Edited")}); err != nil {
			t.Fatal(err)
		}
		revs, err := r.site.Revisions(r.ctx, p.ID)
		if err != nil || len(revs) != 1 {
			t.Fatalf("%s: revisions %v %v", status, revs, err)
		}
		rev := revs[0]
		for _, tt := range []struct {
			role         string
			edit, delete bool
		}{
			{"", false, false},
			{"subscriber", false, false},
			{"contributor", false, false},
			{"author2", false, false},
			{"author", true, true},
			{"editor", true, true},
			{"administrator", true, true},
		} {
			u := r.users[tt.role]
			if got := r.site.Can(r.ctx, u, "edit_post", r.get(p.ID)); got != tt.edit {
				t.Errorf("%s post, %q sees its revisions = %v, want %v", status, tt.role, got, tt.edit)
			}
			if got := r.site.Can(r.ctx, u, "delete_post", rev); got != tt.delete {
				t.Errorf("%s post, %q deletes a revision = %v, want %v", status, tt.role, got, tt.delete)
			}
			if r.site.CanRead(r.ctx, u, rev) {
				t.Errorf("%s post, %q reads a revision as a post", status, tt.role)
			}
		}
	}

	p := r.create("author", content.PostInput{Title: ptr("Doomed"), Status: ptr("publish")})
	for i := range 3 {
		if _, err := r.site.UpdatePost(r.ctx, r.users["author"], r.get(p.ID), content.PostInput{Title: ptr(fmt.Sprint("Doomed ", i))}); err != nil {
			t.Fatal(err)
		}
	}
	revs, _ := r.site.Revisions(r.ctx, p.ID)
	if len(revs) != 3 {
		t.Fatalf("%d revisions, want 3", len(revs))
	}
	if err := r.site.DeleteRevision(r.ctx, p); err == nil {
		t.Error("DeleteRevision removed a post")
	}
	if _, ok, _ := r.site.GetPost(r.ctx, p.ID); !ok {
		t.Fatal("the post is gone after a refused DeleteRevision")
	}
	if err := r.site.DeleteRevision(r.ctx, revs[0]); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := r.site.GetPost(r.ctx, revs[0].ID); ok {
		t.Error("the deleted revision is still there")
	}
	if err := r.site.DeletePost(r.ctx, r.get(p.ID)); err != nil {
		t.Fatal(err)
	}
	for _, rev := range revs[1:] {
		if _, ok, _ := r.site.GetPost(context.Background(), rev.ID); ok {
			t.Errorf("revision %d survived its post", rev.ID)
		}
	}
}
