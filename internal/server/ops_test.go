package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/media"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// The tests in this file check the operations endpoints and the request
// log of issue #20 (items 1 to 3 and 7) through the site's handler, on the
// store the environment selects, in both naming modes.

// opsSite is a test site whose log is kept as JSON lines at DEBUG, with
// an editor "ed" (password "ed-pass") who has an application password.
type opsSite struct {
	t      *testing.T
	s      *Server
	logs   *bytes.Buffer
	mu     *sync.Mutex
	uid    int64
	appPwd string
}

func newOpsSite(t *testing.T, mod func(*config.Config)) *opsSite {
	t.Helper()
	cfg := config.Default()
	storetest.Configure(t, cfg)
	if mod != nil {
		mod(cfg)
	}
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	o := &opsSite{t: t, logs: &bytes.Buffer{}, mu: &sync.Mutex{}}
	logger := slog.New(slog.NewJSONHandler(lockedWriter{o.mu, o.logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s, err := New(context.Background(), cfg, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	o.s = s
	ctx := context.Background()
	hash, err := edHash()
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
	o.uid, o.appPwd = u.ID, plain
	return o
}

// do sends a request through the site's handler; mod changes it first.
func (o *opsSite) do(method, target string, body io.Reader, mod func(*http.Request)) *httptest.ResponseRecorder {
	o.t.Helper()
	r := httptest.NewRequest(method, target, body)
	if mod != nil {
		mod(r)
	}
	rec := httptest.NewRecorder()
	o.s.Handler().ServeHTTP(rec, r)
	return rec
}

// lines returns the log lines written so far, decoded.
func (o *opsSite) lines() []map[string]any {
	o.t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(o.logs.Bytes()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			o.t.Fatalf("log line is not JSON: %s", sc.Bytes())
		}
		out = append(out, m)
	}
	return out
}

// requestLines returns the request log lines of request id.
func (o *opsSite) requestLines(id string) []map[string]any {
	var out []map[string]any
	for _, l := range o.lines() {
		if l["msg"] == "request" && l["request_id"] == id {
			out = append(out, l)
		}
	}
	return out
}

func (o *opsSite) logText() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.logs.String()
}

// namingModes are the two naming modes with the API root of each.
var namingModes = []struct {
	name, compat, api string
}{
	{"default", "", "/api/svc/v2"},
	{"wordpress", config.CompatWordPress, "/wp-json/wp/v2"},
}

func TestHealthzAnswersOKWithoutStoreAndNeverCached(t *testing.T) {
	t.Parallel()
	for _, m := range namingModes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			o := newOpsSite(t, func(c *config.Config) { c.Compat = m.compat })
			rec := o.do("GET", "/healthz", nil, nil)
			if rec.Code != http.StatusOK || rec.Body.String() != "{\"status\":\"ok\"}\n" {
				t.Fatalf("GET /healthz = %d %q", rec.Code, rec.Body)
			}
			if cc := rec.Header().Get("Cache-Control"); cc != "no-store" {
				t.Errorf("Cache-Control = %q, want no-store", cc)
			}
			if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type = %q", ct)
			}
			if rec := o.do("HEAD", "/healthz", nil, nil); rec.Code != http.StatusOK || rec.Body.Len() != 0 {
				t.Errorf("HEAD /healthz = %d with %d bytes", rec.Code, rec.Body.Len())
			}
			if rec := o.do("POST", "/healthz", nil, nil); rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "GET, HEAD" {
				t.Errorf("POST /healthz = %d Allow %q", rec.Code, rec.Header().Get("Allow"))
			}
			// No database call: it answers with the store closed.
			o.s.ready.ping = func(context.Context) error { t.Error("healthz pinged the database"); return nil }
			if rec := o.do("GET", "/healthz", nil, nil); rec.Code != http.StatusOK {
				t.Errorf("GET /healthz = %d", rec.Code)
			}
		})
	}
}

