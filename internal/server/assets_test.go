package server

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/web"
)

func TestAssetsServeTheBundledClientAtAStableURL(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, nil)
	h := s.Handler()
	for _, name := range web.Names() {
		a, _ := web.Lookup(name)
		rec := do(t, h, "GET", "/assets/"+name)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: status %d", name, rec.Code)
		}
		if got := rec.Header().Get("Content-Type"); got != a.ContentType {
			t.Errorf("%s: Content-Type %q, want %q", name, got, a.ContentType)
		}
		if got := rec.Header().Get("ETag"); got != a.ETag {
			t.Errorf("%s: ETag %q, want %q", name, got, a.ETag)
		}
		if got := rec.Header().Get("Cache-Control"); got != assetMaxAge {
			t.Errorf("%s: Cache-Control %q", name, got)
		}
		if got := rec.Header().Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options %q", name, got)
		}
		if rec.Body.String() != string(a.Body) {
			t.Errorf("%s: body differs from the embedded asset", name)
		}
	}
	rec := do(t, h, "GET", "/assets/api-client.js")
	for _, want := range []string{"jQuery v3.7.1", "backbone 1.6.1", "underscore 1.13.8", "folio.api", "X-API-"} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("client bundle lacks %q", want)
		}
	}
}

func TestAssetsConditionalRequestsHeadAndVersionedURLs(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, nil)
	h := s.Handler()
	a, _ := web.Lookup("api-client.js")

	req := httptest.NewRequest("GET", "/assets/api-client.js", nil)
	req.Header.Set("If-None-Match", a.ETag)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
		t.Errorf("If-None-Match: status %d, %d bytes; want 304 and no body", rec.Code, rec.Body.Len())
	}

	rec = do(t, h, "HEAD", "/assets/api-client.js")
	if rec.Code != http.StatusOK || rec.Body.Len() != 0 || rec.Header().Get("Content-Length") != strconv.Itoa(len(a.Body)) {
		t.Errorf("HEAD: status %d, %d bytes, Content-Length %q", rec.Code, rec.Body.Len(), rec.Header().Get("Content-Length"))
	}

	rec = do(t, h, "GET", assetURL("api-client.js"))
	if got := rec.Header().Get("Cache-Control"); got != assetVersionedMaxAge {
		t.Errorf("versioned URL: Cache-Control %q, want %q", got, assetVersionedMaxAge)
	}
	rec = do(t, h, "GET", "/assets/api-client.js?ver=0000")
	if got := rec.Header().Get("Cache-Control"); got != assetMaxAge {
		t.Errorf("stale version: Cache-Control %q, want %q", got, assetMaxAge)
	}
}

func TestAssetsUnknownNamesAndMethods(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, nil)
	h := s.Handler()
	for _, p := range []string{"/assets/", "/assets/nope.js", "/assets/../web.go", "/assets/dist/api-client.js", "/assets/admin/admin.js"} {
		if rec := do(t, h, "GET", p); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", p, rec.Code)
		}
	}
	rec := do(t, h, "POST", "/assets/api-client.js")
	if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: status %d, Allow %q", rec.Code, rec.Header().Get("Allow"))
	}
}

func TestAdminRedirectsVisitorsToLogin(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, nil)
	for _, p := range []string{"/admin/", "/admin/?x=1"} {
		rec := l.req("GET", p, "", nil)
		if rec.Code != http.StatusFound {
			t.Fatalf("GET %s: status %d, want 302", p, rec.Code)
		}
		if got, want := rec.Header().Get("Location"), "/login?redirect_to="+url.QueryEscape("/admin/"); got != want {
			t.Errorf("GET %s: Location %q, want %q", p, got, want)
		}
	}
	// A cookie that names no session is a visitor too.
	rec := l.req("GET", "/admin/", "", withCookie(&http.Cookie{Name: auth.DefaultSessionCookie, Value: "forged"}))
	if rec.Code != http.StatusFound {
		t.Errorf("forged cookie: status %d, want 302", rec.Code)
	}
	if rec := l.req("GET", "/admin", "", nil); rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != "/admin/" {
		t.Errorf("GET /admin: status %d, Location %q", rec.Code, rec.Header().Get("Location"))
	}
	if rec := l.req("GET", "/admin/other", "", nil); rec.Code != http.StatusNotFound {
		t.Errorf("GET /admin/other: status %d, want 404", rec.Code)
	}
}

func TestAdminPageCarriesSettingsWithAFreshNonce(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, func(c *config.Config) { c.Site.Title = `Ann's <Site>` })
	cookie := l.signIn()
	rec := l.req("GET", "/admin/", "", withCookie(cookie))
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	body := rec.Body.String()
	for _, h := range []struct{ k, v string }{
		{"Content-Type", "text/html; charset=utf-8"},
		{"Cache-Control", "no-store"},
		{"X-Frame-Options", "DENY"},
	} {
		if got := rec.Header().Get(h.k); got != h.v {
			t.Errorf("%s: %q, want %q", h.k, got, h.v)
		}
	}
	m := regexp.MustCompile(`window\.folioApiSettings = \{"root":"http://example\.com/api/","nonce":"([0-9a-f]{10})","versionString":"svc/v2/","nonceEndpoint":"http://example\.com/admin/nonce"\};`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no settings object in the admin page:\n%s", body)
	}
	// The settings come before the client, the client before the admin
	// script, and both load from versioned URLs.
	iSettings := strings.Index(body, "folioApiSettings")
	iClient := strings.Index(body, `src="`+assetURL("api-client.js")+`"`)
	iAdmin := strings.Index(body, `src="`+assetURL("admin/app.js")+`"`)
	if iClient < 0 || iAdmin < 0 || !(iSettings < iClient && iClient < iAdmin) {
		t.Errorf("script order: settings %d, client %d, admin %d", iSettings, iClient, iAdmin)
	}
	if strings.Contains(body, "<Site>") || !strings.Contains(body, "Ann&#39;s &lt;Site&gt;") || !strings.Contains(body, `data-site-title="Ann&#39;s &lt;Site&gt;"`) {
		t.Errorf("site title not escaped:\n%s", body)
	}
	if !strings.Contains(body, `<form method="post" action="/logout">`) {
		t.Error("no sign-out form")
	}
	// The nonce works for API writes with the cookie.
	api := l.req("GET", "/api/svc/v2/users/me", "", withCookie(cookie, "X-API-Nonce", m[1]))
	if api.Code != http.StatusOK {
		t.Errorf("users/me with the page's nonce: status %d %s", api.Code, api.Body)
	}
	// HEAD gets the headers only; other methods are refused.
	if rec := l.req("HEAD", "/admin/", "", withCookie(cookie)); rec.Code != http.StatusOK || rec.Body.Len() != 0 {
		t.Errorf("HEAD: status %d, %d bytes", rec.Code, rec.Body.Len())
	}
	if rec := l.req("POST", "/admin/", "a=b", withCookie(cookie)); rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: status %d, want 405", rec.Code)
	}
}

func TestAdminPageWordPressCompatibility(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, func(c *config.Config) { c.Compat = config.CompatWordPress })
	cookie := l.signIn()
	body := l.req("GET", "/admin/", "", withCookie(cookie)).Body.String()
	if !strings.Contains(body, `"root":"http://example.com/wp-json/"`) || !strings.Contains(body, `"versionString":"wp/v2/"`) ||
		!strings.Contains(body, "window.wpApiSettings = window.folioApiSettings;") {
		t.Errorf("compat admin page lacks the WordPress settings:\n%s", body)
	}
}
