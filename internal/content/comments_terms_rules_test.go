package content_test

import (
	"testing"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/store"
)

func TestWhoMayComment(t *testing.T) {
	t.Parallel()
	r := newRules(t)
	open := r.create("author", content.PostInput{Title: ptr("Open"), Status: ptr("publish"), CommentStatus: ptr("open")})
	closed := r.create("author", content.PostInput{Title: ptr("Closed"), Status: ptr("publish"), CommentStatus: ptr("closed")})
	draft := r.create("author", content.PostInput{Title: ptr("Draft"), Status: ptr("draft"), CommentStatus: ptr("open")})
	locked := r.create("author", content.PostInput{Title: ptr("Locked"), Status: ptr("publish"), Password: ptr("pw"), CommentStatus: ptr("open")})
	other := r.users["editor"].ID()
	for _, tt := range []struct {
		name, who string
		in        content.CommentCreateCheck
		want      string // error code, "" = allowed
	}{
		{"open post", "subscriber", content.CommentCreateCheck{Post: open.ID}, ""},
		{"closed post", "subscriber", content.CommentCreateCheck{Post: closed.ID}, "rest_comment_closed"},
		{"closed post, moderator", "editor", content.CommentCreateCheck{Post: closed.ID}, "rest_comment_closed"},
		{"someone's draft", "subscriber", content.CommentCreateCheck{Post: draft.ID}, "rest_cannot_read_post"},
		{"own draft", "author", content.CommentCreateCheck{Post: draft.ID}, ""},
		{"protected, no password", "subscriber", content.CommentCreateCheck{Post: locked.ID}, "rest_cannot_read_post"},
		{"protected, wrong password", "subscriber", content.CommentCreateCheck{Post: locked.ID, Password: "nope"}, "rest_cannot_read_post"},
		{"protected, password", "subscriber", content.CommentCreateCheck{Post: locked.ID, Password: "pw"}, ""},
		{"as another author", "subscriber", content.CommentCreateCheck{Post: open.ID, Author: &other}, "rest_comment_invalid_author"},
		{"as another author, moderator", "administrator", content.CommentCreateCheck{Post: open.ID, Author: &other}, ""},
		{"karma", "author", content.CommentCreateCheck{Post: open.ID, Karma: ptr(int64(3))}, "rest_comment_invalid_karma"},
		{"status", "contributor", content.CommentCreateCheck{Post: open.ID, StatusGiven: true}, "rest_comment_invalid_status"},
		{"status, moderator", "editor", content.CommentCreateCheck{Post: open.ID, StatusGiven: true}, ""},
	} {
		err := r.site.CheckCreateComment(r.ctx, r.users[tt.who], tt.in)
		if got := errCode(err); got != tt.want || (err != nil && got == "") {
			t.Errorf("%s as %s: %v, want %q", tt.name, tt.who, err, tt.want)
		}
	}
}