func TestReadyzChecksDatabaseMigrationsAndUploads(t *testing.T) {
	t.Parallel()
	for _, m := range namingModes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			o := newOpsSite(t, func(c *config.Config) { c.Compat = m.compat })
			rec := o.do("GET", "/readyz", nil, nil)
			if rec.Code != http.StatusOK {
				t.Fatalf("GET /readyz = %d %s", rec.Code, rec.Body)
			}
			var a readyAnswer
			if err := json.Unmarshal(rec.Body.Bytes(), &a); err != nil {
				t.Fatal(err)
			}
			want := readyAnswer{Status: "ok", Checks: readyChecks{Database: "ok", Migrations: "ok", Uploads: "ok"}}
			if a.Status != want.Status || a.Checks != want.Checks || len(a.Failed) != 0 {
				t.Errorf("readyz = %+v, want %+v", a, want)
			}
			if cc := rec.Header().Get("Cache-Control"); cc != "no-store" {
				t.Errorf("Cache-Control = %q, want no-store", cc)
			}
			// The probe of the uploads directory leaves nothing behind.
			ents, err := os.ReadDir(o.s.cfg.UploadsDir())
			if err != nil {
				t.Fatal(err)
			}
			if len(ents) != 0 {
				t.Errorf("uploads directory holds %d entries after a probe", len(ents))
			}
		})
	}
}

func TestReadyzNamesTheFailedCheck(t *testing.T) {
	t.Parallel()
	down := errors.New("connection refused")
	tests := []struct {
		name       string
		set        func(o *opsSite)
		failed     []string
		wantChecks readyChecks
	}{
		{"database down", func(o *opsSite) {
			o.s.ready.ping = func(context.Context) error { return down }
		}, []string{"database", "migrations"}, readyChecks{Database: "failed", Migrations: "not checked", Uploads: "ok"}},
		{"migrations pending", func(o *opsSite) {
			o.s.ready.schema = func(context.Context) (int64, int64, error) { return 3, 4, nil }
		}, []string{"migrations"}, readyChecks{Database: "ok", Migrations: "pending", Uploads: "ok"}},
		{"schema newer than the binary (rolling upgrade)", func(o *opsSite) {
			o.s.ready.schema = func(context.Context) (int64, int64, error) { return 5, 4, nil }
		}, nil, readyChecks{Database: "ok", Migrations: "ok", Uploads: "ok"}},
		{"uploads not writable", func(o *opsSite) {
			// A file where the uploads directory should be: no one, not
			// even root, can create it.
			file := filepath.Join(o.t.TempDir(), "file")
			if err := os.WriteFile(file, nil, 0o600); err != nil {
				o.t.Fatal(err)
			}
			l, err := media.NewLocal(filepath.Join(file, "uploads"))
			if err != nil {
				o.t.Fatal(err)
			}
			o.s.site.SetBlobs(l)
		}, []string{"uploads"}, readyChecks{Database: "ok", Migrations: "ok", Uploads: "failed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := newOpsSite(t, nil)
			tt.set(o)
			rec := o.do("GET", "/readyz", nil, nil)
			wantCode := http.StatusServiceUnavailable
			if tt.failed == nil {
				wantCode = http.StatusOK
			}
			if rec.Code != wantCode {
				t.Fatalf("GET /readyz = %d %s, want %d", rec.Code, rec.Body, wantCode)
			}
			var a readyAnswer
			if err := json.Unmarshal(rec.Body.Bytes(), &a); err != nil {
				t.Fatal(err)
			}
			if strings.Join(a.Failed, ",") != strings.Join(tt.failed, ",") || a.Checks != tt.wantChecks {
				t.Errorf("readyz = %+v, want failed %v checks %+v", a, tt.failed, tt.wantChecks)
			}
			if tt.failed != nil && a.Status != "unavailable" {
				t.Errorf("status = %q", a.Status)
			}
			if strings.Contains(rec.Body.String(), "refused") || strings.Contains(rec.Body.String(), o.t.TempDir()) {
				t.Errorf("readyz shows the cause to anyone: %s", rec.Body)
			}
		})
	}
}

