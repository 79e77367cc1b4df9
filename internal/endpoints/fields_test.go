package endpoints_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/testkit"
)

// TestFieldsSkipsQueriesForFieldsNotAsked checks that _fields is a field
// list the controllers honour, not a filter over a fully built page: a
// request for a few plain fields makes fewer store statements than one
// for the term arrays and links (no term query, no parent chains).
func TestFieldsSkipsQueriesForFieldsNotAsked(t *testing.T) {
	e := newEnv(t)
	root := e.createPost("editor", "page", map[string]any{"title": "Root"})
	cat := e.do("POST", "/api/svc/v2/categories", "editor", map[string]any{"name": "Cat"}).Object()["id"]
	for i := 0; i < 5; i++ {
		e.createPost("editor", "post", map[string]any{"title": fmt.Sprintf("Post %d", i), "categories": []any{cat}})
		e.createPost("editor", "page", map[string]any{"title": fmt.Sprintf("Page %d", i), "parent": root.ID})
	}
	count := func(path string) (int64, *testkit.Response) {
		// A write first, so that no cached count or response hides a
		// statement.
		e.createPost("editor", "post", map[string]any{"title": "Bump", "date": "2001-01-01T00:00:00"})
		before := e.Statements()
		r := e.do("GET", path, "")
		r.WantStatus(200)
		return e.Statements() - before, r
	}
	for _, tc := range []struct{ base, few, all string }{
		{"/api/svc/v2/posts?per_page=5&", "_fields=id,title", "_fields=id,title,categories,_links"},
		{"/api/svc/v2/pages?per_page=5&", "_fields=id,title", "_fields=id,title,link"},
	} {
		// The smaller request runs first, on colder caches, and still
		// costs less.
		few, r := count(tc.base + tc.few)
		for _, it := range r.Array() {
			k := keys(it.(map[string]any))
			sort.Strings(k)
			if got := strings.Join(k, ","); got != "id,title" {
				t.Errorf("%s%s: keys %s", tc.base, tc.few, got)
			}
		}
		all, _ := count(tc.base + tc.all)
		if few >= all {
			t.Errorf("%s: %d statements for %q, %d for %q; want fewer for fewer fields", tc.base, few, tc.few, all, tc.all)
		}
	}
}

func TestFieldsOnEveryKindOfResource(t *testing.T) {
	e := newEnv(t)
	p := e.createPost("editor", "post", map[string]any{"title": "Hello", "content": "Some *content*", "status": "publish"})
	e.do("POST", "/api/svc/v2/comments", "editor", map[string]any{"post": p.ID, "content": "Nice"}).WantStatus(201)
	for _, tc := range []struct{ path, login, want string }{
		{fmt.Sprintf("/api/svc/v2/posts/%d?_fields=id,content.rendered", p.ID), "", "content,id"},
		{"/api/svc/v2/comments?_fields=id,post", "", "id,post"},
		{"/api/svc/v2/users?_fields=id,name&context=edit", "administrator", "id,name"},
		{"/api/svc/v2/categories?_fields=name", "", "name"},
		{"/api/svc/v2/types?_fields=name,slug", "", "name,slug"},
		{"/api/svc/v2/taxonomies?_fields=slug", "", "slug"},
		{"/api/svc/v2/statuses?_fields=name", "", "name"},
	} {
		r := e.do("GET", tc.path, tc.login)
		r.WantStatus(200)
		var body any
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		var items []map[string]any
		switch b := body.(type) {
		case []any:
			for _, x := range b {
				items = append(items, x.(map[string]any))
			}
		case map[string]any:
			if _, keyed := b["id"]; keyed || strings.Contains(tc.path, "/posts/") {
				items = append(items, b)
			} else {
				// /types, /taxonomies, /statuses: objects keyed by slug,
				// each masked.
				for _, x := range b {
					items = append(items, x.(map[string]any))
				}
			}
		}
		if len(items) == 0 {
			t.Errorf("%s: no items: %s", tc.path, r.Body)
		}
		for _, it := range items {
			k := keys(it)
			sort.Strings(k)
			if got := strings.Join(k, ","); got != tc.want {
				t.Errorf("%s: keys %s, want %s", tc.path, got, tc.want)
			}
		}
	}
	r := e.do("GET", fmt.Sprintf("/api/svc/v2/posts/%d?_fields=content.rendered", p.ID), "")
	content := r.Object()["content"].(map[string]any)
	if len(content) != 1 || !strings.Contains(content["rendered"].(string), "content") {
		t.Errorf("content.rendered: %v", content)
	}
}
