package server

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/store"
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
	s, _ := newTestServer(t, mod)
	ctx := context.Background()
	hash, err := auth.HashPassword("ed-pass")
	if err != nil {
		t.Fatal(err)
	}
	u := &store.User{Login: "ed", Email: "ed@example.com", Nicename: "ed", DisplayName: "Ed", PassHash: hash, Roles: []string{"editor"}}
	if err := s.Store().InsertUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	plain, phash, err := auth.GenerateAppPassword()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Store().InsertAppPassword(ctx, &store.AppPassword{UUID: "u1", UserID: u.ID, Name: "t", Hash: phash}); err != nil {
		t.Fatal(err)
	}
	return &loginSite{t: t, s: s, uid: u.ID, appPwd: plain}
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
	cookies := rec.Result().Cookies()
	if len(cookies) != 1 || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteLaxMode || cookies[0].Secure || cookies[0].Path != "/" {
		t.Fatalf("cookie = %+v", cookies)
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
	if c := rec.Result().Cookies(); len(c) != 1 || !c[0].Secure {
		t.Errorf("TLS cookie = %+v", c)
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

func TestLoginThrottling(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, nil)
	for i := 0; i < auth.ThrottleAccountMax; i++ {
		l.req("POST", "/login", "log=ed&pwd=nope", nil)
	}
	rec := l.req("POST", "/login", "log=ed&pwd=ed-pass", nil)
	if rec.Code != http.StatusTooManyRequests || !strings.Contains(rec.Body.String(), msgLoginThrottled) || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("throttled sign in: %d %s", rec.Code, rec.Body)
	}
	for i := 0; i < auth.ThrottleAccountMax; i++ {
		l.req("POST", "/login", "log=ghost&pwd=nope", func(r *http.Request) { r.RemoteAddr = fmt.Sprintf("10.1.1.%d:1234", i) })
	}
	rec = l.req("POST", "/login", "log=ghost&pwd=nope", func(r *http.Request) { r.RemoteAddr = "10.1.2.1:1234" })
	if rec.Code != http.StatusTooManyRequests {
		t.Fatalf("unknown login not throttled alike: %d", rec.Code)
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
