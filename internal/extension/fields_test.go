package extension_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/extension"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
	"github.com/folio-server/folio/internal/store"
)

// moodExtension registers a "mood" field on posts kept in post meta: a
// getter with a batch Prepare, and an updater writing through the write's
// transaction ("angry" makes it fail, to prove the rollback).
func moodExtension() extension.Extension {
	return extFunc(func(api *extension.API) error {
		type cacheKey struct{}
		return api.RegisterField("post", extension.Field{
			Schema: &schema.Property{Name: "mood", Description: "Mood.", Type: "string", Enum: []string{"happy", "sad", "angry"}, Context: schema.Edit | schema.View},
			Prepare: func(r *rest.Request, items []*rest.Resource) error {
				var ids []int64
				for _, it := range items {
					v, _ := it.Value("id")
					ids = append(ids, v.(int64))
				}
				got, err := api.Site().Storage().PostMeta(r.Context(), ids, []string{"_mood"})
				r.Cache()[cacheKey{}] = got
				return err
			},
			Get: func(r *rest.Request, res *rest.Resource) (any, error) {
				v, _ := res.Value("id")
				got := r.Cache()[cacheKey{}].(map[int64]map[string][]string)
				if vals := got[v.(int64)]["_mood"]; len(vals) > 0 {
					return vals[0], nil
				}
				return "", nil
			},
			Update: func(ctx context.Context, u *extension.FieldUpdate) error {
				if u.Value == "angry" {
					return rest.NewError("mood_refused", 400, "No angry posts.")
				}
				return u.Tx.(store.PostMetaStore).SetPostMeta(ctx, u.ID, "_mood", []string{u.Value.(string)})
			},
		})
	})
}

func TestRegisteredFieldEndToEnd(t *testing.T) {
	e := newEnv(t, nil, moodExtension())
	// In the item schema and OPTIONS.
	opt := e.do("OPTIONS", "/api/svc/v2/posts", "", nil).Object()
	props := opt["schema"].(map[string]any)["properties"].(map[string]any)
	if _, ok := props["mood"]; !ok {
		t.Fatalf("mood missing from the OPTIONS schema")
	}
	// In the index args of the write endpoints.
	idx := e.do("GET", "/api/svc/v2", "", nil).Object()
	eps := idx["routes"].(map[string]any)["/svc/v2/posts"].(map[string]any)["endpoints"].([]any)
	if _, ok := eps[1].(map[string]any)["args"].(map[string]any)["mood"]; !ok {
		t.Fatalf("mood missing from the POST /posts args: %v", eps[1])
	}
	// Written in the same write and shown before the context filter.
	r := e.do("POST", "/api/svc/v2/posts", "author", map[string]any{"title": "T", "mood": "happy", "status": "publish"})
	e.want(r, 201)
	p := r.Object()
	if p["mood"] != "happy" {
		t.Fatalf("mood in create response = %v", p["mood"])
	}
	view := e.do("GET", fmt.Sprintf("/api/svc/v2/posts/%v", p["id"]), "", nil).Object()
	if view["mood"] != "happy" {
		t.Fatalf("mood in view = %v", view["mood"])
	}
	embed := e.do("GET", fmt.Sprintf("/api/svc/v2/posts/%v?context=embed", p["id"]), "", nil).Object()
	if _, ok := embed["mood"]; ok {
		t.Fatalf("mood shown in embed context, which its schema excludes")
	}
	// Validated against its schema.
	r = e.do("POST", "/api/svc/v2/posts", "author", map[string]any{"title": "T", "mood": "meh"})
	if r.Status != 400 || r.Object()["code"] != "rest_invalid_param" {
		t.Fatalf("invalid enum: %d %s", r.Status, r.Body)
	}
	// An updater error rolls the whole write back.
	before := e.do("GET", "/api/svc/v2/posts?status=draft&context=edit", "administrator", nil).Array()
	r = e.do("POST", "/api/svc/v2/posts", "administrator", map[string]any{"title": "Angry", "mood": "angry"})
	if r.Status != 400 || r.Object()["code"] != "mood_refused" {
		t.Fatalf("refused update: %d %s", r.Status, r.Body)
	}
	after := e.do("GET", "/api/svc/v2/posts?status=draft&context=edit", "administrator", nil).Array()
	if len(after) != len(before) {
		t.Fatalf("a failed field update left a post behind")
	}
	// Update leaves the field alone when it is not sent.
	e.want(e.do("PUT", fmt.Sprintf("/api/svc/v2/posts/%v", p["id"]), "administrator", map[string]any{"title": "T2"}), 200)
	if got := e.do("GET", fmt.Sprintf("/api/svc/v2/posts/%v", p["id"]), "", nil).Object()["mood"]; got != "happy" {
		t.Fatalf("mood after an update without it = %v", got)
	}
	// A collection page costs a fixed number of field loads.
	for i := 0; i < 4; i++ {
		e.do("POST", "/api/svc/v2/posts", "author", map[string]any{"title": fmt.Sprint("x", i), "mood": "sad", "status": "publish"})
	}
	list := e.do("GET", "/api/svc/v2/posts", "", nil).Array()
	for _, it := range list {
		if m := it.(map[string]any)["mood"]; m != "sad" && m != "happy" {
			t.Fatalf("mood in the collection = %v", m)
		}
	}
}

