package content_test

import (
	"strings"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/store"
)

// tx runs fn in a transaction of the site's store, as the importer does.
func (r *rules) tx(fn func(tx store.Store) error) {
	r.t.Helper()
	if err := r.site.Storage().Tx(r.ctx, fn); err != nil {
		r.t.Fatal(err)
	}
}

// importPost imports p with terms and no meta; it fails the test on error.
func (r *rules) importPost(p *store.Post, terms map[string][]int64) *store.Post {
	r.t.Helper()
	r.tx(func(tx store.Store) error { return r.site.ImportPost(r.ctx, tx, p, terms, nil) })
	return r.get(p.ID)
}

// TestImportedPostsKeepTheInterfacesInvariants: an imported post keeps
// what the export says (author, dates, status) but passes the rules the
// interface keeps: unknown statuses become draft, a published post dated
// later is scheduled and a scheduled one in the past published, a private
// post has no password, only posts are sticky and never protected ones,
// the text is sanitized, the slug is unique, a parent or featured image
// that is not there is dropped, and a post gets the default category.
func TestImportedPostsKeepTheInterfacesInvariants(t *testing.T) {
	t.Parallel()
	r := newRules(t)
	author := r.users["contributor"].ID()
	past := time.Date(2011, 7, 2, 8, 0, 0, 0, time.UTC)
	future := r.now.Add(72 * time.Hour)
	for _, tt := range []struct {
		name   string
		in     store.Post
		status string
		check  func(p *store.Post) bool
	}{
		{"keeps the export's author and date", store.Post{Type: "post", Title: "Old", Status: "publish", Author: author, DateGMT: past},
			"publish", func(p *store.Post) bool { return p.Author == author && p.DateGMT.Equal(past) && p.Date.Equal(past) }},
		{"unknown status", store.Post{Type: "post", Title: "Odd", Status: "wibble"}, "draft", nil},
		{"auto-draft", store.Post{Type: "post", Title: "Auto", Status: "auto-draft"}, "draft", nil},
		{"later is scheduled", store.Post{Type: "post", Title: "Later", Status: "publish", DateGMT: future}, "future", nil},
		{"past schedule published", store.Post{Type: "post", Title: "Was later", Status: "future", DateGMT: past}, "publish", nil},
		{"private has no password", store.Post{Type: "post", Title: "Priv", Status: "private", Password: "pw"}, "private",
			func(p *store.Post) bool { return p.Password == "" }},
		{"protected is not sticky", store.Post{Type: "post", Title: "Prot", Status: "publish", Password: "pw", Sticky: true}, "publish",
			func(p *store.Post) bool { return !p.Sticky && p.Password == "pw" }},
		{"sticky post", store.Post{Type: "post", Title: "Pin", Status: "publish", Sticky: true}, "publish",
			func(p *store.Post) bool { return p.Sticky }},
		{"pages are never sticky", store.Post{Type: "page", Title: "Pg", Status: "publish", Sticky: true}, "publish",
			func(p *store.Post) bool { return !p.Sticky }},
		{"inherit post published", store.Post{Type: "post", Title: "Inh", Status: "inherit"}, "publish", nil},
		{"sanitized", store.Post{Type: "post", Title: "T<script>x()</script>", Content: `<p onclick="x()">Hi</p>`, Status: "publish"}, "publish",
			func(p *store.Post) bool {
				return !strings.Contains(p.Title, "<script") && !strings.Contains(p.Content, "onclick") && strings.Contains(p.Content, "Hi")
			}},
		{"missing parent and featured media dropped", store.Post{Type: "page", Title: "Orphan", Status: "publish", Parent: 999999, FeaturedMedia: 999998}, "publish",
			func(p *store.Post) bool { return p.Parent == 0 && p.FeaturedMedia == 0 }},
		{"bad format dropped", store.Post{Type: "post", Title: "Fmt", Status: "publish", Format: "hologram"}, "publish",
			func(p *store.Post) bool { return p.Format == "" }},
		{"trash keeps its status before", store.Post{Type: "post", Title: "Bin", Status: "trash", PreTrashStatus: "private"}, "trash",
			func(p *store.Post) bool { return p.PreTrashStatus == "private" }},
		{"trash forgets an internal status", store.Post{Type: "post", Title: "Bin2", Status: "trash", PreTrashStatus: "auto-draft"}, "trash",
			func(p *store.Post) bool { return p.PreTrashStatus == "" }},
	} {
		in := tt.in
		p := r.importPost(&in, nil)
		if p.Status != tt.status || (tt.check != nil && !tt.check(p)) {
			t.Errorf("%s: imported %+v, want status %s", tt.name, p, tt.status)
		}
	}

	// Slugs stay unique; a post gets the default category.
	a := r.importPost(&store.Post{Type: "post", Title: "Same", Slug: "same", Status: "publish"}, nil)
	b := r.importPost(&store.Post{Type: "post", Title: "Same", Slug: "same", Status: "publish"}, nil)
	if a.Slug != "same" || b.Slug == "same" || !strings.HasPrefix(b.Slug, "same-") {
		t.Errorf("slugs %q and %q", a.Slug, b.Slug)
	}
	terms, err := r.site.Storage().PostTerms(r.ctx, []int64{a.ID}, nil)
	if err != nil || len(terms[a.ID]) != 1 || terms[a.ID][0].ID != content.DefaultCategoryID {
		t.Errorf("terms of an imported post without categories = %v %v", terms[a.ID], err)
	}

	// An unknown type or a post that already has an id is refused.
	r.tx(func(tx store.Store) error {
		if err := r.site.ImportPost(r.ctx, tx, &store.Post{Type: "spaceship", Title: "X"}, nil, nil); err == nil {
			t.Error("a post of an unknown type was imported")
		}
		if err := r.site.ImportPost(r.ctx, tx, &store.Post{ID: a.ID, Type: "post", Title: "X"}, nil, nil); err == nil {
			t.Error("a post with an id was imported")
		}
		return nil
	})
}

