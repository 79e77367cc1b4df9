package extension_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/folio-server/folio/internal/extension"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/store"
)

// TestPostHooksFireWhereTheSeedSays is the hook firing table of the posts
// and pages endpoints: which hooks fire for each operation, in which
// order and how often.
func TestPostHooksFireWhereTheSeedSays(t *testing.T) {
	e := newEnv(t, nil)
	for _, typ := range []struct{ name, base string }{{"post", "posts"}, {"page", "pages"}} {
		ins, prep, del, q, trash := "rest_insert_"+typ.name, "rest_prepare_"+typ.name, "rest_delete_"+typ.name, "rest_"+typ.name+"_query", "rest_"+typ.name+"_trashable"
		var id int64
		steps := []struct {
			name   string
			method string
			path   func() string
			body   any
			status int
			want   []string
		}{
			{"create", "POST", func() string { return "/api/svc/v2/" + typ.base }, map[string]any{"title": "A", "status": "publish"}, 201,
				[]string{"folio_changed", ins, prep}},
			{"update", "PUT", func() string { return fmt.Sprintf("/api/svc/v2/%s/%d", typ.base, id) }, map[string]any{"title": "B"}, 200,
				[]string{"folio_changed", ins, prep}},
			{"get", "GET", func() string { return fmt.Sprintf("/api/svc/v2/%s/%d", typ.base, id) }, nil, 200,
				[]string{prep}},
			{"list", "GET", func() string { return "/api/svc/v2/" + typ.base }, nil, 200,
				[]string{q, prep}},
			{"trash", "DELETE", func() string { return fmt.Sprintf("/api/svc/v2/%s/%d", typ.base, id) }, nil, 200,
				[]string{prep, trash, "folio_changed", del}},
			{"delete", "DELETE", func() string { return fmt.Sprintf("/api/svc/v2/%s/%d?force=true", typ.base, id) }, nil, 200,
				[]string{prep, "folio_changed", del}},
		}
		for _, s := range steps {
			e.rec.Reset()
			r := e.do(s.method, s.path(), "administrator", s.body)
			e.want(r, s.status)
			if s.name == "create" {
				id = int64(r.Object()["id"].(float64))
			}
			if got := e.rec.Names(); !reflect.DeepEqual(got, s.want) {
				t.Errorf("%s %s: hooks = %v, want %v", typ.name, s.name, got, s.want)
			}
		}
	}
}

func TestPostHookArguments(t *testing.T) {
	e := newEnv(t, nil)
	r := e.do("POST", "/api/svc/v2/posts", "editor", map[string]any{"title": "Args"})
	e.want(r, 201)
	calls := e.rec.Calls()
	var insert []any
	for _, c := range calls {
		if c.Name == "rest_insert_post" {
			insert = c.Args
		}
	}
	if len(insert) != 3 {
		t.Fatalf("rest_insert_post args = %v", insert)
	}
	p, ok := insert[0].(*store.Post)
	if !ok || p.Title != "Args" || p.ID == 0 {
		t.Fatalf("post arg = %#v", insert[0])
	}
	if req, ok := insert[1].(*rest.Request); !ok || req.Method != "POST" {
		t.Fatalf("request arg = %#v", insert[1])
	}
	if insert[2] != true {
		t.Fatalf("creating = %v", insert[2])
	}
	e.rec.Reset()
	e.want(e.do("DELETE", fmt.Sprintf("/api/svc/v2/posts/%d", p.ID), "editor", nil), 200)
	for _, c := range e.rec.Calls() {
		switch c.Name {
		case "rest_post_trashable":
			if c.Args[0] != true || c.Args[1].(*store.Post).ID != p.ID {
				t.Fatalf("trashable args = %v", c.Args)
			}
		case "rest_delete_post":
			res, ok := c.Args[1].(*rest.Resource)
			if !ok {
				t.Fatalf("response arg = %#v", c.Args[1])
			}
			if st, _ := res.Value("status"); st != "draft" {
				t.Fatalf("response shows status %v, want the post as it was", st)
			}
		}
	}
}

func TestFiltersChangeTrashQueryAndResponse(t *testing.T) {
	var onlyID int64
	e := newEnv(t, nil, extFunc(func(api *extension.API) error {
		api.Hooks.PostTrashable.BindFor([]string{"page"}, func(ev *extension.PostTrashableEvent) error {
			ev.Trashable = false
			return ev.Next()
		})
		api.Hooks.PreparePost.BindFunc(func(ev *extension.PreparePostEvent) error {
			ev.Response.Set("slug", "filtered-"+ev.Post.Slug)
			return ev.Next()
		})
		api.Hooks.PostQuery.BindFor([]string{"post"}, func(ev *extension.PostQueryEvent) error {
			if onlyID != 0 {
				ev.Query.Include = []int64{onlyID}
			}
			return ev.Next()
		})
		return nil
	}))
	page := e.do("POST", "/api/svc/v2/pages", "editor", map[string]any{"title": "P", "status": "publish"}).Object()
	r := e.do("DELETE", fmt.Sprintf("/api/svc/v2/pages/%v", page["id"]), "editor", nil)
	if r.Status != 501 || r.Object()["code"] != "rest_trash_not_supported" {
		t.Fatalf("trash of a page the filter forbids: %d %s", r.Status, r.Body)
	}
	if page["slug"] != "filtered-p" {
		t.Fatalf("prepare filter not applied: slug %v", page["slug"])
	}
	a := e.do("POST", "/api/svc/v2/posts", "editor", map[string]any{"title": "One", "status": "publish"}).Object()
	e.do("POST", "/api/svc/v2/posts", "editor", map[string]any{"title": "Two", "status": "publish"})
	onlyID = int64(a["id"].(float64))
	list := e.do("GET", "/api/svc/v2/posts", "", nil).Array()
	if len(list) != 1 || list[0].(map[string]any)["id"] != a["id"] {
		t.Fatalf("query filter not applied: %v", list)
	}
}

func TestFailingActionIsLoggedAndDoesNotCorruptTheWrite(t *testing.T) {
	e := newEnv(t, nil, extFunc(func(api *extension.API) error {
		api.Hooks.InsertPost.BindFunc(func(ev *extension.InsertPostEvent) error { return errors.New("observer broke") })
		return nil
	}))
	r := e.do("POST", "/api/svc/v2/posts", "editor", map[string]any{"title": "Still here"})
	e.want(r, 201)
	id := r.Object()["id"]
	e.want(e.do("GET", fmt.Sprintf("/api/svc/v2/posts/%v?context=edit", id), "editor", nil), 200)
}

func TestAPIInitFiresOnceWithTheServer(t *testing.T) {
	var got []*rest.Server
	newEnv(t, nil, extFunc(func(api *extension.API) error {
		api.Hooks.APIInit.BindFunc(func(ev *extension.APIInitEvent) error {
			got = append(got, ev.Server)
			return ev.Next()
		})
		return nil
	}))
	if len(got) != 1 || got[0] == nil {
		t.Fatalf("rest_api_init fired %d times", len(got))
	}
}