func TestRegisteredMetaIsExposedValidatedAndFilterable(t *testing.T) {
	e := newEnv(t, nil, extFunc(func(api *extension.API) error {
		if err := api.RegisterMeta("post", extension.Meta{Key: "rating", Type: "integer", Filterable: true}); err != nil {
			return err
		}
		return api.RegisterMeta("post", extension.Meta{Key: "subtitle"})
	}))
	r := e.do("POST", "/api/svc/v2/posts", "editor", map[string]any{"title": "Rated", "status": "publish", "meta": map[string]any{"rating": 5, "subtitle": "s"}})
	e.want(r, 201)
	p := r.Object()
	meta := p["meta"].(map[string]any)
	if meta["rating"] != float64(5) || meta["subtitle"] != "s" {
		t.Fatalf("meta = %v", meta)
	}
	other := e.do("POST", "/api/svc/v2/posts", "editor", map[string]any{"title": "Unrated", "status": "publish"}).Object()
	if m := other["meta"].(map[string]any); m["rating"] != float64(0) || m["subtitle"] != "" {
		t.Fatalf("defaults = %v", m)
	}
	// Unregistered meta is never exposed, and cannot be written.
	if err := e.srv.Store().(store.PostMetaStore).SetPostMeta(context.Background(), int64(p["id"].(float64)), "_secret", []string{"x"}); err != nil {
		t.Fatal(err)
	}
	got := e.do("GET", fmt.Sprintf("/api/svc/v2/posts/%v", p["id"]), "", nil)
	if strings.Contains(string(got.Body), "_secret") {
		t.Fatalf("unregistered meta exposed: %s", got.Body)
	}
	r = e.do("PUT", fmt.Sprintf("/api/svc/v2/posts/%v", p["id"]), "editor", map[string]any{"meta": map[string]any{"_secret": "y"}})
	if r.Status != 400 || r.Object()["code"] != "rest_invalid_param" {
		t.Fatalf("unregistered key write: %d %s", r.Status, r.Body)
	}
	r = e.do("PUT", fmt.Sprintf("/api/svc/v2/posts/%v", p["id"]), "editor", map[string]any{"meta": map[string]any{"rating": "lots"}})
	if r.Status != 400 {
		t.Fatalf("non-integer rating: %d %s", r.Status, r.Body)
	}
	// Filterable on the collection.
	list := e.do("GET", "/api/svc/v2/posts?meta_key=rating&meta_value=5", "", nil).Array()
	if len(list) != 1 || list[0].(map[string]any)["id"] != p["id"] {
		t.Fatalf("meta filter: %v", list)
	}
	if n := len(e.do("GET", "/api/svc/v2/posts?meta_key=rating&meta_value=4", "", nil).Array()); n != 0 {
		t.Fatalf("meta filter with no match returned %d", n)
	}
	r = e.do("GET", "/api/svc/v2/posts?meta_key=subtitle", "", nil)
	if r.Status != 400 {
		t.Fatalf("a key that is not filterable must fail validation: %d", r.Status)
	}
	// Pages have no registered meta.
	pg := e.do("POST", "/api/svc/v2/pages", "editor", map[string]any{"title": "P"}).Object()
	if _, ok := pg["meta"]; ok {
		t.Fatalf("pages show meta")
	}
}

func TestRegisterFieldNeedsASchema(t *testing.T) {
	api, err := extension.New()
	if err != nil {
		t.Fatal(err)
	}
	if err := api.RegisterField("post", extension.Field{}); err == nil {
		t.Fatal("a field without schema was accepted")
	}
	_, err = extension.New(extFunc(func(api *extension.API) error { return errors.New("nope") }))
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("register error = %v", err)
	}
}
