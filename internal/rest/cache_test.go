package rest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/rest"
)

// cacheFixture is a server with one counting route and a version the test
// moves by hand, standing for the store's write version.
type cacheFixture struct {
	srv     *rest.Server
	calls   atomic.Int64
	version atomic.Int64
	verErr  atomic.Bool
	// held tells of each request asking ?hold=1 once its handler runs;
	// the handler then waits for release to close.
	held    chan struct{}
	release chan struct{}
}

func newCacheFixture(t *testing.T, maxAge time.Duration) *cacheFixture {
	t.Helper()
	return newCacheFixtureSized(t, maxAge, 0)
}

// newCacheFixtureSized is newCacheFixture with the cache bounded to
// maxBytes (0: the default). Its route moves the version to ver, when
// given, while it runs: a write committed during the request.
func newCacheFixtureSized(t *testing.T, maxAge time.Duration, maxBytes int) *cacheFixture {
	t.Helper()
	f := &cacheFixture{held: make(chan struct{}, 64), release: make(chan struct{})}
	f.srv = rest.NewServer(rest.Config{
		Cache: &rest.CacheConfig{
			Version: func(context.Context) (int64, error) {
				if f.verErr.Load() {
					return 0, errors.New("store down")
				}
				return f.version.Load(), nil
			},
			MaxAge:   maxAge,
			MaxBytes: maxBytes,
		},
		CORS: rest.CORS{AllowedOrigins: []string{"https://one.example", "https://two.example"}},
		Authenticate: func(r *http.Request) (*auth.User, error) {
			if r.Header.Get("X-Test-User") != "" {
				return auth.NewTestUser(1, "editor"), nil
			}
			return nil, nil
		},
	})
	f.srv.Register("svc/v2", "/counted", &rest.Route{Endpoints: []*rest.Endpoint{{
		Methods: rest.Readable,
		Handler: func(r *rest.Request) (*rest.Response, error) {
			n := f.calls.Add(1)
			if r.String("hold") != "" {
				f.held <- struct{}{}
				<-f.release
			}
			if v := r.Int("ver"); v > 0 {
				f.version.Store(v)
			}
			if r.String("fail") != "" {
				return nil, rest.NewError("boom", 503, "unavailable")
			}
			resp := rest.NewResponse(200, map[string]any{"call": n, "q": r.String("q")})
			resp.SetHeader("X-API-Total", strconv.FormatInt(n, 10))
			return resp, nil
		},
		Args: []*rest.Arg{{Name: "q", Type: "string"}, {Name: "fail", Type: "string"}, {Name: "ver", Type: "integer"}, {Name: "hold", Type: "string"}},
	}}})
	return f
}

func (f *cacheFixture) get(t *testing.T, method, target string, hdr ...string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, "http://example.test"+target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	f.srv.ServeHTTP(w, req)
	return w.Result()
}

