package server

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/extension"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// loginSite is a test server with one editor "ed" (password "ed-pass") who
// also has an application password.
type loginSite struct {
	t      *testing.T
	s      *Server
	uid    int64
	appPwd string
}

func newLoginSite(t *testing.T, mod func(*config.Config)) *loginSite {
	t.Helper()
	return newLoginSiteOn(t, storetest.Open(t), mod)
}

// newLoginSiteOn builds a login site over st, adding ed when st does not
// hold him yet (a second node over the same database finds him).
func newLoginSiteOn(t *testing.T, st store.Store, mod func(*config.Config)) *loginSite {
	t.Helper()
	s := newSiteOn(t, st, mod)
	ctx := context.Background()
	l := &loginSite{t: t, s: s}
	if u, err := st.GetUserByLogin(ctx, "ed"); err == nil {
		l.uid = u.ID
		return l
	}
	hash, err := edHash()
	if err != nil {
		t.Fatal(err)
	}
	u := &store.User{Login: "ed", Email: "ed@example.com", Nicename: "ed", DisplayName: "Ed", PassHash: hash, Roles: []string{"editor"}}
	if err := st.InsertUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	plain, phash, err := auth.GenerateAppPassword()
	if err != nil {
		t.Fatal(err)
	}
	if err := st.InsertAppPassword(ctx, &store.AppPassword{UUID: "u1", UserID: u.ID, Name: "t", Hash: phash}); err != nil {
		t.Fatal(err)
	}
	l.uid, l.appPwd = u.ID, plain
	return l
}

// edHash is the bcrypt hash of ed's password, computed once.
var edHash = sync.OnceValues(func() (string, error) { return auth.HashPassword("ed-pass") })

// newSiteOn builds a server over st (SQLite, or PostgreSQL when
// FOLIO_TEST_DATABASE_URL is set), as New does once the store is open.
// The test owns st.
func newSiteOn(t *testing.T, st store.Store, mod func(*config.Config)) *Server {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	if mod != nil {
		mod(cfg)
	}
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	names, err := NamesFor(cfg.Compat)
	if err != nil {
		t.Fatal(err)
	}
	s, err := build(context.Background(), cfg, slog.New(slog.DiscardHandler), st, names, extension.Registered()...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// req sends a request through the site's handler from addr.
func (l *loginSite) req(method, target, body string, mod func(*http.Request)) *httptest.ResponseRecorder {
	l.t.Helper()
	var r *http.Request
	if body != "" {
		r = httptest.NewRequest(method, target, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		r = httptest.NewRequest(method, target, nil)
	}
	if mod != nil {
		mod(r)
	}
	rec := httptest.NewRecorder()
	l.s.Handler().ServeHTTP(rec, r)
	return rec
}

// sessionCookies returns the session and device cookies a response sets.
func sessionCookies(rec *httptest.ResponseRecorder) (session, device *http.Cookie) {
	for _, c := range rec.Result().Cookies() {
		switch c.Name {
		case auth.DefaultSessionCookie:
			session = c
		case auth.DefaultDeviceCookie:
			device = c
		}
	}
	return session, device
}

// signIn posts the login form and returns the session cookie.
func (l *loginSite) signIn() *http.Cookie {
	l.t.Helper()
	rec := l.req("POST", "/login", "log=ed&pwd=ed-pass", nil)
	if rec.Code != http.StatusFound {
		l.t.Fatalf("sign in: %d %s", rec.Code, rec.Body)
	}
	for _, c := range rec.Result().Cookies() {
		if c.Name == auth.DefaultSessionCookie {
			return c
		}
	}
	l.t.Fatal("no session cookie")
	return nil
}

func withCookie(c *http.Cookie, headers ...string) func(*http.Request) {
	return func(r *http.Request) {
		r.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
		for i := 0; i+1 < len(headers); i += 2 {
			r.Header.Set(headers[i], headers[i+1])
		}
	}
}

func errorCode(t *testing.T, rec *httptest.ResponseRecorder) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("not JSON: %s", rec.Body)
	}
	code, _ := m["code"].(string)
	return code
}

var nonceRE = regexp.MustCompile(`"nonce":"([0-9a-f]{10})"`)

func TestLoginPageShowsTheForm(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, nil)
	rec := l.req("GET", "/login?redirect_to=/admin/posts", "", nil)
	body := rec.Body.String()
	if rec.Code != 200 || !strings.Contains(body, `name="log"`) || !strings.Contains(body, `name="pwd"`) ||
		!strings.Contains(body, `name="redirect_to" value="/admin/posts"`) || !strings.Contains(rec.Header().Get("Content-Type"), "text/html") {
		t.Fatalf("login page: %d %s", rec.Code, body)
	}
	if rec := l.req("DELETE", "/login", "", nil); rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("DELETE /login = %d", rec.Code)
	}
	if rec := l.req("GET", "/logout", "", nil); rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET /logout = %d", rec.Code)
	}
}

