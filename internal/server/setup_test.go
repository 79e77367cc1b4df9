package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// newBackendServer builds a server on the store FOLIO_TEST_DATABASE_URL
// names (SQLite in a temporary directory without it).
func newBackendServer(t *testing.T, mod func(*config.Config)) *Server {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	if storetest.Backend() == "postgres" {
		cfg.DatabaseURL = storetest.PostgresURL(t)
	}
	if mod != nil {
		mod(cfg)
	}
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	s, err := New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// setupPost posts the setup form and returns the response (redirects not
// followed).
func setupPost(t *testing.T, base string, fields url.Values) (*http.Response, string) {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.PostForm(base+setupPath, fields)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func setupFields(token, login, pw string) url.Values {
	return url.Values{"token": {token}, "login": {login}, "email": {login + "@example.com"}, "password": {pw}, "password2": {pw}}
}

func countAdmins(t *testing.T, s *Server) int64 {
	t.Helper()
	n, err := s.Store().CountUsersWithRole(context.Background(), "administrator")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSetupPageCreatesTheFirstAdministratorAndSignsIn(t *testing.T) {
	t.Parallel()
	s := newBackendServer(t, nil)
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	token := s.setupToken
	if token == "" {
		t.Fatal("a site without administrator has no setup token")
	}

	resp, err := http.Get(hs.URL + setupPath + "?token=" + url.QueryEscape(token))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `<form method="post" action="/admin/setup"`) ||
		!strings.Contains(string(body), `value="`+token+`"`) || !strings.Contains(string(body), `<label for="setup_pass">`) {
		t.Fatalf("GET setup = %d:\n%s", resp.StatusCode, body)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(string(body), "<script") {
		t.Errorf("setup page CSP %q / has a script", csp)
	}
	if resp.Header.Get("Referrer-Policy") != "no-referrer" || resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("setup page headers: %v", resp.Header)
	}

	resp, _ = setupPost(t, hs.URL, setupFields(token, "boss", "Hook-pass-1234"))
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != adminPath {
		t.Fatalf("POST setup = %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	var session *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == s.sessions.Cookie() && c.Value != "" {
			session = c
		}
	}
	if session == nil || !session.HttpOnly {
		t.Fatalf("no HttpOnly session cookie: %v", resp.Cookies())
	}
	u, err := s.Store().GetUserByLogin(context.Background(), "boss")
	if err != nil || len(u.Roles) != 1 || u.Roles[0] != "administrator" || u.Email != "boss@example.com" {
		t.Fatalf("created user = %+v, %v", u, err)
	}

	// The cookie opens the admin page.
	req, _ := http.NewRequest("GET", hs.URL+adminPath, nil)
	req.AddCookie(session)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "folioApiSettings") {
		t.Errorf("admin page with the new session = %d", resp.StatusCode)
	}

	// The link is spent.
	resp, err = http.Get(hs.URL + setupPath + "?token=" + url.QueryEscape(token))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusGone || strings.Contains(string(body), "<form") || !strings.Contains(string(body), `href="/login"`) {
		t.Errorf("spent link = %d:\n%s", resp.StatusCode, body)
	}
	resp, _ = setupPost(t, hs.URL, setupFields(token, "second", "Hook-pass-1234"))
	if resp.StatusCode != http.StatusGone || countAdmins(t, s) != 1 {
		t.Errorf("second POST = %d, %d administrators", resp.StatusCode, countAdmins(t, s))
	}
}

func TestSetupPageRefusesAWrongOrMissingToken(t *testing.T) {
	t.Parallel()
	s := newBackendServer(t, nil)
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	for _, target := range []string{setupPath, setupPath + "?token=", setupPath + "?token=nope", setupPath + "?token=" + url.QueryEscape(s.setupToken+"x")} {
		resp, err := http.Get(hs.URL + target)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || strings.Contains(string(body), "<form") || !strings.Contains(string(body), "user create --data") {
			t.Errorf("GET %s = %d:\n%s", target, resp.StatusCode, body)
		}
	}
	resp, _ := setupPost(t, hs.URL, setupFields("guess", "eve", "Hook-pass-1234"))
	if resp.StatusCode != http.StatusForbidden || countAdmins(t, s) != 0 {
		t.Errorf("POST with a wrong token = %d, %d administrators", resp.StatusCode, countAdmins(t, s))
	}
	resp, err := http.Post(hs.URL+setupPath+"?token="+s.setupToken, "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("POST with the token only in the URL = %d, want 403", resp.StatusCode)
	}
	req, _ := http.NewRequest("DELETE", hs.URL+setupPath, nil)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("DELETE = %d", resp.StatusCode)
	}
}