func body(t *testing.T, r *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestResponseCacheServesRepeatedAnonymousReads(t *testing.T) {
	f := newCacheFixture(t, 0)
	first := f.get(t, "GET", "/api/svc/v2/counted?q=a")
	second := f.get(t, "GET", "/api/svc/v2/counted?q=a")
	if f.calls.Load() != 1 {
		t.Fatalf("handler ran %d times, want 1", f.calls.Load())
	}
	b1, b2 := body(t, first), body(t, second)
	if b1 != b2 || b1 != `{"call":1,"q":"a"}` {
		t.Fatalf("bodies %q and %q", b1, b2)
	}
	if total := second.Header[totalKey]; len(total) != 1 || total[0] != "1" || second.Header.Get("Content-Type") != "application/json; charset=UTF-8" || second.Header.Get("Allow") != "GET" {
		t.Fatalf("cached headers %v", second.Header)
	}
	// Another query is another entry.
	f.get(t, "GET", "/api/svc/v2/counted?q=b")
	if f.calls.Load() != 2 {
		t.Fatalf("different query served from the cache")
	}
	// HEAD is served from the GET entry, without a body.
	h := f.get(t, "HEAD", "/api/svc/v2/counted?q=a")
	if total := h.Header[totalKey]; f.calls.Load() != 2 || body(t, h) != "" || len(total) != 1 || total[0] != "1" {
		t.Fatalf("HEAD: calls %d", f.calls.Load())
	}
}

func TestResponseCacheIsRetiredByAWrite(t *testing.T) {
	f := newCacheFixture(t, 0)
	f.get(t, "GET", "/api/svc/v2/counted")
	f.version.Add(1) // a write committed, on this node or another
	if b := body(t, f.get(t, "GET", "/api/svc/v2/counted")); b != `{"call":2,"q":""}` {
		t.Fatalf("stale response after a write: %s", b)
	}
}

// The cache holds only the newest version's entries: a write retires the
// older ones at the next put instead of leaving them to be scanned when
// the cache is full, an answer made before a write committed is not kept,
// and a full cache stays within its bytes.
func TestResponseCacheHoldsOnlyTheNewestVersion(t *testing.T) {
	f := newCacheFixtureSized(t, 0, 8<<10)
	stats := func() rest.CacheStats {
		t.Helper()
		st, ok := f.srv.CacheStats()
		if !ok {
			t.Fatal("cache off")
		}
		return st
	}
	entries := func(want int, why string) {
		t.Helper()
		if st := stats(); st.Entries != want {
			t.Fatalf("%d entries, want %d: %s", st.Entries, want, why)
		}
	}
	for i := range 5 {
		f.get(t, "GET", "/api/svc/v2/counted?q="+strconv.Itoa(i))
	}
	entries(5, "five answers")
	f.version.Add(1)
	f.get(t, "GET", "/api/svc/v2/counted?q=new")
	entries(1, "after a write and one read, the older version's were kept")
	// Read at version 1, a write (version 5) commits before the answer is
	// kept: a later read must run the handler again.
	f.get(t, "GET", "/api/svc/v2/counted?q=during&ver=5")
	entries(2, "the answer made during a write is kept at its own version")
	calls := f.calls.Load()
	f.get(t, "GET", "/api/svc/v2/counted?q=during&ver=5")
	if f.calls.Load() != calls+1 {
		t.Fatal("an answer made before a write committed was served after it")
	}
	entries(1, "at version 5")
	// An answer of an older version than the newest kept is dropped.
	f.version.Store(4)
	f.get(t, "GET", "/api/svc/v2/counted?q=old")
	entries(1, "an older version's answer was kept")
	f.version.Store(6)
	for i := range 100 {
		f.get(t, "GET", "/api/svc/v2/counted?q="+strconv.Itoa(i))
	}
	st := stats()
	if st.Bytes > 8<<10 || st.Entries < 8 {
		t.Fatalf("full cache: %d bytes in %d entries, want at most 8 KiB and at least 8 entries", st.Bytes, st.Entries)
	}
	calls = f.calls.Load()
	f.get(t, "GET", "/api/svc/v2/counted?q=99")
	if f.calls.Load() != calls {
		t.Fatal("the entry put last was evicted")
	}
}

func TestResponseCacheSkipsSignedInCallersErrorsAndUnknownVersions(t *testing.T) {
	f := newCacheFixture(t, 0)
	f.get(t, "GET", "/api/svc/v2/counted")
	r := f.get(t, "GET", "/api/svc/v2/counted", "X-Test-User", "1")
	if f.calls.Load() != 2 || body(t, r) != `{"call":2,"q":""}` {
		t.Fatalf("a signed-in caller got the anonymous cache")
	}
	f.get(t, "GET", "/api/svc/v2/counted?fail=1")
	f.get(t, "GET", "/api/svc/v2/counted?fail=1")
	if f.calls.Load() != 4 {
		t.Fatalf("a 5xx answer was cached: %d calls", f.calls.Load())
	}
	f.verErr.Store(true)
	f.get(t, "GET", "/api/svc/v2/counted")
	if f.calls.Load() != 5 {
		t.Fatalf("served from the cache while the version could not be read")
	}
}

func TestResponseCacheKeepsPerRequestHeadersOut(t *testing.T) {
	f := newCacheFixture(t, 0)
	f.get(t, "GET", "/api/svc/v2/counted", "Origin", "https://one.example")
	r := f.get(t, "GET", "/api/svc/v2/counted", "Origin", "https://two.example")
	if f.calls.Load() != 1 {
		t.Fatalf("not served from the cache")
	}
	if got := r.Header.Get("Access-Control-Allow-Origin"); got != "https://two.example" {
		t.Fatalf("CORS origin %q leaked from the cached request", got)
	}
	r = f.get(t, "GET", "/api/svc/v2/counted")
	if got := r.Header.Get("Access-Control-Allow-Origin"); got != "" {
		t.Fatalf("CORS header on a request without Origin: %q", got)
	}
}

func TestResponseCacheEntriesExpire(t *testing.T) {
	f := newCacheFixture(t, 20*time.Millisecond)
	f.get(t, "GET", "/api/svc/v2/counted")
	time.Sleep(40 * time.Millisecond)
	f.get(t, "GET", "/api/svc/v2/counted")
	if f.calls.Load() != 2 {
		t.Fatalf("an expired entry was served")
	}
}

// totalKey is the total header as the server spells it, which http.Header
// does not canonicalise.
var totalKey = rest.DefaultNames().TotalHeader()

// BenchmarkResponseCacheFull measures anonymous reads that all miss a
// full cache (distinct URLs, as single posts over a large site are): each
// answer is kept and evicts another.
func BenchmarkResponseCacheFull(b *testing.B) {
	f := &cacheFixture{held: make(chan struct{}, 64), release: make(chan struct{})}
	f.srv = rest.NewServer(rest.Config{Cache: &rest.CacheConfig{
		Version:  func(context.Context) (int64, error) { return f.version.Load(), nil },
		MaxBytes: 4 << 20,
	}})
	f.srv.Register("svc/v2", "/counted", &rest.Route{Endpoints: []*rest.Endpoint{{
		Methods: rest.Readable,
		Handler: func(r *rest.Request) (*rest.Response, error) {
			return rest.NewResponse(200, map[string]any{"q": r.String("q")}), nil
		},
		Args: []*rest.Arg{{Name: "q", Type: "string"}},
	}}})
	w := httptest.NewRecorder()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		req := httptest.NewRequest("GET", "http://example.test/api/svc/v2/counted?q="+strconv.Itoa(i), nil)
		w.Body.Reset()
		f.srv.ServeHTTP(w, req)
	}
}

