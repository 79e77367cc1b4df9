package server_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/server"
	"github.com/folio-server/folio/internal/testkit"
)

// The tests of package server_test see the server from outside, through
// its exported API and HTTP only, on a site of internal/testkit (the store
// FOLIO_TEST_DATABASE_URL names, one user per role, login = role). They
// send their requests through the site's handler in-process, so that a
// request may carry what an HTTP client refuses to send (invalid UTF-8 in a
// header) and the links of the answers name the recorder's host.

// newSite starts a testkit site with the configuration changed by mods.
func newSite(t *testing.T, mods ...func(*config.Config)) *testkit.Site {
	t.Helper()
	return testkit.New(t, testkit.Config(func(c *config.Config) {
		for _, m := range mods {
			m(c)
		}
	}))
}

// do serves a bodiless request without credentials.
func do(t *testing.T, h http.Handler, method, target string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// basicCred is the value of an HTTP Basic Authorization header after
// "Basic ".
func basicCred(user, pass string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
}

// loginSite is a testkit site seen by the editor: the login, account
// password and application password the tests sign in with.
type loginSite struct {
	t      *testing.T
	site   *testkit.Site
	s      *server.Server
	uid    int64
	appPwd string
}

// The editor of a loginSite.
const (
	ed     = "editor"
	edPass = ed + "-password-1" // testkit.Password(ed)
)

func newLoginSite(t *testing.T, mod func(*config.Config)) *loginSite {
	t.Helper()
	var mods []func(*config.Config)
	if mod != nil {
		mods = append(mods, mod)
	}
	site := newSite(t, mods...)
	return &loginSite{t: t, site: site, s: site.Server, uid: site.ID(ed), appPwd: site.Users[ed].AppPassword}
}

// req sends a request through the site's handler; a body is a form.
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

// signIn posts the login form as the editor and returns the session
// cookie.
func (l *loginSite) signIn() *http.Cookie {
	l.t.Helper()
	rec := l.req("POST", "/login", "log="+ed+"&pwd="+edPass, nil)
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

// withCookie returns a request modifier that sends c and the header pairs.
func withCookie(c *http.Cookie, headers ...string) func(*http.Request) {
	return func(r *http.Request) {
		r.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
		for i := 0; i+1 < len(headers); i += 2 {
			r.Header.Set(headers[i], headers[i+1])
		}
	}
}

// errorCode returns the code of an API error answer.
func errorCode(t *testing.T, rec *httptest.ResponseRecorder) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("not JSON: %s", rec.Body)
	}
	code, _ := m["code"].(string)
	return code
}

// nonceRE finds the API nonce in the settings a signed-in page carries.
var nonceRE = regexp.MustCompile(`"nonce":"([0-9a-f]{10})"`)
