package auth_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/testkit"
)

// basicRequest is a request from 192.0.2.1 with HTTP Basic credentials.
func basicRequest(login, pw string) *http.Request {
	r := httptest.NewRequest("GET", "/api/", nil)
	r.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(login+":"+pw)))
	return r
}

// TestBasicAuthOnTheSitesStore: BasicAuth over a site's real store (the
// one FOLIO_TEST_DATABASE_URL selects) and roles signs in each user of the
// site with their application password (by login or email), with the
// capabilities of their role; it refuses the account password, another
// user's application password and a wrong one alike, and records a
// password's use in the store once a minute.
func TestBasicAuthOnTheSitesStore(t *testing.T) {
	t.Parallel()
	s := testkit.New(t)
	st := s.Store()
	now := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)
	b := &auth.BasicAuth{Users: st, Apps: st, Roles: s.Server.Site().Roles(), Now: func() time.Time { return now }}

	for _, role := range testkit.Roles {
		u := s.Users[role]
		for _, login := range []string{u.Login, u.Login + "@example.com"} {
			got, err := b.Authenticate(basicRequest(login, u.AppPassword))
			if err != nil || got == nil || got.ID() != u.ID {
				t.Fatalf("%s as %q: %v %v", role, login, got, err)
			}
			if got.HasCap("edit_others_posts") != (role == "administrator" || role == "editor") || got.HasCap("manage_options") != (role == "administrator") {
				t.Errorf("%s has the wrong capabilities: %v", role, got.AllCapNames())
			}
		}
	}

	ed := s.Users["editor"]
	for name, pw := range map[string]string{
		"account password":            ed.Password,
		"another user's app password": s.Users["author"].AppPassword,
		"wrong app password":          "aaaa bbbb cccc dddd eeee ffff",
		"unknown login":               "",
	} {
		login := ed.Login
		if pw == "" {
			login, pw = "nobody", ed.AppPassword
		}
		u, err := b.Authenticate(basicRequest(login, pw))
		var ae *auth.Error
		if u != nil || !errors.As(err, &ae) || ae.Code != "rest_authentication_failed" || ae.Status != http.StatusUnauthorized {
			t.Errorf("%s: user %v, error %v; want 401 rest_authentication_failed", name, u, err)
		}
	}

	apps, err := st.ListAppPasswords(s.T.Context(), ed.ID)
	if err != nil || len(apps) != 1 {
		t.Fatalf("editor's application passwords: %v %v", apps, err)
	}
	if !apps[0].LastUsed.Equal(now) || apps[0].LastIP != "192.0.2.1" {
		t.Errorf("last use = %v from %q, want %v from 192.0.2.1", apps[0].LastUsed, apps[0].LastIP, now)
	}
	// Within the minute nothing is written; after it, the use is.
	now = now.Add(30 * time.Second)
	if _, err := b.Authenticate(basicRequest(ed.Login, ed.AppPassword)); err != nil {
		t.Fatal(err)
	}
	apps, _ = st.ListAppPasswords(s.T.Context(), ed.ID)
	if !apps[0].LastUsed.Equal(now.Add(-30 * time.Second)) {
		t.Errorf("a use within the minute was written: %v", apps[0].LastUsed)
	}
	now = now.Add(time.Minute)
	if _, err := b.Authenticate(basicRequest(ed.Login, ed.AppPassword)); err != nil {
		t.Fatal(err)
	}
	apps, _ = st.ListAppPasswords(s.T.Context(), ed.ID)
	if !apps[0].LastUsed.Equal(now) {
		t.Errorf("last use %v, want %v", apps[0].LastUsed, now)
	}
}

// readCounter counts the full reads of users and passwords BasicAuth
// makes through a store.UserAppPasswordsStore.
type readCounter struct {
	store.AppPasswordStore
	both  store.UserAppPasswordsStore
	reads atomic.Int64
}

func (c *readCounter) GetUserAppPasswords(ctx context.Context, login, key string) (store.UserAppPasswords, error) {
	c.reads.Add(1)
	return c.both.GetUserAppPasswords(ctx, login, key)
}

func (c *readCounter) AuthGeneration(ctx context.Context, key string) (store.Generations, store.LoginCounter, error) {
	return c.both.AuthGeneration(ctx, key)
}

