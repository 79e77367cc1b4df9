package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/media/s3test"
	"github.com/folio-server/folio/internal/store/storetest"
)

// TestScaleOutBehindLoadBalancer runs the topology Folio's scale-out
// answer names, with real parts: three `folio serve` nodes on one
// PostgreSQL database, uploads in one bucket of a real S3-compatible
// server (SeaweedFS), and nginx in front of them, round robin (plus two
// nodes with small rate limits, to show one budget across nodes). It needs
// FOLIO_TEST_DATABASE_URL, FOLIO_TEST_WEED (.ci/weed) and nginx; CI has
// all three.
func TestScaleOutBehindLoadBalancer(t *testing.T) {
	dbURL := storetest.PostgresURL(t) // skips without FOLIO_TEST_DATABASE_URL
	nginx := nginxBinary(t)
	s3 := s3test.Start(t)
	bucket := s3.Bucket(t)

	// Three nodes migrating a new database at once all succeed.
	var wg sync.WaitGroup
	results := make([]result, 3)
	for i := range results {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i] = run(t, nil, "migrate", "--database", dbURL)
		}(i)
	}
	wg.Wait()
	for i, r := range results {
		if r.code != 0 {
			t.Fatalf("migrate #%d: exit %d: %s", i, r.code, r.stderr)
		}
	}
	mustRun(t, "user", "create", "--database", dbURL, "--login", "admin", "--email", "admin@example.com", "--password", "Hook-pass-1234", "--role", "administrator")
	mustRun(t, "user", "create", "--database", dbURL, "--login", "victim", "--email", "victim@example.com", "--password", "Hook-pass-1234", "--role", "author")
	pass := lastLineOf(mustRun(t, "user", "app-password", "--database", dbURL, "--login", "admin"))

	cfg := filepath.Join(t.TempDir(), "folio.toml")
	toml := fmt.Sprintf(`[server]
webhook_private_targets = true

[media]
url = "s3://%s/site?endpoint=%s&region=%s&secure=false"
access_key = %q
secret_key = %q
`, bucket.Bucket, bucket.Endpoint, bucket.Region, bucket.AccessKey, bucket.SecretKey)
	if err := os.WriteFile(cfg, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"--database", dbURL, "--config", cfg}

	// A webhook receiver that records every delivery.
	hooks := &hookLog{}
	receiver := httptest.NewServer(hooks)
	t.Cleanup(receiver.Close)

	// Node A starts first; a scheduled post falls due while only A runs,
	// and B and C, started together, both look for due posts at start.
	a := startServe(t, nil, args...)
	posts := "/api/svc/v2/posts"
	code, _, body := apiCall(t, "POST", a.url+"/api/svc/v2/webhooks", "admin", pass, fmt.Sprintf(`{"url":%q,"events":["*"]}`, receiver.URL))
	if code != 201 {
		t.Fatalf("create webhook = %d %s", code, body)
	}
	due := time.Now().UTC().Add(1500 * time.Millisecond).Format("2006-01-02T15:04:05")
	code, _, body = apiCall(t, "POST", a.url+posts, "admin", pass, fmt.Sprintf(`{"title":"Scheduled","status":"future","date_gmt":%q}`, due))
	if code != 201 || jsonField(t, body, "status") != "future" {
		t.Fatalf("create scheduled post = %d %s", code, body)
	}
	scheduled := int64(jsonField(t, body, "id").(float64))
	time.Sleep(2 * time.Second)
	var b, c *serveProc
	wg.Add(2)
	go func() { defer wg.Done(); b = startServeNoFatal(t, args...) }()
	go func() { defer wg.Done(); c = startServeNoFatal(t, args...) }()
	wg.Wait()
	if b == nil || c == nil {
		t.Fatal("a node did not start")
	}
	nodes := []*serveProc{a, b, c}
	lb := startNginx(t, nginx, nodes)

	eventually(t, 40*time.Second, "the scheduled post to be published", func() bool {
		// Anonymous readers see a post once it is published.
		code, _, _ := apiCall(t, "GET", fmt.Sprintf("%s%s/%d", lb, posts, scheduled), "", "", "")
		return code == 200
	})

	// A write through one node is read back through every node at once,
	// after each had cached the collection (response cache) and handed
	// out an ETag.
	code, _, body = apiCall(t, "POST", a.url+posts, "admin", pass, `{"title":"First","status":"publish"}`)
	if code != 201 {
		t.Fatalf("POST on A = %d %s", code, body)
	}
	first := int64(jsonField(t, body, "id").(float64))
	etags := map[string]string{}
	for _, n := range nodes {
		code, h, body := apiCall(t, "GET", n.url+posts, "", "", "")
		if code != 200 || !strings.Contains(string(body), "First") {
			t.Fatalf("%s: GET posts = %d %s", n.url, code, body)
		}
		etags[n.url] = h.Get("ETag")
	}
	code, _, body = apiCall(t, "POST", fmt.Sprintf("%s%s/%d", b.url, posts, first), "admin", pass, `{"title":"Edited on B"}`)
	if code != 200 {
		t.Fatalf("update on B = %d %s", code, body)
	}
	for _, n := range nodes {
		req, _ := http.NewRequest("GET", n.url+posts, nil)
		req.Header.Set("If-None-Match", etags[n.url])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(got), "Edited on B") {
			t.Fatalf("%s after B's update: %d %s (a stale cache or ETag)", n.url, resp.StatusCode, got)
		}
	}
	// Through the load balancer, three requests in a row reach the three
	// nodes; each answers the same.
	for i := 0; i < 3; i++ {
		code, _, body := apiCall(t, "GET", fmt.Sprintf("%s%s/%d", lb, posts, first), "", "", "")
		if code != 200 || jsonField(t, body, "title").(map[string]any)["rendered"] != "Edited on B" {
			t.Fatalf("GET #%d through the load balancer = %d %s", i, code, body)
		}
	}

	// An upload through A is served by C and through the load balancer.
	img := flatPNG(t, 64, 48, 8)
	req, _ := http.NewRequest("POST", a.url+"/api/svc/v2/media", bytes.NewReader(img))
	req.SetBasicAuth("admin", pass)
	req.Header.Set("Content-Type", "image/png")
	req.Header.Set("Content-Disposition", `attachment; filename="shared.png"`)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("upload on A = %d %s\n%s", resp.StatusCode, body, a.stderr)
	}
	src, _ := url.Parse(jsonField(t, body, "source_url").(string))
	for _, base := range []string{c.url, lb} {
		resp, err := http.Get(base + src.Path)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !bytes.Equal(got, img) {
			t.Fatalf("GET %s%s = %d, %d bytes (want the %d uploaded)", base, src.Path, resp.StatusCode, len(got), len(img))
		}
	}
	if objs := s3.Objects(t, bucket.Bucket, "site/"); len(objs) == 0 {
		t.Fatal("the upload is not in the bucket")
	}

	// A browser session made on A, with a nonce from B, writes on C.
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = browser.PostForm(a.url+"/login", url.Values{"log": {"admin"}, "pwd": {"Hook-pass-1234"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("sign-in on A = %d", resp.StatusCode)
	}
	// The jar keys cookies by host, not port: the browser sends the
	// session cookie it got from A to B and C too, as behind one address.
	nonce := cookieGet(t, browser, b.url+"/admin/nonce")
	req, _ = http.NewRequest("POST", c.url+posts, strings.NewReader(`{"title":"By cookie","status":"draft"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Nonce", nonce)
	resp, err = browser.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("cookie+nonce write on C = %d %s", resp.StatusCode, body)
	}

	// Sign-in throttling holds across nodes: wrong passwords spread over
	// the three nodes add up to one budget.
	for i := 0; i < 6; i++ {
		code, _, _ := apiCall(t, "GET", nodes[i%3].url+"/api/svc/v2/users/me", "victim", "wrong-password-"+strconv.Itoa(i), "")
		if code != 401 && code != 429 {
			t.Fatalf("wrong password #%d = %d", i, code)
		}
	}
	for _, n := range nodes {
		code, h, _ := apiCall(t, "GET", n.url+"/api/svc/v2/users/me", "victim", "wrong-password-x", "")
		if code != 429 || h.Get("Retry-After") == "" {
			t.Fatalf("%s: after 6 failures spread over the nodes = %d (Retry-After %q), want 429", n.url, code, h.Get("Retry-After"))
		}
	}

	// Each webhook event is delivered once, whatever node wrote it; the
	// scheduled post was published (and announced) exactly once although
	// B and C both looked for due posts at start.
	eventually(t, 30*time.Second, "the webhook deliveries", func() bool {
		return hooks.count("post.published", scheduled) >= 1 && hooks.count("post.updated", first) >= 1 && hooks.count("media.created", 0) >= 1
	})
	time.Sleep(time.Second) // a duplicate would arrive now
	if n := hooks.count("post.published", scheduled); n != 1 {
		t.Errorf("post.published for the scheduled post delivered %d times, want 1", n)
	}
	if dup := hooks.duplicates(); len(dup) > 0 {
		t.Errorf("deliveries received more than once: %v", dup)
	}

	// API rate limits are one budget across nodes: two more nodes with a
	// small anonymous read budget (the others run with limits off, as the
	// load below needs) share it through the database.
	limited := filepath.Join(t.TempDir(), "limited.toml")
	if err := os.WriteFile(limited, []byte(toml+`
[limits.anonymous]
read = { rate = 0.01, burst = 4 }
`), 0o600); err != nil {
		t.Fatal(err)
	}
	limitsOn := []string{"FOLIO_RATE_LIMITS=on"}
	d := startServe(t, limitsOn, "--database", dbURL, "--config", limited)
	e := startServe(t, limitsOn, "--database", dbURL, "--config", limited)
	for i := 0; i < 4; i++ {
		n := []*serveProc{d, e}[i%2]
		if code, _, body := apiCall(t, "GET", n.url+posts+"?per_page=1", "", "", ""); code != 200 {
			t.Fatalf("read %d within the budget on %s = %d %s", i, n.url, code, body)
		}
	}
	for _, n := range []*serveProc{d, e} {
		code, h, body := apiCall(t, "GET", n.url+posts+"?per_page=1", "", "", "")
		if code != 429 || h.Get("Retry-After") == "" || jsonField(t, body, "code") != "rest_too_many_requests" {
			t.Fatalf("%s: a read past the shared budget = %d (Retry-After %q) %s", n.url, code, h.Get("Retry-After"), body)
		}
	}
	_ = d.cmd.Process.Kill()
	_ = e.cmd.Process.Kill()

	// kill -9 one node under mixed load: no acknowledged write is lost
	// and the survivors keep serving.
	var acked sync.Map
	var writes, failures atomic.Int64
	stop := make(chan struct{})
	var load sync.WaitGroup
	for w := 0; w < 4; w++ {
		load.Add(1)
		go func(w int) {
			defer load.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				code, _, body := apiCallQuiet("POST", lb+posts, "admin", pass, fmt.Sprintf(`{"title":"load %d-%d","status":"publish"}`, w, i))
				if code == 201 {
					var m map[string]any
					if json.Unmarshal(body, &m) == nil {
						acked.Store(int64(m["id"].(float64)), true)
						writes.Add(1)
					}
				} else {
					failures.Add(1)
				}
				_, _, _ = apiCallQuiet("GET", lb+posts+"?per_page=5", "", "", "")
			}
		}(w)
	}
	time.Sleep(1500 * time.Millisecond)
	_ = b.cmd.Process.Signal(syscall.SIGKILL)
	<-b.done
	time.Sleep(2 * time.Second)
	close(stop)
	load.Wait()
	if writes.Load() == 0 {
		t.Fatal("no write was acknowledged under load")
	}
	t.Logf("under load with a node killed: %d writes acknowledged, %d requests failed", writes.Load(), failures.Load())
	lost := 0
	acked.Range(func(k, _ any) bool {
		code, _, _ := apiCall(t, "GET", fmt.Sprintf("%s%s/%d", c.url, posts, k.(int64)), "", "", "")
		if code != 200 {
			lost++
		}
		return true
	})
	if lost > 0 {
		t.Fatalf("%d acknowledged writes are missing after a node was killed", lost)
	}
	for i := 0; i < 6; i++ {
		code, _, body := apiCall(t, "GET", lb+posts+"?per_page=1", "", "", "")
		if code != 200 {
			t.Fatalf("through the load balancer after the kill: %d %s", code, body)
		}
	}
}

// hookLog records webhook deliveries by delivery id.
type hookLog struct {
	mu   sync.Mutex
	seen map[string]int
	by   []delivery
}

type delivery struct {
	event string
	id    int64
}

func (h *hookLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var payload struct {
		Event string `json:"event"`
		Data  struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	_ = json.Unmarshal(body, &payload)
	h.mu.Lock()
	if h.seen == nil {
		h.seen = map[string]int{}
	}
	id := r.Header.Get("X-Folio-Delivery")
	h.seen[id]++
	if h.seen[id] == 1 {
		h.by = append(h.by, delivery{payload.Event, payload.Data.ID})
	}
	h.mu.Unlock()
	w.WriteHeader(204)
}

// count is how many distinct deliveries of event were received for the
// record id (any record when id is 0).
func (h *hookLog) count(event string, id int64) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, d := range h.by {
		if d.event == event && (id == 0 || d.id == id) {
			n++
		}
	}
	return n
}

// duplicates are the delivery ids received more than once.
func (h *hookLog) duplicates() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for id, n := range h.seen {
		if n > 1 {
			out = append(out, id)
		}
	}
	return out
}

// nginxBinary finds nginx, or skips (fails under CI=true).
func nginxBinary(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"nginx", "/usr/sbin/nginx"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("nginx is not installed: CI must run the scale-out test (apt-get install nginx-light)")
	}
	t.Skip("nginx is not installed")
	return ""
}

// startNginx runs nginx on a free loopback port in front of nodes, round
// robin, and returns its URL. A node that fails is skipped for the next
// few seconds; only requests that may be repeated are retried elsewhere.
func startNginx(t *testing.T, bin string, nodes []*serveProc) string {
	t.Helper()
	dir := t.TempDir()
	port := freePort(t)
	var ups strings.Builder
	for _, n := range nodes {
		fmt.Fprintf(&ups, "\t\tserver %s max_fails=1 fail_timeout=10s;\n", strings.TrimPrefix(n.url, "http://"))
	}
	user := ""
	if os.Geteuid() == 0 {
		// Workers would run as nobody, who may not use the test's
		// temporary directory.
		user = "user root;\n"
	}
	conf := user + fmt.Sprintf(`worker_processes 1;
daemon off;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 256; }
http {
	access_log off;
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
	client_max_body_size 64m;
	upstream folio {
%[2]s		keepalive 16;
	}
	server {
		listen 127.0.0.1:%[3]d;
		location / {
			proxy_pass http://folio;
			proxy_http_version 1.1;
			proxy_set_header Connection "";
			proxy_set_header Host $http_host;
			proxy_next_upstream error timeout http_502;
			proxy_connect_timeout 2s;
		}
	}
}
`, dir, ups.String(), port)
	confPath := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", confPath, "-e", filepath.Join(dir, "error.log"))
	var out syncBuf
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	lb := fmt.Sprintf("http://127.0.0.1:%d", port)
	eventually(t, 15*time.Second, "nginx to listen", func() bool {
		select {
		case <-done:
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx exited: %s\n%s", out.String(), log)
		default:
		}
		resp, err := http.Get(lb + "/api/")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	return lb
}

// startServeNoFatal is startServe for a goroutine: it reports a failure
// with t.Error and returns nil.
func startServeNoFatal(t *testing.T, args ...string) (p *serveProc) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if recover() != nil || p == nil {
				t.Error("node did not start")
			}
		}()
		p = startServe(t, nil, args...)
	}()
	<-done
	return p
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// eventually polls cond until it holds or d has passed.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// apiCallQuiet is apiCall for load goroutines: errors are a status of 0.
func apiCallQuiet(method, u, login, pass, body string) (int, http.Header, []byte) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		return 0, nil, nil
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if login != "" {
		req.SetBasicAuth(login, pass)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// cookieGet GETs target with client (and its cookies) and returns the
// body, which must be a 200.
func cookieGet(t *testing.T, client *http.Client, target string) string {
	t.Helper()
	resp, err := client.Get(target)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s = %d %s", target, resp.StatusCode, b)
	}
	return strings.TrimSpace(string(b))
}