func TestCommentsFollowTheirPostToTheTrash(t *testing.T) {
	t.Parallel()
	r := newRules(t)
	p := r.create("author", content.PostInput{Title: ptr("P"), Status: ptr("publish"), CommentStatus: ptr("open")})
	c, err := r.site.CreateComment(r.ctx, r.users["editor"], content.CommentInput{Post: &p.ID, Content: ptr("First")}, content.CommentOrigin{IP: "192.0.2.1", UserAgent: "test"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.AuthorID != r.users["editor"].ID() || c.Approved != store.CommentApproved || c.AuthorIP != "192.0.2.1" {
		t.Errorf("comment: author %d approved %q ip %q", c.AuthorID, c.Approved, c.AuthorIP)
	}
	if err := r.site.TrashPost(r.ctx, r.get(p.ID)); err != nil {
		t.Fatal(err)
	}
	got, ok, err := r.site.GetComment(r.ctx, c.ID)
	if err != nil || !ok {
		t.Fatalf("comment after trashing its post: %v %v", ok, err)
	}
	if got.Approved != "post-trashed" {
		t.Errorf("comment of a trashed post is %q, want post-trashed", got.Approved)
	}
	if err := r.site.DeletePost(r.ctx, r.get(p.ID)); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := r.site.GetComment(r.ctx, c.ID); ok || err != nil {
		t.Errorf("comment outlived its deleted post (%v, %v)", ok, err)
	}
}

func TestCommentTrashAndDelete(t *testing.T) {
	t.Parallel()
	r := newRules(t)
	p := r.create("author", content.PostInput{Title: ptr("P"), Status: ptr("publish"), CommentStatus: ptr("open")})
	c, err := r.site.CreateComment(r.ctx, r.users["subscriber"], content.CommentInput{Post: &p.ID, Content: ptr("Hi")}, content.CommentOrigin{IP: "192.0.2.2"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.site.TrashComment(r.ctx, c); err != nil {
		t.Fatal(err)
	}
	got, ok, err := r.site.GetComment(r.ctx, c.ID)
	if err != nil || !ok || got.Approved != "trash" {
		t.Fatalf("trashed comment: %v %v %+v", ok, err, got)
	}
	if err := r.site.DeleteComment(r.ctx, got); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := r.site.GetComment(r.ctx, c.ID); ok || err != nil {
		t.Errorf("deleted comment still found (%v, %v)", ok, err)
	}
}

func TestTermNamesAndSlugs(t *testing.T) {
	t.Parallel()
	r := newRules(t)
	cats, _ := r.site.Taxonomies().Get("category")
	tags, _ := r.site.Taxonomies().Get("post_tag")
	mk := func(tax *content.Taxonomy, in content.TermInput) (*store.Term, string) {
		t.Helper()
		term, err := r.site.CreateTerm(r.ctx, tax, in, nil)
		if err != nil && errCode(err) == "" {
			t.Fatal(err)
		}
		return term, errCode(err)
	}
	news, code := mk(cats, content.TermInput{Name: ptr("News Items")})
	if code != "" || news.Slug != "news-items" {
		t.Fatalf("news: %s %+v", code, news)
	}
	if _, code := mk(cats, content.TermInput{Name: ptr("News Items")}); code != "term_exists" {
		t.Errorf("same name in one taxonomy: %q, want term_exists", code)
	}
	// Another taxonomy may have the name; a child of another parent too,
	// with its slug made unique.
	if tag, code := mk(tags, content.TermInput{Name: ptr("News Items")}); code != "" || tag.Slug != "news-items" {
		t.Errorf("tag with a category's name: %q %+v", code, tag)
	}
	child, code := mk(cats, content.TermInput{Name: ptr("News Items"), Parent: &news.ID})
	if code != "" || child.Slug != "news-items-2" || child.Parent != news.ID {
		t.Errorf("child with the parent's name: %q %+v", code, child)
	}
	if _, code := mk(cats, content.TermInput{Name: ptr("Orphan"), Parent: ptr(int64(999999))}); code == "" {
		t.Error("a term with a missing parent was created")
	}
	if _, code := mk(cats, content.TermInput{Name: ptr("  ")}); code == "" {
		t.Error("a term with an empty name was created")
	}
	// Renaming onto a slug in use is refused.
	other, _ := mk(cats, content.TermInput{Name: ptr("Other")})
	if _, err := r.site.UpdateTerm(r.ctx, cats, other, content.TermInput{Slug: ptr("news-items")}, nil); errCode(err) != "duplicate_term_slug" {
		t.Errorf("slug in use: %v, want duplicate_term_slug", err)
	}
	if err := r.site.DeleteTerm(r.ctx, cats, other); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := r.site.GetTerm(r.ctx, cats, other.ID); ok || err != nil {
		t.Errorf("deleted term still found (%v, %v)", ok, err)
	}
	if _, ok, _ := r.site.GetTerm(r.ctx, tags, news.ID); ok {
		t.Error("a category was found as a tag")
	}
}