// TestImportedLinksRefuseLoopsAndNonAttachments: ImportPostLinks sets a
// parent only on a hierarchical type and never to the post itself or one
// of its descendants, and a featured image only when it is an attachment.
func TestImportedLinksRefuseLoopsAndNonAttachments(t *testing.T) {
	t.Parallel()
	r := newRules(t)
	top := r.importPost(&store.Post{Type: "page", Title: "Top", Status: "publish"}, nil)
	mid := r.importPost(&store.Post{Type: "page", Title: "Mid", Status: "publish"}, nil)
	leaf := r.importPost(&store.Post{Type: "page", Title: "Leaf", Status: "publish"}, nil)
	post := r.importPost(&store.Post{Type: "post", Title: "Post", Status: "publish"}, nil)
	att := r.importPost(&store.Post{Type: content.AttachmentType, Title: "Pic", Status: "publish", MimeType: "image/png"}, nil)
	if att.Status != "inherit" {
		t.Errorf("imported attachment status %s, want inherit", att.Status)
	}
	link := func(id, parent, featured int64) bool {
		t.Helper()
		var changed bool
		r.tx(func(tx store.Store) error {
			var err error
			changed, err = r.site.ImportPostLinks(r.ctx, tx, id, parent, featured)
			return err
		})
		return changed
	}
	if !link(mid.ID, top.ID, 0) || !link(leaf.ID, mid.ID, 0) {
		t.Fatal("a valid parent was not set")
	}
	for _, tt := range []struct {
		name                 string
		id, parent, featured int64
	}{
		{"itself", top.ID, top.ID, 0},
		{"its child", top.ID, mid.ID, 0},
		{"its grandchild", top.ID, leaf.ID, 0},
		{"a missing parent", top.ID, 999999, 0},
		{"a parent of a post", post.ID, top.ID, 0},
		{"a page as featured image", post.ID, 0, top.ID},
		{"the same parent again", leaf.ID, mid.ID, 0},
	} {
		if link(tt.id, tt.parent, tt.featured) {
			t.Errorf("%s: the post was changed", tt.name)
		}
	}
	if !link(post.ID, 0, att.ID) || r.get(post.ID).FeaturedMedia != att.ID {
		t.Errorf("an attachment was not set as featured image: %d", r.get(post.ID).FeaturedMedia)
	}
	if r.get(top.ID).Parent != 0 || r.get(leaf.ID).Parent != mid.ID {
		t.Errorf("parents: top %d, leaf %d", r.get(top.ID).Parent, r.get(leaf.ID).Parent)
	}
}

