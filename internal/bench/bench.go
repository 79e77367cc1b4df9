// Package bench is Folio's own benchmark: it seeds a site, starts `folio
// serve` and a trivial JSON "hello" server as subprocesses, drives a fixed
// set of scenarios against them with a closed-loop load generator and
// reports throughput and latency as ratios to the hello baseline, plus the
// server's peak memory. Numbers are only comparable within one run.
package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/store"
)

// Defaults for Options.
const (
	DefaultPosts       = 10000
	DefaultDuration    = 5 * time.Second
	DefaultConnections = 16
	DefaultMaxRequests = 500000
	// DefaultAuthors is how many authors own the seeded posts.
	DefaultAuthors = 4
	// MaxNodes bounds Options.Nodes: the nodes share this machine.
	MaxNodes = 8
)

// The administrator the benchmark creates to post with.
const (
	adminLogin = "benchadmin"
	adminEmail = "benchadmin@example.com"
)

// Options configure a benchmark run.
type Options struct {
	// Posts is the number of published posts to seed.
	Posts int
	// Duration bounds each scenario.
	Duration time.Duration
	// Connections is the number of concurrent keep-alive connections.
	Connections int
	// MaxRequests bounds each scenario's request count.
	MaxRequests int64
	// Exe is the folio binary to run as subprocesses; empty means the
	// running executable.
	Exe string
	// Keep, when set, is a directory where the seeded site stays after
	// the run: on SQLite the data directory itself (`folio serve --data
	// Keep` serves it), on PostgreSQL a file there naming the kept schema.
	// A later run with the same Keep, database and Posts measures that
	// site again without seeding it. Empty means a temporary site,
	// removed at the end.
	Keep string
	// Database, when set to a postgres:// URL, runs the benchmark on
	// PostgreSQL: the site is seeded in a new schema of that database,
	// dropped at the end unless Keep is set, instead of a SQLite data
	// directory.
	Database string
	// OpenStore opens and migrates the store at where: a data directory,
	// or a postgres:// URL when Database is set (the caller passes
	// server.OpenStore wired to a config).
	OpenStore func(ctx context.Context, where string) (store.Store, error)
	// Log receives progress lines; nil discards them.
	Log io.Writer
	// NoResponseCache runs the server with its anonymous response cache
	// off, to measure the request path itself.
	NoResponseCache bool
	// RateLimits runs the server with its API rate limits on, as a
	// production server runs, but with budgets far above any load the
	// bench makes: every request takes a token (on PostgreSQL, a write)
	// and none is refused. Off, the limits are off.
	RateLimits bool
	// Only, when not empty, runs only the scenarios whose names contain
	// one of these strings, or, for a string that starts with "=", whose
	// name is the rest of it (hello, the baseline, always runs).
	Only []string
	// Nodes is how many `folio serve` processes serve the site at once
	// (PostgreSQL only; default 1). The load's requests go to them in
	// turn, as a round-robin load balancer would send them.
	Nodes int
	// Soak, for Soak, is how long the soak's load runs.
	Soak time.Duration
	// SoakInterval is how often a soak reports; 0 means
	// DefaultSoakInterval.
	SoakInterval time.Duration
}

// benchBudget is every rate-limit budget of the configuration
// Options.RateLimits runs the server with: far above what the bench asks.
const benchBudget = 1_000_000_000

// serverEnv returns the environment of the `folio serve` processes opts
// asks for, and what removes the files it wrote. The load generator is a
// script, so the API rate limits are off, or (RateLimits) on with a
// temporary configuration file whose budgets no load reaches.
func serverEnv(opts Options) (env []string, cleanup func(), err error) {
	cleanup = func() {}
	if opts.NoResponseCache {
		env = append(env, "FOLIO_RESPONSE_CACHE=off")
	}
	if !opts.RateLimits {
		return append(env, "FOLIO_RATE_LIMITS=off"), cleanup, nil
	}
	var b strings.Builder
	for _, who := range []string{"anonymous", "user"} {
		fmt.Fprintf(&b, "[limits.%s]\n", who)
		for _, class := range []string{"read", "write", "search", "upload"} {
			fmt.Fprintf(&b, "%s = { rate = %d, burst = %d }\n", class, benchBudget, benchBudget)
		}
	}
	f, err := os.CreateTemp("", "folio-bench-limits-*.toml")
	if err != nil {
		return nil, cleanup, err
	}
	cleanup = func() { _ = os.Remove(f.Name()) }
	_, err = f.WriteString(b.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		cleanup()
		return nil, func() {}, err
	}
	return append(env, "FOLIO_CONFIG="+f.Name()), cleanup, nil
}

