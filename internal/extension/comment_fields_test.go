package extension_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/folio-server/folio/internal/extension"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
)

// flagExtension registers a "flag" field on comments whose updater refuses
// "bad" with an API error, fails with a plain error on "boom" and records
// every other value by comment id.
func flagExtension(mu *sync.Mutex, saved map[int64]any) extension.Extension {
	return extFunc(func(api *extension.API) error {
		return api.RegisterField("comment", extension.Field{
			Schema: &schema.Property{Name: "flag", Description: "Flag.", Type: "string", Enum: []string{"ok", "bad", "boom", "fine"}, Context: schema.View | schema.Edit},
			Get: func(r *rest.Request, res *rest.Resource) (any, error) {
				id, _ := res.Value("id")
				mu.Lock()
				defer mu.Unlock()
				return saved[id.(int64)], nil
			},
			Update: func(ctx context.Context, u *extension.FieldUpdate) error {
				switch u.Value {
				case "bad":
					return rest.NewError("flag_refused", 400, "Bad flag.")
				case "boom":
					return errors.New("flag store exploded")
				}
				mu.Lock()
				defer mu.Unlock()
				saved[u.ID] = u.Value
				return nil
			},
		})
	})
}

// TestCommentFieldErrorsKeepTheirCode checks that a comment field's schema
// validation and its updater's API error reach the client with their own
// code and status on create and update, and roll the write back, while any
// other updater failure stays rest_comment_failed_create/edit.
func TestCommentFieldErrorsKeepTheirCode(t *testing.T) {
	var mu sync.Mutex
	saved := map[int64]any{}
	e := newEnv(t, nil, flagExtension(&mu, saved))
	post := e.do("POST", "/api/svc/v2/posts", "editor", map[string]any{"title": "P", "status": "publish"})
	e.want(post, 201)
	pid := post.Object()["id"]
	count := func() int {
		t.Helper()
		return len(e.do("GET", "/api/svc/v2/comments?context=edit&status=all&per_page=100", "administrator", nil).Array())
	}
	for _, login := range []string{"administrator", "editor"} { // moderators: no flood check between the attempts
		body := func(flag string) map[string]any {
			return map[string]any{"post": pid, "content": "c " + login + " " + flag, "flag": flag}
		}
		r := e.do("POST", "/api/svc/v2/comments", login, body("nope"))
		if r.Status != 400 || r.Object()["code"] != "rest_invalid_param" {
			t.Fatalf("%s: invalid flag on create: %d %s", login, r.Status, r.Body)
		}
		before := count()
		r = e.do("POST", "/api/svc/v2/comments", login, body("bad"))
		if r.Status != 400 || r.Object()["code"] != "flag_refused" {
			t.Fatalf("%s: refused flag on create: %d %s", login, r.Status, r.Body)
		}
		if n := count(); n != before {
			t.Fatalf("%s: a refused field update left a comment behind (%d, was %d)", login, n, before)
		}
		r = e.do("POST", "/api/svc/v2/comments", login, body("boom"))
		if r.Status != 500 || r.Object()["code"] != "rest_comment_failed_create" {
			t.Fatalf("%s: failing updater on create: %d %s", login, r.Status, r.Body)
		}
		if n := count(); n != before {
			t.Fatalf("%s: a failed field update left a comment behind", login)
		}
		r = e.do("POST", "/api/svc/v2/comments", login, body("ok"))
		e.want(r, 201)
		c := r.Object()
		if c["flag"] != "ok" {
			t.Fatalf("%s: flag in the create response = %v", login, c["flag"])
		}
	}
	// Updates (administrator: moderators can edit any comment).
	c := e.do("POST", "/api/svc/v2/comments", "administrator", map[string]any{"post": pid, "content": "original", "flag": "ok"}).Object()
	path := fmt.Sprintf("/api/svc/v2/comments/%v", c["id"])
	r := e.do("PUT", path, "administrator", map[string]any{"content": "changed", "flag": "nope"})
	if r.Status != 400 || r.Object()["code"] != "rest_invalid_param" {
		t.Fatalf("invalid flag on update: %d %s", r.Status, r.Body)
	}
	r = e.do("PUT", path, "administrator", map[string]any{"content": "changed", "flag": "bad"})
	if r.Status != 400 || r.Object()["code"] != "flag_refused" {
		t.Fatalf("refused flag on update: %d %s", r.Status, r.Body)
	}
	r = e.do("PUT", path, "administrator", map[string]any{"content": "changed", "flag": "boom"})
	if r.Status != 500 || r.Object()["code"] != "rest_comment_failed_edit" {
		t.Fatalf("failing updater on update: %d %s", r.Status, r.Body)
	}
	got := e.do("GET", path+"?context=edit", "administrator", nil).Object()
	if raw := got["content"].(map[string]any)["raw"]; raw != "original" || got["flag"] != "ok" {
		t.Fatalf("a failed update changed the comment: content %v, flag %v", raw, got["flag"])
	}
	r = e.do("PUT", path, "administrator", map[string]any{"content": "changed", "flag": "fine"})
	e.want(r, 200)
	if u := r.Object(); u["flag"] != "fine" || u["content"].(map[string]any)["raw"] != "changed" {
		t.Fatalf("update response = %v", u)
	}
}
