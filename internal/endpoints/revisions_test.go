package endpoints_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/store"
)

func revPath(base string, parent int64) string {
	return fmt.Sprintf("/api/svc/v2/%s/%d/revisions", base, parent)
}

func TestRevisionStoredWhenTitleContentOrExcerptChange(t *testing.T) {
	e := newEnv(t)
	p := e.createPost("author", "post", map[string]any{"title": "v0", "content": "body"})
	list := func() []any {
		r := e.do("GET", revPath("posts", p.ID), "author")
		r.WantStatus(200)
		if r.Header.Get("X-API-Total") != "" {
			t.Error("revisions are not paged")
		}
		return r.Array()
	}
	if n := len(list()); n != 0 {
		t.Fatalf("a new post has %d revisions", n)
	}
	e.do("POST", fmt.Sprintf("%s/%d", posts, p.ID), "author", map[string]any{"title": "v1"}).WantStatus(200)
	e.do("POST", fmt.Sprintf("%s/%d", posts, p.ID), "author", map[string]any{"slug": "other-slug", "comment_status": "closed"}).WantStatus(200)
	e.do("POST", fmt.Sprintf("%s/%d", posts, p.ID), "author", map[string]any{"title": "v1"}).WantStatus(200)
	e.do("POST", fmt.Sprintf("%s/%d", posts, p.ID), "editor", map[string]any{"content": "new body"}).WantStatus(200)
	e.do("POST", fmt.Sprintf("%s/%d", posts, p.ID), "author", map[string]any{"excerpt": "short"}).WantStatus(200)
	revs := list()
	if len(revs) != 3 {
		t.Fatalf("%d revisions, want 3 (unchanged text makes none)", len(revs))
	}
	newest := revs[0].(map[string]any)
	if newest["excerpt"] != "short" || newest["content"] != "new body" || newest["title"] != "v1" {
		t.Errorf("newest first, with the post's text: %v", newest)
	}
	if revs[1].(map[string]any)["author"] != fmt.Sprint(e.ID("editor")) {
		t.Errorf("author = %#v, want the updating user's id as a string", revs[1].(map[string]any)["author"])
	}
	want := []string{"author", "date", "date_gmt", "guid", "id", "modified", "modified_gmt", "parent", "slug", "title", "content", "excerpt", "_links"}
	got := keys(newest)
	slices.Sort(got)
	sorted := slices.Clone(want)
	slices.Sort(sorted)
	if !reflect.DeepEqual(got, sorted) {
		t.Errorf("fields %v, want %v", got, want)
	}
	if newest["parent"] != float64(p.ID) || newest["slug"] != fmt.Sprintf("%d-revision-v1", p.ID) || newest["date"] == nil {
		t.Errorf("record: %v", newest)
	}
	parent := newest["_links"].(map[string]any)["parent"].([]any)[0].(map[string]any)
	if parent["href"] != fmt.Sprintf("%s%s/%d", e.URL, posts, p.ID) {
		t.Errorf("parent link = %v", parent)
	}
	// Embed context.
	r := e.do("GET", revPath("posts", p.ID)+"?context=embed", "author")
	em := r.Array()[0].(map[string]any)
	for _, k := range []string{"content", "guid", "date_gmt", "modified"} {
		if _, ok := em[k]; ok {
			t.Errorf("embed context has %s", k)
		}
	}
	// Item.
	id := int64(newest["id"].(float64))
	r = e.do("GET", fmt.Sprintf("%s/%d", revPath("posts", p.ID), id), "author")
	r.WantStatus(200)
	if r.Object()["id"] != float64(id) {
		t.Errorf("item: %s", r.Body)
	}
	// The post links its history.
	vh := e.do("GET", fmt.Sprintf("%s/%d", posts, p.ID), "").Object()["_links"].(map[string]any)["version-history"].([]any)[0].(map[string]any)
	if vh["href"] != e.URL+revPath("posts", p.ID) {
		t.Errorf("version-history = %v", vh)
	}
	// Revisions are not posts of the interface.
	e.do("GET", fmt.Sprintf("%s/%d", posts, id), "administrator").WantError(404, "rest_post_invalid_id")
	e.do("GET", "/api/svc/v2/types/revision", "administrator").WantError(403, "rest_cannot_read_type")
	all := e.do("GET", posts+"?status=any&per_page=100", "administrator").Array()
	for _, it := range all {
		if it.(map[string]any)["type"] != "post" {
			t.Errorf("posts collection lists %v", it)
		}
	}
}