// getAll sends n GETs of target at once, after a first one that makes the
// answer is held in its handler, and returns every answer once the
// handler is released: the first, then the others.
func (f *cacheFixture) getAll(t *testing.T, target string, n int, ctxs ...context.Context) []*http.Response {
	t.Helper()
	out := make([]*http.Response, n+1)
	var wg sync.WaitGroup
	send := func(i int, ctx context.Context) {
		defer wg.Done()
		req := httptest.NewRequestWithContext(ctx, http.MethodGet, "http://example.test"+target, nil)
		w := httptest.NewRecorder()
		f.srv.ServeHTTP(w, req)
		out[i] = w.Result()
	}
	wg.Add(1)
	go send(0, context.Background())
	<-f.held
	for i := 1; i <= n; i++ {
		ctx := context.Background()
		if i-1 < len(ctxs) {
			ctx = ctxs[i-1]
		}
		wg.Add(1)
		go send(i, ctx)
	}
	time.Sleep(50 * time.Millisecond) // the others reach the cache and wait
	close(f.release)
	wg.Wait()
	return out
}

// TestConcurrentMissesAreAnsweredOnce: requests that miss the cache while
// another one makes the same answer (after a write, every reader of a
// popular page at once) wait for it and are served what it kept, with its
// entity tag; the route runs once.
func TestConcurrentMissesAreAnsweredOnce(t *testing.T) {
	f := newCacheFixture(t, 0)
	all := f.getAll(t, "/svc/v2/counted?q=herd&hold=1", 8)
	want := body(t, all[0])
	for i, r := range all {
		if r.StatusCode != 200 || r.Header.Get("ETag") == "" {
			t.Errorf("request %d: %d, ETag %q", i, r.StatusCode, r.Header.Get("ETag"))
		}
		if i > 0 {
			if got := body(t, r); got != want || r.Header.Get("ETag") != all[0].Header.Get("ETag") {
				t.Errorf("request %d: %s, want the first one's %s", i, got, want)
			}
		}
	}
	if n := f.calls.Load(); n != 1 {
		t.Errorf("the route ran %d times for 9 requests, want 1", n)
	}
	st, _ := f.srv.CacheStats()
	if st.Hits != 8 || st.Misses != 1 {
		t.Errorf("hits %d, misses %d; want 8 and 1", st.Hits, st.Misses)
	}
}

// TestWaitersMakeAnAnswerNotKept: when the answer waited for is not kept
// (an error), each request that waited makes its own; a request whose
// client goes away while it waits ends then, with 499; a request after a
// write does not wait for an answer of the version before.
func TestWaitersMakeAnAnswerNotKept(t *testing.T) {
	f := newCacheFixture(t, 0)
	all := f.getAll(t, "/svc/v2/counted?fail=1&hold=1", 4)
	for i, r := range all {
		if r.StatusCode != 503 {
			t.Errorf("request %d: %d, want 503", i, r.StatusCode)
		}
	}
	if n := f.calls.Load(); n != 5 {
		t.Errorf("the route ran %d times for 5 failing requests, want 5", n)
	}

	f = newCacheFixture(t, 0)
	const slow = "/svc/v2/counted?q=slow&hold=1"
	first := make(chan *http.Response)
	go func() { first <- f.get(t, "GET", slow) }()
	<-f.held
	ctx, cancel := context.WithCancel(context.Background())
	gone := make(chan *http.Response)
	go func() {
		req := httptest.NewRequestWithContext(ctx, http.MethodGet, "http://example.test"+slow, nil)
		w := httptest.NewRecorder()
		f.srv.ServeHTTP(w, req)
		gone <- w.Result()
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case r := <-gone:
		if r.StatusCode != rest.StatusClientClosedRequest {
			t.Errorf("a waiting request whose client went away: %d, want 499", r.StatusCode)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a request whose client went away still waits")
	}

	f.version.Store(1) // a write while the first answer is made
	after := make(chan *http.Response)
	go func() { after <- f.get(t, "GET", slow) }()
	select {
	case <-f.held: // its own answer, at the new version
	case <-time.After(5 * time.Second):
		t.Fatal("a request after a write waits for the answer of the version before")
	}
	close(f.release)
	for _, c := range []chan *http.Response{first, after} {
		if r := <-c; r.StatusCode != 200 {
			t.Errorf("%d, want 200", r.StatusCode)
		}
	}
	if n := f.calls.Load(); n != 2 {
		t.Errorf("the route ran %d times, want 2", n)
	}
}
