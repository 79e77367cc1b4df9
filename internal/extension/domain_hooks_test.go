package extension_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/extension"
	"github.com/folio-server/folio/internal/store"
)

// TestExtensionHooksFireFromTheDomain binds handlers through the extension
// API and drives the domain directly, without HTTP: the site fires the very
// registries the extension bound to, with typed fields (no cast), and a
// failing action is logged through the API's logger, not returned.
func TestExtensionHooksFireFromTheDomain(t *testing.T) {
	var terms []*store.Term
	var titles []string
	var withRequest int
	ext := extFunc(func(api *extension.API) error {
		api.Hooks.InsertTerm.BindFor([]string{"category"}, func(e *extension.InsertTermEvent) error {
			terms = append(terms, e.Term)
			if e.Request != nil || e.Tx != nil {
				withRequest++
			}
			return errors.New("action refused")
		})
		api.Hooks.Changed.BindFunc(func(e *extension.ChangeEvent) error {
			titles = append(titles, e.Title+" "+e.Change.Action)
			return e.Next()
		})
		return nil
	})
	e := newEnv(t, nil, ext)
	var logs bytes.Buffer
	api := e.srv.Extensions()
	api.SetLogger(slog.New(slog.NewTextHandler(&logs, nil)))
	site := e.srv.Site()
	if site.Hooks() != api.Hooks {
		t.Fatal("the site fires other registries than the extension API's")
	}
	tax, ok := site.Taxonomies().Get("category")
	if !ok {
		t.Fatal("no category taxonomy")
	}
	name := "From the domain"
	tm, err := site.CreateTerm(context.Background(), tax, content.TermInput{Name: &name}, nil)
	if err != nil {
		t.Fatalf("a failing action failed the write: %v", err)
	}
	if len(terms) != 1 || terms[0].ID != tm.ID || terms[0].Name != name || withRequest != 0 {
		t.Errorf("rest_insert_category saw %+v (%d with a request or transaction), want term %d once, after the commit", terms, withRequest, tm.ID)
	}
	if want := []string{"category created"}; !reflect.DeepEqual(titles, want) {
		t.Errorf("folio_changed saw %v, want %v", titles, want)
	}
	if out := logs.String(); !strings.Contains(out, "hook=rest_insert_category") || !strings.Contains(out, "action refused") {
		t.Errorf("the failing action was not logged: %q", out)
	}
}
