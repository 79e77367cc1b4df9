package server_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

var (
	scriptTagRE = regexp.MustCompile(`<script([^>]*)>`)
	handlerRE   = regexp.MustCompile(`(?i)\son[a-z]+\s*=`)
	cspNonceRE  = regexp.MustCompile(`script-src 'self'(?: 'nonce-([A-Za-z0-9+/=]+)')?;`)
)

// TestHTMLPagesAreNotStoredFramedOrScripted: the sign-in form, the admin
// and the site root (which carries the nonce for a signed-in browser) are
// never stored by caches, never framed, and run only the site's own
// scripts: every inline script carries the response's CSP nonce, no
// element has an inline event handler.
func TestHTMLPagesAreNotStoredFramedOrScripted(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, nil)
	cookie := l.signIn()
	tests := []struct {
		name, target string
		signedIn     bool
		settings     bool
	}{
		{"sign-in form", "/login", false, false},
		{"admin", "/admin/", true, true},
		{"site root, signed in", "/", true, true},
		{"site root, anonymous", "/", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mod func(*http.Request)
			if tt.signedIn {
				mod = withCookie(cookie)
			}
			rec := l.req("GET", tt.target, "", mod)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d", rec.Code)
			}
			h := rec.Header()
			for k, want := range map[string]string{
				"Cache-Control":          "no-store",
				"X-Frame-Options":        "DENY",
				"X-Content-Type-Options": "nosniff",
			} {
				if got := h.Get(k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
			csp := h.Get("Content-Security-Policy")
			for _, part := range []string{"default-src 'self'", "object-src 'none'", "frame-ancestors 'none'", "base-uri 'self'", "form-action 'self'"} {
				if !strings.Contains(csp, part) {
					t.Errorf("CSP %q lacks %q", csp, part)
				}
			}
			if strings.Contains(csp, "unsafe-eval") || strings.Contains(csp, "script-src 'self' 'unsafe-inline'") {
				t.Errorf("CSP allows scripts it must not: %q", csp)
			}
			m := cspNonceRE.FindStringSubmatch(csp)
			if m == nil {
				t.Fatalf("CSP script-src is not 'self' (+ nonce): %q", csp)
			}
			body := rec.Body.String()
			for _, tag := range scriptTagRE.FindAllStringSubmatch(body, -1) {
				attrs := tag[1]
				if strings.Contains(attrs, "src=") {
					if !strings.Contains(attrs, `src="/`) {
						t.Errorf("script from elsewhere: %s", tag[0])
					}
					continue
				}
				if m[1] == "" || !strings.Contains(attrs, `nonce="`+m[1]+`"`) {
					t.Errorf("inline script without the response's nonce: %s", tag[0])
				}
			}
			if handlerRE.MatchString(body) {
				t.Errorf("inline event handler in %s", body)
			}
			if got := strings.Contains(body, "folioApiSettings"); got != tt.settings {
				t.Errorf("settings object present = %v, want %v", got, tt.settings)
			}
		})
	}
	// Two responses never share a nonce.
	a := l.req("GET", "/admin/", "", withCookie(cookie)).Header().Get("Content-Security-Policy")
	b := l.req("GET", "/admin/", "", withCookie(cookie)).Header().Get("Content-Security-Policy")
	if a == b {
		t.Errorf("the CSP nonce repeats: %q", a)
	}
}

// TestFaviconIsServed: browsers ask every origin for /favicon.ico; the
// site answers with a real icon instead of a 404.
func TestFaviconIsServed(t *testing.T) {
	t.Parallel()
	s := newSite(t).Server
	rec := do(t, s.Handler(), "GET", "/favicon.ico")
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "image/x-icon" {
		t.Fatalf("GET /favicon.ico: %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	if b := rec.Body.Bytes(); len(b) < 22 || b[0] != 0 || b[1] != 0 || b[2] != 1 || b[3] != 0 {
		t.Errorf("not an ICO file: % x", b[:min(8, len(b))])
	}
	if rec := do(t, s.Handler(), "POST", "/favicon.ico"); rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", rec.Code)
	}
}