// runs reports whether the scenario named name is to run.
func (o *Options) runs(name string) bool {
	if len(o.Only) == 0 || name == "hello" {
		return true
	}
	for _, s := range o.Only {
		if exact, ok := strings.CutPrefix(s, "="); ok && name == exact || !ok && strings.Contains(name, s) {
			return true
		}
	}
	return false
}

func (o *Options) defaults() error {
	if o.Posts < 0 {
		return fmt.Errorf("posts %d: must not be negative", o.Posts)
	}
	if o.Duration <= 0 {
		o.Duration = DefaultDuration
	}
	if o.Connections <= 0 {
		o.Connections = DefaultConnections
	}
	if o.MaxRequests <= 0 {
		o.MaxRequests = DefaultMaxRequests
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Nodes <= 0 {
		o.Nodes = 1
	}
	if o.Nodes > 1 && o.Database == "" {
		return fmt.Errorf("nodes %d: several nodes need a shared database (--database postgres://...); a SQLite site is served by one node", o.Nodes)
	}
	if o.Nodes > MaxNodes {
		return fmt.Errorf("nodes %d: at most %d", o.Nodes, MaxNodes)
	}
	if o.Database != "" && !strings.HasPrefix(o.Database, "postgres://") && !strings.HasPrefix(o.Database, "postgresql://") {
		return fmt.Errorf("database %q: want a postgres:// URL", o.Database)
	}
	if o.OpenStore == nil {
		return errors.New("bench: no store opener")
	}
	if o.Exe == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("find folio executable: %w", err)
		}
		o.Exe = exe
	}
	return nil
}

// Scenario is the measurement of one scenario.
type Scenario struct {
	Name string
	Result
	// Ratio is this scenario's throughput divided by hello's.
	Ratio float64
}

// Report is the outcome of a benchmark run.
type Report struct {
	// Backend is the database the server ran on: SQLite or PostgreSQL.
	Backend string
	// ResponseCache says whether the server's response cache was on.
	ResponseCache bool
	// RateLimits says whether the server's API rate limits were on
	// (Options.RateLimits).
	RateLimits bool
	// Nodes is how many folio processes served the load.
	Nodes       int
	Posts       int
	Connections int
	Duration    time.Duration
	CPUs        int
	GoVersion   string
	Scenarios   []Scenario
	// Server is the folio server's memory after the run (Peak is VmHWM).
	Server Memory
	// Hello is the hello server's memory, for scale.
	Hello Memory
}

// Run seeds a site, starts the servers and runs every scenario.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	logf := func(format string, args ...any) { fmt.Fprintf(opts.Log, format+"\n", args...) }
	st, cleanup, err := prepareSite(ctx, opts, logf)
	defer cleanup()
	if err != nil {
		return nil, err
	}
	site, backend, ids, appPass := st.args, st.backend, st.ids, st.appPass

	serverEnv, removeEnv, err := serverEnv(opts)
	if err != nil {
		return nil, err
	}
	defer removeEnv()
	nodes := make([]*process, 0, opts.Nodes)
	defer func() {
		for _, n := range nodes {
			n.stop(20 * time.Second)
		}
	}()
	for range opts.Nodes {
		n, err := startProcess(ctx, opts.Exe, serverEnv, append([]string{"serve", "--addr", "127.0.0.1:0"}, site...)...)
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, n)
	}
	folio := nodes[0]
	hello, err := startProcess(ctx, opts.Exe, nil, "bench-hello", "--addr", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer hello.stop(5 * time.Second)
	for i, n := range nodes {
		logf("folio node %d at %s (pid %d)", i+1, n.URL, n.Pid())
	}
	logf("hello at %s (pid %d)", hello.URL, hello.Pid())

	rep := &Report{
		Backend:       backend,
		ResponseCache: !opts.NoResponseCache,
		RateLimits:    opts.RateLimits,
		Nodes:         opts.Nodes,
		Posts:         opts.Posts,
		Connections:   opts.Connections,
		Duration:      opts.Duration,
		CPUs:          runtime.NumCPU(),
		GoVersion:     runtime.Version(),
	}
	client := NewClient(opts.Connections)
	defer client.CloseIdleConnections()
	for _, sc := range scenarios(client, folio.URL, hello.URL, ids, adminLogin, appPass) {
		if !opts.runs(sc.name) {
			continue
		}
		logf("running %s", sc.name)
		load := Load{
			Client:      client,
			Connections: opts.Connections,
			Duration:    opts.Duration,
			MaxRequests: opts.MaxRequests,
			NewRequest:  spread(sc.build, nodes),
		}
		// A short warm-up, not measured, fills caches and the pool (the
		// load beside a scenario starts after it).
		warm := load
		warm.Duration = min(opts.Duration/10, time.Second)
		warm.MaxRequests = min(opts.MaxRequests/10+1, 2000)
		if _, err := warm.Run(ctx); err != nil {
			return nil, err
		}
		stopBeside := runBeside(ctx, sc, opts, nodes)
		res, err := load.Run(ctx)
		stopBeside()
		if err != nil {
			return nil, err
		}
		rep.Scenarios = append(rep.Scenarios, Scenario{Name: sc.name, Result: res})
	}
	if len(rep.Scenarios) > 0 && rep.Scenarios[0].Rate() > 0 {
		base := rep.Scenarios[0].Rate()
		for i := range rep.Scenarios {
			rep.Scenarios[i].Ratio = rep.Scenarios[i].Rate() / base
		}
	}
	if m, err := ReadMemory(folio.Pid()); err == nil {
		rep.Server = m
	} else {
		logf("server memory: %v", err)
	}
	if m, err := ReadMemory(hello.Pid()); err == nil {
		rep.Hello = m
	}
	return rep, nil
}

