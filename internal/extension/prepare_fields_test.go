package extension_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/folio-server/folio/internal/extension"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
)

// TestPrepareFiltersSeeRegisteredFields checks that the registered fields
// are on the response before rest_prepare_<type> runs (seed rules 4-5,
// reference §11), on reads (single and collection, one batch load per
// response) and writes, for posts and terms: the filters upper-case the
// field's value, which they can only do once it is there.
func TestPrepareFiltersSeeRegisteredFields(t *testing.T) {
	var prepares atomic.Int64
	field := func(title string) extension.Field {
		return extension.Field{
			Schema: &schema.Property{Name: "label", Description: "Label.", Type: "string", Context: schema.View | schema.Edit, Readonly: true},
			Prepare: func(r *rest.Request, items []*rest.Resource) error {
				prepares.Add(1)
				return nil
			},
			Get: func(r *rest.Request, res *rest.Resource) (any, error) {
				id, _ := res.Value("id")
				return fmt.Sprintf("%s-%v", title, id), nil
			},
		}
	}
	shout := func(res *rest.Resource) {
		if v, ok := res.Value("label"); ok {
			res.Set("label", strings.ToUpper(v.(string)))
		}
	}
	e := newEnv(t, nil, extFunc(func(api *extension.API) error {
		if err := api.RegisterField("post", field("post")); err != nil {
			return err
		}
		if err := api.RegisterField("tag", field("tag")); err != nil {
			return err
		}
		api.Hooks.PreparePost.BindFunc(func(ev *extension.PreparePostEvent) error { shout(ev.Response); return nil })
		api.Hooks.PrepareTerm.BindFunc(func(ev *extension.PrepareTermEvent) error { shout(ev.Response); return nil })
		return nil
	}))
	var ids []any
	for i := 0; i < 3; i++ {
		r := e.do("POST", "/api/svc/v2/posts", "editor", map[string]any{"title": fmt.Sprint("p", i), "status": "publish"})
		e.want(r, 201)
		p := r.Object()
		if want := fmt.Sprintf("POST-%v", p["id"]); p["label"] != want {
			t.Fatalf("create response label = %v, want %s", p["label"], want)
		}
		ids = append(ids, p["id"])
	}
	r := e.do("PUT", fmt.Sprintf("/api/svc/v2/posts/%v", ids[0]), "editor", map[string]any{"title": "changed"})
	e.want(r, 200)
	if got := r.Object()["label"]; got != fmt.Sprintf("POST-%v", ids[0]) {
		t.Fatalf("update response label = %v", got)
	}
	if got := e.do("GET", fmt.Sprintf("/api/svc/v2/posts/%v", ids[1]), "", nil).Object()["label"]; got != fmt.Sprintf("POST-%v", ids[1]) {
		t.Fatalf("item label = %v", got)
	}
	before := prepares.Load()
	list := e.do("GET", "/api/svc/v2/posts", "", nil).Array()
	if len(list) != 3 {
		t.Fatalf("list has %d posts", len(list))
	}
	for _, it := range list {
		p := it.(map[string]any)
		if want := fmt.Sprintf("POST-%v", p["id"]); p["label"] != want {
			t.Fatalf("collection label = %v, want %s", p["label"], want)
		}
	}
	if n := prepares.Load() - before; n != 1 {
		t.Fatalf("a collection page loaded the field %d times, want 1", n)
	}
	r = e.do("POST", "/api/svc/v2/tags", "editor", map[string]any{"name": "Go"})
	e.want(r, 201)
	tag := r.Object()
	if want := fmt.Sprintf("TAG-%v", tag["id"]); tag["label"] != want {
		t.Fatalf("tag create label = %v, want %s", tag["label"], want)
	}
	tags := e.do("GET", "/api/svc/v2/tags", "", nil).Array()
	if len(tags) != 1 || tags[0].(map[string]any)["label"] != fmt.Sprintf("TAG-%v", tag["id"]) {
		t.Fatalf("tag collection = %v", tags)
	}
	// The filter runs exactly once per resource, reads and writes alike.
	e.rec.Reset()
	e.do("GET", "/api/svc/v2/posts", "", nil)
	if n := e.rec.Count("rest_prepare_post"); n != 3 {
		t.Fatalf("rest_prepare_post fired %d times for a page of 3", n)
	}
	r = e.do("DELETE", fmt.Sprintf("/api/svc/v2/posts/%v?force=true", ids[2]), "editor", nil)
	e.want(r, 200)
	if got := r.Object()["label"]; got != fmt.Sprintf("POST-%v", ids[2]) {
		t.Fatalf("deleted post label = %v", got)
	}
}

// TestInsertTermFiresBeforeFieldUpdates checks reference §11's order for
// terms: rest_insert_<taxonomy> fires once per write, inside the write's
// transaction (Tx set), before the extension fields' updaters.
func TestInsertTermFiresBeforeFieldUpdates(t *testing.T) {
	var mu sync.Mutex
	var seq []string
	note := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		seq = append(seq, s)
	}
	e := newEnv(t, nil, extFunc(func(api *extension.API) error {
		api.Hooks.InsertTerm.BindFor([]string{"post_tag"}, func(ev *extension.InsertTermEvent) error {
			note(fmt.Sprintf("insert creating=%v tx=%v", ev.Creating, ev.Tx != nil))
			return nil
		})
		return api.RegisterField("tag", extension.Field{
			Schema: &schema.Property{Name: "note", Description: "Note.", Type: "string", Context: schema.Edit},
			Update: func(ctx context.Context, u *extension.FieldUpdate) error {
				note("update " + u.Value.(string))
				return nil
			},
		})
	}))
	r := e.do("POST", "/api/svc/v2/tags", "editor", map[string]any{"name": "Go", "note": "a"})
	e.want(r, 201)
	id := r.Object()["id"]
	e.want(e.do("PUT", fmt.Sprintf("/api/svc/v2/tags/%v", id), "editor", map[string]any{"name": "Golang", "note": "b"}), 200)
	e.want(e.do("PUT", fmt.Sprintf("/api/svc/v2/tags/%v", id), "editor", map[string]any{"description": "no note"}), 200)
	want := []string{"insert creating=true tx=true", "update a", "insert creating=false tx=true", "update b", "insert creating=false tx=true"}
	if strings.Join(seq, "|") != strings.Join(want, "|") {
		t.Fatalf("order = %q, want %q", seq, want)
	}
	if n := e.rec.Count("rest_insert_post_tag"); n != 3 {
		t.Fatalf("rest_insert_post_tag fired %d times for 3 writes", n)
	}
}