func TestReadyzAnswersWithinItsTimeoutWhenTheDatabaseHangs(t *testing.T) {
	t.Parallel()
	o := newOpsSite(t, nil)
	o.s.ready.ping = func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	start := time.Now()
	rec := o.do("GET", "/readyz", nil, nil)
	if took := time.Since(start); took > ReadyTimeout+time.Second {
		t.Errorf("readyz took %v", took)
	}
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"database":"timeout"`) {
		t.Errorf("GET /readyz = %d %s", rec.Code, rec.Body)
	}
}

func TestReadyzFailsOnAClosedStore(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	storetest.Configure(t, cfg)
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	s, err := New(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	rec := do(t, s.Handler(), "GET", "/readyz")
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"failed":["database","migrations"]`) {
		t.Errorf("GET /readyz on a closed store = %d %s", rec.Code, rec.Body)
	}
	if rec := do(t, s.Handler(), "GET", "/healthz"); rec.Code != http.StatusOK {
		t.Errorf("GET /healthz on a closed store = %d", rec.Code)
	}
}

func TestHealthProbesAreLoggedAtDebugOnly(t *testing.T) {
	t.Parallel()
	o := newOpsSite(t, nil)
	for _, p := range []string{"/healthz", "/readyz"} {
		rec := o.do("GET", p, nil, nil)
		lines := o.requestLines(rec.Header().Get("X-Request-Id"))
		if len(lines) != 1 || lines[0]["level"] != "DEBUG" || lines[0]["route"] != p {
			t.Errorf("log of GET %s = %v, want one DEBUG line", p, lines)
		}
	}
}

func TestRequestLogLineNamesRoutePatternUserAndRequestID(t *testing.T) {
	t.Parallel()
	for _, m := range namingModes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			o := newOpsSite(t, func(c *config.Config) {
				c.Compat = m.compat
				c.Server.TrustedProxies = []string{"10.0.0.1"}
			})
			rec := o.do("GET", m.api+"/posts/123456", nil, func(r *http.Request) {
				r.Header.Set("X-Request-Id", "req-42.abc")
				r.RemoteAddr = "10.0.0.1:5000"
				r.Header.Set("X-Forwarded-For", "203.0.113.9")
			})
			if rec.Code != http.StatusNotFound {
				t.Fatalf("GET post = %d", rec.Code)
			}
			if got := rec.Header().Get("X-Request-Id"); got != "req-42.abc" {
				t.Errorf("X-Request-Id = %q, want the client's", got)
			}
			lines := o.requestLines("req-42.abc")
			if len(lines) != 1 {
				t.Fatalf("request lines = %v", lines)
			}
			l := lines[0]
			want := map[string]any{"level": "INFO", "method": "GET", "route": m.api + `/posts/(?P<id>[\d]+)`, "path": m.api + "/posts/123456",
				"status": float64(404), "user": "anonymous", "client_ip": "203.0.113.9"}
			for k, v := range want {
				if l[k] != v {
					t.Errorf("log %s = %v, want %v", k, l[k], v)
				}
			}
			if b, ok := l["bytes"].(float64); !ok || int(b) != rec.Body.Len() {
				t.Errorf("log bytes = %v, body has %d", l["bytes"], rec.Body.Len())
			}
			if _, ok := l["duration_ms"].(float64); !ok {
				t.Errorf("log duration_ms = %v", l["duration_ms"])
			}

			// A signed-in caller is named by id.
			rec = o.do("GET", m.api+"/users/me", nil, func(r *http.Request) { r.SetBasicAuth("ed", o.appPwd) })
			if rec.Code != http.StatusOK {
				t.Fatalf("GET users/me = %d %s", rec.Code, rec.Body)
			}
			lines = o.requestLines(rec.Header().Get("X-Request-Id"))
			if len(lines) != 1 || lines[0]["user"] != strings.TrimSpace(jsonID(o.uid)) || lines[0]["route"] != m.api+"/users/me" {
				t.Errorf("signed-in request line = %v, want user %d", lines, o.uid)
			}

			// Paths outside the API have fixed labels; unknown API paths
			// one label for all.
			for path, label := range map[string]string{"/login": "/login", "/uploads/2020/01/x.jpg": "/uploads/*", "/2024/some-post/": "frontend", m.api + "/no/such/route": "unmatched"} {
				rec := o.do("GET", path, nil, nil)
				lines := o.requestLines(rec.Header().Get("X-Request-Id"))
				if len(lines) != 1 || lines[0]["route"] != label {
					t.Errorf("GET %s: lines %v, want route %q", path, lines, label)
				}
			}
		})
	}
}