// runBeside starts sc's load beside it, if any, on connections of its
// own; the returned func stops it and waits for its last requests.
func runBeside(ctx context.Context, sc scenario, opts Options, nodes []*process) (stop func()) {
	if sc.beside == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	conns := opts.Connections
	if sc.besideConns > 0 {
		conns = sc.besideConns
	}
	client := NewClient(conns)
	done := make(chan struct{})
	go func() {
		defer close(done)
		side := Load{Client: client, Connections: conns, Duration: opts.Duration + time.Minute,
			NewRequest: spread(sc.beside, nodes)}
		_, _ = side.Run(ctx) // ends when the scenario does
	}()
	return func() {
		cancel()
		<-done
		client.CloseIdleConnections()
	}
}

// spread sends the requests build makes for the first node to every node
// in turn (round robin); requests to other hosts (hello) are left alone.
func spread(build func(context.Context, *rand.Rand) (*http.Request, error), nodes []*process) func(context.Context, *rand.Rand) (*http.Request, error) {
	if len(nodes) < 2 {
		return build
	}
	hosts := make([]string, len(nodes))
	for i, n := range nodes {
		if u, err := url.Parse(n.URL); err == nil {
			hosts[i] = u.Host
		}
	}
	var next atomic.Uint64
	return func(ctx context.Context, rng *rand.Rand) (*http.Request, error) {
		req, err := build(ctx, rng)
		if err != nil || req.URL.Host != hosts[0] {
			return req, err
		}
		h := hosts[next.Add(1)%uint64(len(hosts))]
		req.URL.Host, req.Host = h, h
		return req, nil
	}
}

// seedWriters is how many transactions seed posts at once: two on
// PostgreSQL, whose write transactions run side by side (a server process
// each, and the batches are built meanwhile); one on SQLite, whose single
// writer would only queue the second.
func seedWriters(opts Options) int {
	if opts.Database != "" {
		return 2
	}
	return 1
}

// seed opens the store at where and fills it with authors and posts.
func seed(ctx context.Context, opts Options, where string) (ids []int64, err error) {
	st, err := opts.OpenStore(ctx, where)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	defer func() {
		if cerr := st.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close store: %w", cerr)
		}
	}()
	authors, err := SeedAuthors(ctx, st, DefaultAuthors)
	if err != nil {
		return nil, err
	}
	posts := func(ctx context.Context) (err error) {
		ids, err = SeedPosts(ctx, st, opts.Posts, authors, 1, seedWriters(opts))
		return err
	}
	if b, ok := st.(store.BulkLoader); ok {
		err = b.BulkLoad(ctx, posts) // sets ids
	} else {
		err = posts(ctx)
	}
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// scenario is one named request builder.
type scenario struct {
	name  string
	build func(ctx context.Context, rng *rand.Rand) (*http.Request, error)
	// beside, when set, is sent unmeasured by as many more connections
	// (besideConns when not 0) while the scenario runs: the load it is
	// measured beside.
	beside      func(ctx context.Context, rng *rand.Rand) (*http.Request, error)
	besideConns int
}

func get(url string) func(context.Context, *rand.Rand) (*http.Request, error) {
	return func(ctx context.Context, _ *rand.Rand) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	}
}

