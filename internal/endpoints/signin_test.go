package endpoints_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/testkit"
)

// titled counts the published posts titled title.
func (e *env) titled(title string) int {
	e.T.Helper()
	r := e.do("GET", posts+"?context=edit&per_page=100&search="+title, "administrator").WantStatus(200)
	n := 0
	for _, it := range r.Array() {
		if it.(map[string]any)["title"].(map[string]any)["raw"] == title {
			n++
		}
	}
	return n
}

// TestWritesSeeSignInChangesMadeElsewhere: what another node (or the
// command line) changes of a sign-in takes effect at the next write on
// this one, whether or not the store lets a write go on with its kept
// sign-in and check it with its first statement (store.SignInCheck, on
// PostgreSQL): a revoked password is refused (401) with nothing written
// and nothing else answered, a role taken away refuses what it allowed,
// and a change to someone else's sign-in makes the write run again, once.
func TestWritesSeeSignInChangesMadeElsewhere(t *testing.T) {
	e := newEnv(t)
	other := e.node()
	ctx := context.Background()
	ed := e.Users["editor"]
	// Kept sign-ins on this node: a write and a read of each caller.
	p := e.createPost("editor", "post", map[string]any{"title": "Kept sign-in"})
	e.createPost("author", "post", map[string]any{"title": "Author kept"})

	// A change of someone else's sign-in elsewhere moves the
	// authentication generation: the author's write goes on, once.
	other.do("POST", "/api/svc/v2/users/me/application-passwords", "administrator", map[string]any{"name": "elsewhere"}).WantStatus(201)
	e.do("POST", posts, "author", map[string]any{"title": "Zebrafinch", "status": "publish"}).WantStatus(201)
	if n := e.titled("Zebrafinch"); n != 1 {
		t.Fatalf("a write that ran again made %d posts, want 1", n)
	}

	// Passwords of the editor's, each revoked elsewhere (through the
	// store, as the command line does) just before the first request
	// that uses it, with what was kept of them still trusting it: a
	// create, one refused before it writes (an invalid status), an
	// update, a replace and a delete.
	kinds := []string{"create", "invalid", "update", "replace", "delete"}
	pws := map[string]string{}
	for _, kind := range kinds {
		plain, hash, err := auth.GenerateAppPassword()
		if err != nil {
			t.Fatal(err)
		}
		if err := e.db.InsertAppPassword(ctx, &store.AppPassword{UUID: "uuid-" + kind, UserID: ed.ID, Name: kind, Hash: hash}); err != nil {
			t.Fatal(err)
		}
		pws[kind] = plain
	}
	as := func(kind, method, path string, body any) *testkit.Response {
		t.Helper()
		req := e.Request(method, path, body)
		req.SetBasicAuth(ed.Login, pws[kind])
		return e.Send(e.HTTP.Client(), req)
	}
	for _, kind := range kinds {
		as(kind, "POST", posts, map[string]any{"title": "Kept " + kind, "status": "publish"}).WantStatus(201)
	}
	for _, c := range []struct {
		kind, method, path string
		body               any
	}{
		{"create", "POST", posts, map[string]any{"title": "Nightjar", "status": "publish"}},
		{"invalid", "POST", posts, map[string]any{"title": "Nightjar", "status": "no such status"}},
		{"update", "POST", fmt.Sprintf("%s/%d", posts, p.ID), map[string]any{"title": "Nightjar"}},
		{"replace", "PUT", fmt.Sprintf("%s/%d", posts, p.ID), map[string]any{"title": "Nightjar"}},
		{"delete", "DELETE", fmt.Sprintf("%s/%d?force=true", posts, p.ID), nil},
	} {
		if err := e.db.DeleteAppPassword(ctx, ed.ID, "uuid-"+c.kind); err != nil {
			t.Fatal(err)
		}
		r := as(c.kind, c.method, c.path, c.body).WantStatus(401)
		if r.Object()["code"] != "rest_authentication_failed" {
			t.Fatalf("%s %s after the password was revoked: %s", c.method, c.path, r.Body)
		}
	}
	if n := e.titled("Nightjar"); n != 0 {
		t.Fatalf("revoked passwords wrote %d posts", n)
	}
	if got, err := e.db.GetPost(ctx, p.ID); err != nil || got.Title != "Kept sign-in" {
		t.Fatalf("a revoked password changed post %d: %v %v", p.ID, got, err)
	}

	// The author's role taken away elsewhere.
	au := e.Users["author"]
	rec, err := e.db.GetUser(ctx, au.ID)
	if err != nil {
		t.Fatal(err)
	}
	rec.Roles = []string{"subscriber"}
	if err := e.db.UpdateUser(ctx, rec); err != nil {
		t.Fatal(err)
	}
	r := e.do("POST", posts, "author", map[string]any{"title": "Wagtail", "status": "publish"}).WantStatus(403)
	if r.Object()["code"] != "rest_cannot_create" {
		t.Fatalf("a subscriber's create: %s", r.Body)
	}
	if n := e.titled("Wagtail"); n != 0 {
		t.Fatalf("a role taken away still wrote %d posts", n)
	}
}