func jsonID(id int64) string {
	b, _ := json.Marshal(id)
	return string(b)
}

func TestRequestIDIsGeneratedUnlessTheClientsIsSane(t *testing.T) {
	t.Parallel()
	o := newOpsSite(t, nil)
	hexID := regexp.MustCompile(`^[0-9a-f]{32}$`)
	for _, sent := range []string{"", "has space", "line\nbreak", "<script>", strings.Repeat("a", 129)} {
		rec := o.do("GET", "/healthz", nil, func(r *http.Request) {
			if sent != "" {
				r.Header["X-Request-Id"] = []string{sent}
			}
		})
		got := rec.Header().Get("X-Request-Id")
		if !hexID.MatchString(got) {
			t.Errorf("sent %q: X-Request-Id = %q, want a generated id", sent, got)
		}
	}
	a := o.do("GET", "/healthz", nil, nil).Header().Get("X-Request-Id")
	b := o.do("GET", "/healthz", nil, nil).Header().Get("X-Request-Id")
	if a == b {
		t.Errorf("two requests got the same id %q", a)
	}
	long := strings.Repeat("b", 128)
	if got := o.do("GET", "/healthz", nil, func(r *http.Request) { r.Header.Set("X-Request-Id", long) }).Header().Get("X-Request-Id"); got != long {
		t.Errorf("a 128-character id was not kept: %q", got)
	}
}

func TestEveryLogLineOfARequestNamesItsID(t *testing.T) {
	t.Parallel()
	o := newOpsSite(t, nil)
	// A failed readiness check logs its cause during the request.
	o.s.ready.ping = func(context.Context) error { return errors.New("connection refused") }
	rec := o.do("GET", "/readyz", nil, func(r *http.Request) { r.Header.Set("X-Request-Id", "probe-1") })
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("GET /readyz = %d", rec.Code)
	}
	var own int
	for _, l := range o.lines() {
		if l["msg"] == "readiness check failed" && l["request_id"] == "probe-1" {
			own++
		}
	}
	if own != 1 {
		t.Errorf("the readiness warning does not name the request id; log:\n%s", o.logText())
	}
}