// scenarios lists what the benchmark measures, hello first (the baseline).
// client is the one the load uses; the write of "GET /posts after a
// write" goes through it too, before the measured request.
func scenarios(client *http.Client, folioURL, helloURL string, ids []int64, login, appPass string) []scenario {
	n := rest.DefaultNames() // the benchmark serves the default mode
	api := folioURL + n.Prefix + "/" + n.Namespace
	list := []scenario{
		{name: "hello", build: get(helloURL + "/")},
		{name: "GET /posts", build: get(api + "/posts")},
		{name: "GET /posts?_embed", build: get(api + "/posts?_embed")},
		{name: "GET /posts?per_page=100", build: get(api + "/posts?per_page=100")},
		{name: "GET /posts?_fields=id,title,link", build: get(api + "/posts?_fields=id,title,link")},
	}
	if len(ids) > 0 {
		list = append(list, scenario{name: "GET /posts/<id>", build: func(ctx context.Context, rng *rand.Rand) (*http.Request, error) {
			id := ids[rng.IntN(len(ids))]
			return http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/posts/%d", api, id), nil)
		}})
	}
	search := func(terms func(rng *rand.Rand) string) func(context.Context, *rand.Rand) (*http.Request, error) {
		return func(ctx context.Context, rng *rand.Rand) (*http.Request, error) {
			return http.NewRequestWithContext(ctx, http.MethodGet, api+"/posts?search="+url.QueryEscape(terms(rng)), nil)
		}
	}
	// Two words of the seeded text: most posts have both, and each
	// search counts its total afresh.
	twoWords := search(func(rng *rand.Rand) string {
		return words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))]
	})
	list = append(list,
		// A word of the seeded text: most posts have it.
		scenario{name: "GET /posts?search=<common word>", build: search(func(rng *rand.Rand) string {
			return words[rng.IntN(len(words))]
		})},
		// A word in no post, new every request, so that no cache answers.
		scenario{name: "GET /posts?search=<rare word>", build: search(func(rng *rand.Rand) string {
			b := []byte("zq")
			for range 8 {
				b = append(b, byte('a'+rng.IntN(26)))
			}
			return string(b)
		})},
		scenario{name: "GET /posts?search=<two words>", build: twoWords},
		// The best of the newest matches first (docs/search.md).
		scenario{name: "GET /posts?search=<two words>&orderby=relevance", build: func(ctx context.Context, rng *rand.Rand) (*http.Request, error) {
			terms := words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))]
			return http.NewRequestWithContext(ctx, http.MethodGet, api+"/posts?orderby=relevance&search="+url.QueryEscape(terms), nil)
		}},
		// What costly searches from many clients leave to everyone else
		// (the searches' counts take turns: docs/search.md).
		scenario{name: "GET /posts beside two-word searches", build: get(api + "/posts"), beside: twoWords},
		// A page in the second half of the seeded posts.
		scenario{name: "GET /posts?page=<deep>", build: func(ctx context.Context, rng *rand.Rand) (*http.Request, error) {
			pages := len(ids) / 10
			page := 1
			if pages >= 2 {
				page = pages/2 + 1 + rng.IntN(pages-pages/2)
			}
			return http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/posts?page=%d", api, page), nil)
		}},
	)
	newCreate := func(ctx context.Context, rng *rand.Rand, title string) (*http.Request, error) {
		return createRequest(ctx, api, login, appPass, title, BlockContent(rng, 1500))
	}
	create := func(ctx context.Context, rng *rand.Rand) (*http.Request, error) {
		return newCreate(ctx, rng, Title(rng))
	}
	list = append(list, scenario{name: "POST /posts", build: create})
	// Scripts and imports make many posts with one title: each takes the
	// next free slug suffix.
	list = append(list, scenario{name: "POST /posts (same title)", build: func(ctx context.Context, rng *rand.Rand) (*http.Request, error) {
		return newCreate(ctx, rng, "Same Title")
	}})
	// Most posts of a site have a title of their own, whose slug no post
	// holds yet (the titles of POST /posts come from a few hundred, each
	// held by thousands of seeded posts).
	list = append(list, scenario{name: "POST /posts (new title)", build: func(ctx context.Context, rng *rand.Rand) (*http.Request, error) {
		return newCreate(ctx, rng, Title(rng)+", part "+strconv.FormatUint(rng.Uint64(), 36))
	}})
	list = append(list, scenario{name: "mixed (95% reads, 5% creates)", build: mixed(api, ids, create)})
	// Every measured GET follows a create (not measured), so its total
	// cannot come from a count cached before the write.
	list = append(list, scenario{name: "GET /posts after a write", build: func(ctx context.Context, rng *rand.Rand) (*http.Request, error) {
		req, err := create(ctx, rng)
		if err != nil {
			return nil, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusCreated {
			return nil, fmt.Errorf("create before GET: status %d", resp.StatusCode)
		}
		return http.NewRequestWithContext(ctx, http.MethodGet, api+"/posts", nil)
	}})
	// A popular page read while one client writes: every create retires
	// the response cache, and the readers who miss it at once wait for
	// one of them to make the page again.
	list = append(list, scenario{name: "GET /posts beside creates", build: get(api + "/posts"), beside: create, besideConns: 1})
	return list
}