// TestBasicAuthKeepsUsersWhileTheirGenerationHolds: BasicAuth reads a
// login's user and passwords once and then only the authentication
// generation, until something it read changes; a password revoked, a role
// taken away, a new password, a user removed, by whatever process does it
// (here the store itself, as another node or the command line would),
// take effect at the next request.
func TestBasicAuthKeepsUsersWhileTheirGenerationHolds(t *testing.T) {
	t.Parallel()
	s := testkit.New(t)
	st := s.Store()
	ctx := s.T.Context()
	both, ok := st.(store.UserAppPasswordsStore)
	if !ok {
		t.Fatalf("%T keeps no authentication generation", st)
	}
	apps := &readCounter{AppPasswordStore: st, both: both}
	b := &auth.BasicAuth{Users: st, Apps: apps, Roles: s.Server.Site().Roles()}
	ed := s.Users["editor"]
	signIn := func(pw string, reads int64) *auth.User {
		t.Helper()
		u, err := b.Authenticate(basicRequest(ed.Login, pw))
		if got := apps.reads.Load(); got != reads {
			t.Fatalf("%d full reads, want %d", got, reads)
		}
		if err != nil {
			var ae *auth.Error
			if !errors.As(err, &ae) || ae.Code != "rest_authentication_failed" || ae.Status != http.StatusUnauthorized {
				t.Fatalf("error %v, want 401 rest_authentication_failed", err)
			}
			return nil
		}
		return u
	}
	u := signIn(ed.AppPassword, 1)
	if u == nil || u.ID() != ed.ID || !u.HasCap("edit_others_posts") {
		t.Fatalf("editor = %v", u)
	}
	// What a request's user is changed through stays its own.
	u.Record().Roles[0] = "administrator"
	u.Record().Caps["manage_options"] = true
	if again := signIn(ed.AppPassword, 1); again == nil || again.HasCap("manage_options") || again.Roles()[0] != "editor" {
		t.Fatalf("kept user changed through a request's user: %v", again.AllCapNames())
	}
	if signIn("aaaa bbbb cccc dddd eeee ffff", 1) != nil {
		t.Fatal("a wrong password signed in against the kept ones")
	}

	// Revoked elsewhere: refused at once.
	list, err := st.ListAppPasswords(ctx, ed.ID)
	if err != nil || len(list) != 1 {
		t.Fatalf("passwords: %v %v", list, err)
	}
	if err := st.DeleteAppPassword(ctx, ed.ID, list[0].UUID); err != nil {
		t.Fatal(err)
	}
	if signIn(ed.AppPassword, 2) != nil {
		t.Fatal("a revoked password signed in")
	}
	// A new one works at once.
	plain, hash, err := auth.GenerateAppPassword()
	if err != nil {
		t.Fatal(err)
	}
	if err := st.InsertAppPassword(ctx, &store.AppPassword{UUID: "uuid-new", UserID: ed.ID, Name: "new", Hash: hash}); err != nil {
		t.Fatal(err)
	}
	if signIn(plain, 3) == nil {
		t.Fatal("a new password did not sign in")
	}
	// Recording its use changes nothing that is kept.
	if signIn(plain, 3) == nil {
		t.Fatal("the new password stopped signing in")
	}
	// A role taken away.
	rec, err := st.GetUser(ctx, ed.ID)
	if err != nil {
		t.Fatal(err)
	}
	rec.Roles = []string{"subscriber"}
	if err := st.UpdateUser(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if u := signIn(plain, 4); u == nil || u.HasCap("edit_posts") {
		t.Fatalf("after the role was taken away: %v", u)
	}
	// The user removed.
	if err := st.DeleteUser(ctx, ed.ID); err != nil {
		t.Fatal(err)
	}
	if signIn(plain, 5) != nil {
		t.Fatal("a removed user signed in")
	}
}

// deferringCounter is a readCounter over a store that checks a sign-in
// with a write's first statement (store.SignInDeferrer), counting the
// reads of the sign-in too.
type deferringCounter struct {
	readCounter
	gens atomic.Int64
}

func (c *deferringCounter) AuthGeneration(ctx context.Context, key string) (store.Generations, store.LoginCounter, error) {
	c.gens.Add(1)
	return c.both.AuthGeneration(ctx, key)
}

func (c *deferringCounter) DefersSignIn() bool { return true }

// TestBasicAuthDefersTheSignInOfAWrite: a request the server may run again
// (store.WithSignInDeferred) whose login is kept at the generation the
// last read returned goes on without reading its sign-in, with a
// store.SignInCheck to pass; any other request reads it. A password that
// matches nothing kept is checked on a read, and a revoked one that the
// kept passwords still hold fails its check.
func TestBasicAuthDefersTheSignInOfAWrite(t *testing.T) {
	t.Parallel()
	s := testkit.New(t)
	st := s.Store()
	ctx := s.T.Context()
	apps := &deferringCounter{readCounter: readCounter{AppPasswordStore: st, both: st.(store.UserAppPasswordsStore)}}
	b := &auth.BasicAuth{Users: st, Apps: apps, Roles: s.Server.Site().Roles()}
	ed := s.Users["editor"]
	signIn := func(pw string, deferred bool, reads, gens int64) (*auth.User, error) {
		t.Helper()
		r := basicRequest(ed.Login, pw)
		if deferred {
			r = r.WithContext(store.WithSignInDeferred(r.Context()))
		}
		u, err := b.Authenticate(r)
		if got, gotGens := apps.reads.Load(), apps.gens.Load(); got != reads || gotGens != gens {
			t.Fatalf("%d full reads and %d of the sign-in, want %d and %d", got, gotGens, reads, gens)
		}
		return u, err
	}
	// Nothing kept: read.
	if u, err := signIn(ed.AppPassword, true, 1, 0); err != nil || u.ID() != ed.ID || u.SignInCheck() != nil {
		t.Fatalf("first sign-in: %v %v", u, err)
	}
	// Kept: not read, checked later.
	u, err := signIn(ed.AppPassword, true, 1, 0)
	if err != nil || u.ID() != ed.ID || !u.HasCap("edit_others_posts") {
		t.Fatalf("kept sign-in: %v %v", u, err)
	}
	c := u.SignInCheck()
	if c == nil || !c.Unchecked() {
		t.Fatalf("a kept sign-in has no check to pass: %v", c)
	}
	if ok, err := c.Verify(ctx); err != nil || !ok || c.Unchecked() {
		t.Fatalf("verify: %v %v", ok, err)
	}
	if _, err := signIn(ed.AppPassword, true, 1, 1); err != nil {
		t.Fatal(err)
	}
	// Not deferred: read.
	if u, err := signIn(ed.AppPassword, false, 1, 2); err != nil || u.SignInCheck() != nil {
		t.Fatalf("a sign-in not deferred: %v %v", u, err)
	}
	// A password nothing kept matches is refused on a read only.
	if u, err := signIn("aaaa bbbb cccc dddd eeee ffff", true, 1, 3); u != nil || err == nil {
		t.Fatalf("a wrong password: %v %v", u, err)
	}

	// Revoked elsewhere: what is kept still holds it, and its check fails.
	list, err := st.ListAppPasswords(ctx, ed.ID)
	if err != nil || len(list) != 1 {
		t.Fatalf("passwords: %v %v", list, err)
	}
	if err := st.DeleteAppPassword(ctx, ed.ID, list[0].UUID); err != nil {
		t.Fatal(err)
	}
	u, err = signIn(ed.AppPassword, true, 1, 3)
	if err != nil || u.SignInCheck() == nil {
		t.Fatalf("kept sign-in of a revoked password: %v %v", u, err)
	}
	if ok, err := u.SignInCheck().Verify(ctx); err != nil || ok || !u.SignInCheck().Moved() {
		t.Fatalf("the check of a revoked password: %v %v", ok, err)
	}
	// The read that found it moved is not trusted with the old kept
	// user: the next request reads it all, and is refused.
	var ae *auth.Error
	if u, err := signIn(ed.AppPassword, true, 2, 5); u != nil || !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized {
		t.Fatalf("a revoked password after its check failed: %v %v", u, err)
	}
}

// TestBasicAuthDoesNotWarnOfARevokedPasswordsUse: a write that goes on
// with its kept sign-in records its password's use (once a minute) before
// its check; when the password was revoked meanwhile there is no use to
// record, and nothing is logged as a failure (the check refuses the
// request).
func TestBasicAuthDoesNotWarnOfARevokedPasswordsUse(t *testing.T) {
	t.Parallel()
	s := testkit.New(t)
	st := s.Store()
	ctx := s.T.Context()
	var logged bytes.Buffer
	now := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)
	apps := &deferringCounter{readCounter: readCounter{AppPasswordStore: st, both: st.(store.UserAppPasswordsStore)}}
	b := &auth.BasicAuth{Users: st, Apps: apps, Roles: s.Server.Site().Roles(), Now: func() time.Time { return now },
		Logger: slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	ed := s.Users["editor"]
	signIn := func() *auth.User {
		t.Helper()
		r := basicRequest(ed.Login, ed.AppPassword)
		u, err := b.Authenticate(r.WithContext(store.WithSignInDeferred(r.Context())))
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	signIn() // read, and its use recorded
	list, err := st.ListAppPasswords(ctx, ed.ID)
	if err != nil || len(list) != 1 {
		t.Fatalf("passwords: %v %v", list, err)
	}
	if err := st.DeleteAppPassword(ctx, ed.ID, list[0].UUID); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Minute)
	u := signIn() // kept: its use recorded again, on a password now gone
	if ok, err := u.SignInCheck().Verify(ctx); err != nil || ok {
		t.Fatalf("the check of a revoked password: %v %v", ok, err)
	}
	if strings.Contains(logged.String(), "record application password use") {
		t.Fatalf("a revoked password's use was logged as a failure:\n%s", logged.String())
	}
}
