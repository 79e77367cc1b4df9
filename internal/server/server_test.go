package server

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// newTestServer builds a server over a fresh data directory.
func newTestServer(t *testing.T, mod func(*config.Config)) (*Server, *bytes.Buffer) {
	t.Helper()
	cfg := config.Default()
	storetest.Configure(t, cfg)
	if mod != nil {
		mod(cfg)
	}
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))
	s, err := New(context.Background(), cfg, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s, &logs
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func do(t *testing.T, h http.Handler, method, target string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestNewCreatesDataDirAndDatabase is about the SQLite default, on every
// backend.
func TestNewCreatesDataDirAndDatabase(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, func(c *config.Config) { c.DatabaseURL = "" })
	fi, err := os.Stat(s.cfg.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o027 != 0 {
		t.Errorf("data dir mode = %v, want a directory no wider than 0750", fi.Mode())
	}
	if _, err := os.Stat(filepath.Join(s.cfg.DataDir, "folio.db")); err != nil {
		t.Errorf("database file: %v", err)
	}
	if s.Store() == nil || s.Handler() == nil {
		t.Error("Store or Handler is nil")
	}
}

func TestNewRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		mod  func(*config.Config)
		want string
	}{
		{"unreachable postgres", func(c *config.Config) { c.DatabaseURL = "postgres://u:pw@127.0.0.1:1/folio" }, "open database postgres://u:xxxxx@127.0.0.1:1/folio"},
		{"unknown compat", func(c *config.Config) { c.Compat = "drupal" }, `unknown compat mode "drupal"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := config.Default()
			cfg.DataDir = t.TempDir()
			tt.mod(cfg)
			s, err := New(context.Background(), cfg, nil)
			if err == nil {
				s.Close()
				t.Fatal("New succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

// greeting returns what serve prints after its listening line for s on
// 127.0.0.1:8080, run as program.
func greeting(s *Server, program string) string {
	var b bytes.Buffer
	s.Greeting(&b, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, program)
	return b.String()
}

func TestGreetingTellsHowToCreateTheFirstAdministratorOnlyWithoutOne(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "site")
	s, _ := newTestServer(t, func(c *config.Config) { c.DataDir, c.DatabaseURL = dir, "" })
	g := greeting(s, "go run ./cmd/folio")
	for _, want := range []string{
		"site:  http://127.0.0.1:8080/\n",
		"admin: http://127.0.0.1:8080/admin/\n",
		"API:   http://127.0.0.1:8080/api/\n",
		"http://127.0.0.1:8080/admin/setup?token=" + s.setupToken + "\n",
		"go run ./cmd/folio user create --data " + dir + " --login admin --email admin@example.com --role administrator\n",
	} {
		if !strings.Contains(g, want) {
			t.Errorf("greeting lacks %q:\n%s", want, g)
		}
	}
	if len(s.setupToken) < 32 {
		t.Errorf("setup token %q is too short", s.setupToken)
	}
	err := s.Store().InsertUser(context.Background(), &store.User{
		Login: "admin", Email: "admin@example.com", Nicename: "admin", DisplayName: "admin",
		Registered: time.Now().UTC(), Roles: []string{"administrator"},
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	cfg := *s.cfg
	s2, err := New(context.Background(), &cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.store = s2.store // the cleanup closes this one
	g = greeting(s2, "folio")
	if strings.Contains(g, "user create") || strings.Contains(g, "setup") {
		t.Errorf("greeting tells how to create an administrator although one exists:\n%s", g)
	}
	if !strings.Contains(g, "admin: http://127.0.0.1:8080/admin/") {
		t.Errorf("greeting lacks the admin URL:\n%s", g)
	}
}

func TestGreetingUsesTheSiteURLAndAReachableHost(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, func(c *config.Config) { c.Site.URL = "https://blog.example.com" })
	if g := greeting(s, "folio"); !strings.Contains(g, "admin: https://blog.example.com/admin/") || !strings.Contains(g, "https://blog.example.com/admin/setup?token=") {
		t.Errorf("greeting ignores site.url:\n%s", g)
	}
	s2, _ := newTestServer(t, nil)
	var b bytes.Buffer
	s2.Greeting(&b, &net.TCPAddr{IP: net.IPv4zero, Port: 9000}, "folio")
	if !strings.Contains(b.String(), "admin: http://127.0.0.1:9000/admin/") {
		t.Errorf("greeting for 0.0.0.0 does not name a reachable address:\n%s", b.String())
	}
}

func TestAdminHint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		data, db, program string
		want              string
	}{
		{"./folio-data", "", "folio", "folio user create --data ./folio-data --login"},
		{"/my data", "", "./folio", "./folio user create --data '/my data' --login"},
		{"x", "postgres://u@h/db", "go run ./cmd/folio", "go run ./cmd/folio user create --database postgres://u@h/db --login"},
	}
	for _, tt := range tests {
		got := AdminHint(&config.Config{DataDir: tt.data, DatabaseURL: tt.db}, tt.program)
		if !strings.HasPrefix(got, tt.want) || !strings.HasSuffix(got, "--role administrator") || strings.Contains(got, "--password") {
			t.Errorf("AdminHint(%q, %q) = %q", tt.data, tt.db, got)
		}
	}
}

func TestRoutes(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, nil)
	prefix := s.Names().Prefix
	tests := []struct {
		name     string
		method   string
		target   string
		status   int
		bodyHas  string
		jsonBody bool
	}{
		{"site root page", "GET", "/", 200, "<link rel=", false},
		{"head on root", "HEAD", "/", 200, "", false},
		{"post on root", "POST", "/", 405, "", false},
		{"unknown path (the reader's not-found page)", "GET", "/nope", 404, "Page not found", false},
		{"path outside prefix that shares its start", "GET", prefix + "x/svc/v2", 404, "", false},
		{"api root without slash", "GET", prefix, 200, "", true},
		{"api root", "GET", prefix + "/", 200, "", true},
		{"posts collection", "GET", prefix + "/svc/v2/posts", 200, "", true},
		{"rest_route query", "GET", "/?rest_route=/svc/v2/posts", 200, "", true},
		{"api not found is json", "GET", prefix + "/svc/v2/nope", 404, "rest_no_route", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := do(t, s.Handler(), tt.method, tt.target)
			if rec.Code != tt.status {
				t.Fatalf("status = %d, want %d; body %s", rec.Code, tt.status, rec.Body)
			}
			if !strings.Contains(rec.Body.String(), tt.bodyHas) {
				t.Errorf("body %q does not contain %q", rec.Body, tt.bodyHas)
			}
			ct := rec.Header().Get("Content-Type")
			if tt.jsonBody && !strings.Contains(ct, "json") {
				t.Errorf("content type = %q, want JSON", ct)
			}
			if tt.method == "HEAD" && rec.Body.Len() != 0 {
				t.Errorf("HEAD has a body")
			}
		})
	}
}

func TestRootPageAdvertisesAPI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		mod      func(*config.Config)
		wantRoot string
		wantRel  string
	}{
		{"default names from request host", nil, "http://example.com/api/", ""},
		{"configured site url", func(c *config.Config) { c.Site.URL = "https://blog.example.org" }, "https://blog.example.org/api/", ""},
		{"wordpress names", func(c *config.Config) { c.Compat = "wordpress" }, "http://example.com/wp-json/", "https://api.w.org/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, _ := newTestServer(t, tt.mod)
			rel := tt.wantRel
			if rel == "" {
				rel = s.Names().RelBase
			}
			if rel == "" {
				t.Fatal("RelBase is empty")
			}
			rec := do(t, s.Handler(), "GET", "/")
			if rec.Code != 200 {
				t.Fatalf("status %d", rec.Code)
			}
			wantLink := "<" + tt.wantRoot + `>; rel="` + rel + `"`
			if got := rec.Header().Get("Link"); got != wantLink {
				t.Errorf("Link = %q, want %q", got, wantLink)
			}
			wantEl := `<link rel="` + rel + `" href="` + tt.wantRoot + `"/>`
			if !strings.Contains(rec.Body.String(), wantEl) {
				t.Errorf("body lacks %s:\n%s", wantEl, rec.Body)
			}
			if !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
				t.Errorf("content type = %q", rec.Header().Get("Content-Type"))
			}
			// The advertised root answers.
			path := strings.TrimPrefix(strings.TrimPrefix(tt.wantRoot, "http://example.com"), "https://blog.example.org")
			if rec := do(t, s.Handler(), "GET", path); rec.Code != 200 {
				t.Errorf("GET %s = %d", path, rec.Code)
			}
		})
	}
}

func TestRestRouteRequestKeepsOtherParams(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest("GET", "/?rest_route=/svc/v2/posts&per_page=2&page=3", nil)
	r2 := restRouteRequest(r, "/api")
	if r2.URL.Path != "/api/svc/v2/posts" {
		t.Errorf("path = %q", r2.URL.Path)
	}
	q := r2.URL.Query()
	if q.Get("per_page") != "2" || q.Get("page") != "3" || q.Has("rest_route") {
		t.Errorf("query = %q", r2.URL.RawQuery)
	}
	if r.URL.Path != "/" {
		t.Error("original request was modified")
	}
}

// TestServeFinishesInFlightRequestsOnShutdown cancels the context while a
// request is being handled and checks that it still completes.
func TestServeFinishesInFlightRequestsOnShutdown(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	release := make(chan struct{})
	s := &Server{
		logger: slog.New(slog.DiscardHandler),
		handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			close(started)
			<-release
			_, _ = io.WriteString(w, "done")
		}),
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()

	type result struct {
		body string
		err  error
	}
	got := make(chan result, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			got <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		got <- result{string(b), err}
	}()
	<-started
	cancel()
	select {
	case err := <-served:
		t.Fatalf("Serve returned %v before the request finished", err)
	case <-time.After(100 * time.Millisecond):
	}
	// New connections are refused once shutdown began.
	if c, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		c.Close()
		t.Error("listener still accepts after shutdown began")
	}
	close(release)
	r := <-got
	if r.err != nil || r.body != "done" {
		t.Errorf("in-flight request: body %q, err %v", r.body, r.err)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve = %v, want nil", err)
	}
}

func TestServeReturnsListenerErrors(t *testing.T) {
	t.Parallel()
	s := &Server{logger: slog.New(slog.DiscardHandler), handler: http.NotFoundHandler()}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	if err := s.Serve(context.Background(), ln); err == nil {
		t.Error("Serve on a closed listener returned nil")
	}
}