// mixed is a site's day: 95% anonymous reads over many distinct URLs (list
// pages 1-50, single posts, _embed pages, a search, a post's comments) and
// 5% creates, which retire the response cache as they would.
func mixed(api string, ids []int64, create func(context.Context, *rand.Rand) (*http.Request, error)) func(context.Context, *rand.Rand) (*http.Request, error) {
	return func(ctx context.Context, rng *rand.Rand) (*http.Request, error) {
		u := api + "/posts"
		switch r := rng.IntN(100); {
		case r < 5:
			return create(ctx, rng)
		case r < 50:
			u += fmt.Sprintf("?page=%d", 1+rng.IntN(50))
		case r < 75 && len(ids) > 0:
			u += fmt.Sprintf("/%d", ids[rng.IntN(len(ids))])
		case r < 85:
			u += fmt.Sprintf("?_embed&page=%d", 1+rng.IntN(20))
		case r < 90:
			u += "?search=" + words[rng.IntN(len(words))]
		case len(ids) > 0:
			u = fmt.Sprintf("%s/comments?post=%d", api, ids[rng.IntN(len(ids))])
		}
		return http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	}
}

// runCLI runs a folio command and fails with its stderr on error.
func runCLI(ctx context.Context, exe string, args ...string) error {
	_, err := cliOutput(ctx, exe, args...)
	return err
}

func cliOutput(ctx context.Context, exe string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = cleanEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("folio %s: %w: %s", strings.Join(args[:2], " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func randomToken() string {
	return fmt.Sprintf("%016x", rand.Uint64())
}

// HelloHandler answers every request with a small JSON object: the
// baseline the benchmark compares Folio with.
func HelloHandler() http.Handler {
	body := []byte(`{"hello":"world"}` + "\n")
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		_, _ = w.Write(body)
	})
}

// WriteMarkdown writes the report as a markdown table with a short header.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# folio bench\n\n")
	if r.Backend != "" {
		fmt.Fprintf(&b, "Database: %s. ", r.Backend)
	}
	cache := "off"
	if r.ResponseCache {
		cache = "on"
	}
	if r.Nodes > 1 {
		fmt.Fprintf(&b, "%d folio nodes, requests in turn. ", r.Nodes)
	}
	fmt.Fprintf(&b, "Response cache %s. ", cache)
	if r.RateLimits {
		fmt.Fprintf(&b, "API rate limits on (budgets above the load). ")
	}
	fmt.Fprintf(&b, "%d posts, %d connections, %s per scenario, %d CPUs, %s\n\n", r.Posts, r.Connections, r.Duration, r.CPUs, r.GoVersion)
	r.writeTable(&b)
	node := ""
	if r.Nodes > 1 {
		node = " (node 1)"
	}
	fmt.Fprintf(&b, "\nServer memory%s: peak RSS %s, RSS at end %s (hello server peak %s).\n", node, mib(r.Server.Peak), mib(r.Server.RSS), mib(r.Hello.Peak))
	for _, s := range r.Scenarios {
		if s.FirstError != "" {
			fmt.Fprintf(&b, "\nFirst error in %s: %s\n", s.Name, s.FirstError)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Report) writeTable(b *strings.Builder) {
	b.WriteString("| scenario | requests | req/s | p50 | p99 | errors | vs hello |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range r.Scenarios {
		fmt.Fprintf(b, "| %s | %d | %.0f | %s | %s | %d | %.3f |\n",
			s.Name, s.Requests, s.Rate(), ms(s.Percentile(50)), ms(s.Percentile(99)), s.Errors, s.Ratio)
	}
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

func mib(n int64) string {
	if n == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// createRequest is the request that creates a published post as login
// (an application password over HTTP Basic).
func createRequest(ctx context.Context, api, login, appPass, title, content string) (*http.Request, error) {
	body, err := json.Marshal(map[string]string{"title": title, "content": content, "status": "publish"})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, api+"/posts", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.SetBasicAuth(login, appPass)
	return req, nil
}
