package server_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/folio-server/folio/internal/config"
)

// TestETagWithAndWithoutResponseCache checks that serve wires the store's
// version into the API server whether or not the response cache is on:
// anonymous reads carry an ETag and a matching If-None-Match gets 304.
func TestETagWithAndWithoutResponseCache(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{true, false} {
		s := newSite(t, func(c *config.Config) { c.Cache.Responses = &on }).Server
		first := do(t, s.Handler(), "GET", "/api/svc/v2/posts")
		tag := first.Header().Get("ETag")
		if first.Code != 200 || tag == "" {
			t.Fatalf("cache %v: %d, ETag %q", on, first.Code, tag)
		}
		req := httptest.NewRequest("GET", "/api/svc/v2/posts", nil)
		req.Header.Set("If-None-Match", tag)
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
			t.Fatalf("cache %v: If-None-Match: %d %q", on, rec.Code, rec.Body.String())
		}
	}
}