func TestCredentialsNeverReachTheLog(t *testing.T) {
	t.Parallel()
	for _, m := range namingModes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			o := newOpsSite(t, func(c *config.Config) { c.Compat = m.compat })
			const (
				pw       = "Secret-Pass-91x"
				badApp   = "abcd efgh ijkl mnop qrst uvwx"
				cookie   = "cookie-value-77q"
				nonce    = "nonce-value-55z"
				queryPwd = "query-pass-33y"
			)
			form := func(r *http.Request) { r.Header.Set("Content-Type", "application/x-www-form-urlencoded") }
			jsonBody := func(r *http.Request) {
				r.Header.Set("Content-Type", "application/json")
				r.SetBasicAuth("ed", o.appPwd)
			}
			o.do("POST", "/login", strings.NewReader("log=ed&pwd="+pw), form)
			o.do("POST", "/login", strings.NewReader("log=ed&pwd=ed-pass"), form)
			o.do("GET", m.api+"/users/me", nil, func(r *http.Request) { r.SetBasicAuth("ed", o.appPwd) })
			o.do("GET", m.api+"/users/me", nil, func(r *http.Request) { r.SetBasicAuth("ed", badApp) })
			o.do("GET", m.api+"/posts?password="+queryPwd+"&_wpnonce="+nonce, nil, func(r *http.Request) {
				r.AddCookie(&http.Cookie{Name: auth.DefaultSessionCookie, Value: cookie})
				r.Header.Set("X-WP-Nonce", nonce)
				r.Header.Set("X-API-Nonce", nonce)
			})
			o.do("POST", m.api+"/users", strings.NewReader(`{"username":"newbie","email":"n@example.com","password":"`+pw+`"}`), jsonBody)
			o.do("POST", m.api+"/posts", strings.NewReader(`{"title":"x","password":"`+pw+`"}`), jsonBody)
			o.do("POST", m.api+"/posts?_wpnonce="+nonce, nil, func(r *http.Request) {
				r.AddCookie(&http.Cookie{Name: auth.DefaultSessionCookie, Value: cookie})
			})
			logs := o.logText()
			if !strings.Contains(logs, `"msg":"request"`) {
				t.Fatal("no request lines were logged")
			}
			for _, secret := range []string{pw, "ed-pass", o.appPwd, strings.ReplaceAll(o.appPwd, " ", ""), badApp, cookie, nonce, queryPwd, "Basic "} {
				if strings.Contains(logs, secret) {
					t.Errorf("the log holds %q:\n%s", secret, logs)
				}
			}
		})
	}
}

func TestReloadChangesTheCORSAllowlist(t *testing.T) {
	t.Parallel()
	o := newOpsSite(t, nil)
	origin := func(r *http.Request) { r.Header.Set("Origin", "https://app.example") }
	if got := o.do("GET", "/api/svc/v2/posts", nil, origin).Header().Get("Access-Control-Allow-Origin"); got != "" {
		t.Fatalf("before reload: Access-Control-Allow-Origin = %q", got)
	}
	cfg := *o.s.cfg
	cfg.CORS.AllowedOrigins = []string{"https://app.example"}
	o.s.Reload(&cfg)
	if got := o.do("GET", "/api/svc/v2/posts", nil, origin).Header().Get("Access-Control-Allow-Origin"); got != "https://app.example" {
		t.Errorf("after reload: Access-Control-Allow-Origin = %q", got)
	}
	// Reloads while requests are served (run with -race).
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 25 {
				o.do("GET", "/api/svc/v2/posts", nil, origin)
			}
		})
	}
	for i := range 25 {
		c := cfg
		c.CORS.AllowedOrigins = []string{"https://app.example", "https://other" + string(rune('a'+i)) + ".example"}
		o.s.Reload(&c)
	}
	wg.Wait()
}

