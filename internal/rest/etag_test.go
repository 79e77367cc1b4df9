package rest_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/store"
)

// etagFixture is a server without a response cache but with a version, so
// every request that is not answered 304 runs the route.
type etagFixture struct {
	srv     *rest.Server
	calls   atomic.Int64
	version atomic.Int64
	verErr  atomic.Bool
	// seen is the version the route found in its context (-1: none).
	seen atomic.Int64
	// suffix changes the answers (a write the caller sees).
	suffix atomic.Bool
}

func newETagFixture(t *testing.T, cached bool) *etagFixture {
	t.Helper()
	f := &etagFixture{}
	version := func(context.Context) (int64, error) {
		if f.verErr.Load() {
			return 0, errors.New("store down")
		}
		return f.version.Load(), nil
	}
	cfg := rest.Config{
		Authenticate: func(r *http.Request) (*auth.User, error) {
			if r.Header.Get("X-Test-User") != "" {
				return auth.NewTestUser(1, "editor"), nil
			}
			return nil, nil
		},
	}
	if cached {
		cfg.Cache = &rest.CacheConfig{Version: version}
	} else {
		cfg.Version = version
	}
	f.srv = rest.NewServer(cfg)
	f.srv.Register("svc/v2", "/things", &rest.Route{Endpoints: []*rest.Endpoint{{
		Methods: rest.Readable,
		Handler: func(r *rest.Request) (*rest.Response, error) {
			f.calls.Add(1)
			if v, ok := store.ContextVersion(r.Context()); ok {
				f.seen.Store(v)
			} else {
				f.seen.Store(-1)
			}
			if r.String("missing") != "" {
				return nil, rest.NewError("rest_not_found", 404, "No such thing.")
			}
			q := r.String("q")
			if f.suffix.Load() {
				q += "!"
			}
			return rest.NewResponse(200, map[string]any{"q": q}), nil
		},
		Args: []*rest.Arg{{Name: "q", Type: "string"}, {Name: "missing", Type: "string"}},
	}}})
	return f
}

func (f *etagFixture) do(t *testing.T, method, target string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, "http://example.test"+target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	f.srv.ServeHTTP(w, req)
	return w
}

