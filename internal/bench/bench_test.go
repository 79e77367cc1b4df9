package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/store"
)

func ms2d(v ...int) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x) * time.Millisecond
	}
	return out
}

func TestPercentileNearestRank(t *testing.T) {
	t.Parallel()
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	tests := []struct {
		name   string
		values []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"single p50", ms2d(7), 50, 7 * time.Millisecond},
		{"single p99", ms2d(7), 99, 7 * time.Millisecond},
		{"two p50 is the lower", ms2d(1, 2), 50, 1 * time.Millisecond},
		{"three p50 is the middle", ms2d(1, 2, 3), 50, 2 * time.Millisecond},
		{"hundred p50", ms2d(hundred...), 50, 50 * time.Millisecond},
		{"hundred p99", ms2d(hundred...), 99, 99 * time.Millisecond},
		{"hundred p100", ms2d(hundred...), 100, 100 * time.Millisecond},
		{"hundred p1", ms2d(hundred...), 1, 1 * time.Millisecond},
		{"ten p99 is the max", ms2d(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 99, 10 * time.Millisecond},
		{"ten p90", ms2d(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 90, 9 * time.Millisecond},
		{"p0 clamps to min", ms2d(4, 5), 0, 4 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := Percentile(tt.values, tt.p); got != tt.want {
			t.Errorf("%s: Percentile(p%v) = %v, want %v", tt.name, tt.p, got, tt.want)
		}
	}
}

func TestLoadStopsAtMaxRequests(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	res, err := Load{
		Connections: 4,
		Duration:    10 * time.Second,
		MaxRequests: 250,
		NewRequest:  get(srv.URL),
	}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 250 || hits.Load() != 250 {
		t.Errorf("requests = %d, server saw %d, want 250", res.Requests, hits.Load())
	}
	if res.Errors != 0 || res.FirstError != "" {
		t.Errorf("errors = %d (%s)", res.Errors, res.FirstError)
	}
	if len(res.Latencies) != 250 || !slices.IsSorted(res.Latencies) {
		t.Errorf("latencies: %d, sorted %v", len(res.Latencies), slices.IsSorted(res.Latencies))
	}
	if res.Elapsed >= 10*time.Second || res.Rate() <= 0 {
		t.Errorf("elapsed %v rate %v", res.Elapsed, res.Rate())
	}
}

func TestLoadStopsAtDuration(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(2 * time.Millisecond)
	}))
	defer srv.Close()
	start := time.Now()
	res, err := Load{Connections: 2, Duration: 200 * time.Millisecond, NewRequest: get(srv.URL)}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("run took %v", el)
	}
	if res.Requests == 0 || res.Errors != 0 {
		t.Errorf("requests %d errors %d", res.Requests, res.Errors)
	}
}

func TestLoadUsesFixedConnections(t *testing.T) {
	t.Parallel()
	var (
		mu    sync.Mutex
		conns = map[string]bool{}
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		conns[r.RemoteAddr] = true
		mu.Unlock()
	}))
	defer srv.Close()
	res, err := Load{Connections: 3, Duration: 5 * time.Second, MaxRequests: 300, NewRequest: get(srv.URL)}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 300 {
		t.Fatalf("requests = %d", res.Requests)
	}
	mu.Lock()
	defer mu.Unlock()
	// Three workers on keep-alive connections: one connection each for
	// the whole run. On a loaded machine the transport can close one
	// that came back while its worker had already dialed another (the
	// idle pool holds three) and dial again later, so a few more are
	// seen; a connection per request would be 300.
	if len(conns) == 0 || len(conns) > 10 {
		t.Errorf("server saw %d connections for 300 requests, want 1..3 (keep-alive; a few more under load)", len(conns))
	}
}