// scrape returns the text of the site's metrics listener handler.
func (o *opsSite) scrape() string {
	o.t.Helper()
	rec := httptest.NewRecorder()
	o.s.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusOK {
		o.t.Fatalf("GET /metrics = %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

func TestMetricsCountRequestsByRoutePatternNeverByURL(t *testing.T) {
	t.Parallel()
	for _, m := range namingModes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			o := newOpsSite(t, func(c *config.Config) { c.Compat = m.compat })
			o.do("GET", m.api+"/posts", nil, nil)
			o.do("GET", m.api+"/posts", nil, nil) // a response cache hit
			o.do("GET", m.api+"/posts/987654", nil, nil)
			o.do("GET", m.api+"/no/such/route/555111", nil, nil)
			o.do("BREW", m.api+"/posts", nil, nil)
			o.do("GET", "/healthz", nil, nil)
			text := o.scrape()
			for _, want := range []string{
				`folio_http_requests_total{code="2xx",method="GET",route="` + m.api + `/posts"} 2`,
				`folio_http_requests_total{code="4xx",method="GET",route="` + m.api + `/posts/(?P<id>[\\d]+)"} 1`,
				`folio_http_requests_total{code="4xx",method="GET",route="unmatched"} 1`,
				`folio_http_requests_total{code="2xx",method="GET",route="/healthz"} 1`,
				`method="OTHER"`,
				`folio_http_request_duration_seconds_bucket{method="GET",route="` + m.api + `/posts",le="10"} 2`,
				`folio_http_request_duration_seconds_count{method="GET",route="/healthz"} 1`,
				`folio_http_response_bytes_total{method="GET",route="` + m.api + `/posts"}`,
				"folio_http_requests_in_flight 0",
				"folio_response_cache_hits_total 1",
				// The two 404s are anonymous reads too, kept like the list.
				"folio_response_cache_misses_total 3",
				"folio_response_cache_entries 3",
				"folio_response_cache_bytes ",
				"folio_webhook_outbox_pending 0",
				"folio_image_queue_pending 0",
				"folio_image_queue_capacity 10",
				"folio_search_counts_running 0",
				"folio_search_counts_waiting 0",
				"folio_search_count_waits_total 0",
				"folio_go_goroutines ",
				"folio_go_memstats_heap_alloc_bytes ",
				"folio_process_resident_memory_bytes ",
			} {
				if !strings.Contains(text, want) {
					t.Errorf("metrics lack %s", want)
				}
			}
			for _, raw := range []string{"987654", "555111", "BREW"} {
				if strings.Contains(text, raw) {
					t.Errorf("metrics hold the raw request text %q", raw)
				}
			}
			for _, line := range strings.Split(text, "\n") {
				if line != "" && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "folio_") {
					t.Errorf("metric outside the folio_ namespace: %s", line)
				}
			}
			pools := []string{`pool="read"`, `pool="write"`}
			if storetest.Backend() == "postgres" {
				pools = []string{`pool="main"`}
			}
			for _, p := range pools {
				for _, name := range []string{"folio_db_connections_open{", "folio_db_connections_max{", "folio_db_connections_in_use{", "folio_db_connections_idle{", "folio_db_connection_waits_total{", "folio_db_connection_wait_seconds_total{"} {
					if !strings.Contains(text, name+p+"}") {
						t.Errorf("metrics lack %s%s}", name, p)
					}
				}
			}
		})
	}
}

func TestMetricsAreNeverServedOnThePublicAddress(t *testing.T) {
	t.Parallel()
	for _, m := range namingModes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			for _, front := range []string{config.FrontEndBuiltin, config.FrontEndNone} {
				o := newOpsSite(t, func(c *config.Config) { c.Compat = m.compat; c.Site.FrontEnd = front })
				rec := o.do("GET", "/metrics", nil, nil)
				if rec.Code != http.StatusNotFound || strings.Contains(rec.Body.String(), "folio_http_requests_total") {
					t.Errorf("front end %s: GET /metrics on the public handler = %d", front, rec.Code)
				}
			}
		})
	}
}

func TestMetricsCountWebhookDeliveriesByOutcome(t *testing.T) {
	t.Parallel()
	o := newOpsSite(t, nil)
	w := o.s.Webhooks()
	w.Observe("delivered")
	w.Observe("retry")
	w.Observe("retry")
	text := o.scrape()
	for _, want := range []string{`folio_webhook_deliveries_total{outcome="delivered"} 1`, `folio_webhook_deliveries_total{outcome="retry"} 2`} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestRequestLogNamesTheUserOfAPrivateUpload(t *testing.T) {
	t.Parallel()
	o := newOpsSite(t, nil)
	rec := o.do("GET", "/uploads/2020/01/missing.jpg", nil, func(r *http.Request) { r.SetBasicAuth("ed", o.appPwd) })
	lines := o.requestLines(rec.Header().Get("X-Request-Id"))
	if len(lines) != 1 || lines[0]["user"] != jsonID(o.uid) || lines[0]["route"] != "/uploads/*" {
		t.Errorf("upload request line = %v, want user %d", lines, o.uid)
	}
}

func TestAClientThatWentAwayIsLoggedAndCountedAs499(t *testing.T) {
	t.Parallel()
	o := newOpsSite(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := o.do("GET", "/api/svc/v2/posts", nil, func(r *http.Request) {
		*r = *r.WithContext(ctx)
		r.Header.Set("X-Request-Id", "gone-1")
	})
	if rec.Code != 499 {
		t.Fatalf("GET with the client gone = %d, want 499", rec.Code)
	}
	lines := o.requestLines("gone-1")
	if len(lines) != 1 || lines[0]["status"] != float64(499) || lines[0]["level"] != "INFO" {
		t.Errorf("request lines = %v, want one INFO line with status 499", lines)
	}
	if !strings.Contains(o.scrape(), `folio_http_requests_total{code="4xx",method="GET",route="/api/svc/v2/posts"} 1`) {
		t.Error("the 499 is not counted as 4xx")
	}
}

// metricValue returns the value of the sample line that starts with
// series (name and labels) in a scrape's text, and whether there is one.
func metricValue(t *testing.T, text, series string) (float64, bool) {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("metric %s: %v", series, err)
			}
			return f, true
		}
	}
	return 0, false
}

