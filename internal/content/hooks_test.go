package content_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/events"
	"github.com/folio-server/folio/internal/store"
)

// TestTheDomainFiresTypedHooks: handlers bound to a site's typed hooks are
// called by the domain itself with typed fields (no request outside an API
// call), a failing action is logged and does not fail the write, and a
// failing filter leaves the unfiltered value.
func TestTheDomainFiresTypedHooks(t *testing.T) {
	site, _, admin := adminSite(t)
	ctx := context.Background()
	var logged bytes.Buffer
	site.Hooks().SetLogger(slog.New(slog.NewTextHandler(&logged, nil)))
	pt, _ := site.Types().Get("post")

	var changes []events.Change
	var titles []string
	site.Hooks().Changed.BindFunc(func(e *events.ChangeEvent) error {
		changes = append(changes, e.Change)
		titles = append(titles, e.Title)
		return e.Next()
	})
	title := "Typed"
	p, _, err := site.CreatePost(ctx, site.UserOf(admin), pt, content.PostInput{Title: &title}, "http://example.test")
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Kind != "post" || changes[0].Action != "created" || changes[0].ID != p.ID ||
		changes[0].Record.(*store.Post).Title != "Typed" || titles[0] != "post" {
		t.Errorf("changes %+v titles %v, want one created post %d titled post", changes, titles, p.ID)
	}

	// An action that fails is logged under its hook's name; the domain
	// goes on.
	var inserted *store.Post
	site.Hooks().InsertPost.BindFor([]string{"post"}, func(e *events.InsertPostEvent) error {
		inserted = e.Post
		if e.Request != nil || !e.Creating {
			t.Errorf("rest_insert_post outside a request: request %v creating %v", e.Request, e.Creating)
		}
		return errors.New("the action broke")
	})
	site.InsertPostHook(ctx, pt, p, nil, true)
	if inserted != p {
		t.Errorf("rest_insert_post got %v, want the post", inserted)
	}
	if !strings.Contains(logged.String(), "hook=rest_insert_post") || !strings.Contains(logged.String(), "the action broke") {
		t.Errorf("the failing action was not logged: %q", logged.String())
	}

	// A filter: rest_post_trashable changes the answer; when it fails, the
	// type's default stands.
	site.Hooks().PostTrashable.BindFunc(func(e *events.PostTrashableEvent) error {
		e.Trashable = false
		return e.Next()
	})
	if site.Trashable(pt, p) {
		t.Error("the trashable filter's answer was ignored")
	}
	site.Hooks().PostTrashable.BindFunc(func(e *events.PostTrashableEvent) error { return errors.New("filter broke") })
	if !site.Trashable(pt, p) {
		t.Error("a failing trashable filter did not leave the type's default")
	}
	// Filters of another type are not asked.
	page, _ := site.Types().Get("page")
	site.Hooks().PostQuery.BindFor([]string{"page"}, func(e *events.PostQueryEvent) error {
		e.Query.Limit = 3
		return e.Next()
	})
	if q := site.PostQueryHook(ctx, pt, store.PostQuery{Limit: 10}, nil); q.Limit != 10 {
		t.Errorf("rest_page_query changed a post query: limit %d", q.Limit)
	}
	if q := site.PostQueryHook(ctx, page, store.PostQuery{Limit: 10}, nil); q.Limit != 3 {
		t.Errorf("rest_page_query: limit %d, want 3", q.Limit)
	}
}