func TestSetupPageChecksTheFieldsAndKeepsTheLink(t *testing.T) {
	t.Parallel()
	s := newBackendServer(t, nil)
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	err := s.Store().InsertUser(context.Background(), &store.User{Login: "taken", Email: "taken@example.com", Nicename: "taken",
		Registered: time.Now().UTC(), Roles: []string{"subscriber"}})
	if err != nil {
		t.Fatal(err)
	}
	tok := s.setupToken
	mismatch := setupFields(tok, "boss", "Hook-pass-1234")
	mismatch.Set("password2", "Hook-pass-1235")
	badEmail := setupFields(tok, "boss", "Hook-pass-1234")
	badEmail.Set("email", "not an email")
	takenEmail := setupFields(tok, "boss", "Hook-pass-1234")
	takenEmail.Set("email", "taken@example.com")
	tests := []struct {
		name   string
		fields url.Values
		want   string
	}{
		{"short password", setupFields(tok, "boss", "short-pw"), "at least 12 characters"},
		{"passwords differ", mismatch, "do not match"},
		{"bad email", badEmail, "valid email"},
		{"bad login", setupFields(tok, "bo<ss>", "Hook-pass-1234"), "may only contain"},
		{"login taken", setupFields(tok, "taken", "Hook-pass-1234"), "already taken"},
		{"email taken", takenEmail, "already used"},
	}
	for _, tt := range tests {
		resp, body := setupPost(t, hs.URL, tt.fields)
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, tt.want) || !strings.Contains(body, `value="`+tok+`"`) {
			t.Errorf("%s: %d, body lacks %q or the token:\n%s", tt.name, resp.StatusCode, tt.want, body)
		}
	}
	if countAdmins(t, s) != 0 {
		t.Fatal("an invalid form created an administrator")
	}
	// The link still works after the mistakes.
	if resp, _ := setupPost(t, hs.URL, setupFields(tok, "boss", "Hook-pass-1234")); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("valid POST after mistakes = %d", resp.StatusCode)
	}
}

func TestSetupLinkCreatesOneAdministratorWhenRequestsRace(t *testing.T) {
	t.Parallel()
	s := newBackendServer(t, nil)
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	const n = 8
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, _ := setupPost(t, hs.URL, setupFields(s.setupToken, fmt.Sprintf("racer%d", i), "Hook-pass-1234"))
			codes[i] = resp.StatusCode
		}()
	}
	wg.Wait()
	won := 0
	for _, c := range codes {
		if c == http.StatusSeeOther {
			won++
		}
	}
	if won != 1 || countAdmins(t, s) != 1 {
		t.Errorf("codes %v: %d created, %d administrators; want exactly one", codes, won, countAdmins(t, s))
	}
}

func TestSetupLinkDiesOnceAnAdministratorExists(t *testing.T) {
	t.Parallel()
	s := newBackendServer(t, nil)
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	tok := s.setupToken
	// An administrator made another way (the command line) ends the link.
	err := s.Store().InsertUser(context.Background(), &store.User{Login: "cli", Email: "cli@example.com", Nicename: "cli",
		Registered: time.Now().UTC(), Roles: []string{"administrator"}})
	if err != nil {
		t.Fatal(err)
	}
	resp, _ := setupPost(t, hs.URL, setupFields(tok, "late", "Hook-pass-1234"))
	if resp.StatusCode != http.StatusGone || countAdmins(t, s) != 1 {
		t.Errorf("POST after an administrator exists = %d", resp.StatusCode)
	}
	// The next start clears the token, so that the old link never works
	// again, even if the site loses its administrators.
	s.Close()
	cfg := *s.cfg
	s2, err := New(context.Background(), &cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.store = s2.store
	if s2.setupToken != "" {
		t.Errorf("setup token %q with an administrator", s2.setupToken)
	}
	if v, err := s2.Store().GetOption(context.Background(), setupTokenOption); err != nil || v != "" {
		t.Errorf("stored setup token = %q, %v; want it cleared", v, err)
	}
	if err := s2.Store().DeleteUser(context.Background(), mustUser(t, s2, "cli").ID); err != nil {
		t.Fatal(err)
	}
	if state, err := s2.checkSetupToken(context.Background(), tok); err != nil || state != setupBadToken {
		t.Errorf("old token after the administrator left: state %d, %v", state, err)
	}
}

func mustUser(t *testing.T, s *Server, login string) *store.User {
	t.Helper()
	u, err := s.Store().GetUserByLogin(context.Background(), login)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestSetupTokenIsSharedByNodesAndKeptAcrossRestarts(t *testing.T) {
	t.Parallel()
	s := newBackendServer(t, nil)
	cfg := *s.cfg
	s2, err := New(context.Background(), &cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if s.setupToken == "" || s2.setupToken != s.setupToken {
		t.Errorf("two nodes print different setup links: %q and %q", s.setupToken, s2.setupToken)
	}
}

// TestSignInPageTellsHowToReplaceALostPassword: Folio sends no email, so
// the sign-in page's help names the command that sets a new password.
func TestSignInPageTellsHowToReplaceALostPassword(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, nil)
	rec := do(t, s.Handler(), "GET", "/login")
	body := rec.Body.String()
	if rec.Code != 200 || !strings.Contains(body, "Lost your password?") || !strings.Contains(body, "folio user set-password --login YOUR-LOGIN") {
		t.Errorf("sign-in page help:\n%s", body)
	}
}