func TestMetricsCountSQLiteGroupCommitBatchesAndCheckpoints(t *testing.T) {
	t.Parallel()
	o := newOpsSite(t, nil)
	series := []string{
		"folio_sqlite_group_batches_total",
		"folio_sqlite_group_members_total",
		"folio_sqlite_group_shared_batches_total",
		`folio_sqlite_wal_checkpoints_total{mode="truncate",result="done"}`,
		`folio_sqlite_wal_checkpoints_total{mode="truncate",result="busy"}`,
		"folio_sqlite_wal_bytes",
		"folio_sqlite_wal_syncs_total",
	}
	before := o.scrape()
	if storetest.Backend() == "postgres" {
		if strings.Contains(before, "folio_sqlite_") {
			t.Errorf("PostgreSQL site reports SQLite metrics:\n%s", before)
		}
		return
	}
	was := map[string]float64{}
	for _, s := range series {
		v, ok := metricValue(t, before, s)
		if !ok {
			t.Fatalf("metrics lack %s", s)
		}
		was[s] = v
	}
	const creates = 3
	for i := range creates {
		rec := o.do("POST", "/api/svc/v2/posts", strings.NewReader(`{"title":"batch `+strconv.Itoa(i)+`","status":"publish"}`), func(r *http.Request) {
			r.Header.Set("Content-Type", "application/json")
			r.SetBasicAuth("ed", o.appPwd)
		})
		if rec.Code != http.StatusCreated {
			t.Fatalf("create %d = %d %s", i, rec.Code, rec.Body)
		}
	}
	after := o.scrape()
	now := map[string]float64{}
	for _, s := range series {
		v, ok := metricValue(t, after, s)
		if !ok {
			t.Fatalf("metrics lack %s after the creates", s)
		}
		now[s] = v
	}
	// Each create is at least one write transaction; the creates were
	// sent one after the other, so each batch committed before the next.
	if d := now[series[0]] - was[series[0]]; d < creates {
		t.Errorf("batches grew by %v over %d creates, want at least %d", d, creates, creates)
	}
	if d := now[series[1]] - was[series[1]]; d < creates {
		t.Errorf("members grew by %v over %d creates, want at least %d", d, creates, creates)
	}
	if now[series[2]] > now[series[0]] {
		t.Errorf("shared batches %v exceed batches %v", now[series[2]], now[series[0]])
	}
	// A test site's WAL stays far below the checkpoint threshold.
	if now[series[3]] != 0 || now[series[4]] != 0 {
		t.Errorf("checkpoints done %v busy %v, want none on a small WAL", now[series[3]], now[series[4]])
	}
	if now[series[5]] <= 0 {
		t.Errorf("WAL bytes = %v after writes, want its size", now[series[5]])
	}
	// Each create was acknowledged after a sync of the WAL of its own.
	if d := now[series[6]] - was[series[6]]; d < creates {
		t.Errorf("WAL syncs grew by %v over %d creates, want at least %d", d, creates, creates)
	}
}