func TestLoadCountsNon2xxAndTransportErrors(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) % 4 {
		case 0:
			w.WriteHeader(http.StatusInternalServerError)
		case 1:
			w.WriteHeader(http.StatusNotFound)
		case 2:
			w.WriteHeader(http.StatusCreated)
		default:
			w.WriteHeader(http.StatusOK)
		}
	}))
	defer srv.Close()
	res, err := Load{Connections: 1, Duration: 5 * time.Second, MaxRequests: 100, NewRequest: get(srv.URL)}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 100 || res.Errors != 50 {
		t.Errorf("requests %d errors %d, want 100 and 50", res.Requests, res.Errors)
	}
	if !strings.Contains(res.FirstError, "status 404") {
		t.Errorf("first error = %q", res.FirstError)
	}

	// A server that is gone: every request is a transport error.
	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close()
	res, err = Load{Connections: 2, Duration: 5 * time.Second, MaxRequests: 10, NewRequest: get(url)}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 10 || res.Errors != 10 {
		t.Errorf("dead server: requests %d errors %d", res.Requests, res.Errors)
	}
}

func TestLoadRejectsBadConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		load Load
	}{
		{"no builder", Load{Duration: time.Second}},
		{"no duration", Load{NewRequest: get("http://127.0.0.1:1")}},
	}
	for _, tt := range tests {
		if _, err := tt.load.Run(context.Background()); err == nil {
			t.Errorf("%s: Run succeeded", tt.name)
		}
	}
}

