package extension_test

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/folio-server/folio/internal/extension"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
)

// TestFieldUpdaterThatMovesTermsShowsInTheCreate: a create's response
// shows the terms the create wrote without reading them back, unless an
// extension field's updater ran in its write: the updater may have
// changed them, as this one does (it files the post under the category
// its value names).
func TestFieldUpdaterThatMovesTermsShowsInTheCreate(t *testing.T) {
	shelf := extFunc(func(api *extension.API) error {
		return api.RegisterField("post", extension.Field{
			Schema: &schema.Property{Name: "shelf", Description: "A category id to file the post under.", Type: "integer", Context: schema.Edit},
			Get:    func(r *rest.Request, res *rest.Resource) (any, error) { return 0, nil },
			Update: func(ctx context.Context, u *extension.FieldUpdate) error {
				id, err := strconv.ParseInt(fmt.Sprint(u.Value), 10, 64)
				if err != nil {
					return err
				}
				return u.Tx.SetPostTerms(ctx, u.ID, "category", []int64{id})
			},
		})
	})
	e := newEnv(t, nil, shelf)
	r := e.do("POST", "/api/svc/v2/categories", "administrator", map[string]any{"name": "Shelf"})
	e.want(r, 201)
	cat := r.Object()["id"]
	for _, fields := range []map[string]any{
		{"title": "Shelved", "status": "publish", "shelf": cat},
		{"title": "Shelved too", "status": "publish", "categories": []any{1}, "shelf": cat},
	} {
		r = e.do("POST", "/api/svc/v2/posts", "administrator", fields)
		e.want(r, 201)
		created := r.Object()
		if want := []any{cat}; !reflect.DeepEqual(created["categories"], want) {
			t.Errorf("%v: the create shows categories %v, want %v", fields["title"], created["categories"], want)
		}
		got := e.do("GET", fmt.Sprintf("/api/svc/v2/posts/%v", created["id"]), "", nil).Object()
		if !reflect.DeepEqual(got["categories"], created["categories"]) {
			t.Errorf("%v: read back %v, the create showed %v", fields["title"], got["categories"], created["categories"])
		}
	}
	// Without the field sent, the written terms are shown.
	r = e.do("POST", "/api/svc/v2/posts", "administrator", map[string]any{"title": "Plain", "status": "publish", "categories": []any{cat}})
	e.want(r, 201)
	if want := []any{cat}; !reflect.DeepEqual(r.Object()["categories"], want) {
		t.Errorf("plain: categories %v, want %v", r.Object()["categories"], want)
	}
}
