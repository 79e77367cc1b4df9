package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/store/storetest"
	"github.com/folio-server/folio/internal/testkit"
)

// folioBin is the binary built once for the end-to-end tests.
var folioBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "folio-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	folioBin = filepath.Join(dir, "folio")
	build := exec.Command("go", "build", "-o", folioBin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build folio:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// cleanEnv is the test process's environment without FOLIO_* variables,
// with the API rate limits off, plus extra.
func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FOLIO_") {
			env = append(env, kv)
		}
	}
	// These tests drive the binary far faster than a person, from one
	// address: the API rate limits (tested in internal/server) are off.
	env = append(env, config.EnvRateLimits+"=off")
	return append(env, extra...)
}

type result struct {
	stdout, stderr string
	code           int
}

// run runs the folio binary to completion.
func run(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(folioBin, args...)
	cmd.Env = cleanEnv(env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run folio %v: %v", args, err)
	}
	return result{out.String(), errb.String(), code}
}

// mustRun runs folio and fails the test unless it exits 0.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	r := run(t, nil, args...)
	if r.code != 0 {
		t.Fatalf("folio %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// siteArgs returns the flags that put a command on a fresh site for t on
// the store the tests select (internal/store/storetest): its data
// directory dir, and with FOLIO_TEST_DATABASE_URL also --database naming
// a new PostgreSQL schema, dropped when t ends.
func siteArgs(t *testing.T, dir string) []string {
	t.Helper()
	if storetest.Backend() == "postgres" {
		return []string{"--data", dir, "--database", storetest.PostgresURL(t)}
	}
	return []string{"--data", dir}
}

// admin is the administrator createAdmin makes, named as internal/testkit
// names its users.
const admin = "administrator"

// createAdmin creates the administrator admin (password
// testkit.Password(admin)) and an application password on the site the
// flags name (--data dir, or siteArgs), and returns the application
// password.
func createAdmin(t *testing.T, site ...string) string {
	t.Helper()
	mustRun(t, append(append([]string{"user", "create"}, site...), "--login", admin, "--email", admin+"@example.com", "--password", testkit.Password(admin), "--role", "administrator")...)
	out := mustRun(t, append(append([]string{"user", "app-password"}, site...), "--login", admin)...)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestVersion(t *testing.T) {
	t.Parallel()
	r := run(t, nil, "version")
	if r.code != 0 || !regexp.MustCompile(`^folio dev \(go1\.\d+`).MatchString(r.stdout) {
		t.Errorf("version: exit %d, stdout %q", r.code, r.stdout)
	}
}

func TestVersionFromLdflags(t *testing.T) {
	old := version
	defer func() { version = old }()
	version = "v1.2.3"
	cmd := newRootCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"version"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "folio v1.2.3 (go") {
		t.Errorf("version output = %q", out.String())
	}
}

func TestUnknownCommandFails(t *testing.T) {
	t.Parallel()
	r := run(t, nil, "frobnicate")
	if r.code != 1 || !strings.Contains(r.stderr, "unknown command") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestMigrateCreatesDatabase(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "fresh")
	out := mustRun(t, "migrate", "--data", dir)
	if !strings.Contains(out, "migrations applied") {
		t.Errorf("stdout = %q", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "folio.db")); err != nil {
		t.Fatal(err)
	}
	// Running it again is a no-op that succeeds.
	mustRun(t, "migrate", "--data", dir)
}

func TestDatabaseCommandsFail(t *testing.T) {
	t.Parallel()
	badConfig := filepath.Join(t.TempDir(), "folio.toml")
	if err := os.WriteFile(badConfig, []byte("colour = \"red\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tests := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"postgres unreachable", nil, []string{"migrate", "--database", "postgres://u@127.0.0.1:1/folio"}, "database unavailable"},
		{"postgres from env", []string{"FOLIO_DATABASE_URL=postgres://u@127.0.0.1:1/db"}, []string{"user", "list", "--data", dir}, "127.0.0.1:1"},
		{"bad pool setting", []string{"FOLIO_DB_MAX_CONNS=many"}, []string{"migrate", "--data", dir}, "FOLIO_DB_MAX_CONNS"},
		{"unknown config key", nil, []string{"migrate", "--data", dir, "--config", badConfig}, "colour"},
		{"config from env", []string{"FOLIO_CONFIG=" + badConfig}, []string{"migrate", "--data", dir}, "colour"},
		{"bad compat", nil, []string{"serve", "--data", dir, "--compat", "drupal", "--addr", "127.0.0.1:0"}, "drupal"},
		{"bad role", nil, []string{"user", "create", "--data", dir, "--login", "x", "--email", "x@example.com", "--password", "Hook-pass-1234", "--role", "king"}, `unknown role "king"`},
		{"bad email", nil, []string{"user", "create", "--data", dir, "--login", "x", "--email", "nope", "--password", "Hook-pass-1234", "--role", "author"}, "invalid email"},
		{"bad login", nil, []string{"user", "create", "--data", dir, "--login", "a/b", "--email", "x@example.com", "--password", "Hook-pass-1234", "--role", "author"}, "login"},
		{"missing flags", nil, []string{"user", "create", "--data", dir, "--login", "x"}, "required flag"},
		{"app password for nobody", nil, []string{"user", "app-password", "--data", dir, "--login", "ghost"}, `no user with login "ghost"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := run(t, tt.env, tt.args...)
			if r.code != 1 {
				t.Errorf("exit %d, want 1", r.code)
			}
			if !strings.Contains(r.stderr, tt.want) {
				t.Errorf("stderr %q does not contain %q", r.stderr, tt.want)
			}
		})
	}
}

func TestUserCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	site := siteArgs(t, dir)
	user := func(sub string, args ...string) []string {
		return append(append([]string{"user", sub}, site...), args...)
	}
	out := mustRun(t, user("create", "--login", "Jane.Doe", "--email", "jane@example.com", "--password", testkit.Password("Jane.Doe"), "--role", "editor")...)
	id, err := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
	if err != nil || id <= 0 || strings.Count(out, "\n") != 1 {
		t.Fatalf("user create printed %q, want one id line", out)
	}

	dups := []struct{ name, login, email, want string }{
		{"same login", "Jane.Doe", "other@example.com", `login "Jane.Doe" already exists`},
		{"same email", "jane2", "jane@example.com", `email "jane@example.com" already exists`},
	}
	for _, d := range dups {
		r := run(t, nil, user("create", "--login", d.login, "--email", d.email, "--password", testkit.Password(d.login), "--role", "author")...)
		if r.code != 1 || !strings.Contains(r.stderr, d.want) || r.stdout != "" {
			t.Errorf("%s: exit %d stdout %q stderr %q", d.name, r.code, r.stdout, r.stderr)
		}
	}

	out2 := mustRun(t, user("create", "--login", "bob", "--email", "bob@example.com", "--password", testkit.Password("bob"), "--role", "subscriber")...)
	id2, _ := strconv.ParseInt(strings.TrimSpace(out2), 10, 64)
	if id2 <= id {
		t.Errorf("second id %d not after first %d", id2, id)
	}

	pw1 := strings.TrimSpace(lastLineOf(mustRun(t, user("app-password", "--login", "bob")...)))
	pw2 := strings.TrimSpace(lastLineOf(mustRun(t, user("app-password", "--login", "bob", "--name", "phone")...)))
	if len(strings.ReplaceAll(pw1, " ", "")) < 16 || pw1 == pw2 {
		t.Errorf("app passwords %q and %q", pw1, pw2)
	}

	list := mustRun(t, user("list")...)
	lines := strings.Split(strings.TrimRight(list, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("user list has %d lines:\n%s", len(lines), list)
	}
	wantRows := [][]string{
		{"ID", "LOGIN", "EMAIL", "ROLES"},
		{strconv.FormatInt(id, 10), "Jane.Doe", "jane@example.com", "editor"},
		{strconv.FormatInt(id2, 10), "bob", "bob@example.com", "subscriber"},
	}
	for i, want := range wantRows {
		if got := strings.Fields(lines[i]); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("line %d = %q, want %q", i, got, want)
		}
	}

	if storetest.Backend() == "postgres" {
		// FOLIO_DATABASE_URL selects the same site.
		r := run(t, []string{"FOLIO_DATABASE_URL=" + site[3]}, "user", "list")
		if r.code != 0 || !strings.Contains(r.stdout, "jane@example.com") || !strings.Contains(r.stdout, "bob@example.com") {
			t.Errorf("user list with FOLIO_DATABASE_URL: exit %d, %q %q", r.code, r.stdout, r.stderr)
		}
		return
	}
	// FOLIO_DATA selects the same site.
	r := run(t, []string{"FOLIO_DATA=" + dir}, "user", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "jane@example.com") {
		t.Errorf("user list with FOLIO_DATA: exit %d, %q", r.code, r.stdout)
	}
	// --database names the SQLite file directly.
	r = run(t, nil, "user", "list", "--database", filepath.Join(dir, "folio.db"))
	if r.code != 0 || !strings.Contains(r.stdout, "bob@example.com") {
		t.Errorf("user list with --database: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
}

func lastLineOf(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// serveProc is a running `folio serve`.
type serveProc struct {
	cmd    *exec.Cmd
	url    string
	stderr *syncBuf
	rest   chan string // stdout lines after the first
	done   chan error
}

func startServe(t *testing.T, env []string, args ...string) *serveProc {
	t.Helper()
	cmd := exec.Command(folioBin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = cleanEnv(env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &serveProc{cmd: cmd, stderr: &syncBuf{}, rest: make(chan string, 100), done: make(chan error, 1)}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		n := 0
		for sc.Scan() {
			if n == 0 {
				first <- sc.Text()
			} else {
				p.rest <- sc.Text()
			}
			n++
		}
		close(p.rest)
		if n == 0 {
			close(first)
		}
	}()
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	select {
	case line, ok := <-first:
		m := regexp.MustCompile(`^listening on (http://127\.0\.0\.1:(\d+))$`).FindStringSubmatch(line)
		if !ok || m == nil || m[2] == "0" {
			<-p.done
			t.Fatalf("first stdout line %q; stderr:\n%s", line, p.stderr)
		}
		p.url = m[1]
	case <-time.After(30 * time.Second):
		t.Fatalf("no listening line; stderr:\n%s", p.stderr)
	}
	return p
}

// syncBuf is a bytes.Buffer that may be read while the child writes.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// stop sends sig and returns the exit code.
func (p *serveProc) stop(t *testing.T, sig os.Signal) int {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop within 20s")
		return -1
	}
}

func TestServeEndToEnd(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "site")
	p := startServe(t, nil, "--data", dir)

	// A fresh site was created, and the log says how to add an admin.
	if _, err := os.Stat(filepath.Join(dir, "folio.db")); err != nil {
		t.Fatal(err)
	}

	resp, err := http.Get(p.url + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Link"), "<"+p.url+"/api/>") || !strings.Contains(string(body), `href="`+p.url+`/api/"`) {
		t.Errorf("GET / = %d, Link %q, body %s", resp.StatusCode, resp.Header.Get("Link"), body)
	}

	// Users can be created while the server runs on the same database.
	pass := createAdmin(t, "--data", dir)

	post := func(auth bool) (int, map[string]any) {
		req, _ := http.NewRequest("POST", p.url+"/api/svc/v2/posts", strings.NewReader(`{"title":"Hello from the test","content":"Body text","status":"publish"}`))
		req.Header.Set("Content-Type", "application/json")
		if auth {
			req.SetBasicAuth(admin, pass)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	if code, m := post(true); code != 201 || m["id"] == nil {
		t.Errorf("POST with app password = %d %v", code, m)
	}
	if code, _ := post(false); code != 401 {
		t.Errorf("anonymous POST = %d, want 401", code)
	}

	resp, err = http.Get(p.url + "/api/svc/v2/posts")
	if err != nil {
		t.Fatal(err)
	}
	var posts []map[string]any
	err = json.NewDecoder(resp.Body).Decode(&posts)
	resp.Body.Close()
	if err != nil || len(posts) != 1 || resp.Header.Get("X-API-Total") != "1" {
		t.Errorf("GET posts: %v, %d posts, total %q", err, len(posts), resp.Header.Get("X-API-Total"))
	}

	if code := p.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("exit code after SIGTERM = %d; stderr:\n%s", code, p.stderr)
	}
	for line := range p.rest {
		t.Errorf("serve printed more than one stdout line: %q", line)
	}
	if !strings.Contains(p.stderr.String(), "folio user create --data "+dir) {
		t.Errorf("stderr lacks the admin hint:\n%s", p.stderr)
	}
}

func TestServeStopsOnSIGINTAndKeepsNoHintWithAdmin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	site := siteArgs(t, dir)
	createAdmin(t, site...)
	env := []string{"FOLIO_DATA=" + dir, "FOLIO_COMPAT=wordpress"}
	if len(site) == 4 {
		env = append(env, "FOLIO_DATABASE_URL="+site[3])
	}
	p := startServe(t, env)
	resp, err := http.Get(p.url + "/wp-json/wp/v2/posts")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("X-WP-Total") == "" {
		t.Errorf("wordpress names: %d, X-WP-Total %q", resp.StatusCode, resp.Header.Get("X-WP-Total"))
	}
	if code := p.stop(t, os.Interrupt); code != 0 {
		t.Errorf("exit code after SIGINT = %d", code)
	}
	if strings.Contains(p.stderr.String(), "user create") {
		t.Errorf("admin hint printed although an admin exists:\n%s", p.stderr)
	}
}

func TestServeConfigFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "folio.toml")
	err := os.WriteFile(cfg, []byte(`
[site]
title = "Config Title"

[[post_types]]
name = "book"
rest_base = "books"
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	p := startServe(t, nil, append(siteArgs(t, filepath.Join(dir, "data")), "--config", cfg)...)
	defer p.stop(t, syscall.SIGTERM)
	resp, err := http.Get(p.url + "/api/svc/v2/books")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("GET books = %d", resp.StatusCode)
	}
	resp, err = http.Get(p.url + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "<title>Config Title</title>") {
		t.Errorf("root page does not use the site title:\n%s", b)
	}
}

func TestBenchSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the benchmark")
	}
	t.Parallel()
	out := filepath.Join(t.TempDir(), "bench.md")
	r := run(t, nil, "bench", "--posts", "60", "--duration", "500ms", "--connections", "2", "--out", out)
	if r.code != 0 {
		t.Fatalf("bench: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	file, err := os.ReadFile(out)
	if err != nil || string(file) != r.stdout {
		t.Errorf("--out file differs from stdout (%v)", err)
	}
	row := regexp.MustCompile(`(?m)^\| (.+?) \| (\d+) \| \d+ \| [\d.]+ ms \| [\d.]+ ms \| (\d+) \| [\d.]+ \|$`)
	rows := row.FindAllStringSubmatch(r.stdout, -1)
	names := []string{"hello", "GET /posts", "GET /posts?_embed", "GET /posts?per_page=100", "GET /posts?_fields=id,title,link", "GET /posts/<id>",
		"GET /posts?search=<common word>", "GET /posts?search=<rare word>", "GET /posts?search=<two words>",
		"GET /posts?search=<two words>&orderby=relevance", "GET /posts beside two-word searches", "GET /posts?page=<deep>",
		"POST /posts", "POST /posts (same title)", "POST /posts (new title)", "mixed (95% reads, 5% creates)", "GET /posts after a write",
		"GET /posts beside creates"}
	if len(rows) != len(names) {
		t.Fatalf("%d rows, want %d:\n%s", len(rows), len(names), r.stdout)
	}
	for i, m := range rows {
		if m[1] != names[i] || m[2] == "0" || m[3] != "0" {
			t.Errorf("row %d: scenario %q requests %s errors %s", i, m[1], m[2], m[3])
		}
	}
	if !strings.Contains(r.stdout, "peak RSS") || strings.Contains(r.stdout, "peak RSS n/a") {
		t.Errorf("no server memory in report:\n%s", r.stdout)
	}
}

// TestBenchKeep keeps the seeded site, serves it with `folio serve`, and
// measures it again without seeding.
func TestBenchKeep(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the benchmark")
	}
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "site")
	args := []string{"bench", "--keep", dir, "--posts", "25", "--duration", "300ms", "--connections", "2", "--only", "GET /posts/<id>"}
	r := run(t, nil, args...)
	if r.code != 0 || !strings.Contains(r.stderr, "seeding 25 posts") || !strings.Contains(r.stderr, "the site stays in "+dir) {
		t.Fatalf("bench --keep: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, nil, args...)
	if r.code != 0 || strings.Contains(r.stderr, "seeding") || !strings.Contains(r.stderr, "measuring the site kept in "+dir+" (25 posts seeded)") {
		t.Fatalf("second bench --keep: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !regexp.MustCompile(`(?m)^\| GET /posts/<id> \| [1-9]\d* \| .* \| 0 \| `).MatchString(r.stdout) {
		t.Errorf("the kept site was not measured:\n%s", r.stdout)
	}
	// The kept directory is a site `folio user list --data` reads.
	r = run(t, nil, "user", "list", "--data", dir)
	if r.code != 0 || !strings.Contains(r.stdout, "benchadmin") || !strings.Contains(r.stdout, "author4") {
		t.Errorf("user list of the kept site: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// Another post count, and a directory holding something else, are
	// refused before anything is written.
	if r := run(t, nil, "bench", "--keep", dir, "--posts", "26"); r.code == 0 || !strings.Contains(r.stderr, "holds 25 posts on SQLite, not 26") {
		t.Errorf("bench --keep with another count: exit %d %s", r.code, r.stderr)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := run(t, nil, "bench", "--keep", other, "--posts", "1"); r.code == 0 || !strings.Contains(r.stderr, "is not empty") {
		t.Errorf("bench --keep into a used directory: exit %d %s", r.code, r.stderr)
	}
}

// TestBenchSoak runs `folio bench --soak`: a row a second while it runs,
// then the summary, the same text in --out.
func TestBenchSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the benchmark")
	}
	t.Parallel()
	out := filepath.Join(t.TempDir(), "soak.md")
	r := run(t, nil, "bench", "--posts", "10", "--soak", "2s", "--soak-interval", "1s", "--out", out)
	if r.code != 0 {
		t.Fatalf("bench --soak: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rows := regexp.MustCompile(`(?m)^\| (0:0[12]) \| (\d+) \| [\d.]+ ms \| [\d.]+ ms \| (\d+) \| [\d.]+ ms \| [\d.]+ ms \| 0 \| [\d.]+ MiB \| [\d.]+ MiB \| [\d.]+ MiB \| [\d.]+ MiB \| \d+ \| `).FindAllStringSubmatch(r.stdout, -1)
	if len(rows) != 2 || rows[0][1] != "0:01" || rows[1][1] != "0:02" {
		t.Fatalf("want a row at 0:01 and 0:02, got %q:\n%s", rows, r.stdout)
	}
	for _, want := range []string{"\nWhole soak: ", "\nWAL: largest ", "limit 128.0 MiB: within.", "limit 200.0 MiB: within."} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the soak's report lacks %q:\n%s", want, r.stdout)
		}
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != r.stdout {
		t.Errorf("--out holds %q (%v), want what was printed:\n%s", b, err, r.stdout)
	}
}

// TestBenchOnSeveralNodes runs `folio bench --nodes 2` on PostgreSQL: two
// serve processes share the database and the load.
func TestBenchOnSeveralNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the benchmark")
	}
	url := storetest.PostgresURL(t)
	t.Parallel()
	r := run(t, nil, "bench", "--database", url, "--nodes", "2", "--posts", "30", "--duration", "2s", "--connections", "2", "--only", "GET /posts/<id>,POST /posts")
	if r.code != 0 {
		t.Fatalf("bench --nodes 2: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "2 folio nodes") || !strings.Contains(r.stderr, "folio node 2 at http://127.0.0.1:") {
		t.Errorf("the report does not say two nodes ran:\n%s\n%s", r.stdout, r.stderr)
	}
	row := regexp.MustCompile(`(?m)^\| (GET /posts/<id>|POST /posts) \| (\d+) \| \d+ \| [\d.]+ ms \| [\d.]+ ms \| (\d+) \|`)
	rows := row.FindAllStringSubmatch(r.stdout, -1)
	if len(rows) != 2 {
		t.Fatalf("rows %v:\n%s", rows, r.stdout)
	}
	for _, m := range rows {
		if m[2] == "0" || m[3] != "0" {
			t.Errorf("%s: %s requests, %s errors", m[1], m[2], m[3])
		}
	}
	// SQLite is served by one node.
	if r := run(t, nil, "bench", "--nodes", "2", "--posts", "1"); r.code == 0 || !strings.Contains(r.stderr, "shared database") {
		t.Errorf("bench --nodes 2 on SQLite: exit %d %s", r.code, r.stderr)
	}
}