func TestLoadReportsCancellation(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := Load{Connections: 2, Duration: 10 * time.Second, NewRequest: get(srv.URL)}.Run(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestScenariosSendWhatTheyName(t *testing.T) {
	t.Parallel()
	type seen struct {
		method, uri, user, pass, ctype string
		body                           string
	}
	ch := make(chan seen, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, _ := r.BasicAuth()
		b, _ := io.ReadAll(r.Body)
		ch <- seen{r.Method, r.URL.RequestURI(), u, p, r.Header.Get("Content-Type"), string(b)}
		if r.Method == "POST" {
			w.WriteHeader(http.StatusCreated)
		}
	}))
	defer srv.Close()
	ids := make([]int64, 1000)
	for i := range ids {
		ids[i] = int64(i + 1)
	}
	scs := scenarios(http.DefaultClient, srv.URL, srv.URL+"/hello", ids[41:], "admin", "pass word")
	want := []struct{ name, method, uri string }{
		{"hello", "GET", "/hello/"},
		{"GET /posts", "GET", "/api/svc/v2/posts"},
		{"GET /posts?_embed", "GET", "/api/svc/v2/posts?_embed"},
		{"GET /posts?per_page=100", "GET", "/api/svc/v2/posts?per_page=100"},
		{"GET /posts?_fields=id,title,link", "GET", "/api/svc/v2/posts?_fields=id,title,link"},
		{"GET /posts/<id>", "GET", "/api/svc/v2/posts/"},
		{"GET /posts?search=<common word>", "GET", "/api/svc/v2/posts?search="},
		{"GET /posts?search=<rare word>", "GET", "/api/svc/v2/posts?search=zq"},
		{"GET /posts?search=<two words>", "GET", "/api/svc/v2/posts?search="},
		{"GET /posts?search=<two words>&orderby=relevance", "GET", "/api/svc/v2/posts?orderby=relevance&search="},
		{"GET /posts beside two-word searches", "GET", "/api/svc/v2/posts"}, // and TestBesideLoad
		{"GET /posts?page=<deep>", "GET", "/api/svc/v2/posts?page="},
		{"POST /posts", "POST", "/api/svc/v2/posts"},
		{"POST /posts (same title)", "POST", "/api/svc/v2/posts"},
		{"POST /posts (new title)", "POST", "/api/svc/v2/posts"},
		{"mixed (95% reads, 5% creates)", "", ""}, // TestMixedScenario
		{"GET /posts after a write", "GET", "/api/svc/v2/posts"},
		{"GET /posts beside creates", "GET", "/api/svc/v2/posts"},
	}
	if len(scs) != len(want) {
		t.Fatalf("%d scenarios, want %d", len(scs), len(want))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i, w := range want {
		if scs[i].name != w.name {
			t.Errorf("scenario %d = %q, want %q", i, scs[i].name, w.name)
		}
		if w.method == "" {
			continue
		}
		req, err := scs[i].build(context.Background(), rng)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got := <-ch
		if w.name == "GET /posts after a write" {
			if got.method != "POST" {
				t.Errorf("%s first sent %s %s, want a POST", w.name, got.method, got.uri)
			}
			got = <-ch
		}
		// The scenarios that pick a word, an id or a page send more than
		// the wanted prefix.
		exact := !strings.Contains(w.name, "<")
		if got.method != w.method || !strings.HasPrefix(got.uri, w.uri) || (exact && got.uri != w.uri) {
			t.Errorf("%s sent %s %s, want %s %s", w.name, got.method, got.uri, w.method, w.uri)
		}
		if beside := scs[i].beside; (beside != nil) != strings.Contains(w.name, " beside ") {
			t.Errorf("%s: load beside it %v", w.name, beside != nil)
		} else if w.name == "GET /posts beside creates" {
			req, err := beside(context.Background(), rng)
			if err != nil {
				t.Fatal(err)
			}
			if req.Method != "POST" || req.URL.Path != "/api/svc/v2/posts" || scs[i].besideConns != 1 {
				t.Errorf("%s: beside it %s %s on %d connections, want creates on one", w.name, req.Method, req.URL, scs[i].besideConns)
			}
		} else if beside != nil {
			req, err := beside(context.Background(), rng)
			if err != nil {
				t.Fatal(err)
			}
			if q := req.URL.Query().Get("search"); req.URL.Path != "/api/svc/v2/posts" || len(strings.Fields(q)) != 2 {
				t.Errorf("%s: beside it %s, want a search of two words", w.name, req.URL)
			}
		}
		if w.name == "GET /posts?page=<deep>" {
			var page int
			if _, err := fmt.Sscanf(strings.TrimPrefix(got.uri, w.uri), "%d", &page); err != nil || page < 48 || page > 95 {
				t.Errorf("deep page = %q, want one of pages 48-95 of 959 posts", got.uri)
			}
		}
		if w.method == "POST" {
			if got.user != "admin" || got.pass != "pass word" || got.ctype != "application/json" {
				t.Errorf("POST auth/type = %q %q %q", got.user, got.pass, got.ctype)
			}
			if !strings.Contains(got.body, `"status":"publish"`) || !strings.Contains(got.body, `"title":`) {
				t.Errorf("POST body = %s", got.body)
			}
			if same := strings.Contains(got.body, `"title":"Same Title"`); same != strings.Contains(w.name, "same title") {
				t.Errorf("%s sent title %v: body %s", w.name, same, got.body)
			}
		}
	}
}

// TestCreateScenariosTitles: the creates of POST /posts (new title) each
// have a title of their own, those of POST /posts (same title) one title.
func TestCreateScenariosTitles(t *testing.T) {
	t.Parallel()
	scs := scenarios(http.DefaultClient, "http://h", "http://h/hello", []int64{1, 2, 3}, "admin", "pass word")
	rng := rand.New(rand.NewPCG(5, 6))
	titles := func(name string) map[string]bool {
		t.Helper()
		seen := map[string]bool{}
		for _, sc := range scs {
			if sc.name != name {
				continue
			}
			for range 50 {
				req, err := sc.build(context.Background(), rng)
				if err != nil {
					t.Fatal(err)
				}
				var body struct{ Title string }
				if err := json.NewDecoder(req.Body).Decode(&body); err != nil || body.Title == "" {
					t.Fatalf("%s: body %v", name, err)
				}
				seen[body.Title] = true
			}
		}
		return seen
	}
	if n := len(titles("POST /posts (new title)")); n != 50 {
		t.Errorf("POST /posts (new title): %d titles in 50 creates, want 50", n)
	}
	if n := len(titles("POST /posts (same title)")); n != 1 {
		t.Errorf("POST /posts (same title): %d titles in 50 creates, want 1", n)
	}
}

func TestMixedScenario(t *testing.T) {
	t.Parallel()
	ids := []int64{7, 8, 9}
	creates := 0
	build := mixed("http://h/api/v2", ids, func(ctx context.Context, _ *rand.Rand) (*http.Request, error) {
		creates++
		return http.NewRequestWithContext(ctx, http.MethodPost, "http://h/api/v2/posts", nil)
	})
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 4000
	urls := map[string]int{}
	kinds := map[string]int{}
	for range n {
		req, err := build(context.Background(), rng)
		if err != nil {
			t.Fatal(err)
		}
		if req.Method != http.MethodGet {
			continue
		}
		if _, _, ok := req.BasicAuth(); ok {
			t.Fatalf("read %s carries credentials: the response cache would not serve it", req.URL)
		}
		u := req.URL.String()
		urls[u]++
		switch {
		case strings.Contains(u, "_embed"):
			kinds["embed"]++
		case strings.Contains(u, "search="):
			kinds["search"]++
		case strings.Contains(u, "/comments?post="):
			kinds["comments"]++
		case strings.Contains(u, "?page="):
			kinds["list"]++
		case strings.HasPrefix(u, "http://h/api/v2/posts/"):
			kinds["single"]++
		default:
			t.Errorf("unexpected read %s", u)
		}
	}
	if creates < n*3/100 || creates > n*7/100 {
		t.Errorf("%d creates of %d requests, want about 5%%", creates, n)
	}
	// 50 list pages, 3 posts, 20 embed pages, the seeded words, 3 posts'
	// comments: many distinct URLs, so the cache is not one entry.
	if len(urls) < 100 {
		t.Errorf("%d distinct read URLs, want at least 100", len(urls))
	}
	for _, k := range []string{"list", "single", "embed", "search", "comments"} {
		if kinds[k] == 0 {
			t.Errorf("no %s read in %d requests", k, n)
		}
	}
	if kinds["list"] < kinds["single"] || kinds["single"] < kinds["embed"] {
		t.Errorf("reads %v: want lists > single posts > embed pages", kinds)
	}
}

func TestParseStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    Memory
		wantErr bool
	}{
		{"linux status", "Name:\tfolio\nVmPeak:\t  900000 kB\nVmHWM:\t   51200 kB\nVmRSS:\t   40960 kB\nThreads:\t8\n", Memory{RSS: 40960 * 1024, Peak: 51200 * 1024}, false},
		{"missing lines", "Name:\tfolio\n", Memory{}, true},
		{"bad unit", "VmHWM:\t1 MB\nVmRSS:\t1 kB\n", Memory{}, true},
		{"bad number", "VmHWM:\tx kB\nVmRSS:\t1 kB\n", Memory{}, true},
	}
	for _, tt := range tests {
		got, err := parseStatus(strings.NewReader(tt.in))
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("%s: parseStatus = %+v, %v", tt.name, got, err)
		}
	}
}