func TestLoginSetsSessionCookieAndRedirects(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, nil)
	rec := l.req("POST", "/login", "log=ed&pwd=ed-pass", nil)
	if rec.Code != http.StatusFound || rec.Header().Get("Location") != "/admin/" {
		t.Fatalf("sign in: %d %v", rec.Code, rec.Header())
	}
	session, device := sessionCookies(rec)
	if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteLaxMode || session.Secure || session.Path != "/" {
		t.Fatalf("session cookie = %+v", session)
	}
	// The device cookie goes to the sign-in form only.
	if device == nil || !device.HttpOnly || device.SameSite != http.SameSiteStrictMode || device.Secure || device.Path != auth.DeviceCookiePath ||
		device.MaxAge != int(auth.DeviceCookieLifetime.Seconds()) {
		t.Fatalf("device cookie = %+v", device)
	}
	// redirect_to is honoured for local paths only.
	for target, want := range map[string]string{
		"/wp/edit?x=1":          "/wp/edit?x=1",
		"https://evil.example/": "/admin/",
		"//evil.example/":       "/admin/",
		"/\\evil.example":       "/admin/",
	} {
		rec := l.req("POST", "/login", "log=ed&pwd=ed-pass&redirect_to="+url.QueryEscape(target), nil)
		if rec.Header().Get("Location") != want {
			t.Errorf("redirect_to %q → %q, want %q", target, rec.Header().Get("Location"), want)
		}
	}
	// Over TLS the cookie is Secure.
	rec = l.req("POST", "/login", "log=ed&pwd=ed-pass", func(r *http.Request) { r.TLS = &tlsState })
	if session, device := sessionCookies(rec); session == nil || !session.Secure || device == nil || !device.Secure {
		t.Errorf("TLS cookies = %+v", rec.Result().Cookies())
	}
}

func TestLoginFailureIsTheSameForUnknownLogins(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, nil)
	wrong := l.req("POST", "/login", "log=ed&pwd=nope", nil)
	unknown := l.req("POST", "/login", "log=nobody&pwd=nope", nil)
	for _, rec := range []*httptest.ResponseRecorder{wrong, unknown} {
		if rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Body.String(), msgLoginFailed) || len(rec.Result().Cookies()) != 0 {
			t.Fatalf("failed sign in: %d %s", rec.Code, rec.Body)
		}
		if strings.Contains(rec.Body.String(), "nope") {
			t.Errorf("the page repeats the password")
		}
	}
}