func TestRevisionPermissionsByRole(t *testing.T) {
	e := newEnv(t)
	own := e.createPost("author", "post", map[string]any{"title": "a"})
	e.do("POST", fmt.Sprintf("%s/%d", posts, own.ID), "author", map[string]any{"title": "b"}).WantStatus(200)
	draft := e.createPost("contributor", "post", map[string]any{"title": "c", "status": "draft"})
	e.do("POST", fmt.Sprintf("%s/%d", posts, draft.ID), "contributor", map[string]any{"title": "d"}).WantStatus(200)
	cases := []struct {
		login  string
		post   *store.Post
		status int
	}{
		{"administrator", own, 200}, {"editor", own, 200}, {"author", own, 200},
		{"contributor", own, 403}, {"subscriber", own, 403}, {"", own, 401},
		{"contributor", draft, 200}, {"author", draft, 403}, {"editor", draft, 200},
	}
	for _, tc := range cases {
		r := e.do("GET", revPath("posts", tc.post.ID), tc.login)
		if tc.status == 200 {
			r.WantStatus(200)
			if len(r.Array()) != 1 {
				t.Errorf("%s: %s", tc.login, r.Body)
			}
			continue
		}
		r.WantError(tc.status, "rest_cannot_read")
		revs, _ := e.site.Revisions(context.Background(), tc.post.ID)
		e.do("GET", fmt.Sprintf("%s/%d", revPath("posts", tc.post.ID), revs[0].ID), tc.login).WantError(tc.status, "rest_cannot_read")
		e.do("DELETE", fmt.Sprintf("%s/%d", revPath("posts", tc.post.ID), revs[0].ID), tc.login).WantError(tc.status, "rest_cannot_read")
	}
}

func TestRevisionNotFoundCodes(t *testing.T) {
	e := newEnv(t)
	a := e.createPost("editor", "post", map[string]any{"title": "a"})
	e.do("POST", fmt.Sprintf("%s/%d", posts, a.ID), "editor", map[string]any{"title": "a2"}).WantStatus(200)
	b := e.createPost("editor", "post", map[string]any{"title": "b"})
	page := e.createPost("editor", "page", map[string]any{"title": "p"})
	revA, _ := e.site.Revisions(context.Background(), a.ID)
	e.do("GET", revPath("posts", 999999), "").WantError(404, "rest_post_invalid_parent")
	e.do("GET", revPath("posts", page.ID), "editor").WantError(404, "rest_post_invalid_parent")
	e.do("GET", revPath("pages", page.ID), "editor").WantStatus(200)
	e.do("GET", fmt.Sprintf("%s/%d", revPath("posts", a.ID), 999999), "editor").WantError(404, "rest_post_invalid_id")
	e.do("GET", fmt.Sprintf("%s/%d", revPath("posts", a.ID), b.ID), "editor").WantError(404, "rest_post_invalid_id")
	// A revision is only found under its own post.
	e.do("GET", fmt.Sprintf("%s/%d", revPath("posts", b.ID), revA[0].ID), "editor").WantError(404, "rest_post_invalid_id")
	e.do("DELETE", fmt.Sprintf("%s/%d", revPath("posts", b.ID), revA[0].ID), "editor").WantError(404, "rest_post_invalid_id")
	// No create or update.
	e.do("POST", revPath("posts", a.ID), "editor", map[string]any{"title": "x"}).WantError(404, "rest_no_route")
	e.do("POST", fmt.Sprintf("%s/%d", revPath("posts", a.ID), revA[0].ID), "editor", map[string]any{"title": "x"}).WantError(404, "rest_no_route")
}