func TestReadMemoryOfThisProcess(t *testing.T) {
	t.Parallel()
	m, err := ReadMemory(currentPid())
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	if m.RSS <= 0 || m.Peak < m.RSS {
		t.Errorf("memory = %+v", m)
	}
}

func TestBlockContentSizeAndShape(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, size := range []int{1024, 2048, 3072} {
		c := BlockContent(rng, size)
		if len(c) < size || len(c) > size+1500 {
			t.Errorf("BlockContent(%d) has %d bytes", size, len(c))
		}
		if strings.Count(c, "<!-- wp:") != strings.Count(c, "<!-- /wp:") || !strings.Contains(c, "<!-- wp:") {
			t.Errorf("unbalanced or missing block comments:\n%s", c)
		}
	}
}

func TestHelloHandler(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	HelloHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/anything", nil))
	if rec.Code != 200 || rec.Body.String() != "{\"hello\":\"world\"}\n" || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		t.Errorf("hello = %d %q %q", rec.Code, rec.Body, rec.Header().Get("Content-Type"))
	}
}

// fakeStore records inserts; the embedded nil interface makes any other
// call panic, which keeps the seeding honest about what it uses.
type fakeStore struct {
	store.Store
	mu     sync.Mutex
	posts  []*store.Post
	users  []*store.User
	txs    int
	nextID int64
}