// TestImportedCommentsTermsAndUsers: comments take the exported status
// (held when unknown), drop a parent of another post and an author who is
// not there, are sanitized and are post-trashed on a trashed post; terms
// are found by slug before they are made, need a name, and keep a parent
// of their own hierarchical taxonomy only, without loops; users are found
// by login, need a valid login and a known role, get no password and
// lose an email another user has.
func TestImportedCommentsTermsAndUsers(t *testing.T) {
	t.Parallel()
	r := newRules(t)
	post := r.importPost(&store.Post{Type: "post", Title: "Talk", Status: "publish"}, nil)
	other := r.importPost(&store.Post{Type: "post", Title: "Other", Status: "publish"}, nil)
	bin := r.importPost(&store.Post{Type: "post", Title: "Bin", Status: "trash", PreTrashStatus: "publish"}, nil)
	comment := func(c store.Comment) *store.Comment {
		t.Helper()
		r.tx(func(tx store.Store) error { return r.site.ImportComment(r.ctx, tx, &c) })
		got, ok, err := r.site.GetComment(r.ctx, c.ID)
		if err != nil || !ok {
			t.Fatalf("comment %d: %v %v", c.ID, ok, err)
		}
		return got
	}
	first := comment(store.Comment{PostID: post.ID, Content: "Hi <script>x()</script>", AuthorName: "<b>Ann</b>", Approved: "approve", AuthorID: 999999})
	if first.Approved != store.CommentApproved || strings.Contains(first.Content, "<script") || first.AuthorName != "Ann" || first.AuthorID != 0 || first.DateGMT.IsZero() {
		t.Errorf("first comment = %+v", first)
	}
	foreign := comment(store.Comment{PostID: other.ID, Content: "Elsewhere", Approved: "1"})
	reply := comment(store.Comment{PostID: post.ID, Content: "Reply", Approved: "whatever", Parent: foreign.ID})
	if reply.Parent != 0 || reply.Approved != store.CommentHeld {
		t.Errorf("reply with a parent of another post: parent %d status %s", reply.Parent, reply.Approved)
	}
	spam := comment(store.Comment{PostID: post.ID, Content: "Buy", Approved: store.CommentSpam, PreTrashStatus: "1"})
	if spam.Approved != store.CommentSpam || spam.PreTrashStatus != "1" {
		t.Errorf("spam = %s / %q", spam.Approved, spam.PreTrashStatus)
	}
	held := comment(store.Comment{PostID: post.ID, Content: "Hold", Approved: "0", PreTrashStatus: "1"})
	if held.PreTrashStatus != "" {
		t.Errorf("a held comment keeps a status before trash: %q", held.PreTrashStatus)
	}
	onBin := comment(store.Comment{PostID: bin.ID, Content: "On trash", Approved: "1"})
	if onBin.Approved != store.CommentPostTrashed {
		t.Errorf("comment of a trashed post = %s, want post-trashed", onBin.Approved)
	}
	var changed bool
	r.tx(func(tx store.Store) (err error) {
		changed, err = r.site.ImportCommentParent(r.ctx, tx, reply.ID, first.ID)
		return
	})
	if !changed {
		t.Error("a parent of the same post was not set")
	}
	r.tx(func(tx store.Store) (err error) {
		changed, err = r.site.ImportCommentParent(r.ctx, tx, reply.ID, foreign.ID)
		return
	})
	if changed {
		t.Error("a parent of another post was set")
	}
	r.tx(func(tx store.Store) error {
		if err := r.site.ImportComment(r.ctx, tx, &store.Comment{PostID: 999999, Content: "x"}); err == nil {
			t.Error("a comment of a missing post was imported")
		}
		return nil
	})

	cats, _ := r.site.Taxonomies().Get("category")
	tags, _ := r.site.Taxonomies().Get("post_tag")
	term := func(tax *content.Taxonomy, name, slug string, parent int64) (*store.Term, bool, error) {
		var t *store.Term
		var created bool
		var ierr error
		r.tx(func(tx store.Store) error {
			t, created, ierr = r.site.ImportTerm(r.ctx, tx, tax, name, slug, "", parent)
			return nil
		})
		return t, created, ierr
	}
	news, created, err := term(cats, "News <i>today</i>", "", 0)
	if err != nil || !created || news.Name != "News today" || news.Slug != "news-today" {
		t.Fatalf("new term = %+v %v %v", news, created, err)
	}
	again, created, err := term(cats, "Other name", "news-today", 0)
	if err != nil || created || again.ID != news.ID {
		t.Errorf("same slug = %+v created %v %v, want the existing term", again, created, err)
	}
	tag, _, _ := term(tags, "Tagged", "", 0)
	child, _, _ := term(cats, "Child", "", tag.ID)
	if child.Parent != 0 {
		t.Errorf("a category's parent is a tag: %d", child.Parent)
	}
	flat, _, _ := term(tags, "Flat", "", tag.ID)
	if flat.Parent != 0 {
		t.Errorf("a tag has a parent: %d", flat.Parent)
	}
	if _, _, err := term(cats, "  ", "", 0); errCode(err) != "empty_term_name" {
		t.Errorf("empty term name: %v", err)
	}
	r.tx(func(tx store.Store) (err error) {
		changed, err = r.site.ImportTermParent(r.ctx, tx, child, news.ID)
		return
	})
	if !changed || child.Parent != news.ID {
		t.Errorf("term parent not set: %v %d", changed, child.Parent)
	}
	r.tx(func(tx store.Store) (err error) {
		changed, err = r.site.ImportTermParent(r.ctx, tx, news, child.ID)
		return
	})
	if changed || news.Parent != 0 {
		t.Errorf("a term loop was made: %v %d", changed, news.Parent)
	}

	user := func(in store.User, role string) (*store.User, bool, error) {
		var u *store.User
		var created bool
		var ierr error
		r.tx(func(tx store.Store) error { u, created, ierr = r.site.ImportUser(r.ctx, tx, in, role); return nil })
		return u, created, ierr
	}
	u, created, err := user(store.User{Login: "olduser", Email: "editor@example.com", DisplayName: "<b>Old</b> User"}, "author")
	if err != nil || !created || u.PassHash != "" || u.Email != "" || u.DisplayName != "Old User" || len(u.Roles) != 1 || u.Roles[0] != "author" {
		t.Errorf("imported user = %+v %v %v (no password, the taken email dropped)", u, created, err)
	}
	if u, created, err := user(store.User{Login: "editor"}, "subscriber"); err != nil || created || u.ID != r.users["editor"].ID() || u.Roles[0] != "editor" {
		t.Errorf("existing login = %+v %v %v, want the editor unchanged", u, created, err)
	}
	if _, _, err := user(store.User{Login: "  "}, "author"); errCode(err) != "empty_user_login" {
		t.Errorf("empty login: %v", err)
	}
	if _, _, err := user(store.User{Login: strings.Repeat("a", 61)}, "author"); errCode(err) != "user_login_too_long" {
		t.Errorf("long login: %v", err)
	}
	if _, _, err := user(store.User{Login: "newcomer"}, "overlord"); err == nil {
		t.Error("a user with an unknown role was imported")
	}
}