func TestDeleteRevision(t *testing.T) {
	e := newEnv(t)
	p := e.createPost("author", "post", map[string]any{"title": "a"})
	e.do("POST", fmt.Sprintf("%s/%d", posts, p.ID), "author", map[string]any{"title": "b"}).WantStatus(200)
	revs, _ := e.site.Revisions(context.Background(), p.ID)
	item := fmt.Sprintf("%s/%d", revPath("posts", p.ID), revs[0].ID)

	// Someone who may edit the post but not delete it gets a plain refusal.
	e.AddUser("limited", "author")
	ctx := context.Background()
	u, err := e.db.GetUserByLogin(ctx, "limited")
	if err != nil {
		t.Fatal(err)
	}
	u.Caps = map[string]bool{"edit_others_posts": true, "delete_published_posts": false}
	if err := e.db.UpdateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	e.do("GET", item, "limited").WantStatus(200)
	e.do("DELETE", item, "limited").WantError(403, "rest_forbidden")

	r := e.do("DELETE", item, "author")
	r.WantStatus(200)
	if string(r.Body) != "true" {
		t.Errorf("body = %s, want true", r.Body)
	}
	e.do("GET", item, "author").WantError(404, "rest_post_invalid_id")
	e.do("DELETE", item, "author").WantError(404, "rest_post_invalid_id")
}

func TestRevisionRoutesPerTypeAndOrder(t *testing.T) {
	e := newEnv(t, func(c *configT) {
		c.PostTypes = append(c.PostTypes,
			postTypeT{Name: "book", RestBase: "books", Supports: []string{"title", "editor", "revisions"}},
			postTypeT{Name: "note", RestBase: "notes", Supports: []string{"title"}},
		)
	})
	book := e.createPost("editor", "book", map[string]any{"title": "b1"})
	e.do("POST", fmt.Sprintf("/api/svc/v2/books/%d", book.ID), "editor", map[string]any{"title": "b2"}).WantStatus(200)
	r := e.do("GET", revPath("books", book.ID), "editor")
	r.WantStatus(200)
	rev := r.Array()[0].(map[string]any)
	if rev["title"] != "b2" {
		t.Errorf("book revision: %v", rev)
	}
	if _, ok := rev["excerpt"]; ok {
		t.Error("a type without excerpts has no excerpt in its revisions")
	}
	note := e.createPost("editor", "note", map[string]any{"title": "n1"})
	e.do("POST", fmt.Sprintf("/api/svc/v2/notes/%d", note.ID), "editor", map[string]any{"title": "n2"}).WantStatus(200)
	e.do("GET", revPath("notes", note.ID), "editor").WantError(404, "rest_no_route")
	if revs, _ := e.site.Revisions(context.Background(), note.ID); len(revs) != 0 {
		t.Error("a type without revisions keeps none")
	}
	// Index order: revisions right after each type's item route.
	idx := string(e.do("GET", "/api/svc/v2", "").Body)
	routes := []string{`/svc/v2/posts/(?P<id>[\\d]+)"`, `/svc/v2/posts/(?P<parent>[\\d]+)/revisions"`,
		`/svc/v2/posts/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)"`, `/svc/v2/pages"`,
		`/svc/v2/pages/(?P<parent>[\\d]+)/revisions"`, `/svc/v2/books/(?P<parent>[\\d]+)/revisions"`}
	last := -1
	for _, rt := range routes {
		i := strings.Index(idx, rt)
		if i < 0 || i < last {
			t.Fatalf("route %s missing or out of order", rt)
		}
		last = i
	}
	if strings.Index(idx, `/svc/v2/comments"`) < strings.Index(idx, `/svc/v2/users"`) {
		t.Error("comments come after users")
	}
}

func TestDeletePostRemovesItsRevisions(t *testing.T) {
	e := newEnv(t)
	p := e.createPost("editor", "post", map[string]any{"title": "a"})
	e.do("POST", fmt.Sprintf("%s/%d", posts, p.ID), "editor", map[string]any{"title": "b"}).WantStatus(200)
	revs, _ := e.site.Revisions(context.Background(), p.ID)
	if len(revs) != 1 {
		t.Fatal("want a revision")
	}
	// Trashing keeps them; deleting removes them.
	e.do("DELETE", fmt.Sprintf("%s/%d", posts, p.ID), "editor").WantStatus(200)
	if revs, _ := e.site.Revisions(context.Background(), p.ID); len(revs) != 1 {
		t.Error("trash keeps revisions")
	}
	e.do("DELETE", fmt.Sprintf("%s/%d?force=true", posts, p.ID), "editor").WantStatus(200)
	if _, err := e.db.GetPost(context.Background(), revs[0].ID); err == nil {
		t.Error("the revisions of a deleted post are deleted")
	}
}