func (f *fakeStore) Tx(ctx context.Context, fn func(store.Store) error) error {
	f.mu.Lock()
	f.txs++
	f.mu.Unlock()
	return fn(f)
}

func (f *fakeStore) InsertPost(_ context.Context, p *store.Post) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p.ID != 0 {
		return fmt.Errorf("post already has id %d", p.ID)
	}
	f.nextID++
	p.ID = f.nextID
	f.posts = append(f.posts, p)
	return nil
}

func (f *fakeStore) InsertUser(_ context.Context, u *store.User) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	u.ID = f.nextID
	f.users = append(f.users, u)
	return nil
}

func TestSeedPostsInBatches(t *testing.T) {
	t.Parallel()
	st := &fakeStore{}
	authors, err := SeedAuthors(context.Background(), st, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(authors) != 3 || st.users[0].Login != "author1" || st.users[2].Roles[0] != "author" {
		t.Fatalf("authors = %v, users %+v", authors, st.users)
	}
	n := 2*seedBatch + 1
	ids, err := SeedPosts(context.Background(), st, n, authors, 7, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != n || len(st.posts) != n {
		t.Fatalf("ids %d, posts %d", len(ids), len(st.posts))
	}
	if st.txs != 3 {
		t.Errorf("transactions = %d, want 3 (batches of %d)", st.txs, seedBatch)
	}
	// The writers store batches side by side: ids[i] names the i-th
	// post built, whichever batch was stored first.
	byID := map[int64]*store.Post{}
	for _, p := range st.posts {
		byID[p.ID] = p
	}
	posts := make([]*store.Post, len(ids))
	for i, id := range ids {
		if posts[i] = byID[id]; posts[i] == nil {
			t.Fatalf("ids[%d] = %d names no stored post", i, id)
		}
		delete(byID, id)
	}
	slugs := map[string]bool{}
	byAuthor := map[int64]int{}
	for i, p := range posts {
		if p.Type != "post" || p.Status != "publish" || p.Title == "" || p.Slug != fmt.Sprintf("%s-%d", slug(p.Title), i+1) {
			t.Fatalf("post %d = %+v", i, p)
		}
		if n := len(p.Content); n < 1024 || n > 3072+1500 {
			t.Errorf("post %d content has %d bytes", i, n)
		}
		if slugs[p.Slug] {
			t.Errorf("duplicate slug %q", p.Slug)
		}
		slugs[p.Slug] = true
		byAuthor[p.Author]++
		if i > 0 && !p.DateGMT.After(posts[i-1].DateGMT) {
			t.Errorf("post %d is not newer than post %d", i, i-1)
		}
		if p.DateGMT.After(time.Now()) {
			t.Errorf("post %d is dated in the future", i)
		}
	}
	if len(byAuthor) != 3 {
		t.Errorf("posts spread over %d authors, want 3", len(byAuthor))
	}
}

func TestSeedPostsNeedsAuthors(t *testing.T) {
	t.Parallel()
	if _, err := SeedPosts(context.Background(), &fakeStore{}, 1, nil, 1, 1); err == nil {
		t.Error("SeedPosts without authors succeeded")
	}
}

func TestReportMarkdown(t *testing.T) {
	t.Parallel()
	rep := &Report{
		Posts: 10, Connections: 2, Duration: time.Second, CPUs: 2, GoVersion: "go1.26",
		Scenarios: []Scenario{
			{Name: "hello", Result: Result{Requests: 1000, Elapsed: time.Second, Latencies: ms2d(1, 2)}, Ratio: 1},
			{Name: "GET /posts", Result: Result{Requests: 250, Errors: 3, FirstError: "GET /x: status 500", Elapsed: time.Second, Latencies: ms2d(4, 8)}, Ratio: 0.25},
		},
		Server: Memory{RSS: 30 << 20, Peak: 40 << 20},
	}
	var b strings.Builder
	if err := rep.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"| scenario | requests | req/s | p50 | p99 | errors | vs hello |",
		"| hello | 1000 | 1000 | 1.00 ms | 2.00 ms | 0 | 1.000 |",
		"| GET /posts | 250 | 250 | 4.00 ms | 8.00 ms | 3 | 0.250 |",
		"peak RSS 40.0 MiB",
		"First error in GET /posts: GET /x: status 500",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func currentPid() int { return os.Getpid() }

func TestSpreadSendsTheFirstNodesRequestsToEveryNodeInTurn(t *testing.T) {
	nodes := []*process{{URL: "http://127.0.0.1:1001"}, {URL: "http://127.0.0.1:1002"}, {URL: "http://127.0.0.1:1003"}}
	target := "http://127.0.0.1:1001/api/svc/v2/posts"
	build := spread(get(target), nodes)
	seen := map[string]int{}
	for range 9 {
		req, err := build(context.Background(), rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		if req.URL.Path != "/api/svc/v2/posts" || req.Host != req.URL.Host {
			t.Fatalf("request rewritten wrongly: %s (Host %s)", req.URL, req.Host)
		}
		seen[req.URL.Host]++
	}
	for _, n := range []string{"127.0.0.1:1001", "127.0.0.1:1002", "127.0.0.1:1003"} {
		if seen[n] != 3 {
			t.Errorf("node %s got %d of 9 requests: %v", n, seen[n], seen)
		}
	}
	// Requests to another server (hello) are not spread.
	hello := spread(get("http://127.0.0.1:2000/"), nodes)
	if req, _ := hello(context.Background(), nil); req.URL.Host != "127.0.0.1:2000" {
		t.Errorf("hello request sent to %s", req.URL.Host)
	}
	// One node: the builder is used as it is.
	one := spread(get(target), nodes[:1])
	if req, _ := one(context.Background(), nil); req.URL.Host != "127.0.0.1:1001" {
		t.Errorf("single node request sent to %s", req.URL.Host)
	}
}

func TestSeveralNodesNeedASharedDatabase(t *testing.T) {
	o := Options{Nodes: 3, OpenStore: func(context.Context, string) (store.Store, error) { return nil, nil }, Exe: "folio"}
	if err := o.defaults(); err == nil || !strings.Contains(err.Error(), "shared database") {
		t.Fatalf("3 nodes on SQLite: %v", err)
	}
	o = Options{Nodes: MaxNodes + 1, Database: "postgres://x", OpenStore: o.OpenStore, Exe: "folio"}
	if err := o.defaults(); err == nil {
		t.Fatal("more than MaxNodes accepted")
	}
	o = Options{Database: "postgres://x", OpenStore: o.OpenStore, Exe: "folio"}
	if err := o.defaults(); err != nil || o.Nodes != 1 {
		t.Fatalf("default nodes = %d, %v", o.Nodes, err)
	}
}

func TestOnlySelectsScenarios(t *testing.T) {
	t.Parallel()
	names := []string{"hello", "GET /posts", "GET /posts?_embed", "POST /posts", "POST /posts (same title)"}
	tests := []struct {
		only []string
		want []string
	}{
		{nil, names},
		{[]string{"POST /posts"}, []string{"hello", "POST /posts", "POST /posts (same title)"}},
		{[]string{"=POST /posts"}, []string{"hello", "POST /posts"}},
		{[]string{"=GET /posts", "_embed"}, []string{"hello", "GET /posts", "GET /posts?_embed"}},
		{[]string{"=GET"}, []string{"hello"}},
	}
	for _, tt := range tests {
		o := Options{Only: tt.only}
		var got []string
		for _, n := range names {
			if o.runs(n) {
				got = append(got, n)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("--only %q runs %q, want %q", tt.only, got, tt.want)
		}
	}
}

// TestBesideLoad: a scenario's load beside it runs on connections of its
// own until the scenario stops it, and no new request follows the stop.
func TestBesideLoad(t *testing.T) {
	t.Parallel()
	var side atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/side" {
			side.Add(1)
		}
	}))
	defer srv.Close()
	sc := scenario{name: "measured", build: get(srv.URL + "/measured"), beside: get(srv.URL + "/side")}
	stop := runBeside(context.Background(), sc, Options{Connections: 2, Duration: time.Second}, nil)
	deadline := time.Now().Add(5 * time.Second)
	for side.Load() < 20 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	n := side.Load()
	if n < 20 {
		t.Fatalf("%d requests beside the scenario, want a steady load", n)
	}
	// A request a connection had sent as it stopped may still reach the
	// server; nothing more.
	time.Sleep(50 * time.Millisecond)
	settled := side.Load()
	time.Sleep(100 * time.Millisecond)
	if after := side.Load(); settled-n > 2 || after != settled {
		t.Fatalf("requests beside the scenario after it stopped: %d, then %d more", settled-n, after-settled)
	}
	if stop := runBeside(context.Background(), scenario{name: "alone", build: sc.build}, Options{Connections: 2}, nil); stop == nil {
		t.Fatal("no stop for a scenario without a load beside it")
	}
}

// TestSeedDatesEndNowWithinTheSpan: the seeded posts' dates rise with k,
// the last is the end, and the first is no further back than seedSpan
// years, for a few posts as for a million (whose three-hour steps would
// overflow a time.Duration).
func TestSeedDatesEndNowWithinTheSpan(t *testing.T) {
	end := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	for _, n := range []int{1, 10, 10_000, 100_000, 1_000_000, 5_000_000} {
		first, last := seedDate(end, n, 0), seedDate(end, n, n-1)
		if !first.Before(last) && n > 1 || last.After(end) {
			t.Errorf("n=%d: first %s, last %s, end %s: want first before last, last not after end", n, first, last, end)
		}
		if oldest := end.AddDate(-seedSpan, 0, -1); first.Before(oldest) {
			t.Errorf("n=%d: first %s before %s", n, first, oldest)
		}
		if mid := seedDate(end, n, n/2); mid.Before(first) || mid.After(last) {
			t.Errorf("n=%d: middle %s not between %s and %s", n, mid, first, last)
		}
	}
	if got, want := seedDate(end, 10, 7), end.Add(-9*time.Hour); !got.Equal(want) {
		t.Errorf("10 posts: the 8th at %s, want %s (three hours apart)", got, want)
	}
}

// TestServerEnvRateLimits: without RateLimits the server runs with its
// API rate limits off; with it they are on, from a configuration file
// whose every budget is far above any load, which the cleanup removes.
func TestServerEnvRateLimits(t *testing.T) {
	t.Setenv(config.EnvRateLimits, "")
	env, cleanup, err := serverEnv(Options{NoResponseCache: true})
	if err != nil {
		t.Fatal(err)
	}
	cleanup()
	if want := []string{"FOLIO_RESPONSE_CACHE=off", "FOLIO_RATE_LIMITS=off"}; !slices.Equal(env, want) {
		t.Fatalf("env without rate limits = %q, want %q", env, want)
	}

	env, cleanup, err = serverEnv(Options{RateLimits: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(env) != 1 || !strings.HasPrefix(env[0], "FOLIO_CONFIG=") {
		t.Fatalf("env with rate limits = %q, want only FOLIO_CONFIG", env)
	}
	path := strings.TrimPrefix(env[0], "FOLIO_CONFIG=")
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Limits.RateLimitsOn() {
		t.Fatal("the configuration turns the rate limits off")
	}
	for _, b := range []config.RateBudgets{cfg.Limits.Anonymous, cfg.Limits.User} {
		for _, r := range []config.Rate{b.Read, b.Write, b.Search, b.Upload} {
			if r.Rate < benchBudget || r.Burst < benchBudget {
				t.Fatalf("budget %+v is below the bench's", r)
			}
		}
	}
	cleanup()
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the configuration file stays after the cleanup: %v", err)
	}
}
