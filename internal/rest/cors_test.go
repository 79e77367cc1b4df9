package rest_test

import (
	"context"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/rest"
)

func TestCORSAllowsOnlyConfiguredOrigins(t *testing.T) {
	t.Parallel()
	for _, names := range []rest.Names{rest.DefaultNames(), rest.WordPressNames()} {
		f := newFixture(t, func(c *rest.Config) {
			c.Names = names
			c.CORS.AllowedOrigins = []string{"https://app.test", "http://localhost:3000"}
		})
		things := names.Prefix + "/" + names.Namespace + "/things"
		expose := names.TotalHeader() + ", " + names.TotalPagesHeader() + ", Link, Allow"
		tests := []struct {
			name   string
			hdr    []string
			want   map[string]string
			absent []string
		}{
			{"allowed origin with credentials", []string{"Origin", "https://app.test"}, map[string]string{
				"Access-Control-Allow-Origin":      "https://app.test",
				"Access-Control-Allow-Credentials": "true",
				"Access-Control-Expose-Headers":    expose,
				"Vary":                             "Origin",
			}, []string{"Access-Control-Allow-Methods", "Access-Control-Max-Age"}},
			{"second allowed origin", []string{"Origin", "http://localhost:3000"}, map[string]string{
				"Access-Control-Allow-Origin": "http://localhost:3000",
			}, nil},
			// The expose list is on every answer (reference §1); it grants
			// nothing without Access-Control-Allow-Origin.
			{"unknown origin gets nothing", []string{"Origin", "https://evil.test"}, map[string]string{"Vary": "Origin",
				"Access-Control-Expose-Headers": names.TotalHeader() + ", " + names.TotalPagesHeader() + ", Link, Allow"},
				[]string{"Access-Control-Allow-Origin", "Access-Control-Allow-Credentials"}},
			{"an origin that only starts like an allowed one", []string{"Origin", "https://app.test.evil.test"}, nil,
				[]string{"Access-Control-Allow-Origin"}},
			{"no origin", nil, map[string]string{"Vary": "Origin",
				"Access-Control-Expose-Headers": names.TotalHeader() + ", " + names.TotalPagesHeader() + ", Link, Allow"},
				[]string{"Access-Control-Allow-Origin"}},
		}
		for _, tc := range tests {
			t.Run(names.Namespace+"/"+tc.name, func(t *testing.T) {
				res := f.do(t, "GET", things, "", tc.hdr...)
				if res.Status != 200 {
					t.Fatalf("status %d %s", res.Status, res.Raw)
				}
				for k, v := range tc.want {
					if got := res.Header.Get(k); got != v {
						t.Errorf("%s = %q, want %q", k, got, v)
					}
				}
				for _, k := range tc.absent {
					if got := res.Header.Get(k); got != "" {
						t.Errorf("%s = %q, want none", k, got)
					}
				}
			})
		}
	}
}

func TestCORSPreflightIsAnsweredBeforeAuthentication(t *testing.T) {
	t.Parallel()
	for _, names := range []rest.Names{rest.DefaultNames(), rest.WordPressNames()} {
		f := newFixture(t, func(c *rest.Config) {
			c.Names = names
			c.CORS = rest.CORS{AllowedOrigins: []string{"https://app.test"}, MaxAge: 10 * time.Minute}
		})
		base := names.Prefix + "/" + names.Namespace
		// DELETE on a thing needs a signed-in caller; the preflight has no
		// credentials and must still pass, whatever the route and even when
		// the credentials a real request would carry are bad.
		for _, target := range []string{base + "/things/5", base + "/things", base + "/nope", base + "/things/5?_wpnonce=bad"} {
			res := f.do(t, "OPTIONS", target, "", "Origin", "https://app.test",
				"Access-Control-Request-Method", "DELETE", "Access-Control-Request-Headers", "authorization, content-type", "X-Test-User", "bad")
			if res.Status != 204 || res.Raw != "" {
				t.Fatalf("preflight %s: status %d body %q", target, res.Status, res.Raw)
			}
			for k, v := range map[string]string{
				"Access-Control-Allow-Origin":      "https://app.test",
				"Access-Control-Allow-Credentials": "true",
				"Access-Control-Allow-Methods":     "OPTIONS, GET, POST, PUT, PATCH, DELETE",
				"Access-Control-Allow-Headers":     "Authorization, " + names.NonceHeader() + ", Content-Disposition, Content-MD5, Content-Type, X-HTTP-Method-Override",
				"Access-Control-Max-Age":           "600",
				"Vary":                             "Origin",
			} {
				if got := res.Header.Get(k); got != v {
					t.Errorf("preflight %s: %s = %q, want %q", target, k, got, v)
				}
			}
		}
		// A preflight from an unknown origin gets no permission.
		res := f.do(t, "OPTIONS", base+"/things", "", "Origin", "https://evil.test", "Access-Control-Request-Method", "POST")
		if res.Status != 204 || res.Header.Get("Access-Control-Allow-Origin") != "" || res.Header.Get("Access-Control-Allow-Methods") != "" {
			t.Errorf("unknown origin preflight: %d %v", res.Status, res.Header)
		}
		// A plain OPTIONS (no Access-Control-Request-Method) is the
		// route description with Allow, for permission checks.
		res = f.do(t, "OPTIONS", base+"/things", "", "Origin", "https://app.test")
		if res.Status != 200 || res.Header.Get("Allow") == "" || path(res.Body, "namespace") != names.Namespace {
			t.Errorf("plain OPTIONS: %d %v %s", res.Status, res.Header, res.Raw)
		}
	}
}

