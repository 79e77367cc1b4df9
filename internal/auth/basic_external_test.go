package auth_test

import (
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/auth"
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