// TestETagNamesTheAnswerNotTheVersion: anonymous reads carry a tag made
// of what they answer; If-None-Match with it is a 304.
func TestETagNamesTheAnswerNotTheVersion(t *testing.T) {
	for _, cached := range []bool{false, true} {
		name := "no response cache"
		if cached {
			name = "response cache"
		}
		t.Run(name, func(t *testing.T) {
			f := newETagFixture(t, cached)
			f.version.Store(7)
			first := f.do(t, "GET", "/api/svc/v2/things?q=a")
			tag := first.Header().Get("ETag")
			if first.Code != 200 || !strings.HasPrefix(tag, `W/"`) || !strings.HasSuffix(tag, `"`) {
				t.Fatalf("first GET: %d, ETag %q", first.Code, tag)
			}
			if f.seen.Load() != 7 {
				t.Fatalf("the route saw version %d in its context, want 7", f.seen.Load())
			}
			calls := f.calls.Load()

			// The same tag again: 304, no body; with the response cache
			// the route does not even run.
			for _, inm := range []string{tag, strings.TrimPrefix(tag, "W/"), `"other", ` + tag} {
				nm := f.do(t, "GET", "/api/svc/v2/things?q=a", "If-None-Match", inm)
				if nm.Code != http.StatusNotModified || nm.Body.Len() != 0 || nm.Header().Get("ETag") != tag {
					t.Fatalf("If-None-Match %s: %d, ETag %q, body %q", inm, nm.Code, nm.Header().Get("ETag"), nm.Body.String())
				}
				if ct := nm.Header().Get("Content-Type"); ct != "" {
					t.Errorf("304 has Content-Type %q", ct)
				}
			}
			if h := f.do(t, "HEAD", "/api/svc/v2/things?q=a", "If-None-Match", tag); h.Code != http.StatusNotModified {
				t.Fatalf("HEAD with the tag: %d", h.Code)
			}
			if cached && f.calls.Load() != calls {
				t.Fatalf("the route ran %d more times for cached 304s", f.calls.Load()-calls)
			}

			// A repeat without If-None-Match gets the same tag and body.
			again := f.do(t, "GET", "/api/svc/v2/things?q=a")
			if again.Code != 200 || again.Header().Get("ETag") != tag || again.Body.String() != first.Body.String() {
				t.Fatalf("repeat: %d, ETag %q, body %q", again.Code, again.Header().Get("ETag"), again.Body.String())
			}

			// Another answer has another tag; a stale or unknown tag gets
			// the full response; "*" is not taken as a match.
			other := f.do(t, "GET", "/api/svc/v2/things?q=b", "If-None-Match", tag)
			if other.Code != 200 || other.Header().Get("ETag") == tag || other.Header().Get("ETag") == "" {
				t.Fatalf("other URL: %d, ETag %q", other.Code, other.Header().Get("ETag"))
			}
			if star := f.do(t, "GET", "/api/svc/v2/things?q=a", "If-None-Match", "*"); star.Code != 200 {
				t.Fatalf("If-None-Match *: %d", star.Code)
			}

			// A write that does not change this answer (one the caller
			// may not see, say) leaves the tag alone: the tag reveals
			// nothing about writes beyond the body.
			f.version.Store(8)
			after := f.do(t, "GET", "/api/svc/v2/things?q=a", "If-None-Match", tag)
			if after.Code != http.StatusNotModified || after.Header().Get("ETag") != tag {
				t.Fatalf("after an unrelated write: %d, ETag %q (old %q)", after.Code, after.Header().Get("ETag"), tag)
			}
			// A write that changes it gives a new tag.
			f.version.Store(9)
			f.suffix.Store(true)
			changed := f.do(t, "GET", "/api/svc/v2/things?q=a", "If-None-Match", tag)
			newTag := changed.Header().Get("ETag")
			if changed.Code != 200 || newTag == "" || newTag == tag {
				t.Fatalf("after a write that changes the answer: %d, ETag %q (old %q)", changed.Code, newTag, tag)
			}
			if nm := f.do(t, "GET", "/api/svc/v2/things?q=a", "If-None-Match", newTag); nm.Code != http.StatusNotModified {
				t.Fatalf("new tag: %d", nm.Code)
			}

			// Signed-in requests have no tag and ignore If-None-Match.
			signed := f.do(t, "GET", "/api/svc/v2/things?q=a", "X-Test-User", "1", "If-None-Match", newTag)
			if signed.Code != 200 || signed.Header().Get("ETag") != "" {
				t.Fatalf("signed in: %d, ETag %q", signed.Code, signed.Header().Get("ETag"))
			}
			if f.seen.Load() != -1 {
				t.Fatalf("signed-in request had version %d in its context", f.seen.Load())
			}

			// Errors have no tag.
			if e := f.do(t, "GET", "/api/svc/v2/things?missing=1"); e.Code != 404 || e.Header().Get("ETag") != "" {
				t.Fatalf("404: %d, ETag %q", e.Code, e.Header().Get("ETag"))
			}

			// Without a version (store down) there is no tag and no 304;
			// the route runs and reports the store's state itself.
			f.verErr.Store(true)
			down := f.do(t, "GET", "/api/svc/v2/things?q=a", "If-None-Match", newTag)
			if down.Code != 200 || down.Header().Get("ETag") != "" {
				t.Fatalf("version unreadable: %d, ETag %q", down.Code, down.Header().Get("ETag"))
			}
		})
	}
}

func TestNoETagWithoutVersion(t *testing.T) {
	srv := rest.NewServer(rest.Config{})
	srv.Register("svc/v2", "/things", &rest.Route{Endpoints: []*rest.Endpoint{{
		Methods: rest.Readable,
		Handler: func(r *rest.Request) (*rest.Response, error) { return rest.NewResponse(200, "ok"), nil },
	}}})
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, httptest.NewRequest("GET", "http://example.test/api/svc/v2/things", nil))
	if w.Code != 200 || w.Header().Get("ETag") != "" {
		t.Fatalf("%d, ETag %q", w.Code, w.Header().Get("ETag"))
	}
}