func TestCookieSessionOverTheAPI(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, nil)
	c := l.signIn()

	// Cookie without nonce: anonymous.
	rec := l.req("GET", "/api/svc/v2/users/me", "", withCookie(c))
	if rec.Code != 401 || errorCode(t, rec) != "rest_not_logged_in" {
		t.Fatalf("cookie without nonce: %d %s", rec.Code, rec.Body)
	}
	if rec.Header().Get("X-API-Nonce") != "" {
		t.Errorf("anonymous response carries a nonce")
	}

	// The signed-in root page carries the settings object with a nonce.
	page := l.req("GET", "/", "", withCookie(c)).Body.String()
	if !strings.Contains(page, "window.folioApiSettings = ") || !strings.Contains(page, `"versionString":"svc/v2/"`) ||
		!strings.Contains(page, `"root":"http://example.com/api/"`) {
		t.Fatalf("root page: %s", page)
	}
	if strings.Contains(page, "wpApiSettings") {
		t.Errorf("wpApiSettings outside compatibility mode")
	}
	if anon := l.req("GET", "/", "", nil).Body.String(); strings.Contains(anon, "folioApiSettings") {
		t.Errorf("anonymous root page carries settings")
	}
	nonce := nonceRE.FindStringSubmatch(page)[1]

	// Cookie + nonce header: signed in, fresh nonce returned.
	rec = l.req("GET", "/api/svc/v2/users/me", "", withCookie(c, "X-API-Nonce", nonce))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"slug":"ed"`) {
		t.Fatalf("cookie + nonce: %d %s", rec.Code, rec.Body)
	}
	fresh := rec.Header().Get("X-API-Nonce")
	if len(fresh) != 10 {
		t.Fatalf("X-API-Nonce = %q", fresh)
	}
	if rec.Header().Get("Cache-Control") == "" {
		t.Errorf("signed-in response without no-cache headers")
	}
	// _wpnonce in the query, and in a form body of a write.
	rec = l.req("GET", "/api/svc/v2/users/me?_wpnonce="+fresh, "", withCookie(c))
	if rec.Code != 200 {
		t.Fatalf("_wpnonce query: %d %s", rec.Code, rec.Body)
	}
	rec = l.req("POST", fmt.Sprintf("/api/svc/v2/users/%d", l.uid), "nickname=Eddie&_wpnonce="+fresh, withCookie(c))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"nickname":"Eddie"`) {
		t.Fatalf("form write with _wpnonce: %d %s", rec.Code, rec.Body)
	}

	// Bad nonce: 403 before routing.
	rec = l.req("GET", "/api/svc/v2/posts", "", withCookie(c, "X-API-Nonce", "0123456789"))
	if rec.Code != 403 || errorCode(t, rec) != "rest_cookie_invalid_nonce" {
		t.Fatalf("bad nonce: %d %s", rec.Code, rec.Body)
	}
	// A stale nonce from an anonymous caller (no cookie) too.
	rec = l.req("GET", "/api/svc/v2/posts", "", func(r *http.Request) { r.Header.Set("X-API-Nonce", nonce) })
	if rec.Code != 403 || errorCode(t, rec) != "rest_cookie_invalid_nonce" {
		t.Fatalf("nonce without cookie: %d %s", rec.Code, rec.Body)
	}

	// An Authorization header wins over the cookie; a wrong one is 401.
	rec = l.req("GET", "/api/svc/v2/users/me", "", withCookie(c, "X-API-Nonce", "0123456789", "Authorization", "Basic "+basicCred("ed", l.appPwd)))
	if rec.Code != 200 || rec.Header().Get("X-API-Nonce") != "" {
		t.Fatalf("Basic + cookie: %d %s", rec.Code, rec.Body)
	}
	rec = l.req("GET", "/api/svc/v2/users/me", "", withCookie(c, "X-API-Nonce", nonce, "Authorization", "Basic "+basicCred("ed", "wrong")))
	if rec.Code != 401 || errorCode(t, rec) != "rest_authentication_failed" {
		t.Fatalf("wrong Basic + cookie: %d %s", rec.Code, rec.Body)
	}
	// The account password is not accepted over Basic.
	rec = l.req("GET", "/api/svc/v2/users/me", "", func(r *http.Request) { r.SetBasicAuth("ed", "ed-pass") })
	if rec.Code != 401 {
		t.Fatalf("account password over Basic: %d", rec.Code)
	}

	// Sessions are listed per user and revocable.
	sessions, err := l.s.Store().ListSessions(context.Background(), l.uid)
	if err != nil || len(sessions) != 1 || sessions[0].TokenHash == c.Value {
		t.Fatalf("sessions = %+v %v", sessions, err)
	}

	// Sign out: the session ends, its nonces die with it.
	rec = l.req("POST", "/logout", "", withCookie(c))
	if rec.Code != http.StatusFound || !strings.HasPrefix(rec.Header().Get("Location"), "/login") {
		t.Fatalf("logout: %d %v", rec.Code, rec.Header())
	}
	if cs := rec.Result().Cookies(); len(cs) != 1 || cs[0].MaxAge >= 0 {
		t.Errorf("logout cookie = %+v", cs)
	}
	rec = l.req("GET", "/api/svc/v2/users/me", "", withCookie(c, "X-API-Nonce", fresh))
	if rec.Code != 403 || errorCode(t, rec) != "rest_cookie_invalid_nonce" {
		t.Fatalf("after logout: %d %s", rec.Code, rec.Body)
	}
	if sessions, _ := l.s.Store().ListSessions(context.Background(), l.uid); len(sessions) != 0 {
		t.Errorf("sessions after logout = %d", len(sessions))
	}
}

func TestCookieSessionWordPressNames(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, func(c *config.Config) { c.Compat = config.CompatWordPress })
	c := l.signIn()
	page := l.req("GET", "/", "", withCookie(c)).Body.String()
	if !strings.Contains(page, "window.wpApiSettings = window.folioApiSettings") || !strings.Contains(page, `"versionString":"wp/v2/"`) {
		t.Fatalf("root page: %s", page)
	}
	nonce := nonceRE.FindStringSubmatch(page)[1]
	rec := l.req("GET", "/wp-json/wp/v2/users/me", "", withCookie(c, "X-WP-Nonce", nonce))
	if rec.Code != 200 || len(rec.Header().Get("X-WP-Nonce")) != 10 {
		t.Fatalf("X-WP-Nonce: %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
}

func TestSessionNoncesVerifyOnAnotherNode(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, nil)
	c := l.signIn()
	nonce := nonceRE.FindStringSubmatch(l.req("GET", "/", "", withCookie(c)).Body.String())[1]
	// A second node over the same database.
	other, err := build(context.Background(), l.s.cfg, l.s.logger, l.s.Store(), l.s.names)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	r := httptest.NewRequest("GET", "/api/svc/v2/users/me", nil)
	withCookie(c, "X-API-Nonce", nonce)(r)
	other.Handler().ServeHTTP(rec, r)
	if rec.Code != 200 {
		t.Fatalf("other node: %d %s", rec.Code, rec.Body)
	}
}

var tlsState tls.ConnectionState

func basicCred(user, pass string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
}
