package extension_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/extension"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/store"
)

// TestUserFiltersChangeWriteAndResponse checks that rest_pre_insert_user
// can change the user being written and stop the write, and that
// rest_prepare_user can change the response.
func TestUserFiltersChangeWriteAndResponse(t *testing.T) {
	e := newEnv(t, nil, extFunc(func(api *extension.API) error {
		api.Hooks.PreInsertUser.BindFunc(func(ev *extension.PreInsertUserEvent) error {
			if ev.Request == nil {
				return errors.New("no request")
			}
			if ev.User.Nickname == "refused" {
				return &content.Error{Code: "ext_user_refused", Message: "Refused by an extension.", Status: 400}
			}
			ev.User.Description = "filtered " + ev.User.Description
			return ev.Next()
		})
		api.Hooks.PrepareUser.BindFunc(func(ev *extension.PrepareUserEvent) error {
			ev.Response.Set("name", "prepared "+ev.User.DisplayName)
			return ev.Next()
		})
		return nil
	}))
	r := e.do("POST", "/api/svc/v2/users", "administrator", map[string]any{"username": "neo", "email": "neo@example.com", "password": "pw", "name": "Neo", "description": "one"})
	e.want(r, 201)
	u := r.Object()
	if u["description"] != "filtered one" || u["name"] != "prepared Neo" {
		t.Fatalf("create: description %v, name %v", u["description"], u["name"])
	}
	path := fmt.Sprintf("/api/svc/v2/users/%v", u["id"])
	r = e.do("PUT", path, "administrator", map[string]any{"description": "two"})
	e.want(r, 200)
	if d := r.Object()["description"]; d != "filtered two" {
		t.Fatalf("update: description %v", d)
	}
	r = e.do("PUT", path, "administrator", map[string]any{"nickname": "refused"})
	if r.Status != 400 || r.Object()["code"] != "ext_user_refused" {
		t.Fatalf("refused update: %d %s", r.Status, r.Body)
	}
	got := e.do("GET", path+"?context=edit", "administrator", nil).Object()
	if got["nickname"] == "refused" || got["description"] != "filtered two" {
		t.Fatalf("refused update was written: %v", got)
	}
	list := e.do("GET", "/api/svc/v2/users?include="+fmt.Sprint(u["id"]), "administrator", nil).Array()
	if len(list) != 1 || list[0].(map[string]any)["name"] != "prepared Neo" {
		t.Fatalf("list not filtered: %v", list)
	}
}

// TestUserHookArguments checks what rest_pre_insert_user, rest_prepare_user
// and rest_delete_user are given.
func TestUserHookArguments(t *testing.T) {
	e := newEnv(t, nil)
	r := e.do("POST", "/api/svc/v2/users", "administrator", map[string]any{"username": "neo", "email": "neo@example.com", "password": "pw"})
	e.want(r, 201)
	id := r.Object()["id"]
	for _, c := range e.rec.Calls() {
		switch c.Name {
		case "rest_pre_insert_user":
			if u, ok := c.Args[0].(*store.User); !ok || u.Login != "neo" {
				t.Fatalf("pre insert args = %v", c.Args)
			}
			if _, ok := c.Args[1].(*rest.Request); !ok {
				t.Fatalf("pre insert request = %#v", c.Args[1])
			}
		case "rest_prepare_user":
			res, ok := c.Args[0].(*rest.Resource)
			if !ok || c.Args[1].(*store.User).Login != "neo" {
				t.Fatalf("prepare args = %v", c.Args)
			}
			if v, _ := res.Value("username"); v != "neo" {
				t.Fatalf("prepare response username = %v", v)
			}
		}
	}
	e.rec.Reset()
	e.want(e.do("DELETE", fmt.Sprintf("/api/svc/v2/users/%v?force=true&reassign=1", id), "administrator", nil), 200)
	n := 0
	for _, c := range e.rec.Calls() {
		if c.Name != "rest_delete_user" {
			continue
		}
		n++
		if u, ok := c.Args[0].(*store.User); !ok || u.Login != "neo" {
			t.Fatalf("delete user arg = %#v", c.Args[0])
		}
		res, ok := c.Args[1].(*rest.Resource)
		if !ok {
			t.Fatalf("delete response arg = %#v", c.Args[1])
		}
		if v, _ := res.Value("id"); fmt.Sprint(v) != fmt.Sprint(id) {
			t.Fatalf("delete response id = %v, want %v", v, id)
		}
		if _, ok := c.Args[2].(*rest.Request); !ok {
			t.Fatalf("delete request = %#v", c.Args[2])
		}
	}
	if n != 1 {
		t.Fatalf("rest_delete_user fired %d times", n)
	}
}
