package content_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// rules is a content.Site on a fresh store of the selected backend, with
// one user per role and a settable clock.
type rules struct {
	t     *testing.T
	ctx   context.Context
	site  *content.Site
	db    storetest.Store
	users map[string]*auth.User
	now   time.Time
}

func newRules(t *testing.T) *rules {
	t.Helper()
	return newRulesWith(t, nil)
}

// newRulesWith is newRules on a configuration mod changes.
func newRulesWith(t *testing.T, mod func(*config.Config)) *rules {
	t.Helper()
	db := storetest.Open(t)
	cfg := config.Default()
	if mod != nil {
		mod(cfg)
	}
	site, err := content.NewSite(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := &rules{t: t, ctx: context.Background(), site: site, db: db, users: map[string]*auth.User{},
		now: time.Date(2026, 5, 4, 10, 20, 30, 0, time.UTC)}
	site.SetClock(func() time.Time { return r.now })
	for _, role := range []string{"administrator", "editor", "author", "contributor", "subscriber"} {
		u := &store.User{Login: role, Email: role + "@example.com", Nicename: role, DisplayName: role, Registered: r.now, Roles: []string{role}}
		if err := db.InsertUser(r.ctx, u); err != nil {
			t.Fatal(err)
		}
		r.users[role] = auth.NewUser(u, site.Roles())
	}
	return r
}

func (r *rules) typ(name string) *content.PostType {
	r.t.Helper()
	pt, ok := r.site.Types().Get(name)
	if !ok {
		r.t.Fatalf("no post type %s", name)
	}
	return pt
}

// create creates a post of type "post" as role; it fails the test on error.
func (r *rules) create(role string, in content.PostInput) *store.Post {
	r.t.Helper()
	p, _, err := r.site.CreatePost(r.ctx, r.users[role], r.typ("post"), in, "http://example.com")
	if err != nil {
		r.t.Fatalf("create as %s: %v", role, err)
	}
	return p
}

func (r *rules) get(id int64) *store.Post {
	r.t.Helper()
	p, ok, err := r.site.GetPost(r.ctx, id)
	if err != nil || !ok {
		r.t.Fatalf("get post %d: %v %v", id, ok, err)
	}
	return p
}

func ptr[T any](v T) *T { return &v }

func errCode(err error) string {
	var ce *content.Error
	if errors.As(err, &ce) {
		return ce.Code
	}
	return ""
}

func TestPublishNeedsThePublishCapability(t *testing.T) {
	t.Parallel()
	r := newRules(t)
	for _, tt := range []struct {
		role, status string
		want         string // stored status, or the error code
	}{
		{"administrator", "publish", "publish"},
		{"editor", "private", "private"},
		{"author", "publish", "publish"},
		{"contributor", "publish", "rest_cannot_publish"},
		{"contributor", "private", "rest_cannot_publish"},
		{"contributor", "future", "rest_cannot_publish"},
		{"contributor", "pending", "pending"},
		{"contributor", "draft", "draft"},
		{"author", "nonsense", "draft"},
	} {
		p, _, err := r.site.CreatePost(r.ctx, r.users[tt.role], r.typ("post"), content.PostInput{Title: ptr("T"), Status: ptr(tt.status)}, "")
		got := errCode(err)
		if err == nil {
			got = r.get(p.ID).Status
		} else if got == "" {
			t.Fatalf("%s %s: %v", tt.role, tt.status, err)
		}
		if got != tt.want {
			t.Errorf("%s creating %s: got %s, want %s", tt.role, tt.status, got, tt.want)
		}
	}
	// A contributor's pending post loses its slug; an author's keeps it.
	if p := r.create("contributor", content.PostInput{Title: ptr("Pend"), Status: ptr("pending"), Slug: ptr("pend")}); p.Slug != "" {
		t.Errorf("contributor's pending post has slug %q", p.Slug)
	}
	if p := r.create("author", content.PostInput{Title: ptr("Pend"), Status: ptr("pending"), Slug: ptr("pend")}); p.Slug != "pend" {
		t.Errorf("author's pending post has slug %q", p.Slug)
	}
	if _, _, err := r.site.CreatePost(r.ctx, r.users["author"], r.typ("post"), content.PostInput{Status: ptr("publish")}, ""); errCode(err) != "empty_content" {
		t.Errorf("empty post: %v, want empty_content", err)
	}
}

func TestDatesAndTheFutureFlip(t *testing.T) {
	t.Parallel()
	r := newRules(t)
	draft := r.create("author", content.PostInput{Title: ptr("D")})
	if draft.Status != "draft" || !draft.DateGMT.IsZero() || !draft.Date.Equal(r.now) || !draft.ModifiedGMT.IsZero() {
		t.Errorf("draft: status %s date %v date_gmt %v modified_gmt %v", draft.Status, draft.Date, draft.DateGMT, draft.ModifiedGMT)
	}
	r.now = r.now.Add(time.Hour)
	pub, err := r.site.UpdatePost(r.ctx, r.users["author"], r.get(draft.ID), content.PostInput{Status: ptr("publish")})
	if err != nil {
		t.Fatal(err)
	}
	if !pub.DateGMT.Equal(r.now) || !pub.ModifiedGMT.Equal(r.now) || pub.Status != "publish" {
		t.Errorf("published draft: status %s date_gmt %v modified_gmt %v, want %v", pub.Status, pub.DateGMT, pub.ModifiedGMT, r.now)
	}
	later := r.now.Add(48 * time.Hour)
	fut := r.create("author", content.PostInput{Title: ptr("F"), Status: ptr("publish"), Date: &later})
	if fut.Status != "future" || !fut.DateGMT.Equal(later) {
		t.Errorf("publish with a later date: %s %v, want future %v", fut.Status, fut.DateGMT, later)
	}
	earlier := r.now.Add(-48 * time.Hour)
	back, err := r.site.UpdatePost(r.ctx, r.users["author"], r.get(fut.ID), content.PostInput{Status: ptr("future"), DateGMT: &earlier})
	if err != nil {
		t.Fatal(err)
	}
	if back.Status != "publish" || !back.DateGMT.Equal(earlier) {
		t.Errorf("future with a past date: %s %v, want publish %v", back.Status, back.DateGMT, earlier)
	}
	// The scheduler publishes what falls due.
	due := r.create("editor", content.PostInput{Title: ptr("Due"), Status: ptr("future"), Date: ptr(r.now.Add(time.Minute))})
	r.now = r.now.Add(2 * time.Minute)
	if n, err := r.site.PublishDue(r.ctx); err != nil || n != 1 {
		t.Fatalf("PublishDue = %d, %v; want 1", n, err)
	}
	if st := r.get(due.ID).Status; st != "publish" {
		t.Errorf("due post is %s after PublishDue", st)
	}
}

func TestSlugsAreUniqueExceptForDrafts(t *testing.T) {
	t.Parallel()
	r := newRules(t)
	a := r.create("author", content.PostInput{Title: ptr("Same"), Status: ptr("publish"), Slug: ptr("Same Slug")})
	b := r.create("author", content.PostInput{Title: ptr("Same"), Status: ptr("publish"), Slug: ptr("same-slug")})
	c := r.create("editor", content.PostInput{Title: ptr("Same"), Status: ptr("publish"), Slug: ptr("same-slug")})
	if a.Slug != "same-slug" || b.Slug != "same-slug-2" || c.Slug != "same-slug-3" {
		t.Errorf("slugs = %q %q %q, want same-slug, same-slug-2, same-slug-3", a.Slug, b.Slug, c.Slug)
	}
	d := r.create("author", content.PostInput{Title: ptr("Same"), Status: ptr("draft"), Slug: ptr("same-slug")})
	if d.Slug != "same-slug" {
		t.Errorf("draft slug = %q, want same-slug (drafts are not made unique)", d.Slug)
	}
	pub, err := r.site.UpdatePost(r.ctx, r.users["author"], r.get(d.ID), content.PostInput{Status: ptr("publish")})
	if err != nil {
		t.Fatal(err)
	}
	if pub.Slug != "same-slug-4" {
		t.Errorf("published draft slug = %q, want same-slug-4", pub.Slug)
	}
	// A page may share a post's slug: uniqueness is per type.
	pg, _, err := r.site.CreatePost(r.ctx, r.users["editor"], r.typ("page"), content.PostInput{Title: ptr("P"), Status: ptr("publish"), Slug: ptr("same-slug")}, "")
	if err != nil {
		t.Fatal(err)
	}
	if pg.Slug != "same-slug" {
		t.Errorf("page slug = %q, want same-slug", pg.Slug)
	}
	// A published post without a slug is named by its title.
	if p := r.create("author", content.PostInput{Title: ptr("Hello World"), Status: ptr("publish")}); p.Slug != "hello-world" {
		t.Errorf("slug from title = %q, want hello-world", p.Slug)
	}
}

// TestManyPostsOfOneTitleTakeTheFirstFreeSuffix: past the first sixteen
// candidates (asked one by one) the taken suffixes are read in one query;
// the first free one is still the slug, gaps first, and a new post's
// GUID and stored slug are what the create returned.
func TestManyPostsOfOneTitleTakeTheFirstFreeSuffix(t *testing.T) {
	t.Parallel()
	r := newRules(t)
	var posts []*store.Post
	for i := 1; i <= 20; i++ {
		p := r.create("editor", content.PostInput{Title: ptr("Gap"), Status: ptr("publish")})
		want := "gap"
		if i > 1 {
			want = fmt.Sprintf("gap-%d", i)
		}
		if p.Slug != want {
			t.Fatalf("post %d: slug %q, want %q", i, p.Slug, want)
		}
		posts = append(posts, p)
	}
	// Slugs that look like candidates but are none, and a draft's.
	for _, slug := range []string{"gap-05", "gap-21x", "gap-in-22"} {
		r.create("editor", content.PostInput{Title: ptr("Other"), Status: ptr("publish"), Slug: ptr(slug)})
	}
	r.create("editor", content.PostInput{Title: ptr("Gap"), Status: ptr("draft"), Slug: ptr("gap-21")})
	for _, i := range []int{18, 5} {
		if err := r.site.DeletePost(r.ctx, posts[i-1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{"gap-5", "gap-18", "gap-21", "gap-22"} {
		p := r.create("editor", content.PostInput{Title: ptr("Gap"), Status: ptr("publish")})
		if p.Slug != want {
			t.Fatalf("slug %q, want %q", p.Slug, want)
		}
		stored := r.get(p.ID)
		if stored.Slug != want || stored.GUID != fmt.Sprintf("http://example.com/?p=%d", p.ID) || stored.GUID != p.GUID {
			t.Fatalf("stored slug %q guid %q (returned %q), want %q and the id's GUID", stored.Slug, stored.GUID, p.GUID, want)
		}
	}
}

// TestSlugSuffixesPastFourDigits: the taken suffixes are read four
// digits at a time; a title whose suffixes up to 9999 are all taken gets
// the first free one of five digits, and one whose only long suffixes
// are far away gets the first free short one.
func TestSlugSuffixesPastFourDigits(t *testing.T) {
	t.Parallel()
	r := newRules(t)
	var posts []*store.Post
	add := func(slug string) {
		posts = append(posts, &store.Post{Type: "post", Status: "publish", Title: slug, Slug: slug, Author: r.users["editor"].ID()})
	}
	add("deep")
	for n := 2; n <= 9999; n++ {
		add(fmt.Sprintf("deep-%d", n))
	}
	add("deep-10001")
	add("wide")
	for n := 2; n <= 16; n++ {
		add(fmt.Sprintf("wide-%d", n))
	}
	add("wide-99999")
	add("wide-123456789")
	err := r.db.Tx(r.ctx, func(tx store.Store) error {
		return tx.(store.PostBulkInserter).InsertPosts(r.ctx, posts)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ title, want string }{
		{"Deep", "deep-10000"}, {"Deep", "deep-10002"}, {"Wide", "wide-17"}, {"Wide", "wide-18"},
	} {
		if p := r.create("editor", content.PostInput{Title: ptr(c.title), Status: ptr("publish")}); p.Slug != c.want {
			t.Fatalf("%s: slug %q, want %q", c.title, p.Slug, c.want)
		}
	}
}

func TestStickyAndPasswordExcludeEachOther(t *testing.T) {
	t.Parallel()
	r := newRules(t)
	_, _, err := r.site.CreatePost(r.ctx, r.users["editor"], r.typ("post"), content.PostInput{Title: ptr("S"), Status: ptr("publish"), Sticky: ptr(true), Password: ptr("pw")}, "")
	if errCode(err) != "rest_invalid_field" {
		t.Errorf("sticky with a password: %v, want rest_invalid_field", err)
	}
	sticky := r.create("editor", content.PostInput{Title: ptr("S"), Status: ptr("publish"), Sticky: ptr(true)})
	if !r.get(sticky.ID).Sticky {
		t.Fatal("sticky post is not sticky")
	}
	if _, err := r.site.UpdatePost(r.ctx, r.users["editor"], r.get(sticky.ID), content.PostInput{Password: ptr("pw")}); errCode(err) != "rest_invalid_field" {
		t.Errorf("password on a sticky post: %v, want rest_invalid_field", err)
	}
	locked := r.create("editor", content.PostInput{Title: ptr("L"), Status: ptr("publish"), Password: ptr("pw")})
	if _, err := r.site.UpdatePost(r.ctx, r.users["editor"], r.get(locked.ID), content.PostInput{Sticky: ptr(true)}); errCode(err) != "rest_invalid_field" {
		t.Errorf("sticky on a protected post: %v, want rest_invalid_field", err)
	}
	// Clearing the password in the same request makes it allowed.
	both, err := r.site.UpdatePost(r.ctx, r.users["editor"], r.get(locked.ID), content.PostInput{Sticky: ptr(true), Password: ptr("")})
	if err != nil || !both.Sticky || both.Password != "" {
		t.Errorf("sticky and clear password: %v sticky=%v password=%q", err, both != nil && both.Sticky, both.Password)
	}
	// Pages are never sticky; private posts keep no password.
	pg, _, err := r.site.CreatePost(r.ctx, r.users["editor"], r.typ("page"), content.PostInput{Title: ptr("P"), Status: ptr("publish"), Sticky: ptr(true)}, "")
	if err != nil || pg.Sticky {
		t.Errorf("page sticky = %v, %v", pg != nil && pg.Sticky, err)
	}
	priv := r.create("editor", content.PostInput{Title: ptr("Pr"), Status: ptr("private"), Password: ptr("pw")})
	if r.get(priv.ID).Password != "" {
		t.Error("a private post kept its password")
	}
}

func TestWhoMayReadEditAndDelete(t *testing.T) {
	t.Parallel()
	r := newRules(t)
	posts := map[string]*store.Post{
		"publish":        r.create("author", content.PostInput{Title: ptr("Pub"), Status: ptr("publish")}),
		"draft":          r.create("author", content.PostInput{Title: ptr("Dr"), Status: ptr("draft")}),
		"private":        r.create("author", content.PostInput{Title: ptr("Pr"), Status: ptr("private")}),
		"others-draft":   r.create("editor", content.PostInput{Title: ptr("ODr"), Status: ptr("draft")}),
		"others-private": r.create("editor", content.PostInput{Title: ptr("OPr"), Status: ptr("private")}),
		"others-publish": r.create("editor", content.PostInput{Title: ptr("OPub"), Status: ptr("publish")}),
	}
	// want[who][post] = read, edit, delete
	type may struct{ read, edit, del bool }
	want := map[string]map[string]may{
		"":            {"publish": {true, false, false}},
		"subscriber":  {"publish": {true, false, false}},
		"contributor": {"publish": {true, false, false}, "others-publish": {true, false, false}},
		"author": {"publish": {true, true, true}, "draft": {true, true, true}, "private": {true, true, true},
			"others-publish": {true, false, false}},
		"editor": {"publish": {true, true, true}, "draft": {true, true, true}, "private": {true, true, true},
			"others-draft": {true, true, true}, "others-private": {true, true, true}, "others-publish": {true, true, true}},
	}
	for who, row := range want {
		u := r.users[who] // nil for the anonymous caller
		for name, p := range posts {
			w := row[name]
			if name == "others-publish" || name == "publish" {
				w.read = true
			}
			got := may{r.site.CanRead(r.ctx, u, p), r.site.CanEdit(r.ctx, u, p), r.site.CanDelete(r.ctx, u, p)}
			if got != w {
				t.Errorf("%q on %s post: read/edit/delete = %v, want %v", who, name, got, w)
			}
		}
		// The listing shows exactly what the reader may read.
		list, total, err := r.site.ListPosts(r.ctx, store.PostQuery{Types: []string{"post"}, Visibility: r.site.Visibility(u, r.typ("post")), Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int64]bool{}
		for _, p := range list {
			seen[p.ID] = true
		}
		for name, p := range posts {
			if seen[p.ID] != r.site.CanRead(r.ctx, u, p) {
				t.Errorf("%q lists %s post: %v, may read: %v", who, name, seen[p.ID], !seen[p.ID])
			}
		}
		if total != int64(len(list)) {
			t.Errorf("%q: total %d for %d posts", who, total, len(list))
		}
	}
}

func TestTrashRemembersTheStatusAndDeleteRemoves(t *testing.T) {
	t.Parallel()
	r := newRules(t)
	p := r.create("author", content.PostInput{Title: ptr("T"), Status: ptr("publish")})
	pt := r.typ("post")
	if !r.site.Trashable(pt, p) {
		t.Fatal("posts are not trashable")
	}
	r.now = r.now.Add(time.Hour)
	if err := r.site.TrashPost(r.ctx, p); err != nil {
		t.Fatal(err)
	}
	got := r.get(p.ID)
	if got.Status != "trash" || got.PreTrashStatus != "publish" || !got.ModifiedGMT.Equal(r.now) {
		t.Errorf("trashed: status %s pre-trash %s modified %v", got.Status, got.PreTrashStatus, got.ModifiedGMT)
	}
	if r.site.CanRead(r.ctx, nil, got) {
		t.Error("anyone may read a trashed post")
	}
	if err := r.site.DeletePost(r.ctx, got); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := r.site.GetPost(r.ctx, p.ID); ok || err != nil {
		t.Errorf("deleted post still found (%v, %v)", ok, err)
	}
}