func TestCORSWildcardNeverAllowsCredentials(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *rest.Config) { c.CORS.AllowedOrigins = []string{"*", "https://app.test"} })
	res := f.do(t, "GET", "/api/svc/v2/things", "", "Origin", "https://any.test")
	if got := res.Header.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("ACAO = %q, want *", got)
	}
	if got := res.Header.Get("Access-Control-Allow-Credentials"); got != "" {
		t.Errorf("credentials with *: %q", got)
	}
	// A listed origin keeps its credentials next to "*".
	res = f.do(t, "GET", "/api/svc/v2/things", "", "Origin", "https://app.test")
	if res.Header.Get("Access-Control-Allow-Origin") != "https://app.test" || res.Header.Get("Access-Control-Allow-Credentials") != "true" {
		t.Errorf("listed origin next to *: %v", res.Header)
	}
	// Only "*": the answer does not depend on Origin, so no Vary.
	f = newFixture(t, func(c *rest.Config) { c.CORS.AllowedOrigins = []string{"*"} })
	res = f.do(t, "GET", "/api/svc/v2/things", "", "Origin", "https://any.test")
	if res.Header.Get("Access-Control-Allow-Origin") != "*" || res.Header.Get("Vary") != "" {
		t.Errorf("only *: %v", res.Header)
	}
}

func TestCORSHeadersDoNotLeakThroughTheResponseCache(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *rest.Config) {
		c.CORS.AllowedOrigins = []string{"https://a.test"}
		c.Cache = &rest.CacheConfig{Version: constVersion}
	})
	first := f.do(t, "GET", "/api/svc/v2/things", "", "Origin", "https://a.test")
	if first.Header.Get("Access-Control-Allow-Origin") != "https://a.test" {
		t.Fatalf("first: %v", first.Header)
	}
	calls := f.handlerCalls
	for _, tc := range []struct{ origin, want string }{{"https://b.test", ""}, {"", ""}, {"https://a.test", "https://a.test"}} {
		var hdr []string
		if tc.origin != "" {
			hdr = []string{"Origin", tc.origin}
		}
		res := f.do(t, "GET", "/api/svc/v2/things", "", hdr...)
		if res.Status != 200 || res.Raw != first.Raw {
			t.Fatalf("origin %q: %d %s", tc.origin, res.Status, res.Raw)
		}
		if got := res.Header.Get("Access-Control-Allow-Origin"); got != tc.want {
			t.Errorf("origin %q from the cache: ACAO %q, want %q", tc.origin, got, tc.want)
		}
		if got := res.Header.Get("Access-Control-Allow-Credentials"); (got != "") != (tc.want != "") {
			t.Errorf("origin %q from the cache: credentials %q", tc.origin, got)
		}
	}
	if f.handlerCalls != calls {
		t.Errorf("the repeated reads were not served from the cache (%d handler calls)", f.handlerCalls-calls)
	}
}

// constVersion is a store version that never moves.
func constVersion(context.Context) (int64, error) { return 1, nil }
