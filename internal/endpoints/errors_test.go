package endpoints_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/testkit"
)

// faultyStore is a store whose transactions and some reads fail on demand,
// as a database that is down, locked by another writer or broken would.
type faultyStore struct {
	store.Store
	mu   sync.Mutex
	errs map[string]error // method name → the error it returns
}

func (f *faultyStore) set(method string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.errs == nil {
		f.errs = map[string]error{}
	}
	f.errs[method] = err
}

func (f *faultyStore) fault(method string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.errs[method]
}

func (f *faultyStore) Tx(ctx context.Context, fn func(store.Store) error) error {
	if err := f.fault("Tx"); err != nil {
		return err
	}
	return f.Store.Tx(ctx, fn)
}

func (f *faultyStore) ListPosts(ctx context.Context, q store.PostQuery) ([]*store.Post, error) {
	if err := f.fault("ListPosts"); err != nil {
		return nil, err
	}
	return f.Store.ListPosts(ctx, q)
}

func (f *faultyStore) GetUserBySlug(ctx context.Context, slug string) (*store.User, error) {
	if err := f.fault("GetUserBySlug"); err != nil {
		return nil, err
	}
	return f.Store.GetUserBySlug(ctx, slug)
}

// secret is internal error text that must never reach a client.
const secret = "relation wp_secret_table does not exist"

var (
	errBusy   = fmt.Errorf("delete post: %w: database is locked (%s)", store.ErrBusy, secret)
	errDown   = fmt.Errorf("list posts: %w: dial tcp 127.0.0.1:5432: connection refused (%s)", store.ErrUnavailable, secret)
	errBroken = errors.New("scan post: " + secret)
)

// newFaultyEnv is newEnv served over a faultyStore of its store.
func newFaultyEnv(t *testing.T) (*env, *faultyStore) {
	t.Helper()
	e := newEnv(t)
	f := &faultyStore{Store: e.db}
	return e.over(f, nil), f
}

// wantUnavailable asserts the 503 of a store that is down or busy: the
// spec's error body, a Retry-After, and none of the cause's text.
func wantUnavailable(t *testing.T, r *testkit.Response) {
	t.Helper()
	r.WantError(503, "rest_database_unavailable")
	if r.Header.Get("Retry-After") == "" {
		t.Fatalf("503 without Retry-After; header %v", r.Header)
	}
	if strings.Contains(string(r.Body), secret) || strings.Contains(string(r.Body), "store:") {
		t.Fatalf("503 body carries internal text: %s", r.Body)
	}
}

// TestStoreOutageOnDeleteIs503 checks that a delete whose transaction
// fails because the store is busy or down answers 503 with Retry-After
// (it used to be a 500 that dropped the cause), and that other failures
// answer the delete's 500 without internal text.
func TestStoreOutageOnDeleteIs503(t *testing.T) {
	e, f := newFaultyEnv(t)
	for _, force := range []string{"true", "false"} {
		p := e.createPost("editor", "post", nil)
		path := fmt.Sprintf("%s/%d?force=%s", posts, p.ID, force)

		f.set("Tx", errBusy)
		wantUnavailable(t, e.do("DELETE", path, "editor"))
		f.set("Tx", errDown)
		wantUnavailable(t, e.do("DELETE", path, "editor"))

		f.set("Tx", errBroken)
		r := e.do("DELETE", path, "editor")
		r.WantError(500, "rest_cannot_delete")
		if strings.Contains(string(r.Body), secret) {
			t.Fatalf("500 body carries internal text: %s", r.Body)
		}

		f.set("Tx", nil)
		e.do("DELETE", path, "editor").WantStatus(200)
	}

	// The other delete handlers share the boundary.
	cat := e.do("POST", "/api/svc/v2/categories", "editor", map[string]any{"name": "Doomed"})
	cat.WantStatus(201)
	uid := e.AddUser("doomed", "subscriber").ID
	f.set("Tx", errBusy)
	wantUnavailable(t, e.do("DELETE", fmt.Sprintf("/api/svc/v2/categories/%d?force=true", int64(cat.Object()["id"].(float64))), "editor"))
	wantUnavailable(t, e.do("DELETE", fmt.Sprintf("/api/svc/v2/users/%d?force=true&reassign=%d", uid, e.ID("administrator")), "administrator"))
}

// TestStoreErrorsOnReads checks reads: a store outage is 503 with
// Retry-After, filter[author_name] no longer hides the store's errors
// behind an empty list, and any other failure is a 500 whose body is the
// generic message.
func TestStoreErrorsOnReads(t *testing.T) {
	e, f := newFaultyEnv(t)
	e.createPost("editor", "post", nil)

	f.set("ListPosts", errDown)
	wantUnavailable(t, e.do("GET", posts, "editor"))

	f.set("ListPosts", errBroken)
	r := e.do("GET", posts, "editor")
	m := r.WantError(500, "rest_internal_error")
	if strings.Contains(string(r.Body), secret) || m["message"] != "An internal error occurred." {
		t.Fatalf("500 body carries internal text: %s", r.Body)
	}
	f.set("ListPosts", nil)

	f.set("GetUserBySlug", errBusy)
	wantUnavailable(t, e.do("GET", posts+"?filter[author_name]=editor", "editor"))
	f.set("GetUserBySlug", nil)
	if got := e.do("GET", posts+"?filter[author_name]=editor", "editor"); got.Status != 200 || len(got.Array()) != 1 {
		t.Fatalf("filter[author_name]=editor: %d %s", got.Status, got.Body)
	}
	if got := e.do("GET", posts+"?filter[author_name]=nobody", "editor"); got.Status != 200 || len(got.Array()) != 0 {
		t.Fatalf("filter[author_name]=nobody: %d %s", got.Status, got.Body)
	}
}