// TestKeptSignInIsCheckedWithTheFirstWrite: on a store that checks a
// sign-in with a write's first statement (store.SignInDeferrer), a write
// transaction carrying a store.SignInCheck commits when the sign-in is
// what was kept and reads it then, and rolls back with
// store.ErrSignInMoved, writing nothing, when it moved on; a store
// without it leaves the check to its request.
func TestKeptSignInIsCheckedWithTheFirstWrite(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	both := e.db.(store.UserAppPasswordsStore)
	d, _ := e.db.(store.SignInDeferrer)
	defers := d != nil && d.DefersSignIn()
	check := func() *store.SignInCheck {
		gen, counter, err := both.AuthGeneration(ctx, "pair key")
		if err != nil {
			t.Fatal(err)
		}
		return &store.SignInCheck{Key: "pair key", Gen: gen, Counter: counter,
			Read: func(ctx context.Context) (store.Generations, store.LoginCounter, error) {
				return both.AuthGeneration(ctx, "pair key")
			}}
	}
	insert := func(c *store.SignInCheck, title string) error {
		return e.db.Tx(store.WithSignInCheck(ctx, c), func(tx store.Store) error {
			return tx.InsertPost(ctx, &store.Post{Type: "post", Status: "publish", Title: title, Slug: title, Author: e.Users["editor"].ID})
		})
	}

	held := check()
	if err := insert(held, "held"); err != nil {
		t.Fatalf("a write with its sign-in held: %v", err)
	}
	if held.Unchecked() == defers {
		t.Fatalf("after a write the check is unchecked = %v; the store checks sign-ins with writes = %v", held.Unchecked(), defers)
	}
	if ok, err := held.Verify(ctx); err != nil || !ok {
		t.Fatalf("verify a held sign-in: %v %v", ok, err)
	}

	moved := check()
	_, hash, err := auth.GenerateAppPassword()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.db.InsertAppPassword(ctx, &store.AppPassword{UUID: "uuid-moved", UserID: e.Users["author"].ID, Name: "moved", Hash: hash}); err != nil {
		t.Fatal(err)
	}
	err = insert(moved, "moved")
	if defers {
		if !errors.Is(err, store.ErrSignInMoved) || !moved.Moved() {
			t.Fatalf("a write with its sign-in moved on: %v (moved %v), want store.ErrSignInMoved", err, moved.Moved())
		}
		if n := e.titled("moved"); n != 0 {
			t.Fatalf("a write whose sign-in moved on wrote %d posts", n)
		}
		// Nothing else begins for it either.
		if err := insert(moved, "moved again"); !errors.Is(err, store.ErrSignInMoved) {
			t.Fatalf("a write after the check failed: %v", err)
		}
		return
	}
	if err != nil || !moved.Unchecked() {
		t.Fatalf("a store that does not check sign-ins: %v, unchecked %v", err, moved.Unchecked())
	}
	if ok, err := moved.Verify(ctx); err != nil || ok {
		t.Fatalf("verify a moved sign-in: %v %v", ok, err)
	}
}
